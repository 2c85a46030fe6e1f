// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita bench slots`: a compute partition's performance loss against its window length,
//! measured and modelled, as XtratuM's evaluation (its Table 4: slot duration 1000 ... 1 ms).
//!
//! Three counting partitions (`partita-bench-slots-partition`) share one core in windows of
//! length L, one after the other, with the rest of the frame (at least 5 %) free of real-time
//! work. Each counts loop iterations and books them to the window they ran in. The rate is
//! iterations per millisecond of window; the loss at L is `1 - rate(L) / rate(L_ref)`, L_ref
//! the longest window measured. The model is XtratuM's: every window loses a fixed dead time
//! `d` (the switch as the partition feels it), so the loss is `d / L - d / L_ref`; `d` is
//! measured in the same runs as the median over all windows of the window length less the span
//! between the first and the last clock reading inside it.

use crate::overheads::{fnv1a_hex, Distribution};
use crate::run::{run_notes, run_until};
use crate::switch::{Provenance, ReportHead};
use crate::BenchError;
use partita_bench_protocol::args::SlotsPartitionArgs;
use partita_bench_protocol::slots::SlotsResult;
use partita_config::{CompiledPartition, PlanBuilder};
use partita_manager::RunOptions;
use partita_schedule::{FramePlan, Window};
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

const MS: u64 = 1_000_000;
/// Window lengths, ms: full run (XtratuM's) and `--quick`.
const WINDOWS_FULL: [u64; 8] = [1000, 200, 100, 50, 20, 10, 5, 1];
const WINDOWS_QUICK: [u64; 5] = [200, 50, 10, 5, 1];
/// Window time each partition counts per length, ms: full and `--quick`.
const COUNTED_FULL_MS: u64 = 3000;
const COUNTED_QUICK_MS: u64 = 1000;
/// Windows left out after the first one a partition counted in (it settles), and at the end
/// of each run.
const SKIP_FIRST: usize = 2;
const SKIP_LAST: usize = 1;
/// Counting partitions.
const PARTITIONS: u32 = 3;

/// What to run.
#[derive(Debug, Clone, Default)]
pub struct SlotsOptions {
    /// Window lengths 200, 50, 10, 5, 1 ms and 1 s counted per length, instead of 1000 ... 1
    /// ms and 3 s.
    pub quick: bool,
}

/// The figures of one window length.
#[derive(Debug, Clone, Serialize)]
pub struct SlotPoint {
    /// Window length, ms.
    pub window_ms: u64,
    /// Why there are no figures, if so.
    pub skipped: Option<String>,
    /// Windows counted (all partitions).
    pub windows: u64,
    /// Iterations per ms of window, all partitions together.
    pub rate_per_ms: f64,
    /// Measured loss against the longest window, %.
    pub loss_percent: f64,
    /// Modelled loss `d / L - d / L_ref`, %.
    pub model_percent: f64,
    /// Window length less the span of the clock readings inside it, ns.
    pub dead_time: Distribution,
    /// Clock readings outside the partitions' windows.
    pub outside: u64,
    /// Remarks.
    pub notes: Vec<String>,
}

/// Everything `bench slots` measured.
#[derive(Debug, Clone, Serialize)]
pub struct SlotsReport {
    /// Format, machine, revision, start, duration, configuration hash, quick or not.
    #[serde(flatten)]
    pub head: ReportHead,
    /// The partitions' core.
    pub core: u32,
    /// Backend of the runs.
    pub backend: String,
    /// Window time each partition counted per length, ms.
    pub counted_ms: u64,
    /// The model's dead time per window `d`, ns (median over every window of every run).
    pub model_dead_time_ns: i64,
    /// One per window length, longest first.
    pub points: Vec<SlotPoint>,
    /// XtratuM's Table 4: (slot ms, measured %, model %).
    pub published: Vec<(u64, f64, f64)>,
}

/// XtratuM's Table 4 (LEON2 at 80 MHz; M. Masmano et al., *XtratuM: a hypervisor for safety
/// critical embedded systems*): slot duration ms, measured and modelled overhead %.
pub const XTRATUM_TABLE_4: [(u64, f64, f64); 8] = [
    (1000, 0.00, 0.00),
    (200, 0.01, 0.01),
    (100, 0.03, 0.03),
    (50, 0.05, 0.06),
    (20, 0.14, 0.14),
    (10, 0.29, 0.28),
    (5, 0.57, 0.56),
    (1, 2.67, 2.68),
];

/// The frame of length-`l` windows: the partitions one after the other, then at least 1 ms
/// and 5 % of the frame free of real-time work.
fn frame_of(core: u32, l: u64) -> FramePlan {
    let busy = u64::from(PARTITIONS) * l;
    FramePlan {
        major_frame: busy + (busy * 5).div_ceil(95).max(MS),
        windows: (0..PARTITIONS)
            .map(|i| Window {
                id: i + 1,
                partition: i as usize,
                core,
                offset: u64::from(i) * l,
                duration: l,
                period_start: true,
            })
            .collect(),
    }
}

/// Windows a run at length `l` ms may spend starting its partitions: about 2 s of frames,
/// at least one.
fn startup_windows(l: u64) -> usize {
    (2000 * MS / frame_of(0, l * MS).major_frame).max(1) as usize
}

/// One run at window length `l` (ns): the results of the partitions, the backend and notes.
fn run_length(
    exe: &std::path::Path,
    core: u32,
    l: u64,
    windows: usize,
    stop: &AtomicBool,
) -> Result<(Vec<SlotsResult>, String, Vec<String>), BenchError> {
    let results = crate::result_files("slots", &crate::run_tag(), PARTITIONS as usize);
    let frame = frame_of(core, l);
    let major = frame.major_frame;
    let mut builder = PlanBuilder::new("bench-slots", frame);
    for (i, r) in results.iter().enumerate() {
        builder = builder.partition(CompiledPartition {
            args: SlotsPartitionArgs {
                result: r.0.clone(),
                major_frame_ns: major as i64,
                offset_ns: (i as u64 * l) as i64,
                window_ns: l as i64,
                windows,
            }
            .to_args(),
            cores: vec![core],
            ..CompiledPartition::new(i as u32 + 1, &format!("C{i}"), exe.to_path_buf())
        });
    }
    let plan = builder.build()?;
    let opts = RunOptions {
        duration: Some(Duration::from_nanos(major * (windows as u64 + 20))),
        echo: false,
        ..RunOptions::default()
    };
    let report = run_until(&plan, opts, stop, || results.iter().all(|r| r.0.exists()))?;
    let notes = run_notes(&report, true);
    let mut out = Vec::new();
    for (i, r) in results.iter().enumerate() {
        out.push(crate::read_result(&format!("C{i}"), &r.0, Vec::new)?);
    }
    Ok((out, report.backend.to_string(), notes))
}

/// Runs the benchmark. `progress` receives a line per window length as it finishes.
pub fn run_slots(
    opts: &SlotsOptions,
    stop: Arc<AtomicBool>,
    mut progress: impl FnMut(&str),
) -> Result<SlotsReport, BenchError> {
    if !partita_sys::proc::is_root() {
        return Err(BenchError::NotRoot);
    }
    let t0 = std::time::Instant::now();
    let provenance = Provenance::now();
    let exe = crate::partition_executable(partita_bench_protocol::SLOTS_PARTITION)?;
    let core = u32::from(partita_sys::sched::online_cpus() > 1);
    let (lengths, counted): (&[u64], u64) = if opts.quick {
        (&WINDOWS_QUICK, COUNTED_QUICK_MS)
    } else {
        (&WINDOWS_FULL, COUNTED_FULL_MS)
    };
    let mut backend = String::new();
    let mut raw = Vec::new();
    let mut all_dead = Vec::new();
    for &l in lengths {
        if stop.load(Ordering::Relaxed) {
            return Err(BenchError::Interrupted);
        }
        // Start-up takes windows too (its partitions initialise in them): room for it.
        let windows = (counted / l) as usize + SKIP_FIRST + SKIP_LAST + startup_windows(l);
        match run_length(&exe, core, l * MS, windows, &stop) {
            Ok((rs, b, notes)) => {
                backend = b;
                let (mut count, mut n, mut outside) = (0u64, 0u64, 0u64);
                let mut dead = Vec::new();
                for r in &rs {
                    // From the first window the counter ran in (the run starts its
                    // partitions in their windows), less the settling ones.
                    let began = r
                        .counts
                        .iter()
                        .position(|&c| c > 0)
                        .unwrap_or(r.counts.len());
                    let end = r.counts.len().saturating_sub(SKIP_LAST);
                    for k in (began + SKIP_FIRST).min(end)..end {
                        count += r.counts[k];
                        n += 1;
                        if r.effective_ns[k] > 0 {
                            dead.push((l * MS) as i64 - r.effective_ns[k]);
                        }
                    }
                    outside += r.outside;
                }
                all_dead.extend(dead.iter().copied());
                let rate = count as f64 / (n.max(1) * l) as f64;
                progress(&format!(
                    "{l} ms windows: {rate:.0} iterations per ms over {n} windows"
                ));
                raw.push((
                    l,
                    None,
                    n,
                    rate,
                    Distribution::of(&mut dead),
                    outside,
                    notes,
                ));
            }
            Err(BenchError::Interrupted) => return Err(BenchError::Interrupted),
            Err(e) => raw.push((
                l,
                Some(e.to_string()),
                0,
                f64::NAN,
                Distribution::default(),
                0,
                Vec::new(),
            )),
        }
    }
    let d = Distribution::of(&mut all_dead).median_ns;
    let reference = raw.iter().find(|p| p.1.is_none()).map(|p| (p.0, p.3));
    let points = raw
        .into_iter()
        .map(|(l, skipped, n, rate, dead, outside, notes)| {
            let (lref, rref) = reference.unwrap_or((l, rate));
            SlotPoint {
                window_ms: l,
                skipped,
                windows: n,
                rate_per_ms: rate,
                loss_percent: 100.0 * (1.0 - rate / rref),
                model_percent: 100.0 * (d as f64 / (l * MS) as f64 - d as f64 / (lref * MS) as f64),
                dead_time: dead,
                outside,
                notes,
            }
        })
        .collect();
    Ok(SlotsReport {
        head: ReportHead {
            format: "partita-bench-slots/1",
            provenance,
            elapsed_s: t0.elapsed().as_secs_f64(),
            configuration_hash: fnv1a_hex(format!("{lengths:?} {counted}").as_bytes()),
            quick: opts.quick,
        },
        core,
        backend,
        counted_ms: counted,
        model_dead_time_ns: d,
        points,
        published: XTRATUM_TABLE_4.to_vec(),
    })
}

/// Renders the report as Markdown, XtratuM's Table 4 beside ours.
pub fn render_slots(r: &SlotsReport) -> String {
    use std::fmt::Write;
    let mut s = r.head.provenance.heading(
        "Performance loss against window length",
        r.head.quick,
        &r.head.configuration_hash,
    );
    let _ = writeln!(
        s,
        "Three counting partitions in windows of L ms one after the other on core {}, backend {}, {} ms of window counted per partition and length. Loss against the longest window; model `d / L - d / L_ref` with the dead time per window d = {:.1} us (median of L less the span of the clock readings in the window). XtratuM's values: LEON2 at 80 MHz, d about 27 us (a 25 us switch and the clock interrupt).\n",
        r.core,
        r.backend,
        r.counted_ms,
        r.model_dead_time_ns as f64 / 1e3
    );
    let _ = writeln!(
        s,
        "| window (ms) | windows | iterations/ms | loss (%) | model (%) | dead time median (us) | dead time p99 (us) | XtratuM measured (%) | XtratuM model (%) |"
    );
    let _ = writeln!(s, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for p in &r.points {
        let x = XTRATUM_TABLE_4.iter().find(|x| x.0 == p.window_ms);
        let theirs = x.map_or_else(
            || "- | -".to_string(),
            |x| format!("{:.2} | {:.2}", x.1, x.2),
        );
        if let Some(why) = &p.skipped {
            let _ = writeln!(
                s,
                "| {} | no figures: {why} | | | | | | {theirs} |",
                p.window_ms
            );
            continue;
        }
        let _ = writeln!(
            s,
            "| {} | {} | {:.0} | {:.3} | {:.3} | {:.1} | {:.1} | {theirs} |",
            p.window_ms,
            p.windows,
            p.rate_per_ms,
            p.loss_percent,
            p.model_percent,
            p.dead_time.median_ns as f64 / 1e3,
            p.dead_time.p99_ns as f64 / 1e3
        );
    }
    let mut remarks = Vec::new();
    for p in &r.points {
        remarks.extend(p.notes.iter().map(|n| format!("{} ms: {n}", p.window_ms)));
        if p.outside > 0 {
            remarks.push(format!(
                "{} ms: {} clock readings outside the windows",
                p.window_ms, p.outside
            ));
        }
    }
    if !remarks.is_empty() {
        let _ = writeln!(s);
    }
    for n in remarks {
        let _ = writeln!(s, "- {n}");
    }
    let _ = writeln!(s, "\nbench took {:.0} s", r.head.elapsed_s);
    s
}

/// The loss against window length, measured and modelled (log-spaced lengths as a plain
/// axis of their indices would mislead, so x is the length in ms).
pub fn slots_figures(r: &SlotsReport) -> Vec<(String, String)> {
    use partita_synth::svg::{two_panels, Series};
    let pts: Vec<&SlotPoint> = r.points.iter().rev().collect();
    let xs: Vec<f64> = pts.iter().map(|p| p.window_ms as f64).collect();
    let ours = vec![
        Series {
            name: "measured".into(),
            values: pts.iter().map(|p| p.loss_percent).collect(),
        },
        Series {
            name: "model".into(),
            values: pts.iter().map(|p| p.model_percent).collect(),
        },
    ];
    let published = |name: &str, col: fn(&(u64, f64, f64)) -> f64| Series {
        name: name.into(),
        values: pts
            .iter()
            .map(|p| {
                XTRATUM_TABLE_4
                    .iter()
                    .find(|x| x.0 == p.window_ms)
                    .map_or(f64::NAN, col)
            })
            .collect(),
    };
    let theirs = vec![
        published("XtratuM measured", |x| x.1),
        published("XtratuM model", |x| x.2),
    ];
    vec![(
        "slots-loss.svg".to_string(),
        two_panels(
            "Performance loss (%) against window length",
            &xs,
            "window (ms)",
            ("Partita", &ours),
            ("XtratuM (Table 4)", &theirs),
        ),
    )]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_frame_keeps_five_percent_free() {
        for l in WINDOWS_FULL {
            let f = frame_of(0, l * MS);
            let busy = 3 * l * MS;
            assert!((f.major_frame - busy) * 20 >= f.major_frame, "{l}");
            assert!(f.major_frame - busy >= MS);
            assert_eq!(f.windows[2].offset, 2 * l * MS);
        }
    }

    #[test]
    fn the_table_puts_xtratum_beside_ours_and_the_curve_has_both() {
        let point = |l: u64, loss: f64, model: f64| SlotPoint {
            window_ms: l,
            skipped: None,
            windows: 10,
            rate_per_ms: 1000.0,
            loss_percent: loss,
            model_percent: model,
            dead_time: Distribution::of(&mut [30_000, 40_000]),
            outside: 0,
            notes: Vec::new(),
        };
        let r = SlotsReport {
            head: ReportHead {
                format: "partita-bench-slots/1",
                provenance: Provenance::now(),
                elapsed_s: 1.0,
                configuration_hash: fnv1a_hex(b""),
                quick: true,
            },
            core: 1,
            backend: "freezer-v2".into(),
            counted_ms: 1000,
            model_dead_time_ns: 30_000,
            points: vec![point(200, 0.0, 0.0), point(1, 2.9, 2.985)],
            published: XTRATUM_TABLE_4.to_vec(),
        };
        let md = render_slots(&r);
        assert!(
            md.contains("| 1 | 10 | 1000 | 2.900 | 2.985 | 30.0 | 40.0 | 2.67 | 2.68 |"),
            "{md}"
        );
        assert!(md.contains("| 200 | 10 | 1000 | 0.000 | 0.000 |"), "{md}");
        let svg = slots_figures(&r);
        assert_eq!(svg.len(), 1);
        assert_eq!(svg[0].1.matches("<polyline").count(), 4);
    }

    #[test]
    fn xtratum_model_is_a_dead_time_over_the_slot() {
        // Its model column is about 27 us / L (the 25 us context switch and the clock
        // interrupt), within the rounding of the table.
        for (l, _, model) in XTRATUM_TABLE_4 {
            let m = 100.0 * 26.8e-3 / l as f64;
            assert!((m - model).abs() < 0.03, "{l}: {m} vs {model}");
        }
    }
}
