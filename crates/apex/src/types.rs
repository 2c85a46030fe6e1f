// SPDX-License-Identifier: MIT OR Apache-2.0
//! Rust mirror of the ARINC 653 C binding in `include/ARINC653.h`.
//!
//! Every C struct has a `#[repr(C)]` counterpart here, named in CamelCase
//! (`PROCESS_ATTRIBUTE_TYPE` becomes [`ProcessAttributeType`]) with its
//! fields in snake_case and in the same order.  Scalar typedefs become type
//! aliases.  C enumerations become a `u32` alias plus one constant per
//! value: the value arrives from C code, so any `u32` must be representable
//! without undefined behaviour and checked where it is used.  Constants keep
//! their C names.
//!
//! `tests/layout.rs` compiles a probe against the header and checks sizes,
//! alignments, field offsets and constant values against this module.

use core::ffi::{c_char, c_void};
use partita_abi as abi;

// ---------------------------------------------------------------------------
// System limits (implementation dependent)
// ---------------------------------------------------------------------------

/// Partitions in the module.
pub const SYSTEM_LIMIT_NUMBER_OF_PARTITIONS: usize = abi::SYSTEM_LIMIT_NUMBER_OF_PARTITIONS;
/// Messages queued in the module.
pub const SYSTEM_LIMIT_NUMBER_OF_MESSAGES: MessageRangeType =
    abi::SYSTEM_LIMIT_NUMBER_OF_MESSAGES as MessageRangeType;
/// Bytes in one message.
pub const SYSTEM_LIMIT_MESSAGE_SIZE: MessageSizeType =
    abi::SYSTEM_LIMIT_MESSAGE_SIZE as MessageSizeType;
/// Processes per partition.
pub const SYSTEM_LIMIT_NUMBER_OF_PROCESSES: usize = abi::SYSTEM_LIMIT_NUMBER_OF_PROCESSES;
/// Sampling ports per partition.
pub const SYSTEM_LIMIT_NUMBER_OF_SAMPLING_PORTS: usize = abi::SYSTEM_LIMIT_NUMBER_OF_SAMPLING_PORTS;
/// Queuing ports per partition.
pub const SYSTEM_LIMIT_NUMBER_OF_QUEUING_PORTS: usize = abi::SYSTEM_LIMIT_NUMBER_OF_QUEUING_PORTS;
/// Buffers per partition.
pub const SYSTEM_LIMIT_NUMBER_OF_BUFFERS: usize = abi::SYSTEM_LIMIT_NUMBER_OF_BUFFERS;
/// Blackboards per partition.
pub const SYSTEM_LIMIT_NUMBER_OF_BLACKBOARDS: usize = abi::SYSTEM_LIMIT_NUMBER_OF_BLACKBOARDS;
/// Semaphores per partition.
pub const SYSTEM_LIMIT_NUMBER_OF_SEMAPHORES: usize = abi::SYSTEM_LIMIT_NUMBER_OF_SEMAPHORES;
/// Events per partition.
pub const SYSTEM_LIMIT_NUMBER_OF_EVENTS: usize = abi::SYSTEM_LIMIT_NUMBER_OF_EVENTS;
/// Mutexes per partition.
pub const SYSTEM_LIMIT_NUMBER_OF_MUTEXES: usize = abi::SYSTEM_LIMIT_NUMBER_OF_MUTEXES;

// ---------------------------------------------------------------------------
// Base types
// ---------------------------------------------------------------------------

/// 8-bit unsigned.
pub type ApexByte = u8;
/// 32-bit signed.
pub type ApexInteger = i32;
/// 32-bit unsigned.
pub type ApexUnsigned = u32;
/// 64-bit signed.
pub type ApexLongInteger = i64;

// ---------------------------------------------------------------------------
// General types
// ---------------------------------------------------------------------------

/// Outcome of every service call (C enum).
pub type ReturnCodeType = u32;
/// Request valid and performed.
pub const NO_ERROR: ReturnCodeType = abi::ReturnCode::NoError as ReturnCodeType;
/// System state unchanged by the request.
pub const NO_ACTION: ReturnCodeType = abi::ReturnCode::NoAction as ReturnCodeType;
/// A resource the request needs is unavailable.
pub const NOT_AVAILABLE: ReturnCodeType = abi::ReturnCode::NotAvailable as ReturnCodeType;
/// A parameter is invalid.
pub const INVALID_PARAM: ReturnCodeType = abi::ReturnCode::InvalidParam as ReturnCodeType;
/// A parameter conflicts with the configuration.
pub const INVALID_CONFIG: ReturnCodeType = abi::ReturnCode::InvalidConfig as ReturnCodeType;
/// Request not allowed in the current mode.
pub const INVALID_MODE: ReturnCodeType = abi::ReturnCode::InvalidMode as ReturnCodeType;
/// The time-out expired before completion.
pub const TIMED_OUT: ReturnCodeType = abi::ReturnCode::TimedOut as ReturnCodeType;

/// Length of every object name.
pub const MAX_NAME_LENGTH: usize = abi::MAX_NAME_LENGTH;
/// Object name; not NUL-terminated when all bytes are used.
pub type NameType = [c_char; MAX_NAME_LENGTH];

/// Untyped address (entry points, faulting addresses).
pub type SystemAddressType = *mut c_void;
/// Address of a message buffer.
pub type MessageAddrType = *mut ApexByte;
/// Message length in bytes.
pub type MessageSizeType = ApexInteger;
/// Number of messages.
pub type MessageRangeType = ApexInteger;
/// Number of waiting processes.
pub type WaitingRangeType = ApexInteger;

/// Direction of a port (C enum).
pub type PortDirectionType = u32;
/// The partition writes the port.
pub const SOURCE: PortDirectionType = abi::PortDirection::Source as PortDirectionType;
/// The partition reads the port.
pub const DESTINATION: PortDirectionType = abi::PortDirection::Destination as PortDirectionType;

/// Order of waiting processes (C enum).
pub type QueuingDisciplineType = u32;
/// First come, first served.
pub const FIFO: QueuingDisciplineType = abi::QueuingDiscipline::Fifo as QueuingDisciplineType;
/// Highest current priority first, FIFO among equals.
pub const PRIORITY: QueuingDisciplineType =
    abi::QueuingDiscipline::Priority as QueuingDisciplineType;

/// Signed 64-bit time in nanoseconds.
pub type SystemTimeType = ApexLongInteger;
/// "No time limit" / "never".
pub const INFINITE_TIME_VALUE: SystemTimeType = abi::INFINITE_TIME_VALUE as SystemTimeType;

/// Processor core identifier.
pub type ProcessorCoreIdType = ApexInteger;
/// No core preference (implementation dependent value).
pub const CORE_AFFINITY_NO_PREFERENCE: ProcessorCoreIdType =
    abi::CORE_AFFINITY_NO_PREFERENCE as ProcessorCoreIdType;

// ---------------------------------------------------------------------------
// Partition management
// ---------------------------------------------------------------------------

/// Partition operating mode (C enum).
pub type OperatingModeType = u32;
/// Not executing.
pub const IDLE: OperatingModeType = abi::OperatingMode::Idle as OperatingModeType;
/// Initialising after a cold start.
pub const COLD_START: OperatingModeType = abi::OperatingMode::ColdStart as OperatingModeType;
/// Initialising after a warm start.
pub const WARM_START: OperatingModeType = abi::OperatingMode::WarmStart as OperatingModeType;
/// Processes are scheduled.
pub const NORMAL: OperatingModeType = abi::OperatingMode::Normal as OperatingModeType;

/// Partition identifier (from the configuration).
pub type PartitionIdType = ApexInteger;
/// Preemption lock level.
pub type LockLevelType = ApexInteger;
/// Number of processor cores.
pub type NumCoresType = ApexUnsigned;

/// Why the partition was (re)started (C enum).
pub type StartConditionType = u32;
/// Power-on or module start.
pub const NORMAL_START: StartConditionType = abi::StartCondition::NormalStart as StartConditionType;
/// The partition asked for its own restart.
pub const PARTITION_RESTART: StartConditionType =
    abi::StartCondition::PartitionRestart as StartConditionType;
/// Restart by module-level health monitoring.
pub const HM_MODULE_RESTART: StartConditionType =
    abi::StartCondition::HmModuleRestart as StartConditionType;
/// Restart by partition-level health monitoring.
pub const HM_PARTITION_RESTART: StartConditionType =
    abi::StartCondition::HmPartitionRestart as StartConditionType;

/// `PARTITION_STATUS_TYPE`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PartitionStatusType {
    /// Partition period.
    pub period: SystemTimeType,
    /// Partition duration within the period.
    pub duration: SystemTimeType,
    /// Partition identifier.
    pub identifier: PartitionIdType,
    /// Current preemption lock level.
    pub lock_level: LockLevelType,
    /// Current operating mode.
    pub operating_mode: OperatingModeType,
    /// Reason of the last start.
    pub start_condition: StartConditionType,
    /// Cores assigned to the partition.
    pub num_assigned_cores: NumCoresType,
}

// ---------------------------------------------------------------------------
// Process management
// ---------------------------------------------------------------------------

/// Processes per partition.
pub const MAX_NUMBER_OF_PROCESSES: usize = abi::MAX_NUMBER_OF_PROCESSES;
/// Lowest process priority.
pub const MIN_PRIORITY_VALUE: PriorityType = abi::MIN_PRIORITY_VALUE as PriorityType;
/// Highest process priority.
pub const MAX_PRIORITY_VALUE: PriorityType = abi::MAX_PRIORITY_VALUE as PriorityType;
/// Deepest preemption lock nesting.
pub const MAX_LOCK_LEVEL: LockLevelType = abi::MAX_LOCK_LEVEL as LockLevelType;

/// Process name.
pub type ProcessNameType = NameType;
/// Process identifier.
pub type ProcessIdType = ApexInteger;
/// "No process".
pub const NULL_PROCESS_ID: ProcessIdType = abi::NULL_PROCESS_ID as ProcessIdType;
/// Index of a process within its partition.
pub type ProcessIndexType = ApexInteger;
/// Stack size in bytes.
pub type StackSizeType = ApexUnsigned;
/// Process priority.
pub type PriorityType = ApexInteger;

/// Process state (C enum).
pub type ProcessStateType = u32;
/// Not eligible for scheduling.
pub const DORMANT: ProcessStateType = abi::ProcessState::Dormant as ProcessStateType;
/// Eligible, not running.
pub const READY: ProcessStateType = abi::ProcessState::Ready as ProcessStateType;
/// Executing.
pub const RUNNING: ProcessStateType = abi::ProcessState::Running as ProcessStateType;
/// Blocked (delay, resource, suspension, NORMAL mode).
pub const WAITING: ProcessStateType = abi::ProcessState::Waiting as ProcessStateType;

/// Deadline kind (C enum).
pub type DeadlineType = u32;
/// Miss is reported, the process continues.
pub const SOFT: DeadlineType = abi::DeadlineType::Soft as DeadlineType;
/// Miss is a health monitoring error.
pub const HARD: DeadlineType = abi::DeadlineType::Hard as DeadlineType;

/// `PROCESS_ATTRIBUTE_TYPE`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessAttributeType {
    /// Period; [`INFINITE_TIME_VALUE`] for an aperiodic process.
    pub period: SystemTimeType,
    /// Time budget; [`INFINITE_TIME_VALUE`] for no deadline.
    pub time_capacity: SystemTimeType,
    /// Entry point (a `void (*)(void)` in C).
    pub entry_point: SystemAddressType,
    /// Stack size in bytes.
    pub stack_size: StackSizeType,
    /// Base priority.
    pub base_priority: PriorityType,
    /// Deadline kind.
    pub deadline: DeadlineType,
    /// Process name.
    pub name: ProcessNameType,
}

impl Default for ProcessAttributeType {
    fn default() -> Self {
        Self {
            period: 0,
            time_capacity: 0,
            entry_point: core::ptr::null_mut(),
            stack_size: 0,
            base_priority: 0,
            deadline: SOFT,
            name: [0; MAX_NAME_LENGTH],
        }
    }
}

/// `PROCESS_STATUS_TYPE`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProcessStatusType {
    /// Absolute deadline time.
    pub deadline_time: SystemTimeType,
    /// Current priority.
    pub current_priority: PriorityType,
    /// Current state.
    pub process_state: ProcessStateType,
    /// Creation attributes.
    pub attributes: ProcessAttributeType,
}

// ---------------------------------------------------------------------------
// Sampling ports
// ---------------------------------------------------------------------------

/// Sampling ports per partition.
pub const MAX_NUMBER_OF_SAMPLING_PORTS: usize = abi::MAX_NUMBER_OF_SAMPLING_PORTS;

/// Sampling port name.
pub type SamplingPortNameType = NameType;
/// Sampling port identifier.
pub type SamplingPortIdType = ApexInteger;

/// Message age against the refresh period (C enum).
pub type ValidityType = u32;
/// Older than the refresh period.
pub const INVALID: ValidityType = abi::Validity::Invalid as ValidityType;
/// Within the refresh period.
pub const VALID: ValidityType = abi::Validity::Valid as ValidityType;

/// `SAMPLING_PORT_STATUS_TYPE`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SamplingPortStatusType {
    /// Refresh period of the port.
    pub refresh_period: SystemTimeType,
    /// Largest message size.
    pub max_message_size: MessageSizeType,
    /// Port direction.
    pub port_direction: PortDirectionType,
    /// Validity of the last message read.
    pub last_msg_validity: ValidityType,
}

/// Whether the current message was read before (C enum, Part 2).
pub type UpdatedType = u32;
/// Nothing was ever written.
pub const EMPTY_PORT: UpdatedType = abi::Updated::EmptyPort as UpdatedType;
/// The current message was read before.
pub const CONSUMED_MESSAGE: UpdatedType = abi::Updated::ConsumedMessage as UpdatedType;
/// The current message was not read yet.
pub const NEW_MESSAGE: UpdatedType = abi::Updated::NewMessage as UpdatedType;

/// Message age against the refresh period (C enum, Part 2).
pub type AgeType = u32;
/// Older than the refresh period.
pub const STALE: AgeType = abi::Age::Stale as AgeType;
/// Within the refresh period.
pub const FRESH: AgeType = abi::Age::Fresh as AgeType;

/// `SAMPLING_PORT_CURRENT_STATUS_TYPE` (Part 2).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SamplingPortCurrentStatusType {
    /// Refresh period of the port.
    pub refresh_period: SystemTimeType,
    /// Time the current message was written.
    pub time_stamp: SystemTimeType,
    /// Largest message size.
    pub max_message_size: MessageSizeType,
    /// Port direction.
    pub port_direction: PortDirectionType,
    /// Age of the current message.
    pub message_age: AgeType,
    /// Whether the current message was read before.
    pub updated: UpdatedType,
}

// ---------------------------------------------------------------------------
// Queuing ports
// ---------------------------------------------------------------------------

/// Queuing ports per partition.
pub const MAX_NUMBER_OF_QUEUING_PORTS: usize = abi::MAX_NUMBER_OF_QUEUING_PORTS;

/// Queuing port name.
pub type QueuingPortNameType = NameType;
/// Queuing port identifier.
pub type QueuingPortIdType = ApexInteger;

/// `QUEUING_PORT_STATUS_TYPE`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QueuingPortStatusType {
    /// Messages currently queued.
    pub nb_message: MessageRangeType,
    /// Queue capacity in messages.
    pub max_nb_message: MessageRangeType,
    /// Largest message size.
    pub max_message_size: MessageSizeType,
    /// Port direction.
    pub port_direction: PortDirectionType,
    /// Processes waiting on the port.
    pub waiting_processes: WaitingRangeType,
}

// ---------------------------------------------------------------------------
// Buffers
// ---------------------------------------------------------------------------

/// Buffers per partition.
pub const MAX_NUMBER_OF_BUFFERS: usize = abi::MAX_NUMBER_OF_BUFFERS;

/// Buffer name.
pub type BufferNameType = NameType;
/// Buffer identifier.
pub type BufferIdType = ApexInteger;

/// `BUFFER_STATUS_TYPE`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BufferStatusType {
    /// Messages currently queued.
    pub nb_message: MessageRangeType,
    /// Buffer capacity in messages.
    pub max_nb_message: MessageRangeType,
    /// Largest message size.
    pub max_message_size: MessageSizeType,
    /// Processes waiting on the buffer.
    pub waiting_processes: WaitingRangeType,
}

// ---------------------------------------------------------------------------
// Blackboards
// ---------------------------------------------------------------------------

/// Blackboards per partition.
pub const MAX_NUMBER_OF_BLACKBOARDS: usize = abi::MAX_NUMBER_OF_BLACKBOARDS;

/// Blackboard name.
pub type BlackboardNameType = NameType;
/// Blackboard identifier.
pub type BlackboardIdType = ApexInteger;

/// Whether a blackboard holds a message (C enum).
pub type EmptyIndicatorType = u32;
/// No message displayed.
pub const EMPTY: EmptyIndicatorType = abi::EmptyIndicator::Empty as EmptyIndicatorType;
/// A message is displayed.
pub const OCCUPIED: EmptyIndicatorType = abi::EmptyIndicator::Occupied as EmptyIndicatorType;

/// `BLACKBOARD_STATUS_TYPE`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlackboardStatusType {
    /// Whether a message is displayed.
    pub empty_indicator: EmptyIndicatorType,
    /// Largest message size.
    pub max_message_size: MessageSizeType,
    /// Processes waiting on the blackboard.
    pub waiting_processes: WaitingRangeType,
}

// ---------------------------------------------------------------------------
// Semaphores
// ---------------------------------------------------------------------------

/// Semaphores per partition.
pub const MAX_NUMBER_OF_SEMAPHORES: usize = abi::MAX_NUMBER_OF_SEMAPHORES;
/// Largest semaphore value.
pub const MAX_SEMAPHORE_VALUE: SemaphoreValueType = abi::MAX_SEMAPHORE_VALUE as SemaphoreValueType;

/// Semaphore name.
pub type SemaphoreNameType = NameType;
/// Semaphore identifier.
pub type SemaphoreIdType = ApexInteger;
/// Semaphore count.
pub type SemaphoreValueType = ApexInteger;

/// `SEMAPHORE_STATUS_TYPE`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SemaphoreStatusType {
    /// Current count.
    pub current_value: SemaphoreValueType,
    /// Largest count.
    pub maximum_value: SemaphoreValueType,
    /// Processes waiting on the semaphore.
    pub waiting_processes: WaitingRangeType,
}

// ---------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------

/// Events per partition.
pub const MAX_NUMBER_OF_EVENTS: usize = abi::MAX_NUMBER_OF_EVENTS;

/// Event name.
pub type EventNameType = NameType;
/// Event identifier.
pub type EventIdType = ApexInteger;

/// Event state (C enum).
pub type EventStateType = u32;
/// Waiters block.
pub const DOWN: EventStateType = abi::EventState::Down as EventStateType;
/// Waiters pass.
pub const UP: EventStateType = abi::EventState::Up as EventStateType;

/// `EVENT_STATUS_TYPE`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EventStatusType {
    /// Current state.
    pub event_state: EventStateType,
    /// Processes waiting on the event.
    pub waiting_processes: WaitingRangeType,
}

// ---------------------------------------------------------------------------
// Mutexes
// ---------------------------------------------------------------------------

/// Mutexes per partition.
pub const MAX_NUMBER_OF_MUTEXES: usize = abi::MAX_NUMBER_OF_MUTEXES;

/// Mutex name.
pub type MutexNameType = NameType;
/// Mutex identifier.
pub type MutexIdType = ApexInteger;
/// "No mutex".
pub const NULL_MUTEX_ID: MutexIdType = abi::NULL_MUTEX_ID as MutexIdType;
/// The process owns no mutex (implementation dependent value).
pub const NO_MUTEX_OWNED: MutexIdType = abi::NO_MUTEX_OWNED as MutexIdType;
/// The partition's preemption lock mutex (implementation dependent value).
pub const PREEMPTION_LOCK_MUTEX: MutexIdType = abi::PREEMPTION_LOCK_MUTEX as MutexIdType;
/// Mutex lock nesting count.
pub type LockCountType = ApexInteger;

/// Mutex state (C enum).
pub type MutexStateType = u32;
/// Not owned.
pub const AVAILABLE: MutexStateType = abi::MutexState::Available as MutexStateType;
/// Owned by a process.
pub const OWNED: MutexStateType = abi::MutexState::Owned as MutexStateType;

/// `MUTEX_STATUS_TYPE`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MutexStatusType {
    /// Owner; [`NULL_PROCESS_ID`] when available.
    pub mutex_owner: ProcessIdType,
    /// Current state.
    pub mutex_state: MutexStateType,
    /// Priority ceiling.
    pub mutex_priority: PriorityType,
    /// Lock nesting count.
    pub lock_count: LockCountType,
    /// Processes waiting on the mutex.
    pub waiting_processes: WaitingRangeType,
}

// ---------------------------------------------------------------------------
// Health monitoring
// ---------------------------------------------------------------------------

/// Bytes in an error message.
pub const MAX_ERROR_MESSAGE_SIZE: usize = abi::MAX_ERROR_MESSAGE_SIZE;

/// Error message length in bytes.
pub type ErrorMessageSizeType = ApexInteger;
/// Error message bytes.
pub type ErrorMessageType = [ApexByte; MAX_ERROR_MESSAGE_SIZE];

/// Process-level error kind (C enum).
pub type ErrorCodeType = u32;
/// A process missed its deadline.
pub const DEADLINE_MISSED: ErrorCodeType = abi::ErrorCode::DeadlineMissed as ErrorCodeType;
/// Raised by the application.
pub const APPLICATION_ERROR: ErrorCodeType = abi::ErrorCode::ApplicationError as ErrorCodeType;
/// Arithmetic fault.
pub const NUMERIC_ERROR: ErrorCodeType = abi::ErrorCode::NumericError as ErrorCodeType;
/// Illegal or invalid service request.
pub const ILLEGAL_REQUEST: ErrorCodeType = abi::ErrorCode::IllegalRequest as ErrorCodeType;
/// Process stack overflow.
pub const STACK_OVERFLOW: ErrorCodeType = abi::ErrorCode::StackOverflow as ErrorCodeType;
/// Memory access violation.
pub const MEMORY_VIOLATION: ErrorCodeType = abi::ErrorCode::MemoryViolation as ErrorCodeType;
/// Hardware fault.
pub const HARDWARE_FAULT: ErrorCodeType = abi::ErrorCode::HardwareFault as ErrorCodeType;
/// Power failure.
pub const POWER_FAIL: ErrorCodeType = abi::ErrorCode::PowerFail as ErrorCodeType;

/// What the other cores do while the error handler runs (C enum, CONFIGURE_ERROR_HANDLER).
pub type ErrorHandlerConcurrencyControlType = u32;
/// The processes of the partition on the other cores are paused.
pub const PROCESSES_PAUSE: ErrorHandlerConcurrencyControlType =
    abi::ErrorHandlerConcurrency::ProcessPause as ErrorHandlerConcurrencyControlType;
/// The processes of the partition on the other cores keep being scheduled (default).
pub const PROCESSES_SCHEDULED: ErrorHandlerConcurrencyControlType =
    abi::ErrorHandlerConcurrency::ProcessSchedule as ErrorHandlerConcurrencyControlType;

/// `ERROR_STATUS_TYPE`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorStatusType {
    /// Error kind.
    pub error_code: ErrorCodeType,
    /// Bytes used in `message`.
    pub length: ErrorMessageSizeType,
    /// Process that caused the error.
    pub failed_process_id: ProcessIdType,
    /// Address where the error occurred, if known.
    pub failed_address: SystemAddressType,
    /// Error message.
    pub message: ErrorMessageType,
}

impl Default for ErrorStatusType {
    fn default() -> Self {
        Self {
            error_code: DEADLINE_MISSED,
            length: 0,
            failed_process_id: NULL_PROCESS_ID,
            failed_address: core::ptr::null_mut(),
            message: [0; MAX_ERROR_MESSAGE_SIZE],
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Partita extension (ARINC 653 Part 2-style): system-partition services (crate::apex::part2::system)
// ---------------------------------------------------------------------------------------------

/// `HM_LEVEL_TYPE`.
pub type HmLevelType = u32;
/// Module level.
pub const HM_LEVEL_MODULE: HmLevelType = abi::ErrorLevel::Module as HmLevelType;
/// Partition level.
pub const HM_LEVEL_PARTITION: HmLevelType = abi::ErrorLevel::Partition as HmLevelType;
/// Process level.
pub const HM_LEVEL_PROCESS: HmLevelType = abi::ErrorLevel::Process as HmLevelType;

/// `HM_ACTION_TYPE`.
pub type HmActionType = u32;
/// Process level: the partition's error handler.
pub const HM_ACTION_ERROR_HANDLER: HmActionType = abi::HmAction::ErrorHandler as HmActionType;
/// IGNORE.
pub const HM_ACTION_IGNORE: HmActionType = abi::HmAction::Ignore as HmActionType;
/// IDLE.
pub const HM_ACTION_IDLE: HmActionType = abi::HmAction::Idle as HmActionType;
/// COLD_START.
pub const HM_ACTION_COLD_START: HmActionType = abi::HmAction::ColdStart as HmActionType;
/// WARM_START.
pub const HM_ACTION_WARM_START: HmActionType = abi::HmAction::WarmStart as HmActionType;
/// Module SHUTDOWN.
pub const HM_ACTION_SHUTDOWN: HmActionType = abi::HmAction::Shutdown as HmActionType;
/// Module RESET.
pub const HM_ACTION_RESET: HmActionType = abi::HmAction::Reset as HmActionType;

/// System state MODULE_INIT.
pub const HM_STATE_MODULE_INIT: ApexUnsigned = abi::SystemState::ModuleInit as ApexUnsigned;
/// System state PARTITION_INIT.
pub const HM_STATE_PARTITION_INIT: ApexUnsigned = abi::SystemState::PartitionInit as ApexUnsigned;
/// System state PROCESS_EXECUTION.
pub const HM_STATE_PROCESS_EXECUTION: ApexUnsigned =
    abi::SystemState::ProcessExecution as ApexUnsigned;
/// System state ERROR_HANDLER.
pub const HM_STATE_ERROR_HANDLER: ApexUnsigned = abi::SystemState::ErrorHandler as ApexUnsigned;
/// System state OS.
pub const HM_STATE_OS: ApexUnsigned = abi::SystemState::Os as ApexUnsigned;

/// PROCESS_ID of a logbook entry without a process.
pub const HM_LOG_NO_PROCESS: ProcessIdType = abi::HM_LOG_NO_PROCESS as ProcessIdType;
/// Message bytes of a logbook entry.
pub const HM_LOG_MESSAGE_SIZE: usize = abi::HM_LOG_MESSAGE_SIZE;

/// `A_PARTITION_STATUS_TYPE`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct APartitionStatusType {
    /// PERIOD.
    pub period: SystemTimeType,
    /// DURATION.
    pub duration: SystemTimeType,
    /// IDENTIFIER.
    pub identifier: PartitionIdType,
    /// LOCK_LEVEL.
    pub lock_level: LockLevelType,
    /// OPERATING_MODE.
    pub operating_mode: OperatingModeType,
    /// START_CONDITION.
    pub start_condition: StartConditionType,
    /// NUM_ASSIGNED_CORES.
    pub num_assigned_cores: NumCoresType,
    /// RESTARTS.
    pub restarts: ApexUnsigned,
    /// HM_EVENTS.
    pub hm_events: ApexLongInteger,
    /// WINDOWS.
    pub windows: ApexLongInteger,
    /// HAS_PROCESS.
    pub has_process: ApexUnsigned,
    /// SYSTEM_PARTITION.
    pub system_partition: ApexUnsigned,
}

/// `HM_LOG_STATUS_TYPE`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HmLogStatusType {
    /// TOTAL.
    pub total: ApexLongInteger,
    /// FIRST_INDEX.
    pub first_index: ApexLongInteger,
    /// KEPT.
    pub kept: ApexLongInteger,
    /// EVICTED.
    pub evicted: ApexLongInteger,
    /// CAPACITY.
    pub capacity: ApexLongInteger,
}

/// `HM_LOG_ENTRY_TYPE`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HmLogEntryType {
    /// INDEX.
    pub index: ApexLongInteger,
    /// TIME.
    pub time: SystemTimeType,
    /// PARTITION_ID.
    pub partition_id: PartitionIdType,
    /// PROCESS_ID.
    pub process_id: ProcessIdType,
    /// SYSTEM_STATE.
    pub system_state: ApexUnsigned,
    /// ERROR_CODE.
    pub error_code: ErrorCodeType,
    /// ERROR_LEVEL.
    pub error_level: ApexUnsigned,
    /// ACTION.
    pub action: ApexUnsigned,
    /// ERROR_IDENTIFIER.
    pub error_identifier: ApexUnsigned,
    /// LENGTH.
    pub length: ApexUnsigned,
    /// MESSAGE.
    pub message: [ApexByte; HM_LOG_MESSAGE_SIZE],
}

// ---------------------------------------------------------------------------
// Multiple module schedules (ARINC 653 Part 2)
// ---------------------------------------------------------------------------

/// `SCHEDULE_ID_TYPE`.
pub type ScheduleIdType = ApexInteger;
/// `SCHEDULE_NAME_TYPE`.
pub type ScheduleNameType = NameType;

/// `SCHEDULE_STATUS_TYPE`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScheduleStatusType {
    /// Time of the last module schedule switch (0: none yet).
    pub time_of_last_schedule_switch: SystemTimeType,
    /// The schedule running now.
    pub current_schedule: ScheduleIdType,
    /// The schedule that runs from the next major frame boundary (the current one when no
    /// change is pending).
    pub next_schedule: ScheduleIdType,
}

// ---------------------------------------------------------------------------
// Memory blocks (ARINC 653 Part 2)
// ---------------------------------------------------------------------------

/// `MEMORY_BLOCK_SIZE_TYPE`.
pub type MemoryBlockSizeType = ApexInteger;
/// `MEMORY_BLOCK_NAME_TYPE`.
pub type MemoryBlockNameType = NameType;
/// `MEMORY_BLOCK_ADDRESS_TYPE`.
pub type MemoryBlockAddressType = *mut ApexByte;

/// `MEMORY_BLOCK_MODE_TYPE` (C enum).
pub type MemoryBlockModeType = u32;
/// Read only.
pub const MB_READ: MemoryBlockModeType = abi::MemoryBlockMode::Read as MemoryBlockModeType;
/// Read and write.
pub const MB_READ_WRITE: MemoryBlockModeType =
    abi::MemoryBlockMode::ReadWrite as MemoryBlockModeType;

/// `MEMORY_BLOCK_STATUS_TYPE`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryBlockStatusType {
    /// Start of the block.
    pub address: MemoryBlockAddressType,
    /// Access mode.
    pub mode: MemoryBlockModeType,
    /// Size in bytes.
    pub size: MemoryBlockSizeType,
}
