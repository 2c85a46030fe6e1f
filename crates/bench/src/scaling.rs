// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita bench scaling`: the partition-switch overhead against the number of processes per
//! partition (the seed study's Figures 6 and 7: average and jitter), and the start-up time
//! against the number of partitions (its Figure 20), per backend.
//!
//! The switch runs are `bench overheads` runs (scheduler on the partitions' core) whose
//! partitions also hold extra periodic processes (lowest priority, no work), so that each has
//! the given number of processes; PtswO and TmrO are defined there. A start-up run builds a
//! plan of K partitions of the same executable in its probe role (no processes: it writes
//! when it is about to enter NORMAL) in 2 ms windows, and measures from the call that runs
//! the module to the last partition's probe instant.

use crate::overheads::{
    fnv1a_hex, plan_info, run_one, skipped, Distribution, OverheadsOptions, OverheadsPlan,
    Placement,
};
use crate::run::run_until;
use crate::switch::{backend_choice, Provenance, ReportHead};
use crate::BenchError;
use partita_bench_protocol::args::OverheadsPartitionArgs;
use partita_bench_protocol::overheads::{OverheadsResult, SeedPartition};
use partita_config::{CompiledPartition, PlanBuilder};
use partita_manager::{Backend, RunOptions};
use partita_schedule::{FramePlan, Window};
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Processes per partition: full run and `--quick`.
const PROCESSES_FULL: [u32; 5] = [4, 8, 16, 32, 64];
const PROCESSES_QUICK: [u32; 3] = [4, 16, 64];
/// Hyperperiods (80 ms) per switch run: full and `--quick` (5 window starts with a release
/// per hyperperiod).
const HYPERPERIODS_FULL: usize = 100;
const HYPERPERIODS_QUICK: usize = 20;
/// Partitions of the start-up runs, and runs per count.
const PARTITIONS_FULL: [u32; 5] = [1, 2, 4, 8, 16];
const PARTITIONS_QUICK: [u32; 3] = [1, 4, 16];
const STARTUPS_FULL: usize = 5;
const STARTUPS_QUICK: usize = 2;
/// Window of each partition in the start-up runs.
const STARTUP_WINDOW_NS: u64 = 2_000_000;
/// Upper bound on a start-up run.
const STARTUP_LIMIT: Duration = Duration::from_secs(30);

/// What to run.
#[derive(Debug, Clone)]
pub struct ScalingOptions {
    /// Fewer points and samples.
    pub quick: bool,
    /// Backends.
    pub backends: Vec<Backend>,
}

impl Default for ScalingOptions {
    fn default() -> Self {
        ScalingOptions {
            quick: false,
            backends: OverheadsOptions::default().backends,
        }
    }
}

/// The switch figures of one backend and process count.
#[derive(Debug, Clone, Serialize)]
pub struct SwitchPoint {
    /// Backend.
    pub backend: Backend,
    /// Processes per partition.
    pub processes: u32,
    /// Why there are no figures, if so.
    pub skipped: Option<String>,
    /// PtswO, ns.
    pub partition_switch: Distribution,
    /// TmrO, ns.
    pub timer: Distribution,
    /// Remarks of the run.
    pub notes: Vec<String>,
}

/// The start-up times of one backend and partition count.
#[derive(Debug, Clone, Serialize)]
pub struct StartupPoint {
    /// Backend.
    pub backend: Backend,
    /// Partitions.
    pub partitions: u32,
    /// Why there are no figures, if so.
    pub skipped: Option<String>,
    /// From running the module to the last partition ready for NORMAL, ns (one sample per
    /// run).
    pub startup: Distribution,
}

/// Everything `bench scaling` measured.
#[derive(Debug, Clone, Serialize)]
pub struct ScalingReport {
    /// Format, machine, revision, start, duration, configuration hash, quick or not.
    #[serde(flatten)]
    pub head: ReportHead,
    /// The plan of the switch runs.
    pub plan: OverheadsPlan,
    /// Figures 6 and 7.
    pub switch: Vec<SwitchPoint>,
    /// Figure 20.
    pub startup: Vec<StartupPoint>,
}

/// Runs the benchmark. `progress` receives a line per run as it finishes.
pub fn run_scaling(
    opts: &ScalingOptions,
    stop: Arc<AtomicBool>,
    mut progress: impl FnMut(&str),
) -> Result<ScalingReport, BenchError> {
    if !partita_sys::proc::is_root() {
        return Err(BenchError::NotRoot);
    }
    let t0 = std::time::Instant::now();
    let provenance = Provenance::now();
    let exe = crate::partition_executable(partita_bench_protocol::OVERHEADS_PARTITION)?;
    let _ = partita_sys::sched::lock_memory();
    let core = u32::from(partita_sys::sched::online_cpus() > 1);
    let mut plan = plan_info(core, None, &OverheadsOptions::default());
    plan.hyperperiods = if opts.quick {
        HYPERPERIODS_QUICK
    } else {
        HYPERPERIODS_FULL
    };
    let counts: &[u32] = if opts.quick {
        &PROCESSES_QUICK
    } else {
        &PROCESSES_FULL
    };
    let mut switch = Vec::new();
    for &backend in &opts.backends {
        for &n in counts {
            let r = run_one(
                &plan,
                &exe,
                backend,
                Placement::SharedCore,
                None,
                Some(n),
                false,
                &stop,
            );
            let x = match r {
                Ok(x) => x,
                Err(BenchError::Interrupted) => return Err(BenchError::Interrupted),
                Err(e) => skipped(backend, Placement::SharedCore, e.to_string()),
            };
            progress(&format!(
                "{backend}, {n} processes per partition: PtswO average {:.1} us, jitter {:.1} us",
                x.partition_switch.mean_ns / 1e3,
                x.partition_switch.jitter_ns as f64 / 1e3
            ));
            switch.push(SwitchPoint {
                backend,
                processes: n,
                skipped: x.skipped,
                partition_switch: x.partition_switch,
                timer: x.timer,
                notes: x.notes,
            });
        }
    }
    let (ks, repeats): (&[u32], usize) = if opts.quick {
        (&PARTITIONS_QUICK, STARTUPS_QUICK)
    } else {
        (&PARTITIONS_FULL, STARTUPS_FULL)
    };
    let mut startup = Vec::new();
    for &backend in &opts.backends {
        for &k in ks {
            let mut samples = Vec::new();
            let mut why = None;
            for _ in 0..repeats {
                match startup_once(&exe, core, k, backend, &stop) {
                    Ok(ns) => samples.push(ns),
                    Err(BenchError::Interrupted) => return Err(BenchError::Interrupted),
                    Err(e) => {
                        why = Some(e.to_string());
                        break;
                    }
                }
            }
            let d = Distribution::of(&mut samples);
            progress(&format!(
                "{backend}, {k} partitions: start-up median {:.1} ms",
                d.median_ns as f64 / 1e6
            ));
            startup.push(StartupPoint {
                backend,
                partitions: k,
                skipped: why,
                startup: d,
            });
        }
    }
    if stop.load(Ordering::Relaxed) {
        return Err(BenchError::Interrupted);
    }
    let configuration_hash = fnv1a_hex(
        serde_json::to_string(&(&plan, counts, ks, repeats, &opts.backends))
            .unwrap_or_default()
            .as_bytes(),
    );
    Ok(ScalingReport {
        head: ReportHead {
            format: "partita-bench-scaling/1",
            provenance,
            elapsed_s: t0.elapsed().as_secs_f64(),
            configuration_hash,
            quick: opts.quick,
        },
        plan,
        switch,
        startup,
    })
}

/// The frame of a start-up run: `k` windows of 2 ms, then at least 1 ms and a tenth of the
/// frame free of real-time work.
fn startup_frame(core: u32, k: u32) -> FramePlan {
    let busy = u64::from(k) * STARTUP_WINDOW_NS;
    FramePlan {
        major_frame: busy + busy.div_ceil(9).max(1_000_000),
        windows: (0..k)
            .map(|i| Window {
                id: i + 1,
                partition: i as usize,
                core,
                offset: u64::from(i) * STARTUP_WINDOW_NS,
                duration: STARTUP_WINDOW_NS,
                period_start: true,
            })
            .collect(),
    }
}

/// One start-up run of `k` probe partitions: from the call that runs the module to the last
/// probe's instant, ns.
fn startup_once(
    exe: &std::path::Path,
    core: u32,
    k: u32,
    backend: Backend,
    stop: &AtomicBool,
) -> Result<i64, BenchError> {
    let results = crate::result_files("startup", &crate::run_tag(), k as usize);
    let mut builder = PlanBuilder::new("bench-startup", startup_frame(core, k));
    for (i, r) in results.iter().enumerate() {
        builder = builder.partition(CompiledPartition {
            args: OverheadsPartitionArgs {
                partition: SeedPartition::Ofp,
                result: r.0.clone(),
                scale_permille: 0,
                hyperperiods: 0,
                extra_processes: 0,
            }
            .to_args(),
            cores: vec![core],
            ..CompiledPartition::new(i as u32 + 1, &format!("P{i}"), exe.to_path_buf())
        });
    }
    let plan = builder.build()?;
    let opts = RunOptions {
        backend: backend_choice(backend),
        duration: Some(STARTUP_LIMIT),
        echo: false,
        ..RunOptions::default()
    };
    let t_call = partita_sys::time::monotonic_ns();
    run_until(&plan, opts, stop, || results.iter().all(|r| r.0.exists()))?;
    let mut last = 0;
    for (i, r) in results.iter().enumerate() {
        let res: OverheadsResult = crate::read_result(&format!("P{i}"), &r.0, Vec::new)?;
        last = last.max(res.ready_monotonic_ns.unwrap_or(u64::MAX));
    }
    Ok(last.saturating_sub(t_call) as i64)
}

/// Renders the report as Markdown.
pub fn render_scaling(r: &ScalingReport) -> String {
    use std::fmt::Write;
    let mut s = r.head.provenance.heading(
        "Scaling: the partition switch against processes, start-up against partitions",
        r.head.quick,
        &r.head.configuration_hash,
    );
    let _ = writeln!(
        s,
        "Switch runs: the `bench overheads` plan and workload with extra idle periodic processes, {} hyperperiods each; PtswO in us (the seed's Figures 6 and 7: average and jitter). Start-up: from running the module to the last partition ready for NORMAL, in ms (Figure 20), K partitions in 2 ms windows.\n",
        r.plan.hyperperiods
    );
    let _ = writeln!(s, "## PtswO against processes per partition (us)\n");
    let _ = writeln!(
        s,
        "| backend | processes | n | average | jitter | dev. | median | p99 | TmrO average |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for x in &r.switch {
        let d = &x.partition_switch;
        match &x.skipped {
            Some(why) => {
                let _ = writeln!(
                    s,
                    "| {} | {} | no figures: {why} | | | | | | |",
                    x.backend, x.processes
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} |",
                    x.backend,
                    x.processes,
                    d.count,
                    d.mean_ns / 1e3,
                    d.jitter_ns as f64 / 1e3,
                    d.stddev_ns / 1e3,
                    d.median_ns as f64 / 1e3,
                    d.p99_ns as f64 / 1e3,
                    x.timer.mean_ns / 1e3
                );
            }
        }
    }
    let _ = writeln!(s, "\n## Start-up time against partitions (ms)\n");
    let _ = writeln!(s, "| backend | partitions | runs | median | min | max |");
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|");
    for x in &r.startup {
        let d = &x.startup;
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.1} | {:.1} | {:.1} |{}",
            x.backend,
            x.partitions,
            d.count,
            d.median_ns as f64 / 1e6,
            d.min_ns as f64 / 1e6,
            d.max_ns as f64 / 1e6,
            x.skipped
                .as_ref()
                .map_or_else(String::new, |w| format!(" stopped: {w}"))
        );
    }
    let _ = writeln!(s, "\nbench took {:.0} s", r.head.elapsed_s);
    s
}

/// The curves: PtswO average and jitter against processes (Figures 6 and 7), start-up median
/// and maximum against partitions (Figure 20), a line per backend.
pub fn scaling_figures(r: &ScalingReport) -> Vec<(String, String)> {
    use partita_synth::svg::{two_panels, Series};
    let mut backends: Vec<Backend> = Vec::new();
    for x in &r.switch {
        if !backends.contains(&x.backend) {
            backends.push(x.backend);
        }
    }
    let mut out = Vec::new();
    let mut xs: Vec<u32> = r.switch.iter().map(|x| x.processes).collect();
    xs.sort_unstable();
    xs.dedup();
    let series = |f: &dyn Fn(&SwitchPoint) -> f64| -> Vec<Series> {
        backends
            .iter()
            .map(|b| Series {
                name: b.to_string(),
                values: xs
                    .iter()
                    .map(|&n| {
                        r.switch
                            .iter()
                            .find(|x| x.backend == *b && x.processes == n && x.skipped.is_none())
                            .map_or(f64::NAN, f)
                    })
                    .collect(),
            })
            .collect()
    };
    let fx: Vec<f64> = xs.iter().map(|&n| f64::from(n)).collect();
    out.push((
        "scaling-switch.svg".to_string(),
        two_panels(
            "Partition switch overhead (PtswO) against processes per partition",
            &fx,
            "processes per partition",
            (
                "average (us)",
                &series(&|x| x.partition_switch.mean_ns / 1e3),
            ),
            (
                "jitter (us)",
                &series(&|x| x.partition_switch.jitter_ns as f64 / 1e3),
            ),
        ),
    ));
    let mut ks: Vec<u32> = r.startup.iter().map(|x| x.partitions).collect();
    ks.sort_unstable();
    ks.dedup();
    let startup = |f: &dyn Fn(&Distribution) -> f64| -> Vec<Series> {
        backends
            .iter()
            .map(|b| Series {
                name: b.to_string(),
                values: ks
                    .iter()
                    .map(|&k| {
                        r.startup
                            .iter()
                            .find(|x| x.backend == *b && x.partitions == k && x.startup.count > 0)
                            .map_or(f64::NAN, |x| f(&x.startup))
                    })
                    .collect(),
            })
            .collect()
    };
    let fk: Vec<f64> = ks.iter().map(|&k| f64::from(k)).collect();
    out.push((
        "scaling-startup.svg".to_string(),
        two_panels(
            "Start-up time against the number of partitions",
            &fk,
            "partitions",
            ("median (ms)", &startup(&|d| d.median_ns as f64 / 1e6)),
            ("maximum (ms)", &startup(&|d| d.max_ns as f64 / 1e6)),
        ),
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_startup_frame_leaves_a_tenth_free_and_orders_its_windows() {
        for k in [1, 2, 4, 8, 16] {
            let f = startup_frame(1, k);
            assert_eq!(f.windows.len(), k as usize);
            let busy: u64 = f.windows.iter().map(|w| w.duration).sum();
            assert!(f.major_frame - busy >= 1_000_000);
            assert!((f.major_frame - busy) * 10 >= f.major_frame, "{k}");
            assert!(f
                .windows
                .windows(2)
                .all(|w| w[0].offset + w[0].duration == w[1].offset));
        }
    }
}
