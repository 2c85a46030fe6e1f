// SPDX-License-Identifier: MIT OR Apache-2.0
//! Trace events, and the shared-memory ring that carries them.
//!
//! The manager and every partition's runtime record what happens as fixed-size binary
//! [`Event`]s: no allocation and no formatting where they are recorded. Each producer owns a
//! [`Ring`] in shared memory (one per scheduler thread of the manager, one per partition);
//! the manager drains them all and `partita run --trace FILE` writes the events, in the
//! encoding below, after the file header of `partita-trace`.
//!
//! # The event record ([`EVENT_LEN`] bytes, little-endian)
//!
//! | offset | type | field |
//! |-------:|------|-------|
//! | 0  | u64 | time, `CLOCK_MONOTONIC` ns (the clock the module epoch is given in) |
//! | 8  | u16 | [`EventKind`] |
//! | 10 | u8  | core (logical CPU), [`NO_CORE`] when none |
//! | 11 | u8  | reserved, 0 |
//! | 12 | u16 | partition index in the plan, [`NO_PARTITION`] when none |
//! | 14 | u16 | reserved, 0 |
//! | 16 | i32 | APEX process identifier (> 0), [`crate::MAIN_PROCESS_ID`], [`crate::ERROR_HANDLER_PROCESS_ID`], or [`NO_PROCESS`] |
//! | 20 | u32 | reserved, 0 |
//! | 24 | u64 | argument `a` |
//! | 32 | [u8; 32] | payload: arguments `b`, `c`, `d`, `e` (u64 each), or a NUL-padded name for the kinds that carry one |
//!
//! What `a` … `e` mean is given per kind in [`EventKind`].
//!
//! # Who may record what
//!
//! Each kind has a [`Source`]: the manager, or a partition. The manager drains a partition's
//! ring as untrusted input: it overwrites the partition field with the ring's owner (a
//! partition cannot speak for another), refuses manager kinds and undecodable records, and
//! counts what it refused ([`EventKind::Refused`]). Events lost because a ring was full are
//! counted by the producer ([`RingHeader::lost`]) and reported as [`EventKind::Lost`].
//!
//! # The ring
//!
//! A bounded multi-producer, single-consumer queue of [`Slot`]s (a partition's processes may
//! record from several threads): each slot carries a sequence number, claimed by a
//! compare-and-swap on [`RingHeader::head`] and published by a release store, so the consumer
//! never reads a half-written event. Everything is an atomic, valid for any bit pattern: a
//! producer scribbling over its ring can make the consumer read garbage (refused by
//! [`Event::decode`]) but never block it, make it loop or read out of bounds. A full ring
//! drops the new event and counts it; it never waits.

use crate::wire::{Reader, Writer};
use crate::{abi_enum, DecodeError, EncodeError};
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Version of the event record layout.
pub const VERSION: u16 = 1;
/// Bytes of one encoded event.
pub const EVENT_LEN: usize = 64;
/// Bytes of a name payload.
pub const NAME_LEN: usize = 32;
/// The core field when the event belongs to no core.
pub const NO_CORE: u8 = u8::MAX;
/// The partition field when the event belongs to no partition.
pub const NO_PARTITION: u16 = u16::MAX;
/// The process field when the event belongs to no process.
pub const NO_PROCESS: i32 = 0;

/// Argument `b` of [`EventKind::ApexExit`] when the service stored no return code.
pub const NO_RETURN_CODE: u64 = u64::MAX;

/// Bit of argument `a` of [`EventKind::PortCreated`] set for a queuing port.
pub const PORT_CREATED_QUEUING: u64 = 1 << 32;

/// Who may record an event kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Only the partition manager.
    Manager,
    /// A partition's runtime (and the manager never forges these).
    Partition,
}

abi_enum! {
    /// What an event says. Arguments not named are 0.
    "PARTITA_TRACE_EVENT_KIND" EventKind {
        /// Manager: a window started. `a` planned start (ns, same clock as the time), `b`
        /// schedule index, `c` window index in that schedule's core plan; time = the instant
        /// the entering partition was released.
        WindowStart = 1 => "WINDOW_START",
        /// Manager: a window ended. `a` planned end, `b` schedule index, `c` window index;
        /// time = the instant the leaving partition was held.
        WindowEnd = 2 => "WINDOW_END",
        /// Manager: a partition's operating mode changed. `a` new `OPERATING_MODE_TYPE`, `b`
        /// `START_CONDITION_TYPE`.
        PartitionMode = 3 => "PARTITION_MODE",
        /// Manager: the module schedule changed. `a` new schedule index, `b` previous one.
        ScheduleSwitch = 4 => "SCHEDULE_SWITCH",
        /// Manager: the health monitor handled an event. `a` `ERROR_CODE_TYPE` (or the
        /// module-level error's code), `b` `ERROR_LEVEL_TYPE`, `c` the action taken
        /// (`HM_ACTION_TYPE`).
        HealthMonitor = 5 => "HEALTH_MONITOR",
        /// Manager: a partition's host process started. `a` its host process id, `b` the
        /// partition's incarnation (0 for the first start).
        PartitionSpawned = 6 => "PARTITION_SPAWNED",
        /// Manager: events were lost because a ring was full. `a` how many since the last
        /// such event for the same ring; partition = the ring's owner ([`NO_PARTITION`] for a
        /// manager ring, then core = its core).
        Lost = 7 => "LOST",
        /// Manager: records of a partition's ring were refused (undecodable, or a kind only
        /// the manager may record). `a` how many since the last such event.
        Refused = 8 => "REFUSED",
        /// Manager: the kernel switched tasks on a core (tracefs `sched_switch`, merged in).
        /// `a` previous host thread id, `b` next host thread id, `c` previous task state as
        /// tracefs prints it (`S`, `R+`, ...): its ASCII bytes packed little-endian. Time
        /// resolution: 1 µs (the text `trace_pipe`).
        KernelSwitch = 9 => "KERNEL_SWITCH",
        /// Manager: the kernel woke a task (tracefs `sched_wakeup`). `a` host thread id, `b`
        /// target core.
        KernelWakeup = 10 => "KERNEL_WAKEUP",
        /// Partition: an APEX process was created. `a` its host thread id (the partition
        /// records its own PID namespace's; the manager translates it, 0 when it cannot: the
        /// partition ended before the record was drained); name payload: the process name.
        ProcessCreated = 32 => "PROCESS_CREATED",
        /// Partition: a process changed state. `a` new `PROCESS_STATE_TYPE`, `b` the
        /// [`StateReason`].
        ProcessState = 33 => "PROCESS_STATE",
        /// Partition: a process missed its deadline. `a` the deadline time (APEX time, ns).
        DeadlineMiss = 34 => "DEADLINE_MISS",
        /// Partition: a port was created. `a` its port identifier in the low 32 bits, with
        /// [`PORT_CREATED_QUEUING`] set for a queuing port (clear: sampling); name payload:
        /// the port name (the name fills the payload, so the kind rides in `a`).
        PortCreated = 35 => "PORT_CREATED",
        /// Partition: a message was written to a port. `a` port identifier, `b` bytes,
        /// `c` the return code.
        PortWrite = 36 => "PORT_WRITE",
        /// Partition: a port was read. `a` port identifier, `b` bytes, `c` the return code,
        /// `d` the validity (sampling ports; 0 otherwise).
        PortRead = 37 => "PORT_READ",
        /// Partition (`partita run --trace-apex`): a process called an APEX service through
        /// the C binding. `a` the [`ApexService`].
        ApexEnter = 38 => "APEX_ENTER",
        /// Partition (`--trace-apex`): an APEX service returned. `a` the [`ApexService`],
        /// `b` the `RETURN_CODE_TYPE` it returned ([`NO_RETURN_CODE`] when it stored none). A service that does not return to its
        /// caller (a `SET_PARTITION_MODE` that restarts or stops the partition, ...) has no
        /// exit; `STOP_SELF` records its exit before its thread leaves the body.
        ApexExit = 39 => "APEX_EXIT",
        /// Partition: an application record (the trace extension service). `a` the stream
        /// (application-chosen), `b` the value.
        Application = 40 => "APPLICATION",
    }
}

impl EventKind {
    /// Who may record this kind.
    pub fn source(self) -> Source {
        if self.raw() < 32 {
            Source::Manager
        } else {
            Source::Partition
        }
    }

    /// Whether the payload is a name rather than arguments `b` … `e`.
    pub fn has_name(self) -> bool {
        matches!(self, EventKind::ProcessCreated | EventKind::PortCreated)
    }
}

abi_enum! {
    /// Why a process changed state (argument `b` of [`EventKind::ProcessState`]).
    "PARTITA_TRACE_STATE_REASON" StateReason {
        /// START or DELAYED_START made it ready (or waiting on a delayed start).
        Started = 1 => "STARTED",
        /// A periodic release point.
        PeriodicRelease = 2 => "PERIODIC_RELEASE",
        /// The scheduler chose it (ready → running) or preempted it (running → ready).
        Scheduled = 3 => "SCHEDULED",
        /// It waits on an intra-partition object or a port.
        WaitObject = 4 => "WAIT_OBJECT",
        /// It waits for time (TIMED_WAIT, PERIODIC_WAIT).
        WaitTime = 5 => "WAIT_TIME",
        /// A time-out expired.
        Timeout = 6 => "TIMEOUT",
        /// The object it waited on was signalled.
        Signalled = 7 => "SIGNALLED",
        /// SUSPEND / SUSPEND_SELF.
        Suspended = 8 => "SUSPENDED",
        /// RESUME.
        Resumed = 9 => "RESUMED",
        /// STOP, STOP_SELF.
        Stopped = 10 => "STOPPED",
        /// The health monitor or the error handler acted on it.
        HealthMonitor = 11 => "HEALTH_MONITOR",
        /// The partition's mode changed (all processes).
        ModeChange = 12 => "MODE_CHANGE",
    }
}

abi_enum! {
    /// The APEX services, numbered for [`EventKind::ApexEnter`] and [`EventKind::ApexExit`]
    /// (argument `a`): every service `include/ARINC653.h` declares (the standard's, Partita's
    /// extensions and the Part 2 services). Numbered from 1 in the header's order when the
    /// numbering was introduced; a service added later takes the next number, so a number
    /// never changes meaning. One value per exported C function: the layout test of
    /// `partita-apex` checks both ways.
    "PARTITA_APEX_SERVICE" ApexService {
        /// GET_PARTITION_STATUS.
        GetPartitionStatus = 1 => "GET_PARTITION_STATUS",
        /// SET_PARTITION_MODE.
        SetPartitionMode = 2 => "SET_PARTITION_MODE",
        /// CREATE_PROCESS.
        CreateProcess = 3 => "CREATE_PROCESS",
        /// START.
        Start = 4 => "START",
        /// GET_MY_ID.
        GetMyId = 5 => "GET_MY_ID",
        /// DELAYED_START.
        DelayedStart = 6 => "DELAYED_START",
        /// STOP.
        Stop = 7 => "STOP",
        /// STOP_SELF.
        StopSelf = 8 => "STOP_SELF",
        /// SUSPEND_SELF.
        SuspendSelf = 9 => "SUSPEND_SELF",
        /// SUSPEND.
        Suspend = 10 => "SUSPEND",
        /// RESUME.
        Resume = 11 => "RESUME",
        /// SET_PRIORITY.
        SetPriority = 12 => "SET_PRIORITY",
        /// LOCK_PREEMPTION.
        LockPreemption = 13 => "LOCK_PREEMPTION",
        /// UNLOCK_PREEMPTION.
        UnlockPreemption = 14 => "UNLOCK_PREEMPTION",
        /// GET_PROCESS_ID.
        GetProcessId = 15 => "GET_PROCESS_ID",
        /// GET_PROCESS_STATUS.
        GetProcessStatus = 16 => "GET_PROCESS_STATUS",
        /// INITIALIZE_PROCESS_CORE_AFFINITY.
        InitializeProcessCoreAffinity = 17 => "INITIALIZE_PROCESS_CORE_AFFINITY",
        /// GET_MY_PROCESSOR_CORE_ID.
        GetMyProcessorCoreId = 18 => "GET_MY_PROCESSOR_CORE_ID",
        /// GET_MY_INDEX.
        GetMyIndex = 19 => "GET_MY_INDEX",
        /// PERIODIC_WAIT.
        PeriodicWait = 20 => "PERIODIC_WAIT",
        /// GET_TIME.
        GetTime = 21 => "GET_TIME",
        /// TIMED_WAIT.
        TimedWait = 22 => "TIMED_WAIT",
        /// REPLENISH.
        Replenish = 23 => "REPLENISH",
        /// CREATE_BUFFER.
        CreateBuffer = 24 => "CREATE_BUFFER",
        /// SEND_BUFFER.
        SendBuffer = 25 => "SEND_BUFFER",
        /// RECEIVE_BUFFER.
        ReceiveBuffer = 26 => "RECEIVE_BUFFER",
        /// GET_BUFFER_ID.
        GetBufferId = 27 => "GET_BUFFER_ID",
        /// GET_BUFFER_STATUS.
        GetBufferStatus = 28 => "GET_BUFFER_STATUS",
        /// CREATE_BLACKBOARD.
        CreateBlackboard = 29 => "CREATE_BLACKBOARD",
        /// DISPLAY_BLACKBOARD.
        DisplayBlackboard = 30 => "DISPLAY_BLACKBOARD",
        /// READ_BLACKBOARD.
        ReadBlackboard = 31 => "READ_BLACKBOARD",
        /// CLEAR_BLACKBOARD.
        ClearBlackboard = 32 => "CLEAR_BLACKBOARD",
        /// GET_BLACKBOARD_ID.
        GetBlackboardId = 33 => "GET_BLACKBOARD_ID",
        /// GET_BLACKBOARD_STATUS.
        GetBlackboardStatus = 34 => "GET_BLACKBOARD_STATUS",
        /// CREATE_SEMAPHORE.
        CreateSemaphore = 35 => "CREATE_SEMAPHORE",
        /// WAIT_SEMAPHORE.
        WaitSemaphore = 36 => "WAIT_SEMAPHORE",
        /// SIGNAL_SEMAPHORE.
        SignalSemaphore = 37 => "SIGNAL_SEMAPHORE",
        /// GET_SEMAPHORE_ID.
        GetSemaphoreId = 38 => "GET_SEMAPHORE_ID",
        /// GET_SEMAPHORE_STATUS.
        GetSemaphoreStatus = 39 => "GET_SEMAPHORE_STATUS",
        /// CREATE_EVENT.
        CreateEvent = 40 => "CREATE_EVENT",
        /// SET_EVENT.
        SetEvent = 41 => "SET_EVENT",
        /// RESET_EVENT.
        ResetEvent = 42 => "RESET_EVENT",
        /// WAIT_EVENT.
        WaitEvent = 43 => "WAIT_EVENT",
        /// GET_EVENT_ID.
        GetEventId = 44 => "GET_EVENT_ID",
        /// GET_EVENT_STATUS.
        GetEventStatus = 45 => "GET_EVENT_STATUS",
        /// CREATE_MUTEX.
        CreateMutex = 46 => "CREATE_MUTEX",
        /// ACQUIRE_MUTEX.
        AcquireMutex = 47 => "ACQUIRE_MUTEX",
        /// RELEASE_MUTEX.
        ReleaseMutex = 48 => "RELEASE_MUTEX",
        /// RESET_MUTEX.
        ResetMutex = 49 => "RESET_MUTEX",
        /// GET_MUTEX_ID.
        GetMutexId = 50 => "GET_MUTEX_ID",
        /// GET_MUTEX_STATUS.
        GetMutexStatus = 51 => "GET_MUTEX_STATUS",
        /// GET_PROCESS_MUTEX_STATE.
        GetProcessMutexState = 52 => "GET_PROCESS_MUTEX_STATE",
        /// REPORT_APPLICATION_MESSAGE.
        ReportApplicationMessage = 53 => "REPORT_APPLICATION_MESSAGE",
        /// CREATE_ERROR_HANDLER.
        CreateErrorHandler = 54 => "CREATE_ERROR_HANDLER",
        /// GET_ERROR_STATUS.
        GetErrorStatus = 55 => "GET_ERROR_STATUS",
        /// RAISE_APPLICATION_ERROR.
        RaiseApplicationError = 56 => "RAISE_APPLICATION_ERROR",
        /// CONFIGURE_ERROR_HANDLER.
        ConfigureErrorHandler = 57 => "CONFIGURE_ERROR_HANDLER",
        /// GET_A_PARTITION_STATUS.
        GetAPartitionStatus = 58 => "GET_A_PARTITION_STATUS",
        /// SET_A_PARTITION_MODE.
        SetAPartitionMode = 59 => "SET_A_PARTITION_MODE",
        /// GET_HM_LOG_STATUS.
        GetHmLogStatus = 60 => "GET_HM_LOG_STATUS",
        /// READ_HM_LOG.
        ReadHmLog = 61 => "READ_HM_LOG",
        /// PARTITA_TRACE_EVENT.
        PartitaTraceEvent = 62 => "PARTITA_TRACE_EVENT",
        /// SET_MODULE_SCHEDULE.
        SetModuleSchedule = 63 => "SET_MODULE_SCHEDULE",
        /// GET_MODULE_SCHEDULE_STATUS.
        GetModuleScheduleStatus = 64 => "GET_MODULE_SCHEDULE_STATUS",
        /// GET_MODULE_SCHEDULE_ID.
        GetModuleScheduleId = 65 => "GET_MODULE_SCHEDULE_ID",
        /// CREATE_SAMPLING_PORT.
        CreateSamplingPort = 66 => "CREATE_SAMPLING_PORT",
        /// WRITE_SAMPLING_MESSAGE.
        WriteSamplingMessage = 67 => "WRITE_SAMPLING_MESSAGE",
        /// READ_SAMPLING_MESSAGE.
        ReadSamplingMessage = 68 => "READ_SAMPLING_MESSAGE",
        /// GET_SAMPLING_PORT_ID.
        GetSamplingPortId = 69 => "GET_SAMPLING_PORT_ID",
        /// GET_SAMPLING_PORT_STATUS.
        GetSamplingPortStatus = 70 => "GET_SAMPLING_PORT_STATUS",
        /// READ_UPDATED_SAMPLING_MESSAGE.
        ReadUpdatedSamplingMessage = 71 => "READ_UPDATED_SAMPLING_MESSAGE",
        /// GET_SAMPLING_PORT_CURRENT_STATUS.
        GetSamplingPortCurrentStatus = 72 => "GET_SAMPLING_PORT_CURRENT_STATUS",
        /// READ_SAMPLING_MESSAGE_CONDITIONAL.
        ReadSamplingMessageConditional = 73 => "READ_SAMPLING_MESSAGE_CONDITIONAL",
        /// CREATE_QUEUING_PORT.
        CreateQueuingPort = 74 => "CREATE_QUEUING_PORT",
        /// SEND_QUEUING_MESSAGE.
        SendQueuingMessage = 75 => "SEND_QUEUING_MESSAGE",
        /// RECEIVE_QUEUING_MESSAGE.
        ReceiveQueuingMessage = 76 => "RECEIVE_QUEUING_MESSAGE",
        /// GET_QUEUING_PORT_ID.
        GetQueuingPortId = 77 => "GET_QUEUING_PORT_ID",
        /// GET_QUEUING_PORT_STATUS.
        GetQueuingPortStatus = 78 => "GET_QUEUING_PORT_STATUS",
        /// CLEAR_QUEUING_PORT.
        ClearQueuingPort = 79 => "CLEAR_QUEUING_PORT",
        /// GET_MEMORY_BLOCK_STATUS.
        GetMemoryBlockStatus = 80 => "GET_MEMORY_BLOCK_STATUS",
    }
}

/// A decoded trace event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    /// `CLOCK_MONOTONIC` ns.
    pub time_ns: u64,
    /// What happened.
    pub kind: EventKind,
    /// The logical CPU, or [`NO_CORE`].
    pub core: u8,
    /// The partition index, or [`NO_PARTITION`].
    pub partition: u16,
    /// The APEX process, or [`NO_PROCESS`].
    pub process: i32,
    /// Argument `a`.
    pub a: u64,
    /// Arguments `b` … `e`, or the name (see [`EventKind::has_name`]).
    pub payload: [u8; NAME_LEN],
}

impl Event {
    /// An event with arguments `a` … `e` (`rest` = `b`, `c`, `d`, `e`).
    pub fn new(time_ns: u64, kind: EventKind, a: u64, rest: [u64; 4]) -> Self {
        let mut payload = [0u8; NAME_LEN];
        for (chunk, v) in payload.chunks_exact_mut(8).zip(rest) {
            chunk.copy_from_slice(&v.to_le_bytes());
        }
        Event {
            time_ns,
            kind,
            core: NO_CORE,
            partition: NO_PARTITION,
            process: NO_PROCESS,
            a,
            payload,
        }
    }

    /// An event carrying a name (at most [`NAME_LEN`] bytes; longer names are refused).
    pub fn named(time_ns: u64, kind: EventKind, a: u64, name: &[u8]) -> Result<Self, EncodeError> {
        if name.len() > NAME_LEN {
            return Err(EncodeError::Length {
                field: "trace event name",
                len: name.len(),
                max: NAME_LEN,
            });
        }
        let mut e = Event::new(time_ns, kind, a, [0; 4]);
        e.payload[..name.len()].copy_from_slice(name);
        Ok(e)
    }

    /// With the core set.
    pub fn on_core(mut self, core: u8) -> Self {
        self.core = core;
        self
    }

    /// With the partition set.
    pub fn of_partition(mut self, partition: u16) -> Self {
        self.partition = partition;
        self
    }

    /// With the process set.
    pub fn of_process(mut self, process: i32) -> Self {
        self.process = process;
        self
    }

    /// Arguments `b`, `c`, `d`, `e` (meaningless for kinds with a name).
    pub fn args(&self) -> [u64; 4] {
        let mut out = [0u64; 4];
        for (o, chunk) in out.iter_mut().zip(self.payload.chunks_exact(8)) {
            let mut b = [0u8; 8];
            b.copy_from_slice(chunk);
            *o = u64::from_le_bytes(b);
        }
        out
    }

    /// Argument `b`.
    pub fn b(&self) -> u64 {
        self.args()[0]
    }

    /// Argument `c`.
    pub fn c(&self) -> u64 {
        self.args()[1]
    }

    /// Argument `d`.
    pub fn d(&self) -> u64 {
        self.args()[2]
    }

    /// The name payload without its NUL padding.
    pub fn name(&self) -> &[u8] {
        let end = self
            .payload
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(NAME_LEN);
        &self.payload[..end]
    }

    /// Encodes into `out` (at least [`EVENT_LEN`] bytes).
    pub fn encode(&self, out: &mut [u8]) -> Result<usize, EncodeError> {
        let mut w = Writer::new(out, EVENT_LEN)?;
        w.u64(self.time_ns);
        w.u16(self.kind.raw() as u16);
        w.put(&[self.core, 0]);
        w.u16(self.partition);
        w.u16(0);
        w.i32(self.process);
        w.u32(0);
        w.u64(self.a);
        w.put(&self.payload);
        Ok(w.len())
    }

    /// Encodes into a fixed array.
    pub fn to_bytes(&self) -> [u8; EVENT_LEN] {
        let mut out = [0u8; EVENT_LEN];
        // The array has exactly EVENT_LEN bytes, the only way encoding can fail.
        let _ = self.encode(&mut out);
        out
    }

    /// Decodes one event, refusing unknown kinds and non-zero reserved fields.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let time_ns = r.u64()?;
        let raw_kind = r.u16()?;
        let kind = EventKind::from_raw(u32::from(raw_kind))
            .ok_or(DecodeError::UnknownKind(u32::from(raw_kind)))?;
        let cp = r.take(2)?;
        let (core, reserved8) = (cp[0], cp[1]);
        if reserved8 != 0 {
            return Err(DecodeError::Reserved("trace event byte 11"));
        }
        let partition = r.u16()?;
        if r.u16()? != 0 {
            return Err(DecodeError::Reserved("trace event bytes 14..16"));
        }
        let process = r.i32()?;
        if r.u32()? != 0 {
            return Err(DecodeError::Reserved("trace event bytes 20..24"));
        }
        let a = r.u64()?;
        let mut payload = [0u8; NAME_LEN];
        payload.copy_from_slice(r.take(NAME_LEN)?);
        Ok(Event {
            time_ns,
            kind,
            core,
            partition,
            process,
            a,
            payload,
        })
    }
}

/// `b"PTRING01"` as a little-endian u64.
pub const RING_MAGIC: u64 = u64::from_le_bytes(*b"PTRING01");
/// Words of event data in a slot.
pub const SLOT_WORDS: usize = EVENT_LEN / 8;
/// Largest ring capacity (events).
pub const MAX_CAPACITY: u32 = 1 << 20;

/// The head of a ring in shared memory; the [`Slot`]s follow it.
#[repr(C)]
pub struct RingHeader {
    /// [`RING_MAGIC`].
    pub magic: AtomicU64,
    /// [`VERSION`] (low 16 bits).
    pub version: AtomicU32,
    /// Number of slots, a power of two, at most [`MAX_CAPACITY`].
    pub capacity: AtomicU32,
    /// Producers' claim counter: the next position to write.
    pub head: AtomicU64,
    /// Consumer's position: the next position to read.
    pub tail: AtomicU64,
    /// Events dropped because the ring was full (producer side).
    pub lost: AtomicU64,
    /// Reserved, 0 (pads the header to 64 bytes).
    pub reserved: [AtomicU64; 3],
}

/// One slot: a sequence number and an event's words.
#[repr(C)]
pub struct Slot {
    /// Position + 1 once written at `position`; position + capacity once consumed.
    pub seq: AtomicU64,
    /// The encoded event, as little-endian words.
    pub words: [AtomicU64; SLOT_WORDS],
}

/// Bytes of shared memory a ring of `capacity` events needs.
pub const fn ring_bytes(capacity: u32) -> usize {
    core::mem::size_of::<RingHeader>() + capacity as usize * core::mem::size_of::<Slot>()
}

/// Why a ring's memory cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum RingError {
    /// The capacity is zero, not a power of two, or above [`MAX_CAPACITY`].
    #[error("ring capacity {0} is not a power of two between 1 and {MAX_CAPACITY}")]
    Capacity(u32),
    /// The slots given do not match the header's capacity.
    #[error("ring has {slots} slots, its header says {capacity}")]
    Slots {
        /// Slots given.
        slots: usize,
        /// Capacity in the header.
        capacity: u32,
    },
    /// The header's magic or version is not this build's.
    #[error("ring header magic or version does not match")]
    Header,
}

/// A view of a ring: its header and its slots (mapped by `partita-sys`, or owned in tests).
#[derive(Clone, Copy)]
pub struct Ring<'a> {
    header: &'a RingHeader,
    slots: &'a [Slot],
    mask: u64,
}

impl<'a> Ring<'a> {
    /// Initialises a fresh ring (the creator, before anyone else sees it).
    pub fn init(header: &'a RingHeader, slots: &'a [Slot]) -> Result<Self, RingError> {
        let capacity = u32::try_from(slots.len()).map_err(|_| RingError::Slots {
            slots: slots.len(),
            capacity: 0,
        })?;
        if capacity == 0 || !capacity.is_power_of_two() || capacity > MAX_CAPACITY {
            return Err(RingError::Capacity(capacity));
        }
        for (i, s) in slots.iter().enumerate() {
            s.seq.store(i as u64, Ordering::Relaxed);
            for w in &s.words {
                w.store(0, Ordering::Relaxed);
            }
        }
        header.head.store(0, Ordering::Relaxed);
        header.tail.store(0, Ordering::Relaxed);
        header.lost.store(0, Ordering::Relaxed);
        for r in &header.reserved {
            r.store(0, Ordering::Relaxed);
        }
        header.capacity.store(capacity, Ordering::Relaxed);
        header.version.store(u32::from(VERSION), Ordering::Relaxed);
        header.magic.store(RING_MAGIC, Ordering::Release);
        Ok(Ring {
            header,
            slots,
            mask: u64::from(capacity) - 1,
        })
    }

    /// Attaches to a ring initialised by [`Ring::init`], checking its header against the
    /// slots given (the capacity the attaching side mapped).
    pub fn attach(header: &'a RingHeader, slots: &'a [Slot]) -> Result<Self, RingError> {
        if header.magic.load(Ordering::Acquire) != RING_MAGIC
            || header.version.load(Ordering::Relaxed) != u32::from(VERSION)
        {
            return Err(RingError::Header);
        }
        let capacity = header.capacity.load(Ordering::Relaxed);
        if slots.len() != capacity as usize {
            return Err(RingError::Slots {
                slots: slots.len(),
                capacity,
            });
        }
        if capacity == 0 || !capacity.is_power_of_two() || capacity > MAX_CAPACITY {
            return Err(RingError::Capacity(capacity));
        }
        Ok(Ring {
            header,
            slots,
            mask: u64::from(capacity) - 1,
        })
    }

    /// A view over a ring whose header was checked once (by [`Ring::init`] or
    /// [`Ring::attach`] when it was mapped): it takes its geometry from `slots` alone, so a
    /// producer that scribbles over the header later cannot change what the consumer indexes.
    pub fn over(header: &'a RingHeader, slots: &'a [Slot]) -> Result<Self, RingError> {
        let capacity = u32::try_from(slots.len()).unwrap_or(0);
        if capacity == 0 || !capacity.is_power_of_two() || capacity > MAX_CAPACITY {
            return Err(RingError::Capacity(capacity));
        }
        Ok(Ring {
            header,
            slots,
            mask: u64::from(capacity) - 1,
        })
    }

    /// Records `event`; false (and the lost counter incremented) when the ring is full.
    /// Never blocks; safe to call from several threads of the producing side.
    pub fn push(&self, event: &Event) -> bool {
        let bytes = event.to_bytes();
        let mut pos = self.header.head.load(Ordering::Relaxed);
        // Bounded: each retry follows another producer's successful claim or a concurrent
        // consumer step; a corrupted ring (only the owner can corrupt its own) ends in "full".
        for _ in 0..64 {
            let slot = &self.slots[(pos & self.mask) as usize];
            let seq = slot.seq.load(Ordering::Acquire);
            let diff = seq.wrapping_sub(pos) as i64;
            if diff == 0 {
                match self.header.head.compare_exchange(
                    pos,
                    pos.wrapping_add(1),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => {
                        for (w, chunk) in slot.words.iter().zip(bytes.chunks_exact(8)) {
                            let mut b = [0u8; 8];
                            b.copy_from_slice(chunk);
                            w.store(u64::from_le_bytes(b), Ordering::Relaxed);
                        }
                        slot.seq.store(pos.wrapping_add(1), Ordering::Release);
                        return true;
                    }
                    Err(now) => pos = now,
                }
            } else if diff < 0 {
                break;
            } else {
                pos = self.header.head.load(Ordering::Relaxed);
            }
        }
        self.header.lost.fetch_add(1, Ordering::Relaxed);
        false
    }

    /// Takes the oldest published event (the single consumer): `None` when there is none,
    /// `Some(Err)` when the slot held bytes that are not an event (the slot is consumed).
    pub fn pop(&self) -> Option<Result<Event, DecodeError>> {
        let pos = self.header.tail.load(Ordering::Relaxed);
        let slot = &self.slots[(pos & self.mask) as usize];
        if slot.seq.load(Ordering::Acquire) != pos.wrapping_add(1) {
            return None;
        }
        let mut bytes = [0u8; EVENT_LEN];
        for (chunk, w) in bytes.chunks_exact_mut(8).zip(&slot.words) {
            chunk.copy_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
        }
        slot.seq
            .store(pos.wrapping_add(self.mask + 1), Ordering::Release);
        self.header
            .tail
            .store(pos.wrapping_add(1), Ordering::Relaxed);
        Some(Event::decode(&bytes))
    }

    /// Events dropped so far because the ring was full.
    pub fn lost(&self) -> u64 {
        self.header.lost.load(Ordering::Relaxed)
    }

    /// Capacity in events.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    fn header() -> RingHeader {
        RingHeader {
            magic: AtomicU64::new(0),
            version: AtomicU32::new(0),
            capacity: AtomicU32::new(0),
            head: AtomicU64::new(0),
            tail: AtomicU64::new(0),
            lost: AtomicU64::new(0),
            reserved: [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)],
        }
    }

    fn slots(n: usize) -> Vec<Slot> {
        (0..n)
            .map(|_| Slot {
                seq: AtomicU64::new(0),
                words: Default::default(),
            })
            .collect()
    }

    fn ev(i: u64) -> Event {
        Event::new(i, EventKind::Application, i, [i + 1, 0, 0, 0])
            .of_partition(1)
            .of_process(2)
    }

    #[test]
    fn event_round_trips() {
        let e = Event::new(5, EventKind::WindowStart, 7, [1, 2, 3, 4])
            .on_core(1)
            .of_partition(3)
            .of_process(-1);
        let d = Event::decode(&e.to_bytes()).unwrap();
        assert_eq!(d, e);
        assert_eq!(d.args(), [1, 2, 3, 4]);
        let n = Event::named(1, EventKind::ProcessCreated, 9, b"GnC").unwrap();
        assert_eq!(Event::decode(&n.to_bytes()).unwrap().name(), b"GnC");
        assert!(Event::named(1, EventKind::PortCreated, 0, &[b'x'; 33]).is_err());
    }

    #[test]
    fn decode_refuses_bad_records() {
        let mut b = ev(1).to_bytes();
        b[8] = 200;
        assert_eq!(Event::decode(&b), Err(DecodeError::UnknownKind(200)));
        let mut b = ev(1).to_bytes();
        b[11] = 1;
        assert!(matches!(Event::decode(&b), Err(DecodeError::Reserved(_))));
        assert!(matches!(
            Event::decode(&ev(1).to_bytes()[..40]),
            Err(DecodeError::Truncated { .. })
        ));
    }

    #[test]
    fn sources_split_at_32() {
        assert_eq!(EventKind::WindowStart.source(), Source::Manager);
        assert_eq!(EventKind::Refused.source(), Source::Manager);
        assert_eq!(EventKind::ProcessCreated.source(), Source::Partition);
        assert_eq!(EventKind::Application.source(), Source::Partition);
    }

    #[test]
    fn ring_wraps_around_and_counts_losses() {
        let h = header();
        let s = slots(4);
        let r = Ring::init(&h, &s).unwrap();
        let mut next = 0;
        // Many laps, popping in between: order kept, nothing lost.
        for lap in 0..10u64 {
            for i in 0..3 {
                assert!(r.push(&ev(lap * 3 + i)));
            }
            for _ in 0..3 {
                let e = r.pop().unwrap().unwrap();
                assert_eq!(e.time_ns, next);
                next += 1;
            }
            assert!(r.pop().is_none());
        }
        assert_eq!(r.lost(), 0);
        // Full: the fifth push is dropped and counted, the first four survive.
        for i in 0..6 {
            assert_eq!(r.push(&ev(100 + i)), i < 4);
        }
        assert_eq!(r.lost(), 2);
        let got: Vec<u64> = core::iter::from_fn(|| r.pop())
            .map(|e| e.unwrap().time_ns)
            .collect();
        assert_eq!(got, [100, 101, 102, 103]);
    }

    #[test]
    fn attach_checks_the_header() {
        let h = header();
        let s = slots(8);
        assert_eq!(Ring::attach(&h, &s).err(), Some(RingError::Header));
        Ring::init(&h, &s).unwrap();
        assert!(Ring::attach(&h, &s).is_ok());
        assert!(matches!(
            Ring::attach(&h, &s[..4]),
            Err(RingError::Slots { .. })
        ));
        assert_eq!(
            Ring::init(&h, &slots(3)).err(),
            Some(RingError::Capacity(3))
        );
    }

    #[test]
    fn a_scribbled_ring_never_traps_the_consumer() {
        let h = header();
        let s = slots(4);
        let r = Ring::init(&h, &s).unwrap();
        r.push(&ev(1));
        // The producer overwrites its slot with garbage and lies about sequence numbers.
        for w in &s[0].words {
            w.store(u64::MAX, Ordering::Relaxed);
        }
        assert!(matches!(r.pop(), Some(Err(_))));
        s[1].seq.store(2, Ordering::Relaxed);
        assert!(r.pop().is_some());
        assert!(r.pop().is_none());
        // A corrupted head makes pushes fail (counted), never loop forever.
        h.head.store(u64::MAX / 2, Ordering::Relaxed);
        assert!(!r.push(&ev(2)));
        assert!(r.lost() >= 1);
    }

    #[test]
    fn concurrent_producers_lose_nothing_that_fits() {
        let h = header();
        let s = slots(1024);
        let r = Ring::init(&h, &s).unwrap();
        std::thread::scope(|sc| {
            for t in 0..4u64 {
                sc.spawn(move || {
                    for i in 0..200 {
                        assert!(r.push(&ev(t * 1000 + i)));
                    }
                });
            }
        });
        let mut got: Vec<u64> = core::iter::from_fn(|| r.pop())
            .map(|e| e.unwrap().time_ns)
            .collect();
        got.sort_unstable();
        let mut want: Vec<u64> = (0..4u64)
            .flat_map(|t| (0..200).map(move |i| t * 1000 + i))
            .collect();
        want.sort_unstable();
        assert_eq!(got, want);
        assert_eq!(r.lost(), 0);
    }
}
