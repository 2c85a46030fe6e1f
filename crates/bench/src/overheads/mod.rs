// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita bench overheads`: the seed study's release overheads (Han and Jin 2013, Section 4
//! and Tables V and VIII) measured on Partita with the study's own workload (its Table III).
//!
//! Two partitions, OFP (GnC, NavReader, SwmReader, AdtReader) and VSP (VdoStrming), share one
//! core in a 20 ms major frame: OFP in [0, 11) ms, VSP in [11, 19) ms, 1 ms left free of
//! real-time work for the kernel's throttling budget (the tasks' hyperperiod is 80 ms). Each task is a periodic
//! APEX process of the executable `partita-bench-overheads-partition` whose jobs use the
//! task's execution time (scaled, see [`OverheadsOptions::scale_permille`]) of CPU time and
//! record their release point, first and last instruction on the APEX clock. The manager
//! records when its scheduler acted on every window start (`RunReport::window_trace`), on the
//! same clock. [`analysis`] turns both into TmrO, PtswO, CtswO, RelO, `e` and `R`. Every
//! backend runs twice: with the scheduler thread on the partitions' core and on a core of its
//! own (the seed's Figure 16). See `docs/benchmarks.md`.

mod analysis;
mod published;
mod render;

pub use analysis::{Distribution, MatchCounts};
pub use published::{Published, PUBLISHED};
pub use render::render_overheads;

use crate::run::{run_notes, run_until};
use crate::switch::{backend_choice, Provenance, ReportHead};
use crate::BenchError;
use analysis::{analyse, Job, WindowObs};
use partita_bench_protocol::args::OverheadsPartitionArgs;
use partita_bench_protocol::overheads::{
    jobs_to_record, OverheadsResult, SeedPartition, HYPERPERIOD_MS, TABLE_III,
};
use partita_config::{CompiledPartition, PlanBuilder};
use partita_manager::{Backend, RunOptions};
use partita_schedule::{FramePlan, Window};
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

const MS: u64 = 1_000_000;
/// Major frame: the partitions' period.
const MINOR_FRAME_NS: u64 = 20 * MS;
/// OFP's window at the start of every minor frame.
const OFP_WINDOW_NS: u64 = 11 * MS;
/// VSP's window right after it.
const VSP_WINDOW_NS: u64 = 8 * MS;
/// Hyperperiods recorded: full run and `--quick`.
const HYPERPERIODS_FULL: usize = 250;
const HYPERPERIODS_QUICK: usize = 12;
/// Hyperperiods a run may take to start its partitions, beyond those it records.
const STARTUP_HYPERPERIODS_MAX: u64 = 40;

/// Where the manager's scheduler thread runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// On the partitions' core (the seed's single-core set-up).
    SharedCore,
    /// On a core of its own (the seed's Figure 16).
    OwnCore,
}

impl std::fmt::Display for Placement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Placement::SharedCore => "scheduler on the partitions' core",
            Placement::OwnCore => "scheduler on a core of its own",
        })
    }
}

/// What to run.
#[derive(Debug, Clone)]
pub struct OverheadsOptions {
    /// 12 hyperperiods (80 ms) per run instead of 250.
    pub quick: bool,
    /// Backends.
    pub backends: Vec<Backend>,
    /// Scheduler placements.
    pub placements: Vec<Placement>,
    /// Table III's execution times are scaled by this (per mille). The task set uses 100 % of
    /// a core (45 + 35 ms of every 80 ms), more than any time-partitioned Linux schedule gives
    /// (real-time throttling keeps 5 % of the core), so the default is 800 (80 %).
    pub scale_permille: u32,
}

impl Default for OverheadsOptions {
    fn default() -> Self {
        OverheadsOptions {
            quick: false,
            backends: vec![Backend::Signals, Backend::FreezerV1, Backend::FreezerV2],
            placements: vec![Placement::SharedCore, Placement::OwnCore],
            scale_permille: 800,
        }
    }
}

/// The schedule and workload every run uses.
#[derive(Debug, Clone, Serialize)]
pub struct OverheadsPlan {
    /// The partitions' core.
    pub core: u32,
    /// The scheduler's core with [`Placement::OwnCore`].
    pub scheduler_core: Option<u32>,
    /// Major frame, ns.
    pub major_frame_ns: u64,
    /// Windows: (partition, offset ns, duration ns).
    pub windows: Vec<(String, u64, u64)>,
    /// Tasks: (name, partition, period ms, execution ms as run, priority).
    pub tasks: Vec<(String, String, u32, f64, i32)>,
    /// The execution-time scale, per mille.
    pub scale_permille: u32,
    /// Hyperperiods (80 ms) recorded per run.
    pub hyperperiods: usize,
    /// The manager's spin margin, ns.
    pub spin_margin_ns: u64,
}

/// The figures of one task.
#[derive(Debug, Clone, Serialize)]
pub struct TaskFigures {
    /// Its name in Table III.
    pub task: &'static str,
    /// Its partition.
    pub partition: &'static str,
    /// Execution time `e = f - s`, ns (includes preemption by higher-priority tasks and the
    /// other partition's windows).
    pub execution: Distribution,
    /// Response time `R = f - r`, ns.
    pub response: Distribution,
    /// CPU time its busy work used per job, ns (the calibration check: the target is the
    /// scaled execution time).
    pub cpu: Distribution,
    /// The scaled execution time asked for, ns.
    pub cpu_target_ns: u64,
}

/// The figures of one run (backend and placement).
#[derive(Debug, Clone, Serialize)]
pub struct OverheadsSection {
    /// Backend.
    pub backend: Backend,
    /// Scheduler placement.
    pub placement: Placement,
    /// Why the run gave no figures, if it did not.
    pub skipped: Option<String>,
    /// TmrO.
    pub timer: Distribution,
    /// PtswO.
    pub partition_switch: Distribution,
    /// CtswO.
    pub context_switch: Distribution,
    /// RelO of the first process of a partition.
    pub release_first: Distribution,
    /// RelO of the other processes.
    pub release_other: Distribution,
    /// Per task.
    pub tasks: Vec<TaskFigures>,
    /// What was left out.
    pub counts: MatchCounts,
    /// Window starts the manager did not keep (over its trace limit).
    pub windows_untraced: u64,
    /// Boundaries the scheduler skipped.
    pub missed_boundaries: u64,
    /// Deadline misses per partition.
    pub deadline_misses: Vec<(String, u64)>,
    /// Remarks.
    pub notes: Vec<String>,
    /// A timeline of one hyperperiod of the run, from its trace (SVG; the first run with
    /// figures is traced). Written as `overheads-timeline.svg`, not into the JSON.
    #[serde(skip)]
    pub timeline_svg: Option<String>,
}

/// Everything `bench overheads` measured.
#[derive(Debug, Clone, Serialize)]
pub struct OverheadsReport {
    /// Format, machine, revision, start, duration, configuration hash, quick or not.
    #[serde(flatten)]
    pub head: ReportHead,
    /// The set-up.
    pub plan: OverheadsPlan,
    /// One per backend and placement.
    pub sections: Vec<OverheadsSection>,
    /// The seed study's figures.
    pub published: Vec<Published>,
}

/// FNV-1a (64 bits) of `bytes`, as hex: a hash that stays the same across builds.
pub(crate) fn fnv1a_hex(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The schedule: a 20 ms major frame, OFP in [0, 11) ms and VSP in [11, 19) ms. The major
/// frame is the partitions' period (`PlanBuilder`), and a process period must be a multiple
/// of it: the 20 ms tasks need a 20 ms frame; the hyperperiod of the tasks is 80 ms.
fn frame_plan(core: u32) -> FramePlan {
    let w = |id: u32, partition: usize, offset: u64, duration: u64| Window {
        id,
        partition,
        core,
        offset,
        duration,
        period_start: true,
    };
    FramePlan {
        major_frame: MINOR_FRAME_NS,
        windows: vec![
            w(1, 0, 0, OFP_WINDOW_NS),
            w(2, 1, OFP_WINDOW_NS, VSP_WINDOW_NS),
        ],
    }
}

pub(crate) fn plan_info(
    core: u32,
    scheduler_core: Option<u32>,
    opts: &OverheadsOptions,
) -> OverheadsPlan {
    let fp = frame_plan(core);
    OverheadsPlan {
        core,
        scheduler_core,
        major_frame_ns: fp.major_frame,
        windows: fp
            .windows
            .iter()
            .map(|w| {
                (
                    SeedPartition::ALL[w.partition].name().to_string(),
                    w.offset,
                    w.duration,
                )
            })
            .collect(),
        tasks: TABLE_III
            .iter()
            .map(|t| {
                (
                    t.name.to_string(),
                    t.partition.name().to_string(),
                    t.period_ms,
                    f64::from(t.execution_ms) * f64::from(opts.scale_permille) / 1000.0,
                    t.priority,
                )
            })
            .collect(),
        scale_permille: opts.scale_permille,
        hyperperiods: if opts.quick {
            HYPERPERIODS_QUICK
        } else {
            HYPERPERIODS_FULL
        },
        spin_margin_ns: RunOptions::default().spin_margin.as_nanos() as u64,
    }
}

/// Runs the benchmark. `progress` receives a line per run as it finishes.
pub fn run_overheads(
    opts: &OverheadsOptions,
    stop: Arc<AtomicBool>,
    mut progress: impl FnMut(&str),
) -> Result<OverheadsReport, BenchError> {
    if !partita_sys::proc::is_root() {
        return Err(BenchError::NotRoot);
    }
    let t0 = std::time::Instant::now();
    let provenance = Provenance::now();
    let cpus = partita_sys::sched::online_cpus();
    let core = u32::from(cpus > 1);
    let scheduler_core = (cpus > 1).then_some(0);
    let plan = plan_info(core, scheduler_core, opts);
    let exe = crate::partition_executable(partita_bench_protocol::OVERHEADS_PARTITION)?;
    let _ = partita_sys::sched::lock_memory();
    let mut sections = Vec::new();
    let total = opts.backends.len() * opts.placements.len();
    for &backend in &opts.backends {
        for &placement in &opts.placements {
            if stop.load(Ordering::Relaxed) {
                return Err(BenchError::Interrupted);
            }
            let sched = match placement {
                Placement::SharedCore => Ok(None),
                Placement::OwnCore => scheduler_core
                    .map(Some)
                    .ok_or("one online core: no core of its own for the scheduler"),
            };
            let section = match sched {
                Ok(sched) => match run_one(
                    &plan,
                    &exe,
                    backend,
                    placement,
                    sched,
                    None,
                    sections
                        .iter()
                        .all(|x: &OverheadsSection| x.skipped.is_some()),
                    &stop,
                ) {
                    Ok(s) => s,
                    Err(BenchError::Interrupted) => return Err(BenchError::Interrupted),
                    Err(e) => skipped(backend, placement, e.to_string()),
                },
                Err(why) => skipped(backend, placement, why.to_string()),
            };
            progress(&format!(
                "[{}/{total}] {backend}, {placement}: {}",
                sections.len() + 1,
                match &section.skipped {
                    Some(why) => format!("no figures ({why})"),
                    None => format!(
                        "{} window starts, {} jobs, PtswO median {:.1} us",
                        section.timer.count,
                        section.tasks.iter().map(|t| t.execution.count).sum::<u64>(),
                        section.partition_switch.median_ns as f64 / 1e3
                    ),
                }
            ));
            sections.push(section);
        }
    }
    let configuration_hash = fnv1a_hex(
        serde_json::to_string(&(&plan, &opts.backends, &opts.placements))
            .unwrap_or_default()
            .as_bytes(),
    );
    Ok(OverheadsReport {
        head: ReportHead {
            format: "partita-bench-overheads/1",
            provenance,
            elapsed_s: t0.elapsed().as_secs_f64(),
            configuration_hash,
            quick: opts.quick,
        },
        plan,
        sections,
        published: PUBLISHED.to_vec(),
    })
}

pub(crate) fn skipped(backend: Backend, placement: Placement, why: String) -> OverheadsSection {
    OverheadsSection {
        backend,
        placement,
        skipped: Some(why),
        timer: Distribution::default(),
        partition_switch: Distribution::default(),
        context_switch: Distribution::default(),
        release_first: Distribution::default(),
        release_other: Distribution::default(),
        tasks: Vec::new(),
        counts: MatchCounts::default(),
        windows_untraced: 0,
        missed_boundaries: 0,
        deadline_misses: Vec::new(),
        notes: Vec::new(),
        timeline_svg: None,
    }
}

/// Runs the module once and works out the figures; `processes`: every partition has this
/// many processes (its tasks and extra ones), instead of its tasks alone; `timeline`: trace
/// the run and draw one hyperperiod of it.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_one(
    plan: &OverheadsPlan,
    exe: &std::path::Path,
    backend: Backend,
    placement: Placement,
    scheduler_core: Option<u32>,
    processes: Option<u32>,
    timeline: bool,
    stop: &AtomicBool,
) -> Result<OverheadsSection, BenchError> {
    let tag = crate::run_tag();
    let results = crate::result_files("overheads", &tag, SeedPartition::ALL.len());
    let logs =
        crate::RemoveDir(std::env::temp_dir().join(format!("partita-bench-overheads-{tag}")));
    let mut builder = PlanBuilder::new("bench-overheads", frame_plan(plan.core));
    for p in SeedPartition::ALL {
        let tasks = partita_bench_protocol::overheads::tasks_of(p).count() as u32;
        let extra = processes.map_or(0, |n| n.saturating_sub(tasks));
        builder = builder.partition(CompiledPartition {
            args: OverheadsPartitionArgs {
                partition: p,
                result: results[p.index()].0.clone(),
                scale_permille: plan.scale_permille,
                hyperperiods: plan.hyperperiods,
                extra_processes: extra,
            }
            .to_args(),
            cores: vec![plan.core],
            max_processes: (extra > 0).then_some(tasks + extra + 1),
            ..CompiledPartition::new(p.index() as u32 + 1, p.name(), exe.to_path_buf())
        });
    }
    let compiled = builder.build()?;
    let frames =
        (plan.hyperperiods as u64 + STARTUP_HYPERPERIODS_MAX) * u64::from(HYPERPERIOD_MS) * MS
            / plan.major_frame_ns;
    let trace_file = timeline.then(|| logs.0.join("overheads.trace"));
    let opts = RunOptions {
        backend: backend_choice(backend),
        duration: Some(Duration::from_nanos(plan.major_frame_ns * frames)),
        echo: false,
        log_dir: Some(logs.0.clone()),
        window_trace: (frames as usize + 10) * frame_plan(plan.core).windows.len(),
        scheduler_core,
        trace: trace_file.clone().map(partita_manager::TraceOptions::new),
        ..RunOptions::default()
    };
    let report = run_until(&compiled, opts, stop, || {
        results.iter().all(|r| r.0.exists())
    })?;
    let mut notes = run_notes(&report, true);
    let timeline_svg = match &trace_file {
        None => None,
        Some(file) => match hyperperiod_timeline(file, plan.major_frame_ns) {
            Ok(svg) => Some(svg),
            Err(e) => {
                notes.push(format!("no timeline: {e}"));
                None
            }
        },
    };
    if let Some(c) = report.cores.iter().find(|c| c.core == plan.core) {
        notes.extend(c.errors.iter().take(10).cloned());
    }
    let mut jobs = Vec::new();
    for p in SeedPartition::ALL {
        let name = p.name();
        let stderr = || crate::run::partition_stderr(&logs.0, name);
        let r: OverheadsResult = crate::read_result(name, &results[p.index()].0, stderr)?;
        notes.extend(r.notes.iter().map(|n| format!("{name}: {n}")));
        jobs.extend(r.jobs.iter().map(|&record| Job {
            partition: p.index(),
            record,
        }));
    }
    let windows: Vec<WindowObs> = report
        .window_trace
        .iter()
        .filter(|w| w.core == plan.core)
        .map(|w| WindowObs {
            partition: w.partition,
            planned: w.planned_ns as i64,
            actual: w.actual_ns as i64,
        })
        .collect();
    let mut s = analyse(&windows, &jobs, TABLE_III.len());
    let tasks = TABLE_III
        .iter()
        .enumerate()
        .map(|(i, t)| TaskFigures {
            task: t.name,
            partition: t.partition.name(),
            execution: Distribution::of(&mut s.execution[i]),
            response: Distribution::of(&mut s.response[i]),
            cpu: Distribution::of(&mut s.cpu[i]),
            cpu_target_ns: partita_bench_protocol::overheads::scaled_execution_ns(
                t,
                plan.scale_permille,
            ),
        })
        .collect::<Vec<_>>();
    for (t, f) in TABLE_III.iter().zip(&tasks) {
        let want = jobs_to_record(t, plan.hyperperiods) as u64;
        if f.execution.count != want {
            notes.push(format!(
                "{}: {} jobs recorded, {want} asked for",
                t.name, f.execution.count
            ));
        }
    }
    Ok(OverheadsSection {
        backend,
        placement,
        skipped: None,
        timer: Distribution::of(&mut s.timer),
        partition_switch: Distribution::of(&mut s.partition_switch),
        context_switch: Distribution::of(&mut s.context_switch),
        release_first: Distribution::of(&mut s.release_first),
        release_other: Distribution::of(&mut s.release_other),
        tasks,
        counts: s.counts,
        windows_untraced: report.window_trace_dropped,
        missed_boundaries: report.cores.iter().map(|c| c.missed_boundaries).sum(),
        deadline_misses: report
            .partitions
            .iter()
            .map(|p| (p.name.clone(), p.deadline_misses))
            .collect(),
        notes,
        timeline_svg,
    })
}

/// One hyperperiod (the four frames ending two hyperperiods before the last window start of
/// the trace, well inside the measured part of the run) drawn as an SVG timeline.
fn hyperperiod_timeline(
    file: &std::path::Path,
    major_frame_ns: u64,
) -> Result<String, partita_trace::ViewError> {
    use partita_abi::trace::EventKind;
    let trace = partita_trace::Trace::read(file)?;
    let last_start = trace
        .events
        .iter()
        .rev()
        .find(|e| e.kind == EventKind::WindowStart)
        .map_or(0, |e| e.time_ns);
    let per_hyperperiod = u64::from(HYPERPERIOD_MS) * MS / major_frame_ns.max(1);
    let last_frame = last_start.saturating_sub(trace.meta.epoch_ns) / major_frame_ns.max(1);
    let first = (last_frame / per_hyperperiod).saturating_sub(2) * per_hyperperiod;
    let part = trace.select(&partita_trace::Selection {
        span: partita_trace::Span::Frames {
            first,
            end: first + per_hyperperiod,
        },
        ..Default::default()
    })?;
    partita_trace::svg::render(&part)
}

/// The CDFs of TmrO, PtswO and CtswO (the seed's Figure 15: a panel per backend) as SVG
/// files, one per scheduler placement (own core: the seed's Figure 16): (file name, text).
pub fn overheads_figures(r: &OverheadsReport) -> Vec<(String, String)> {
    use partita_synth::svg::{cdf_panels, Series};
    let mut out = Vec::new();
    for (placement, file, what) in [
        (
            Placement::SharedCore,
            "overheads-cdf.svg",
            "scheduler on the partitions' core",
        ),
        (
            Placement::OwnCore,
            "overheads-cdf-own-core.svg",
            "scheduler on a core of its own",
        ),
    ] {
        let panels: Vec<(String, Vec<Series>)> = r
            .sections
            .iter()
            .filter(|x| x.placement == placement && x.skipped.is_none())
            .map(|x| {
                let series = [
                    ("TmrO", &x.timer),
                    ("PtswO", &x.partition_switch),
                    ("CtswO", &x.context_switch),
                ]
                .into_iter()
                .filter(|(_, d)| d.count > 0)
                .map(|(name, d)| Series {
                    name: name.into(),
                    // Up to the 99th percentile: a single late sample would otherwise set
                    // the scale of every panel.
                    values: d
                        .percentiles_ns
                        .iter()
                        .take(100)
                        .map(|&v| v as f64 / 1e3)
                        .collect(),
                })
                .collect();
                (x.backend.to_string(), series)
            })
            .collect();
        if panels.is_empty() {
            continue;
        }
        out.push((
            file.to_string(),
            cdf_panels(
                &format!(
                    "Cumulative probability of the system overheads to the 99th percentile, {what}"
                ),
                "us",
                &panels,
            ),
        ));
    }
    if let Some(svg) = r.sections.iter().find_map(|x| x.timeline_svg.clone()) {
        out.push(("overheads-timeline.svg".to_string(), svg));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_gives_each_partition_its_window_in_every_frame() {
        let fp = frame_plan(1);
        assert_eq!(fp.major_frame, 20 * MS);
        let w: Vec<(usize, u64, u64, u32)> = fp
            .windows
            .iter()
            .map(|w| (w.partition, w.offset, w.duration, w.core))
            .collect();
        assert_eq!(w, [(0, 0, 11 * MS, 1), (1, 11 * MS, 8 * MS, 1)]);
        // 1 ms of every frame stays free of real-time work, and every task's period is a
        // multiple of the frame (the partitions' period).
        assert_eq!(MINOR_FRAME_NS - OFP_WINDOW_NS - VSP_WINDOW_NS, MS);
        assert!(TABLE_III
            .iter()
            .all(|t| (u64::from(t.period_ms) * MS).is_multiple_of(fp.major_frame)));
    }

    #[test]
    fn the_scaled_task_set_fits_its_windows() {
        let o = OverheadsOptions::default();
        for (p, window) in [
            (SeedPartition::Ofp, OFP_WINDOW_NS),
            (SeedPartition::Vsp, VSP_WINDOW_NS),
        ] {
            let demand: u64 = partita_bench_protocol::overheads::tasks_of(p)
                .map(|(_, t)| {
                    partita_bench_protocol::overheads::scaled_execution_ns(t, o.scale_permille)
                        * u64::from(HYPERPERIOD_MS / t.period_ms)
                })
                .sum();
            let supply = window * u64::from(HYPERPERIOD_MS) * MS / MINOR_FRAME_NS;
            assert!(demand < supply, "{p}: {demand} of {supply}");
        }
    }

    #[test]
    fn the_configuration_hash_is_stable() {
        assert_eq!(fnv1a_hex(b""), "cbf29ce484222325");
        assert_eq!(fnv1a_hex(b"a"), "af63dc4c8601ec8c");
    }
}
