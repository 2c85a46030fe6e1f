// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita bench ports`: cost of the port services against a bare shared-memory copy plus an
//! atomic publish, and the end-to-end latency between two partitions with adjacent windows.
//!
//! The bench runs a two-partition module whose partitions are the executable
//! `partita-bench-ports-partition` (`partita_bench_partitions::ports`). Partition `P` has a sampling
//! and a queuing channel looped back to itself per message size (16, 64, 1024, 4096 bytes);
//! its main process times, per size and per call, a bare copy into a memfd plus a release
//! store (the *floor*, `partita_sys::port::RawArea`) and its reverse, WRITE/READ_SAMPLING_MESSAGE
//! and SEND/RECEIVE_QUEUING_MESSAGE (never blocking: one send, one receive). Then, in NORMAL
//! mode, it sends one time-stamped message 150 µs before the end of each of its windows to
//! partition `L`, whose window starts when `P`'s ends (same core); `L` records the time from
//! the send to its receive, and from its window start to its receive. Figures are per call, less
//! the median cost of an empty timing pair (two GET_TIME); a second figure per operation
//! times batches of 16 calls together, below the clock's resolution, and the targets use it.
//! See `docs/benchmarks.md`.

use crate::run::{run_notes, run_until};
use crate::stats::Figures;
use crate::switch::{git, machine, Machine};
use crate::BenchError;
use partita_bench_protocol::args::{PortsPartitionArgs, PortsRole};
pub use partita_bench_protocol::ports::PortRow;
use partita_bench_protocol::ports::{
    queuing_port, sampling_port, End, PortsResult, LATENCY_DEPTH, LATENCY_DESTINATION,
    LATENCY_MESSAGE_SIZE, LATENCY_SOURCE, QUEUE_DEPTH, SIZES,
};
use partita_config::model::{Channel, Endpoint, PortKind};
use partita_config::{CompiledPartition, CompiledPlan, PlanBuilder};
use partita_manager::RunOptions;
use partita_schedule::{FramePlan, Window};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

const MAJOR_FRAME_NS: u64 = 10_000_000;
/// `P`'s window is `[0, WINDOW)`, `L`'s `[WINDOW, 2·WINDOW)`, on the same core.
const WINDOW_NS: u64 = 4_000_000;
const EDGE_GUARD_NS: u64 = 20_000;
const CALLS_FULL: usize = 100_000;
const CALLS_QUICK: usize = 10_000;
const LATENCY_FULL: usize = 1_000;
const LATENCY_QUICK: usize = 100;
const RUN_LIMIT: Duration = Duration::from_secs(120);
/// 16-byte sampling write/read: median at most this factor over the floor.
const FACTOR_16: f64 = 3.0;
/// Cost linear in size: slope (64 → 4096 bytes) at most this factor over the floor's.
const SLOPE_FACTOR: f64 = 1.5;

/// What to run.
#[derive(Debug, Clone, Default)]
pub struct PortsOptions {
    /// 10,000 calls per operation and 100 latency samples instead of 100,000 and 1,000.
    pub quick: bool,
}

/// One target check.
#[derive(Debug, Clone, Serialize)]
pub struct PortsCheck {
    /// The target.
    pub target: String,
    /// Our value (ns, or ns per byte for slopes).
    pub value: f64,
    /// The floor's.
    pub reference: f64,
    /// value / reference.
    pub ratio: f64,
    /// The allowed ratio.
    pub limit: f64,
    /// Met.
    pub pass: bool,
}

/// The report (also written as JSON).
#[derive(Debug, Clone, Serialize)]
pub struct PortsReport {
    /// `partita-bench-ports/1`.
    pub format: &'static str,
    /// Start, seconds since 1970.
    pub started_unix: u64,
    /// Duration of the run.
    pub elapsed_s: f64,
    /// The host.
    pub machine: Machine,
    /// `git rev-parse HEAD`.
    pub git_revision: String,
    /// Uncommitted changes.
    pub git_dirty: Option<bool>,
    /// `--quick`.
    pub quick: bool,
    /// The core both partitions run on.
    pub core: u32,
    /// The backend used.
    pub backend: String,
    /// Calls per operation and size.
    pub calls: usize,
    /// Cost of an empty timing pair (subtracted from every figure).
    pub timing_pair: Figures,
    /// Where the partition's GET_TIME read the time from: `counter clock` (calibrated from
    /// the CPU's time-stamp counter, `partita_sys::time::CounterClock`) or `CLOCK_MONOTONIC`.
    pub time_source: String,
    /// Per operation and size.
    pub rows: Vec<PortRow>,
    /// End-to-end latency: from SEND in `P` to the return of RECEIVE in `L`.
    pub latency_send_to_receive: Figures,
    /// From the start of `L`'s window to the return of its RECEIVE.
    pub latency_window_start_to_receive: Figures,
    /// Targets.
    pub checks: Vec<PortsCheck>,
    /// Anything worth knowing.
    pub notes: Vec<String>,
}

fn loopback(id: u32, kind: PortKind, size: usize) -> Channel {
    let end = |end: End| Endpoint::Partition {
        partition: 0,
        port: if kind == PortKind::Queuing {
            queuing_port(size, end)
        } else {
            sampling_port(size, end)
        },
    };
    Channel {
        id,
        name: None,
        kind,
        max_message_size: size as u32,
        max_nb_messages: (kind == PortKind::Queuing).then_some(QUEUE_DEPTH as u32),
        source: end(End::Out),
        destinations: vec![end(End::In)],
    }
}

fn plan(
    core: u32,
    exe: &Path,
    svc: &Path,
    lat: &Path,
    n: usize,
    samples: usize,
) -> Result<CompiledPlan, BenchError> {
    let partition = |name: &str, id: u32, role: PortsRole, result: &Path| CompiledPartition {
        args: PortsPartitionArgs {
            role,
            result: result.to_path_buf(),
            calls: n,
            major_frame_ns: MAJOR_FRAME_NS as i64,
            window_ns: WINDOW_NS as i64,
            edge_guard_ns: EDGE_GUARD_NS as i64,
            latency_samples: samples,
        }
        .to_args(),
        cores: vec![core],
        ..CompiledPartition::new(id, name, exe)
    };
    let win = |id, partition, offset| Window {
        id,
        partition,
        core,
        offset,
        duration: WINDOW_NS,
        period_start: true,
    };
    let frame = FramePlan {
        major_frame: MAJOR_FRAME_NS,
        windows: vec![win(1, 0, 0), win(2, 1, WINDOW_NS)],
    };
    let mut builder = PlanBuilder::new("bench-ports", frame)
        .partition(partition("P", 1, PortsRole::Services, svc))
        .partition(partition("L", 2, PortsRole::Latency, lat));
    for (i, &s) in SIZES.iter().enumerate() {
        builder = builder
            .channel(loopback(10 + i as u32, PortKind::Sampling, s))
            .channel(loopback(20 + i as u32, PortKind::Queuing, s));
    }
    let latency = Channel {
        id: 30,
        name: None,
        kind: PortKind::Queuing,
        max_message_size: LATENCY_MESSAGE_SIZE as u32,
        max_nb_messages: Some(LATENCY_DEPTH as u32),
        source: Endpoint::Partition {
            partition: 0,
            port: LATENCY_SOURCE.into(),
        },
        destinations: vec![Endpoint::Partition {
            partition: 1,
            port: LATENCY_DESTINATION.into(),
        }],
    };
    Ok(builder.channel(latency).build()?)
}

/// Runs the benchmark. `progress` receives a line per step.
pub fn run_ports(
    opts: &PortsOptions,
    stop: Arc<AtomicBool>,
    mut progress: impl FnMut(&str),
) -> Result<PortsReport, BenchError> {
    if !partita_sys::proc::is_root() {
        return Err(BenchError::NotRoot);
    }
    let t0 = std::time::Instant::now();
    let started_unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let core = if partita_sys::sched::online_cpus() > 1 {
        1
    } else {
        0
    };
    let (n, samples) = if opts.quick {
        (CALLS_QUICK, LATENCY_QUICK)
    } else {
        (CALLS_FULL, LATENCY_FULL)
    };
    progress(&format!(
        "{n} calls per operation and size, {samples} latency samples, core {core}"
    ));
    let tag = format!(
        "{}-{}",
        partita_sys::sched::getpid(),
        partita_sys::time::monotonic_ns()
    );
    let svc = crate::RemoveFile(PathBuf::from(format!(
        "/dev/shm/partita-bench-ports-{tag}-svc.json"
    )));
    let lat = crate::RemoveFile(PathBuf::from(format!(
        "/dev/shm/partita-bench-ports-{tag}-lat.json"
    )));
    let exe = crate::partition_executable(partita_bench_protocol::PORTS_PARTITION)?;
    let plan = plan(core, &exe, &svc.0, &lat.0, n, samples)?;
    let opts_run = RunOptions {
        duration: Some(RUN_LIMIT),
        echo: std::env::var_os("PARTITA_BENCH_ECHO").is_some(),
        ..RunOptions::default()
    };
    let report = run_until(&plan, opts_run, &stop, || svc.0.exists() && lat.0.exists())?;
    let mut notes = run_notes(&report, false);
    let s: PortsResult = crate::read_result("P", &svc.0, Vec::new)?;
    let l: PortsResult = crate::read_result("L", &lat.0, Vec::new)?;
    progress(&format!(
        "backend {}: {} figures",
        report.backend,
        s.rows.len()
    ));
    let rows = s.rows;
    for r in &rows {
        if r.errors > 0 {
            notes.push(format!(
                "{} ({} B): {} calls failed",
                r.op, r.size, r.errors
            ));
        }
    }
    let (e2e, after) = l.latency.unwrap_or_default();
    let checks = checks(&rows);
    notes.extend(stamp_note(&rows, partita_sys::time::coarse_resolution_ns()));
    Ok(PortsReport {
        format: "partita-bench-ports/1",
        started_unix,
        elapsed_s: t0.elapsed().as_secs_f64(),
        machine: machine(),
        git_revision: git(&["rev-parse", "HEAD"]).unwrap_or_else(|| "unknown".into()),
        git_dirty: git(&["status", "--porcelain", "--untracked-files=no"]).map(|s| !s.is_empty()),
        quick: opts.quick,
        core,
        backend: report.backend.to_string(),
        calls: n,
        timing_pair: s.pair.unwrap_or_default(),
        time_source: s.time_source.clone().unwrap_or_else(|| "unknown".into()),
        rows,
        latency_send_to_receive: e2e,
        latency_window_start_to_receive: after,
        checks,
        notes,
    })
}

/// The batched cost per call (the per-call median moves in steps of the clock's resolution).
fn median(rows: &[PortRow], op: &str, size: usize) -> f64 {
    rows.iter()
        .find(|r| r.op == op && r.size == size)
        .map_or(f64::NAN, |r| r.batched_ns)
}

/// Says so when the cheapest exact time stamp plus the sampling slot protocol alone (no
/// service around it) already cost more than the 16-byte target allows: then no
/// exact-stamp implementation of the services can meet it on this machine. The cheapest
/// exact stamp is GET_TIME or the CPU's counter read alone, whichever is cheaper; the coarse
/// clock is the cheapest clock at all, with the resolution of a timer tick.
fn stamp_note(rows: &[PortRow], coarse_resolution_ns: u64) -> Option<String> {
    let get_time = median(rows, "time stamp (GET_TIME)", 16);
    let tsc = median(rows, "time stamp (TSC)", 16);
    let coarse = median(rows, "time stamp (coarse clock)", 16);
    let stamp = get_time.min(tsc);
    let write = stamp + median(rows, "slots write (no service)", 16);
    let read = stamp + median(rows, "slots read (no service)", 16);
    let limit_w = FACTOR_16 * median(rows, "floor publish", 16).max(1.0);
    let limit_r = FACTOR_16 * median(rows, "floor fetch", 16).max(1.0);
    let coarse_w = median(rows, "slots write + coarse stamp", 16);
    let coarse_r = median(rows, "slots read + coarse age", 16);
    let word_w = median(rows, "slots write + time word", 16);
    let word_r = median(rows, "slots read + time-word age", 16);
    (write > limit_w || read > limit_r).then(|| {
        format!(
            "an exact time stamp and the slot protocol alone cost more than the 16 B limits: write {write:.1} ns (limit {limit_w:.1}), read {read:.1} ns (limit {limit_r:.1}), with the cheapest exact stamp at {stamp:.1} ns (GET_TIME {get_time:.1} ns, the bare counter read {tsc:.1} ns); every sampling message carries a stamp (validity, age, READ_SAMPLING_MESSAGE_CONDITIONAL) and the reader needs the current time for validity, so the 16 B target cannot be met with exact stamps on this machine (the coarse clock costs {coarse:.1} ns with a resolution of {:.1} ms; the slot protocol with it: write {coarse_w:.1} ns, read {coarse_r:.1} ns; with a time word kept current by another thread, no clock at all: write {word_w:.1} ns, read {word_r:.1} ns)",
            coarse_resolution_ns as f64 / 1e6
        )
    })
}

fn checks(rows: &[PortRow]) -> Vec<PortsCheck> {
    let mut v = Vec::new();
    let mut check = |target: String, value: f64, reference: f64, limit: f64| {
        // Compare with at least 1 ns.
        let r = reference.max(1.0);
        v.push(PortsCheck {
            target,
            value,
            reference,
            ratio: value / r,
            limit,
            pass: value / r <= limit,
        });
    };
    for (op, floor) in [
        ("WRITE_SAMPLING_MESSAGE", "floor publish"),
        ("READ_SAMPLING_MESSAGE", "floor fetch"),
    ] {
        check(
            format!("{op} 16 B median within {FACTOR_16}x of {floor}"),
            median(rows, op, 16),
            median(rows, floor, 16),
            FACTOR_16,
        );
    }
    let (a, b) = (SIZES[1], SIZES[SIZES.len() - 1]);
    let slope = |op: &str| (median(rows, op, b) - median(rows, op, a)) / (b - a) as f64;
    for (op, floor) in [
        ("WRITE_SAMPLING_MESSAGE", "floor publish"),
        ("READ_SAMPLING_MESSAGE", "floor fetch"),
        ("SEND_QUEUING_MESSAGE", "floor publish"),
        ("RECEIVE_QUEUING_MESSAGE", "floor fetch"),
    ] {
        let (s, f) = (slope(op), slope(floor));
        // Slopes are ns per byte; compare against at least 0.01 ns/B (timer noise).
        let fr = f.max(0.01);
        v.push(PortsCheck {
            target: format!("{op} slope {a}..{b} B within {SLOPE_FACTOR}x of {floor}'s"),
            value: s,
            reference: f,
            ratio: s / fr,
            limit: SLOPE_FACTOR,
            pass: s / fr <= SLOPE_FACTOR,
        });
    }
    v
}

/// The text report.
pub fn render_ports(r: &PortsReport) -> String {
    let mut s = format!(
        "partita bench ports ({}): {} calls per operation and size, core {}, backend {}\n",
        if r.quick { "quick" } else { "full" },
        r.calls,
        r.core,
        r.backend
    );
    s += &format!(
        "timing pair (subtracted): median {} ns; GET_TIME reads the {}\n\n",
        r.timing_pair.median, r.time_source
    );
    s += &format!(
        "{:<26} {:>6} {:>8} {:>8} {:>8} {:>8} {:>9}\n",
        "operation (ns per call)", "bytes", "min", "median", "p99", "dropped", "batched"
    );
    for row in &r.rows {
        s += &format!(
            "{:<26} {:>6} {:>8} {:>8} {:>8} {:>8} {:>9.1}\n",
            row.op,
            row.size,
            row.figures.min,
            row.figures.median,
            row.figures.p99,
            row.dropped,
            row.batched_ns
        );
    }
    let f = |x: &Figures| {
        format!(
            "min {:.1} / median {:.1} / p99 {:.1} us (n={})",
            x.min as f64 / 1e3,
            x.median as f64 / 1e3,
            x.p99 as f64 / 1e3,
            x.count
        )
    };
    s += &format!(
        "\nend-to-end latency P -> L (adjacent windows, sent 150 us before P's window end):\n  send -> receive          {}\n  L window start -> receive {}\n\n",
        f(&r.latency_send_to_receive),
        f(&r.latency_window_start_to_receive)
    );
    for c in &r.checks {
        s += &format!(
            "{} {}: {:.2} vs {:.2} (x{:.2}, limit x{})\n",
            if c.pass { "PASS" } else { "MISS" },
            c.target,
            c.value,
            c.reference,
            c.ratio,
            c.limit
        );
    }
    for n in &r.notes {
        s += &format!("note: {n}\n");
    }
    s += &format!("({:.1} s)\n", r.elapsed_s);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(op: &str, size: usize, median: i64) -> PortRow {
        PortRow {
            op: op.into(),
            size,
            figures: Figures::default(),
            batched_ns: median as f64,
            dropped: 0,
            errors: 0,
        }
    }

    #[test]
    fn checks_compare_with_the_floor() {
        let mut rows = Vec::new();
        for &s in SIZES {
            let s64 = s as i64;
            rows.push(row("floor publish", s, 10 + s64 / 10));
            rows.push(row("floor fetch", s, 10 + s64 / 10));
            rows.push(row("WRITE_SAMPLING_MESSAGE", s, 25 + s64 / 10));
            rows.push(row("READ_SAMPLING_MESSAGE", s, 40 + s64 / 10));
            rows.push(row("SEND_QUEUING_MESSAGE", s, 30 + s64 / 5));
            rows.push(row("RECEIVE_QUEUING_MESSAGE", s, 30 + s64 / 10));
        }
        let c = checks(&rows);
        let pass: Vec<bool> = c.iter().map(|c| c.pass).collect();
        // write 26.6/11.6 < 3; read 41.6/11.6 > 3; slopes equal except send (2x).
        assert_eq!(pass, vec![true, false, true, true, false, true], "{c:#?}");
    }

    #[test]
    fn a_stamp_and_slot_protocol_above_the_limit_are_noted() {
        let mut rows = vec![row("floor publish", 16, 3), row("floor fetch", 16, 4)];
        rows.push(row("slots write (no service)", 16, 4));
        rows.push(row("slots read (no service)", 16, 5));
        rows.push(row("time stamp (GET_TIME)", 16, 5));
        rows.push(row("time stamp (TSC)", 16, 4));
        rows.push(row("time stamp (coarse clock)", 16, 3));
        rows.push(row("slots write + coarse stamp", 16, 7));
        rows.push(row("slots read + coarse age", 16, 8));
        rows.push(row("slots write + time word", 16, 5));
        rows.push(row("slots read + time-word age", 16, 6));
        // 4 + 4 <= 9 and 5 + 4 <= 12: an exact stamp could meet it.
        assert_eq!(stamp_note(&rows, 4_000_000), None);
        // The clock is dear, but the bare counter read fits.
        rows[4] = row("time stamp (GET_TIME)", 16, 30);
        assert_eq!(stamp_note(&rows, 4_000_000), None);
        // The counter read plus the slot write exceeds the write limit.
        rows[5] = row("time stamp (TSC)", 16, 6);
        let n = stamp_note(&rows, 4_000_000).expect("a note");
        assert!(
            n.contains("write 10.0 ns (limit 9.0)") && n.contains("read 11.0 ns (limit 12.0)"),
            "{n}"
        );
        assert!(
            n.contains("GET_TIME 30.0 ns") && n.contains("counter read 6.0 ns"),
            "{n}"
        );
        assert!(n.contains("3.0 ns") && n.contains("4.0 ms"), "{n}");
        assert!(n.contains("write 7.0 ns, read 8.0 ns"), "{n}");
        assert!(
            n.contains("no clock at all: write 5.0 ns, read 6.0 ns"),
            "{n}"
        );
    }
}
