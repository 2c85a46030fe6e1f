// SPDX-License-Identifier: MIT OR Apache-2.0
//! Every schedule a generator emits passes the independent checker; schedules mutated so that
//! a partition cannot get its work done are rejected; hand-computed checker cases.

use partita_config::model::Criticality;
use partita_schedule::{FramePlan, Nanos, Window};
use partita_synth::checker::{check, CheckedPartition, HostReserve, Violation};
use partita_synth::experiment::{random_set, Rng};
use partita_synth::{synthesize, Algorithm, Params, PartitionTasks, Synthesis, Task, TaskSet};
use proptest::prelude::*;

const MS: Nanos = 1_000_000;

fn parts(set: &TaskSet) -> Vec<CheckedPartition<'_>> {
    set.partitions
        .iter()
        .map(|p| CheckedPartition {
            index: p.index,
            name: &p.name,
            tasks: &p.tasks,
        })
        .collect()
}

fn reserves(syn: &Synthesis) -> Vec<HostReserve> {
    syn.cores
        .iter()
        .map(|&(core, period, reserve)| HostReserve {
            core,
            period,
            reserve,
        })
        .collect()
}

fn task(name: &str, period_ms: u64, wcet_us: u64, priority: u32) -> Task {
    Task {
        name: name.into(),
        period: period_ms * MS,
        wcet: wcet_us * 1000,
        deadline: period_ms * MS,
        priority,
    }
}

/// A random task set: 1–4 partitions of 1–4 processes, harmonic or not, on 1 or 2 cores.
fn arb_set() -> impl Strategy<Value = TaskSet> {
    let periods = prop_oneof![Just(vec![5u64, 10, 20]), Just(vec![10u64, 20, 25, 50])];
    (periods, 1usize..=4, 1u32..=2, any::<u64>()).prop_map(|(periods, nparts, ncores, seed)| {
        let mut rng = Rng::new(seed);
        let partitions = (0..nparts)
            .map(|pi| {
                let n = rng.range(1, 4);
                let tasks = (0..n)
                    .map(|ti| {
                        let period = periods[rng.range(0, periods.len() - 1)];
                        // Up to ~12% of the period each.
                        let wcet = 50 + (rng.next_u64() % (period * 120));
                        task(&format!("t{ti}"), period, wcet, rng.range(1, 5) as u32)
                    })
                    .collect();
                PartitionTasks {
                    index: pi,
                    id: pi as u32 + 1,
                    name: format!("P{pi}"),
                    criticality: Criticality::VALUES[rng.range(0, 4)].1,
                    cores: Vec::new(),
                    tasks,
                }
            })
            .collect();
        TaskSet {
            partitions,
            cores: (0..ncores).collect(),
        }
    })
}

fn arb_params() -> impl Strategy<Value = Params> {
    (
        0u64..=200,
        prop_oneof![Just(None), (0u64..=300).prop_map(Some)],
    )
        .prop_map(|(s, h)| Params {
            switch_cost: s * 1000,
            host_reserve: h.map(|h| h * 1000),
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_emitted_schedule_passes_the_checker(set in arb_set(), params in arb_params()) {
        for alg in Algorithm::ALL {
            if let Ok(syn) = synthesize(&set, alg, &params) {
                let v = check(&syn.plan, &parts(&set), syn.switch_cost, &reserves(&syn));
                prop_assert!(v.ok(), "{alg}: {:?}\n{:?}", v.violations, syn.plan);
                prop_assert!(syn.plan.structural_errors().is_empty());
            }
        }
    }

    #[test]
    fn starving_a_partition_is_rejected(set in arb_set(), params in arb_params(), pick in any::<usize>(), remove in any::<bool>()) {
        for alg in Algorithm::ALL {
            let Ok(syn) = synthesize(&set, alg, &params) else { continue };
            let victim = set.partitions[pick % set.partitions.len()].index;
            let mut plan = syn.plan.clone();
            if remove {
                // Remove every window but the one that starts its periods.
                plan.windows.retain(|w| w.partition != victim || w.period_start);
                for w in plan.windows.iter_mut().filter(|w| w.partition == victim) {
                    w.duration = w.duration.min(syn.switch_cost + 1);
                }
            } else {
                // Shrink every window of the victim to 1 ns of supply.
                for w in plan.windows.iter_mut().filter(|w| w.partition == victim) {
                    w.duration = syn.switch_cost + 1;
                }
            }
            let v = check(&plan, &parts(&set), syn.switch_cost, &reserves(&syn));
            prop_assert!(
                v.violations.iter().any(|x| matches!(x, Violation::DeadlineMiss { .. } | Violation::NoSteadyState { .. })),
                "{alg}: mutated plan accepted: {:?}", v
            );
        }
    }
}

#[test]
fn removing_a_needed_window_is_rejected() {
    // One partition, one process (10 ms, 4 ms): the seed table gives it one exact window per
    // 10 ms; dropping any of them loses 4 ms of work the others cannot absorb.
    let set = TaskSet {
        partitions: vec![PartitionTasks {
            index: 0,
            id: 1,
            name: "A".into(),
            criticality: Criticality::LevelA,
            cores: vec![],
            tasks: vec![task("x", 10, 4000, 1), task("y", 20, 1000, 0)],
        }],
        cores: vec![0],
    };
    let params = Params {
        switch_cost: 50_000,
        host_reserve: Some(500_000),
    };
    let syn = synthesize(&set, Algorithm::Seed, &params).unwrap();
    let ok = check(&syn.plan, &parts(&set), syn.switch_cost, &reserves(&syn));
    assert!(ok.ok(), "{ok:?}");
    for k in 0..syn.plan.windows.len() {
        let mut plan = syn.plan.clone();
        plan.windows.remove(k);
        let v = check(&plan, &parts(&set), syn.switch_cost, &[]);
        assert!(
            !v.ok(),
            "window {k} removed, still accepted: {:?}",
            plan.windows
        );
    }
}

fn one_partition_plan(windows: &[(Nanos, Nanos)], frame: Nanos) -> FramePlan {
    FramePlan {
        major_frame: frame,
        windows: windows
            .iter()
            .enumerate()
            .map(|(i, &(o, d))| Window {
                id: i as u32 + 1,
                partition: 0,
                core: 0,
                offset: o,
                duration: d,
                period_start: i == 0,
            })
            .collect(),
    }
}

#[test]
fn checker_response_times_by_hand() {
    // Task (10 ms, 3 ms); windows [0, 5) ms each 10 ms frame, switch cost 1 ms: the job runs
    // [1, 4) ms, response 4 ms.
    let tasks = [task("x", 10, 3000, 1)];
    let p = [CheckedPartition {
        index: 0,
        name: "A",
        tasks: &tasks,
    }];
    let v = check(&one_partition_plan(&[(0, 5 * MS)], 10 * MS), &p, MS, &[]);
    assert!(v.ok(), "{v:?}");
    assert_eq!(v.processes[0].wcrt, Some(4 * MS));
    // Window [6, 9): supply [7, 9) is 2 ms per period, less than 3 ms: a miss.
    let plan = one_partition_plan(&[(6 * MS, 3 * MS)], 10 * MS);
    let v = check(&plan, &p, MS, &[]);
    assert!(
        matches!(v.violations[0], Violation::DeadlineMiss { .. }),
        "{v:?}"
    );
    // Two windows: releases at the origin (2 ms): [2, 4) gives 1 ms, [7, 10) gives 2 ms:
    // the job released at 2 ms ends at 10 ms, response 8 ms.
    let plan = one_partition_plan(&[(2 * MS, 2 * MS), (7 * MS, 3 * MS)], 10 * MS);
    let v = check(&plan, &p, MS, &[]);
    assert!(v.ok(), "{v:?}");
    assert_eq!(v.processes[0].wcrt, Some(8 * MS));
}

#[test]
fn checker_sees_structure_and_host_reserve() {
    let tasks = [task("x", 10, 1000, 1)];
    let p = [CheckedPartition {
        index: 0,
        name: "A",
        tasks: &tasks,
    }];
    let plan = one_partition_plan(&[(0, 6 * MS), (5 * MS, 2 * MS), (9 * MS, 2 * MS)], 10 * MS);
    let v = check(
        &plan,
        &p,
        0,
        &[HostReserve {
            core: 0,
            period: 10 * MS,
            reserve: 3 * MS,
        }],
    );
    assert!(
        v.violations.contains(&Violation::Overlap { a: 1, b: 2 }),
        "{v:?}"
    );
    assert!(
        v.violations
            .contains(&Violation::OutsideFrame { window: 3 }),
        "{v:?}"
    );
    assert!(v.violations.iter().any(|x| matches!(
        x,
        Violation::HostReserve {
            core: 0,
            index: 0,
            ..
        }
    )));
}

#[test]
fn backlog_carried_over_the_frame_boundary_is_simulated() {
    // Origin at 8 ms, period 10 ms: the job released at 8 ms needs the window at [0, 3) of the
    // next frame (switch cost 0): [8, 10) gives 2 ms, then 1 ms more at 10 ms, response 3 ms.
    let tasks = [task("x", 10, 3000, 1)];
    let p = [CheckedPartition {
        index: 0,
        name: "A",
        tasks: &tasks,
    }];
    let mut plan = one_partition_plan(&[(0, 3 * MS), (8 * MS, 2 * MS)], 10 * MS);
    plan.windows[0].period_start = false;
    plan.windows[1].period_start = true;
    let v = check(&plan, &p, 0, &[]);
    assert!(v.ok(), "{v:?}");
    assert_eq!(v.processes[0].wcrt, Some(3 * MS));
    assert!(v.frames >= 2);
}

#[test]
fn experiment_sets_are_all_verified() {
    let mut rng = Rng::new(3);
    let params = Params::default();
    let mut accepted = 0;
    for k in 0..30 {
        let set = random_set(&mut rng, 0.1 + 0.03 * k as f64, k % 2 == 0);
        for alg in Algorithm::ALL {
            if let Ok(syn) = synthesize(&set, alg, &params) {
                accepted += 1;
                let v = check(&syn.plan, &parts(&set), syn.switch_cost, &reserves(&syn));
                assert!(v.ok(), "{alg} set {k}: {:?}", v.violations);
            }
        }
    }
    assert!(accepted > 30, "only {accepted} schedules");
}

/// Input beyond what synthesis handles is refused with the limit it breaks.
#[test]
fn limits_name_what_is_wrong() {
    use partita_synth::model::LimitError;
    use partita_synth::SynthError;
    let task = |name: &str, period: Nanos, wcet: Nanos| Task {
        name: name.into(),
        period,
        wcet,
        deadline: period,
        priority: 1,
    };
    let set = |tasks: Vec<Task>, cores: Vec<u32>| TaskSet {
        partitions: vec![PartitionTasks {
            index: 0,
            id: 1,
            name: "P".into(),
            criticality: Criticality::LevelA,
            cores: Vec::new(),
            tasks,
        }],
        cores,
    };
    let run = |s: &TaskSet| synthesize(s, Algorithm::Ours, &Params::default()).map(|_| ());
    let empty = TaskSet {
        partitions: Vec::new(),
        cores: vec![0],
    };
    assert_eq!(
        run(&empty),
        Err(SynthError::Limits(LimitError::NoPartition))
    );
    assert_eq!(
        run(&set(vec![task("t", 10 * MS, MS)], Vec::new())),
        Err(SynthError::Limits(LimitError::NoCore))
    );
    assert_eq!(
        run(&set(vec![task("t", 10 * MS, 0)], vec![0])),
        Err(SynthError::Limits(LimitError::BadTiming {
            process: "t".into()
        }))
    );
    // Coprime periods of about 1.1 s: their hyperperiod is far beyond MAX_FRAME.
    assert_eq!(
        run(&set(
            vec![task("a", 1_100 * MS + 1, MS), task("b", 1_100 * MS + 3, MS)],
            vec![0]
        )),
        Err(SynthError::Limits(LimitError::FrameTooLong))
    );
    assert_eq!(run(&set(vec![task("t", 10 * MS, MS)], vec![0])), Ok(()));
}
