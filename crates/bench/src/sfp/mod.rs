// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita bench sfp`: SFPBench's grey-box tests, APEX calls and applications (its Tables 2,
//! 3 and 4), our own implementations from the paper's descriptions, with its published values
//! beside ours.
//!
//! What `bench apex` already measures is taken from a `bench apex` run (the per-call latency of
//! the APEX services, and the semaphore hand-offs for "Sem Signal" and "Sem Wait"); the rest
//! is measured by the partition `partita-bench-sfp-partition`
//! (`partita_bench_partitions::sfp`), run alone in the window and frame of `bench apex`.

mod published;

pub use published::{SfpPublished, SFP_PUBLISHED};

use crate::apex::{run_apex, run_partition, ApexOptions, ApexReport};
use crate::overheads::{fnv1a_hex, Distribution};
use crate::switch::{Provenance, ReportHead};
use crate::BenchError;
use partita_bench_protocol::sfp::{SfpResult, APEX_CALL, APPLICATION, GREY_BOX};
use partita_manager::RunOptions;
use published::sfp_published;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Runs per test: full run and `--quick`.
const RUNS_FULL: usize = 10_000;
const RUNS_QUICK: usize = 1_000;

/// What to run.
#[derive(Debug, Clone, Default)]
pub struct SfpOptions {
    /// 1,000 runs per test (and `bench apex --quick`) instead of 10,000.
    pub quick: bool,
}

/// Our figures of one test, in SFPBench's statistics.
#[derive(Debug, Clone, Serialize)]
pub struct SfpFigures {
    /// Samples.
    pub count: u64,
    /// Best case (minimum), ns.
    pub bcet_ns: i64,
    /// Worst case (maximum), ns.
    pub wcet_ns: i64,
    /// Average, ns.
    pub mean_ns: f64,
    /// Standard deviation, ns (`None`: the source gives none).
    pub stddev_ns: Option<f64>,
    /// Median, ns.
    pub median_ns: i64,
    /// 99th percentile, ns.
    pub p99_ns: i64,
}

impl From<&Distribution> for SfpFigures {
    fn from(d: &Distribution) -> SfpFigures {
        SfpFigures {
            count: d.count,
            bcet_ns: d.min_ns,
            wcet_ns: d.max_ns,
            mean_ns: d.mean_ns,
            stddev_ns: Some(d.stddev_ns),
            median_ns: d.median_ns,
            p99_ns: d.p99_ns,
        }
    }
}

impl From<&crate::Figures> for SfpFigures {
    fn from(f: &crate::Figures) -> SfpFigures {
        SfpFigures {
            count: f.count,
            bcet_ns: f.min,
            wcet_ns: f.max,
            mean_ns: f.mean as f64,
            stddev_ns: None,
            median_ns: f.median,
            p99_ns: f.p99,
        }
    }
}

/// One row of Tables 2 to 4.
#[derive(Debug, Clone, Serialize)]
pub struct SfpRowFigures {
    /// SFPBench's table: 2 grey-box, 3 APEX calls, 4 applications.
    pub table: u8,
    /// SFPBench's name of the test.
    pub name: String,
    /// What one sample spans.
    pub what: String,
    /// `bench sfp` (its partition) or `bench apex` (the service or hand-off it names).
    pub source: String,
    /// Ours.
    pub figures: SfpFigures,
    /// Runs dropped at window edges.
    pub dropped: u64,
    /// Runs with a wrong result or a failed call.
    pub errors: u64,
    /// SFPBench's values, when it published the row.
    pub published: Option<SfpPublished>,
}

/// Everything `bench sfp` measured.
#[derive(Debug, Clone, Serialize)]
pub struct SfpReport {
    /// Format, machine, revision, start, duration, configuration hash, quick or not.
    #[serde(flatten)]
    pub head: ReportHead,
    /// Runs per test.
    pub runs: usize,
    /// Backend of the runs.
    pub backend: String,
    /// Tables 2, 3 and 4.
    pub rows: Vec<SfpRowFigures>,
    /// SFPBench rows not measured, and why.
    pub not_measured: Vec<(String, String)>,
    /// The `bench apex` run the APEX calls come from.
    pub apex: ApexReport,
    /// Remarks.
    pub notes: Vec<String>,
}

/// Table 3's names of the APEX calls `bench apex` times, with its service names.
const APEX_CALLS: [(&str, &str); 15] = [
    ("PARTITION_STATUS", "GET_PARTITION_STATUS"),
    ("PREEMPTION_LOCK", "LOCK_PREEMPTION"),
    ("PREEMPTION_UNLOCK", "UNLOCK_PREEMPTION"),
    ("DISPLAY_BB(16)", "DISPLAY_BLACKBOARD"),
    ("READ_BB(16)", "READ_BLACKBOARD"),
    ("SEND_BUFFER(16)", "SEND_BUFFER"),
    ("SEMAPHORE_SIGNAL", "SIGNAL_SEMAPHORE"),
    ("MY_ID", "GET_MY_ID"),
    ("PROCESS_ID", "GET_PROCESS_ID"),
    ("PROCESS_STATUS", "GET_PROCESS_STATUS"),
    ("SEMAPHORE_ID", "GET_SEMAPHORE_ID"),
    ("SEMAPHORE_STATUS", "GET_SEMAPHORE_STATUS"),
    ("EVENT_SET", "SET_EVENT"),
    ("EVENT_ID", "GET_EVENT_ID"),
    ("EVENT_STATUS", "GET_EVENT_STATUS"),
];

/// Table 2's rows `bench apex` measures: (name, what, the service or hand-off label).
const APEX_GREY_BOX: [(&str, &str, &str); 4] = [
    (
        "Mutex Acquire",
        "ACQUIRE_MUTEX of a free mutex",
        "ACQUIRE_MUTEX",
    ),
    ("Mutex Release", "RELEASE_MUTEX", "RELEASE_MUTEX"),
    (
        "Sem Signal",
        "SIGNAL_SEMAPHORE to the first instruction of the higher-priority waiter",
        "SIGNAL_SEMAPHORE -> WAIT_SEMAPHORE",
    ),
    (
        "Sem Wait",
        "WAIT_SEMAPHORE that blocks to the first instruction of the process it resumes",
        "WAIT_SEMAPHORE -> SIGNAL_SEMAPHORE",
    ),
];

/// SFPBench rows not measured here, and why.
const NOT_MEASURED: [(&str, &str); 4] = [
    (
        "Partition Switch",
        "measured by `partita bench switch` (start latency and overrun at every boundary)",
    ),
    (
        "INIT_PROCESS1/2, CREATE_SAMPLING, CREATE_QUEUE",
        "process and port creation are not timed yet",
    ),
    (
        "SAMPLING_*, QUEUE_*",
        "port services are measured by `partita bench ports`",
    ),
    (
        "SAMPLE APEX TOTAL",
        "the two partitions are timed per iteration, each in its own window: their sum spans no one instant",
    ),
];

/// The two-partition application runs this many times fewer iterations than the other tests
/// (one per 10 ms frame).
const EXCHANGE_DIVISOR: usize = 10;
/// Its frame: the CRC partition in [0, 4.5) ms, the matrix partition in [4.5, 9) ms.
const EXCHANGE_FRAME_NS: u64 = 10_000_000;
const EXCHANGE_WINDOW_NS: u64 = 4_500_000;
/// Samples closer than this to a window edge are dropped.
const EXCHANGE_GUARD_NS: u64 = 20_000;

/// Runs SFPBench's two-partition application: the rows of its two partitions, and notes.
fn run_exchange(
    exe: &std::path::Path,
    core: u32,
    runs: usize,
    margin: std::time::Duration,
    stop: &AtomicBool,
) -> Result<(Vec<partita_bench_protocol::sfp::SfpRow>, Vec<String>), BenchError> {
    use partita_bench_protocol::args::{ExchangePartitionArgs, ExchangeRole};
    use partita_bench_protocol::sfp::{EXCHANGE_DESTINATION, EXCHANGE_MESSAGE, EXCHANGE_SOURCE};
    use partita_config::model::{Channel, Endpoint, PortKind};
    use partita_config::{CompiledPartition, PlanBuilder};
    use partita_schedule::{FramePlan, Window};
    let results = crate::result_files("sfp-exchange", &crate::run_tag(), 2);
    let roles = [(ExchangeRole::Crc, "A"), (ExchangeRole::Matrix, "B")];
    let frame = FramePlan {
        major_frame: EXCHANGE_FRAME_NS,
        windows: (0..2)
            .map(|i| Window {
                id: i + 1,
                partition: i as usize,
                core,
                offset: u64::from(i) * EXCHANGE_WINDOW_NS,
                duration: EXCHANGE_WINDOW_NS,
                period_start: true,
            })
            .collect(),
    };
    let mut builder = PlanBuilder::new("bench-sfp-exchange", frame);
    for (i, (role, name)) in roles.iter().enumerate() {
        builder = builder.partition(CompiledPartition {
            args: ExchangePartitionArgs {
                role: *role,
                result: results[i].0.clone(),
                runs,
                major_frame_ns: EXCHANGE_FRAME_NS as i64,
                offset_ns: (i as u64 * EXCHANGE_WINDOW_NS) as i64,
                window_ns: EXCHANGE_WINDOW_NS as i64,
                spin_margin_ns: margin.as_nanos() as i64,
                edge_guard_ns: EXCHANGE_GUARD_NS as i64,
            }
            .to_args(),
            cores: vec![core],
            ..CompiledPartition::new(i as u32 + 1, name, exe.to_path_buf())
        });
    }
    let plan = builder
        .channel(Channel {
            id: 1,
            name: None,
            kind: PortKind::Sampling,
            max_message_size: EXCHANGE_MESSAGE as u32,
            max_nb_messages: None,
            source: Endpoint::Partition {
                partition: 0,
                port: EXCHANGE_SOURCE.into(),
            },
            destinations: vec![Endpoint::Partition {
                partition: 1,
                port: EXCHANGE_DESTINATION.into(),
            }],
        })
        .build()?;
    let opts = RunOptions {
        duration: Some(std::time::Duration::from_nanos(
            EXCHANGE_FRAME_NS * (runs as u64 + 500),
        )),
        echo: false,
        spin_margin: margin,
        ..RunOptions::default()
    };
    let report = crate::run::run_until(&plan, opts, stop, || results.iter().all(|r| r.0.exists()))?;
    let notes = crate::run::run_notes(&report, true);
    let mut rows = Vec::new();
    for (i, (_, name)) in roles.iter().enumerate() {
        let r: SfpResult = crate::read_result(name, &results[i].0, Vec::new)?;
        rows.extend(r.rows);
    }
    Ok((rows, notes))
}

/// Runs the benchmark. `progress` receives a line per step as it finishes.
pub fn run_sfp(
    opts: &SfpOptions,
    stop: Arc<AtomicBool>,
    mut progress: impl FnMut(&str),
) -> Result<SfpReport, BenchError> {
    if !partita_sys::proc::is_root() {
        return Err(BenchError::NotRoot);
    }
    let t0 = std::time::Instant::now();
    let provenance = Provenance::now();
    let exe = crate::partition_executable(partita_bench_protocol::SFP_PARTITION)?;
    let apex = run_apex(
        &ApexOptions { quick: opts.quick },
        stop.clone(),
        &mut progress,
    )?;
    if stop.load(Ordering::Relaxed) {
        return Err(BenchError::Interrupted);
    }
    let runs = if opts.quick { RUNS_QUICK } else { RUNS_FULL };
    let core = apex.plan.core;
    let margin = RunOptions::default().spin_margin;
    let (r, backend, mut notes): (SfpResult, _, _) =
        run_partition("sfp", exe, core, runs, margin, &stop)?;
    notes.extend(r.notes.iter().cloned());
    progress(&format!(
        "sfp partition ({backend}): {} tests",
        r.rows.len()
    ));
    let exchange_exe = crate::partition_executable(partita_bench_protocol::SFP_EXCHANGE_PARTITION)?;
    let (exchange, exchange_notes) =
        run_exchange(&exchange_exe, core, runs / EXCHANGE_DIVISOR, margin, &stop)?;
    notes.extend(exchange_notes);
    progress(&format!(
        "two-partition application: {} rows",
        exchange.len()
    ));
    let mut rows = Vec::new();
    for (name, what, label) in APEX_GREY_BOX {
        let f = apex
            .services
            .iter()
            .find(|s| s.service == label)
            .map(|s| (s.figures, s.dropped, s.errors))
            .or_else(|| {
                apex.handoffs
                    .iter()
                    .find(|h| h.kind == "partita" && h.label == label)
                    .map(|h| (h.figures, h.dropped, 0))
            });
        if let Some((f, dropped, errors)) = f {
            rows.push(SfpRowFigures {
                table: 2,
                name: name.into(),
                what: what.into(),
                source: format!("bench apex: {label}"),
                figures: (&f).into(),
                dropped,
                errors,
                published: sfp_published(name).copied(),
            });
        }
    }
    for x in r.rows.iter().chain(&exchange) {
        let table = if x.group == APPLICATION {
            4
        } else if x.group == GREY_BOX {
            2
        } else if x.group == APEX_CALL {
            3
        } else {
            notes.push(format!("{}: unknown group {}", x.name, x.group));
            continue;
        };
        let mut v = x.samples.clone();
        rows.push(SfpRowFigures {
            table,
            name: x.name.clone(),
            what: x.what.clone(),
            source: "bench sfp".into(),
            figures: (&Distribution::of(&mut v)).into(),
            dropped: x.dropped,
            errors: x.errors,
            published: sfp_published(&x.name).copied(),
        });
    }
    for (name, service) in APEX_CALLS {
        if let Some(s) = apex.services.iter().find(|s| s.service == service) {
            rows.push(SfpRowFigures {
                table: 3,
                name: name.into(),
                what: format!("{service} {}", s.condition).trim().to_string(),
                source: format!("bench apex: {service}"),
                figures: (&s.figures).into(),
                dropped: s.dropped,
                errors: s.errors,
                published: sfp_published(name).copied(),
            });
        } else {
            notes.push(format!("bench apex did not time {service}"));
        }
    }
    rows.sort_by_key(|x| x.table);
    Ok(SfpReport {
        head: ReportHead {
            format: "partita-bench-sfp/1",
            provenance,
            elapsed_s: t0.elapsed().as_secs_f64(),
            configuration_hash: fnv1a_hex(
                format!("{runs} {:?} {}", margin, apex.plan.window_ns).as_bytes(),
            ),
            quick: opts.quick,
        },
        runs,
        backend,
        rows,
        not_measured: NOT_MEASURED
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
        apex,
        notes,
    })
}

/// Renders the report as Markdown: Tables 2, 3 and 4 with SFPBench's values beside ours.
pub fn render_sfp(r: &SfpReport) -> String {
    use std::fmt::Write;
    let mut s = r.head.provenance.heading(
        "SFPBench's tests on Partita",
        r.head.quick,
        &r.head.configuration_hash,
    );
    let _ = writeln!(
        s,
        "Backend {}; {} runs per test. Figures in us: best case (BCET), worst case (WCET), average and standard deviation, ours then SFPBench's (an ARINC 653 RTOS on a 1.2 GHz PowerPC e500 board; its application data sets are not published, so those rows compare in kind only).\n",
        r.backend, r.runs
    );
    let us = |v: f64| format!("{:.2}", v / 1e3);
    for (table, title) in [
        (2u8, "Table 2: grey-box tests"),
        (3, "Table 3: APEX calls"),
        (4, "Table 4: applications"),
    ] {
        let _ = writeln!(s, "## {title}\n");
        let _ = writeln!(
            s,
            "| test | n | BCET | WCET | average | std dev | SFPBench BCET | WCET | average | std dev | measured as |"
        );
        let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        for x in r.rows.iter().filter(|x| x.table == table) {
            let f = &x.figures;
            let theirs = x.published.map_or_else(
                || "- | - | - | -".to_string(),
                |p| {
                    format!(
                        "{:.2} | {:.2} | {:.2} | {:.2}",
                        p.bcet_us, p.wcet_us, p.average_us, p.stddev_us
                    )
                },
            );
            let mut what = format!("{} ({})", x.what, x.source);
            if x.dropped + x.errors > 0 {
                let _ = write!(
                    what,
                    "; {} dropped at window edges, {} wrong",
                    x.dropped, x.errors
                );
            }
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {theirs} | {what} |",
                x.name,
                f.count,
                us(f.bcet_ns as f64),
                us(f.wcet_ns as f64),
                us(f.mean_ns),
                f.stddev_ns.map_or_else(|| "-".into(), us),
            );
        }
        let _ = writeln!(s);
    }
    let _ = writeln!(s, "Not measured here:\n");
    for (name, why) in &r.not_measured {
        let _ = writeln!(s, "- {name}: {why}");
    }
    for n in &r.notes {
        let _ = writeln!(s, "- note: {n}");
    }
    let _ = writeln!(s, "\nbench took {:.0} s", r.head.elapsed_s);
    s
}
