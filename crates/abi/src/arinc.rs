// SPDX-License-Identifier: MIT OR Apache-2.0
//! The ARINC 653 constants of `include/ARINC653.h`, defined once.
//!
//! Every C enumeration is a `repr(u32)` Rust enum made by [`abi_enum!`](crate::abi_enum),
//! which also makes its table of (C name, value) ([`CEnum::C_VALUES`]) and its validating
//! conversion from the raw value (`TryFrom<u32>`). Every `#define` is a typed constant made
//! by `abi_defines!`, which lists it in [`DEFINES`]. [`C_ENUMS`] and [`DEFINES`] together are
//! everything the header defines; `crates/apex/tests/layout.rs` checks the header against them.

/// What every enum of this module offers, for code that handles them generically.
pub trait CEnum: Copy + Sized + 'static {
    /// The C type name (`RETURN_CODE_TYPE`); a prefix like `HM_STATE` for `#define` groups.
    const C_TYPE: &'static str;
    /// Every value with its C name, in declaration order.
    const C_VALUES: &'static [(&'static str, Self)];
    /// The raw (C) value.
    fn raw(self) -> u32;
    /// The C name.
    fn c_name(self) -> &'static str;
    /// The value named `name` in C, if any.
    fn from_c_name(name: &str) -> Option<Self> {
        Self::C_VALUES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, v)| v)
    }
}

/// One C enumeration (or `#define` group) as a table: its C type name and its (name, value)s.
#[derive(Debug, Clone, Copy)]
pub struct CEnumTable {
    /// The C type name.
    pub c_type: &'static str,
    /// `true` when the header spells the values as `#define`s rather than an enum.
    pub defines: bool,
    /// Every value: (C name, raw value).
    pub values: &'static [(&'static str, u32)],
}

/// Defines a `repr(u32)` enum mirroring a C enumeration, with its C names and values.
#[macro_export]
macro_rules! abi_enum {
    (@prefix) => { "" };
    (@prefix $p:literal) => { $p };
    (
        $(#[$m:meta])*
        $c_type:literal $name:ident $(short $prefix:literal)? {
            $($(#[$vm:meta])* $v:ident = $val:literal => $c:literal,)*
        }
    ) => {
        $(#[$m])*
        #[repr(u32)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($(#[$vm])* $v = $val,)*
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$v),*];
            /// Every value as (C name, raw value), for tables and checks.
            pub const RAW_VALUES: &'static [(&'static str, u32)] = &[$(($c, $val)),*];

            /// The raw (C) value.
            pub const fn raw(self) -> u32 {
                self as u32
            }

            /// The C name.
            pub const fn c_name(self) -> &'static str {
                match self { $($name::$v => $c,)* }
            }

            /// The short name: the C name without its common prefix (`HM_LEVEL_MODULE` is
            /// `MODULE`), as configuration files and logbooks spell it.
            pub fn name(self) -> &'static str {
                let prefix: &str = $crate::abi_enum!(@prefix $($prefix)?);
                let c = self.c_name();
                c.strip_prefix(prefix).unwrap_or(c)
            }

            /// Every value with its short name.
            pub fn names() -> impl Iterator<Item = (&'static str, $name)> {
                $name::ALL.iter().map(|&v| (v.name(), v))
            }

            /// The value whose short name is `name`.
            pub fn from_name(name: &str) -> Option<Self> {
                $name::ALL.iter().copied().find(|v| v.name() == name)
            }

            /// The value for `raw`, if it is one.
            pub const fn from_raw(raw: u32) -> Option<Self> {
                match raw {
                    $($val => Some($name::$v),)*
                    _ => None,
                }
            }
        }

        impl $crate::arinc::CEnum for $name {
            const C_TYPE: &'static str = $c_type;
            const C_VALUES: &'static [(&'static str, Self)] = &[$(($c, $name::$v)),*];
            fn raw(self) -> u32 {
                self as u32
            }
            fn c_name(self) -> &'static str {
                $name::c_name(self)
            }
        }

        impl TryFrom<u32> for $name {
            type Error = $crate::OutOfRange;
            fn try_from(raw: u32) -> Result<Self, $crate::OutOfRange> {
                $name::from_raw(raw).ok_or($crate::OutOfRange {
                    type_name: $c_type,
                    value: raw as i64,
                })
            }
        }

        impl From<$name> for u32 {
            fn from(v: $name) -> u32 {
                v as u32
            }
        }

        /// Shows the short name.
        impl core::fmt::Display for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.name())
            }
        }

        #[cfg(feature = "serde")]
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }

        #[cfg(feature = "serde")]
        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl serde::de::Visitor<'_> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                        f.write_str(concat!("a ", $c_type, " name"))
                    }
                    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<$name, E> {
                        $name::from_name(s).ok_or_else(|| E::custom(format_args!(
                            "unknown {} {s:?}", $c_type
                        )))
                    }
                }
                d.deserialize_str(V)
            }
        }
    };
}

abi_enum! {
    /// `RETURN_CODE_TYPE`: the outcome of every service. Rust services return `Err(code)`
    /// with any value but [`ReturnCode::NoError`], which only exists for the C binding.
    "RETURN_CODE_TYPE" ReturnCode {
        /// Request valid and operation performed.
        NoError = 0 => "NO_ERROR",
        /// Status of the system unaffected by the request.
        NoAction = 1 => "NO_ACTION",
        /// Resource required by the request unavailable.
        NotAvailable = 2 => "NOT_AVAILABLE",
        /// Invalid parameter specified in the request.
        InvalidParam = 3 => "INVALID_PARAM",
        /// Parameter incompatible with the configuration.
        InvalidConfig = 4 => "INVALID_CONFIG",
        /// Request incompatible with the current mode.
        InvalidMode = 5 => "INVALID_MODE",
        /// Time-out tied up with the request has expired.
        TimedOut = 6 => "TIMED_OUT",
    }
}

abi_enum! {
    /// `PORT_DIRECTION_TYPE`.
    "PORT_DIRECTION_TYPE" PortDirection {
        /// The partition writes the port.
        Source = 0 => "SOURCE",
        /// The partition reads the port.
        Destination = 1 => "DESTINATION",
    }
}

abi_enum! {
    /// `QUEUING_DISCIPLINE_TYPE`: order of waiting processes.
    "QUEUING_DISCIPLINE_TYPE" QueuingDiscipline {
        /// First in, first out.
        Fifo = 0 => "FIFO",
        /// Highest current priority first, FIFO among equals.
        Priority = 1 => "PRIORITY",
    }
}

abi_enum! {
    /// `OPERATING_MODE_TYPE`: the partition's operating mode.
    "OPERATING_MODE_TYPE" OperatingMode {
        /// Partition not executing any process.
        Idle = 0 => "IDLE",
        /// Initialisation after a cold start.
        ColdStart = 1 => "COLD_START",
        /// Initialisation after a warm start.
        WarmStart = 2 => "WARM_START",
        /// Process scheduling active.
        Normal = 3 => "NORMAL",
    }
}

abi_enum! {
    /// `START_CONDITION_TYPE`: reason of the last partition (re)start.
    #[derive(Default)]
    "START_CONDITION_TYPE" StartCondition {
        /// Normal power-up.
        #[default]
        NormalStart = 0 => "NORMAL_START",
        /// Restart requested by the partition itself (SET_PARTITION_MODE).
        PartitionRestart = 1 => "PARTITION_RESTART",
        /// Restart by the health monitor at module level.
        HmModuleRestart = 2 => "HM_MODULE_RESTART",
        /// Restart by the health monitor at partition level.
        HmPartitionRestart = 3 => "HM_PARTITION_RESTART",
    }
}

abi_enum! {
    /// `PROCESS_STATE_TYPE`.
    "PROCESS_STATE_TYPE" ProcessState {
        /// Not started (or stopped).
        Dormant = 0 => "DORMANT",
        /// Eligible for scheduling.
        Ready = 1 => "READY",
        /// Executing on its core.
        Running = 2 => "RUNNING",
        /// Blocked.
        Waiting = 3 => "WAITING",
    }
}

abi_enum! {
    /// `DEADLINE_TYPE`.
    "DEADLINE_TYPE" DeadlineType {
        /// Soft deadline: a miss is reported, the process continues.
        Soft = 0 => "SOFT",
        /// Hard deadline: a miss is a health-monitoring error.
        Hard = 1 => "HARD",
    }
}

abi_enum! {
    /// `VALIDITY_TYPE`: a sampling message's age against the refresh period.
    "VALIDITY_TYPE" Validity {
        /// Older than the refresh period.
        Invalid = 0 => "INVALID",
        /// Within the refresh period.
        Valid = 1 => "VALID",
    }
}

abi_enum! {
    /// `UPDATED_TYPE` (Part 2): whether the current sampling message was read before.
    "UPDATED_TYPE" Updated {
        /// Nothing was ever written.
        EmptyPort = 0 => "EMPTY_PORT",
        /// The current message was read before.
        ConsumedMessage = 1 => "CONSUMED_MESSAGE",
        /// The current message was not read yet.
        NewMessage = 2 => "NEW_MESSAGE",
    }
}

abi_enum! {
    /// `AGE_TYPE` (Part 2): a sampling message's age against the refresh period.
    "AGE_TYPE" Age {
        /// Older than the refresh period.
        Stale = 0 => "STALE",
        /// Within the refresh period.
        Fresh = 1 => "FRESH",
    }
}

abi_enum! {
    /// `EMPTY_INDICATOR_TYPE`: whether a blackboard displays a message.
    "EMPTY_INDICATOR_TYPE" EmptyIndicator {
        /// No message displayed.
        Empty = 0 => "EMPTY",
        /// A message is displayed.
        Occupied = 1 => "OCCUPIED",
    }
}

abi_enum! {
    /// `EVENT_STATE_TYPE`.
    "EVENT_STATE_TYPE" EventState {
        /// Waiters block.
        Down = 0 => "DOWN",
        /// Waiters pass.
        Up = 1 => "UP",
    }
}

abi_enum! {
    /// `MUTEX_STATE_TYPE`.
    "MUTEX_STATE_TYPE" MutexState {
        /// Not owned.
        Available = 0 => "AVAILABLE",
        /// Owned by a process.
        Owned = 1 => "OWNED",
    }
}

abi_enum! {
    /// `ERROR_CODE_TYPE`: the kinds of error health monitoring handles.
    "ERROR_CODE_TYPE" ErrorCode {
        /// A process missed its deadline.
        DeadlineMissed = 0 => "DEADLINE_MISSED",
        /// Error raised by the application (RAISE_APPLICATION_ERROR).
        ApplicationError = 1 => "APPLICATION_ERROR",
        /// Numeric error (division by zero, floating-point exception, ...).
        NumericError = 2 => "NUMERIC_ERROR",
        /// Illegal OS request.
        IllegalRequest = 3 => "ILLEGAL_REQUEST",
        /// Stack overflow.
        StackOverflow = 4 => "STACK_OVERFLOW",
        /// Memory protection violation.
        MemoryViolation = 5 => "MEMORY_VIOLATION",
        /// Hardware fault.
        HardwareFault = 6 => "HARDWARE_FAULT",
        /// Power failure.
        PowerFail = 7 => "POWER_FAIL",
    }
}

abi_enum! {
    /// `ERROR_HANDLER_CONCURRENCY_CONTROL_TYPE` (CONFIGURE_ERROR_HANDLER): what the other
    /// cores of the partition do while the error handler runs.
    #[derive(Default)]
    "ERROR_HANDLER_CONCURRENCY_CONTROL_TYPE" ErrorHandlerConcurrency {
        /// The processes of the partition on the other cores are paused (their cores idle).
        ProcessPause = 0 => "PROCESSES_PAUSE",
        /// The processes on the other cores keep being scheduled (default).
        #[default]
        ProcessSchedule = 1 => "PROCESSES_SCHEDULED",
    }
}

abi_enum! {
    /// `HM_LEVEL_TYPE` (Partita system-partition services): the level an error is handled at.
    "HM_LEVEL_TYPE" ErrorLevel short "HM_LEVEL_" {
        /// Module level (module HM table).
        Module = 0 => "HM_LEVEL_MODULE",
        /// Partition level (partition HM table).
        Partition = 1 => "HM_LEVEL_PARTITION",
        /// Process level (the partition's error handler).
        Process = 2 => "HM_LEVEL_PROCESS",
    }
}

abi_enum! {
    /// `HM_ACTION_TYPE` (Partita system-partition services): the recovery action taken.
    "HM_ACTION_TYPE" HmAction short "HM_ACTION_" {
        /// Process level: the partition's error handler.
        ErrorHandler = 0 => "HM_ACTION_ERROR_HANDLER",
        /// Nothing done.
        Ignore = 1 => "HM_ACTION_IGNORE",
        /// The partition was set to IDLE.
        Idle = 2 => "HM_ACTION_IDLE",
        /// The partition was restarted in COLD_START.
        ColdStart = 3 => "HM_ACTION_COLD_START",
        /// The partition was restarted in WARM_START.
        WarmStart = 4 => "HM_ACTION_WARM_START",
        /// The module was shut down.
        Shutdown = 5 => "HM_ACTION_SHUTDOWN",
        /// The module was reset (every partition restarted).
        Reset = 6 => "HM_ACTION_RESET",
    }
}

abi_enum! {
    /// The system states of the HM tables (`SystemState` numbers; `HM_STATE_*` in the header).
    "HM_STATE" SystemState short "HM_STATE_" {
        /// The module is starting (partitions being created, before the first major frame).
        ModuleInit = 1 => "HM_STATE_MODULE_INIT",
        /// The partition is initialising (COLD_START or WARM_START: its main process runs).
        PartitionInit = 2 => "HM_STATE_PARTITION_INIT",
        /// The partition is in NORMAL mode: an APEX process was executing.
        ProcessExecution = 3 => "HM_STATE_PROCESS_EXECUTION",
        /// The partition's error handler was executing.
        ErrorHandler = 4 => "HM_STATE_ERROR_HANDLER",
        /// The partition manager itself (the "OS").
        Os = 5 => "HM_STATE_OS",
    }
}

abi_enum! {
    /// `MEMORY_BLOCK_MODE_TYPE` (ARINC 653 Part 2 memory blocks): the partition's access to a
    /// block.
    "MEMORY_BLOCK_MODE_TYPE" MemoryBlockMode short "MB_" {
        /// Read only.
        Read = 0 => "MB_READ",
        /// Read and write.
        ReadWrite = 1 => "MB_READ_WRITE",
    }
}

macro_rules! enum_tables {
    ($($name:ident $(as $defines:ident)?),* $(,)?) => {
        /// Every C enumeration (and `#define` group) of the header, with its values.
        pub const C_ENUMS: &[CEnumTable] = &[$(CEnumTable {
            c_type: <$name as CEnum>::C_TYPE,
            defines: enum_tables!(@defines $($defines)?),
            values: $name::RAW_VALUES,
        }),*];
    };
    (@defines) => { false };
    (@defines defines) => { true };
}

enum_tables!(
    ReturnCode,
    PortDirection,
    QueuingDiscipline,
    OperatingMode,
    StartCondition,
    ProcessState,
    DeadlineType,
    Validity,
    Updated,
    Age,
    EmptyIndicator,
    EventState,
    MutexState,
    ErrorCode,
    ErrorHandlerConcurrency,
    ErrorLevel,
    HmAction,
    SystemState as defines,
    MemoryBlockMode,
);

/// One `#define` of the header: its name and value.
#[derive(Debug, Clone, Copy)]
pub struct CDefine {
    /// The C name.
    pub name: &'static str,
    /// The value.
    pub value: i64,
}

macro_rules! abi_defines {
    ($($(#[$m:meta])* $name:ident: $t:ty = $val:expr;)*) => {
        $($(#[$m])* pub const $name: $t = $val;)*
        /// Every `#define` of the header with a value, in header order.
        pub const DEFINES: &[CDefine] = &[$(CDefine { name: stringify!($name), value: $name as i64 }),*];
    };
}

abi_defines! {
    /// Partitions in the module.
    SYSTEM_LIMIT_NUMBER_OF_PARTITIONS: usize = 32;
    /// Messages queued in a buffer or queuing port (`MAX_NB_MESSAGE` limit).
    SYSTEM_LIMIT_NUMBER_OF_MESSAGES: usize = 512;
    /// Bytes in one message.
    SYSTEM_LIMIT_MESSAGE_SIZE: usize = 8192;
    /// Processes per partition.
    SYSTEM_LIMIT_NUMBER_OF_PROCESSES: usize = 128;
    /// Sampling ports per partition.
    SYSTEM_LIMIT_NUMBER_OF_SAMPLING_PORTS: usize = 512;
    /// Queuing ports per partition.
    SYSTEM_LIMIT_NUMBER_OF_QUEUING_PORTS: usize = 512;
    /// Buffers per partition.
    SYSTEM_LIMIT_NUMBER_OF_BUFFERS: usize = 256;
    /// Blackboards per partition.
    SYSTEM_LIMIT_NUMBER_OF_BLACKBOARDS: usize = 256;
    /// Semaphores per partition.
    SYSTEM_LIMIT_NUMBER_OF_SEMAPHORES: usize = 256;
    /// Events per partition.
    SYSTEM_LIMIT_NUMBER_OF_EVENTS: usize = 256;
    /// Mutexes per partition.
    SYSTEM_LIMIT_NUMBER_OF_MUTEXES: usize = 256;
    /// Length of every object name (`NAME_TYPE`).
    MAX_NAME_LENGTH: usize = 30;
    /// "No time limit" / "never" / "no period".
    INFINITE_TIME_VALUE: i64 = -1;
    /// No core preference (implementation dependent value).
    CORE_AFFINITY_NO_PREFERENCE: i32 = -1;
    /// Processes per partition.
    MAX_NUMBER_OF_PROCESSES: usize = SYSTEM_LIMIT_NUMBER_OF_PROCESSES;
    /// Lowest process priority.
    MIN_PRIORITY_VALUE: i32 = 1;
    /// Highest process priority.
    MAX_PRIORITY_VALUE: i32 = 239;
    /// Deepest preemption lock nesting (also the deepest recursive mutex lock count).
    MAX_LOCK_LEVEL: i32 = 16;
    /// "No process".
    NULL_PROCESS_ID: i32 = 0;
    /// Sampling ports per partition.
    MAX_NUMBER_OF_SAMPLING_PORTS: usize = SYSTEM_LIMIT_NUMBER_OF_SAMPLING_PORTS;
    /// Queuing ports per partition.
    MAX_NUMBER_OF_QUEUING_PORTS: usize = SYSTEM_LIMIT_NUMBER_OF_QUEUING_PORTS;
    /// Buffers per partition.
    MAX_NUMBER_OF_BUFFERS: usize = SYSTEM_LIMIT_NUMBER_OF_BUFFERS;
    /// Blackboards per partition.
    MAX_NUMBER_OF_BLACKBOARDS: usize = SYSTEM_LIMIT_NUMBER_OF_BLACKBOARDS;
    /// Semaphores per partition.
    MAX_NUMBER_OF_SEMAPHORES: usize = SYSTEM_LIMIT_NUMBER_OF_SEMAPHORES;
    /// Largest semaphore value.
    MAX_SEMAPHORE_VALUE: i32 = 32767;
    /// Events per partition.
    MAX_NUMBER_OF_EVENTS: usize = SYSTEM_LIMIT_NUMBER_OF_EVENTS;
    /// Mutexes per partition.
    MAX_NUMBER_OF_MUTEXES: usize = SYSTEM_LIMIT_NUMBER_OF_MUTEXES;
    /// "No mutex".
    NULL_MUTEX_ID: i32 = 0;
    /// The process owns no mutex (implementation dependent value).
    NO_MUTEX_OWNED: i32 = -2;
    /// The partition's preemption lock mutex (implementation dependent value).
    PREEMPTION_LOCK_MUTEX: i32 = -3;
    /// Bytes in an error message.
    MAX_ERROR_MESSAGE_SIZE: usize = 128;
    /// PROCESS_ID of a logbook entry without a process.
    HM_LOG_NO_PROCESS: i32 = -3;
    /// Message bytes of a logbook entry.
    HM_LOG_MESSAGE_SIZE: usize = 240;
}

/// The process identifier boundary records and logbook entries give the main process.
pub const MAIN_PROCESS_ID: i32 = -1;
/// The process identifier boundary records and logbook entries give the error handler.
pub const ERROR_HANDLER_PROCESS_ID: i32 = -2;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::OutOfRange;

    #[test]
    fn raw_values_round_trip_and_others_are_refused() {
        for t in C_ENUMS {
            for &(name, raw) in t.values {
                assert!(!name.is_empty());
                // Names are unique across the header.
                let dup = C_ENUMS
                    .iter()
                    .flat_map(|t| t.values.iter())
                    .filter(|(n, _)| *n == name)
                    .count();
                assert_eq!(dup, 1, "{name}");
                let _ = raw;
            }
        }
        for &c in ReturnCode::ALL {
            assert_eq!(ReturnCode::try_from(c.raw()), Ok(c));
            assert_eq!(ReturnCode::from_c_name(c.c_name()), Some(c));
        }
        assert_eq!(
            ErrorCode::try_from(8),
            Err(OutOfRange {
                type_name: "ERROR_CODE_TYPE",
                value: 8
            })
        );
        assert_eq!(SystemState::try_from(0).ok(), None);
        assert_eq!(SystemState::Os.name(), "OS");
        assert_eq!(
            SystemState::from_name("MODULE_INIT"),
            Some(SystemState::ModuleInit)
        );
        assert_eq!(ErrorLevel::Module.name(), "MODULE");
        assert_eq!(HmAction::ErrorHandler.name(), "ERROR_HANDLER");
        assert_eq!(ErrorCode::PowerFail.name(), "POWER_FAIL");
        assert_eq!(OperatingMode::from_raw(u32::MAX), None);
    }
}
