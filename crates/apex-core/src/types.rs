// SPDX-License-Identifier: MIT OR Apache-2.0
//! Basic APEX types, constants, configuration and status records.

/// ARINC 653 `SYSTEM_TIME_TYPE`: signed nanoseconds.
pub type SystemTime = i64;
/// ARINC 653 `PRIORITY_TYPE`.
pub type Priority = i32;
/// ARINC 653 `LOCK_LEVEL_TYPE`.
pub type LockLevel = i32;

pub use partita_abi::{
    DeadlineType, ErrorCode, ErrorHandlerConcurrency, OperatingMode, ProcessState,
    QueuingDiscipline, ReturnCode, StartCondition, INFINITE_TIME_VALUE, MAX_ERROR_MESSAGE_SIZE,
    MAX_LOCK_LEVEL, MAX_NAME_LENGTH, MAX_PRIORITY_VALUE, MAX_SEMAPHORE_VALUE, MIN_PRIORITY_VALUE,
    SYSTEM_LIMIT_MESSAGE_SIZE, SYSTEM_LIMIT_NUMBER_OF_MESSAGES,
};

/// Current priority of the error handler process: above every process
/// priority (it is not a valid `PRIORITY_TYPE` for the other services).
pub const ERROR_HANDLER_PRIORITY: Priority = MAX_PRIORITY_VALUE + 1;

/// ARINC 653 `NAME_TYPE`: 30 bytes, compared up to the first NUL.
pub type Name = [u8; MAX_NAME_LENGTH];

/// Builds a [`Name`] from a string (truncated to 30 bytes, NUL padded).
pub fn name(s: &str) -> Name {
    let mut n = [0u8; MAX_NAME_LENGTH];
    let b = s.as_bytes();
    let l = b.len().min(MAX_NAME_LENGTH);
    n[..l].copy_from_slice(&b[..l]);
    n
}

/// The significant part of a name (up to the first NUL).
pub fn name_bytes(n: &Name) -> &[u8] {
    let l = n.iter().position(|&c| c == 0).unwrap_or(MAX_NAME_LENGTH);
    &n[..l]
}

/// Whether two names are equal (compared up to the first NUL).
pub fn name_eq(a: &Name, b: &Name) -> bool {
    name_bytes(a) == name_bytes(b)
}

/// Why a WAITING process waits (finer than the standard state; informative).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WaitReason {
    /// Not waiting.
    None,
    /// Started during initialisation; released when NORMAL is entered.
    PartitionNormal,
    /// Delayed start (aperiodic) or waiting for a periodic release point.
    Release,
    /// TIMED_WAIT.
    Delay,
    /// SUSPEND_SELF (possibly with a time-out).
    SelfSuspended,
    /// Suspended by SUSPEND while not waiting for anything else.
    Suspended,
    /// Waiting on an intra-partition object (possibly also suspended).
    Object,
}

/// Process scheduling policy of the partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SchedulingPolicy {
    /// ARINC 653 fixed priority preemptive scheduling, FIFO among equals.
    #[default]
    FixedPriority,
    /// Earliest absolute deadline first; ties by priority then FIFO.
    Edf,
}

/// Identifier of a process of the partition (never 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProcessId(pub u32);

macro_rules! object_id {
    ($(#[$m:meta])* $t:ident) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $t(pub u32);
    };
}
object_id!(
    /// Semaphore identifier (never 0).
    SemaphoreId
);
object_id!(
    /// Event identifier (never 0).
    EventId
);
object_id!(
    /// Buffer identifier (never 0).
    BufferId
);
object_id!(
    /// Blackboard identifier (never 0).
    BlackboardId
);
object_id!(
    /// Mutex identifier (never 0).
    MutexId
);

/// Who executes (or calls) on a core.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Runner {
    /// The partition's main (initialisation) process.
    Main,
    /// An APEX process.
    Process(ProcessId),
    /// The partition's error handler process (CREATE_ERROR_HANDLER). It has
    /// no `ProcessId`: GET_MY_ID returns `InvalidMode` when it calls it.
    ErrorHandler,
}

/// Result of a service that may block its caller.
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallOutcome<T = ()> {
    /// Completed without blocking, with the service's output.
    Done(T),
    /// The caller is now WAITING; once it is chosen to run again, fetch the
    /// result with [`crate::Kernel::take_wake_result`] (or
    /// [`crate::Kernel::take_wake_message`] for message services).
    Blocked,
}

/// Something the glue layer must act upon (drained with
/// [`crate::Kernel::drain_effects`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Effect {
    /// A process missed its deadline. Always emitted (for logging); when the
    /// partition has an error handler ([`crate::Kernel::has_error_handler`])
    /// the miss is also queued to it as `DEADLINE_MISSED` and handled at
    /// process level, otherwise the glue reports it to the health monitor
    /// at partition level.
    DeadlineMissed {
        /// The late process.
        process: ProcessId,
        /// The deadline time that passed.
        deadline: SystemTime,
    },
    /// SET_PARTITION_MODE(COLD_START/WARM_START): the partition must be re-created.
    RestartRequested(OperatingMode),
    /// SET_PARTITION_MODE(IDLE): the partition stops executing.
    IdleRequested,
    /// The process was started: its thread must begin at its entry point when it first runs.
    ProcessStarted(ProcessId),
    /// The process was stopped (DORMANT): its thread must be abandoned/reset.
    ProcessStopped(ProcessId),
    /// The error handler was activated (DORMANT to READY by an error): its
    /// thread must begin at its entry point when it first runs.
    ErrorHandlerStarted,
    /// The error handler returned to DORMANT (STOP_SELF, partition stop):
    /// its thread must be abandoned/reset.
    ErrorHandlerStopped,
    /// An error that is not handled by the error handler (none exists, the
    /// partition is initialising, the error handler itself or the main
    /// process failed, or the error queue is full): the glue reports it to
    /// the health monitor at partition level.
    PartitionError {
        /// Who failed.
        source: Runner,
        /// The error (its `failed_process` is `None` unless `source` is a process).
        error: ErrorStatus,
    },
}

/// One error (`ERROR_STATUS_TYPE`), as returned by GET_ERROR_STATUS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ErrorStatus {
    /// Kind of error.
    pub error_code: ErrorCode,
    /// Number of significant bytes of `message`.
    pub length: usize,
    /// The failed process (`None` for the main process or the error handler).
    pub failed_process: Option<ProcessId>,
    /// Faulting address when known (0 otherwise).
    pub failed_address: u64,
    /// Message bytes (`length` significant, zero padded).
    pub message: [u8; MAX_ERROR_MESSAGE_SIZE],
}

impl ErrorStatus {
    /// Builds a record; `None` when `message` exceeds `MAX_ERROR_MESSAGE_SIZE`.
    pub fn new(
        error_code: ErrorCode,
        failed_process: Option<ProcessId>,
        failed_address: u64,
        message: &[u8],
    ) -> Option<Self> {
        if message.len() > MAX_ERROR_MESSAGE_SIZE {
            return None;
        }
        let mut m = [0u8; MAX_ERROR_MESSAGE_SIZE];
        m[..message.len()].copy_from_slice(message);
        Some(Self {
            error_code,
            length: message.len(),
            failed_process,
            failed_address,
            message: m,
        })
    }

    /// The significant message bytes.
    pub fn message(&self) -> &[u8] {
        &self.message[..self.length]
    }
}

/// State of the error handler (see [`crate::Kernel::error_handler_status`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ErrorHandlerStatus {
    /// Opaque entry point given to CREATE_ERROR_HANDLER.
    pub entry: u64,
    /// Stack size in bytes.
    pub stack_size: u64,
    /// DORMANT, READY or RUNNING (it never waits).
    pub state: ProcessState,
    /// Core it executes on.
    pub core: u32,
    /// Concurrency control (CONFIGURE_ERROR_HANDLER).
    pub concurrency: ErrorHandlerConcurrency,
    /// Number of errors queued and not yet read with GET_ERROR_STATUS.
    pub pending_errors: usize,
}

/// Attributes of a process (`PROCESS_ATTRIBUTE_TYPE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProcessAttributes {
    /// Process name (unique in the partition).
    pub name: Name,
    /// Opaque entry point (the glue stores its function pointer here).
    pub entry: u64,
    /// Stack size in bytes.
    pub stack_size: u64,
    /// Base priority, `MIN_PRIORITY_VALUE..=MAX_PRIORITY_VALUE`.
    pub base_priority: Priority,
    /// Period, or `INFINITE_TIME_VALUE` for an aperiodic process.
    pub period: SystemTime,
    /// Time capacity, or `INFINITE_TIME_VALUE`.
    pub time_capacity: SystemTime,
    /// Deadline kind.
    pub deadline: DeadlineType,
}

/// Status of a process (`PROCESS_STATUS_TYPE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProcessStatus {
    /// Absolute deadline time (`INFINITE_TIME_VALUE` when none; meaningless when DORMANT).
    pub deadline_time: SystemTime,
    /// Current priority.
    pub current_priority: Priority,
    /// Current state.
    pub process_state: ProcessState,
    /// Creation attributes.
    pub attributes: ProcessAttributes,
}

/// Status of the partition (`PARTITION_STATUS_TYPE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PartitionStatus {
    /// Partition identifier.
    pub identifier: i64,
    /// Partition period.
    pub period: SystemTime,
    /// Partition duration.
    pub duration: SystemTime,
    /// Current preemption lock level.
    pub lock_level: LockLevel,
    /// Current operating mode.
    pub operating_mode: OperatingMode,
    /// Reason of the last start.
    pub start_condition: StartCondition,
    /// Number of cores assigned to the partition.
    pub num_assigned_cores: u32,
}

/// Static configuration of one partition's kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionConfig {
    /// Partition identifier (reported by GET_PARTITION_STATUS).
    pub identifier: i64,
    /// Partition period (ns, > 0).
    pub period: SystemTime,
    /// Partition duration per period (ns).
    pub duration: SystemTime,
    /// Absolute time of the first partition period start.
    pub period_origin: SystemTime,
    /// Number of cores of the partition (>= 1); core ids are `0..cores`.
    pub cores: u32,
    /// Initial mode: `ColdStart` or `WarmStart`.
    pub initial_mode: OperatingMode,
    /// Reason of this start.
    pub start_condition: StartCondition,
    /// Maximum number of processes (error handler included).
    pub max_processes: usize,
    /// Capacity of the error handler's queue of pending errors; an error
    /// raised while it is full is reported at partition level instead.
    pub max_pending_errors: usize,
    /// Total stack bytes available to processes.
    pub stack_total: u64,
    /// Maximum number of semaphores.
    pub max_semaphores: usize,
    /// Maximum number of events.
    pub max_events: usize,
    /// Maximum number of buffers.
    pub max_buffers: usize,
    /// Maximum number of blackboards.
    pub max_blackboards: usize,
    /// Maximum number of mutexes.
    pub max_mutexes: usize,
    /// Bytes of message storage for buffers and blackboards together.
    pub message_memory: usize,
    /// Process scheduling policy.
    pub policy: SchedulingPolicy,
}

impl Default for PartitionConfig {
    fn default() -> Self {
        Self {
            identifier: 1,
            period: 10_000_000,
            duration: 10_000_000,
            period_origin: 0,
            cores: 1,
            initial_mode: OperatingMode::ColdStart,
            start_condition: StartCondition::NormalStart,
            max_processes: 64,
            max_pending_errors: 64,
            stack_total: 64 << 20,
            max_semaphores: 64,
            max_events: 64,
            max_buffers: 64,
            max_blackboards: 64,
            max_mutexes: 64,
            message_memory: 1 << 20,
            policy: SchedulingPolicy::FixedPriority,
        }
    }
}
