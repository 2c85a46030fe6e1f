// SPDX-License-Identifier: MIT OR Apache-2.0
//! The live status line of `partita run`: on a terminal (stderr), a line redrawn four times a
//! second once the module has run [`SHOW_AFTER`] (elapsed/duration, frames, missed
//! boundaries, deadline misses, HM events, trace events written and lost when tracing),
//! built from the manager's [`Progress`] counters. Quiet when stderr is not a terminal, when
//! `TERM=dumb`, and for runs shorter than [`SHORT_RUN`]. Echoed output lines clear it first
//! (the manager's output does so through the same [`Progress`]), and it is removed before the
//! report is printed.

use partita_manager::{Progress, ProgressSnapshot};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// The line appears once the module has run this long.
pub const SHOW_AFTER: Duration = Duration::from_secs(1);
/// Runs with a `--duration` below this never show it.
pub const SHORT_RUN: Duration = Duration::from_secs(2);
/// Time between two redraws.
pub const PERIOD: Duration = Duration::from_millis(250);

/// Whether to show a status line: stderr is a terminal that can move the cursor (`TERM` is not
/// `dumb`), and the run is not known to be short.
pub fn wanted(stderr_is_terminal: bool, term: Option<&str>, duration: Option<Duration>) -> bool {
    stderr_is_terminal && term != Some("dumb") && duration.is_none_or(|d| d >= SHORT_RUN)
}

/// Seconds with a decimal below 100 s, whole seconds above.
fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 100.0 {
        format!("{s:.1}")
    } else {
        format!("{}", d.as_secs())
    }
}

/// A count, in thousands (k) or millions (M) when large.
fn count(n: u64) -> String {
    match n {
        0..=99_999 => n.to_string(),
        100_000..=9_999_999 => format!("{:.0}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

/// The status line for `s`, at most `width - 1` characters (the last column stays free so the
/// terminal does not wrap).
pub fn line(s: &ProgressSnapshot, duration: Option<Duration>, width: usize) -> String {
    let mut text = if !s.started {
        "starting".to_string()
    } else {
        let time = match duration {
            Some(d) => format!("{}/{} s", secs(s.elapsed.min(d)), secs(d)),
            None => format!("{} s", secs(s.elapsed)),
        };
        // Compact, so that it stays within a terminal's width on long runs.
        let mut t = format!(
            "{time}, frames {}, missed {}, deadline misses {}, HM {}",
            s.frames, s.missed_boundaries, s.deadline_misses, s.hm_events
        );
        if let Some(tr) = s.trace {
            t.push_str(&format!(
                ", trace {} ({} lost)",
                count(tr.written),
                count(tr.lost)
            ));
        }
        t
    };
    let max = width.saturating_sub(1).max(1);
    if text.chars().count() > max {
        text = text.chars().take(max).collect();
    }
    text
}

/// The terminal's width: what the terminal says (`terminal`), else `COLUMNS`, else 80.
pub fn width(terminal: Option<u16>, columns: Option<&str>) -> usize {
    terminal
        .map(usize::from)
        .filter(|&w| w > 0)
        .unwrap_or_else(|| {
            columns
                .and_then(|c| c.trim().parse().ok())
                .filter(|&w: &usize| w > 0)
                .unwrap_or(80)
        })
}

/// The thread redrawing the line while a module runs.
pub struct StatusLine {
    progress: Arc<Progress>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl StatusLine {
    /// Starts redrawing `progress` as a status line.
    pub fn start(progress: Arc<Progress>, duration: Option<Duration>) -> StatusLine {
        let stop = Arc::new(AtomicBool::new(false));
        let (p, st) = (progress.clone(), stop.clone());
        let columns = std::env::var("COLUMNS").ok();
        let thread = std::thread::Builder::new()
            .name("partita-status".into())
            .spawn(move || {
                while !st.load(Ordering::Acquire) {
                    std::thread::park_timeout(PERIOD);
                    let s = p.snapshot();
                    if s.started && s.elapsed >= SHOW_AFTER && !st.load(Ordering::Acquire) {
                        // Asked at every redraw: the terminal may have been resized.
                        let w = width(partita_sys::proc::stderr_columns(), columns.as_deref());
                        p.show_status(&line(&s, duration, w));
                    }
                }
            })
            .ok();
        StatusLine {
            progress,
            stop,
            thread,
        }
    }

    /// Stops redrawing and removes the line.
    pub fn finish(mut self) {
        self.stop_thread();
    }

    fn stop_thread(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
        self.progress.clear_status();
    }
}

impl Drop for StatusLine {
    fn drop(&mut self) {
        self.stop_thread();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use partita_manager::TraceProgress;

    fn snap() -> ProgressSnapshot {
        ProgressSnapshot {
            started: true,
            elapsed: Duration::from_millis(12_345),
            frames: 617,
            missed_boundaries: 2,
            deadline_misses: 1,
            hm_events: 3,
            trace: None,
        }
    }

    #[test]
    fn the_line_says_where_the_run_is() {
        assert_eq!(
            line(&snap(), Some(Duration::from_secs(60)), 200),
            "12.3/60.0 s, frames 617, missed 2, deadline misses 1, HM 3"
        );
        assert_eq!(
            line(&snap(), None, 200),
            "12.3 s, frames 617, missed 2, deadline misses 1, HM 3"
        );
        let mut s = snap();
        s.trace = Some(TraceProgress {
            written: 40_000,
            lost: 5,
        });
        assert!(line(&s, None, 200).ends_with("HM 3, trace 40000 (5 lost)"));
        // An hour-long traced run stays short.
        s.elapsed = Duration::from_secs(3599);
        (s.frames, s.trace) = (
            179_950,
            Some(TraceProgress {
                written: 12_345_678,
                lost: 0,
            }),
        );
        let hour = line(&s, Some(Duration::from_secs(3600)), 200);
        assert_eq!(
            hour,
            "3599/3600 s, frames 179950, missed 2, deadline misses 1, HM 3, trace 12.3M (0 lost)"
        );
        assert_eq!(count(123_456), "123k");
        // Past the end while stopping: never more than the duration.
        s.elapsed = Duration::from_secs(61);
        assert!(line(&s, Some(Duration::from_secs(60)), 200).starts_with("60.0/60.0 s,"));
        s.started = false;
        assert_eq!(line(&s, None, 200), "starting");
    }

    #[test]
    fn the_line_never_wraps() {
        let l = line(&snap(), Some(Duration::from_secs(60)), 40);
        assert_eq!(l.chars().count(), 39);
        assert!(l.starts_with("12.3/60.0 s, frames 617"));
        assert_eq!(line(&snap(), None, 0).chars().count(), 1);
        assert_eq!(width(Some(100), Some("132")), 100);
        assert_eq!(width(Some(0), Some("132")), 132);
        assert_eq!(width(None, Some("132")), 132);
        assert_eq!(width(None, Some("wide")), 80);
        assert_eq!(width(None, Some("0")), 80);
        assert_eq!(width(None, None), 80);
    }

    #[test]
    fn only_a_terminal_gets_a_status_line() {
        let long = Some(Duration::from_secs(60));
        assert!(wanted(true, Some("xterm-256color"), long));
        assert!(wanted(true, None, None));
        assert!(!wanted(false, Some("xterm"), long));
        assert!(!wanted(true, Some("dumb"), long));
        assert!(!wanted(true, Some("xterm"), Some(Duration::from_secs(1))));
        assert!(wanted(true, Some("xterm"), Some(SHORT_RUN)));
    }
}
