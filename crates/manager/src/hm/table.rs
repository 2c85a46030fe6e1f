// SPDX-License-Identifier: MIT OR Apache-2.0
//! The health-monitor decision: (system state × error) → level → action, from the
//! configuration's `System_HM_Table`, `Module_HM_Table` and `Partition_HM_Table`.
//!
//! Pure: no Linux, no clock. See docs/health-monitor.md for the rules in prose.
//!
//! # Matching an error to the tables
//! ARINC 653 error identifiers are configuration-local numbers; the `ErrorCode` attribute ties
//! them to an APEX `ERROR_CODE_TYPE`. A detected error (an [`ErrorCode`] in a [`SystemState`])
//! is matched like this:
//! 1. its *identifier*: the `ErrorIdentifier` of the `Error_ID_Level` of the
//!    `System_HM_Table` entry for the state whose `ErrorCode` is the error's code; else of any
//!    `Error_ID_Action` (module table, then the partition's table, same state first) carrying
//!    that `ErrorCode`; else the code's numeric value (`DEADLINE_MISSED` = 0 … `POWER_FAIL` = 7);
//! 2. its *level*: the `ErrorLevel` of that identifier in the state's `System_HM_Table` entry,
//!    else the [default level](Origin::default_level);
//! 3. its *action*: for MODULE the state's `Module_HM_Table` entry for the identifier, for
//!    PARTITION the partition's `Partition_HM_Table` entry; else the defaults
//!    ([`DEFAULT_MODULE_ACTION`], [`Origin::default_partition_action`]). PROCESS level means
//!    the partition's own error handler (the runtime's business); an error the runtime could
//!    not give to a handler arrives already escalated and is handled at PARTITION level.

use partita_config::model::{
    ErrorCode, ErrorLevel, HmStateEntry, HmTables, ModuleAction, PartitionAction,
};

/// The system states Partita distinguishes (the `SystemState` numbers of the HM tables):
/// MODULE_INIT (the module is starting), PARTITION_INIT (COLD_START or WARM_START: its main
/// process runs), PROCESS_EXECUTION (NORMAL mode: an APEX process was executing),
/// ERROR_HANDLER (the partition's error handler was executing) and OS (the partition manager
/// itself: module-wide events such as a power failure, or a partition request it refused).
pub use partita_abi::SystemState;

/// Where an error comes from, which decides its defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// An error the partition runtime already gave to the partition's error handler: handled
    /// at PROCESS level whatever the tables say (recorded only).
    Handled,
    /// A runtime record at process level (a deadline miss the runtime also gives to the
    /// partition's error handler when it has one).
    Process,
    /// Escalated by the partition runtime (no error handler, or the error arose in
    /// initialisation, the main process or the handler).
    PartitionRuntime,
    /// The partition's Linux process died (signal, exit, OOM kill): nothing of it is left.
    PartitionDied,
    /// A request of the partition that the manager refused (ILLEGAL_REQUEST); the caller got an
    /// error return code and carries on.
    Refused,
    /// A module-wide event (POWER_FAIL).
    Module,
}

impl Origin {
    /// The level when the System_HM_Table says nothing: PROCESS for process records and
    /// refused requests (the caller saw the error), MODULE for module events, PARTITION
    /// otherwise.
    pub fn default_level(self) -> ErrorLevel {
        match self {
            Origin::Handled | Origin::Process | Origin::Refused => ErrorLevel::Process,
            Origin::Module => ErrorLevel::Module,
            Origin::PartitionRuntime | Origin::PartitionDied => ErrorLevel::Partition,
        }
    }

    /// The partition action when its Partition_HM_Table says nothing: IDLE for a partition
    /// whose process died (nothing is left to run; its windows stay empty), IGNORE otherwise
    /// (the runtime has already stopped the failed process).
    pub fn default_partition_action(self) -> PartitionAction {
        match self {
            Origin::PartitionDied => PartitionAction::Idle,
            _ => PartitionAction::Ignore,
        }
    }
}

/// The module action when the Module_HM_Table says nothing about a MODULE-level error.
pub const DEFAULT_MODULE_ACTION: ModuleAction = ModuleAction::Shutdown;

/// What the health monitor decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Process level: the partition's error handler (recorded only).
    Process,
    /// Partition level with the partition's action.
    Partition(PartitionAction),
    /// Module level with the module action.
    Module(ModuleAction),
}

/// The outcome of a table lookup, with what was found (for the logbook).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lookup {
    /// The error identifier used.
    pub identifier: u32,
    /// The level.
    pub level: ErrorLevel,
    /// The decision.
    pub decision: Decision,
    /// Whether the level came from the System_HM_Table (else the default).
    pub level_configured: bool,
    /// Whether the action came from a module/partition table (else the default).
    pub action_configured: bool,
}

fn entry<A>(entries: &[HmStateEntry<A>], state: u32) -> Option<&HmStateEntry<A>> {
    entries.iter().find(|e| e.state == state)
}

fn action_id<A>(entries: &[HmStateEntry<A>], state: u32, code: ErrorCode) -> Option<u32> {
    let same = entry(entries, state).into_iter();
    let others = entries.iter().filter(|e| e.state != state);
    same.chain(others)
        .flat_map(|e| e.actions.iter())
        .find(|a| a.code == Some(code))
        .map(|a| a.error)
}

fn action<A: Copy>(entries: &[HmStateEntry<A>], state: u32, id: u32) -> Option<A> {
    entry(entries, state)?
        .actions
        .iter()
        .find(|a| a.error == id)
        .map(|a| a.action)
}

/// Decides what to do with `code` detected in `state` for partition `partition` (its index in
/// the plan; `None` for a module-wide error), coming from `origin`.
pub fn decide(
    tables: &HmTables,
    state: SystemState,
    code: ErrorCode,
    partition: Option<usize>,
    origin: Origin,
) -> Lookup {
    let s = state.raw();
    let ptable = partition
        .and_then(|p| tables.partitions.iter().find(|t| t.partition == p))
        .map(|t| t.entries.as_slice())
        .unwrap_or(&[]);
    let sys_entry = tables.system.iter().find(|e| e.state == s);
    let identifier = sys_entry
        .and_then(|e| e.errors.iter().find(|l| l.code == Some(code)))
        .map(|l| l.error)
        .or_else(|| action_id(&tables.module, s, code))
        .or_else(|| action_id(ptable, s, code))
        .unwrap_or_else(|| code.raw());
    let configured_level = sys_entry
        .and_then(|e| e.errors.iter().find(|l| l.error == identifier))
        .map(|l| l.level);
    let mut level = configured_level.unwrap_or_else(|| origin.default_level());
    if origin == Origin::Handled {
        level = ErrorLevel::Process;
    }
    // The runtime has no handler for it (or the partition is gone): process level is not
    // available any more.
    if level == ErrorLevel::Process
        && matches!(origin, Origin::PartitionRuntime | Origin::PartitionDied)
    {
        level = ErrorLevel::Partition;
    }
    // A module-wide error has no partition to act on.
    if level == ErrorLevel::Partition && partition.is_none() {
        level = ErrorLevel::Module;
    }
    let (decision, action_configured) = match level {
        ErrorLevel::Process => (Decision::Process, false),
        ErrorLevel::Module => match action(&tables.module, s, identifier) {
            Some(a) => (Decision::Module(a), true),
            None => (Decision::Module(DEFAULT_MODULE_ACTION), false),
        },
        ErrorLevel::Partition => match action(ptable, s, identifier) {
            Some(a) => (Decision::Partition(a), true),
            None => (
                Decision::Partition(origin.default_partition_action()),
                false,
            ),
        },
    };
    Lookup {
        identifier,
        level,
        decision,
        level_configured: configured_level.is_some(),
        action_configured,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use partita_config::model::{ErrorAction, ErrorIdLevel, PartitionHmTable, SystemStateEntry};

    fn lvl(error: u32, level: ErrorLevel, code: Option<ErrorCode>) -> ErrorIdLevel {
        ErrorIdLevel {
            error,
            description: None,
            level,
            code,
        }
    }

    fn act<A>(error: u32, action: A, code: Option<ErrorCode>) -> ErrorAction<A> {
        ErrorAction {
            error,
            action,
            code,
        }
    }

    fn tables() -> HmTables {
        HmTables {
            system: vec![SystemStateEntry {
                state: 3,
                description: None,
                errors: vec![
                    lvl(10, ErrorLevel::Partition, Some(ErrorCode::NumericError)),
                    lvl(11, ErrorLevel::Module, Some(ErrorCode::PowerFail)),
                    lvl(12, ErrorLevel::Process, None),
                    lvl(13, ErrorLevel::Partition, None),
                ],
            }],
            module: vec![HmStateEntry {
                state: 3,
                description: None,
                actions: vec![act(11, ModuleAction::Reset, None)],
            }],
            partitions: vec![PartitionHmTable {
                partition: 1,
                entries: vec![HmStateEntry {
                    state: 3,
                    description: None,
                    actions: vec![
                        act(10, PartitionAction::ColdStart, None),
                        act(
                            12,
                            PartitionAction::WarmStart,
                            Some(ErrorCode::DeadlineMissed),
                        ),
                        act(13, PartitionAction::Idle, Some(ErrorCode::MemoryViolation)),
                    ],
                }],
            }],
        }
    }

    #[test]
    fn identifier_from_the_system_table_code() {
        let t = tables();
        let l = decide(
            &t,
            SystemState::ProcessExecution,
            ErrorCode::NumericError,
            Some(1),
            Origin::PartitionRuntime,
        );
        assert_eq!(l.identifier, 10);
        assert_eq!(l.level, ErrorLevel::Partition);
        assert_eq!(l.decision, Decision::Partition(PartitionAction::ColdStart));
        assert!(l.level_configured && l.action_configured);
        // Another partition has no table: default action.
        let l = decide(
            &t,
            SystemState::ProcessExecution,
            ErrorCode::NumericError,
            Some(0),
            Origin::PartitionRuntime,
        );
        assert_eq!(l.decision, Decision::Partition(PartitionAction::Ignore));
        assert!(!l.action_configured);
    }

    #[test]
    fn identifier_from_an_action_code() {
        let t = tables();
        // MEMORY_VIOLATION is tied to 13 by the partition table; 13 is PARTITION level.
        let l = decide(
            &t,
            SystemState::ProcessExecution,
            ErrorCode::MemoryViolation,
            Some(1),
            Origin::PartitionDied,
        );
        assert_eq!(l.identifier, 13);
        assert_eq!(l.decision, Decision::Partition(PartitionAction::Idle));
        // DEADLINE_MISSED → 12, PROCESS level: the error handler.
        let l = decide(
            &t,
            SystemState::ProcessExecution,
            ErrorCode::DeadlineMissed,
            Some(1),
            Origin::Process,
        );
        assert_eq!((l.identifier, l.decision), (12, Decision::Process));
        // Escalated by the runtime: process level is not available, the partition acts.
        let l = decide(
            &t,
            SystemState::ProcessExecution,
            ErrorCode::DeadlineMissed,
            Some(1),
            Origin::PartitionRuntime,
        );
        assert_eq!(l.level, ErrorLevel::Partition);
        assert_eq!(l.decision, Decision::Partition(PartitionAction::WarmStart));
    }

    #[test]
    fn module_level_and_defaults() {
        let t = tables();
        let l = decide(
            &t,
            SystemState::ProcessExecution,
            ErrorCode::PowerFail,
            None,
            Origin::Module,
        );
        assert_eq!(l.decision, Decision::Module(ModuleAction::Reset));
        // In another state nothing is configured: POWER_FAIL defaults to module SHUTDOWN.
        let l = decide(
            &t,
            SystemState::Os,
            ErrorCode::PowerFail,
            None,
            Origin::Module,
        );
        assert_eq!(l.identifier, 7);
        assert_eq!(l.decision, Decision::Module(ModuleAction::Shutdown));
        assert!(!l.level_configured && !l.action_configured);
        // Empty tables: a dead partition goes IDLE, an escalated error is ignored, a refused
        // request is recorded at process level.
        let e = HmTables::default();
        let d = |code, origin| {
            decide(&e, SystemState::ProcessExecution, code, Some(0), origin).decision
        };
        assert_eq!(
            d(ErrorCode::MemoryViolation, Origin::PartitionDied),
            Decision::Partition(PartitionAction::Idle)
        );
        assert_eq!(
            d(ErrorCode::NumericError, Origin::PartitionRuntime),
            Decision::Partition(PartitionAction::Ignore)
        );
        assert_eq!(
            d(ErrorCode::IllegalRequest, Origin::Refused),
            Decision::Process
        );
        // Taken by the error handler: process level even where the table says PARTITION.
        let l = decide(
            &t,
            SystemState::ProcessExecution,
            ErrorCode::NumericError,
            Some(1),
            Origin::Handled,
        );
        assert_eq!(l.decision, Decision::Process);
    }
}
