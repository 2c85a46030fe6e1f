// SPDX-License-Identifier: MIT OR Apache-2.0
//! Pure schedule logic for Partita.
//!
//! Nothing here touches the operating system: a [`FramePlan`] is the cyclic window table of one
//! module schedule, with every time an integer number of nanoseconds relative to the start of
//! a major frame. From it this crate derives
//! - the checks the configuration validator reports (windows overlapping on a core, windows
//!   leaving the frame, the time each partition is given in each of its periods),
//! - the per-core list of *boundaries* (the instants where the partition that should run on a
//!   core changes), and
//! - the absolute, drift-free instant of the k-th boundary: `epoch + frame * major_frame +
//!   offset`. The partition manager never adds a measured delay to a previous deadline, so a
//!   late timer does not shift any later window.

use serde::{Deserialize, Serialize};

pub mod switch;
pub mod timeline;

pub use switch::FrameClock;
pub use timeline::{Boundary, BoundaryCursor, CoreTimeline};

/// Nanoseconds (durations, offsets and absolute times on the monotonic clock).
pub type Nanos = u64;

/// One window of the cyclic schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window {
    /// `WindowIdentifier` from the configuration.
    pub id: u32,
    /// Index of the partition in the module's partition list (not its identifier).
    pub partition: usize,
    /// Processor core the window runs on.
    pub core: u32,
    /// Start of the window, relative to the start of the major frame.
    pub offset: Nanos,
    /// Length of the window.
    pub duration: Nanos,
    /// `PartitionPeriodStart`: this window starts a period of its partition.
    pub period_start: bool,
}

impl Window {
    /// First instant after the window (relative to the frame start).
    pub fn end(&self) -> Nanos {
        self.offset.saturating_add(self.duration)
    }
}

/// The partition period requirements a plan is checked against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionTiming {
    /// `PeriodSeconds` in nanoseconds.
    pub period: Nanos,
    /// `PeriodDurationSeconds` in nanoseconds: time the partition needs in every period.
    pub duration: Nanos,
}

/// The window table of one module schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FramePlan {
    /// `MajorFrameSeconds` in nanoseconds.
    pub major_frame: Nanos,
    /// Windows, in configuration order.
    pub windows: Vec<Window>,
}

/// Errors of the pure schedule arithmetic.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    /// The major frame is zero.
    #[error("the major frame is zero")]
    ZeroMajorFrame,
    /// A window is empty.
    #[error("window {0} has zero duration")]
    EmptyWindow(u32),
    /// A window does not fit in the major frame.
    #[error("window {0} leaves the major frame")]
    OutsideFrame(u32),
    /// Two windows on one core overlap.
    #[error("windows {0} and {1} overlap on core {2}")]
    Overlap(u32, u32, u32),
}

impl FramePlan {
    /// Whether `partition` has a window on a core other than `core` in force at `t` (relative
    /// to the frame start, in `[0, major_frame)`): one that starts at `t` or before and ends
    /// after it. A window ending exactly at `t` is not in force.
    pub fn runs_elsewhere_at(&self, partition: usize, core: u32, t: Nanos) -> bool {
        self.windows
            .iter()
            .any(|w| w.partition == partition && w.core != core && w.offset <= t && t < w.end())
    }

    /// Indices (into `windows`) of the windows that start or end outside `[0, major_frame]`.
    pub fn windows_outside_frame(&self) -> Vec<usize> {
        self.windows
            .iter()
            .enumerate()
            .filter(|(_, w)| w.offset >= self.major_frame || w.end() > self.major_frame)
            .map(|(i, _)| i)
            .collect()
    }

    /// Pairs of indices `(a, b)`, `a < b`, of windows that overlap on the same core: every
    /// window that starts before an earlier-starting window of its core has ended, paired with
    /// the one of those that reaches furthest. Empty exactly when no two windows overlap; one
    /// pair per overlapping window at most, so thousands of stacked windows give thousands of
    /// pairs, not millions.
    pub fn overlapping_windows(&self) -> Vec<(usize, usize)> {
        let mut order: Vec<usize> = (0..self.windows.len())
            .filter(|&i| self.windows[i].duration > 0)
            .collect();
        order.sort_by_key(|&i| (self.windows[i].core, self.windows[i].offset, i));
        let mut pairs = Vec::new();
        // The window reaching furthest among those seen so far on the current core.
        let mut reach: Option<usize> = None;
        for &j in &order {
            let wj = &self.windows[j];
            match reach {
                Some(r) if self.windows[r].core == wj.core => {
                    let wr = &self.windows[r];
                    if wj.offset < wr.end() {
                        pairs.push((r.min(j), r.max(j)));
                    }
                    if wj.end() > wr.end() {
                        reach = Some(j);
                    }
                }
                _ => reach = Some(j),
            }
        }
        pairs.sort_unstable();
        pairs
    }

    /// Checks the structural rules (non-zero frame, non-empty windows inside the frame, no
    /// overlap per core). Returns every violation, not only the first.
    pub fn structural_errors(&self) -> Vec<ScheduleError> {
        let mut errs = Vec::new();
        if self.major_frame == 0 {
            errs.push(ScheduleError::ZeroMajorFrame);
        }
        for w in &self.windows {
            if w.duration == 0 {
                errs.push(ScheduleError::EmptyWindow(w.id));
            }
        }
        for i in self.windows_outside_frame() {
            errs.push(ScheduleError::OutsideFrame(self.windows[i].id));
        }
        for (a, b) in self.overlapping_windows() {
            errs.push(ScheduleError::Overlap(
                self.windows[a].id,
                self.windows[b].id,
                self.windows[a].core,
            ));
        }
        errs
    }

    /// Time given to `partition` inside each of its periods of one major frame:
    /// element `k` is the total window time in `[k * period, (k + 1) * period)` (a window that
    /// straddles a period boundary is split between the two periods).
    ///
    /// `period` must divide the major frame; otherwise the last, partial period is still
    /// reported as its own element.
    pub fn supply_per_period(&self, partition: usize, period: Nanos) -> Vec<Nanos> {
        if period == 0 || self.major_frame == 0 {
            return Vec::new();
        }
        let n = self.major_frame.div_ceil(period) as usize;
        let mut supply = vec![0; n];
        for w in self.windows.iter().filter(|w| w.partition == partition) {
            let (mut s, e) = (w.offset, w.end().min(self.major_frame));
            while s < e {
                let k = (s / period) as usize;
                let period_end = ((k as u64) + 1) * period;
                let piece_end = e.min(period_end);
                if k < n {
                    supply[k] += piece_end - s;
                }
                s = piece_end;
            }
        }
        supply
    }

    /// Total window time of `partition` in one major frame.
    pub fn partition_time(&self, partition: usize) -> Nanos {
        self.windows
            .iter()
            .filter(|w| w.partition == partition)
            .map(|w| w.duration)
            .sum()
    }

    /// Total window time on `core` in one major frame.
    pub fn core_time(&self, core: u32) -> Nanos {
        self.windows
            .iter()
            .filter(|w| w.core == core)
            .map(|w| w.duration)
            .sum()
    }

    /// The cores that have at least one window, ascending.
    pub fn cores(&self) -> Vec<u32> {
        let mut cores: Vec<u32> = self.windows.iter().map(|w| w.core).collect();
        cores.sort_unstable();
        cores.dedup();
        cores
    }

    /// Offset of the first period start of `partition` inside the frame: the earliest window
    /// flagged `period_start`, else its earliest window, else 0.
    pub fn period_origin(&self, partition: usize) -> Nanos {
        let mine = || self.windows.iter().filter(|w| w.partition == partition);
        mine()
            .filter(|w| w.period_start)
            .map(|w| w.offset)
            .min()
            .or_else(|| mine().map(|w| w.offset).min())
            .unwrap_or(0)
    }

    /// The boundary timeline of one core.
    pub fn core_timeline(&self, core: u32) -> CoreTimeline {
        CoreTimeline::new(self, core)
    }
}

/// Least common multiple (0 when either is 0).
pub fn lcm(a: Nanos, b: Nanos) -> Nanos {
    if a == 0 || b == 0 {
        return 0;
    }
    a / gcd(a, b) * b
}

/// Greatest common divisor.
pub fn gcd(mut a: Nanos, mut b: Nanos) -> Nanos {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests;
