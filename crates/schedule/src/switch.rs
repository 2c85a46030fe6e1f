// SPDX-License-Identifier: MIT OR Apache-2.0
//! Module schedule switches (ARINC 653 Part 2 multiple module schedules): the arithmetic of
//! the instant at which a requested schedule change takes effect.
//!
//! A module schedule runs as an infinite sequence of major frames counted from its own start
//! (`start + k * major_frame`). A change requested at time `t` takes effect at the end of the
//! major frame that contains `t`: never inside a frame. The new schedule's frames are then
//! counted from that instant, with the same drift-free rule.

use crate::timeline::{Boundary, BoundaryCursor, CoreTimeline};
use crate::Nanos;

/// Where the frames of the running module schedule are counted from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameClock {
    /// Absolute instant at which frame 0 of the schedule started.
    pub start: Nanos,
    /// Major frame length of the schedule (> 0).
    pub major_frame: Nanos,
}

impl FrameClock {
    /// Absolute start of frame `k`.
    pub fn frame_start(&self, k: u64) -> Nanos {
        self.start + k * self.major_frame
    }

    /// Index of the frame containing `t` (frame 0 for instants before the start).
    pub fn frame_of(&self, t: Nanos) -> u64 {
        t.saturating_sub(self.start) / self.major_frame
    }

    /// Whether `t` is the start of one of the schedule's frames.
    pub fn is_frame_start(&self, t: Nanos) -> bool {
        t >= self.start && (t - self.start).is_multiple_of(self.major_frame)
    }

    /// The instant a schedule change requested at `request` takes effect: the end of the
    /// frame that contains `request` (for a request exactly at a frame start, the end of the
    /// frame that starts there). Always a frame start strictly after `request`; before the
    /// schedule's start, the end of its frame 0.
    pub fn switch_instant(&self, request: Nanos) -> Nanos {
        self.frame_start(self.frame_of(request) + 1)
    }

    /// The clock of a schedule that takes over at `at` with frames of `major_frame`.
    pub fn switched(at: Nanos, major_frame: Nanos) -> FrameClock {
        FrameClock {
            start: at,
            major_frame,
        }
    }
}

impl BoundaryCursor {
    /// Where a scheduler that handled `self` and finds the next boundary already due at `now`
    /// continues: the boundary in force at `now`, but never past the next frame start (a
    /// module schedule switch may happen there, so every frame start is handled).
    pub fn catch_up(self, tl: &CoreTimeline, start: Nanos, now: Nanos) -> BoundaryCursor {
        let next = self.next(tl);
        let inf = BoundaryCursor::in_force(tl, start, now).unwrap_or(next);
        if inf.frame > self.frame {
            BoundaryCursor {
                frame: self.frame + 1,
                index: 0,
            }
        } else {
            inf.max(next)
        }
    }
}

impl CoreTimeline {
    /// The timeline of a core that has no window in a schedule: one idle boundary at each
    /// frame start, so that a scheduler thread of that core still reaches every frame start
    /// (where a schedule switch may happen).
    pub fn idle(core: u32, major_frame: Nanos) -> CoreTimeline {
        CoreTimeline {
            core,
            major_frame,
            boundaries: vec![Boundary {
                offset: 0,
                prev: None,
                next: None,
                window: None,
            }],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FramePlan, Window};
    use proptest::prelude::*;

    const MS: Nanos = 1_000_000;

    #[test]
    fn switch_at_end_of_current_frame() {
        let c = FrameClock {
            start: 1_000,
            major_frame: 100 * MS,
        };
        assert_eq!(c.switch_instant(1_000 + 30 * MS), 1_000 + 100 * MS);
        assert_eq!(c.switch_instant(1_000 + 100 * MS - 1), 1_000 + 100 * MS);
        // A request exactly at a frame start waits for the end of that frame.
        assert_eq!(c.switch_instant(1_000 + 100 * MS), 1_000 + 200 * MS);
        assert_eq!(c.switch_instant(0), 1_000 + 100 * MS);
        assert_eq!(c.frame_of(1_000 + 250 * MS), 2);
        assert!(c.is_frame_start(1_000 + 300 * MS));
        assert!(!c.is_frame_start(1_000 + 300 * MS + 1));
        assert!(!c.is_frame_start(0));
    }

    #[test]
    fn idle_timeline_has_one_boundary_at_frame_start() {
        let tl = CoreTimeline::idle(3, 20 * MS);
        assert_eq!(tl.boundaries.len(), 1);
        assert_eq!(tl.boundaries[0].offset, 0);
        assert_eq!(tl.boundaries[0].next, None);
        let c = tl.cursor();
        assert_eq!(c.next(&tl).frame, 1);
        assert_eq!(c.next(&tl).at(&tl, 5), 5 + 20 * MS);
    }

    /// Every timeline of a core with windows starts with a boundary at offset 0, so the
    /// scheduler of every core reaches every frame start.
    #[test]
    fn first_boundary_is_frame_start() {
        let plan = FramePlan {
            major_frame: 50 * MS,
            windows: vec![Window {
                id: 1,
                partition: 0,
                core: 0,
                offset: 10 * MS,
                duration: 40 * MS,
                period_start: true,
            }],
        };
        assert_eq!(plan.core_timeline(0).boundaries[0].offset, 0);
    }

    #[test]
    fn catch_up_stops_at_frame_start() {
        let plan = FramePlan {
            major_frame: 100 * MS,
            windows: vec![
                Window {
                    id: 1,
                    partition: 0,
                    core: 0,
                    offset: 0,
                    duration: 40 * MS,
                    period_start: true,
                },
                Window {
                    id: 2,
                    partition: 1,
                    core: 0,
                    offset: 50 * MS,
                    duration: 40 * MS,
                    period_start: true,
                },
            ],
        };
        let tl = plan.core_timeline(0);
        let c = BoundaryCursor { frame: 0, index: 1 };
        // Late within the frame: jump to the boundary in force.
        assert_eq!(
            c.catch_up(&tl, 0, 95 * MS),
            BoundaryCursor { frame: 0, index: 3 }
        );
        // Late by several frames: stop at the next frame start.
        assert_eq!(
            c.catch_up(&tl, 0, 350 * MS),
            BoundaryCursor { frame: 1, index: 0 }
        );
    }

    proptest! {
        /// Catching up never moves backwards, never skips a frame start, and lands on a
        /// boundary that is due.
        #[test]
        fn catch_up_never_skips_a_frame_start(
            frame in 2u64..1000,
            cuts in proptest::collection::btree_set(1u64..1000, 0..6),
            start in 0u64..1_000_000,
            handled in 0u64..50,
            late in 0u64..10_000,
        ) {
            let mut offs: Vec<u64> = cuts.into_iter().filter(|&c| c < frame).collect();
            offs.insert(0, 0);
            let tl = CoreTimeline {
                core: 0,
                major_frame: frame,
                boundaries: offs.iter().map(|&o| Boundary { offset: o, prev: None, next: None, window: None }).collect(),
            };
            let len = tl.boundaries.len() as u64;
            let cur = BoundaryCursor { frame: handled / len, index: (handled % len) as usize };
            let now = cur.at(&tl, start) + late;
            let n = cur.catch_up(&tl, start, now);
            prop_assert!(n > cur);
            prop_assert!(n.frame <= cur.frame + 1);
            if n.frame == cur.frame + 1 { prop_assert_eq!(n.index, 0); }
            // Due (or the very next boundary).
            prop_assert!(n.at(&tl, start) <= now.max(cur.next(&tl).at(&tl, start)));
        }

        /// The switch instant is a frame start of the old schedule, strictly after the
        /// request, and no other frame start lies between the request and it.
        #[test]
        fn switch_instant_is_the_next_frame_boundary(
            start in 0u64..1_000_000_000_000,
            frame in 1u64..10_000_000_000,
            delta in 0u64..100_000_000_000_000,
        ) {
            let c = FrameClock { start, major_frame: frame };
            let request = start + delta;
            let s = c.switch_instant(request);
            prop_assert!(c.is_frame_start(s));
            prop_assert!(s > request);
            prop_assert!(s - request <= frame);
            // The previous frame start is at or before the request.
            prop_assert!(s - frame <= request);
        }

        /// After a chain of switches, the frames of each schedule are counted from its own
        /// switch instant: every frame start of the new schedule is `switch + k * frame`, and
        /// every switch instant is a frame start of the schedule it ends.
        #[test]
        fn chained_switches_stay_on_boundaries(
            frames in proptest::collection::vec(1u64..1_000_000_000, 1..6),
            requests in proptest::collection::vec(0u64..5_000_000_000, 1..6),
        ) {
            let mut clock = FrameClock { start: 0, major_frame: frames[0] };
            let mut t = 0u64;
            for (i, r) in requests.iter().enumerate() {
                t += r;
                let at = clock.switch_instant(t);
                prop_assert!(clock.is_frame_start(at));
                prop_assert!(at > t);
                let next = frames[(i + 1) % frames.len()];
                clock = FrameClock::switched(at, next);
                prop_assert_eq!(clock.frame_start(3), at + 3 * next);
                t = at;
            }
        }
    }
}
