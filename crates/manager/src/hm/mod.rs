// SPDX-License-Identifier: MIT OR Apache-2.0
//! The module-level health monitor.
//!
//! Errors reach it from four places: the partition runtime's report records (deadline misses
//! at process level, errors the runtime escalated to partition level), the supervisor
//! (a partition's Linux process died, its memory cgroup OOM-killed something, a simulated
//! power failure), and the extension-service mailbox (a normal partition calling a service
//! reserved to system partitions). For each one [`Hm::raise`] works out the system state
//! (given by the caller, see [`state_of`]), looks the tables up ([`table::decide`]), records
//! the event in the [`logbook`] and sets the action in motion: partition actions change the
//! partition's life-cycle state for the supervisor (which kills and re-spawns processes; the
//! scheduler threads are never involved), module actions are picked up by the supervisor loop.
//!
//! docs/health-monitor.md describes states, tables, defaults, actions and the logbook format.

pub mod logbook;
pub(crate) mod mailbox;
pub mod table;

use crate::lifecycle::{Change, Life, LifeCycle};
use logbook::{Action, Detection, LogRecord, LogStatus, Logbook, LOG_FORMAT_VERSION};
use partita_abi::{OperatingMode, StartCondition, ERROR_HANDLER_PROCESS_ID, MAIN_PROCESS_ID};
use partita_config::model::{ErrorCode, HmTables, ModuleAction, PartitionAction};
use partita_sys::proc::ExitKind;
use serde::Serialize;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use table::{Decision, Origin, SystemState};

/// Module action requested of the supervisor.
const MODULE_NONE: u32 = 0;
const MODULE_SHUTDOWN: u32 = 1;
const MODULE_RESET: u32 = 2;

/// An error as detected.
#[derive(Debug, Clone)]
pub(crate) struct Detected {
    /// Partition index (none: module-wide).
    pub partition: Option<usize>,
    /// APEX process as in report records.
    pub process: Option<i32>,
    /// System state.
    pub state: SystemState,
    /// Error code.
    pub code: ErrorCode,
    /// Where it comes from.
    pub origin: Origin,
    /// What was detected.
    pub detection: Detection,
    /// Details.
    pub message: String,
}

/// The health monitor of one run.
pub(crate) struct Hm {
    tables: HmTables,
    module: String,
    run: String,
    epoch: Arc<AtomicU64>,
    /// Set once the first major frame is scheduled (before: MODULE_INIT).
    started: AtomicBool,
    book: Mutex<Logbook>,
    /// Bumped whenever the supervisor has something to carry out.
    pub work: AtomicU32,
    module_request: AtomicU32,
    /// Events per partition.
    events: Vec<AtomicU64>,
    /// DEADLINE_MISSED events per partition (counted like `events`, past the rate limit).
    deadline_misses: Vec<AtomicU64>,
    /// `oom_kill` count of each partition's memory cgroup already accounted for.
    oom_seen: Vec<AtomicU64>,
    /// Per partition: (start of the current second, records in it).
    rate: Vec<Mutex<(u64, u64)>>,
    /// Events acted upon but not recorded (rate limit).
    suppressed: AtomicU64,
    /// Where handled events are recorded (a traced run).
    trace: std::sync::OnceLock<crate::trace::Recorder>,
}

/// Records per partition and second at most: a partition flooding its report channel or the
/// mailbox cannot flood the logbook. Events beyond are still acted upon, and counted.
pub const RECORDS_PER_SECOND: u64 = 200;

/// What a partition action does to a partition in life-cycle state `life`: the action
/// recorded, and the change asked for (none: unchanged). A partition whose process is gone cannot
/// be ignored: IGNORE leaves it IDLE. An IDLE partition stays IDLE (a late record of a
/// stopped incarnation changes nothing).
pub(crate) fn plan_partition_action(
    life: Life,
    a: PartitionAction,
    origin: Origin,
) -> (Action, Option<Change>) {
    let dead = life == Life::Dead || origin == Origin::PartitionDied;
    let action = match a {
        PartitionAction::Ignore if dead => Action::Idle,
        PartitionAction::Ignore => return (Action::Ignore, None),
        PartitionAction::Idle => Action::Idle,
        PartitionAction::ColdStart => Action::ColdStart,
        PartitionAction::WarmStart => Action::WarmStart,
    };
    if life == Life::Idle {
        return (Action::Idle, None);
    }
    let mode = match action {
        Action::Idle => return (action, Some(Change::Idle)),
        Action::ColdStart => OperatingMode::ColdStart,
        _ => OperatingMode::WarmStart,
    };
    let condition = StartCondition::HmPartitionRestart;
    (action, Some(Change::Restart { mode, condition }))
}

/// The health-monitor part of the run report.
#[derive(Debug, Clone, Serialize)]
pub struct HmReport {
    /// Logbook counters.
    pub status: LogStatus,
    /// Records still in memory (all of them unless `status.evicted > 0`).
    pub records: Vec<LogRecord>,
    /// The log file, if any.
    pub log_file: Option<String>,
    /// Last error writing the log file.
    pub log_file_error: Option<String>,
    /// Module RESETs carried out.
    pub module_resets: u32,
    /// The health monitor shut the module down (CLI exit code 7).
    pub shutdown: bool,
    /// Events acted upon but not recorded: a partition exceeded [`RECORDS_PER_SECOND`].
    pub suppressed: u64,
}

impl Hm {
    /// A health monitor with `tables`, appending to `log` if given.
    pub fn new(
        tables: HmTables,
        module: &str,
        run: &str,
        parts: usize,
        epoch: Arc<AtomicU64>,
        log: Option<&Path>,
    ) -> std::io::Result<Hm> {
        Ok(Hm {
            tables,
            module: module.to_string(),
            run: run.to_string(),
            epoch,
            started: AtomicBool::new(false),
            book: Mutex::new(Logbook::open(log)?),
            work: AtomicU32::new(0),
            module_request: AtomicU32::new(MODULE_NONE),
            events: (0..parts).map(|_| AtomicU64::new(0)).collect(),
            deadline_misses: (0..parts).map(|_| AtomicU64::new(0)).collect(),
            oom_seen: (0..parts).map(|_| AtomicU64::new(0)).collect(),
            rate: (0..parts).map(|_| Mutex::new((0, 0))).collect(),
            suppressed: AtomicU64::new(0),
            trace: std::sync::OnceLock::new(),
        })
    }

    /// Records every event it handles into `rec` (a traced run).
    pub(crate) fn set_trace(&self, rec: crate::trace::Recorder) {
        let _ = self.trace.set(rec);
    }

    /// The schedule has started (errors are no longer in MODULE_INIT).
    pub fn set_started(&self) {
        self.started.store(true, Ordering::Release);
    }

    /// Whether the schedule has started.
    pub fn started(&self) -> bool {
        self.started.load(Ordering::Acquire)
    }

    /// An ILLEGAL_REQUEST of partition `caller`: a request it is not allowed to make, refused
    /// by the manager (`message` says which).
    pub fn refused_request<P: LifeCycle + ?Sized>(
        &self,
        parts: &[Arc<P>],
        caller: usize,
        message: String,
    ) -> Option<LogRecord> {
        let state = state_of(self, &*parts[caller], None);
        self.raise(
            parts,
            Detected {
                partition: Some(caller),
                process: None,
                state,
                code: partita_config::model::ErrorCode::IllegalRequest,
                origin: table::Origin::Refused,
                detection: logbook::Detection::IllegalCall,
                message,
            },
        )
    }

    /// Records `d`, decides and sets the action in motion. Returns the record, or `None` when
    /// the partition's record rate is exceeded (the action is still carried out; counted).
    pub fn raise<P: LifeCycle + ?Sized>(&self, parts: &[Arc<P>], d: Detected) -> Option<LogRecord> {
        let lookup = table::decide(&self.tables, d.state, d.code, d.partition, d.origin);
        let part = d.partition.and_then(|i| parts.get(i));
        let action = match lookup.decision {
            Decision::Process => Action::ErrorHandler,
            Decision::Partition(a) => match part {
                Some(p) => self.partition_action(&**p, a, d.origin),
                None => Action::Ignore,
            },
            Decision::Module(ModuleAction::Ignore) => Action::Ignore,
            Decision::Module(ModuleAction::Shutdown) => {
                self.request_module(MODULE_SHUTDOWN);
                Action::Shutdown
            }
            Decision::Module(ModuleAction::Reset) => {
                self.request_module(MODULE_RESET);
                Action::Reset
            }
        };
        if let Some(t) = self.trace.get() {
            let e = partita_abi::trace::Event::new(
                partita_sys::time::monotonic_ns(),
                partita_abi::trace::EventKind::HealthMonitor,
                u64::from(d.code.raw()),
                [u64::from(lookup.level.raw()), u64::from(action.raw()), 0, 0],
            )
            .of_partition(d.partition.map_or(
                partita_abi::trace::NO_PARTITION,
                crate::trace::partition_field,
            ))
            .of_process(d.process.unwrap_or(partita_abi::trace::NO_PROCESS));
            t.record(e);
        }
        if let Some(i) = d.partition {
            if let Some(c) = self.events.get(i) {
                c.fetch_add(1, Ordering::Relaxed);
            }
            if d.code == ErrorCode::DeadlineMissed {
                if let Some(c) = self.deadline_misses.get(i) {
                    c.fetch_add(1, Ordering::Relaxed);
                }
            }
            if !self.admit(i) {
                self.suppressed.fetch_add(1, Ordering::Relaxed);
                return None;
            }
        }
        let epoch = self.epoch.load(Ordering::Relaxed);
        let now = partita_sys::time::monotonic_ns();
        let mut book = self.book.lock().expect("logbook");
        let rec = LogRecord {
            v: LOG_FORMAT_VERSION,
            seq: book.next_seq(),
            run: self.run.clone(),
            module: self.module.clone(),
            time_ns: (now as i128 - epoch as i128) as i64,
            unix_ns: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64),
            partition: part.map(|p| p.name().to_string()),
            partition_id: part.map(|p| p.id()),
            process: d.process,
            state: d.state,
            state_number: d.state.raw(),
            code: d.code,
            code_value: d.code.raw(),
            identifier: lookup.identifier,
            detection: d.detection,
            level: lookup.level,
            action,
            configured: lookup.level_configured || lookup.action_configured,
            message: d.message,
        };
        book.push(rec.clone());
        Some(rec)
    }

    /// Carries out a partition action (the supervisor kills / re-spawns; see
    /// [`plan_partition_action`]).
    fn partition_action(
        &self,
        p: &(impl LifeCycle + ?Sized),
        a: PartitionAction,
        origin: Origin,
    ) -> Action {
        let mut action = Action::Ignore;
        let changed = p.change(&mut |life, _| {
            let (planned, change) = plan_partition_action(life, a, origin);
            action = planned;
            change
        });
        if changed {
            self.work.fetch_add(1, Ordering::AcqRel);
        }
        action
    }

    /// Whether an event of partition `i` may be recorded now: at most
    /// [`RECORDS_PER_SECOND`] per partition and second; the others are counted.
    fn admit(&self, i: usize) -> bool {
        let Some(rate) = self.rate.get(i) else {
            return true;
        };
        let now = partita_sys::time::monotonic_ns();
        let mut r = rate.lock().expect("rate");
        if now.saturating_sub(r.0) >= 1_000_000_000 {
            *r = (now, 0);
        }
        r.1 += 1;
        r.1 <= RECORDS_PER_SECOND
    }

    fn request_module(&self, what: u32) {
        // SHUTDOWN wins over RESET.
        let _ = self
            .module_request
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |cur| {
                (cur != MODULE_SHUTDOWN).then_some(what)
            });
        self.work.fetch_add(1, Ordering::AcqRel);
    }

    /// Whether a module SHUTDOWN was decided.
    pub fn shutdown_requested(&self) -> bool {
        self.module_request.load(Ordering::Acquire) == MODULE_SHUTDOWN
    }

    /// Takes a pending module RESET.
    pub fn take_reset(&self) -> bool {
        self.module_request
            .compare_exchange(
                MODULE_RESET,
                MODULE_NONE,
                Ordering::AcqRel,
                Ordering::Acquire,
            )
            .is_ok()
    }

    /// Events recorded for partition `i`.
    pub fn events_of(&self, i: usize) -> u64 {
        self.events.get(i).map_or(0, |c| c.load(Ordering::Relaxed))
    }

    /// DEADLINE_MISSED events recorded for partition `i`.
    pub fn deadline_misses_of(&self, i: usize) -> u64 {
        self.deadline_misses
            .get(i)
            .map_or(0, |c| c.load(Ordering::Relaxed))
    }

    /// Events raised so far: recorded in the logbook, or suppressed by the rate limit.
    pub fn raised(&self) -> u64 {
        self.status().total + self.suppressed.load(Ordering::Relaxed)
    }

    /// Logbook counters.
    pub fn status(&self) -> LogStatus {
        self.book.lock().expect("logbook").status()
    }

    /// A copy of record `seq`, if still in memory.
    pub fn record(&self, seq: u64) -> Option<LogRecord> {
        self.book.lock().expect("logbook").get(seq).cloned()
    }

    /// New OOM kills in partition `i`'s memory cgroup since the last call, given its
    /// `(oom_kill count, memory.failcnt)` now (`Partition::memory_kills`): (new kills, failcnt).
    pub fn new_oom_kills(&self, i: usize, (kills, failcnt): (u64, u64)) -> Option<(u64, u64)> {
        let seen = self.oom_seen.get(i)?.swap(kills, Ordering::AcqRel);
        (kills > seen).then_some((kills - seen, failcnt))
    }

    /// The report part.
    pub fn report(&self, log_file: Option<&Path>, module_resets: u32) -> HmReport {
        let book = self.book.lock().expect("logbook");
        HmReport {
            status: book.status(),
            records: book.records(),
            log_file: log_file.map(|p| p.display().to_string()),
            log_file_error: book.last_file_error(),
            module_resets,
            shutdown: self.shutdown_requested(),
            suppressed: self.suppressed.load(Ordering::Relaxed),
        }
    }
}

/// The system state of partition `p` for an error of `process` (as in report records: -1 the
/// main process, -2 the error handler): MODULE_INIT before the first major frame, ERROR_HANDLER
/// for the handler, PARTITION_INIT while the partition is in COLD_START/WARM_START (or for its
/// main process), PROCESS_EXECUTION in NORMAL mode.
pub(crate) fn state_of(
    hm: &Hm,
    p: &(impl LifeCycle + ?Sized),
    process: Option<i32>,
) -> SystemState {
    if !hm.started() {
        return SystemState::ModuleInit;
    }
    match process {
        Some(ERROR_HANDLER_PROCESS_ID) => return SystemState::ErrorHandler,
        Some(MAIN_PROCESS_ID) => return SystemState::PartitionInit,
        _ => {}
    }
    match p.published_mode() {
        Ok(OperatingMode::Normal) => SystemState::ProcessExecution,
        _ => SystemState::PartitionInit,
    }
}

/// Classifies the end of a partition's Linux process.
/// SIGSEGV/SIGBUS → MEMORY_VIOLATION, SIGFPE → NUMERIC_ERROR, SIGILL → HARDWARE_FAULT,
/// SIGSYS (a forbidden system call under the seccomp filter) → ILLEGAL_REQUEST, an exit
/// status → APPLICATION_ERROR (the application ended itself), any other signal (SIGKILL from
/// outside, SIGABRT, ...) → HARDWARE_FAULT.
pub(crate) fn classify_exit(how: ExitKind) -> ErrorCode {
    match fault(how) {
        Some(code) => code,
        None if matches!(how, ExitKind::Exited(_)) => ErrorCode::ApplicationError,
        None => ErrorCode::HardwareFault,
    }
}

/// The error a fault signal names by itself (none for an exit or a signal sent from
/// outside).
fn fault(how: ExitKind) -> Option<ErrorCode> {
    use partita_sys::proc::{SIGBUS, SIGFPE, SIGILL, SIGSEGV, SIGSYS};
    let ExitKind::Signaled(s) = how else {
        return None;
    };
    match s {
        _ if s == SIGSEGV || s == SIGBUS => Some(ErrorCode::MemoryViolation),
        _ if s == SIGFPE => Some(ErrorCode::NumericError),
        _ if s == SIGILL => Some(ErrorCode::HardwareFault),
        _ if s == SIGSYS => Some(ErrorCode::IllegalRequest),
        _ => None,
    }
}

/// What the module log adds to the death of a partition's process: the error its signal
/// names, or MEMORY_VIOLATION for a SIGKILL while its memory cgroup counts `oom_kills`
/// (none for an exit or another signal).
pub(crate) fn death_note(how: ExitKind, oom_kills: u64) -> Option<String> {
    let memory_limit = how == ExitKind::Signaled(partita_sys::proc::SIGKILL) && oom_kills > 0;
    if memory_limit {
        return Some(format!(
            "{} (memory limit exceeded)",
            ErrorCode::MemoryViolation.name()
        ));
    }
    let code = fault(how)?;
    Some(if code == ErrorCode::IllegalRequest {
        format!("{} (a forbidden system call)", code.name())
    } else {
        code.name().to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The change an HM partition restart in `mode` asks for.
    fn restart(mode: OperatingMode) -> Change {
        Change::Restart {
            mode,
            condition: StartCondition::HmPartitionRestart,
        }
    }

    #[test]
    fn partition_actions() {
        use PartitionAction as A;
        let live = Life::Live;
        let rt = Origin::PartitionRuntime;
        assert_eq!(
            plan_partition_action(live, A::Ignore, rt),
            (Action::Ignore, None)
        );
        assert_eq!(
            plan_partition_action(live, A::Idle, rt),
            (Action::Idle, Some(Change::Idle))
        );
        assert_eq!(
            plan_partition_action(live, A::ColdStart, rt),
            (Action::ColdStart, Some(restart(OperatingMode::ColdStart)))
        );
        assert_eq!(
            plan_partition_action(Life::Dead, A::WarmStart, Origin::PartitionDied),
            (Action::WarmStart, Some(restart(OperatingMode::WarmStart)))
        );
        // A dead partition cannot be ignored.
        assert_eq!(
            plan_partition_action(Life::Dead, A::Ignore, Origin::PartitionDied),
            (Action::Idle, Some(Change::Idle))
        );
        // IDLE stays IDLE; a pending restart can be overridden.
        assert_eq!(
            plan_partition_action(Life::Idle, A::ColdStart, rt),
            (Action::Idle, None)
        );
        assert_eq!(
            plan_partition_action(Life::RestartPending(OperatingMode::ColdStart), A::Idle, rt),
            (Action::Idle, Some(Change::Idle))
        );
    }

    #[test]
    fn exit_classification() {
        assert_eq!(
            classify_exit(ExitKind::Signaled(11)),
            ErrorCode::MemoryViolation
        );
        assert_eq!(
            classify_exit(ExitKind::Signaled(7)),
            ErrorCode::MemoryViolation
        );
        assert_eq!(
            classify_exit(ExitKind::Signaled(8)),
            ErrorCode::NumericError
        );
        assert_eq!(
            classify_exit(ExitKind::Signaled(4)),
            ErrorCode::HardwareFault
        );
        assert_eq!(
            classify_exit(ExitKind::Signaled(31)),
            ErrorCode::IllegalRequest
        );
        assert_eq!(
            classify_exit(ExitKind::Signaled(9)),
            ErrorCode::HardwareFault
        );
        assert_eq!(
            classify_exit(ExitKind::Exited(3)),
            ErrorCode::ApplicationError
        );
    }

    #[test]
    fn deaths_map_to_notes() {
        use partita_sys::proc::{SIGKILL, SIGSEGV, SIGSYS};
        assert_eq!(
            death_note(ExitKind::Signaled(SIGSYS), 0).as_deref(),
            Some("ILLEGAL_REQUEST (a forbidden system call)")
        );
        assert_eq!(
            death_note(ExitKind::Signaled(SIGSEGV), 0).as_deref(),
            Some("MEMORY_VIOLATION")
        );
        assert_eq!(death_note(ExitKind::Signaled(SIGKILL), 0), None);
        assert_eq!(
            death_note(ExitKind::Signaled(SIGKILL), 1).as_deref(),
            Some("MEMORY_VIOLATION (memory limit exceeded)")
        );
        assert_eq!(death_note(ExitKind::Exited(0), 3), None);
    }
}
