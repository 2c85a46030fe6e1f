//! The safe Rust API of the partition runtime. The C binding ([`crate::ffi`]) is a thin layer
//! over these functions; Rust partitions call them directly.
//!
//! Every function returns the ARINC 653 return code as the `Err` of a `Result`.

use crate::runtime::{self, Entry};
use partita_apex_core::{
    BlackboardId, BlackboardStatus, BufferId, BufferStatus, ErrorCode, ErrorHandlerConcurrency,
    ErrorStatus, EventId, EventStatus, LockLevel, MutexId, MutexOwnership, MutexStatus, Name,
    OperatingMode, PartitionStatus, Priority, ProcessAttributes, ProcessId, ProcessStatus,
    QueuingDiscipline, ReturnCode, Runner, SemaphoreId, SemaphoreStatus, SystemTime,
};
use std::sync::Arc;

pub use partita_apex_core::{
    name, DeadlineType, ProcessAttributes as Attributes, ProcessId as Pid, INFINITE_TIME_VALUE,
};

/// Longest application message (`MAX_ERROR_MESSAGE_SIZE`).
pub const MAX_ERROR_MESSAGE_SIZE: usize = 128;

/// GET_PARTITION_STATUS.
pub fn get_partition_status() -> Result<PartitionStatus, ReturnCode> {
    let rt = runtime::get()?;
    Ok(rt.lock().get_partition_status())
}

/// SET_PARTITION_MODE. Called by the main process with NORMAL, it does not return: the
/// main thread becomes the partition's timer thread.
pub fn set_partition_mode(mode: OperatingMode) -> Result<(), ReturnCode> {
    runtime::get()?.set_partition_mode(mode)
}

/// GET_TIME: nanoseconds since the start of the module's first major frame.
pub fn get_time() -> Result<SystemTime, ReturnCode> {
    Ok(runtime::get()?.now())
}

/// CREATE_PROCESS with a Rust closure as the process body (`attrs.entry` is ignored).
pub fn create_process(
    attrs: &ProcessAttributes,
    body: impl Fn() + Send + Sync + 'static,
) -> Result<ProcessId, ReturnCode> {
    create_process_entry(attrs, Arc::new(body))
}

/// CREATE_PROCESS with a shared body.
pub fn create_process_entry(
    attrs: &ProcessAttributes,
    body: Entry,
) -> Result<ProcessId, ReturnCode> {
    runtime::get()?.create_process(attrs, body)
}

/// START.
pub fn start(pid: ProcessId) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.start(now, me, pid))
}

/// PERIODIC_WAIT.
pub fn periodic_wait() -> Result<(), ReturnCode> {
    runtime::get()?.call_blocking(|k, now, me| k.periodic_wait(now, me))
}

/// GET_MY_ID.
pub fn get_my_id() -> Result<ProcessId, ReturnCode> {
    runtime::get()?.query(|k, me| k.get_my_id(me.ok_or(ReturnCode::InvalidMode)?))
}

/// REPORT_APPLICATION_MESSAGE: sends `msg` (at most [`MAX_ERROR_MESSAGE_SIZE`] bytes) to the
/// module's health-monitor log.
pub fn report_application_message(msg: &[u8]) -> Result<(), ReturnCode> {
    if msg.len() > MAX_ERROR_MESSAGE_SIZE {
        return Err(ReturnCode::InvalidParam);
    }
    let rt = runtime::get()?;
    // Record process numbers as for partition-level errors: -1 main, -2 error handler.
    let who = match rt.me() {
        Some(partita_apex_core::Runner::Process(p)) => p.0 as i32,
        Some(partita_apex_core::Runner::ErrorHandler) => -2,
        _ => -1,
    };
    rt.send_record(runtime::record::APPLICATION_MESSAGE, rt.now(), who, msg);
    Ok(())
}

// ---------------------------------------------------------------------------
// Process management
// ---------------------------------------------------------------------------

/// DELAYED_START: like START, the first release being `delay` later.
pub fn delayed_start(pid: ProcessId, delay: SystemTime) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.delayed_start(now, me, pid, delay))
}

/// STOP another process. It becomes DORMANT at once; a later START runs its entry point
/// from the beginning on a fresh thread.
pub fn stop(pid: ProcessId) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.stop(now, me, pid))
}

/// STOP_SELF. Returns only on error (e.g. `InvalidMode` from the main process).
pub fn stop_self() -> Result<std::convert::Infallible, ReturnCode> {
    runtime::get()?.stop_self()
}

/// SUSPEND_SELF with a time-out (`INFINITE_TIME_VALUE`: until RESUME); `Err(TimedOut)`
/// when the time-out expires first.
pub fn suspend_self(timeout: SystemTime) -> Result<(), ReturnCode> {
    runtime::get()?.call_blocking(|k, now, me| k.suspend_self(now, me, timeout))
}

/// SUSPEND another (aperiodic) process.
pub fn suspend(pid: ProcessId) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.suspend(now, me, pid))
}

/// RESUME a suspended process.
pub fn resume(pid: ProcessId) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.resume(now, me, pid))
}

/// SET_PRIORITY.
pub fn set_priority(pid: ProcessId, priority: Priority) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.set_priority(now, me, pid, priority))
}

/// LOCK_PREEMPTION: returns the new lock level.
pub fn lock_preemption() -> Result<LockLevel, ReturnCode> {
    runtime::get()?.call(|k, now, me| k.lock_preemption(now, me))
}

/// UNLOCK_PREEMPTION: returns the new lock level.
pub fn unlock_preemption() -> Result<LockLevel, ReturnCode> {
    runtime::get()?.call(|k, now, me| k.unlock_preemption(now, me))
}

/// GET_PROCESS_ID.
pub fn get_process_id(name: &Name) -> Result<ProcessId, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_process_id(name))
}

/// GET_PROCESS_STATUS.
pub fn get_process_status(pid: ProcessId) -> Result<ProcessStatus, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_process_status(pid))
}

/// INITIALIZE_PROCESS_CORE_AFFINITY (core ids are `0..cores` of the partition).
pub fn initialize_process_core_affinity(pid: ProcessId, core: u32) -> Result<(), ReturnCode> {
    runtime::get()?.initialize_process_core_affinity(pid, core)
}

/// GET_MY_PROCESSOR_CORE_ID (0 for the main process and threads the runtime did not create).
pub fn get_my_processor_core_id() -> Result<u32, ReturnCode> {
    runtime::get()?.query(|k, me| Ok(k.get_my_processor_core_id(me.unwrap_or(Runner::Main))))
}

/// GET_MY_INDEX: 1-based creation index of the calling process.
pub fn get_my_index() -> Result<u32, ReturnCode> {
    runtime::get()?.query(|k, me| k.get_my_index(me.ok_or(ReturnCode::InvalidMode)?))
}

// ---------------------------------------------------------------------------
// Time management
// ---------------------------------------------------------------------------

/// TIMED_WAIT: `delay` 0 yields to the processes of equal priority.
pub fn timed_wait(delay: SystemTime) -> Result<(), ReturnCode> {
    runtime::get()?.call_blocking(|k, now, me| k.timed_wait(now, me, delay))
}

/// REPLENISH: the caller's deadline becomes now + `budget`.
pub fn replenish(budget: SystemTime) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.replenish(now, me, budget))
}

// ---------------------------------------------------------------------------
// Semaphores
// ---------------------------------------------------------------------------

/// CREATE_SEMAPHORE.
pub fn create_semaphore(
    name: &Name,
    current_value: i32,
    maximum_value: i32,
    discipline: QueuingDiscipline,
) -> Result<SemaphoreId, ReturnCode> {
    runtime::get()?.call(|k, now, me| {
        k.create_semaphore(now, me, name, current_value, maximum_value, discipline)
    })
}

/// WAIT_SEMAPHORE.
pub fn wait_semaphore(id: SemaphoreId, timeout: SystemTime) -> Result<(), ReturnCode> {
    runtime::get()?.call_blocking(|k, now, me| k.wait_semaphore(now, me, id, timeout))
}

/// SIGNAL_SEMAPHORE.
pub fn signal_semaphore(id: SemaphoreId) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.signal_semaphore(now, me, id))
}

/// GET_SEMAPHORE_ID.
pub fn get_semaphore_id(name: &Name) -> Result<SemaphoreId, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_semaphore_id(name))
}

/// GET_SEMAPHORE_STATUS.
pub fn get_semaphore_status(id: SemaphoreId) -> Result<SemaphoreStatus, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_semaphore_status(id))
}

// ---------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------

/// CREATE_EVENT (initially DOWN).
pub fn create_event(name: &Name) -> Result<EventId, ReturnCode> {
    runtime::get()?.call(|k, now, me| k.create_event(now, me, name))
}

/// SET_EVENT.
pub fn set_event(id: EventId) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.set_event(now, me, id))
}

/// RESET_EVENT.
pub fn reset_event(id: EventId) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.reset_event(now, me, id))
}

/// WAIT_EVENT.
pub fn wait_event(id: EventId, timeout: SystemTime) -> Result<(), ReturnCode> {
    runtime::get()?.call_blocking(|k, now, me| k.wait_event(now, me, id, timeout))
}

/// GET_EVENT_ID.
pub fn get_event_id(name: &Name) -> Result<EventId, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_event_id(name))
}

/// GET_EVENT_STATUS.
pub fn get_event_status(id: EventId) -> Result<EventStatus, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_event_status(id))
}

// ---------------------------------------------------------------------------
// Buffers
// ---------------------------------------------------------------------------

/// CREATE_BUFFER.
pub fn create_buffer(
    name: &Name,
    max_message_size: usize,
    max_nb_message: usize,
    discipline: QueuingDiscipline,
) -> Result<BufferId, ReturnCode> {
    runtime::get()?.call(|k, now, me| {
        k.create_buffer(now, me, name, max_message_size, max_nb_message, discipline)
    })
}

/// SEND_BUFFER.
pub fn send_buffer(id: BufferId, msg: &[u8], timeout: SystemTime) -> Result<(), ReturnCode> {
    runtime::get()?.call_blocking(|k, now, me| k.send_buffer(now, me, id, msg, timeout))
}

/// RECEIVE_BUFFER: the oldest message is copied into `out`, which must hold the buffer's
/// maximum message size (`InvalidParam` otherwise); returns its length.
pub fn receive_buffer(
    id: BufferId,
    timeout: SystemTime,
    out: &mut [u8],
) -> Result<usize, ReturnCode> {
    runtime::get()?.call_blocking_message(out, |k, now, me, out| {
        k.receive_buffer(now, me, id, timeout, out)
    })
}

/// GET_BUFFER_ID.
pub fn get_buffer_id(name: &Name) -> Result<BufferId, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_buffer_id(name))
}

/// GET_BUFFER_STATUS.
pub fn get_buffer_status(id: BufferId) -> Result<BufferStatus, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_buffer_status(id))
}

// ---------------------------------------------------------------------------
// Blackboards
// ---------------------------------------------------------------------------

/// CREATE_BLACKBOARD (initially empty).
pub fn create_blackboard(name: &Name, max_message_size: usize) -> Result<BlackboardId, ReturnCode> {
    runtime::get()?.call(|k, now, me| k.create_blackboard(now, me, name, max_message_size))
}

/// DISPLAY_BLACKBOARD.
pub fn display_blackboard(id: BlackboardId, msg: &[u8]) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.display_blackboard(now, me, id, msg))
}

/// READ_BLACKBOARD: the displayed message is copied into `out`, which must hold the
/// blackboard's maximum message size (`InvalidParam` otherwise); returns its length.
pub fn read_blackboard(
    id: BlackboardId,
    timeout: SystemTime,
    out: &mut [u8],
) -> Result<usize, ReturnCode> {
    runtime::get()?.call_blocking_message(out, |k, now, me, out| {
        k.read_blackboard(now, me, id, timeout, out)
    })
}

/// CLEAR_BLACKBOARD.
pub fn clear_blackboard(id: BlackboardId) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.clear_blackboard(now, me, id))
}

/// GET_BLACKBOARD_ID.
pub fn get_blackboard_id(name: &Name) -> Result<BlackboardId, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_blackboard_id(name))
}

/// GET_BLACKBOARD_STATUS.
pub fn get_blackboard_status(id: BlackboardId) -> Result<BlackboardStatus, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_blackboard_status(id))
}

// ---------------------------------------------------------------------------
// Mutexes
// ---------------------------------------------------------------------------

/// CREATE_MUTEX (priority ceiling `priority`).
pub fn create_mutex(
    name: &Name,
    priority: Priority,
    discipline: QueuingDiscipline,
) -> Result<MutexId, ReturnCode> {
    runtime::get()?.call(|k, now, me| k.create_mutex(now, me, name, priority, discipline))
}

/// ACQUIRE_MUTEX.
pub fn acquire_mutex(id: MutexId, timeout: SystemTime) -> Result<(), ReturnCode> {
    runtime::get()?.call_blocking(|k, now, me| k.acquire_mutex(now, me, id, timeout))
}

/// RELEASE_MUTEX.
pub fn release_mutex(id: MutexId) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.release_mutex(now, me, id))
}

/// RESET_MUTEX: releases `id` owned by `pid` whatever its lock count.
pub fn reset_mutex(id: MutexId, pid: ProcessId) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.reset_mutex(now, me, id, pid))
}

/// GET_MUTEX_ID.
pub fn get_mutex_id(name: &Name) -> Result<MutexId, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_mutex_id(name))
}

/// GET_MUTEX_STATUS.
pub fn get_mutex_status(id: MutexId) -> Result<MutexStatus, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_mutex_status(id))
}

/// GET_PROCESS_MUTEX_STATE.
pub fn get_process_mutex_state(pid: ProcessId) -> Result<MutexOwnership, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_process_mutex_state(pid))
}

// ---------------------------------------------------------------------------
// Health monitoring (process level)
// ---------------------------------------------------------------------------

/// CREATE_ERROR_HANDLER with a Rust closure as the handler body (during initialisation).
/// The handler runs when an error is raised (above every process); it reads the errors
/// with [`get_error_status`] and ends with [`stop_self`] or by returning (returning reuses
/// its thread for the next activation, STOP_SELF leaves a parked thread behind).
pub fn create_error_handler(
    stack_size: u64,
    body: impl Fn() + Send + Sync + 'static,
) -> Result<(), ReturnCode> {
    let body: Entry = Arc::new(body);
    let addr = Arc::as_ptr(&body) as *const () as usize as u64;
    create_error_handler_entry(addr, stack_size, body)
}

/// CREATE_ERROR_HANDLER with a shared body; `entry_addr` is the entry point reported by the
/// kernel's status (the C function's address for the C binding).
pub fn create_error_handler_entry(
    entry_addr: u64,
    stack_size: u64,
    body: Entry,
) -> Result<(), ReturnCode> {
    runtime::get()?.create_error_handler(entry_addr, stack_size, body)
}

/// CONFIGURE_ERROR_HANDLER (core ids are `0..cores` of the partition).
pub fn configure_error_handler(
    concurrency: ErrorHandlerConcurrency,
    core: u32,
) -> Result<(), ReturnCode> {
    runtime::get()?.configure_error_handler(concurrency, core)
}

/// RAISE_APPLICATION_ERROR: `code` must be `ApplicationError`, `msg` at most
/// [`MAX_ERROR_MESSAGE_SIZE`] bytes. With an error handler (in NORMAL mode) the handler runs
/// before this returns; otherwise the error is reported to the module's health monitor.
pub fn raise_application_error(code: ErrorCode, msg: &[u8]) -> Result<(), ReturnCode> {
    let rt = runtime::get()?;
    rt.call(|k, now, me| {
        let before = k.error_handler_status().map(|s| s.pending_errors);
        let r = k.raise_application_error(now, me, code, msg);
        // Taken by the error handler: recorded in the module logbook (process level).
        if r.is_ok() && k.error_handler_status().map(|s| s.pending_errors) > before {
            rt.report_process_error(me, code, 0, msg);
        }
        r
    })
}

/// GET_ERROR_STATUS (error handler only): the oldest pending error; `Err(NoAction)` when
/// none is pending, `Err(InvalidConfig)` for any other caller.
pub fn get_error_status() -> Result<ErrorStatus, ReturnCode> {
    let rt = runtime::get()?;
    if rt.me() != Some(Runner::ErrorHandler) {
        return Err(ReturnCode::InvalidConfig);
    }
    rt.call(|k, now, me| k.get_error_status(now, me))
}
