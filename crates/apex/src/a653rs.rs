// SPDX-License-Identifier: MIT OR Apache-2.0
//! The `a653rs` binding traits (crates.io `a653rs` 0.6, feature `bindings`) implemented over
//! Partita's runtime, behind this crate's optional feature `a653rs`.
//!
//! [`Partita`] is the "hypervisor" type an `a653rs` application names (in
//! `#[partition(partita_apex::a653rs::Partita)]` or `impl Partition<Partita>`): with it the
//! whole `a653rs::prelude` (the `Partition` trait and its `StartContext`, processes, ports,
//! intra-partition objects, error handler, time, module schedules and memory blocks) runs on
//! this runtime, with the same kernel, scheduling and return codes as the C binding. The
//! mapping is documented in `docs/a653rs.md`.
//!
//! Conversions at the boundary:
//! - identifiers: `a653rs` uses `i64` ids, Partita 1-based `u32` ids (processes and
//!   intra-partition objects) and `i32` ids (ports, schedules); an id that does not fit is
//!   INVALID_PARAM;
//! - names: `a653rs` names are 32 bytes, ARINC 653 names (and Partita's) 30: a name longer
//!   than 30 bytes (up to its first NUL) cannot exist here: INVALID_PARAM when creating an
//!   intra-partition object, INVALID_CONFIG when creating a port (no configured port has it)
//!   or looking anything up;
//! - addresses: `a653rs` types entry points and failed addresses as `extern "C" fn()`, which
//!   safe code may call. Partita never turns a raw address into such a pointer (a failed
//!   address is usually a data address): `ErrorStatus::failed_address` is always
//!   [`no_address`] (the raw address is in `apex::hm::get_error_status`), and the entry point in
//!   `get_process_status` is the function given to `create_process` through these traits, or
//!   [`no_address`] for a process created through the C binding or the Rust API.
//! - the main process and the error handler have no process id: NULL_PROCESS_ID (0) in
//!   `ErrorStatus::failed_process_id` and `MutexStatus::mutex_owner`, as in the C binding.

use crate::apex::inter::{queuing, sampling};
use crate::apex::intra::{blackboard, buffer, event, mutex, semaphore};
use crate::apex::part2::{memory_blocks, schedules};
use crate::apex::{hm, partition, process, time};
use a653rs::bindings::{
    ApexBlackboardP1, ApexBufferP1, ApexByte, ApexErrorP1, ApexErrorP4, ApexEventP1, ApexLimits,
    ApexMemoryBlockP2, ApexMemoryBlockStatus, ApexMutexP1, ApexName, ApexPartitionP4,
    ApexPartitionStatus, ApexProcessAttribute, ApexProcessP1, ApexProcessP4, ApexProcessStatus,
    ApexQueuingPortP1, ApexQueuingPortP4, ApexSamplingPortP1, ApexSamplingPortP4,
    ApexSamplingPortStatus, ApexScheduleP2, ApexScheduleStatus, ApexSemaphoreP1, ApexSystemTime,
    ApexTimeP1, ApexTimeP4, ApexUnsigned, BlackboardId, BlackboardStatus, BufferId, BufferStatus,
    Deadline, EmptyIndicator, ErrorCode, ErrorHandlerConcurrencyControl, ErrorReturnCode,
    ErrorStatus, EventId, EventState, EventStatus, LockLevel, MemoryBlockMode, MemoryBlockName,
    MemoryBlockSize, MessageRange, MessageSize, MutexId, MutexState, MutexStatus, OperatingMode,
    PortDirection, Priority, ProcessId, ProcessIndex, ProcessState, ProcessorCoreId, QueueOverflow,
    QueuingDiscipline, QueuingPortId, QueuingPortName, QueuingPortStatus, SamplingPortId,
    SamplingPortName, ScheduleId, ScheduleName, SemaphoreId, SemaphoreStatus, SemaphoreValue,
    StackSize, StartCondition, SystemAddress, Validity, WaitingRange, CORE_AFFINITY_NO_PREFERENCE,
    NO_MUTEX_OWNED, PREEMPTION_LOCK_MUTEX,
};
use partita_abi as abi;
use partita_apex_core as core;
use std::sync::{Arc, Mutex};

/// Entry points of the processes created through [`ApexProcessP4::create_process`], by
/// process index (id - 1).
static ENTRIES: Mutex<Vec<Option<SystemAddress>>> = Mutex::new(Vec::new());

/// The Partita runtime as an `a653rs` hypervisor: implements every binding trait of `a653rs`
/// 0.6: `ApexPartitionP4`, `ApexProcessP4`/`P1`, `ApexTimeP4`/`P1`, `ApexErrorP4`/`P1`,
/// `ApexSamplingPortP4`/`P1`, `ApexQueuingPortP4`/`P1`, `ApexSemaphoreP1`, `ApexEventP1`,
/// `ApexBufferP1`, `ApexBlackboardP1`, `ApexMutexP1`, `ApexScheduleP2`, `ApexMemoryBlockP2`
/// and `ApexLimits` (with Partita's limits).
#[derive(Debug, Clone, Copy)]
pub enum Partita {}

/// The `extern "C" fn()` standing for "no (known) address" in `a653rs` structures, whose
/// address type cannot be null. It does nothing.
pub extern "C" fn no_address() {}

type R<T> = Result<T, ErrorReturnCode>;

fn rc(e: core::ReturnCode) -> ErrorReturnCode {
    match e {
        // Never an error value of the runtime; kept total without a panic.
        core::ReturnCode::NoError => ErrorReturnCode::NoAction,
        core::ReturnCode::NoAction => ErrorReturnCode::NoAction,
        core::ReturnCode::NotAvailable => ErrorReturnCode::NotAvailable,
        core::ReturnCode::InvalidParam => ErrorReturnCode::InvalidParam,
        core::ReturnCode::InvalidConfig => ErrorReturnCode::InvalidConfig,
        core::ReturnCode::InvalidMode => ErrorReturnCode::InvalidMode,
        core::ReturnCode::TimedOut => ErrorReturnCode::TimedOut,
    }
}

fn conv<T>(r: Result<T, core::ReturnCode>) -> R<T> {
    r.map_err(rc)
}

/// A 1-based Partita id from an `a653rs` id.
fn id(v: i64) -> R<u32> {
    u32::try_from(v).map_err(|_| ErrorReturnCode::InvalidParam)
}

fn pid(v: ProcessId) -> R<core::ProcessId> {
    id(v).map(core::ProcessId)
}

/// An `a653rs` name as an ARINC 653 name; `err` when longer than `MAX_NAME_LENGTH`.
fn name(n: &ApexName, err: ErrorReturnCode) -> R<core::Name> {
    let len = n.iter().position(|&b| b == 0).unwrap_or(n.len());
    if len > core::MAX_NAME_LENGTH {
        return Err(err);
    }
    let mut out = [0u8; core::MAX_NAME_LENGTH];
    out[..len].copy_from_slice(&n[..len]);
    Ok(out)
}

fn apex_name(n: &core::Name) -> ApexName {
    let mut out = [0u8; 32];
    out[..n.len()].copy_from_slice(n);
    out
}

fn discipline(d: QueuingDiscipline) -> core::QueuingDiscipline {
    match d {
        QueuingDiscipline::Fifo => core::QueuingDiscipline::Fifo,
        QueuingDiscipline::Priority => core::QueuingDiscipline::Priority,
    }
}

fn waiting(n: usize) -> WaitingRange {
    WaitingRange::try_from(n).unwrap_or(WaitingRange::MAX)
}

fn size(n: usize) -> MessageSize {
    MessageSize::try_from(n).unwrap_or(MessageSize::MAX)
}

/// A partition core id: `CORE_AFFINITY_NO_PREFERENCE` is core 0; other negative values are
/// not cores of the partition.
fn core_id(c: ProcessorCoreId) -> R<u32> {
    match c {
        CORE_AFFINITY_NO_PREFERENCE => Ok(0),
        c => u32::try_from(c).map_err(|_| ErrorReturnCode::InvalidConfig),
    }
}

/// The entry point recorded for process `p` (see [`ENTRIES`]).
fn entry_of(p: core::ProcessId) -> SystemAddress {
    let entries = ENTRIES.lock().unwrap_or_else(|e| e.into_inner());
    entries
        .get((p.0 as usize).wrapping_sub(1))
        .copied()
        .flatten()
        .unwrap_or(no_address)
}

impl ApexPartitionP4 for Partita {
    /// Never fails in `a653rs`; if the runtime could not start, the partition is reported
    /// IDLE with no cores.
    fn get_partition_status() -> ApexPartitionStatus {
        let Ok(s) = partition::get_partition_status() else {
            return ApexPartitionStatus::default();
        };
        ApexPartitionStatus {
            period: s.period,
            duration: s.duration,
            identifier: s.identifier,
            lock_level: s.lock_level,
            operating_mode: match s.operating_mode {
                core::OperatingMode::Idle => OperatingMode::Idle,
                core::OperatingMode::ColdStart => OperatingMode::ColdStart,
                core::OperatingMode::WarmStart => OperatingMode::WarmStart,
                core::OperatingMode::Normal => OperatingMode::Normal,
            },
            start_condition: match s.start_condition {
                core::StartCondition::NormalStart => StartCondition::NormalStart,
                core::StartCondition::PartitionRestart => StartCondition::PartitionRestart,
                core::StartCondition::HmModuleRestart => StartCondition::HmModuleRestart,
                core::StartCondition::HmPartitionRestart => StartCondition::HmPartitionRestart,
            },
            num_assigned_cores: s.num_assigned_cores,
        }
    }

    /// NORMAL from the main process does not return (its thread becomes the partition's
    /// timer thread), which is what `a653rs`'s `Partition::run` expects.
    fn set_partition_mode(operating_mode: OperatingMode) -> R<()> {
        let m = core::OperatingMode::from_raw(operating_mode as u32)
            .ok_or(ErrorReturnCode::InvalidParam)?;
        conv(partition::set_partition_mode(m))
    }
}

impl ApexProcessP4 for Partita {
    fn create_process(a: &ApexProcessAttribute) -> R<ProcessId> {
        let attrs = core::ProcessAttributes {
            name: name(&a.name, ErrorReturnCode::InvalidParam)?,
            entry: a.entry_point as usize as u64,
            stack_size: u64::from(a.stack_size),
            base_priority: a.base_priority,
            period: a.period,
            time_capacity: a.time_capacity,
            deadline: match a.deadline {
                Deadline::Soft => core::DeadlineType::Soft,
                Deadline::Hard => core::DeadlineType::Hard,
            },
        };
        let entry = a.entry_point;
        let p = conv(process::create_process(&attrs, move || entry()))?;
        let mut entries = ENTRIES.lock().unwrap_or_else(|e| e.into_inner());
        let i = p.0 as usize - 1;
        if entries.len() <= i {
            entries.resize(i + 1, None);
        }
        entries[i] = Some(entry);
        Ok(ProcessId::from(p.0))
    }

    fn start(process_id: ProcessId) -> R<()> {
        conv(process::start(pid(process_id)?))
    }
}

impl ApexProcessP1 for Partita {
    fn set_priority(process_id: ProcessId, priority: Priority) -> R<()> {
        conv(process::set_priority(pid(process_id)?, priority))
    }

    fn suspend_self(time_out: ApexSystemTime) -> R<()> {
        conv(process::suspend_self(time_out))
    }

    fn suspend(process_id: ProcessId) -> R<()> {
        conv(process::suspend(pid(process_id)?))
    }

    fn resume(process_id: ProcessId) -> R<()> {
        conv(process::resume(pid(process_id)?))
    }

    /// Returns only when STOP_SELF fails (the main process). a653rs process bodies are
    /// `extern "C"` functions, which cannot be unwound, and Rust frames, which cannot be
    /// discarded either: the thread parks for good (a fresh one takes the process at its next
    /// START), as described in the runtime's "Stopped processes".
    fn stop_self() {
        let _ = process::stop_self_parking();
    }

    fn stop(process_id: ProcessId) -> R<()> {
        conv(process::stop(pid(process_id)?))
    }

    fn delayed_start(process_id: ProcessId, delay_time: ApexSystemTime) -> R<()> {
        conv(process::delayed_start(pid(process_id)?, delay_time))
    }

    fn lock_preemption() -> R<LockLevel> {
        conv(process::lock_preemption())
    }

    fn unlock_preemption() -> R<LockLevel> {
        conv(process::unlock_preemption())
    }

    fn get_my_id() -> R<ProcessId> {
        conv(process::get_my_id()).map(|p| ProcessId::from(p.0))
    }

    fn get_process_id(process_name: ApexName) -> R<ProcessId> {
        let n = name(&process_name, ErrorReturnCode::InvalidConfig)?;
        conv(process::get_process_id(&n)).map(|p| ProcessId::from(p.0))
    }

    fn get_process_status(process_id: ProcessId) -> R<ApexProcessStatus> {
        let p = pid(process_id)?;
        let s = conv(process::get_process_status(p))?;
        let a = &s.attributes;
        Ok(ApexProcessStatus {
            deadline_time: s.deadline_time,
            current_priority: s.current_priority,
            process_state: match s.process_state {
                core::ProcessState::Dormant => ProcessState::Dormant,
                core::ProcessState::Ready => ProcessState::Ready,
                core::ProcessState::Running => ProcessState::Running,
                core::ProcessState::Waiting => ProcessState::Waiting,
            },
            attributes: ApexProcessAttribute {
                period: a.period,
                time_capacity: a.time_capacity,
                entry_point: entry_of(p),
                stack_size: StackSize::try_from(a.stack_size).unwrap_or(StackSize::MAX),
                base_priority: a.base_priority,
                deadline: match a.deadline {
                    core::DeadlineType::Soft => Deadline::Soft,
                    core::DeadlineType::Hard => Deadline::Hard,
                },
                name: apex_name(&a.name),
            },
        })
    }

    fn initialize_process_core_affinity(
        process_id: ProcessId,
        processor_core_id: ProcessorCoreId,
    ) -> R<()> {
        let p = pid(process_id)?;
        conv(process::initialize_process_core_affinity(
            p,
            core_id(processor_core_id)?,
        ))
    }

    /// The core the caller runs on (0 for the main process and foreign threads).
    fn get_my_processor_core_id() -> ProcessorCoreId {
        process::get_my_processor_core_id().map_or(0, |c| c as ProcessorCoreId)
    }

    fn get_my_index() -> R<ProcessIndex> {
        conv(process::get_my_index()).map(|i| i as ProcessIndex)
    }
}

impl ApexTimeP4 for Partita {
    fn periodic_wait() -> R<()> {
        conv(time::periodic_wait())
    }

    /// Never fails in `a653rs`; 0 if the runtime could not start.
    fn get_time() -> ApexSystemTime {
        time::get_time().unwrap_or(0)
    }
}

impl ApexTimeP1 for Partita {
    fn timed_wait(delay_time: ApexSystemTime) -> R<()> {
        conv(time::timed_wait(delay_time))
    }

    fn replenish(budget_time: ApexSystemTime) -> R<()> {
        conv(time::replenish(budget_time))
    }
}

fn error_code(c: ErrorCode) -> core::ErrorCode {
    match c {
        ErrorCode::DeadlineMissed => core::ErrorCode::DeadlineMissed,
        ErrorCode::ApplicationError => core::ErrorCode::ApplicationError,
        ErrorCode::NumericError => core::ErrorCode::NumericError,
        ErrorCode::IllegalRequest => core::ErrorCode::IllegalRequest,
        ErrorCode::StackOverflow => core::ErrorCode::StackOverflow,
        ErrorCode::MemoryViolation => core::ErrorCode::MemoryViolation,
        ErrorCode::HardwareFault => core::ErrorCode::HardwareFault,
        ErrorCode::PowerFail => core::ErrorCode::PowerFail,
    }
}

impl ApexErrorP4 for Partita {
    fn report_application_message(message: &[ApexByte]) -> R<()> {
        conv(hm::report_application_message(message))
    }

    fn raise_application_error(error_code: ErrorCode, message: &[ApexByte]) -> R<()> {
        conv(hm::raise_application_error(
            self::error_code(error_code),
            message,
        ))
    }
}

impl ApexErrorP1 for Partita {
    fn create_error_handler(entry_point: SystemAddress, stack_size: StackSize) -> R<()> {
        conv(hm::create_error_handler_entry(
            entry_point as usize as u64,
            u64::from(stack_size),
            Arc::new(move || entry_point()),
        ))
    }

    fn get_error_status() -> R<ErrorStatus> {
        let e = conv(hm::get_error_status())?;
        Ok(ErrorStatus {
            failed_address: no_address,
            failed_process_id: e.failed_process.map_or(0, |p| ProcessId::from(p.0)),
            error_code: match e.error_code {
                core::ErrorCode::DeadlineMissed => ErrorCode::DeadlineMissed,
                core::ErrorCode::ApplicationError => ErrorCode::ApplicationError,
                core::ErrorCode::NumericError => ErrorCode::NumericError,
                core::ErrorCode::IllegalRequest => ErrorCode::IllegalRequest,
                core::ErrorCode::StackOverflow => ErrorCode::StackOverflow,
                core::ErrorCode::MemoryViolation => ErrorCode::MemoryViolation,
                core::ErrorCode::HardwareFault => ErrorCode::HardwareFault,
                core::ErrorCode::PowerFail => ErrorCode::PowerFail,
            },
            length: e.length as i32,
            message: e.message,
        })
    }

    fn configure_error_handler(
        concurrency_control: ErrorHandlerConcurrencyControl,
        processor_core_id: ProcessorCoreId,
    ) -> R<()> {
        let cc = match concurrency_control {
            ErrorHandlerConcurrencyControl::ProcessesPause => {
                core::ErrorHandlerConcurrency::ProcessPause
            }
            ErrorHandlerConcurrencyControl::ProcessesScheduled => {
                core::ErrorHandlerConcurrency::ProcessSchedule
            }
        };
        conv(hm::configure_error_handler(cc, core_id(processor_core_id)?))
    }
}

impl ApexSemaphoreP1 for Partita {
    fn create_semaphore(
        semaphore_name: ApexName,
        current_value: SemaphoreValue,
        maximum_value: SemaphoreValue,
        queuing_discipline: QueuingDiscipline,
    ) -> R<SemaphoreId> {
        let n = name(&semaphore_name, ErrorReturnCode::InvalidParam)?;
        conv(semaphore::create_semaphore(
            &n,
            current_value,
            maximum_value,
            discipline(queuing_discipline),
        ))
        .map(|s| SemaphoreId::from(s.0))
    }

    fn wait_semaphore(semaphore_id: SemaphoreId, time_out: ApexSystemTime) -> R<()> {
        conv(semaphore::wait_semaphore(
            core::SemaphoreId(id(semaphore_id)?),
            time_out,
        ))
    }

    fn signal_semaphore(semaphore_id: SemaphoreId) -> R<()> {
        conv(semaphore::signal_semaphore(core::SemaphoreId(id(
            semaphore_id,
        )?)))
    }

    fn get_semaphore_id(semaphore_name: ApexName) -> R<SemaphoreId> {
        let n = name(&semaphore_name, ErrorReturnCode::InvalidConfig)?;
        conv(semaphore::get_semaphore_id(&n)).map(|s| SemaphoreId::from(s.0))
    }

    fn get_semaphore_status(semaphore_id: SemaphoreId) -> R<SemaphoreStatus> {
        let s = conv(semaphore::get_semaphore_status(core::SemaphoreId(id(
            semaphore_id,
        )?)))?;
        Ok(SemaphoreStatus {
            current_value: s.current_value,
            maximum_value: s.maximum_value,
            waiting_processes: waiting(s.waiting_processes),
        })
    }
}

impl ApexEventP1 for Partita {
    fn create_event(event_name: ApexName) -> R<EventId> {
        let n = name(&event_name, ErrorReturnCode::InvalidParam)?;
        conv(event::create_event(&n)).map(|e| EventId::from(e.0))
    }

    fn set_event(event_id: EventId) -> R<()> {
        conv(event::set_event(core::EventId(id(event_id)?)))
    }

    fn reset_event(event_id: EventId) -> R<()> {
        conv(event::reset_event(core::EventId(id(event_id)?)))
    }

    fn wait_event(event_id: EventId, time_out: ApexSystemTime) -> R<()> {
        conv(event::wait_event(core::EventId(id(event_id)?), time_out))
    }

    fn get_event_id(event_name: ApexName) -> R<EventId> {
        let n = name(&event_name, ErrorReturnCode::InvalidConfig)?;
        conv(event::get_event_id(&n)).map(|e| EventId::from(e.0))
    }

    fn get_event_status(event_id: EventId) -> R<EventStatus> {
        let s = conv(event::get_event_status(core::EventId(id(event_id)?)))?;
        Ok(EventStatus {
            event_state: match s.event_state {
                core::EventState::Down => EventState::Down,
                core::EventState::Up => EventState::Up,
            },
            waiting_processes: waiting(s.waiting_processes),
        })
    }
}

impl ApexBufferP1 for Partita {
    fn create_buffer(
        buffer_name: ApexName,
        max_message_size: MessageSize,
        max_nb_message: MessageRange,
        queuing_discipline: QueuingDiscipline,
    ) -> R<BufferId> {
        let n = name(&buffer_name, ErrorReturnCode::InvalidParam)?;
        conv(buffer::create_buffer(
            &n,
            max_message_size as usize,
            max_nb_message as usize,
            discipline(queuing_discipline),
        ))
        .map(|b| BufferId::from(b.0))
    }

    fn send_buffer(buffer_id: BufferId, message: &[ApexByte], time_out: ApexSystemTime) -> R<()> {
        conv(buffer::send_buffer(
            core::BufferId(id(buffer_id)?),
            message,
            time_out,
        ))
    }

    /// `unsafe` only because the a653rs trait declares it so (no unsafe code here). Safe in
    /// Partita: `message` must hold the buffer's maximum message size (INVALID_PARAM
    /// otherwise); nothing is written beyond the slice.
    #[allow(unsafe_code)] // the trait's signature, not unsafe code (see above)
    unsafe fn receive_buffer(
        buffer_id: BufferId,
        time_out: ApexSystemTime,
        message: &mut [ApexByte],
    ) -> R<MessageSize> {
        conv(buffer::receive_buffer(
            core::BufferId(id(buffer_id)?),
            time_out,
            message,
        ))
        .map(size)
    }

    fn get_buffer_id(buffer_name: ApexName) -> R<BufferId> {
        let n = name(&buffer_name, ErrorReturnCode::InvalidConfig)?;
        conv(buffer::get_buffer_id(&n)).map(|b| BufferId::from(b.0))
    }

    fn get_buffer_status(buffer_id: BufferId) -> R<BufferStatus> {
        let s = conv(buffer::get_buffer_status(core::BufferId(id(buffer_id)?)))?;
        Ok(BufferStatus {
            nb_message: size(s.nb_message),
            max_nb_message: size(s.max_nb_message),
            max_message_size: size(s.max_message_size),
            waiting_processes: waiting(s.waiting_processes),
        })
    }
}

impl ApexBlackboardP1 for Partita {
    fn create_blackboard(
        blackboard_name: ApexName,
        max_message_size: MessageSize,
    ) -> R<BlackboardId> {
        let n = name(&blackboard_name, ErrorReturnCode::InvalidParam)?;
        conv(blackboard::create_blackboard(&n, max_message_size as usize))
            .map(|b| BlackboardId::from(b.0))
    }

    fn display_blackboard(blackboard_id: BlackboardId, message: &[ApexByte]) -> R<()> {
        conv(blackboard::display_blackboard(
            core::BlackboardId(id(blackboard_id)?),
            message,
        ))
    }

    /// `unsafe` only because the a653rs trait declares it so (no unsafe code here). Safe in
    /// Partita: `message` must hold the blackboard's maximum message size (INVALID_PARAM
    /// otherwise); nothing is written beyond the slice.
    #[allow(unsafe_code)] // the trait's signature, not unsafe code (see above)
    unsafe fn read_blackboard(
        blackboard_id: BlackboardId,
        time_out: ApexSystemTime,
        message: &mut [ApexByte],
    ) -> R<MessageSize> {
        conv(blackboard::read_blackboard(
            core::BlackboardId(id(blackboard_id)?),
            time_out,
            message,
        ))
        .map(size)
    }

    fn clear_blackboard(blackboard_id: BlackboardId) -> R<()> {
        conv(blackboard::clear_blackboard(core::BlackboardId(id(
            blackboard_id,
        )?)))
    }

    fn get_blackboard_id(blackboard_name: ApexName) -> R<BlackboardId> {
        let n = name(&blackboard_name, ErrorReturnCode::InvalidConfig)?;
        conv(blackboard::get_blackboard_id(&n)).map(|b| BlackboardId::from(b.0))
    }

    fn get_blackboard_status(blackboard_id: BlackboardId) -> R<BlackboardStatus> {
        let s = conv(blackboard::get_blackboard_status(core::BlackboardId(id(
            blackboard_id,
        )?)))?;
        Ok(BlackboardStatus {
            empty_indicator: match s.empty_indicator {
                core::EmptyIndicator::Empty => EmptyIndicator::Empty,
                core::EmptyIndicator::Occupied => EmptyIndicator::Occupied,
            },
            max_message_size: size(s.max_message_size),
            waiting_processes: waiting(s.waiting_processes),
        })
    }
}

impl ApexMutexP1 for Partita {
    fn create_mutex(
        mutex_name: ApexName,
        mutex_priority: Priority,
        queuing_discipline: QueuingDiscipline,
    ) -> R<MutexId> {
        let n = name(&mutex_name, ErrorReturnCode::InvalidParam)?;
        conv(mutex::create_mutex(
            &n,
            mutex_priority,
            discipline(queuing_discipline),
        ))
        .map(|m| MutexId::from(m.0))
    }

    fn acquire_mutex(mutex_id: MutexId, time_out: ApexSystemTime) -> R<()> {
        conv(mutex::acquire_mutex(core::MutexId(id(mutex_id)?), time_out))
    }

    fn release_mutex(mutex_id: MutexId) -> R<()> {
        conv(mutex::release_mutex(core::MutexId(id(mutex_id)?)))
    }

    fn reset_mutex(mutex_id: MutexId, process_id: ProcessId) -> R<()> {
        conv(mutex::reset_mutex(
            core::MutexId(id(mutex_id)?),
            pid(process_id)?,
        ))
    }

    fn get_mutex_id(mutex_name: ApexName) -> R<MutexId> {
        let n = name(&mutex_name, ErrorReturnCode::InvalidConfig)?;
        conv(mutex::get_mutex_id(&n)).map(|m| MutexId::from(m.0))
    }

    fn get_mutex_status(mutex_id: MutexId) -> R<MutexStatus> {
        let s = conv(mutex::get_mutex_status(core::MutexId(id(mutex_id)?)))?;
        Ok(MutexStatus {
            mutex_owner: s.mutex_owner.map_or(0, |p| ProcessId::from(p.0)),
            mutex_state: match s.mutex_state {
                core::MutexState::Available => MutexState::Available,
                core::MutexState::Owned => MutexState::Owned,
            },
            mutex_priority: s.mutex_priority,
            lock_count: s.lock_count,
            waiting_processes: waiting(s.waiting_processes),
        })
    }

    fn get_process_mutex_state(process_id: ProcessId) -> R<MutexId> {
        Ok(
            match conv(mutex::get_process_mutex_state(pid(process_id)?))? {
                core::MutexOwnership::None => NO_MUTEX_OWNED,
                core::MutexOwnership::PreemptionLock => PREEMPTION_LOCK_MUTEX,
                core::MutexOwnership::Owned(m) => MutexId::from(m.0),
            },
        )
    }
}

/// Partita's limits (`partita_abi`, the `SYSTEM_LIMIT_*` of `ARINC653.h`), not the trait's
/// defaults.
impl ApexLimits for Partita {
    const SYSTEM_LIMIT_NUMBER_OF_PARTITIONS: ApexUnsigned =
        abi::SYSTEM_LIMIT_NUMBER_OF_PARTITIONS as ApexUnsigned;
    const SYSTEM_LIMIT_NUMBER_OF_MESSAGES: MessageRange =
        abi::SYSTEM_LIMIT_NUMBER_OF_MESSAGES as MessageRange;
    const SYSTEM_LIMIT_MESSAGE_SIZE: MessageSize = abi::SYSTEM_LIMIT_MESSAGE_SIZE as MessageSize;
    const SYSTEM_LIMIT_NUMBER_OF_PROCESSES: ApexUnsigned =
        abi::SYSTEM_LIMIT_NUMBER_OF_PROCESSES as ApexUnsigned;
    const SYSTEM_LIMIT_NUMBER_OF_SAMPLING_PORTS: ApexUnsigned =
        abi::SYSTEM_LIMIT_NUMBER_OF_SAMPLING_PORTS as ApexUnsigned;
    const SYSTEM_LIMIT_NUMBER_OF_QUEUING_PORTS: ApexUnsigned =
        abi::SYSTEM_LIMIT_NUMBER_OF_QUEUING_PORTS as ApexUnsigned;
    const SYSTEM_LIMIT_NUMBER_OF_BUFFERS: ApexUnsigned =
        abi::SYSTEM_LIMIT_NUMBER_OF_BUFFERS as ApexUnsigned;
    const SYSTEM_LIMIT_NUMBER_OF_BLACKBOARDS: ApexUnsigned =
        abi::SYSTEM_LIMIT_NUMBER_OF_BLACKBOARDS as ApexUnsigned;
    const SYSTEM_LIMIT_NUMBER_OF_SEMAPHORES: ApexUnsigned =
        abi::SYSTEM_LIMIT_NUMBER_OF_SEMAPHORES as ApexUnsigned;
    const SYSTEM_LIMIT_NUMBER_OF_EVENTS: ApexUnsigned =
        abi::SYSTEM_LIMIT_NUMBER_OF_EVENTS as ApexUnsigned;
    const SYSTEM_LIMIT_NUMBER_OF_MUTEXES: ApexUnsigned =
        abi::SYSTEM_LIMIT_NUMBER_OF_MUTEXES as ApexUnsigned;
}

/// A Partita port id (`i32`) from an `a653rs` id: INVALID_PARAM when it does not fit.
fn port_id(v: i64) -> R<i32> {
    i32::try_from(v).map_err(|_| ErrorReturnCode::InvalidParam)
}

fn port_direction(d: PortDirection) -> sampling::PortDirection {
    match d {
        PortDirection::Source => sampling::PortDirection::Source,
        PortDirection::Destination => sampling::PortDirection::Destination,
    }
}

fn apex_port_direction(d: sampling::PortDirection) -> PortDirection {
    match d {
        sampling::PortDirection::Source => PortDirection::Source,
        sampling::PortDirection::Destination => PortDirection::Destination,
    }
}

fn validity(v: sampling::Validity) -> Validity {
    match v {
        sampling::Validity::Invalid => Validity::Invalid,
        sampling::Validity::Valid => Validity::Valid,
    }
}

impl ApexSamplingPortP4 for Partita {
    fn create_sampling_port(
        sampling_port_name: SamplingPortName,
        max_message_size: MessageSize,
        port_direction: PortDirection,
        refresh_period: ApexSystemTime,
    ) -> R<SamplingPortId> {
        let n = name(&sampling_port_name, ErrorReturnCode::InvalidConfig)?;
        conv(sampling::create_sampling_port(
            &n,
            max_message_size as usize,
            self::port_direction(port_direction),
            refresh_period,
        ))
        .map(|p| SamplingPortId::from(p.0))
    }

    fn write_sampling_message(sampling_port_id: SamplingPortId, message: &[ApexByte]) -> R<()> {
        conv(sampling::write_sampling_message(
            sampling::SamplingPortId(port_id(sampling_port_id)?),
            message,
        ))
    }

    /// `unsafe` only because the a653rs trait declares it so (no unsafe code here). Safe in
    /// Partita: `message` must hold the port's maximum message size (INVALID_PARAM
    /// otherwise); nothing is written beyond the slice.
    #[allow(unsafe_code)] // the trait's signature, not unsafe code (see above)
    unsafe fn read_sampling_message(
        sampling_port_id: SamplingPortId,
        message: &mut [ApexByte],
    ) -> R<(Validity, MessageSize)> {
        let (len, v) = conv(sampling::read_sampling_message(
            sampling::SamplingPortId(port_id(sampling_port_id)?),
            message,
        ))?;
        Ok((validity(v), size(len)))
    }
}

impl ApexSamplingPortP1 for Partita {
    fn get_sampling_port_id(sampling_port_name: SamplingPortName) -> R<SamplingPortId> {
        let n = name(&sampling_port_name, ErrorReturnCode::InvalidConfig)?;
        conv(sampling::get_sampling_port_id(&n)).map(|p| SamplingPortId::from(p.0))
    }

    fn get_sampling_port_status(sampling_port_id: SamplingPortId) -> R<ApexSamplingPortStatus> {
        let s = conv(sampling::get_sampling_port_status(
            sampling::SamplingPortId(port_id(sampling_port_id)?),
        ))?;
        Ok(ApexSamplingPortStatus {
            refresh_period: s.refresh_period,
            max_message_size: size(s.max_message_size),
            port_direction: apex_port_direction(s.direction),
            last_msg_validity: validity(s.last_msg_validity),
        })
    }
}

impl ApexQueuingPortP4 for Partita {
    fn create_queuing_port(
        queuing_port_name: QueuingPortName,
        max_message_size: MessageSize,
        max_nb_message: MessageRange,
        port_direction: PortDirection,
        queuing_discipline: QueuingDiscipline,
    ) -> R<QueuingPortId> {
        let n = name(&queuing_port_name, ErrorReturnCode::InvalidConfig)?;
        conv(queuing::create_queuing_port(
            &n,
            max_message_size as usize,
            max_nb_message as usize,
            self::port_direction(port_direction),
            discipline(queuing_discipline),
        ))
        .map(|p| QueuingPortId::from(p.0))
    }

    fn send_queuing_message(
        queuing_port_id: QueuingPortId,
        message: &[ApexByte],
        time_out: ApexSystemTime,
    ) -> R<()> {
        conv(queuing::send_queuing_message(
            queuing::QueuingPortId(port_id(queuing_port_id)?),
            message,
            time_out,
        ))
    }

    /// `unsafe` only because the a653rs trait declares it so (no unsafe code here). Safe in
    /// Partita: `message` must hold the port's maximum message size (INVALID_PARAM
    /// otherwise); nothing is written beyond the slice. A queue overflow is returned as
    /// `QueueOverflow` `true` with the message (the C binding's INVALID_CONFIG).
    #[allow(unsafe_code)] // the trait's signature, not unsafe code (see above)
    unsafe fn receive_queuing_message(
        queuing_port_id: QueuingPortId,
        time_out: ApexSystemTime,
        message: &mut [ApexByte],
    ) -> R<(MessageSize, QueueOverflow)> {
        let r = conv(queuing::receive_queuing_message(
            queuing::QueuingPortId(port_id(queuing_port_id)?),
            time_out,
            message,
        ))?;
        Ok((size(r.len), r.overflow))
    }

    fn get_queuing_port_status(queuing_port_id: QueuingPortId) -> R<QueuingPortStatus> {
        let s = conv(queuing::get_queuing_port_status(queuing::QueuingPortId(
            port_id(queuing_port_id)?,
        )))?;
        Ok(QueuingPortStatus {
            nb_message: size(s.nb_message),
            max_nb_message: size(s.max_nb_message),
            max_message_size: size(s.max_message_size),
            port_direction: apex_port_direction(s.direction),
            waiting_processes: waiting(s.waiting_processes),
        })
    }

    fn clear_queuing_port(queuing_port_id: QueuingPortId) -> R<()> {
        conv(queuing::clear_queuing_port(queuing::QueuingPortId(
            port_id(queuing_port_id)?,
        )))
    }
}

impl ApexQueuingPortP1 for Partita {
    fn get_queuing_port_id(queuing_port_name: QueuingPortName) -> R<QueuingPortId> {
        let n = name(&queuing_port_name, ErrorReturnCode::InvalidConfig)?;
        conv(queuing::get_queuing_port_id(&n)).map(|p| QueuingPortId::from(p.0))
    }
}

impl ApexScheduleP2 for Partita {
    /// An id that does not fit Partita's `i32` names no schedule: INVALID_PARAM.
    fn set_module_schedule(schedule_id: ScheduleId) -> R<()> {
        conv(schedules::set_module_schedule(port_id(schedule_id)?))
    }

    fn get_module_schedule_status() -> R<ApexScheduleStatus> {
        let s = conv(schedules::get_module_schedule_status())?;
        Ok(ApexScheduleStatus {
            time_of_last_schedule_switch: s.time_of_last_schedule_switch,
            current_schedule: ScheduleId::from(s.current_schedule),
            next_schedule: ScheduleId::from(s.next_schedule),
        })
    }

    fn get_module_schedule_id(schedule_name: ScheduleName) -> R<ScheduleId> {
        let n = name(&schedule_name, ErrorReturnCode::InvalidConfig)?;
        conv(schedules::get_module_schedule_id(&n)).map(ScheduleId::from)
    }
}

impl ApexMemoryBlockP2 for Partita {
    /// The block of the partition's configuration with that `RegionName`, mapped at the
    /// first call (see `partita_apex::apex::part2::memory_blocks`). The a653rs `MemoryBlock`
    /// abstraction builds a mutable slice over the address: for an `MB_READ` block the
    /// memory is mapped read only, and a write through that slice faults (MEMORY_VIOLATION).
    fn get_memory_block_status(memory_block_name: MemoryBlockName) -> R<ApexMemoryBlockStatus> {
        let n = name(&memory_block_name, ErrorReturnCode::InvalidConfig)?;
        let s = conv(memory_blocks::get_memory_block_status(&n))?;
        Ok(ApexMemoryBlockStatus {
            address: s.address,
            size: MemoryBlockSize::try_from(s.size).map_err(|_| ErrorReturnCode::InvalidConfig)?,
            mode: match s.mode {
                memory_blocks::MemoryBlockMode::Read => MemoryBlockMode::Read,
                memory_blocks::MemoryBlockMode::ReadWrite => MemoryBlockMode::ReadWrite,
            },
        })
    }
}
