// SPDX-License-Identifier: MIT OR Apache-2.0
//! Benchmarks of Partita against the bare kernel mechanisms.
//!
//! `partita bench switch` ([`run_switch`]) measures, for every partition-switch backend, the
//! timer lateness at window boundaries, the delay from a window start to the first instruction
//! of the entering partition, and the time the leaving partition runs past its window end,
//! with 1 to 64 APEX processes per partition, and the same figures of a minimal switching loop
//! that drives the kernel mechanism alone. See `docs/benchmarks.md`.
//!
//! `partita bench felt` ([`run_felt`]) measures what an application inside a partition feels
//! of a switch: dead time from the leaving partition's last instruction to the entering one's
//! first, the usable part of each window, release and TIMED_WAIT lateness inside the
//! partition and the time lost to real-time throttling, beside the bare mechanism.
//!
//! `partita bench apex` ([`run_apex`]) and `partita bench ports` ([`run_ports`]) measure the
//! APEX services and the ports the same way, each against its bare floor.
//!
//! This crate is the host side: it builds the benchmark modules, runs them with the partition
//! manager and turns what the partitions measured into figures. It links no partition code.
//! The measuring processes are executables of their own (`partita-bench-partitions`), found by
//! [`partition_executable`] next to the running executable; what they share with this side
//! (command lines, the gap log, the result files) is defined once in `partita-bench-protocol`.

mod all;
mod analysis;
mod apex;
mod bare;
mod executables;
mod felt;
mod interference;
mod kvm;
mod overheads;
mod ports;
mod render;
mod run;
mod scaling;
mod sfp;
mod slots;
mod soak;
mod stats;
mod switch;

pub use all::{index_html, index_markdown, run_all, AllEntry, AllIndex, ALL_COUNT};
pub use analysis::Counts;
pub use apex::{
    render_apex, run_apex, ApexCheck, ApexOptions, ApexPlan, ApexReport, HandoffFigures,
    ServiceFigures,
};
pub use executables::{partition_executable, PARTITIONS_DIR_ENV};
pub use felt::{
    render_felt, run_felt, FeltCheck, FeltCounts, FeltOptions, FeltPlan, FeltReport, FeltSection,
    Holes, Usable, PEERS,
};
pub use interference::{
    interference_figures, render_interference, run_interference, InterferenceOptions,
    InterferenceReport, InterferenceRun, Placement as InterferencePlacement, SeedForm, Target,
};
pub use kvm::{render_kvm, run_kvm, KvmOptions, KvmReport, KVM_GUESTS_DIR_ENV};
pub use overheads::{
    overheads_figures, render_overheads, run_overheads, Distribution, MatchCounts,
    OverheadsOptions, OverheadsPlan, OverheadsReport, OverheadsSection, Placement, Published,
    TaskFigures, PUBLISHED,
};
pub use ports::{render_ports, run_ports, PortRow, PortsCheck, PortsOptions, PortsReport};
pub use render::render;
pub use scaling::{
    render_scaling, run_scaling, scaling_figures, ScalingOptions, ScalingReport, StartupPoint,
    SwitchPoint,
};
pub use sfp::{
    render_sfp, run_sfp, SfpFigures, SfpOptions, SfpPublished, SfpReport, SfpRowFigures,
    SFP_PUBLISHED,
};
pub use slots::{
    render_slots, run_slots, slots_figures, SlotPoint, SlotsOptions, SlotsReport, XTRATUM_TABLE_4,
};
pub use soak::{render_soak, run_soak, write_soak, SoakOptions, SoakReport};
pub use stats::Figures;
pub use switch::{
    run_switch, Check, Machine, PlanInfo, Provenance, ReportHead, Section, SwitchOptions,
    SwitchReport,
};

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Why a benchmark could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A system call failed.
    #[error(transparent)]
    Sys(#[from] partita_sys::SysError),
    /// The partition manager failed.
    #[error(transparent)]
    Manager(#[from] partita_manager::ManagerError),
    /// The module a benchmark built is not a valid plan.
    #[error("benchmark module: {0}")]
    Plan(#[from] partita_config::Inconsistency),
    /// The gap log of `bench switch`.
    #[error(transparent)]
    Log(#[from] partita_bench_protocol::gap_log::LogError),
    /// A benchmark executable is not where the bench looks for it.
    #[error(
        "{}: no such benchmark executable; build it with `cargo build -p partita-bench-partitions` \
         (with the profile `partita` was built with, e.g. `--release`), or set {} to the \
         directory holding the benchmark executables",
        path.display(),
        executables::PARTITIONS_DIR_ENV
    )]
    MissingExecutable {
        /// Where it was looked for.
        path: PathBuf,
    },
    /// A guest executable of `bench kvm` is not where the bench looks for it.
    #[error(
        "{}: no such KVM guest; build the guests with `cargo build --release --target-dir \
         ../../target/kvm-guest` in crates/kvm-guest (the kvm tests do), or set {} to the \
         directory holding them",
        path.display(),
        kvm::KVM_GUESTS_DIR_ENV
    )]
    MissingKvmGuest {
        /// Where it was looked for.
        path: PathBuf,
    },
    /// A guest executable of `bench kvm` is not a guest image.
    #[error("{}: {source}", path.display())]
    KvmImage {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: partita_kvm::ImageError,
    },
    /// The KVM monitor failed.
    #[error(transparent)]
    Kvm(Box<partita_kvm::VmError>),
    /// A `bench kvm` guest stopped in a way it is not written to.
    #[error("the {guest} guest: unexpected exit {exit}")]
    KvmExit {
        /// The guest.
        guest: &'static str,
        /// The exit.
        exit: String,
    },
    /// The thread that kicks the guests of `bench kvm` ended.
    #[error("the kick timer thread of bench kvm ended")]
    KvmTimer,
    /// The path of the running executable, next to which the benchmark executables are.
    #[error("the running executable: {0}")]
    OwnExecutable(#[source] std::io::Error),
    /// The benchmark needs root (cgroups, SCHED_FIFO).
    #[error("the benchmark needs root (cgroups, SCHED_FIFO)")]
    NotRoot,
    /// A backend (and so the bare floor of its kernel mechanism) is not available on this host.
    #[error("{backend} is not available: {why}")]
    BackendUnavailable {
        /// The backend.
        backend: partita_manager::Backend,
        /// What is missing.
        why: &'static str,
    },
    /// A benchmark partition wrote no result file.
    #[error("the partition {partition} wrote no results ({source}){}", stderr_tail(.stderr))]
    NoResult {
        /// The partition.
        partition: String,
        /// Reading the file.
        #[source]
        source: std::io::Error,
        /// The first lines it wrote to stderr, when known.
        stderr: Vec<String>,
    },
    /// A benchmark partition reports that its set-up failed.
    #[error("the partition {partition} failed: {message}")]
    PartitionFailed {
        /// The partition.
        partition: String,
        /// Its message.
        message: String,
    },
    /// A file could not be written or created.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// Stopped by SIGINT/SIGTERM.
    #[error("interrupted")]
    Interrupted,
    /// The soak's `partita run` could not be started or watched.
    #[error("the soak run: {0}")]
    Soak(#[source] std::io::Error),
    /// The soak's run ended before its first sample (the warm-up).
    #[error("no sample taken (the run ended before the warm-up)")]
    NoSample,
}

fn stderr_tail(lines: &[String]) -> String {
    if lines.is_empty() {
        String::new()
    } else {
        format!("; its stderr: {}", lines.join(" / "))
    }
}

/// A result file of a benchmark partition.
pub(crate) trait PartitionResult: serde::de::DeserializeOwned {
    /// The partition's set-up failure, if any.
    fn error(&self) -> Option<&str>;
}

impl PartitionResult for partita_bench_protocol::apex::ApexResult {
    fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }
}

impl PartitionResult for partita_bench_protocol::overheads::OverheadsResult {
    fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }
}

impl PartitionResult for partita_bench_protocol::sfp::SfpResult {
    fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }
}

impl PartitionResult for partita_bench_protocol::interference::InterferenceResult {
    fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }
}

impl PartitionResult for partita_bench_protocol::slots::SlotsResult {
    fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }
}

impl PartitionResult for partita_bench_protocol::ports::PortsResult {
    fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }
}

/// Reads the result file `path` of `partition`; `stderr` gives what the partition wrote to
/// its stderr, for the error when there is no file.
pub(crate) fn read_result<T: PartitionResult>(
    partition: &str,
    path: &Path,
    stderr: impl FnOnce() -> Vec<String>,
) -> Result<T, BenchError> {
    let text = std::fs::read_to_string(path).map_err(|source| BenchError::NoResult {
        partition: partition.to_string(),
        source,
        stderr: stderr(),
    })?;
    let r: T = serde_json::from_str(&text).map_err(|e| BenchError::Io {
        path: path.to_path_buf(),
        source: e.into(),
    })?;
    if let Some(message) = r.error() {
        return Err(BenchError::PartitionFailed {
            partition: partition.to_string(),
            message: message.to_string(),
        });
    }
    Ok(r)
}

/// Removes a result file (and its temporary) on drop.
pub(crate) struct RemoveFile(pub PathBuf);

impl Drop for RemoveFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
        let _ = std::fs::remove_file(self.0.with_extension("tmp"));
    }
}

/// A tag unique to this process and instant, for the files and directories of one run.
pub(crate) fn run_tag() -> String {
    format!(
        "{}-{}",
        partita_sys::sched::getpid(),
        partita_sys::time::monotonic_ns()
    )
}

/// `n` result files of one run of `bench` under `/dev/shm`, named `...-<tag>-<i>.json`,
/// removed on drop.
pub(crate) fn result_files(bench: &str, tag: &str, n: usize) -> Vec<RemoveFile> {
    (0..n)
        .map(|i| {
            RemoveFile(PathBuf::from(format!(
                "/dev/shm/partita-bench-{bench}-{tag}-{i}.json"
            )))
        })
        .collect()
}

/// Removes a directory tree on drop.
pub(crate) struct RemoveDir(pub PathBuf);

impl Drop for RemoveDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes a report as JSON to `path` (creating its directory).
pub fn write_json(r: &impl serde::Serialize, path: &Path) -> Result<(), BenchError> {
    let io = |e| BenchError::Io {
        path: path.to_path_buf(),
        source: e,
    };
    if let Some(d) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).map_err(io)?;
    }
    let text = serde_json::to_string_pretty(r).map_err(|e| io(e.into()))?;
    std::fs::write(path, text + "\n").map_err(io)
}

/// What the command that ran a benchmark does with its report.
pub trait Report: serde::Serialize {
    /// The benchmark: `switch`, `apex` or `ports`.
    const BENCH: &'static str;

    /// The text the command prints.
    fn render(&self) -> String;

    /// Its SVG figures: (file name, text); none for a bench that draws nothing.
    fn figures(&self) -> Vec<(String, String)> {
        Vec::new()
    }
}

/// Writes `report` into the directory `dir` (created): `<bench>.json`, `<bench>.md` (the
/// rendered text) and its figures. Returns the files written.
pub fn write_report_dir<R: Report>(report: &R, dir: &Path) -> Result<Vec<PathBuf>, BenchError> {
    let json = dir.join(format!("{}.json", R::BENCH));
    write_json(report, &json)?;
    let mut files = vec![json];
    let mut texts = vec![(format!("{}.md", R::BENCH), report.render())];
    texts.extend(report.figures());
    for (name, text) in texts {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|source| BenchError::Io {
            path: path.clone(),
            source,
        })?;
        files.push(path);
    }
    Ok(files)
}

impl Report for SwitchReport {
    const BENCH: &'static str = "switch";

    fn render(&self) -> String {
        render(self)
    }
}

impl Report for FeltReport {
    const BENCH: &'static str = "felt";

    fn render(&self) -> String {
        render_felt(self)
    }
}

impl Report for ApexReport {
    const BENCH: &'static str = "apex";

    fn render(&self) -> String {
        render_apex(self)
    }
}

impl Report for OverheadsReport {
    const BENCH: &'static str = "overheads";

    fn render(&self) -> String {
        render_overheads(self)
    }

    fn figures(&self) -> Vec<(String, String)> {
        overheads_figures(self)
    }
}

impl Report for ScalingReport {
    const BENCH: &'static str = "scaling";

    fn render(&self) -> String {
        render_scaling(self)
    }

    fn figures(&self) -> Vec<(String, String)> {
        scaling_figures(self)
    }
}

impl Report for KvmReport {
    const BENCH: &'static str = "kvm";

    fn render(&self) -> String {
        render_kvm(self)
    }
}

impl Report for InterferenceReport {
    const BENCH: &'static str = "interference";

    fn render(&self) -> String {
        render_interference(self)
    }

    fn figures(&self) -> Vec<(String, String)> {
        interference_figures(self)
    }
}

impl Report for SlotsReport {
    const BENCH: &'static str = "slots";

    fn render(&self) -> String {
        render_slots(self)
    }

    fn figures(&self) -> Vec<(String, String)> {
        slots_figures(self)
    }
}

impl Report for SfpReport {
    const BENCH: &'static str = "sfp";

    fn render(&self) -> String {
        render_sfp(self)
    }
}

impl Report for PortsReport {
    const BENCH: &'static str = "ports";

    fn render(&self) -> String {
        render_ports(self)
    }
}

/// `bench-results/<bench>-<UTC timestamp>.json`, where the figures of `bench` go by default.
pub fn default_json_path(bench: &str) -> PathBuf {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    PathBuf::from(format!(
        "bench-results/{bench}-{y:04}{m:02}{d:02}T{:02}{:02}{:02}Z.json",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    ))
}

/// Runs `f` with SIGINT/SIGTERM turned into a stop flag, so that a bench interrupted by the
/// user still removes every process, cgroup and file it created.
pub fn with_stop_signals<T>(f: impl FnOnce(Arc<AtomicBool>) -> T) -> T {
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let signals = [2, 15];
    let watcher = partita_sys::proc::block_signals(&signals).ok().map(|()| {
        let (stop, done) = (stop.clone(), done.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Acquire) {
                if partita_sys::proc::wait_signal(&signals, 100_000_000).is_some() {
                    stop.store(true, Ordering::Release);
                }
            }
        })
    });
    let r = f(stop);
    done.store(true, Ordering::Release);
    if let Some(w) = watcher {
        let _ = w.join();
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_path_names_the_bench() {
        for bench in [SwitchReport::BENCH, ApexReport::BENCH, PortsReport::BENCH] {
            let p = default_json_path(bench);
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            assert!(
                p.starts_with("bench-results")
                    && name.starts_with(&format!("{bench}-"))
                    && name.ends_with("Z.json"),
                "{}",
                p.display()
            );
        }
    }
}
