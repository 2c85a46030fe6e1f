// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita bench switch`: partition-switch figures of every backend, against the bare kernel
//! mechanism measured in the same run.

use crate::analysis::{match_gaps, Counts, Geometry, Matched};
use crate::bare::{self, Rig};
use crate::run::{run_notes, run_until};
use crate::stats::{from_summary, Figures};
use crate::BenchError;
use partita_bench_protocol::args::SwitchPartitionArgs;
use partita_bench_protocol::gap_log::{status, LogFile, Slot};
use partita_config::{CompiledPartition, PlanBuilder};
use partita_manager::{Backend, BackendChoice, RunOptions};
use partita_schedule::{FramePlan, Window};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Window length of each of the two partitions.
const WINDOW_NS: u64 = 1_000_000;
/// Major frame: two windows and 500 us of idle time. Real-time throttling needs at least 5 % of
/// the core free of real-time work, and the switcher's spin margin and switch work are
/// real-time work: with 250 us of idle time the 64-process runs were throttled.
const MAJOR_FRAME_NS: u64 = 2_500_000;
/// Periodic processes are released this long after their window starts, so that at both
/// boundaries they sleep in PERIODIC_WAIT and the spinner is the process that runs.
const RELEASE_DELAY_NS: u64 = 200_000;
/// A gap longer than this is logged by the spinners.
const GAP_THRESHOLD_NS: i64 = 3_000;
/// A spinner whose last reading is this much earlier than the switch instant (boundary less
/// spin margin) was not running when the switch began.
const EARLY_SLACK_NS: i64 = 10_000;
/// Windows measured per partition: full run and `--quick`.
const FRAMES_FULL: u64 = 5_000;
const FRAMES_QUICK: u64 = 500;
/// Upper bound on the frames a run may need to start its spinners.
const STARTUP_FRAMES_MAX: u64 = 1_000;

/// What to run.
#[derive(Debug, Clone)]
pub struct SwitchOptions {
    /// 500 windows per partition instead of 5,000.
    pub quick: bool,
    /// Backends (and the matching bare mechanisms).
    pub backends: Vec<Backend>,
    /// APEX processes per partition.
    pub processes: Vec<u32>,
    /// The scheduler's spin margin (also used by the bare loop).
    pub spin_margin: Duration,
    /// Also measure 1 process per partition, and the bare mechanisms, without spin margin
    /// (with half as many windows).
    pub zero_margin: bool,
    /// Let the partition's main thread become the APEX timer thread before the spinner starts
    /// (see `partita_bench_partitions::switch::partition_main`); `false` reproduces the
    /// starved timer thread.
    pub timer_workaround: bool,
}

impl Default for SwitchOptions {
    fn default() -> Self {
        SwitchOptions {
            quick: false,
            backends: vec![Backend::Signals, Backend::FreezerV1, Backend::FreezerV2],
            processes: vec![1, 4, 16, 64],
            spin_margin: RunOptions::default().spin_margin,
            zero_margin: true,
            timer_workaround: std::env::var_os("PARTITA_BENCH_NO_TIMER_WORKAROUND").is_none(),
        }
    }
}

/// The machine the figures were taken on.
#[derive(Debug, Clone, Serialize)]
pub struct Machine {
    /// CPU model from `/proc/cpuinfo`.
    pub cpu_model: String,
    /// Online cores.
    pub cores: u32,
    /// Kernel release.
    pub kernel: String,
    /// `sched_rt_runtime_us` / `sched_rt_period_us`.
    pub rt_throttle: Option<(i64, i64)>,
    /// Clock source.
    pub clocksource: String,
}

/// The schedule every run uses.
#[derive(Debug, Clone, Serialize)]
pub struct PlanInfo {
    /// The core of both partitions (and of the switching thread).
    pub core: u32,
    /// Major frame, ns.
    pub major_frame_ns: u64,
    /// Windows: (partition, offset ns, duration ns).
    pub windows: Vec<(String, u64, u64)>,
    /// Windows measured per partition and run.
    pub windows_per_partition: u64,
    /// Release of the periodic processes after their window start, ns.
    pub release_delay_ns: u64,
    /// Gap threshold of the spinners, ns.
    pub gap_threshold_ns: i64,
    /// Priorities: scheduler / switching thread, partition run priority.
    pub scheduler_priority: i32,
    /// `SCHED_FIFO` priority of running partition threads and bare spinners.
    pub partition_priority: i32,
}

/// The figures of one run.
#[derive(Debug, Clone, Serialize)]
pub struct Section {
    /// `bare` (kernel mechanism alone) or `partita` (the partition manager).
    pub kind: &'static str,
    /// Backend, or mechanism for `bare`.
    pub backend: Backend,
    /// APEX processes per partition (`None` for bare: one plain process).
    pub processes: Option<u32>,
    /// Spin margin, ns.
    pub spin_margin_ns: u64,
    /// Windows measured (both partitions).
    pub windows: u64,
    /// TmrO: the switch start (after the spin) minus the boundary, ns.
    pub timer_lateness: Figures,
    /// Raw timer: wake-up minus the instant asked for (boundary less spin margin), ns.
    pub wake_lateness: Figures,
    /// Time the switcher spent holding and releasing, ns.
    pub switch_cost: Figures,
    /// First instruction of the entering partition minus its window start, ns.
    pub start_latency: Figures,
    /// Last instruction of the leaving partition minus its window end, ns (negative: it was
    /// preempted before the end, by the switcher waking a spin margin early).
    pub overrun: Figures,
    /// Matching counters.
    pub counts: Counts,
    /// Boundaries handled and missed by the switcher.
    pub boundaries: u64,
    /// Boundaries the switcher skipped.
    pub missed_boundaries: u64,
    /// Activations of the periodic processes.
    pub periodic_activations: u64,
    /// Manager's own overrun measure (CPU time used after the hold, from cpuacct), ns.
    pub cpuacct_overrun_max_ns: Option<u64>,
    /// Errors and remarks.
    pub notes: Vec<String>,
}

impl Section {
    /// A short label.
    pub fn label(&self) -> String {
        match self.processes {
            None => "bare".into(),
            Some(n) => format!("N={n}"),
        }
    }
}

/// One target check.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// Which target.
    pub target: &'static str,
    /// Backend.
    pub backend: Backend,
    /// Processes of the checked run.
    pub processes: u32,
    /// Spin margin, ns.
    pub spin_margin_ns: u64,
    /// Metric and statistic, e.g. `start_latency.p99`.
    pub figure: String,
    /// Our value, ns.
    pub value: i64,
    /// The reference (bare figure, 1-process figure, or the absolute limit), ns.
    pub reference: i64,
    /// Ratio value / reference when both are positive.
    pub ratio: Option<f64>,
    /// Met.
    pub pass: bool,
}

/// Everything `bench switch` measured.
#[derive(Debug, Clone, Serialize)]
pub struct SwitchReport {
    /// Report format.
    pub format: &'static str,
    /// Unix time of the start, s.
    pub started_unix: u64,
    /// Wall time of the whole bench, s.
    pub elapsed_s: f64,
    /// Machine.
    pub machine: Machine,
    /// `git rev-parse HEAD`, or `unknown`.
    pub git_revision: String,
    /// Whether the work tree had uncommitted changes to tracked files.
    pub git_dirty: Option<bool>,
    /// The schedule.
    pub plan: PlanInfo,
    /// Quick run.
    pub quick: bool,
    /// Every run, in the order made.
    pub sections: Vec<Section>,
    /// Target checks.
    pub checks: Vec<Check>,
}

struct Ctx {
    core: u32,
    frames: u64,
    timer_workaround: bool,
    stop: Arc<AtomicBool>,
    seq: AtomicU32,
}

impl Ctx {
    fn tag(&self) -> String {
        format!(
            "{}-{}",
            partita_sys::sched::getpid(),
            self.seq.fetch_add(1, Ordering::Relaxed)
        )
    }

    fn log(&self, frames: u64) -> Result<LogFile, BenchError> {
        let frames = frames + STARTUP_FRAMES_MAX;
        Ok(LogFile::create(
            PathBuf::from(format!("/dev/shm/partita-bench-{}", self.tag())),
            2,
            (frames * 32 + 4096) as usize,
        )?)
    }

    fn frame_plan(&self) -> FramePlan {
        let w = |id: u32, partition: usize, offset: u64| Window {
            id,
            partition,
            core: self.core,
            offset,
            duration: WINDOW_NS,
            period_start: true,
        };
        FramePlan {
            major_frame: MAJOR_FRAME_NS,
            windows: vec![w(1, 0, 0), w(2, 1, WINDOW_NS)],
        }
    }

    fn geometry(&self, slot: usize) -> Geometry {
        Geometry {
            major_frame: MAJOR_FRAME_NS as i64,
            offset: (slot as u64 * WINDOW_NS) as i64,
            duration: WINDOW_NS as i64,
        }
    }

    fn max_duration(&self, frames: u64) -> Duration {
        Duration::from_nanos(MAJOR_FRAME_NS * (frames + STARTUP_FRAMES_MAX))
    }
}

/// Whether both spinners have run `frames` (+ 1 %, + 4) frames past their start.
fn covered(log: &LogFile, frames: u64) -> bool {
    // 1 % more than asked: a few windows may be left out of the figures (see `Counts`).
    let need = ((frames + frames / 100 + 4) * MAJOR_FRAME_NS) as i64;
    let covered = |s: Slot<'_>| -> bool {
        let Some(t0) = s.started() else { return false };
        s.gaps().last().is_some_and(|g| g.1 - t0 >= need)
    };
    covered(log.slot(0)) && covered(log.slot(1))
}

/// Sets `run_stop` once [`covered`] (or when the bench is interrupted); returns when `done`
/// is set.
fn watch(
    log: &LogFile,
    frames: u64,
    global: &AtomicBool,
    run_stop: &AtomicBool,
    done: &AtomicBool,
) {
    while !done.load(Ordering::Acquire) {
        if global.load(Ordering::Relaxed) || covered(log, frames) {
            run_stop.store(true, Ordering::Release);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn matched(ctx: &Ctx, log: &LogFile, margin: u64, notes: &mut Vec<String>) -> (Matched, u64) {
    let mut all = Matched::default();
    let mut activations = 0;
    for slot in 0..2 {
        let s = log.slot(slot);
        activations += s.activations();
        let Some(t0) = s.started() else {
            notes.push(format!(
                "spinner {slot} never started (status {:#x})",
                s.status()
            ));
            continue;
        };
        let mut m = match_gaps(
            &s.gaps(),
            t0,
            ctx.geometry(slot),
            margin as i64 + EARLY_SLACK_NS,
        );
        m.counts.dropped_gaps = s.dropped();
        all.start.append(&mut m.start);
        all.overrun.append(&mut m.overrun);
        all.counts.add(&m.counts);
    }
    (all, activations)
}

fn run_bare(ctx: &Ctx, mech: Backend, margin: u64, frames: u64) -> Result<Section, BenchError> {
    let log = ctx.log(frames)?;
    let rig = Rig::start(mech, 2, ctx.core, log.path(), GAP_THRESHOLD_NS, &ctx.tag())?;
    let epoch = (partita_sys::time::monotonic_ns() + 20_000_000).div_ceil(1_000_000) * 1_000_000;
    for s in 0..2 {
        log.slot(s).set_epoch(epoch);
    }
    let end = epoch + ctx.max_duration(frames).as_nanos() as u64;
    let tl = ctx.frame_plan().core_timeline(ctx.core);
    let run_stop = AtomicBool::new(false);
    let done = AtomicBool::new(false);
    let st = std::thread::scope(|sc| {
        sc.spawn(|| watch(&log, frames, &ctx.stop, &run_stop, &done));
        let st = bare::run_loop(&rig, &tl, epoch, end, margin, &run_stop);
        done.store(true, Ordering::Release);
        st
    });
    drop(rig);
    if ctx.stop.load(Ordering::Relaxed) {
        return Err(BenchError::Interrupted);
    }
    let mut notes = st.errors.clone();
    if let Some(e) = &st.realtime {
        notes.push(format!("switching thread without SCHED_FIFO: {e}"));
    }
    let (mut m, _) = matched(ctx, &log, margin, &mut notes);
    Ok(Section {
        kind: "bare",
        backend: mech,
        processes: None,
        spin_margin_ns: margin,
        windows: m.start.len() as u64,
        timer_lateness: from_summary(&st.lateness.summary()),
        wake_lateness: from_summary(&st.wake_lateness.summary()),
        switch_cost: from_summary(&st.switch_cost.summary()),
        start_latency: Figures::of(&mut m.start),
        overrun: Figures::of(&mut m.overrun),
        counts: m.counts,
        boundaries: st.boundaries,
        missed_boundaries: st.missed,
        periodic_activations: 0,
        cpuacct_overrun_max_ns: None,
        notes,
    })
}

pub(crate) fn backend_choice(m: Backend) -> BackendChoice {
    match m {
        Backend::Signals => BackendChoice::Signals,
        Backend::FreezerV1 => BackendChoice::FreezerV1,
        Backend::FreezerV2 => BackendChoice::FreezerV2,
    }
}

fn run_partita(
    ctx: &Ctx,
    mech: Backend,
    processes: u32,
    margin: u64,
    frames: u64,
) -> Result<Section, BenchError> {
    let log = ctx.log(frames)?;
    let exe = crate::partition_executable(partita_bench_protocol::SWITCH_PARTITION)?;
    let partition = |slot: usize| CompiledPartition {
        args: SwitchPartitionArgs {
            log: log.path().to_path_buf(),
            slot,
            processes,
            release_delay_ns: RELEASE_DELAY_NS as i64,
            gap_threshold_ns: GAP_THRESHOLD_NS,
            timer_workaround: ctx.timer_workaround,
            window_offset_ns: ctx.geometry(slot).offset,
            timed_wait_ns: 0,
        }
        .to_args(),
        cores: vec![ctx.core],
        max_processes: (processes > 64).then_some(processes + 1),
        ..CompiledPartition::new(slot as u32 + 1, ["A", "B"][slot], exe.clone())
    };
    let plan = PlanBuilder::new("bench-switch", ctx.frame_plan())
        .partition(partition(0))
        .partition(partition(1))
        .build()?;
    let opts = RunOptions {
        backend: backend_choice(mech),
        duration: Some(ctx.max_duration(frames)),
        echo: false,
        spin_margin: Duration::from_nanos(margin),
        ..RunOptions::default()
    };
    let report = run_until(&plan, opts, &ctx.stop, || covered(&log, frames))?;
    let mut notes = run_notes(&report, true);
    for s in 0..2 {
        let st = log.slot(s).status();
        if st >= status::FAILED {
            notes.push(format!(
                "partition {} failed its set-up (step {})",
                ["A", "B"][s],
                st - status::FAILED
            ));
        } else if st == status::NONE {
            notes.push(format!("partition {} never reached NORMAL", ["A", "B"][s]));
        }
    }
    let (mut m, activations) = matched(ctx, &log, margin, &mut notes);
    let core = report.cores.iter().find(|c| c.core == ctx.core);
    if let Some(c) = core {
        notes.extend(c.errors.iter().take(10).cloned());
    }
    let fig = |f: fn(&partita_manager::CoreReport) -> &partita_manager::stats::Summary| {
        core.map(|c| from_summary(f(c))).unwrap_or_default()
    };
    Ok(Section {
        kind: "partita",
        backend: mech,
        processes: Some(processes),
        spin_margin_ns: margin,
        windows: m.start.len() as u64,
        timer_lateness: fig(|c| &c.timer_lateness),
        wake_lateness: fig(|c| &c.wake_lateness),
        switch_cost: fig(|c| &c.switch_cost),
        start_latency: Figures::of(&mut m.start),
        overrun: Figures::of(&mut m.overrun),
        counts: m.counts,
        boundaries: core.map(|c| c.boundaries).unwrap_or(0),
        missed_boundaries: core.map(|c| c.missed_boundaries).unwrap_or(0),
        periodic_activations: activations,
        cpuacct_overrun_max_ns: report.partitions.iter().map(|p| p.overrun.max).max(),
        notes,
    })
}

/// Where and when a report's figures were taken (flattened into its JSON).
#[derive(Debug, Clone, Serialize)]
pub struct Provenance {
    /// Unix time of the start, s.
    pub started_unix: u64,
    /// Machine.
    pub machine: Machine,
    /// `git rev-parse HEAD`, or `unknown`.
    pub git_revision: String,
    /// Whether the work tree had uncommitted changes to tracked files.
    pub git_dirty: Option<bool>,
    /// `release` or `debug`: the profile `partita` was built with (the partitions are found
    /// next to it, built with the same one).
    pub build: &'static str,
}

/// What every report of the seed benches starts with (flattened into its JSON).
#[derive(Debug, Clone, Serialize)]
pub struct ReportHead {
    /// Report format, e.g. `partita-bench-overheads/1`.
    pub format: &'static str,
    /// Machine, revision, start.
    #[serde(flatten)]
    pub provenance: Provenance,
    /// Wall time of the whole bench, s.
    pub elapsed_s: f64,
    /// FNV-1a of the configuration (hex): equal hashes ran the same configuration.
    pub configuration_hash: String,
    /// Quick run.
    pub quick: bool,
}

impl Provenance {
    /// The Markdown heading of a report: `# title`, then a line saying where and with what
    /// it ran.
    pub(crate) fn heading(&self, title: &str, quick: bool, configuration_hash: &str) -> String {
        let m = &self.machine;
        format!(
            "# {title}{}\n\n{} ({} cores), Linux {}, clocksource {}, revision {}{}, {} build, configuration {configuration_hash}.\n\n",
            if quick { " (quick)" } else { "" },
            m.cpu_model,
            m.cores,
            m.kernel,
            m.clocksource,
            self.git_revision,
            if self.git_dirty == Some(true) {
                " + local changes"
            } else {
                ""
            },
            self.build
        )
    }

    /// Now, on this machine, in the current directory's work tree.
    pub(crate) fn now() -> Provenance {
        Provenance {
            started_unix: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
            machine: machine(),
            git_revision: git(&["rev-parse", "HEAD"]).unwrap_or_else(|| "unknown".into()),
            git_dirty: git(&["status", "--porcelain", "--untracked-files=no"])
                .map(|s| !s.is_empty()),
            build: if cfg!(debug_assertions) {
                "debug"
            } else {
                "release"
            },
        }
    }
}

/// Facts about this machine for the reports.
pub(crate) fn machine() -> Machine {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu_model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    let read = |p: &str| {
        std::fs::read_to_string(p)
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|_| "unknown".into())
    };
    Machine {
        cpu_model,
        cores: partita_sys::sched::online_cpus(),
        kernel: read("/proc/sys/kernel/osrelease"),
        rt_throttle: partita_sys::sched::rt_throttling(),
        clocksource: read("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
    }
}

/// Output of a git command in the current directory, if it succeeds.
pub(crate) fn git(args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("git")
        .args(args)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Runs the benchmark. `progress` receives one line per run as it finishes.
pub fn run_switch(
    opts: &SwitchOptions,
    stop: Arc<AtomicBool>,
    mut progress: impl FnMut(&str),
) -> Result<SwitchReport, BenchError> {
    if !partita_sys::proc::is_root() {
        return Err(BenchError::NotRoot);
    }
    let t0 = std::time::Instant::now();
    // The revision of the work tree when the run starts.
    let git_revision = git(&["rev-parse", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let git_dirty = git(&["status", "--porcelain", "--untracked-files=no"]).map(|s| !s.is_empty());
    let started_unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let cpus = partita_sys::sched::online_cpus();
    let ctx = Ctx {
        core: if cpus > 1 { 1 } else { 0 },
        frames: if opts.quick {
            FRAMES_QUICK
        } else {
            FRAMES_FULL
        },
        timer_workaround: opts.timer_workaround,
        stop,
        seq: AtomicU32::new(0),
    };
    // As the manager does: no page faults in the switching loop.
    let _ = partita_sys::sched::lock_memory();
    let margin = opts.spin_margin.as_nanos() as u64;
    let mut runs: Vec<(Backend, Option<u32>, u64, u64)> = Vec::new();
    for &b in &opts.backends {
        runs.push((b, None, margin, ctx.frames));
        for &n in &opts.processes {
            runs.push((b, Some(n), margin, ctx.frames));
        }
    }
    if opts.zero_margin && margin != 0 {
        for &b in &opts.backends {
            runs.push((b, None, 0, ctx.frames / 2));
            runs.push((b, Some(1), 0, ctx.frames / 2));
        }
    }
    let est: u64 = runs.iter().map(|r| r.3 + 30).sum::<u64>() * MAJOR_FRAME_NS;
    progress(&format!(
        "{} runs of up to {} frames ({:.2} ms) on core {}: about {:.0} s",
        runs.len(),
        ctx.frames,
        MAJOR_FRAME_NS as f64 / 1e6,
        ctx.core,
        est as f64 / 1e9
    ));
    let mut sections = Vec::new();
    for (b, n, m, frames) in runs {
        let s = match n {
            None => run_bare(&ctx, b, m, frames),
            Some(n) => run_partita(&ctx, b, n, m, frames),
        };
        let s = match s {
            Ok(s) => s,
            Err(BenchError::Interrupted) => return Err(BenchError::Interrupted),
            Err(e) => {
                progress(&format!(
                    "{b} {}: {e}",
                    n.map(|n| format!("N={n}")).unwrap_or("bare".into())
                ));
                continue;
            }
        };
        progress(&format!(
            "{:<10} {:<5} margin {:>3} us: {} windows, start med {:.1} us, overrun p99.9 {:.1} us{}",
            b.to_string(),
            s.label(),
            m / 1000,
            s.windows,
            s.start_latency.median as f64 / 1e3,
            s.overrun.p999 as f64 / 1e3,
            notes_suffix(&s.notes)
        ));
        sections.push(s);
    }
    let checks = checks(&sections);
    Ok(SwitchReport {
        format: "partita-bench-switch/1",
        started_unix,
        elapsed_s: t0.elapsed().as_secs_f64(),
        machine: machine(),
        git_revision,
        git_dirty,
        plan: PlanInfo {
            core: ctx.core,
            major_frame_ns: MAJOR_FRAME_NS,
            windows: vec![
                ("A".into(), 0, WINDOW_NS),
                ("B".into(), WINDOW_NS, WINDOW_NS),
            ],
            windows_per_partition: ctx.frames,
            release_delay_ns: RELEASE_DELAY_NS,
            gap_threshold_ns: GAP_THRESHOLD_NS,
            scheduler_priority: partita_manager::SCHEDULER_PRIORITY,
            partition_priority: partita_manager::PARTITION_RUN_PRIORITY,
        },
        quick: opts.quick,
        sections,
        checks,
    })
}

/// What a progress line says of a run's notes: nothing, or ` (N notes)`.
pub(crate) fn notes_suffix(notes: &[String]) -> String {
    if notes.is_empty() {
        String::new()
    } else {
        format!(" ({} notes)", notes.len())
    }
}

/// Selects one figure set of a section.
pub(crate) type Pick = fn(&Section) -> &Figures;

/// The metrics the ratio targets apply to.
pub(crate) const METRICS: [(&str, Pick); 3] = [
    ("timer_lateness", |s| &s.timer_lateness),
    ("start_latency", |s| &s.start_latency),
    ("overrun", |s| &s.overrun),
];

/// Whether `value` is within `factor` of `reference`: `value - reference <= (factor - 1) *
/// max(|reference|, 1 us)`. For a positive reference of at least 1 us this is `value <=
/// factor * reference`; the 1 us floor keeps sub-microsecond noise from deciding, and the
/// absolute value gives negative figures (a partition preempted before its window end) a
/// meaning: no more than `(factor - 1) * |reference|` later than the reference.
pub(crate) fn within(value: i64, reference: i64, factor: f64) -> bool {
    let scale = reference.abs().max(1_000) as f64;
    (value - reference) as f64 <= (factor - 1.0) * scale
}

fn ratio(value: i64, reference: i64) -> Option<f64> {
    (value >= 0 && reference > 0).then(|| value as f64 / reference as f64)
}

/// Target 1: bare ratio. Target 2: p99.9 overrun. Target 3: 64 vs 1 process.
pub(crate) const T_BARE: &str = "median and p99 within 1.5x of the bare mechanism";
pub(crate) const T_OVERRUN: &str = "p99.9 overrun below 50 us";
pub(crate) const T_SCALE: &str = "64-process figures within 1.2x of the 1-process ones";

fn checks(sections: &[Section]) -> Vec<Check> {
    let mut out = Vec::new();
    let find = |b: Backend, n: Option<u32>, m: u64| {
        sections
            .iter()
            .find(|s| s.backend == b && s.processes == n && s.spin_margin_ns == m)
    };
    for s in sections.iter().filter(|s| s.kind == "partita") {
        let n = s.processes.unwrap_or(1);
        let mut check = |target, figure: String, value: i64, reference: i64, pass: bool| {
            out.push(Check {
                target,
                backend: s.backend,
                processes: n,
                spin_margin_ns: s.spin_margin_ns,
                figure,
                value,
                reference,
                ratio: ratio(value, reference),
                pass,
            })
        };
        if let Some(floor) = find(s.backend, None, s.spin_margin_ns) {
            for (name, f) in METRICS {
                let (a, b) = (f(s), f(floor));
                if a.count == 0 || b.count == 0 {
                    continue;
                }
                for (stat, va, vb) in [("median", a.median, b.median), ("p99", a.p99, b.p99)] {
                    check(
                        T_BARE,
                        format!("{name}.{stat}"),
                        va,
                        vb,
                        within(va, vb, 1.5),
                    );
                }
            }
        }
        if s.overrun.count > 0 {
            check(
                T_OVERRUN,
                "overrun.p999".into(),
                s.overrun.p999,
                50_000,
                s.overrun.p999 < 50_000,
            );
        }
        if n == 64 {
            if let Some(one) = find(s.backend, Some(1), s.spin_margin_ns) {
                for (name, f) in METRICS {
                    let (a, b) = (f(s), f(one));
                    if a.count == 0 || b.count == 0 {
                        continue;
                    }
                    for (stat, va, vb) in [("median", a.median, b.median), ("p99", a.p99, b.p99)] {
                        check(
                            T_SCALE,
                            format!("{name}.{stat}"),
                            va,
                            vb,
                            within(va, vb, 1.2),
                        );
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn within_rules() {
        assert!(within(15_000, 10_000, 1.5));
        assert!(!within(15_001, 10_000, 1.5));
        // Sub-microsecond figures are compared against a 1 us scale.
        assert!(within(400, 100, 1.5));
        assert!(!within(700, 100, 1.5));
        // Negative: no more than 50 % of |reference| later.
        assert!(within(-40_000, -80_000, 1.5));
        assert!(!within(-39_000, -80_000, 1.5));
        assert!(within(-90_000, -80_000, 1.2));
    }
}
