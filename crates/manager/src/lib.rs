// SPDX-License-Identifier: MIT OR Apache-2.0
//! The Partita partition manager.
//!
//! [`run`] takes a [`partita_config::CompiledPlan`] (compiled from a configuration file, or
//! built in code with [`partita_config::PlanBuilder`] by a benchmark) and runs it: every
//! partition becomes a Linux process in its own namespaces and cgroups, held stopped outside
//! its windows by the chosen [`Backend`], while one scheduler thread per core walks the cyclic
//! schedule on absolute deadlines. Every part of the manager reads that one plan; what it
//! derives from it (a partition's cores, its initial timing) are methods of the plan.
//!
//! Thread model of the manager process:
//! - the calling thread is the *supervisor*: it spawns the partitions, waits for signals,
//!   reaps children, carries out restarts, and shuts everything down;
//! - one *scheduler* thread per core of the plan, pinned to that core at `SCHED_FIFO`
//!   [`SCHEDULER_PRIORITY`], sleeps until the next boundary and switches partitions;
//! - one *output* thread collects the partitions' stdout, stderr and report channel.
//!
//! Reading order, top down:
//! 1. `supervisor`: [`run`] from start to report: set-up, the supervision loop (deaths,
//!    limits, restarts, schedule switches), and the report.
//! 2. `run`: the run as one value: what set-up creates, the start of the scheduler threads,
//!    and the tear-down its drop performs.
//! 3. `partition`: the one owner of a partition's life cycle: cgroups and control block,
//!    spawn (held by the `backend` before its first window), kill and reap; `creation` and
//!    `service` are its per-partition threads. It implements `lifecycle::LifeCycle`, the
//!    narrow view (name, published mode, status, a requested IDLE or restart) through which
//!    `hm` and `output` reach a partition without depending on `partition`.
//! 4. `scheduler` (with `lead` and `msched`): the per-core threads that hold and release the
//!    partitions at their boundaries, and the switch between module schedules.
//! 5. `hm`: the health monitor: tables, logbook, actions, the extension-service mailbox.
//! 6. `output`: partition output, report channel and manager events; it gets plain data per
//!    partition (name, executable, counters, the pipes of each incarnation) and hands runtime
//!    records to `hm`.
//! 7. `trace` (with `ktrace`): recording the run for `--trace`: the rings, the drain
//!    thread, the file header, the kernel's scheduling events.
//! 8. Plain-data helpers the others call: `isolation` (limits, confinement, watchdogs on a
//!    partition's cgroups), `ports` and `bridge` (channels and pseudo-partitions), `traffic`,
//!    `raise` (the priority broker on a control block), `host`, `rundir` (the partitions'
//!    directories on the host), `reclaim`, `corelock`,
//!    `report` and `stats`.

mod backend;
mod bridge;
mod corelock;
mod creation;
mod general;
pub mod hm;
mod host;
mod isolation;
mod ktrace;
mod lead;
mod lifecycle;
mod msched;
mod output;
mod partition;
mod ports;
mod progress;
mod raise;
mod reclaim;
mod report;
pub mod rtbudget;
mod run;
pub mod rundir;
mod scheduler;
mod service;
pub mod stats;
mod supervisor;
mod trace;
mod traffic;

pub use backend::{Backend, BackendChoice, UnknownBackend};
pub use general::NetworkSetupError;
pub use hm::HmReport;
pub use host::HostInfo;
pub use ktrace::KernelTraceError;
pub use msched::{ScheduleSwitch, WindowStart};
pub use progress::{Progress, ProgressSnapshot, TraceProgress};
pub use reclaim::{reclaim_dead_runs, Reclaimed};
pub use report::{Concern, CoreReport, Finding, Note, NoteKind, PartitionReport, RunReport};
pub use rtbudget::RtBudget;
pub use supervisor::run;
pub use trace::{TraceOptions, TraceReport, DEFAULT_TRACE_BUFFER};
pub use traffic::ChannelTraffic;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// The manager's events (the module log) in a run's `--log-dir`: `<dir>/module.log`.
pub fn module_log(log_dir: &Path) -> PathBuf {
    log_dir.join("module.log")
}

/// Partition `name`'s output in a run's `--log-dir`: `<dir>/partitions/<name>.log` (the name
/// made safe for a file name). Partition logs live in a directory of their own, so that no
/// partition name, `module` included, can make its log one of the manager's files.
pub fn partition_log(log_dir: &Path, name: &str) -> PathBuf {
    partition_logs(log_dir).join(format!("{}.log", partition::sanitize(name)))
}

/// The directory of the partition logs in a run's `--log-dir`: `<dir>/partitions`.
pub fn partition_logs(log_dir: &Path) -> PathBuf {
    log_dir.join("partitions")
}

/// `SCHED_FIFO` priority of the scheduler threads: above every partition thread.
pub const SCHEDULER_PRIORITY: i32 = 90;
/// `SCHED_FIFO` priority of a running APEX process (the runtime's timer thread runs one above,
/// a preempted process runs [`PARTITION_PARKED_PRIORITY`]).
pub const PARTITION_RUN_PRIORITY: i32 = 20;
/// `SCHED_FIFO` priority of a ready but preempted APEX process.
pub const PARTITION_PARKED_PRIORITY: i32 = 10;

/// How to run a module.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Partition-switch backend.
    pub backend: BackendChoice,
    /// Stop after this long (from the first major frame); `None`: until a signal.
    pub duration: Option<Duration>,
    /// Keep the manager's events in `module.log` and each partition's output in
    /// `partitions/<name>.log` in this directory ([`module_log`], [`partition_log`]).
    pub log_dir: Option<PathBuf>,
    /// Echo partition output, prefixed with the partition name, on stdout.
    pub echo: bool,
    /// Create PID, mount, IPC, network and UTS namespaces for each partition.
    pub namespaces: bool,
    /// Use real-time priorities (scheduler threads and partitions) when the host allows.
    pub realtime: bool,
    /// A window end overrun larger than this is counted as an overrun.
    pub overrun_tolerance: Duration,
    /// Handle SIGINT/SIGTERM (block them and stop cleanly). Only for the process's main thread.
    pub handle_signals: bool,
    /// Set to `true` from elsewhere to stop the module.
    pub stop: Option<Arc<AtomicBool>>,
    /// Extra environment variables for every partition.
    pub env: Vec<(String, String)>,
    /// With real-time priorities: wake at most this long before each boundary and spin until
    /// it, so timer latency does not delay the switch (the previous partition loses at most
    /// this much of its window). How long within it is learnt (`learn_wake_latency`). Zero:
    /// plain absolute sleeps.
    pub spin_margin: Duration,
    /// Wake before each boundary by a low quantile of the scheduler's recent wake-up latency
    /// (at most `spin_margin`) instead of the whole spin margin, and let the wake guard react
    /// only to lateness while the leaving partition had the CPU (docs/window-start-timing.md).
    /// `false` (`partita run --fixed-spin-margin`): the whole margin every boundary, and every
    /// late wake-up feeds the guard, as before.
    pub learn_wake_latency: bool,
    /// What to do with the kernel's real-time throttling budget for the run
    /// (`partita run --rt-budget`, docs/window-start-timing.md).
    pub rt_budget: RtBudget,
    /// Append the health monitor's logbook records to this file (JSON lines).
    pub hm_log: Option<PathBuf>,
    /// Simulate a power failure this long after the first major frame (POWER_FAIL).
    pub power_fail_at: Option<Duration>,
    /// Window starts each scheduler thread keeps for the report (`RunReport::window_trace`);
    /// later ones are only counted.
    pub window_trace: usize,
    /// Load the seccomp filter into every partition (see `docs/seccomp.md`).
    pub seccomp: bool,
    /// Record the run into a trace file (`partita run --trace`, see `docs/tracing.md`).
    pub trace: Option<TraceOptions>,
    /// Pin every scheduler thread to this core instead of the core whose windows it switches
    /// (the partition scheduler on a core of its own, as in the seed study's Figure 16).
    /// `None`: each scheduler thread runs on its own partitions' core.
    pub scheduler_core: Option<u32>,
    /// Live counters to update while the module runs (`partita run`'s status line), and the
    /// status line echoed output clears first.
    pub progress: Option<Arc<Progress>>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            backend: BackendChoice::Auto,
            duration: None,
            log_dir: None,
            echo: true,
            namespaces: true,
            realtime: true,
            overrun_tolerance: Duration::from_micros(100),
            handle_signals: false,
            stop: None,
            env: Vec::new(),
            spin_margin: Duration::from_micros(80),
            learn_wake_latency: true,
            rt_budget: RtBudget::Keep,
            hm_log: None,
            power_fail_at: None,
            window_trace: 4096,
            seccomp: true,
            trace: None,
            scheduler_core: None,
            progress: None,
        }
    }
}

/// Why a module could not be run.
#[derive(Debug, thiserror::Error)]
pub enum ManagerError {
    /// The plan cannot be run as given.
    #[error("invalid plan: {0}")]
    InvalidPlan(#[from] partita_config::Inconsistency),
    /// A pseudo-partition's UDP host name has no address.
    #[error("{host}:{port} has no address")]
    NoAddress {
        /// The host name.
        host: String,
        /// The UDP port.
        port: u16,
    },
    /// The requested backend is not available on this host.
    #[error("backend {backend} is not available: {reason}")]
    BackendUnavailable {
        /// The backend.
        backend: String,
        /// Why.
        reason: String,
    },
    /// A system call failed while setting up or running.
    #[error(transparent)]
    Sys(#[from] partita_sys::SysError),
    /// Writing logs failed.
    #[error("log directory {path}: {source}")]
    Log {
        /// The path.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The trace file could not be created.
    #[error("trace: {0}")]
    Trace(#[from] partita_trace::TraceError),
    /// The real-time budget asked for (`--rt-budget`) could not be set.
    #[error("real-time budget: {0}")]
    RtBudget(#[from] crate::rtbudget::RtBudgetError),
    /// A general-purpose partition's network could not be set up.
    #[error("network of partition {partition}: {step}: {source}")]
    Network {
        /// The partition.
        partition: String,
        /// What was being set up (loopback, veth pair, addresses).
        step: String,
        /// What failed.
        #[source]
        source: NetworkSetupError,
    },
    /// The trace ring size is not a power of two in range.
    #[error("trace buffer of {0} events: not a power of two between 16 and {max}", max = partita_abi::trace::MAX_CAPACITY)]
    TraceBuffer(u32),
}

#[cfg(test)]
mod log_dir_tests {
    use super::*;

    #[test]
    fn no_partition_name_makes_its_log_one_of_the_managers_files() {
        let dir = Path::new("/logs");
        for name in [
            "module",
            "hm",
            "partitions",
            "..",
            "../module",
            "a/b",
            "module.log",
        ] {
            let log = partition_log(dir, name);
            assert_eq!(log.parent(), Some(partition_logs(dir).as_path()), "{name}");
            assert_ne!(log, module_log(dir), "{name}");
        }
        assert_eq!(
            partition_log(dir, "NAV"),
            Path::new("/logs/partitions/NAV.log")
        );
        assert_eq!(module_log(dir), Path::new("/logs/module.log"));
    }
}
