// SPDX-License-Identifier: MIT OR Apache-2.0
//! Raw parse: the XML tree as the user wrote it, every value typed where possible and tagged
//! with its position. Value-level problems (missing or malformed attributes, unknown elements
//! and attributes, repeated singletons) are reported here; cross-reference rules are checked by
//! the validator. A value that could not be read is `None` and its diagnostic is already out.

mod elements;
mod names;
mod parser;

use crate::diag::Pos;
use crate::model::{
    Backend, Criticality, ErrorCode, ErrorLevel, MemoryAccess, ModuleAction, NetworkMode,
    PartitionAction, PortDirection, PortKind, ProcessPolicy, ScheduleChangeAction,
};
use partita_schedule::Nanos;

pub(crate) use parser::{parse_document, LineIndex};

/// Highest core number accepted (exclusive): the size of a Linux `cpu_set_t`.
pub(crate) const MAX_CORES: u32 = 1024;

/// A value and where it was written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sp<T> {
    pub value: T,
    pub pos: Pos,
}

pub(crate) type Opt<T> = Option<Sp<T>>;

/// Value of an optional spanned attribute.
pub(crate) fn val<T: Clone>(o: &Opt<T>) -> Option<T> {
    o.as_ref().map(|s| s.value.clone())
}

#[derive(Debug, Default)]
pub(crate) struct RawModule {
    pub pos: Pos,
    pub name: Opt<String>,
    pub version: Opt<String>,
    pub module_id: Opt<String>,
    pub backend: Opt<Backend>,
    pub partitions: Vec<RawPartition>,
    pub memories: Vec<RawPartitionMemory>,
    pub schedules: Vec<RawSchedule>,
    pub channels: Vec<RawChannel>,
    pub system_hm: Vec<RawSystemStateEntry>,
    pub module_hm: Vec<RawHmEntry<ModuleAction>>,
    pub partition_hm: Vec<RawPartitionHmTable>,
}

#[derive(Debug)]
pub(crate) struct RawPartitionRef {
    pub pos: Pos,
    pub id: Opt<u32>,
    pub name: Opt<String>,
}

#[derive(Debug)]
pub(crate) struct RawPartition {
    pub pos: Pos,
    pub id: Opt<u32>,
    pub name: Opt<String>,
    pub criticality: Opt<Criticality>,
    pub system: Opt<bool>,
    pub entry_point: Opt<String>,
    pub executable: Option<RawExecutable>,
    pub resources: Option<RawResources>,
    pub processes: Vec<RawProcess>,
    pub process_policy: Opt<ProcessPolicy>,
    pub ports: Vec<RawPort>,
    pub general_purpose: Option<RawGeneralPurpose>,
}

/// `partita:GeneralPurpose`.
#[derive(Debug)]
pub(crate) struct RawGeneralPurpose {
    pub pos: Pos,
    pub background: Opt<Vec<u32>>,
    pub network: Opt<NetworkMode>,
    pub host_address: Opt<String>,
    pub address: Opt<String>,
    pub binds: Vec<RawBind>,
}

/// `partita:Bind`.
#[derive(Debug)]
pub(crate) struct RawBind {
    pub source: Opt<String>,
    pub target: Opt<String>,
    pub access: Opt<MemoryAccess>,
}

#[derive(Debug)]
pub(crate) struct RawExecutable {
    pub path: Opt<String>,
    pub args: Vec<Sp<String>>,
}

#[derive(Debug)]
pub(crate) struct RawResources {
    pub memory_bytes: Opt<u64>,
    pub max_processes: Opt<u32>,
    pub stack_bytes: Opt<u64>,
    pub cores: Opt<Vec<u32>>,
}

#[derive(Debug)]
pub(crate) struct RawProcess {
    pub name: Opt<String>,
    pub period: Opt<Nanos>,
    pub wcet: Opt<Nanos>,
    pub deadline: Opt<Nanos>,
    pub priority: Opt<u32>,
}

#[derive(Debug)]
pub(crate) struct RawPort {
    pub pos: Pos,
    pub kind: PortKind,
    pub name: Opt<String>,
    pub max_message_size: Opt<u32>,
    pub direction: Opt<PortDirection>,
    pub refresh: Opt<Nanos>,
    pub max_nb_messages: Opt<u32>,
}

#[derive(Debug)]
pub(crate) struct RawPartitionMemory {
    pub target: RawPartitionRef,
    pub requirements: Vec<RawMemoryRequirement>,
}

#[derive(Debug)]
pub(crate) struct RawMemoryRequirement {
    pub name: Opt<String>,
    pub kind: Opt<String>,
    pub size: Opt<u64>,
    pub access: Opt<MemoryAccess>,
    pub physical_address: Opt<u64>,
}

#[derive(Debug)]
pub(crate) struct RawSchedule {
    pub pos: Pos,
    pub id: Opt<u32>,
    /// `ScheduleIdentifier` is written (even if unreadable).
    pub id_written: bool,
    pub name: Opt<String>,
    pub initial: Opt<bool>,
    pub major_frame: Opt<Nanos>,
    pub partitions: Vec<RawPartitionSchedule>,
}

#[derive(Debug)]
pub(crate) struct RawPartitionSchedule {
    pub target: RawPartitionRef,
    pub period: Opt<Nanos>,
    pub duration: Opt<Nanos>,
    /// `ScheduleChangeAction` (ARINC 653 Part 2).
    pub change_action: Opt<ScheduleChangeAction>,
    /// `SetModuleSchedule` (ARINC 653 Part 2).
    pub set_schedule: Opt<bool>,
    pub windows: Vec<RawWindow>,
}

#[derive(Debug)]
pub(crate) struct RawWindow {
    pub pos: Pos,
    pub id: Opt<u32>,
    pub start: Opt<Nanos>,
    pub duration: Opt<Nanos>,
    pub period_start: Opt<bool>,
    pub core: Opt<u32>,
}

#[derive(Debug)]
pub(crate) struct RawChannel {
    pub pos: Pos,
    pub id: Opt<u32>,
    pub name: Opt<String>,
    pub sources: Vec<RawSide>,
    pub destinations: Vec<RawSide>,
}

/// A `Source` or `Destination` element.
#[derive(Debug)]
pub(crate) struct RawSide {
    pub pos: Pos,
    pub endpoints: Vec<RawEndpoint>,
}

#[derive(Debug)]
pub(crate) enum RawEndpoint {
    Standard {
        target: RawPartitionRef,
        port: Opt<String>,
    },
    Pseudo(RawPseudo),
}

impl RawEndpoint {
    pub(crate) fn pos(&self) -> Pos {
        match self {
            RawEndpoint::Standard { target, .. } => target.pos,
            RawEndpoint::Pseudo(p) => p.pos,
        }
    }
}

#[derive(Debug)]
pub(crate) struct RawPseudo {
    pub pos: Pos,
    pub name: Opt<String>,
    pub port: Opt<String>,
    pub udp: Opt<String>,
    pub file: Opt<String>,
    pub fifo: Opt<String>,
}

#[derive(Debug)]
pub(crate) struct RawSystemStateEntry {
    pub state: Opt<u32>,
    pub description: Opt<String>,
    pub levels: Vec<RawErrorLevel>,
}

#[derive(Debug)]
pub(crate) struct RawErrorLevel {
    pub id: Opt<u32>,
    pub description: Opt<String>,
    pub level: Opt<ErrorLevel>,
    pub code: Opt<ErrorCode>,
}

#[derive(Debug)]
pub(crate) struct RawHmEntry<A> {
    pub state: Opt<u32>,
    pub description: Opt<String>,
    pub actions: Vec<RawErrorAction<A>>,
}

#[derive(Debug)]
pub(crate) struct RawErrorAction<A> {
    pub id: Opt<u32>,
    pub action: Opt<A>,
    pub code: Opt<ErrorCode>,
}

#[derive(Debug)]
pub(crate) struct RawPartitionHmTable {
    pub target: RawPartitionRef,
    pub entries: Vec<RawHmEntry<PartitionAction>>,
}

/// Why a configuration value is not an unsigned integer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum UintError {
    #[error("the value is empty")]
    Empty,
    #[error("negative values are not allowed")]
    Negative,
    #[error("not an unsigned integer")]
    NotUnsigned,
    #[error("the value is too large")]
    TooLarge,
}

/// Why a configuration value is not a core list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CoreListError {
    #[error("empty entry in the core list")]
    EmptyEntry,
    #[error("range `{0}` is reversed")]
    Reversed(String),
    #[error("`{text}`: {error}")]
    NotACore { text: String, error: UintError },
    #[error("core {0} is out of range (0..{max})", max = MAX_CORES - 1)]
    OutOfRange(u64),
}

/// Parses an unsigned integer: decimal, or hexadecimal with a `0x` prefix.
pub(crate) fn parse_uint(text: &str) -> Result<u64, UintError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(UintError::Empty);
    }
    let (digits, radix) = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => (h, 16),
        None => (t, 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(if t.starts_with('-') {
            UintError::Negative
        } else {
            UintError::NotUnsigned
        });
    }
    u64::from_str_radix(digits, radix).map_err(|_| UintError::TooLarge)
}

/// Parses a Linux-style core list: `"0,1"`, `"0-3"`, `"0,2-3"`.
pub(crate) fn parse_core_list(text: &str) -> Result<Vec<u32>, CoreListError> {
    let mut cores = Vec::new();
    for part in text.split(',') {
        let part = part.trim();
        if part.is_empty() {
            return Err(CoreListError::EmptyEntry);
        }
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (parse_core(a)?, parse_core(b)?),
            None => {
                let c = parse_core(part)?;
                (c, c)
            }
        };
        if lo > hi {
            return Err(CoreListError::Reversed(part.to_string()));
        }
        cores.extend(lo..=hi);
    }
    cores.sort_unstable();
    cores.dedup();
    Ok(cores)
}

fn parse_core(text: &str) -> Result<u32, CoreListError> {
    let v = parse_uint(text).map_err(|error| CoreListError::NotACore {
        text: text.trim().to_string(),
        error,
    })?;
    if v >= u64::from(MAX_CORES) {
        return Err(CoreListError::OutOfRange(v));
    }
    Ok(v as u32)
}
