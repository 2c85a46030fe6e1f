// SPDX-License-Identifier: MIT OR Apache-2.0
//! The typed, validated module model (also the building blocks of the compiled plan).
//!
//! Every value here has passed validation: references are resolved to partition indices,
//! times are integer nanoseconds and paths are absolute.

use partita_schedule::{FramePlan, Nanos};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// ARINC 653 NAME_TYPE length limit for partition and port names.
pub const MAX_NAME_LEN: usize = 30;

/// Named memory blocks (`Memory_Requirements RegionName`) per partition: the size of the
/// runtime's memory block table (`partita_abi::control::memory_blocks::MAX_BLOCKS`).
pub const MAX_MEMORY_BLOCKS: usize = 16;
/// Largest memory block: `MEMORY_BLOCK_SIZE_TYPE` is an APEX_INTEGER.
pub const MAX_MEMORY_BLOCK_SIZE: u64 = i32::MAX as u64;

/// Most module schedules a module may have (the size of the runtime's schedule table in the
/// partition control block).
pub const MAX_SCHEDULES: usize = 16;

/// Namespace of the partita extensions (`xmlns:partita="urn:partita:1"`).
pub const PARTITA_NS: &str = "urn:partita:1";

/// Declares a string-valued enum with its configuration spellings.
macro_rules! config_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident = $s:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name {
            $($(#[$vm])* #[serde(rename = $s)] $v,)*
        }

        impl $name {
            /// Every value with its spelling in the configuration file.
            pub const VALUES: &'static [(&'static str, $name)] = &[$(($s, $name::$v)),*];

            /// The spelling in the configuration file.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$v => $s,)* }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

config_enum! {
    /// Design assurance level of a partition (`Criticality`).
    Criticality {
        /// Catastrophic.
        LevelA = "LEVEL_A",
        /// Hazardous.
        LevelB = "LEVEL_B",
        /// Major.
        LevelC = "LEVEL_C",
        /// Minor.
        LevelD = "LEVEL_D",
        /// No effect.
        LevelE = "LEVEL_E",
    }
}

config_enum! {
    /// Port transfer mode.
    PortKind {
        /// `Sampling_Port`: the last message is kept and overwritten.
        Sampling = "SAMPLING",
        /// `Queuing_Port`: messages are queued FIFO.
        Queuing = "QUEUING",
    }
}

config_enum! {
    /// Port direction (`Direction`).
    PortDirection {
        /// The partition writes.
        Source = "SOURCE",
        /// The partition reads.
        Destination = "DESTINATION",
    }
}

config_enum! {
    /// Access right of a memory requirement (`Access`).
    MemoryAccess {
        /// Read only.
        ReadOnly = "READ_ONLY",
        /// Read and write.
        ReadWrite = "READ_WRITE",
    }
}

config_enum! {
    /// Intra-partition process scheduling policy (`partita:ProcessScheduling policy`).
    ProcessPolicy {
        /// ARINC 653 fixed-priority preemptive scheduling.
        Priority = "PRIORITY",
        /// Earliest deadline first.
        Edf = "EDF",
    }
}

config_enum! {
    /// Partition suspension mechanism of the partition manager (`partita:Backend name`).
    Backend {
        /// Let the manager choose (freezer when available, else signals).
        Auto = "auto",
        /// SIGSTOP / SIGCONT.
        Signals = "signals",
        /// cgroup v2 freezer.
        Freezer = "freezer",
    }
}

/// Level an error is handled at (`ErrorLevel`: `MODULE`, `PARTITION`, `PROCESS`) and the
/// ARINC 653 `ERROR_CODE_TYPE` (`ErrorCode`), spelt as their short names.
pub use partita_abi::{ErrorCode, ErrorLevel};

config_enum! {
    /// Recovery action of the module HM table.
    ModuleAction {
        /// Do nothing.
        Ignore = "IGNORE",
        /// Stop the module.
        Shutdown = "SHUTDOWN",
        /// Restart the module.
        Reset = "RESET",
    }
}

config_enum! {
    /// Recovery action of a partition HM table.
    PartitionAction {
        /// Do nothing.
        Ignore = "IGNORE",
        /// Put the partition in IDLE mode.
        Idle = "IDLE",
        /// Restart the partition (cold start).
        ColdStart = "COLD_START",
        /// Restart the partition (warm start).
        WarmStart = "WARM_START",
    }
}

config_enum! {
    /// What a partition does when the module switches to a schedule
    /// (`Partition_Schedule ScheduleChangeAction`, ARINC 653 Part 2 multiple module schedules).
    ScheduleChangeAction {
        /// Keep running as it is (the default).
        Ignore = "IGNORE",
        /// Restart the partition in COLD_START at the switch.
        ColdStart = "COLD_START",
        /// Restart the partition in WARM_START at the switch.
        WarmStart = "WARM_START",
    }
}

/// A sampling or queuing port of a partition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Port {
    /// Port name (unique within the partition).
    pub name: String,
    /// Sampling or queuing.
    pub kind: PortKind,
    /// Source or destination.
    pub direction: PortDirection,
    /// `MaxMessageSize` in bytes.
    pub max_message_size: u32,
    /// Sampling ports: `RefreshRateSeconds` (validity period of a received message).
    pub refresh_period: Option<Nanos>,
    /// Queuing ports: `MaxNbMessages`.
    pub max_nb_messages: Option<u32>,
}

/// One `Memory_Requirements` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryRequirement {
    /// `RegionName`, if given: the entry is then a memory block the partition reaches with
    /// GET_MEMORY_BLOCK_STATUS (ARINC 653 Part 2).
    #[serde(default)]
    pub name: Option<String>,
    /// `Type` as written (`CODE`, `DATA`, `STACK`, ...).
    pub kind: String,
    /// `SizeBytes`.
    pub size: u64,
    /// `Access`.
    pub access: MemoryAccess,
    /// `PhysicalAddress`, if given.
    pub physical_address: Option<u64>,
}

/// A process of a partition's process set (`partita:Process`), for schedule synthesis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessSpec {
    /// Process name.
    pub name: String,
    /// Period; `None` for aperiodic processes.
    pub period: Option<Nanos>,
    /// Worst-case execution time.
    pub wcet: Option<Nanos>,
    /// Relative deadline.
    pub deadline: Option<Nanos>,
    /// Base priority.
    pub priority: Option<u32>,
}

/// How a pseudo partition exchanges messages with the outside world.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PseudoTransport {
    /// UDP datagrams to/from `host:port`.
    Udp {
        /// Host name or address (without brackets for IPv6).
        host: String,
        /// UDP port.
        port: u16,
    },
    /// A regular file (absolute path).
    File {
        /// Path.
        path: PathBuf,
    },
    /// A named pipe (absolute path).
    Fifo {
        /// Path.
        path: PathBuf,
    },
}

/// One end of a channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Endpoint {
    /// A port of a partition of this module.
    Partition {
        /// Partition index.
        partition: usize,
        /// Port name.
        port: String,
    },
    /// Something outside the module (`Pseudo_Partition`).
    Pseudo {
        /// `Name`.
        name: String,
        /// `PortName`, if given.
        port: Option<String>,
        /// Where the messages go / come from.
        transport: PseudoTransport,
    },
}

impl Endpoint {
    /// The partition index, for partition endpoints.
    pub fn partition(&self) -> Option<usize> {
        match self {
            Endpoint::Partition { partition, .. } => Some(*partition),
            Endpoint::Pseudo { .. } => None,
        }
    }
}

/// A channel of the connection table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Channel {
    /// `ChannelIdentifier`.
    pub id: u32,
    /// `ChannelName`, if given.
    pub name: Option<String>,
    /// Sampling or queuing (the kind of its partition ports).
    pub kind: PortKind,
    /// Message size of its ports.
    pub max_message_size: u32,
    /// Queuing channels: `MaxNbMessages` of the destination port (else of the source).
    pub max_nb_messages: Option<u32>,
    /// The writer.
    pub source: Endpoint,
    /// The readers (one for queuing channels).
    pub destinations: Vec<Endpoint>,
}

/// An `Error_ID_Level` of the system HM table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorIdLevel {
    /// `ErrorIdentifier`.
    pub error: u32,
    /// `Description`.
    pub description: Option<String>,
    /// `ErrorLevel`.
    pub level: ErrorLevel,
    /// `ErrorCode`, if given.
    pub code: Option<ErrorCode>,
}

/// A `System_State_Entry` of the system HM table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SystemStateEntry {
    /// `SystemState`.
    pub state: u32,
    /// `Description`.
    pub description: Option<String>,
    /// Error identifiers and their levels.
    pub errors: Vec<ErrorIdLevel>,
}

/// An `Error_ID_Action` of an HM table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorAction<A> {
    /// `ErrorIdentifier`.
    pub error: u32,
    /// `Action`.
    pub action: A,
    /// `ErrorCode`, if given.
    pub code: Option<ErrorCode>,
}

/// A `System_State_Entry` of the module or a partition HM table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HmStateEntry<A> {
    /// `SystemState`.
    pub state: u32,
    /// `Description`.
    pub description: Option<String>,
    /// Actions per error identifier.
    pub actions: Vec<ErrorAction<A>>,
}

/// A `Partition_HM_Table`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionHmTable {
    /// Partition index.
    pub partition: usize,
    /// Entries per system state.
    pub entries: Vec<HmStateEntry<PartitionAction>>,
}

/// All health-monitoring tables, as configured.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct HmTables {
    /// `System_HM_Table`.
    pub system: Vec<SystemStateEntry>,
    /// `Module_HM_Table`.
    pub module: Vec<HmStateEntry<ModuleAction>>,
    /// `Partition_HM_Table`s.
    pub partitions: Vec<PartitionHmTable>,
}

config_enum! {
    /// The network a general-purpose partition sees (`partita:GeneralPurpose network`).
    NetworkMode {
        /// Its own network namespace with only a loopback interface (the default).
        None = "none",
        /// The host's network namespace: every interface of the host.
        Host = "host",
        /// Its own network namespace with a loopback interface and one link to the host: a
        /// veth pair with `hostAddress` on the host's end and `address` on its own.
        Link = "link",
    }
}

/// An IPv4 interface address with its prefix length (`10.0.0.2/24`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterfaceAddress {
    /// The address.
    pub address: std::net::Ipv4Addr,
    /// The prefix length, 1..=30 (a link needs two host addresses).
    pub prefix: u8,
}

impl InterfaceAddress {
    /// The network part of the address.
    pub fn network(&self) -> std::net::Ipv4Addr {
        let mask = u32::MAX << (32 - u32::from(self.prefix));
        std::net::Ipv4Addr::from(u32::from(self.address) & mask)
    }
}

impl std::fmt::Display for InterfaceAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.address, self.prefix)
    }
}

/// The link of a general-purpose partition with `network="link"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkLink {
    /// The address of the host's end (`hostAddress`).
    pub host: InterfaceAddress,
    /// The address of the partition's end (`address`).
    pub partition: InterfaceAddress,
}

/// A host directory or file shown to a general-purpose partition (`partita:Bind`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bind {
    /// The host path (absolute).
    pub source: PathBuf,
    /// Where the partition sees it (absolute; exists on the host).
    pub target: PathBuf,
    /// `access="READ_ONLY"`: mounted read-only, whatever the file permissions say.
    pub read_only: bool,
}

/// What makes a partition *general-purpose* (`partita:GeneralPurpose`): it runs ordinary
/// Linux programs without the APEX runtime, under a system-call profile for general
/// software, in SCHED_OTHER.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GeneralPurpose {
    /// Cores whose idle time it gets (`background`): it runs there whenever no window is
    /// open on the core.
    pub background: Vec<u32>,
    /// Its network.
    pub network: NetworkMode,
    /// The link, with `network="link"`.
    pub link: Option<NetworkLink>,
    /// Host paths bound into its mount namespace.
    pub binds: Vec<Bind>,
}

/// The entry function of a partition whose `EntryPoint` does not name one.
pub const DEFAULT_ENTRY_FUNCTION: &str = "main";

/// A partition as configured (validated).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Partition {
    /// `PartitionIdentifier`.
    pub id: u32,
    /// `PartitionName`.
    pub name: String,
    /// `Criticality`.
    pub criticality: Criticality,
    /// `SystemPartition`.
    pub system: bool,
    /// `EntryPoint` attribute as written.
    pub entry_point: Option<String>,
    /// Absolute path of the executable.
    pub executable: PathBuf,
    /// The function the partition starts at: `EntryPoint` when `partita:Executable` names the
    /// program, else C `main` (see [`DEFAULT_ENTRY_FUNCTION`]).
    pub entry_function: String,
    /// Arguments (`partita:Arg`), not including the program name.
    pub args: Vec<String>,
    /// Cores the partition may use: `partita:Resources cores`, else the cores of its windows.
    pub cores: Vec<u32>,
    /// Memory limit: `partita:Resources memoryBytes`, else the sum of its memory requirements,
    /// else [`crate::limits::DEFAULT_MEMORY_BYTES`]; always present in a validated module (a
    /// plan file may lack it).
    pub memory_limit: Option<u64>,
    /// `partita:Resources maxProcesses`.
    pub max_processes: Option<u32>,
    /// `partita:Resources stackBytes`.
    pub stack_size: Option<u64>,
    /// `Partition_Memory` requirements.
    pub memory: Vec<MemoryRequirement>,
    /// Ports.
    pub ports: Vec<Port>,
    /// Process set (`partita:Process`).
    pub processes: Vec<ProcessSpec>,
    /// `partita:ProcessScheduling policy`.
    pub process_policy: Option<ProcessPolicy>,
    /// `partita:GeneralPurpose`: a general-purpose partition (no APEX runtime).
    pub general_purpose: Option<GeneralPurpose>,
}

/// The period requirements of one partition in one module schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScheduledPartition {
    /// Partition index.
    pub partition: usize,
    /// `PeriodSeconds`.
    pub period: Nanos,
    /// `PeriodDurationSeconds`.
    pub duration: Nanos,
    /// Offset of the partition's first period start in the frame
    /// ([`FramePlan::period_origin`]).
    pub period_origin: Nanos,
    /// `ScheduleChangeAction`: what the partition does when the module switches to this
    /// schedule (ARINC 653 Part 2).
    #[serde(default = "ignore_action")]
    pub change_action: ScheduleChangeAction,
    /// `SetModuleSchedule`: whether the partition may call SET_MODULE_SCHEDULE while this
    /// schedule runs (only system partitions may; absent means yes for a system partition).
    #[serde(default = "yes")]
    pub set_module_schedule: bool,
}

fn ignore_action() -> ScheduleChangeAction {
    ScheduleChangeAction::Ignore
}

fn yes() -> bool {
    true
}

/// One `Module_Schedule`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleSchedule {
    /// `ScheduleIdentifier` (its position, from 0, when not given).
    pub id: u32,
    /// `ScheduleName`.
    pub name: Option<String>,
    /// This is the schedule the module starts with.
    pub initial: bool,
    /// The window table.
    pub plan: FramePlan,
    /// Period requirements of the partitions it schedules.
    pub partitions: Vec<ScheduledPartition>,
}

impl ModuleSchedule {
    /// The requirements of partition `index`, if this schedule has them.
    pub fn partition(&self, index: usize) -> Option<&ScheduledPartition> {
        self.partitions.iter().find(|p| p.partition == index)
    }
}

/// A module that passed validation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValidatedModule {
    /// `ModuleName`.
    pub name: String,
    /// `ModuleVersion`.
    pub version: Option<String>,
    /// `ModuleId`.
    pub module_id: Option<String>,
    /// Partitions in configuration order (their index is used everywhere else).
    pub partitions: Vec<Partition>,
    /// Module schedules in configuration order.
    pub schedules: Vec<ModuleSchedule>,
    /// Index of the initial schedule in `schedules`.
    pub initial_schedule: usize,
    /// Channels.
    pub channels: Vec<Channel>,
    /// Health-monitoring tables.
    pub hm: HmTables,
    /// Partition suspension backend.
    pub backend: Backend,
    /// Absolute path of the configuration file.
    pub source_path: PathBuf,
    /// SHA-256 of the configuration file's bytes, lower-case hex.
    pub source_sha256: String,
}
