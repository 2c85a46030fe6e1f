// SPDX-License-Identifier: MIT OR Apache-2.0
//! The live progress of a running module, for `partita run`'s status line: counters the
//! scheduler threads and the supervisor update as they go (relaxed atomics, no lock and no
//! allocation where the scheduler threads touch them), read by whoever holds the [`Progress`]
//! as a typed [`ProgressSnapshot`]; and the console discipline that keeps a status line on
//! stderr apart from the lines the run prints: every echoed line clears the status line
//! first, under the same lock the status line is drawn with.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Counters of a running module. Pass one in [`crate::RunOptions::progress`] and read it
/// with [`Progress::snapshot`] from another thread while [`crate::run`] runs.
#[derive(Debug, Default)]
pub struct Progress {
    /// `CLOCK_MONOTONIC` ns of major frame 0; 0 until the module started.
    epoch: AtomicU64,
    /// Major frames started (the most any core has started).
    frames: AtomicU64,
    /// Boundaries the scheduler threads skipped because they woke too late.
    missed: AtomicU64,
    /// DEADLINE_MISSED events the health monitor recorded.
    deadline_misses: AtomicU64,
    /// Health-monitor events (recorded or suppressed by the rate limit).
    hm_events: AtomicU64,
    /// Whether the run records a trace.
    tracing: AtomicBool,
    trace_written: AtomicU64,
    trace_lost: AtomicU64,
    /// Whether a status line is on the terminal (stderr) now.
    status_shown: Mutex<bool>,
}

/// What a module has done so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProgressSnapshot {
    /// Whether the first major frame has started.
    pub started: bool,
    /// Time since the first major frame started.
    pub elapsed: Duration,
    /// Major frames started.
    pub frames: u64,
    /// Boundaries missed (scheduler threads woke after them).
    pub missed_boundaries: u64,
    /// Deadline misses.
    pub deadline_misses: u64,
    /// Health-monitor events.
    pub hm_events: u64,
    /// Trace events, when the run records a trace.
    pub trace: Option<TraceProgress>,
}

/// Trace events of a run so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TraceProgress {
    /// Events written to the trace file.
    pub written: u64,
    /// Events lost (rings full).
    pub lost: u64,
}

impl Progress {
    /// Counters at zero.
    pub fn new() -> Progress {
        Progress::default()
    }

    /// The counters now.
    pub fn snapshot(&self) -> ProgressSnapshot {
        let epoch = self.epoch.load(Ordering::Acquire);
        let started = epoch != 0;
        let now = partita_sys::time::monotonic_ns();
        ProgressSnapshot {
            started,
            elapsed: if started {
                Duration::from_nanos(now.saturating_sub(epoch))
            } else {
                Duration::ZERO
            },
            frames: self.frames.load(Ordering::Relaxed),
            missed_boundaries: self.missed.load(Ordering::Relaxed),
            deadline_misses: self.deadline_misses.load(Ordering::Relaxed),
            hm_events: self.hm_events.load(Ordering::Relaxed),
            trace: self.tracing.load(Ordering::Relaxed).then(|| TraceProgress {
                written: self.trace_written.load(Ordering::Relaxed),
                lost: self.trace_lost.load(Ordering::Relaxed),
            }),
        }
    }

    /// The trace recorder's totals so far (marks the run as tracing).
    pub fn note_trace(&self, written: u64, lost: u64) {
        self.trace_written.store(written, Ordering::Relaxed);
        self.trace_lost.store(lost, Ordering::Relaxed);
        self.tracing.store(true, Ordering::Relaxed);
    }

    /// The module started: major frame 0 begins at `epoch`.
    pub(crate) fn start(&self, epoch: u64) {
        self.epoch.store(epoch.max(1), Ordering::Release);
    }

    /// A core's scheduler thread started its `n`-th major frame (counted from 1).
    pub(crate) fn frame(&self, n: u64) {
        self.frames.fetch_max(n, Ordering::Relaxed);
    }

    /// `n` boundaries were skipped.
    pub(crate) fn missed(&self, n: u64) {
        if n > 0 {
            self.missed.fetch_add(n, Ordering::Relaxed);
        }
    }

    /// The health monitor's totals (the supervisor copies them).
    pub(crate) fn health(&self, events: u64, deadline_misses: u64) {
        self.hm_events.store(events, Ordering::Relaxed);
        self.deadline_misses
            .store(deadline_misses, Ordering::Relaxed);
    }

    /// Draws `line` as the status line on stderr (replacing the one shown).
    pub fn show_status(&self, line: &str) {
        let mut shown = self.status_shown.lock().unwrap_or_else(|e| e.into_inner());
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r{line}\x1b[K");
        let _ = err.flush();
        *shown = true;
    }

    /// Removes the status line, if one is shown.
    pub fn clear_status(&self) {
        self.without_status(|| ());
    }

    /// Runs `print` with no status line on the terminal: a line printed meanwhile starts at
    /// the left margin and the status line is drawn again only after it.
    pub fn without_status<R>(&self, print: impl FnOnce() -> R) -> R {
        let mut shown = self.status_shown.lock().unwrap_or_else(|e| e.into_inner());
        if *shown {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
            *shown = false;
        }
        print()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_reach_the_snapshot() {
        let p = Progress::new();
        let s = p.snapshot();
        assert!(!s.started);
        assert_eq!(s.elapsed, Duration::ZERO);
        assert_eq!(s.trace, None);
        p.start(partita_sys::time::monotonic_ns());
        p.frame(3);
        p.frame(2); // a slower core does not move the count back
        p.missed(2);
        p.missed(1);
        p.health(4, 1);
        p.note_trace(100, 7);
        let s = p.snapshot();
        assert!(s.started);
        assert_eq!(
            (
                s.frames,
                s.missed_boundaries,
                s.hm_events,
                s.deadline_misses
            ),
            (3, 3, 4, 1)
        );
        assert_eq!(
            s.trace,
            Some(TraceProgress {
                written: 100,
                lost: 7
            })
        );
    }
}
