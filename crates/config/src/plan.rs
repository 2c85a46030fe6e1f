// SPDX-License-Identifier: MIT OR Apache-2.0
//! The compiled plan: everything the partition manager needs, resolved and checked, and its
//! binary file format.
//!
//! File layout (all integers little-endian):
//!
//! | offset | size | content                               |
//! |-------:|-----:|---------------------------------------|
//! |      0 |    8 | magic `b"PARTPLAN"`                   |
//! |      8 |    4 | format version ([`PLAN_FORMAT_VERSION`]) |
//! |     12 |   32 | SHA-256 of the payload                |
//! |     44 |    8 | payload length in bytes               |
//! |     52 |    n | payload: the plan as JSON             |

use crate::limits::system;
use crate::model::{
    Backend, Channel, Criticality, Endpoint, GeneralPurpose, HmTables, MemoryRequirement,
    ModuleSchedule, Port, PortKind, ProcessPolicy, ProcessSpec, ValidatedModule, MAX_SCHEDULES,
};
use partita_schedule::Nanos;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::PathBuf;

/// First bytes of every plan file.
pub const PLAN_MAGIC: &[u8; 8] = b"PARTPLAN";
/// Version of the plan file format written by this crate.
pub const PLAN_FORMAT_VERSION: u32 = 1;
/// Size of the header before the payload.
pub const PLAN_HEADER_LEN: usize = 8 + 4 + 32 + 8;

/// A partition, ready to be started by the partition manager.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompiledPartition {
    /// Index in [`CompiledPlan::partitions`] (what windows and channels refer to).
    pub index: usize,
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
    /// Absolute path of the program to execute.
    pub executable: PathBuf,
    /// The function the partition starts at (`main` unless `EntryPoint` names another with
    /// `partita:Executable`). Plans written before it existed start at `main`.
    #[serde(default = "default_entry_function")]
    pub entry_function: String,
    /// Arguments after the program name.
    pub args: Vec<String>,
    /// Cores the partition may run on.
    pub cores: Vec<u32>,
    /// Memory limit in bytes, if any.
    pub memory_limit: Option<u64>,
    /// Maximum number of processes (threads), if limited.
    pub max_processes: Option<u32>,
    /// Stack size of processes, if given.
    pub stack_size: Option<u64>,
    /// `PeriodSeconds` in the initial schedule (`None` if that schedule does not run it).
    pub period: Option<Nanos>,
    /// `PeriodDurationSeconds` in the initial schedule.
    pub duration: Option<Nanos>,
    /// Offset of its first period start in the initial schedule's frame.
    pub period_origin: Option<Nanos>,
    /// Ports.
    pub ports: Vec<Port>,
    /// Memory requirements as configured.
    pub memory: Vec<MemoryRequirement>,
    /// Process set (for schedule synthesis).
    pub processes: Vec<ProcessSpec>,
    /// Intra-partition scheduling policy, if configured.
    pub process_policy: Option<ProcessPolicy>,
    /// A general-purpose partition: ordinary Linux programs without the APEX runtime, its
    /// background cores, network and binds. Plans written before it existed have none.
    #[serde(default)]
    pub general_purpose: Option<GeneralPurpose>,
}

/// The compiled form of a module configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompiledPlan {
    /// `ModuleName`.
    pub module_name: String,
    /// `ModuleVersion`.
    pub module_version: Option<String>,
    /// `ModuleId`.
    pub module_id: Option<String>,
    /// Module schedules (each with its [`partita_schedule::FramePlan`]).
    pub schedules: Vec<ModuleSchedule>,
    /// Index of the initial schedule in `schedules`.
    pub initial_schedule: usize,
    /// Partitions, by index.
    pub partitions: Vec<CompiledPartition>,
    /// Channels, endpoints resolved to partition indices.
    pub channels: Vec<Channel>,
    /// Health-monitoring tables.
    pub hm: HmTables,
    /// Partition suspension backend.
    pub backend: Backend,
    /// Absolute path of the configuration file the plan was compiled from.
    pub source_path: PathBuf,
    /// SHA-256 of that file, lower-case hex.
    pub source_sha256: String,
}

impl CompiledPlan {
    /// The schedule the module starts with.
    pub fn initial(&self) -> Option<&ModuleSchedule> {
        self.schedules.get(self.initial_schedule)
    }

    /// The partition with `PartitionName` `name`.
    pub fn partition_by_name(&self, name: &str) -> Option<&CompiledPartition> {
        self.partitions.iter().find(|p| p.name == name)
    }

    /// The partition with `PartitionIdentifier` `id`.
    pub fn partition_by_id(&self, id: u32) -> Option<&CompiledPartition> {
        self.partitions.iter().find(|p| p.id == id)
    }

    /// Checks the invariants the partition manager relies on, which a plan produced by
    /// [`compile`] from a valid configuration always has (at least one partition, indices in
    /// range, a valid initial schedule, structurally sound frame plans, channels the manager
    /// can create). [`read_plan`] and [`PlanBuilder::build`] run it, and so does the manager
    /// before it runs a plan, so that every consumer can index without further checks.
    pub fn check_consistency(&self) -> Result<(), Inconsistency> {
        let n = self.partitions.len();
        if n == 0 {
            return Err(Inconsistency::NoPartition);
        }
        let names = self.partitions.iter().flat_map(|p| {
            std::iter::once(p.name.as_str()).chain(p.ports.iter().map(|port| port.name.as_str()))
        });
        let ports = self.partitions.iter().flat_map(|p| &p.ports);
        if self.partitions.len() > system::NUMBER_OF_PARTITIONS
            || ports.clone().any(|port| {
                port.max_message_size > system::MESSAGE_SIZE
                    || port.max_nb_messages.unwrap_or(0) > system::NUMBER_OF_MESSAGES
            })
        {
            return Err(Inconsistency::SystemLimit);
        }
        for name in names {
            if let Some(reason) = crate::limits::name_problem(name) {
                return Err(Inconsistency::UnsafeName {
                    name: name.to_string(),
                    reason,
                });
            }
        }
        for (i, p) in self.partitions.iter().enumerate() {
            if p.index != i {
                return Err(Inconsistency::PartitionIndex {
                    name: p.name.clone(),
                    index: p.index,
                    position: i,
                });
            }
        }
        let Some(initial) = self.initial() else {
            return Err(Inconsistency::NoInitialSchedule {
                initial: self.initial_schedule,
                schedules: self.schedules.len(),
            });
        };
        if !initial.initial || self.schedules.iter().filter(|s| s.initial).count() != 1 {
            return Err(Inconsistency::InitialFlag);
        }
        if self.schedules.len() > MAX_SCHEDULES {
            return Err(Inconsistency::TooManySchedules(self.schedules.len()));
        }
        for s in &self.schedules {
            if let Some(e) = s.plan.structural_errors().into_iter().next() {
                return Err(Inconsistency::Schedule {
                    schedule: s.id,
                    error: e,
                });
            }
            if s.plan.windows.iter().any(|w| w.partition >= n)
                || s.partitions.iter().any(|p| p.partition >= n)
            {
                return Err(Inconsistency::SchedulePartition { schedule: s.id });
            }
        }
        for c in &self.channels {
            c.check(n)?;
        }
        if self.hm.partitions.iter().any(|t| t.partition >= n) {
            return Err(Inconsistency::HmTablePartition);
        }
        // Background (rule `background-core`): one partition per core, on its only core.
        let mut owners: Vec<u32> = Vec::new();
        for i in 0..n {
            let bg = self.background_cores(i);
            if bg.is_empty() {
                continue;
            }
            if self.cores_of(i).len() != 1 || bg.iter().any(|c| owners.contains(c)) {
                return Err(Inconsistency::Background {
                    partition: self.partitions[i].name.clone(),
                });
            }
            owners.extend_from_slice(bg);
        }
        Ok(())
    }

    /// The initial schedule's major frame.
    pub fn major_frame(&self) -> Nanos {
        self.initial().map_or(0, |s| s.plan.major_frame)
    }

    /// The timing partition `index` starts with: its period and duration in the initial
    /// schedule and the offset of its first period start there. A partition the initial
    /// schedule does not run gets the major frame as period and no duration (it has no
    /// window until a schedule switch gives it one).
    pub fn initial_timing(&self, index: usize) -> PartitionTiming {
        let p = &self.partitions[index];
        PartitionTiming {
            period: p.period.unwrap_or(self.major_frame()),
            duration: p.duration.unwrap_or(0),
            period_origin: p
                .period_origin
                .unwrap_or_else(|| self.initial().map_or(0, |s| s.plan.period_origin(index))),
        }
    }

    /// The cores partition `index` runs on: its configured cores, else the cores of its
    /// windows in every schedule and of its background, else core 0.
    pub fn cores_of(&self, index: usize) -> Vec<u32> {
        let p = &self.partitions[index];
        if !p.cores.is_empty() {
            return p.cores.clone();
        }
        let mut c: Vec<u32> = self
            .schedules
            .iter()
            .flat_map(|s| s.plan.windows.iter())
            .filter(|w| w.partition == index)
            .map(|w| w.core)
            .chain(self.background_cores(index).iter().copied())
            .collect();
        c.sort_unstable();
        c.dedup();
        if c.is_empty() {
            c.push(0);
        }
        c
    }

    /// The cores whose idle time partition `index` gets (a general-purpose partition's
    /// background; empty for every other partition).
    pub fn background_cores(&self, index: usize) -> &[u32] {
        self.partitions
            .get(index)
            .and_then(|p| p.general_purpose.as_ref())
            .map(|g| g.background.as_slice())
            .unwrap_or_default()
    }

    /// The partition that gets the idle time of `core` as its background, if any.
    pub fn background_of(&self, core: u32) -> Option<usize> {
        (0..self.partitions.len()).find(|&i| self.background_cores(i).contains(&core))
    }

    /// `RefreshRateSeconds` of port `port` of partition `partition`, if it has one.
    pub fn refresh_period(&self, partition: usize, port: &str) -> Option<Nanos> {
        self.partitions
            .get(partition)?
            .ports
            .iter()
            .find(|q| q.name == port)?
            .refresh_period
    }
}

/// A partition's period, duration and first period start (see [`CompiledPlan::initial_timing`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionTiming {
    /// `PeriodSeconds` in ns.
    pub period: Nanos,
    /// `PeriodDurationSeconds` in ns.
    pub duration: Nanos,
    /// Offset of its first period start in the frame.
    pub period_origin: Nanos,
}

/// Largest message of a channel the manager creates: `SYSTEM_LIMIT_MESSAGE_SIZE`, the limit
/// `partita check` enforces (rule `system-limit`).
pub const MAX_CHANNEL_MESSAGE: u32 = system::MESSAGE_SIZE;
/// Largest queue of a queuing channel the manager creates: `SYSTEM_LIMIT_NUMBER_OF_MESSAGES`.
pub const MAX_CHANNEL_QUEUE: u32 = system::NUMBER_OF_MESSAGES;

impl Channel {
    /// Structural checks of a channel among `partitions` partitions (the configuration
    /// validator reports the same problems with file positions).
    pub fn check(&self, partitions: usize) -> Result<(), Inconsistency> {
        let bad = |e: &Endpoint| e.partition().is_some_and(|p| p >= partitions);
        if bad(&self.source) || self.destinations.iter().any(bad) {
            return Err(Inconsistency::ChannelPartition { channel: self.id });
        }
        if self.max_message_size == 0 || self.max_message_size > MAX_CHANNEL_MESSAGE {
            return Err(Inconsistency::MessageSize(self.id));
        }
        if self.destinations.is_empty() {
            return Err(Inconsistency::NoDestination(self.id));
        }
        if self.kind == PortKind::Queuing
            && (self.destinations.len() != 1
                || !(1..=MAX_CHANNEL_QUEUE).contains(&self.max_nb_messages.unwrap_or(0)))
        {
            return Err(Inconsistency::Queue(self.id));
        }
        Ok(())
    }
}

/// A broken invariant of a compiled plan ([`CompiledPlan::check_consistency`]): a plan
/// produced by [`compile`] from a valid configuration never has one, so a plan file that does
/// was altered or damaged, and a plan built in code ([`crate::PlanBuilder`]) that does is
/// refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Inconsistency {
    /// The plan has no partition.
    #[error("the plan has no partition")]
    NoPartition,
    /// More partitions, or a larger port, than the ARINC 653 system limits allow (rule
    /// `system-limit`).
    #[error("the plan passes an ARINC 653 system limit (partitions, message size or messages per queue)")]
    SystemLimit,
    /// A partition or port name is not safe in file, cgroup and shared-memory object names
    /// (rule `unsafe-name`).
    #[error("name {name:?}: {reason}")]
    UnsafeName {
        /// The name.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A partition's `index` is not its position.
    #[error("partition {name} has index {index} at position {position}")]
    PartitionIndex {
        /// Its name.
        name: String,
        /// Its `index`.
        index: usize,
        /// Its position in the plan.
        position: usize,
    },
    /// The initial schedule does not exist.
    #[error("initial schedule {initial} of {schedules} does not exist")]
    NoInitialSchedule {
        /// `initial_schedule`.
        initial: usize,
        /// Number of schedules.
        schedules: usize,
    },
    /// Not exactly the initial schedule is flagged initial.
    #[error("exactly the initial schedule must be flagged initial")]
    InitialFlag,
    /// More schedules than the control block holds.
    #[error("{0} module schedules (at most {MAX_SCHEDULES})")]
    TooManySchedules(usize),
    /// A schedule's frame plan is structurally wrong.
    #[error("schedule {schedule}: {error}")]
    Schedule {
        /// Schedule identifier.
        schedule: u32,
        /// The first structural error.
        error: partita_schedule::ScheduleError,
    },
    /// A schedule names a partition index out of range.
    #[error("schedule {schedule} refers to a partition out of range")]
    SchedulePartition {
        /// Schedule identifier.
        schedule: u32,
    },
    /// A channel names a partition index out of range.
    #[error("channel {channel} refers to a partition out of range")]
    ChannelPartition {
        /// Channel identifier.
        channel: u32,
    },
    /// A channel's message size is 0 or too large.
    #[error("channel {0} has a message size outside 1..={MAX_CHANNEL_MESSAGE}")]
    MessageSize(u32),
    /// A channel has no destination.
    #[error("channel {0} has no destination")]
    NoDestination(u32),
    /// A queuing channel without exactly one destination or with a bad capacity.
    #[error("queuing channel {0} needs one destination and 1..={MAX_CHANNEL_QUEUE} messages")]
    Queue(u32),
    /// A partition HM table names a partition index out of range.
    #[error("a partition HM table refers to a partition out of range")]
    HmTablePartition,
    /// A partition's background is on a core whose idle time another partition gets, or the
    /// partition runs on more than its one core (rule `background-core`).
    #[error(
        "partition {partition}: its background must be on its only core, and no other partition's"
    )]
    Background {
        /// The partition.
        partition: String,
    },
}

/// The entry function of a plan written before plans named one.
fn default_entry_function() -> String {
    crate::model::DEFAULT_ENTRY_FUNCTION.to_string()
}

/// Compiles a validated module into a plan.
pub fn compile(module: &ValidatedModule) -> CompiledPlan {
    let initial = module.schedules.get(module.initial_schedule);
    let partitions = module
        .partitions
        .iter()
        .enumerate()
        .map(|(index, p)| {
            let timing = initial.and_then(|s| s.partition(index));
            CompiledPartition {
                index,
                id: p.id,
                name: p.name.clone(),
                criticality: p.criticality,
                system: p.system,
                entry_point: p.entry_point.clone(),
                executable: p.executable.clone(),
                entry_function: p.entry_function.clone(),
                args: p.args.clone(),
                cores: p.cores.clone(),
                memory_limit: p.memory_limit,
                max_processes: p.max_processes,
                stack_size: p.stack_size,
                period: timing.map(|t| t.period),
                duration: timing.map(|t| t.duration),
                period_origin: timing.map(|t| t.period_origin),
                ports: p.ports.clone(),
                memory: p.memory.clone(),
                processes: p.processes.clone(),
                process_policy: p.process_policy,
                general_purpose: p.general_purpose.clone(),
            }
        })
        .collect();
    CompiledPlan {
        module_name: module.name.clone(),
        module_version: module.version.clone(),
        module_id: module.module_id.clone(),
        schedules: module.schedules.clone(),
        initial_schedule: module.initial_schedule,
        partitions,
        channels: module.channels.clone(),
        hm: module.hm.clone(),
        backend: module.backend,
        source_path: module.source_path.clone(),
        source_sha256: module.source_sha256.clone(),
    }
}

/// Why a plan file could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The file is larger than [`crate::limits::MAX_READ_BYTES`] (read no further).
    #[error("the plan file is larger than {} bytes", crate::limits::MAX_READ_BYTES)]
    TooLarge,
    /// The data does not start with `PARTPLAN`.
    #[error("not a partita plan file (bad magic)")]
    BadMagic,
    /// The file was written in a format version this build does not read.
    #[error("plan format version {found} is not supported (this build reads version {supported})")]
    UnsupportedVersion {
        /// Version in the file.
        found: u32,
        /// Version this build reads.
        supported: u32,
    },
    /// The data ends before the header or payload does.
    #[error("the plan file is truncated")]
    Truncated,
    /// There are bytes after the payload.
    #[error("the plan file has {extra} unexpected bytes after the payload")]
    TrailingData {
        /// Number of extra bytes.
        extra: u64,
    },
    /// The payload does not match its SHA-256.
    #[error("the plan payload does not match its SHA-256 (corrupted file)")]
    HashMismatch,
    /// The payload is not a valid plan.
    #[error("the plan payload is not valid: {0}")]
    Json(#[from] serde_json::Error),
    /// The payload decodes but violates the plan's invariants.
    #[error("the plan is inconsistent: {0}")]
    Inconsistent(#[from] Inconsistency),
    /// Writing failed.
    #[error("cannot write the plan: {0}")]
    Io(#[from] std::io::Error),
}

/// Lower-case hex SHA-256 of `data`.
pub fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Serialises `plan` into the plan file format.
pub fn plan_to_bytes(plan: &CompiledPlan) -> Result<Vec<u8>, PlanError> {
    let payload = serde_json::to_vec(plan)?;
    let mut out = Vec::with_capacity(PLAN_HEADER_LEN + payload.len());
    out.extend_from_slice(PLAN_MAGIC);
    out.extend_from_slice(&PLAN_FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&Sha256::digest(&payload));
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&payload);
    Ok(out)
}

/// Writes `plan` to `out` in the plan file format.
pub fn write_plan(plan: &CompiledPlan, out: &mut impl Write) -> Result<(), PlanError> {
    let bytes = plan_to_bytes(plan)?;
    out.write_all(&bytes)?;
    out.flush()?;
    Ok(())
}

/// `true` if `data` starts like a plan file.
pub fn is_plan(data: &[u8]) -> bool {
    data.starts_with(PLAN_MAGIC)
}

/// Reads a plan file: checks magic, version, length and SHA-256, decodes the payload and checks
/// the plan's invariants ([`CompiledPlan::check_consistency`]).
pub fn read_plan(data: &[u8]) -> Result<CompiledPlan, PlanError> {
    if data.len() < PLAN_MAGIC.len() {
        return Err(if PLAN_MAGIC.starts_with(data) && !data.is_empty() {
            PlanError::Truncated
        } else {
            PlanError::BadMagic
        });
    }
    if !is_plan(data) {
        return Err(PlanError::BadMagic);
    }
    if data.len() as u64 > crate::limits::MAX_READ_BYTES {
        return Err(PlanError::TooLarge);
    }
    let field = |range: std::ops::Range<usize>| data.get(range).ok_or(PlanError::Truncated);
    let version = u32::from_le_bytes(field(8..12)?.try_into().map_err(|_| PlanError::Truncated)?);
    if version != PLAN_FORMAT_VERSION {
        return Err(PlanError::UnsupportedVersion {
            found: version,
            supported: PLAN_FORMAT_VERSION,
        });
    }
    let hash = field(12..44)?;
    let len = u64::from_le_bytes(
        field(44..52)?
            .try_into()
            .map_err(|_| PlanError::Truncated)?,
    );
    let available = (data.len() - PLAN_HEADER_LEN) as u64;
    if available < len {
        return Err(PlanError::Truncated);
    }
    if available > len {
        return Err(PlanError::TrailingData {
            extra: available - len,
        });
    }
    let payload = &data[PLAN_HEADER_LEN..];
    if Sha256::digest(payload).as_slice() != hash {
        return Err(PlanError::HashMismatch);
    }
    let plan: CompiledPlan = serde_json::from_slice(payload)?;
    plan.check_consistency()?;
    Ok(plan)
}
