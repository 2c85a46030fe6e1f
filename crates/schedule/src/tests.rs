// SPDX-License-Identifier: MIT OR Apache-2.0
use super::*;
use proptest::prelude::*;

const MS: Nanos = 1_000_000;

fn win(id: u32, partition: usize, core: u32, offset: Nanos, duration: Nanos) -> Window {
    Window {
        id,
        partition,
        core,
        offset,
        duration,
        period_start: false,
    }
}

fn two_window_plan() -> FramePlan {
    FramePlan {
        major_frame: 100 * MS,
        windows: vec![win(1, 0, 0, 0, 40 * MS), win(2, 1, 0, 50 * MS, 40 * MS)],
    }
}

#[test]
fn timeline_has_idle_gaps_and_wraps() {
    let tl = two_window_plan().core_timeline(0);
    let offs: Vec<_> = tl
        .boundaries
        .iter()
        .map(|b| (b.offset, b.prev, b.next))
        .collect();
    assert_eq!(
        offs,
        vec![
            (0, None, Some(0)),
            (40 * MS, Some(0), None),
            (50 * MS, None, Some(1)),
            (90 * MS, Some(1), None),
        ]
    );
}

#[test]
fn adjacent_windows_switch_directly() {
    let plan = FramePlan {
        major_frame: 20 * MS,
        windows: vec![win(1, 0, 0, 0, 10 * MS), win(2, 1, 0, 10 * MS, 10 * MS)],
    };
    let tl = plan.core_timeline(0);
    assert_eq!(tl.boundaries.len(), 2);
    assert_eq!(tl.boundaries[0].prev, Some(1));
    assert_eq!(tl.boundaries[1].prev, Some(0));
    assert_eq!(tl.boundaries[1].next, Some(1));
}

#[test]
fn leading_idle_gap() {
    let plan = FramePlan {
        major_frame: 20 * MS,
        windows: vec![win(1, 0, 0, 5 * MS, 10 * MS)],
    };
    let tl = plan.core_timeline(0);
    let offs: Vec<_> = tl.boundaries.iter().map(|b| (b.offset, b.next)).collect();
    assert_eq!(offs, vec![(0, None), (5 * MS, Some(0)), (15 * MS, None)]);
    assert_eq!(tl.boundaries[0].prev, None);
}

#[test]
fn overlap_and_outside_detected() {
    let plan = FramePlan {
        major_frame: 100 * MS,
        windows: vec![
            win(1, 0, 0, 0, 60 * MS),
            win(2, 1, 0, 50 * MS, 40 * MS),
            win(3, 1, 1, 50 * MS, 40 * MS),
            win(4, 2, 1, 90 * MS, 20 * MS),
        ],
    };
    assert_eq!(plan.overlapping_windows(), vec![(0, 1)]);
    assert_eq!(plan.windows_outside_frame(), vec![3]);
    assert_eq!(plan.structural_errors().len(), 2);
}

#[test]
fn supply_splits_straddling_windows() {
    let plan = FramePlan {
        major_frame: 100 * MS,
        windows: vec![
            win(1, 0, 0, 40 * MS, 20 * MS),
            win(2, 0, 0, 90 * MS, 10 * MS),
        ],
    };
    assert_eq!(plan.supply_per_period(0, 50 * MS), vec![10 * MS, 20 * MS]);
    assert_eq!(plan.partition_time(0), 30 * MS);
}

#[test]
fn in_force_matches_walk() {
    let tl = two_window_plan().core_timeline(0);
    let epoch = 1_000;
    assert_eq!(BoundaryCursor::in_force(&tl, epoch, 999), None);
    let c = BoundaryCursor::in_force(&tl, epoch, epoch + 245 * MS).unwrap();
    assert_eq!(c, BoundaryCursor { frame: 2, index: 1 });
    let c = BoundaryCursor::in_force(&tl, epoch, epoch + 200 * MS).unwrap();
    assert_eq!(c, BoundaryCursor { frame: 2, index: 0 });
}

/// Random valid plans: windows laid out per core without overlap.
#[test]
fn runs_elsewhere_at_sees_windows_on_other_cores_only() {
    let plan = FramePlan {
        major_frame: 100,
        windows: vec![
            win(1, 0, 0, 0, 40),
            win(2, 0, 1, 10, 30),
            win(3, 0, 1, 50, 20),
            win(4, 1, 1, 40, 10),
        ],
    };
    // Partition 0 leaves core 0 at 40; on core 1 its window ended at 40 too.
    assert!(!plan.runs_elsewhere_at(0, 0, 40));
    // ... but at 20 it still runs on core 1, and at 50 it starts there.
    assert!(plan.runs_elsewhere_at(0, 0, 20));
    assert!(plan.runs_elsewhere_at(0, 0, 50));
    // Its own core does not count, nor another partition's window.
    assert!(!plan.runs_elsewhere_at(0, 1, 55));
    assert!(!plan.runs_elsewhere_at(0, 0, 45));
    assert!(plan.runs_elsewhere_at(1, 0, 40));
}

fn arb_plan() -> impl Strategy<Value = FramePlan> {
    (
        1u64..50,
        prop::collection::vec((0u32..3, 0usize..4, 0u64..20, 1u64..20), 1..12),
    )
        .prop_map(|(unit, specs)| {
            let unit = unit * 10_000;
            let mut cursor = [0u64; 3];
            let mut windows = Vec::new();
            for (i, (core, part, gap, len)) in specs.into_iter().enumerate() {
                let c = core as usize;
                let offset = cursor[c] + gap * unit;
                windows.push(win(i as u32 + 1, part, core, offset, len * unit));
                cursor[c] = offset + len * unit;
            }
            let major_frame = cursor.iter().copied().max().unwrap() + unit;
            FramePlan {
                major_frame,
                windows,
            }
        })
}

proptest! {
    #[test]
    fn generated_plans_are_valid(plan in arb_plan()) {
        prop_assert!(plan.structural_errors().is_empty());
    }

    /// Every window of a core appears exactly once as a boundary, boundaries ascend inside the
    /// frame, and each boundary's `prev` is the previous boundary's `next`.
    #[test]
    fn timeline_is_consistent(plan in arb_plan()) {
        for core in plan.cores() {
            let tl = plan.core_timeline(core);
            let n = tl.boundaries.len();
            for (k, b) in tl.boundaries.iter().enumerate() {
                prop_assert!(b.offset < plan.major_frame);
                if k > 0 { prop_assert!(tl.boundaries[k - 1].offset < b.offset); }
                prop_assert_eq!(b.prev, tl.boundaries[(k + n - 1) % n].next);
                if let Some(w) = b.window {
                    prop_assert_eq!(plan.windows[w].offset, b.offset);
                    prop_assert_eq!(Some(plan.windows[w].partition), b.next);
                }
            }
            let mut starts: Vec<usize> = tl.boundaries.iter().filter_map(|b| b.window).collect();
            starts.sort_unstable();
            let mut expect: Vec<usize> = (0..plan.windows.len()).filter(|&i| plan.windows[i].core == core).collect();
            expect.sort_unstable();
            prop_assert_eq!(starts, expect);
            // The owner at any instant is the partition whose window contains it.
            for b in &tl.boundaries {
                let probe = b.offset;
                let owner = plan.windows.iter().find(|w| w.core == core && w.offset <= probe && probe < w.end()).map(|w| w.partition);
                prop_assert_eq!(owner, b.next);
            }
        }
    }

    /// Drift-free timing: whatever delay the handler of each boundary suffers (including
    /// delays longer than a whole frame), the deadline computed for every later boundary is
    /// exactly `epoch + frame * major_frame + offset`, and a late handler resumes at the
    /// boundary in force rather than replaying missed ones.
    #[test]
    fn deadlines_do_not_drift(plan in arb_plan(), delays in prop::collection::vec(0u64..3_000_000, 1..200)) {
        let core = plan.cores()[0];
        let tl = plan.core_timeline(core);
        let epoch = 123_456_789u64;
        let mut cur = tl.cursor();
        let mut now = epoch;
        for d in delays {
            let deadline = cur.at(&tl, epoch);
            prop_assert_eq!(deadline, epoch + cur.frame * plan.major_frame + tl.boundaries[cur.index].offset);
            now = now.max(deadline) + d; // handled late by d
            let in_force = BoundaryCursor::in_force(&tl, epoch, now).unwrap();
            prop_assert!(in_force >= cur);
            prop_assert!(in_force.at(&tl, epoch) <= now);
            prop_assert!(in_force.next(&tl).at(&tl, epoch) > now);
            cur = in_force.next(&tl);
        }
    }

    #[test]
    fn supply_adds_up(plan in arb_plan(), part in 0usize..4, div in 1u64..5) {
        let period = plan.major_frame.div_ceil(div);
        let total: Nanos = plan.supply_per_period(part, period).iter().sum();
        prop_assert_eq!(total, plan.partition_time(part));
    }
}

#[test]
fn stacked_windows_are_one_overlap_each() {
    let plan = FramePlan {
        major_frame: 100,
        windows: (0..10_000)
            .map(|i| win(i, 0, 0, u64::from(i % 7), 50))
            .collect(),
    };
    assert_eq!(plan.overlapping_windows().len(), 9_999);
}

/// A boundary as (offset, before, after, window).
type Shape = (Nanos, Option<usize>, Option<usize>, Option<usize>);

/// Every boundary of `tl`.
fn shape(tl: &CoreTimeline) -> Vec<Shape> {
    tl.boundaries
        .iter()
        .map(|b| (b.offset, b.prev, b.next, b.window))
        .collect()
}

#[test]
fn background_fills_the_idle_gaps_and_leaves_at_every_window_start() {
    let tl = two_window_plan().core_timeline(0).with_background(7);
    assert_eq!(
        shape(&tl),
        vec![
            (0, Some(7), Some(0), Some(0)),
            (40 * MS, Some(0), Some(7), None),
            (50 * MS, Some(7), Some(1), Some(1)),
            (90 * MS, Some(1), Some(7), None),
        ]
    );
    assert_eq!(tl.owned_time(7), 20 * MS);
    assert_eq!(tl.idle_time(), 0);
    assert_eq!(two_window_plan().core_timeline(0).idle_time(), 20 * MS);
}

#[test]
fn background_after_its_own_window_keeps_the_core_without_a_boundary() {
    // Partition 1 has a window at 50..90 and the background: its window end is no boundary
    // any more, and its background runs on into the frame start.
    let tl = two_window_plan().core_timeline(0).with_background(1);
    assert_eq!(
        shape(&tl),
        vec![
            (0, Some(1), Some(0), Some(0)),
            (40 * MS, Some(0), Some(1), None),
            (50 * MS, Some(1), Some(1), Some(1)),
        ]
    );
    assert_eq!(tl.owned_time(1), 60 * MS);
}

#[test]
fn background_of_a_core_without_windows_is_the_whole_frame() {
    let tl = CoreTimeline::idle(2, 20 * MS).with_background(3);
    assert_eq!(tl.boundaries.len(), 1);
    assert_eq!(tl.boundaries[0].next, Some(3));
    assert_eq!(tl.boundaries[0].window, None);
    assert_eq!(tl.owned_time(3), 20 * MS);
}
