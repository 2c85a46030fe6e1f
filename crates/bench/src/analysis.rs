// SPDX-License-Identifier: MIT OR Apache-2.0
//! Matching a spinner's gaps to the known window boundaries.

use serde::Serialize;

/// Where one partition's window lies in every major frame (APEX time, ns).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Geometry {
    pub major_frame: i64,
    pub offset: i64,
    pub duration: i64,
}

/// What the gaps of one spinner say.
#[derive(Debug, Default, Clone)]
pub(crate) struct Matched {
    /// First reading after each window start, minus the start.
    pub start: Vec<i64>,
    /// Last reading before each window end, minus the end.
    pub overrun: Vec<i64>,
    /// Counters.
    pub counts: Counts,
}

/// Counters of the matching (should all be 0 but `off_periods`).
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub struct Counts {
    /// Off-window periods examined (one per window measured).
    pub off_periods: u64,
    /// Off-window periods in the middle of which the spinner was running: the partition was
    /// not held outside its window.
    pub ran_outside: u64,
    /// Windows at whose end the spinner was not the one running when the switch began
    /// (preempted by something else on the core earlier than the spin margin explains);
    /// left out of the overrun figures.
    pub not_running_at_end: u64,
    /// Windows in which the spinner did not run at all before the window ended; left out of
    /// the start figures.
    pub no_start: u64,
    /// Gaps that did not fit in the log.
    pub dropped_gaps: u64,
}

impl Counts {
    /// Adds `o`.
    pub fn add(&mut self, o: &Counts) {
        self.off_periods += o.off_periods;
        self.ran_outside += o.ran_outside;
        self.not_running_at_end += o.not_running_at_end;
        self.no_start += o.no_start;
        self.dropped_gaps += o.dropped_gaps;
    }
}

/// Matches `gaps` (time order) of a spinner that started at `started` against its windows.
/// Windows are considered from two frames after the start up to the last recorded gap; a
/// last reading earlier than `early_limit` before a window end means the spinner was not
/// running when the switch began.
pub(crate) fn match_gaps(
    gaps: &[(i64, i64)],
    started: i64,
    g: Geometry,
    early_limit: i64,
) -> Matched {
    let mut m = Matched::default();
    let Some(horizon) = gaps.iter().map(|x| x.1).max() else {
        return m;
    };
    let mf = g.major_frame;
    // First frame whose window starts at least two frames after the spinner started.
    let mut f = ((started + 2 * mf - g.offset).max(0) + mf - 1) / mf;
    loop {
        let win_start = f * mf + g.offset;
        let end = win_start + g.duration;
        let next_start = win_start + mf;
        let mid = end + (next_start - end) / 2;
        if mid >= horizon {
            break;
        }
        m.counts.off_periods += 1;
        f += 1;
        let pos = gaps.partition_point(|x| x.0 <= mid);
        let gap = (pos > 0).then(|| gaps[pos - 1]).filter(|x| x.1 > mid);
        let Some((last, first)) = gap else {
            m.counts.ran_outside += 1;
            if std::env::var_os("PARTITA_BENCH_DEBUG").is_some() {
                let near: Vec<_> = gaps[pos.saturating_sub(3)..(pos + 2).min(gaps.len())]
                    .iter()
                    .map(|x| (x.0 - win_start, x.1 - win_start))
                    .collect();
                eprintln!(
                    "ran outside: frame {} (started {started}, win_start {win_start}), gaps rel. win start: {near:?}",
                    f - 1
                );
            }
            continue;
        };
        if last < end - early_limit {
            m.counts.not_running_at_end += 1;
            if std::env::var_os("PARTITA_BENCH_DEBUG").is_some() {
                eprintln!(
                    "early end: frame {} (started {started}): gap {:?} rel. win start",
                    f - 1,
                    (last - win_start, first - win_start)
                );
            }
        } else {
            m.overrun.push(last - end);
        }
        if first >= next_start + g.duration {
            m.counts.no_start += 1;
            if std::env::var_os("PARTITA_BENCH_DEBUG").is_some() {
                eprintln!(
                    "no start: frame {} (started {started}): gap {:?} rel. win start",
                    f - 1,
                    (last - win_start, first - win_start)
                );
            }
        } else {
            m.start.push(first - next_start);
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_boundaries() {
        let g = Geometry {
            major_frame: 10_000,
            offset: 2_000,
            duration: 4_000,
        };
        // Windows [2000,6000) of every frame; the spinner starts at 2100.
        let mut gaps = Vec::new();
        for f in 0..10i64 {
            let b = f * 10_000;
            gaps.push((b + 3_000, b + 3_010)); // a small mid-window gap
            gaps.push((b + 5_990, b + 12_020)); // off-window gap
        }
        let m = match_gaps(&gaps, 2_100, g, 100);
        assert!(m.counts.off_periods >= 6);
        assert_eq!(m.counts.ran_outside, 0);
        assert!(m.overrun.iter().all(|&v| v == -10));
        assert!(m.start.iter().all(|&v| v == 20));
        // A window during which the spinner kept running outside.
        gaps.retain(|x| x.0 != 45_990);
        let m = match_gaps(&gaps, 2_100, g, 100);
        assert_eq!(m.counts.ran_outside, 1);
        // Stopped too early.
        let mut gaps2 = gaps.clone();
        for x in gaps2.iter_mut() {
            if x.0 == 55_990 {
                x.0 = 55_000;
            }
        }
        let m = match_gaps(&gaps2, 2_100, g, 100);
        assert_eq!(m.counts.not_running_at_end, 1);
    }
}
