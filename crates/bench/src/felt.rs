// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita bench felt`: what an application inside a partition feels of a partition switch,
//! measured the way SFPBench's partition-switch test does, beside the bare kernel mechanism in
//! the same run (issue 14, section 2).
//!
//! Two spinning partitions A and B share one core in 10 ms windows of a 20 ms major frame (the
//! schedule fills the core). Each partition's spinner reads the APEX clock in a loop and logs
//! every gap (`partita_bench_protocol::gap_log`); its first periodic process logs how late it
//! was released and how late a TIMED_WAIT of 2 ms ended. From the readings:
//! - *dead time* per switch: the leaving spinner's last reading to the entering one's first;
//! - *usable window*: the part of each window its spinner really ran (window length less
//!   every gap inside it: the switch at both ends, the partition's own time events, anything
//!   else that took the core), over the window length;
//! - *throttling holes*: spans of at least 1 ms in which neither spinner ran (the schedule
//!   has no idle time, so only something above both partitions explains them: real-time
//!   throttling, another module); windows, switches and lateness samples they touch are
//!   counted apart, their time is the loss to throttling;
//! - release and TIMED_WAIT lateness inside the partition.
//!
//! Each backend runs three ways: the bare mechanism (two plain spinners held and released by
//! a `SCHED_FIFO` thread on a plain absolute timer, no spin, and a bare `clock_nanosleep`
//! thread making the same releases and time-outs), Partita with its defaults (the wake-up
//! latency learnt, `RunOptions::learn_wake_latency`), and Partita waking the whole spin margin
//! early as before (`--fixed-spin-margin`), for the start punctuality to compare with.

use crate::bare::{self, Rig};
use crate::overheads::fnv1a_hex;
use crate::run::{run_notes, run_until};
use crate::stats::{from_summary, Figures};
use crate::switch::{backend_choice, notes_suffix, within, Provenance, ReportHead};
use crate::BenchError;
use partita_bench_protocol::args::SwitchPartitionArgs;
use partita_bench_protocol::gap_log::{lateness_slots, status, LogFile, Slot};
use partita_bench_protocol::nearest_rank;
use partita_config::{CompiledPartition, PlanBuilder};
use partita_manager::{Backend, RunOptions};
use partita_schedule::{FramePlan, Window};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Window of each partition.
const WINDOW_NS: u64 = 10_000_000;
/// Major frame: the two windows, no idle time.
const MAJOR_FRAME_NS: u64 = 2 * WINDOW_NS;
/// The periodic process is released this long after its window starts.
const RELEASE_DELAY_NS: u64 = 200_000;
/// Its TIMED_WAIT after each release (ends well inside the window).
const TIMED_WAIT_NS: u64 = 2_000_000;
/// A gap longer than this is logged by the spinners.
const GAP_THRESHOLD_NS: i64 = 3_000;
/// A span this long in which neither spinner ran is a hole.
const HOLE_MIN_NS: i64 = 1_000_000;
/// Frames measured per run: full run and `--quick`.
const FRAMES_FULL: u64 = 1_500;
const FRAMES_QUICK: u64 = 250;
/// Upper bound on the frames a run may need to start its spinners.
const STARTUP_FRAMES_MAX: u64 = 250;
/// Spinners (partitions) of every run.
const SPINNERS: usize = 2;

/// Published dead time per switch of the peers in the same workload (issue 14): name, low
/// and high end of the median range, ns.
pub const PEERS: [(&str, i64, i64); 2] = [
    ("a653rs-linux", 65_000, 65_000),
    ("a653lib", 25_000, 35_000),
];

/// What to run.
#[derive(Debug, Clone)]
pub struct FeltOptions {
    /// 250 frames per run instead of 1,500.
    pub quick: bool,
    /// Backends (and their bare mechanisms).
    pub backends: Vec<Backend>,
}

impl Default for FeltOptions {
    fn default() -> Self {
        FeltOptions {
            quick: false,
            backends: vec![Backend::FreezerV1, Backend::FreezerV2, Backend::Signals],
        }
    }
}

/// The part of the windows a spinner ran, in parts per million of the window length.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Usable {
    /// Windows measured (not touched by a hole).
    pub windows: u64,
    /// Median.
    pub p50_ppm: i64,
    /// 1st percentile (the worst 1 % are below).
    pub p1_ppm: i64,
    /// Minimum.
    pub min_ppm: i64,
}

/// Spans in which neither spinner ran (real-time throttling, anything above both).
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Holes {
    /// Holes of at least 1 ms.
    pub count: u64,
    /// Their total length, ns.
    pub total_ns: i64,
    /// The span measured, ns.
    pub span_ns: i64,
    /// Time lost to them per second, ms.
    pub lost_ms_per_s: f64,
    /// Windows they touched (left out of the usable-window figures).
    pub windows_hit: u64,
    /// Switches they touched (left out of the dead-time figures).
    pub switches_hit: u64,
    /// Lateness samples they touched (left out of the lateness figures).
    pub lateness_hit: u64,
}

/// Counters of the matching.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct FeltCounts {
    /// Switches measured.
    pub switches: u64,
    /// Switches at which a spinner ran during its off window (not held) or did not run
    /// around it: left out.
    pub not_held: u64,
    /// Gaps that did not fit in the log.
    pub dropped_gaps: u64,
    /// Lateness samples due outside their partition's window (a TIMED_WAIT begun late in the
    /// window by an activation that caught up a missed release point: it ends in the
    /// partition's next window, by design): left out.
    pub due_outside_window: u64,
}

/// One run.
#[derive(Debug, Clone, Serialize)]
pub struct FeltSection {
    /// `bare`, `partita` (defaults) or `partita-fixed-margin`.
    pub kind: &'static str,
    /// Backend, or mechanism for `bare`.
    pub backend: Backend,
    /// Spin margin, ns (the bare loop: none).
    pub spin_margin_ns: u64,
    /// Last reading of the leaving spinner to the first of the entering one, ns.
    pub dead_time: Figures,
    /// First reading of the entering spinner minus the boundary, ns.
    pub start_lateness: Figures,
    /// Last reading of the leaving spinner minus the boundary, ns (negative: held early).
    pub end_lateness: Figures,
    /// Usable part of each window.
    pub usable: Usable,
    /// Periodic release inside the partition: first instruction minus release point, ns.
    pub release_lateness: Figures,
    /// TIMED_WAIT end minus its due time, ns.
    pub timed_wait_lateness: Figures,
    /// Holes.
    pub holes: Holes,
    /// The wake-up latency the scheduler planned for (Partita runs), ns.
    pub planned_wake: Option<Figures>,
    /// The switcher's own time at each boundary, from the end of its spin to the end of its
    /// work (hold, release and bookkeeping; the manager's `CoreReport::switch_cost`), ns: on
    /// the partitions' core, part of every dead time.
    pub switch_cost: Figures,
    /// Boundaries handled and skipped by the switcher.
    pub boundaries: u64,
    /// Boundaries skipped.
    pub missed_boundaries: u64,
    /// Counters.
    pub counts: FeltCounts,
    /// Errors and remarks.
    pub notes: Vec<String>,
}

/// One target check.
#[derive(Debug, Clone, Serialize)]
pub struct FeltCheck {
    /// Which target.
    pub target: &'static str,
    /// Backend.
    pub backend: Backend,
    /// Figure checked, e.g. `dead_time.p99`.
    pub figure: String,
    /// Our value (ns, or ppm for the usable window).
    pub value: i64,
    /// The reference (bare figure, fixed-margin figure, or the limit).
    pub reference: i64,
    /// Met.
    pub pass: bool,
}

/// The workload.
#[derive(Debug, Clone, Serialize)]
pub struct FeltPlan {
    /// The core of both partitions and of the switching thread.
    pub core: u32,
    /// Major frame, ns.
    pub major_frame_ns: u64,
    /// Window of each partition, ns.
    pub window_ns: u64,
    /// Frames measured per run.
    pub frames: u64,
    /// Release of the periodic process after its window start, ns.
    pub release_delay_ns: u64,
    /// Its TIMED_WAIT, ns.
    pub timed_wait_ns: u64,
    /// Gap threshold of the spinners, ns.
    pub gap_threshold_ns: i64,
    /// Shortest hole, ns.
    pub hole_min_ns: i64,
}

/// Everything `bench felt` measured.
#[derive(Debug, Clone, Serialize)]
pub struct FeltReport {
    /// Format, machine, revision.
    #[serde(flatten)]
    pub head: ReportHead,
    /// The workload.
    pub plan: FeltPlan,
    /// Every run, in the order made.
    pub sections: Vec<FeltSection>,
    /// Target checks.
    pub checks: Vec<FeltCheck>,
    /// Published dead time of the peers: (name, low, high), ns.
    pub peers: Vec<(String, i64, i64)>,
}

/// Where the windows lie: spinner `s` has `[k * major + s * window, + window)`; a span of
/// `hole_min` in which neither ran is a hole.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout {
    pub major: i64,
    pub window: i64,
    pub hole_min: i64,
}

/// The spans of at least `min` in which neither spinner ran: the intersections of their gap
/// lists (each sorted and disjoint).
pub(crate) fn holes(a: &[(i64, i64)], b: &[(i64, i64)], min: i64) -> Vec<(i64, i64)> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < a.len() && j < b.len() {
        let lo = a[i].0.max(b[j].0);
        let hi = a[i].1.min(b[j].1);
        if hi - lo >= min {
            out.push((lo, hi));
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// Whether instant `t` lies in a window of spinner `s`.
fn in_window(lay: Layout, s: usize, t: i64) -> bool {
    let at = t.rem_euclid(lay.major) - s as i64 * lay.window;
    (0..lay.window).contains(&at)
}

/// Whether a span of `spans` (sorted, disjoint) overlaps `[lo, hi]`.
fn overlaps(spans: &[(i64, i64)], lo: i64, hi: i64) -> bool {
    let pos = spans.partition_point(|s| s.1 < lo);
    spans.get(pos).is_some_and(|s| s.0 <= hi)
}

/// The gap of `gaps` around instant `t`.
fn gap_at(gaps: &[(i64, i64)], t: i64) -> Option<(i64, i64)> {
    let pos = gaps.partition_point(|g| g.0 < t);
    (pos > 0).then(|| gaps[pos - 1]).filter(|g| g.1 > t)
}

/// How much of `[lo, hi)` the gaps cover.
fn covered(gaps: &[(i64, i64)], lo: i64, hi: i64) -> i64 {
    let start = gaps.partition_point(|g| g.1 <= lo);
    gaps[start..]
        .iter()
        .take_while(|g| g.0 < hi)
        .map(|g| g.1.min(hi) - g.0.max(lo))
        .sum()
}

/// What the readings of one run say (before the figures are taken).
#[derive(Debug, Default)]
pub(crate) struct Analysis {
    pub dead: Vec<i64>,
    pub start: Vec<i64>,
    pub end: Vec<i64>,
    pub usable_ppm: Vec<i64>,
    pub holes: Vec<(i64, i64)>,
    pub hole_stats: Holes,
    pub counts: FeltCounts,
}

/// Analyses the gaps of both spinners (`gaps[s]`, time order; spinner `s` started at
/// `started[s]`) from two frames after both started to the end of the shorter log.
pub(crate) fn analyse(
    gaps: [&[(i64, i64)]; SPINNERS],
    started: [i64; SPINNERS],
    lay: Layout,
) -> Analysis {
    let mut a = Analysis::default();
    let Some(horizon) = gaps.iter().map(|g| g.last().map(|x| x.1)).min().flatten() else {
        return a;
    };
    let mf = lay.major;
    let w = lay.window;
    let first_frame = (started.iter().max().copied().unwrap_or(0) + 2 * mf).max(0) / mf + 1;
    let from = first_frame * mf;
    a.holes = holes(gaps[0], gaps[1], lay.hole_min);
    let mut k = first_frame;
    while (k + 1) * mf + w <= horizon {
        for enter in 0..SPINNERS {
            let leave = 1 - enter;
            let b = k * mf + enter as i64 * w;
            // The leaving spinner's off window follows the boundary, the entering one's
            // precedes it.
            match (
                gap_at(gaps[leave], b + w / 2),
                gap_at(gaps[enter], b - w / 2),
            ) {
                (Some(l), Some(e)) => {
                    let (last, first) = (l.0, e.1);
                    if overlaps(&a.holes, last, first) {
                        a.hole_stats.switches_hit += 1;
                    } else {
                        a.counts.switches += 1;
                        a.dead.push(first - last);
                        a.start.push(first - b);
                        a.end.push(last - b);
                    }
                }
                _ => a.counts.not_held += 1,
            }
            if overlaps(&a.holes, b, b + w) {
                a.hole_stats.windows_hit += 1;
            } else {
                let lost = covered(gaps[enter], b, b + w);
                a.usable_ppm.push((w - lost) * 1_000_000 / w);
            }
        }
        k += 1;
    }
    let to = (k * mf).max(from);
    let in_span: Vec<(i64, i64)> = a
        .holes
        .iter()
        .map(|h| (h.0.max(from), h.1.min(to)))
        .filter(|h| h.1 > h.0)
        .collect();
    a.hole_stats.count = in_span.len() as u64;
    a.hole_stats.total_ns = in_span.iter().map(|h| h.1 - h.0).sum();
    a.hole_stats.span_ns = to - from;
    if to > from {
        a.hole_stats.lost_ms_per_s = a.hole_stats.total_ns as f64 / (to - from) as f64 * 1e3;
    }
    a
}

/// Lateness of `(due, actual)` pairs, leaving out those a hole touched (counted in `holes`).
pub(crate) fn lateness(
    pairs: &[(i64, i64)],
    holes: &[(i64, i64)],
    counted: &mut Holes,
) -> Vec<i64> {
    let mut out = Vec::new();
    for &(due, actual) in pairs {
        if overlaps(holes, due, actual) {
            counted.lateness_hit += 1;
        } else {
            out.push(actual - due);
        }
    }
    out
}

/// Figures of usable-window samples (ppm).
pub(crate) fn usable(samples: &mut [i64]) -> Usable {
    if samples.is_empty() {
        return Usable::default();
    }
    samples.sort_unstable();
    Usable {
        windows: samples.len() as u64,
        p50_ppm: nearest_rank(samples, 0.5),
        p1_ppm: nearest_rank(samples, 0.01),
        min_ppm: samples[0],
    }
}

struct Ctx {
    core: u32,
    frames: u64,
    stop: Arc<AtomicBool>,
    seq: AtomicU32,
}

impl Ctx {
    fn lay(&self) -> Layout {
        Layout {
            major: MAJOR_FRAME_NS as i64,
            window: WINDOW_NS as i64,
            hole_min: HOLE_MIN_NS,
        }
    }

    fn log(&self) -> Result<LogFile, BenchError> {
        let frames = self.frames + STARTUP_FRAMES_MAX;
        Ok(LogFile::create(
            PathBuf::from(format!(
                "/dev/shm/partita-bench-felt-{}-{}",
                partita_sys::sched::getpid(),
                self.seq.fetch_add(1, Ordering::Relaxed)
            )),
            3 * SPINNERS,
            (frames * 64 + 4096) as usize,
        )?)
    }

    fn frame_plan(&self) -> FramePlan {
        let w = |id: u32, partition: usize| Window {
            id,
            partition,
            core: self.core,
            offset: partition as u64 * WINDOW_NS,
            duration: WINDOW_NS,
            period_start: true,
        };
        FramePlan {
            major_frame: MAJOR_FRAME_NS,
            windows: vec![w(1, 0), w(2, 1)],
        }
    }

    fn max_duration(&self) -> Duration {
        Duration::from_nanos(MAJOR_FRAME_NS * (self.frames + STARTUP_FRAMES_MAX))
    }

    /// Whether both spinners ran `frames` (+ 4) frames past their start.
    fn covered(&self, log: &LogFile) -> bool {
        let need = ((self.frames + 4) * MAJOR_FRAME_NS) as i64;
        let ok = |s: Slot<'_>| -> bool {
            let Some(t0) = s.started() else { return false };
            s.gaps().last().is_some_and(|g| g.1 - t0 >= need)
        };
        (0..SPINNERS).all(|s| ok(log.slot(s)))
    }
}

/// The figures of a run from its log; `notes` gets what the log says went wrong.
fn figures(ctx: &Ctx, log: &LogFile, notes: &mut Vec<String>) -> (Analysis, Vec<i64>, Vec<i64>) {
    let gaps: Vec<Vec<(i64, i64)>> = (0..SPINNERS).map(|s| log.slot(s).gaps()).collect();
    let mut started = [0i64; SPINNERS];
    for (s, t) in started.iter_mut().enumerate() {
        match log.slot(s).started() {
            Some(t0) => *t = t0,
            None => notes.push(format!(
                "spinner {s} never started (status {:#x})",
                log.slot(s).status()
            )),
        }
    }
    let mut a = analyse([gaps[0].as_slice(), gaps[1].as_slice()], started, ctx.lay());
    a.counts.dropped_gaps = (0..3 * SPINNERS).map(|s| log.slot(s).dropped()).sum();
    let from = started.iter().max().copied().unwrap_or(0) + 2 * MAJOR_FRAME_NS as i64;
    let lay = ctx.lay();
    let mut outside = 0;
    let mut pairs = |which: fn((usize, usize)) -> usize| -> Vec<(i64, i64)> {
        let mut v = Vec::new();
        for s in 0..SPINNERS {
            for p in log.slot(which(lateness_slots(SPINNERS, s))).gaps() {
                if p.0 < from {
                    continue;
                }
                if in_window(lay, s, p.0) {
                    v.push(p);
                } else {
                    outside += 1;
                }
            }
        }
        v
    };
    let (release_pairs, timed_pairs) = (pairs(|x| x.0), pairs(|x| x.1));
    a.counts.due_outside_window = outside;
    let holes = a.holes.clone();
    let release = lateness(&release_pairs, &holes, &mut a.hole_stats);
    let timed = lateness(&timed_pairs, &holes, &mut a.hole_stats);
    (a, release, timed)
}

fn section(
    kind: &'static str,
    backend: Backend,
    spin_margin_ns: u64,
    (mut a, mut release, mut timed): (Analysis, Vec<i64>, Vec<i64>),
    notes: Vec<String>,
) -> FeltSection {
    FeltSection {
        kind,
        backend,
        spin_margin_ns,
        dead_time: Figures::of(&mut a.dead),
        start_lateness: Figures::of(&mut a.start),
        end_lateness: Figures::of(&mut a.end),
        usable: usable(&mut a.usable_ppm),
        release_lateness: Figures::of(&mut release),
        timed_wait_lateness: Figures::of(&mut timed),
        holes: a.hole_stats,
        planned_wake: None,
        switch_cost: Figures::default(),
        boundaries: 0,
        missed_boundaries: 0,
        counts: a.counts,
        notes,
    }
}

/// The bare `clock_nanosleep` thread: at each window start plus the release delay (as the
/// partitions' periodic process), then a time-out of [`TIMED_WAIT_NS`]; logs both lateness
/// pairs (ns from `epoch`) as a partition would, until `end` or `stop`.
fn bare_timer(log: &LogFile, core: u32, epoch: u64, end: u64, stop: &AtomicBool) -> Vec<String> {
    let mut notes = Vec::new();
    if let Err(e) = partita_sys::sched::set_affinity(0, &[core]) {
        notes.push(format!("bare timer thread: pinning to core {core}: {e}"));
    }
    // As the partition runtime's timer thread: one above a running partition.
    if let Err(e) = partita_sys::sched::set_fifo(0, partita_manager::PARTITION_RUN_PRIORITY + 1) {
        notes.push(format!("bare timer thread without SCHED_FIFO: {e}"));
    }
    let _ = partita_sys::sched::set_timer_slack(1);
    let rel = |t: u64| t as i64 - epoch as i64;
    for k in 0.. {
        for s in 0..SPINNERS {
            let due = epoch + k * MAJOR_FRAME_NS + s as u64 * WINDOW_NS + RELEASE_DELAY_NS;
            if due >= end || stop.load(Ordering::Relaxed) {
                return notes;
            }
            let (release, timed) = lateness_slots(SPINNERS, s);
            partita_sys::time::sleep_until(due);
            let now = partita_sys::time::monotonic_ns();
            log.slot(release).record(rel(due), rel(now));
            let t_due = now + TIMED_WAIT_NS;
            partita_sys::time::sleep_until(t_due);
            let after = partita_sys::time::monotonic_ns();
            log.slot(timed).record(rel(t_due), rel(after));
        }
    }
    notes
}

fn run_bare(ctx: &Ctx, mech: Backend) -> Result<FeltSection, BenchError> {
    let log = ctx.log()?;
    let tag = format!(
        "felt-{}-{}",
        partita_sys::sched::getpid(),
        ctx.seq.fetch_add(1, Ordering::Relaxed)
    );
    let rig = Rig::start(mech, SPINNERS, ctx.core, log.path(), GAP_THRESHOLD_NS, &tag)?;
    let epoch = (partita_sys::time::monotonic_ns() + 20_000_000).div_ceil(1_000_000) * 1_000_000;
    for s in 0..SPINNERS {
        log.slot(s).set_epoch(epoch);
    }
    let end = epoch + ctx.max_duration().as_nanos() as u64;
    let tl = ctx.frame_plan().core_timeline(ctx.core);
    let run_stop = AtomicBool::new(false);
    let done = AtomicBool::new(false);
    let (st, timer_notes) = std::thread::scope(|sc| {
        sc.spawn(|| {
            while !done.load(Ordering::Acquire) {
                if ctx.stop.load(Ordering::Relaxed) || ctx.covered(&log) {
                    run_stop.store(true, Ordering::Release);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        let timer = sc.spawn(|| bare_timer(&log, ctx.core, epoch, end, &run_stop));
        // No spin margin: the plain absolute timer of the bare mechanism.
        let st = bare::run_loop(&rig, &tl, epoch, end, 0, &run_stop);
        run_stop.store(true, Ordering::Release);
        let timer_notes = timer
            .join()
            .unwrap_or_else(|_| vec!["bare timer thread panicked".into()]);
        done.store(true, Ordering::Release);
        (st, timer_notes)
    });
    drop(rig);
    if ctx.stop.load(Ordering::Relaxed) {
        return Err(BenchError::Interrupted);
    }
    let mut notes = st.errors.clone();
    notes.extend(timer_notes);
    if let Some(e) = &st.realtime {
        notes.push(format!("switching thread without SCHED_FIFO: {e}"));
    }
    let f = figures(ctx, &log, &mut notes);
    let mut s = section("bare", mech, 0, f, notes);
    s.switch_cost = from_summary(&st.switch_cost.summary());
    s.boundaries = st.boundaries;
    s.missed_boundaries = st.missed;
    Ok(s)
}

fn run_partita(ctx: &Ctx, mech: Backend, learn: bool) -> Result<FeltSection, BenchError> {
    let log = ctx.log()?;
    let exe = crate::partition_executable(partita_bench_protocol::SWITCH_PARTITION)?;
    let partition = |slot: usize| CompiledPartition {
        args: SwitchPartitionArgs {
            log: log.path().to_path_buf(),
            slot,
            processes: 2,
            release_delay_ns: RELEASE_DELAY_NS as i64,
            gap_threshold_ns: GAP_THRESHOLD_NS,
            timer_workaround: true,
            window_offset_ns: (slot as u64 * WINDOW_NS) as i64,
            timed_wait_ns: TIMED_WAIT_NS as i64,
        }
        .to_args(),
        cores: vec![ctx.core],
        ..CompiledPartition::new(slot as u32 + 1, ["A", "B"][slot], exe.clone())
    };
    let plan = PlanBuilder::new("bench-felt", ctx.frame_plan())
        .partition(partition(0))
        .partition(partition(1))
        .build()?;
    let opts = RunOptions {
        backend: backend_choice(mech),
        duration: Some(ctx.max_duration()),
        echo: false,
        learn_wake_latency: learn,
        ..RunOptions::default()
    };
    let margin = opts.spin_margin.as_nanos() as u64;
    let report = run_until(&plan, opts, &ctx.stop, || ctx.covered(&log))?;
    let mut notes = run_notes(&report, true);
    for (s, name) in ["A", "B"].iter().enumerate() {
        let st = log.slot(s).status();
        if st >= status::FAILED {
            notes.push(format!(
                "partition {name} failed its set-up (step {})",
                st - status::FAILED
            ));
        } else if st == status::NONE {
            notes.push(format!("partition {name} never reached NORMAL"));
        }
    }
    let f = figures(ctx, &log, &mut notes);
    let kind = if learn {
        "partita"
    } else {
        "partita-fixed-margin"
    };
    let mut s = section(kind, mech, margin, f, notes);
    if let Some(c) = report.cores.iter().find(|c| c.core == ctx.core) {
        s.planned_wake = Some(from_summary(&c.planned_wake));
        s.switch_cost = from_summary(&c.switch_cost);
        s.boundaries = c.boundaries;
        s.missed_boundaries = c.missed_boundaries;
        s.notes.extend(c.errors.iter().take(10).cloned());
    }
    Ok(s)
}

/// Dead time against the bare mechanism.
pub(crate) const T_DEAD_BARE: &str = "dead time p50 and p99 within 1.2x of the bare mechanism's";
/// Dead time against the peers.
pub(crate) const T_DEAD_PEERS: &str =
    "dead time p50 below the peers' (a653lib 25-35 us, a653rs-linux 65 us)";
/// Usable window.
pub(crate) const T_USABLE: &str = "usable window >= 99.5 % at p50 and >= 99 % at p1";
/// Lateness inside the partition.
pub(crate) const T_LATENESS: &str =
    "release and TIMED_WAIT lateness p99 within 1.5x of a bare clock_nanosleep thread's";
/// Start punctuality.
pub(crate) const T_START: &str = "window-start lateness p99 within 1.2x of the fixed spin margin's";

/// The target checks of the default Partita runs.
pub(crate) fn checks(sections: &[FeltSection]) -> Vec<FeltCheck> {
    let mut out = Vec::new();
    let find = |b: Backend, kind: &str| sections.iter().find(|s| s.backend == b && s.kind == kind);
    for p in sections.iter().filter(|s| s.kind == "partita") {
        let mut check = |target, figure: &str, value: i64, reference: i64, pass: bool| {
            out.push(FeltCheck {
                target,
                backend: p.backend,
                figure: figure.into(),
                value,
                reference,
                pass,
            })
        };
        if let Some(bare) = find(p.backend, "bare") {
            if p.dead_time.count > 0 && bare.dead_time.count > 0 {
                for (fig, v, r) in [
                    ("dead_time.p50", p.dead_time.median, bare.dead_time.median),
                    ("dead_time.p99", p.dead_time.p99, bare.dead_time.p99),
                ] {
                    check(T_DEAD_BARE, fig, v, r, within(v, r, 1.2));
                }
            }
            for (fig, a, b) in [
                (
                    "release_lateness.p99",
                    &p.release_lateness,
                    &bare.release_lateness,
                ),
                (
                    "timed_wait_lateness.p99",
                    &p.timed_wait_lateness,
                    &bare.timed_wait_lateness,
                ),
            ] {
                if a.count > 0 && b.count > 0 {
                    check(T_LATENESS, fig, a.p99, b.p99, within(a.p99, b.p99, 1.5));
                }
            }
        }
        if p.dead_time.count > 0 {
            let best = PEERS.iter().map(|x| x.1).min().unwrap_or(0);
            check(
                T_DEAD_PEERS,
                "dead_time.p50",
                p.dead_time.median,
                best,
                p.dead_time.median < best,
            );
        }
        if p.usable.windows > 0 {
            check(
                T_USABLE,
                "usable.p50_ppm",
                p.usable.p50_ppm,
                995_000,
                p.usable.p50_ppm >= 995_000,
            );
            check(
                T_USABLE,
                "usable.p1_ppm",
                p.usable.p1_ppm,
                990_000,
                p.usable.p1_ppm >= 990_000,
            );
        }
        if let Some(old) = find(p.backend, "partita-fixed-margin") {
            if p.start_lateness.count > 0 && old.start_lateness.count > 0 {
                let (v, r) = (p.start_lateness.p99, old.start_lateness.p99);
                check(T_START, "start_lateness.p99", v, r, within(v, r, 1.2));
            }
        }
    }
    out
}

/// Runs the benchmark. `progress` receives one line per run as it finishes.
pub fn run_felt(
    opts: &FeltOptions,
    stop: Arc<AtomicBool>,
    mut progress: impl FnMut(&str),
) -> Result<FeltReport, BenchError> {
    if !partita_sys::proc::is_root() {
        return Err(BenchError::NotRoot);
    }
    let t0 = std::time::Instant::now();
    let provenance = Provenance::now();
    let cpus = partita_sys::sched::online_cpus();
    let ctx = Ctx {
        core: if cpus > 1 { 1 } else { 0 },
        frames: if opts.quick {
            FRAMES_QUICK
        } else {
            FRAMES_FULL
        },
        stop,
        seq: AtomicU32::new(0),
    };
    let _ = partita_sys::sched::lock_memory();
    let runs: Vec<(Backend, &str)> = opts
        .backends
        .iter()
        .flat_map(|&b| [(b, "bare"), (b, "partita"), (b, "partita-fixed-margin")])
        .collect();
    progress(&format!(
        "{} runs of {} frames ({} ms windows of a {} ms frame) on core {}: about {:.0} s",
        runs.len(),
        ctx.frames,
        WINDOW_NS / 1_000_000,
        MAJOR_FRAME_NS / 1_000_000,
        ctx.core,
        (runs.len() as u64 * (ctx.frames + 60) * MAJOR_FRAME_NS) as f64 / 1e9
    ));
    let mut sections = Vec::new();
    for (b, kind) in runs {
        let s = match kind {
            "bare" => run_bare(&ctx, b),
            "partita" => run_partita(&ctx, b, true),
            _ => run_partita(&ctx, b, false),
        };
        let s = match s {
            Ok(s) => s,
            Err(BenchError::Interrupted) => return Err(BenchError::Interrupted),
            Err(e) => {
                progress(&format!("{b} {kind}: {e}"));
                continue;
            }
        };
        progress(&format!(
            "{:<10} {:<20} dead p50 {:.1} us p99 {:.1} us, usable p50 {:.2} % p1 {:.2} %, TIMED_WAIT p99 {:.1} us{}",
            b.to_string(),
            kind,
            s.dead_time.median as f64 / 1e3,
            s.dead_time.p99 as f64 / 1e3,
            s.usable.p50_ppm as f64 / 1e4,
            s.usable.p1_ppm as f64 / 1e4,
            s.timed_wait_lateness.p99 as f64 / 1e3,
            notes_suffix(&s.notes)
        ));
        sections.push(s);
    }
    let checks = checks(&sections);
    let plan = FeltPlan {
        core: ctx.core,
        major_frame_ns: MAJOR_FRAME_NS,
        window_ns: WINDOW_NS,
        frames: ctx.frames,
        release_delay_ns: RELEASE_DELAY_NS,
        timed_wait_ns: TIMED_WAIT_NS,
        gap_threshold_ns: GAP_THRESHOLD_NS,
        hole_min_ns: HOLE_MIN_NS,
    };
    Ok(FeltReport {
        head: ReportHead {
            format: "partita-bench-felt/1",
            provenance,
            elapsed_s: t0.elapsed().as_secs_f64(),
            configuration_hash: fnv1a_hex(format!("{plan:?} {:?}", opts.backends).as_bytes()),
            quick: opts.quick,
        },
        plan,
        sections,
        checks,
        peers: PEERS.iter().map(|p| (p.0.to_string(), p.1, p.2)).collect(),
    })
}

/// Renders the report as Markdown: a row per run, the peers' published figures, the checks.
pub fn render_felt(r: &FeltReport) -> String {
    use std::fmt::Write;
    let mut s = r.head.provenance.heading(
        "What an application feels at a partition switch",
        r.head.quick,
        &r.head.configuration_hash,
    );
    let _ = writeln!(
        s,
        "Two spinning partitions in {} ms windows of a {} ms major frame on core {} ({} frames per run); a periodic process in each released {} us after its window start, then a TIMED_WAIT of {} ms. `bare`: the kernel mechanism alone on a plain absolute timer (no spin) and a bare `clock_nanosleep` SCHED_FIFO thread; `partita`: the defaults (wake-up latency learnt); `partita-fixed-margin`: the whole spin margin every boundary (as before). Holes: at least {} ms in which neither partition ran (real-time throttling); what they touch is left out of the other figures and counted. Times in us.\n",
        r.plan.window_ns / 1_000_000,
        r.plan.major_frame_ns / 1_000_000,
        r.plan.core,
        r.plan.frames,
        r.plan.release_delay_ns / 1_000,
        r.plan.timed_wait_ns / 1_000_000,
        r.plan.hole_min_ns / 1_000_000
    );
    let _ = writeln!(
        s,
        "| backend | run | dead p50 | dead p99 | dead max | start p50 | start p99 | usable p50 (%) | usable p1 (%) | release p50 | release p99 | TIMED_WAIT p50 | TIMED_WAIT p99 | holes (ms/s) | planned wake p50 | switcher p50 |"
    );
    let _ = writeln!(
        s,
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    let us = |v: i64| format!("{:.1}", v as f64 / 1e3);
    for x in &r.sections {
        let _ =
            writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {:.2} | {:.2} | {} | {} | {} | {} | {:.1} | {} | {} |",
            x.backend,
            x.kind,
            us(x.dead_time.median),
            us(x.dead_time.p99),
            us(x.dead_time.max),
            us(x.start_lateness.median),
            us(x.start_lateness.p99),
            x.usable.p50_ppm as f64 / 1e4,
            x.usable.p1_ppm as f64 / 1e4,
            us(x.release_lateness.median),
            us(x.release_lateness.p99),
            us(x.timed_wait_lateness.median),
            us(x.timed_wait_lateness.p99),
            x.holes.lost_ms_per_s,
            x.planned_wake.as_ref().map_or_else(|| "-".into(), |f| us(f.median)),
            us(x.switch_cost.median),
        );
    }
    let _ = writeln!(
        s,
        "\nPublished dead time per switch in the same workload (issue 14): {}.\n",
        r.peers
            .iter()
            .map(|(n, lo, hi)| if lo == hi {
                format!("{n} {} us", lo / 1_000)
            } else {
                format!("{n} {}-{} us", lo / 1_000, hi / 1_000)
            })
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        s,
        "| target | backend | figure | ours | reference | |\n|---|---|---|---:|---:|---|"
    );
    for c in &r.checks {
        let v = |x: i64| {
            if c.figure.starts_with("usable") {
                format!("{:.2} %", x as f64 / 1e4)
            } else {
                format!("{} us", us(x))
            }
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            c.target,
            c.backend,
            c.figure,
            v(c.value),
            v(c.reference),
            if c.pass { "PASS" } else { "MISS" }
        );
    }
    for x in &r.sections {
        let h = &x.holes;
        let _ = writeln!(
            s,
            "\n{} {}: {} switches ({} not held), {} holes ({:.1} ms in {:.1} s; touched {} windows, {} switches, {} lateness samples), {} lateness samples due outside their window, {} boundaries missed, {} gaps dropped.",
            x.backend,
            x.kind,
            x.counts.switches,
            x.counts.not_held,
            h.count,
            h.total_ns as f64 / 1e6,
            h.span_ns as f64 / 1e9,
            h.windows_hit,
            h.switches_hit,
            h.lateness_hit,
            x.counts.due_outside_window,
            x.missed_boundaries,
            x.counts.dropped_gaps
        );
        for n in &x.notes {
            let _ = writeln!(s, "- note: {n}");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAY: Layout = Layout {
        major: 20_000,
        window: 10_000,
        hole_min: 1_000,
    };

    /// Gaps of two spinners switching every 10 us-unit window with `dead` between the last
    /// reading of one and the first of the other, the leaving one stopped `early` before each
    /// boundary, for `frames` frames; spinner 1 also has a 100-unit gap mid-window.
    fn run(frames: i64, early: i64, dead: i64) -> [Vec<(i64, i64)>; 2] {
        let mut g = [Vec::new(), Vec::new()];
        for k in 0..frames {
            for (s, gaps) in g.iter_mut().enumerate() {
                // Spinner s's window is [k*20000 + s*10000, +10000): its gap covers its off
                // window, from `early` before its end to `dead - early` after the next start.
                let end = k * 20_000 + s as i64 * 10_000 + 10_000;
                gaps.push((end - early, end + 10_000 - early + dead));
                if s == 1 {
                    let mid = k * 20_000 + 15_000;
                    gaps.push((mid, mid + 100));
                }
            }
        }
        for v in g.iter_mut() {
            v.sort_unstable();
        }
        g
    }

    #[test]
    fn dead_time_and_usable_window_from_the_readings() {
        let g = run(20, 30, 50);
        let a = analyse([g[0].as_slice(), g[1].as_slice()], [0, 0], LAY);
        assert!(a.counts.switches > 20, "{:?}", a.counts);
        assert_eq!(a.counts.not_held, 0);
        assert!(a.dead.iter().all(|&d| d == 50), "{:?}", a.dead);
        // The leaving one stopped 30 before, the entering one started 20 after.
        assert!(a.end.iter().all(|&d| d == -30));
        assert!(a.start.iter().all(|&d| d == 20));
        // Spinner 0 loses 20 + 30 of 10000; spinner 1 also its 100 mid-window.
        let mut u = a.usable_ppm.clone();
        u.sort_unstable();
        u.dedup();
        assert_eq!(u, vec![985_000, 995_000]);
        assert!(a.holes.is_empty());
        assert_eq!(a.hole_stats.lost_ms_per_s, 0.0);
    }

    #[test]
    fn a_throttling_hole_is_counted_and_left_out() {
        let mut g = run(40, 30, 50);
        // Both spinners stop for 3000 at t = 302000 (inside spinner 0's window of frame 15):
        // spinner 0 gets a gap there, spinner 1 is in its off window anyway.
        g[0].push((302_000, 305_000));
        g[0].sort_unstable();
        let a = analyse([g[0].as_slice(), g[1].as_slice()], [0, 0], LAY);
        assert_eq!(a.holes, vec![(302_000, 305_000)]);
        assert_eq!(a.hole_stats.count, 1);
        assert_eq!(a.hole_stats.total_ns, 3_000);
        assert_eq!(a.hole_stats.windows_hit, 1);
        assert!(a.hole_stats.lost_ms_per_s > 0.0);
        // The windows around it are whole again.
        assert!(
            a.usable_ppm.iter().all(|&u| u >= 985_000),
            "{:?}",
            a.usable_ppm
        );
        // A lateness sample across the hole is left out and counted.
        let mut h = Holes::default();
        let l = lateness(&[(301_000, 303_500), (310_000, 310_040)], &a.holes, &mut h);
        assert_eq!(l, vec![40]);
        assert_eq!(h.lateness_hit, 1);
    }

    #[test]
    fn a_partition_not_held_is_counted() {
        let mut g = run(20, 30, 50);
        // Spinner 0 kept running through its off window of frame 10.
        g[0].retain(|x| x.0 != 10 * 20_000 + 10_000 - 30);
        let a = analyse([g[0].as_slice(), g[1].as_slice()], [0, 0], LAY);
        assert_eq!(a.counts.not_held, 2, "{:?}", a.counts);
    }

    #[test]
    fn holes_are_where_neither_ran() {
        let a = [(0, 10), (20, 5_000), (6_000, 6_100)];
        let b = [(5, 3_000), (4_000, 9_000)];
        assert_eq!(holes(&a, &b, 1_000), vec![(20, 3_000), (4_000, 5_000)]);
        assert_eq!(
            holes(&a, &b, 50),
            vec![(20, 3_000), (4_000, 5_000), (6_000, 6_100)]
        );
        assert!(in_window(LAY, 0, 40_000 + 9_999) && !in_window(LAY, 0, 50_000));
        assert!(in_window(LAY, 1, 50_000) && !in_window(LAY, 1, 40_000 + 9_999));
        assert!(overlaps(&[(10, 20)], 20, 30));
        assert!(!overlaps(&[(10, 20)], 21, 30));
        assert_eq!(covered(&a, 0, 100), 10 + 80);
        assert_eq!(gap_at(&a, 30), Some((20, 5_000)));
        assert_eq!(gap_at(&a, 15), None);
    }

    #[test]
    fn usable_percentiles() {
        let mut v: Vec<i64> = (0..1000).map(|i| 1_000_000 - i).collect();
        let u = usable(&mut v);
        assert_eq!(u.windows, 1000);
        assert_eq!(u.p50_ppm, 999_500);
        assert_eq!(u.p1_ppm, 999_010);
        assert_eq!(u.min_ppm, 999_001);
    }

    #[test]
    fn checks_compare_with_the_bare_mechanism_and_the_limits() {
        let f = |median: i64, p99: i64| Figures {
            count: 100,
            median,
            p99,
            ..Figures::default()
        };
        let sec = |kind: &'static str, dead: Figures, start: Figures, u: i64| FeltSection {
            kind,
            backend: Backend::FreezerV1,
            spin_margin_ns: 0,
            dead_time: dead,
            start_lateness: start,
            end_lateness: Figures::default(),
            usable: Usable {
                windows: 10,
                p50_ppm: u,
                p1_ppm: u - 2_000,
                min_ppm: u - 3_000,
            },
            release_lateness: f(10_000, 20_000),
            timed_wait_lateness: f(10_000, 20_000),
            holes: Holes::default(),
            planned_wake: None,
            switch_cost: Figures::default(),
            boundaries: 0,
            missed_boundaries: 0,
            counts: FeltCounts::default(),
            notes: Vec::new(),
        };
        let sections = vec![
            sec("bare", f(20_000, 30_000), f(40_000, 90_000), 996_000),
            sec("partita", f(22_000, 40_000), f(30_000, 100_000), 996_000),
            sec(
                "partita-fixed-margin",
                f(100_000, 130_000),
                f(5_000, 60_000),
                985_000,
            ),
        ];
        let c = checks(&sections);
        let get = |t: &str, fig: &str| {
            c.iter()
                .find(|x| x.target == t && x.figure == fig)
                .map(|x| x.pass)
        };
        assert_eq!(get(T_DEAD_BARE, "dead_time.p50"), Some(true));
        assert_eq!(get(T_DEAD_BARE, "dead_time.p99"), Some(false));
        assert_eq!(get(T_DEAD_PEERS, "dead_time.p50"), Some(true));
        assert_eq!(get(T_USABLE, "usable.p50_ppm"), Some(true));
        assert_eq!(get(T_USABLE, "usable.p1_ppm"), Some(true));
        assert_eq!(get(T_LATENESS, "release_lateness.p99"), Some(true));
        assert_eq!(get(T_START, "start_lateness.p99"), Some(false));
        // Only the default Partita runs are checked.
        assert!(c.iter().all(|x| x.backend == Backend::FreezerV1));
        assert_eq!(c.len(), 8);
        let text = render_felt(&FeltReport {
            head: ReportHead {
                format: "partita-bench-felt/1",
                provenance: Provenance::now(),
                elapsed_s: 1.0,
                configuration_hash: "0".into(),
                quick: true,
            },
            plan: FeltPlan {
                core: 1,
                major_frame_ns: MAJOR_FRAME_NS,
                window_ns: WINDOW_NS,
                frames: 10,
                release_delay_ns: RELEASE_DELAY_NS,
                timed_wait_ns: TIMED_WAIT_NS,
                gap_threshold_ns: GAP_THRESHOLD_NS,
                hole_min_ns: HOLE_MIN_NS,
            },
            sections,
            checks: c,
            peers: PEERS.iter().map(|p| (p.0.to_string(), p.1, p.2)).collect(),
        });
        assert!(text.contains("a653lib 25-35 us"), "{text}");
        assert!(
            text.contains("| PASS |") && text.contains("| MISS |"),
            "{text}"
        );
    }
}
