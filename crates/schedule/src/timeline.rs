// SPDX-License-Identifier: MIT OR Apache-2.0
//! Per-core boundary timelines and the drift-free cursor that walks them.

use crate::{FramePlan, Nanos};
use serde::{Deserialize, Serialize};

/// An instant of the cyclic schedule where the partition that owns a core may change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Boundary {
    /// Offset in the major frame.
    pub offset: Nanos,
    /// Partition (index) that owned the core just before, `None` for idle time.
    pub prev: Option<usize>,
    /// Partition (index) that owns the core from here on, `None` for idle time.
    pub next: Option<usize>,
    /// Window (index into [`FramePlan::windows`]) that starts here, if any.
    pub window: Option<usize>,
}

/// The boundaries of one core in one major frame, ascending by offset, with idle gaps explicit.
/// Every window start is a boundary, and so is every window end that is followed by idle time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoreTimeline {
    /// The core.
    pub core: u32,
    /// Length of the major frame.
    pub major_frame: Nanos,
    /// Boundaries in one frame, ascending. Empty when the core has no window.
    pub boundaries: Vec<Boundary>,
}

impl CoreTimeline {
    /// Builds the timeline of `core`. The plan should be structurally valid (see
    /// [`FramePlan::structural_errors`]); overlapping windows are cut at the next start.
    pub fn new(plan: &FramePlan, core: u32) -> Self {
        let mut wins: Vec<usize> = (0..plan.windows.len())
            .filter(|&i| plan.windows[i].core == core && plan.windows[i].duration > 0)
            .collect();
        wins.sort_by_key(|&i| (plan.windows[i].offset, i));
        // Segments: (start, owner, window) in frame order, idle segments included.
        let mut segs: Vec<(Nanos, Option<usize>, Option<usize>)> = Vec::new();
        let mut cursor: Nanos = 0;
        for (k, &i) in wins.iter().enumerate() {
            let w = &plan.windows[i];
            if w.offset > cursor || (k == 0 && w.offset > 0) {
                segs.push((cursor, None, None));
            }
            segs.push((w.offset, Some(w.partition), Some(i)));
            let next_start = wins
                .get(k + 1)
                .map(|&j| plan.windows[j].offset)
                .unwrap_or(plan.major_frame);
            cursor = w.end().min(next_start).max(w.offset);
        }
        if !wins.is_empty() && cursor < plan.major_frame {
            segs.push((cursor, None, None));
        }
        // Drop a leading idle segment of zero length produced by a window at offset 0.
        segs.dedup_by(|b, a| a.0 == b.0 && a.1.is_none() && a.2.is_none());
        let n = segs.len();
        let boundaries = (0..n)
            .map(|k| {
                let prev = segs[(k + n - 1) % n].1;
                Boundary {
                    offset: segs[k].0,
                    prev,
                    next: segs[k].1,
                    window: segs[k].2,
                }
            })
            .collect();
        CoreTimeline {
            core,
            major_frame: plan.major_frame,
            boundaries,
        }
    }

    /// This timeline with the idle time given to `partition` as its *background*: every idle
    /// segment of the core becomes the partition's, so it runs whenever no window is open
    /// on the core and is taken off at every window start like at a window end. A boundary
    /// that no longer changes the owner and starts no window goes (the partition simply
    /// keeps the core), except the frame start, which every timeline keeps. Background
    /// segments start no window (`window` stays `None`).
    pub fn with_background(&self, partition: usize) -> CoreTimeline {
        let owner = |o: Option<usize>| o.or(Some(partition));
        let boundaries = self
            .boundaries
            .iter()
            .enumerate()
            .map(|(i, b)| {
                (
                    i,
                    Boundary {
                        offset: b.offset,
                        prev: owner(b.prev),
                        next: owner(b.next),
                        window: b.window,
                    },
                )
            })
            .filter(|(i, b)| *i == 0 || b.prev != b.next || b.window.is_some())
            .map(|(_, b)| b)
            .collect();
        CoreTimeline {
            core: self.core,
            major_frame: self.major_frame,
            boundaries,
        }
    }

    /// Time of one major frame in which `partition` owns the core.
    pub fn owned_time(&self, partition: usize) -> Nanos {
        self.time_where(|owner| owner == Some(partition))
    }

    /// Idle time of one major frame: the time no partition owns the core (all of it when
    /// the core has no boundary).
    pub fn idle_time(&self) -> Nanos {
        if self.boundaries.is_empty() {
            return self.major_frame;
        }
        self.time_where(|owner| owner.is_none())
    }

    /// Time of one major frame in the segments whose owner passes `keep`.
    fn time_where(&self, keep: impl Fn(Option<usize>) -> bool) -> Nanos {
        let n = self.boundaries.len();
        (0..n)
            .filter(|&k| keep(self.boundaries[k].next))
            .map(|k| {
                let end = self
                    .boundaries
                    .get(k + 1)
                    .map_or(self.major_frame, |b| b.offset);
                end - self.boundaries[k].offset
            })
            .sum()
    }

    /// A cursor at the first boundary at or after frame offset 0 of frame 0.
    pub fn cursor(&self) -> BoundaryCursor {
        BoundaryCursor { frame: 0, index: 0 }
    }
}

/// Position in the infinite boundary sequence of one core: boundary `index` of frame `frame`.
///
/// The absolute time of a position is computed from the epoch alone, never from the time at
/// which the previous boundary was handled, so delays do not accumulate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct BoundaryCursor {
    /// Major frame number, from 0.
    pub frame: u64,
    /// Index into [`CoreTimeline::boundaries`].
    pub index: usize,
}

impl BoundaryCursor {
    /// Absolute time of this boundary for a module whose frame 0 started at `epoch`.
    pub fn at(&self, tl: &CoreTimeline, epoch: Nanos) -> Nanos {
        epoch + self.frame * tl.major_frame + tl.boundaries[self.index].offset
    }

    /// The boundary this cursor points at.
    pub fn boundary<'a>(&self, tl: &'a CoreTimeline) -> &'a Boundary {
        &tl.boundaries[self.index]
    }

    /// The next boundary in time.
    pub fn next(self, tl: &CoreTimeline) -> Self {
        if self.index + 1 < tl.boundaries.len() {
            BoundaryCursor {
                frame: self.frame,
                index: self.index + 1,
            }
        } else {
            BoundaryCursor {
                frame: self.frame + 1,
                index: 0,
            }
        }
    }

    /// The last boundary whose time is `<= now` (the one in force at `now`), computed directly
    /// (constant time in the number of frames elapsed). `None` before the epoch.
    pub fn in_force(tl: &CoreTimeline, epoch: Nanos, now: Nanos) -> Option<Self> {
        if now < epoch || tl.boundaries.is_empty() || tl.major_frame == 0 {
            return None;
        }
        let rel = now - epoch;
        let frame = rel / tl.major_frame;
        let off = rel % tl.major_frame;
        let idx = tl.boundaries.partition_point(|b| b.offset <= off);
        if idx == 0 {
            if frame == 0 {
                return None;
            }
            return Some(BoundaryCursor {
                frame: frame - 1,
                index: tl.boundaries.len() - 1,
            });
        }
        Some(BoundaryCursor {
            frame,
            index: idx - 1,
        })
    }
}
