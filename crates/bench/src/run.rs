// SPDX-License-Identifier: MIT OR Apache-2.0
//! Running a benchmark module under the partition manager: the run ends when the bench has
//! what it needs (or is interrupted), and the manager's remarks become the section's notes.

use crate::BenchError;
use partita_config::CompiledPlan;
use partita_manager::{NoteKind, RunOptions, RunReport};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Runs `plan` with `opts` (whose `stop` is replaced) until `finished()` holds or the bench is
/// interrupted (`interrupted` set), both checked every 20 ms; the run also ends at
/// `opts.duration`. An interrupted bench gives [`BenchError::Interrupted`].
pub(crate) fn run_until(
    plan: &CompiledPlan,
    opts: RunOptions,
    interrupted: &AtomicBool,
    finished: impl Fn() -> bool + Sync,
) -> Result<RunReport, BenchError> {
    let run_stop = Arc::new(AtomicBool::new(false));
    let opts = RunOptions {
        stop: Some(run_stop.clone()),
        ..opts
    };
    let done = AtomicBool::new(false);
    let report = std::thread::scope(|sc| {
        sc.spawn(|| {
            while !done.load(Ordering::Acquire) {
                if interrupted.load(Ordering::Relaxed) || finished() {
                    run_stop.store(true, Ordering::Release);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        let r = partita_manager::run(plan, &opts);
        done.store(true, Ordering::Release);
        r
    })?;
    if interrupted.load(Ordering::Relaxed) {
        return Err(BenchError::Interrupted);
    }
    Ok(report)
}

/// The manager's remarks on a run, as section notes (the throttling notice left out):
/// partitions that could not start and, when `all`, a run without real-time priorities,
/// left-overs and partitions that ended early.
pub(crate) fn run_notes(report: &RunReport, all: bool) -> Vec<String> {
    let mut notes: Vec<String> = report
        .notes
        .iter()
        .filter(|n| n.kind != NoteKind::RtThrottling)
        .map(|n| n.text.clone())
        .collect();
    if all && !report.realtime {
        notes.push("the manager ran without real-time priorities".into());
    }
    if all {
        for l in &report.leftovers {
            notes.push(format!("left behind: {l}"));
        }
    }
    for p in &report.partitions {
        if let Some(e) = &p.exec_error {
            notes.push(format!("partition {} could not start: {e}", p.name));
        }
        if all {
            if let Some(e) = &p.exit {
                notes.push(format!("partition {} ended early: {e}", p.name));
            }
        }
    }
    notes
}

/// The first lines partition `name` wrote to its stderr in a run whose `log_dir` was
/// `log_dir` (for the error when it wrote no result).
pub(crate) fn partition_stderr(log_dir: &std::path::Path, name: &str) -> Vec<String> {
    let log =
        std::fs::read_to_string(partita_manager::partition_log(log_dir, name)).unwrap_or_default();
    log.lines()
        .filter(|l| l.starts_with("stderr: "))
        .take(10)
        .map(str::to_string)
        .collect()
}
