// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita bench apex`: per-call latency of the non-blocking APEX services and the cost of a
//! process switch inside a partition, against a bare futex hand-off measured in the same run.
//!
//! The bench builds a one-partition plan ([`PlanBuilder`]) whose partition is the executable
//! `partita-bench-apex-partition` (`partita_bench_partitions::apex`), run by the partition
//! manager. The partition measures with `partita_sys::time::monotonic_ns` around every call,
//! computes the figures and writes them as JSON into a file under `/dev/shm`
//! (`partita_bench_protocol::apex::ApexResult`), which the bench reads. The bare floor (two plain threads of the bench process, pinned to the same core at the
//! partitions' `SCHED_FIFO` priority, handing off through a futex) is measured by the bench
//! itself before the partition runs. See `docs/benchmarks.md`.

use crate::run::{run_notes, run_until};
use crate::stats::Figures;
use crate::switch::{git, machine, Machine};
use crate::BenchError;
use partita_bench_protocol::apex::{ApexResult, HIGH_PRIORITY, LOW_PRIORITY, WARMUP};
use partita_bench_protocol::args::ApexPartitionArgs;
use partita_config::{CompiledPartition, PlanBuilder};
use partita_manager::RunOptions;
use partita_schedule::{FramePlan, Window};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Major frame of the one-partition plan.
const MAJOR_FRAME_NS: u64 = 10_000_000;
/// The partition's window, at offset 0: 1 ms of every frame stays free of real-time work
/// (real-time throttling needs 5 % of the core, and the switcher's spin counts).
const WINDOW_NS: u64 = 9_000_000;
/// Samples that begin less than this after the window start, or end less than this before the
/// switcher wakes (window end less the spin margin), are dropped: the switcher's work at the
/// boundaries is not the service's.
const EDGE_GUARD_NS: u64 = 20_000;
/// Calls per service (and hand-offs per kind): full run and `--quick`.
const CALLS_FULL: usize = 100_000;
const CALLS_QUICK: usize = 10_000;
/// Upper bound on a run of the partition.
const RUN_LIMIT: Duration = Duration::from_secs(100);
/// The bare hand-off sleeps this long every `BARE_BATCH` hand-offs (keeps real-time throttling
/// away: the ping-pong is otherwise 100 % real-time work on the core).
const BARE_BATCH: usize = 1_000;
const BARE_PAUSE: Duration = Duration::from_millis(1);
/// Identity and status services: median target.
const QUERY_TARGET_NS: i64 = 100;
/// Hand-offs: factor over the bare futex hand-off.
const HANDOFF_FACTOR: f64 = 1.5;

/// What to run.
#[derive(Debug, Clone, Default)]
pub struct ApexOptions {
    /// 10,000 calls per service instead of 100,000.
    pub quick: bool,
}

/// Latency of one service.
#[derive(Debug, Clone, Serialize)]
pub struct ServiceFigures {
    /// The APEX service.
    pub service: String,
    /// `query` (identity and status services, under the 100 ns target) or `operation`.
    pub kind: &'static str,
    /// What was measured, when not obvious.
    pub condition: String,
    /// Per-call latency, ns, less the median cost of an empty timing pair.
    pub figures: Figures,
    /// Calls dropped because they touched a window edge.
    pub dropped: u64,
    /// Calls that returned an error.
    pub errors: u64,
}

/// One hand-off measure.
#[derive(Debug, Clone, Serialize)]
pub struct HandoffFigures {
    /// `bare` (futex, plain threads) or `partita` (APEX processes).
    pub kind: &'static str,
    /// `wake`: from just before the waking call to the first instruction of the woken thread;
    /// `block`: from just before the blocking call of the woken thread to the first
    /// instruction of the waker (the switch back).
    pub direction: &'static str,
    /// A short label.
    pub label: String,
    /// ns, less the median cost of an empty timing pair.
    pub figures: Figures,
    /// Hand-offs dropped because they touched a window edge.
    pub dropped: u64,
}

/// One target check.
#[derive(Debug, Clone, Serialize)]
pub struct ApexCheck {
    /// Which target.
    pub target: &'static str,
    /// The service or hand-off, and the statistic.
    pub figure: String,
    /// Our value, ns.
    pub value: i64,
    /// The limit (absolute target) or the bare figure, ns.
    pub reference: i64,
    /// value / reference (hand-offs).
    pub ratio: Option<f64>,
    /// Met.
    pub pass: bool,
}

/// The set-up every figure comes from.
#[derive(Debug, Clone, Serialize)]
pub struct ApexPlan {
    /// Core of the partition and of the bare threads.
    pub core: u32,
    /// Major frame, ns.
    pub major_frame_ns: u64,
    /// The partition's window (offset 0), ns.
    pub window_ns: u64,
    /// The manager's spin margin, ns.
    pub spin_margin_ns: u64,
    /// Samples closer than this to a window edge are dropped, ns.
    pub edge_guard_ns: u64,
    /// Partition-switch backend the manager used.
    pub backend: String,
    /// Whether the runtime lowers a parked process thread's priority (control block).
    pub park_lowering: Option<bool>,
    /// Calls per service and hand-offs per kind (after warm-up).
    pub calls: usize,
    /// Priorities: measuring (low) and woken (high) APEX processes.
    pub priorities: (i32, i32),
    /// `SCHED_FIFO` priority of designated APEX threads and of the bare threads.
    pub fifo_priority: i32,
}

/// Everything `bench apex` measured.
#[derive(Debug, Clone, Serialize)]
pub struct ApexReport {
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
    /// Quick run.
    pub quick: bool,
    /// The set-up.
    pub plan: ApexPlan,
    /// Raw cost of an empty timing pair inside the partition, ns (its median is subtracted
    /// from every partition figure).
    pub timing_pair: Figures,
    /// The same in the bench process (subtracted from the bare figures).
    pub bare_timing_pair: Figures,
    /// Per-call latency of every service.
    pub services: Vec<ServiceFigures>,
    /// Hand-offs: bare first, then semaphore and event.
    pub handoffs: Vec<HandoffFigures>,
    /// Target checks.
    pub checks: Vec<ApexCheck>,
    /// Errors and remarks.
    pub notes: Vec<String>,
}

/// Target texts.
pub(crate) const T_QUERY: &str = "identity and status services under 100 ns median";
pub(crate) const T_HANDOFF: &str =
    "semaphore/event hand-off median and p99 within 1.5x of the bare futex hand-off";

mod bare;

use bare::run_bare;

// ---------------------------------------------------------------------------------------------
// Bench side
// ---------------------------------------------------------------------------------------------

/// Runs the partition executable `exe` (the partition of `bench apex`, or another that takes
/// its command line) as the only partition of module `bench-<bench>`, in the window and frame
/// of `bench apex`; returns its results, the backend used and notes.
pub(crate) fn run_partition<T: crate::PartitionResult>(
    bench: &str,
    exe: PathBuf,
    core: u32,
    n: usize,
    margin: Duration,
    stop: &Arc<AtomicBool>,
) -> Result<(T, String, Vec<String>), BenchError> {
    let tag = format!(
        "{}-{}",
        partita_sys::sched::getpid(),
        partita_sys::time::monotonic_ns()
    );
    let result = crate::RemoveFile(PathBuf::from(format!(
        "/dev/shm/partita-bench-{bench}-{tag}.json"
    )));
    let logs = crate::RemoveDir(std::env::temp_dir().join(format!("partita-bench-{bench}-{tag}")));
    let frame = FramePlan {
        major_frame: MAJOR_FRAME_NS,
        windows: vec![Window {
            id: 1,
            partition: 0,
            core,
            offset: 0,
            duration: WINDOW_NS,
            period_start: true,
        }],
    };
    let partition = CompiledPartition {
        args: ApexPartitionArgs {
            result: result.0.clone(),
            calls: n,
            major_frame_ns: MAJOR_FRAME_NS as i64,
            window_ns: WINDOW_NS as i64,
            spin_margin_ns: margin.as_nanos() as i64,
            edge_guard_ns: EDGE_GUARD_NS as i64,
        }
        .to_args(),
        cores: vec![core],
        ..CompiledPartition::new(1, "P", exe)
    };
    let plan = PlanBuilder::new(&format!("bench-{bench}"), frame)
        .partition(partition)
        .build()?;
    let opts = RunOptions {
        duration: Some(RUN_LIMIT),
        echo: false,
        log_dir: Some(logs.0.clone()),
        spin_margin: margin,
        // The runtime's override of the manager's park-lowering choice, passed through.
        env: std::env::var("PARTITA_PARK_LOWERING")
            .map(|v| vec![("PARTITA_PARK_LOWERING".to_string(), v)])
            .unwrap_or_default(),
        ..RunOptions::default()
    };
    let report = run_until(&plan, opts, stop, || result.0.exists())?;
    let mut notes = run_notes(&report, true);
    if let Some(c) = report.cores.iter().find(|c| c.core == core) {
        notes.extend(c.errors.iter().take(10).cloned());
    }
    let stderr = || crate::run::partition_stderr(&logs.0, "P");
    let r: T = crate::read_result("P", &result.0, stderr)?;
    Ok((r, report.backend.to_string(), notes))
}

/// Runs the benchmark. `progress` receives a line per step as it finishes.
pub fn run_apex(
    opts: &ApexOptions,
    stop: Arc<AtomicBool>,
    mut progress: impl FnMut(&str),
) -> Result<ApexReport, BenchError> {
    if !partita_sys::proc::is_root() {
        return Err(BenchError::NotRoot);
    }
    let t0 = std::time::Instant::now();
    let git_revision = git(&["rev-parse", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let git_dirty = git(&["status", "--porcelain", "--untracked-files=no"]).map(|s| !s.is_empty());
    let started_unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let core = if partita_sys::sched::online_cpus() > 1 {
        1
    } else {
        0
    };
    let n = if opts.quick { CALLS_QUICK } else { CALLS_FULL };
    let margin = RunOptions::default().spin_margin;
    // Before measuring anything: the partition is there.
    let exe = crate::partition_executable(partita_bench_protocol::APEX_PARTITION)?;
    let _ = partita_sys::sched::lock_memory();
    progress(&format!(
        "{n} calls per service and {n} hand-offs per kind on core {core}"
    ));
    let (bare_pair, bare_wake, bare_block, mut notes) = run_bare(core, n);
    progress(&format!(
        "bare futex hand-off: wake median {} ns, block median {} ns",
        bare_wake.median, bare_block.median
    ));
    if stop.load(Ordering::Relaxed) {
        return Err(BenchError::Interrupted);
    }
    let (r, backend, run_notes) = run_partition::<ApexResult>("apex", exe, core, n, margin, &stop)?;
    notes.extend(run_notes);
    notes.extend(r.notes.iter().cloned());
    progress(&format!(
        "partition ({backend}): {} services, {} hand-off figures",
        r.services.len(),
        r.handoffs.len()
    ));
    let services: Vec<ServiceFigures> = r
        .services
        .iter()
        .map(|s| ServiceFigures {
            service: s.service.clone(),
            kind: if s.query { "query" } else { "operation" },
            condition: s.condition.clone(),
            figures: s.figures,
            dropped: s.dropped,
            errors: s.errors,
        })
        .collect();
    let mut handoffs = vec![
        HandoffFigures {
            kind: "bare",
            direction: "wake",
            label: "futex wake -> waiter".into(),
            figures: bare_wake,
            dropped: 0,
        },
        HandoffFigures {
            kind: "bare",
            direction: "block",
            label: "futex wait -> waker".into(),
            figures: bare_block,
            dropped: 0,
        },
    ];
    for h in &r.handoffs {
        handoffs.push(HandoffFigures {
            kind: "partita",
            direction: if h.wake { "wake" } else { "block" },
            label: h.label.clone(),
            figures: h.figures,
            dropped: h.dropped,
        });
    }
    let checks = checks(&services, &handoffs);
    Ok(ApexReport {
        format: "partita-bench-apex/1",
        started_unix,
        elapsed_s: t0.elapsed().as_secs_f64(),
        machine: machine(),
        git_revision,
        git_dirty,
        quick: opts.quick,
        plan: ApexPlan {
            core,
            major_frame_ns: MAJOR_FRAME_NS,
            window_ns: WINDOW_NS,
            spin_margin_ns: margin.as_nanos() as u64,
            edge_guard_ns: EDGE_GUARD_NS,
            backend,
            park_lowering: r.park_lowering,
            calls: n,
            priorities: (LOW_PRIORITY, HIGH_PRIORITY),
            fifo_priority: partita_manager::PARTITION_RUN_PRIORITY,
        },
        timing_pair: r.pair,
        bare_timing_pair: bare_pair,
        services,
        handoffs,
        checks,
        notes,
    })
}

fn checks(services: &[ServiceFigures], handoffs: &[HandoffFigures]) -> Vec<ApexCheck> {
    let mut out = Vec::new();
    for s in services.iter().filter(|s| s.kind == "query") {
        out.push(ApexCheck {
            target: T_QUERY,
            figure: format!("{}.median", s.service),
            value: s.figures.median,
            reference: QUERY_TARGET_NS,
            ratio: None,
            pass: s.figures.count > 0 && s.figures.median < QUERY_TARGET_NS,
        });
    }
    let floor = handoffs
        .iter()
        .find(|h| h.kind == "bare" && h.direction == "wake");
    if let Some(fl) = floor.filter(|f| f.figures.count > 0) {
        for h in handoffs
            .iter()
            .filter(|h| h.kind == "partita" && h.direction == "wake")
        {
            for (stat, v, r) in [
                ("median", h.figures.median, fl.figures.median),
                ("p99", h.figures.p99, fl.figures.p99),
            ] {
                out.push(ApexCheck {
                    target: T_HANDOFF,
                    figure: format!("{}.{stat}", h.label),
                    value: v,
                    reference: r,
                    ratio: (r > 0).then(|| v as f64 / r as f64),
                    pass: h.figures.count > 0 && r > 0 && v as f64 <= HANDOFF_FACTOR * r as f64,
                });
            }
        }
    }
    out
}

/// Renders the report as text.
pub fn render_apex(r: &ApexReport) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let m = &r.machine;
    let _ =
        writeln!(
        s,
        "Partita APEX service benchmark{}: {} ({} cores), Linux {}, clocksource {}, revision {}{}",
        if r.quick { " (quick)" } else { "" },
        m.cpu_model,
        m.cores,
        m.kernel,
        m.clocksource,
        r.git_revision,
        if r.git_dirty == Some(true) { " + local changes" } else { "" }
    );
    let p = &r.plan;
    let _ = writeln!(
        s,
        "plan: one partition on core {}, window [0, {}) ms of a {} ms major frame, backend {}, park lowering {}; calls within {} us of a window edge dropped",
        p.core,
        p.window_ns as f64 / 1e6,
        p.major_frame_ns as f64 / 1e6,
        p.backend,
        match p.park_lowering {
            Some(true) => "on",
            Some(false) => "off",
            None => "unknown",
        },
        p.edge_guard_ns / 1000
    );
    let _ = writeln!(
        s,
        "figures in ns, less the median cost of an empty timing pair (monotonic_ns twice: {} ns in the partition, {} ns in the bench)",
        r.timing_pair.median, r.bare_timing_pair.median
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "  {:<27} {:>7} {:>7} {:>7} {:>7} {:>7} {:>9}  condition",
        "service", "n", "min", "median", "p99", "p99.9", "max"
    );
    for x in &r.services {
        let f = &x.figures;
        let _ = writeln!(
            s,
            "  {:<27} {:>7} {:>7} {:>7} {:>7} {:>7} {:>9}  {}{}",
            x.service,
            f.count,
            f.min,
            f.median,
            f.p99,
            f.p999,
            f.max,
            x.condition,
            if x.errors > 0 {
                format!(" ({} errors)", x.errors)
            } else {
                String::new()
            }
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "  {:<36} {:>7} {:>7} {:>7} {:>7} {:>7} {:>9}  {:<6} {:<6}",
        "hand-off (wake: call -> other runs)",
        "n",
        "min",
        "median",
        "p99",
        "p99.9",
        "max",
        "x bare",
        ""
    );
    let floor = |dir: &str| {
        r.handoffs
            .iter()
            .find(|h| h.kind == "bare" && h.direction == dir)
            .map(|h| h.figures)
    };
    for h in &r.handoffs {
        let f = &h.figures;
        let (a, b) = match floor(h.direction) {
            Some(fl) if h.kind != "bare" && fl.median > 0 && fl.p99 > 0 => (
                format!("{:.2}", f.median as f64 / fl.median as f64),
                format!("{:.2}", f.p99 as f64 / fl.p99 as f64),
            ),
            _ => (String::new(), String::new()),
        };
        let _ = writeln!(
            s,
            "  {:<36} {:>7} {:>7} {:>7} {:>7} {:>7} {:>9}  {:<6} {:<6}",
            format!("{} ({})", h.label, h.direction),
            f.count,
            f.min,
            f.median,
            f.p99,
            f.p999,
            f.max,
            a,
            b
        );
    }
    let dropped: Vec<String> = r
        .services
        .iter()
        .filter(|x| x.dropped > 0)
        .map(|x| format!("{} {}", x.service, x.dropped))
        .chain(
            r.handoffs
                .iter()
                .filter(|h| h.dropped > 0)
                .map(|h| format!("{} ({}) {}", h.label, h.direction, h.dropped)),
        )
        .collect();
    let mut remarks = Vec::new();
    if !dropped.is_empty() {
        remarks.push(format!("dropped at window edges: {}", dropped.join(", ")));
    }
    remarks.extend(r.notes.iter().cloned());
    if !remarks.is_empty() {
        let _ = writeln!(s);
        let _ = writeln!(s, "remarks:");
        for l in remarks {
            let _ = writeln!(s, "  {l}");
        }
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "targets (PASS/MISS; a miss does not fail the command):");
    let mark = |p: bool| if p { "PASS" } else { "MISS" };
    for target in [T_QUERY, T_HANDOFF] {
        let _ = writeln!(s, "  {target}:");
        let cs: Vec<&ApexCheck> = r.checks.iter().filter(|c| c.target == target).collect();
        if cs.is_empty() {
            let _ = writeln!(s, "    (nothing to compare)");
        }
        for c in cs {
            let detail = match c.ratio {
                Some(q) => format!("{} ns = {q:.2}x bare {} ns", c.value, c.reference),
                None => format!("{} ns (limit {} ns)", c.value, c.reference),
            };
            let _ = writeln!(s, "    {} {:<48} {detail}", mark(c.pass), c.figure);
        }
    }
    let passed = r.checks.iter().filter(|c| c.pass).count();
    let _ = writeln!(
        s,
        "  {passed} of {} checks met; bench took {:.1} s",
        r.checks.len(),
        r.elapsed_s
    );
    s
}
