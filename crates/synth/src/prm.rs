// SPDX-License-Identifier: MIT OR Apache-2.0
//! The periodic-resource-model baseline (Shin and Lee 2003): each partition gets one window of
//! `Θ + switch cost` in every resource period `Π`, with `Θ` the smallest budget for which its
//! process set is fixed-priority schedulable against the PRM supply-bound function; the windows
//! are then placed (non-preemptive EDF over the frame, each window anywhere in its period).

use crate::gen::{micro_period, Fail, Params, Table, Win};
use crate::model::{PartitionTasks, Task};
use partita_schedule::Nanos;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A partition's periodic resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resource {
    /// Resource period Π.
    pub period: Nanos,
    /// Budget Θ per period (excluding the switch cost).
    pub budget: Nanos,
}

/// Supply-bound function of Γ(Π, Θ): the least supply in any interval of length `t`.
pub fn sbf(r: Resource, t: Nanos) -> Nanos {
    let gap = r.period - r.budget;
    let blackout = 2 * gap;
    if t <= blackout {
        return 0;
    }
    let x = t - blackout;
    let j = x / r.period;
    let rest = x - j * r.period;
    j * r.budget + rest.min(r.budget)
}

/// Fixed-priority schedulability of `tasks` on `r` (Shin and Lee's test): every task `i` has a
/// scheduling point `t <= D_i` where `C_i + sum_{hp} ceil(t / T_j) C_j <= sbf(t)`; tasks of
/// equal priority count as interference both ways (FIFO among equals depends on releases).
pub fn fp_schedulable(tasks: &[Task], r: Resource) -> bool {
    tasks.iter().enumerate().all(|(i, ti)| {
        let hp: Vec<&Task> = tasks
            .iter()
            .enumerate()
            .filter(|&(j, tj)| j != i && tj.priority >= ti.priority)
            .map(|(_, t)| t)
            .collect();
        let mut points: Vec<Nanos> = vec![ti.deadline];
        for tj in &hp {
            let mut k = tj.period;
            while k < ti.deadline {
                points.push(k);
                k += tj.period;
            }
        }
        points.iter().any(|&t| {
            let demand: Nanos = ti.wcet
                + hp.iter()
                    .map(|tj| t.div_ceil(tj.period) * tj.wcet)
                    .sum::<Nanos>();
            demand <= sbf(r, t)
        })
    })
}

/// The resource with the least bandwidth `(Θ + s) / Π` over `Π = T_min / k`,
/// `k = 1..=max_k`.
pub fn design(p: &PartitionTasks, switch_cost: Nanos, max_k: u64) -> Option<Resource> {
    let tmin = p.min_period();
    let mut best: Option<(f64, Resource)> = None;
    for k in 1..=max_k {
        if !tmin.is_multiple_of(k) {
            continue;
        }
        let period = tmin / k;
        if period <= switch_cost {
            break;
        }
        let max = period - switch_cost;
        if !fp_schedulable(
            &p.tasks,
            Resource {
                period,
                budget: max,
            },
        ) {
            continue;
        }
        let (mut lo, mut hi) = (0, max);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if fp_schedulable(
                &p.tasks,
                Resource {
                    period,
                    budget: mid,
                },
            ) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let r = Resource { period, budget: lo };
        let bw = (lo + switch_cost) as f64 / period as f64;
        if best.is_none_or_gt(bw) {
            best = Some((bw, r));
        }
    }
    best.map(|(_, r)| r)
}

trait BestExt {
    fn is_none_or_gt(&self, bw: f64) -> bool;
}

impl BestExt for Option<(f64, Resource)> {
    fn is_none_or_gt(&self, bw: f64) -> bool {
        match self {
            None => true,
            Some((b, _)) => bw < *b,
        }
    }
}

/// The baseline table of one core (`Π` chosen among `T_min / k`, `k <= 8`).
pub fn table(parts: &[&PartitionTasks], frame: Nanos, params: &Params) -> Result<Table, Fail> {
    table_with(parts, frame, params, 8)
}

/// The table with `Π = T_min / k`, `k <= max_k` (1: one window per smallest period).
pub fn table_with(
    parts: &[&PartitionTasks],
    frame: Nanos,
    params: &Params,
    max_k: u64,
) -> Result<Table, Fail> {
    let m = micro_period(parts);
    let h = params.reserve(m);
    let s = params.switch_cost;
    if m == 0 || h + s >= m {
        return Err(Fail::NoRoom);
    }
    // Jobs: (release, deadline, length, partition or None for the host).
    let mut jobs: Vec<(Nanos, Nanos, Nanos, Option<usize>)> = Vec::new();
    for p in parts {
        let r = design(p, s, max_k).ok_or(Fail::Infeasible(
            p.index,
            "no periodic resource (period a divisor of its smallest process period) makes its processes schedulable",
        ))?;
        let mut k = 0;
        while k < frame {
            jobs.push((k, k + r.period, r.budget + s, Some(p.index)));
            k += r.period;
        }
    }
    if h > 0 {
        let mut k = 0;
        while k < frame {
            jobs.push((k, k + m, h, None));
            k += m;
        }
    }
    jobs.sort_by_key(|j| (j.0, j.1));
    // Non-preemptive EDF: ready jobs in a heap by (deadline, host first, order).
    let mut ready: BinaryHeap<Reverse<(Nanos, bool, usize)>> = BinaryHeap::new();
    let mut windows = Vec::new();
    let mut next = 0;
    let mut t = 0;
    while next < jobs.len() || !ready.is_empty() {
        while next < jobs.len() && jobs[next].0 <= t {
            ready.push(Reverse((jobs[next].1, jobs[next].3.is_some(), next)));
            next += 1;
        }
        let Some(Reverse((_, _, k))) = ready.pop() else {
            t = jobs[next].0;
            continue;
        };
        let (_, deadline, len, owner) = jobs[k];
        if t + len > deadline {
            return Err(owner.map_or(Fail::NoRoom, |p| {
                Fail::Infeasible(p, "its periodic-resource window does not fit in its period")
            }));
        }
        if let Some(partition) = owner {
            windows.push(Win {
                partition,
                start: t,
                end: t + len,
            });
        }
        t += len;
    }
    // The analysis holds for any release phase: anchor each partition at its first window.
    let mut anchors: Vec<(usize, Nanos)> = Vec::new();
    for w in &windows {
        if !anchors.iter().any(|a| a.0 == w.partition) {
            anchors.push((w.partition, w.start));
        }
    }
    Ok(Table {
        windows,
        anchors,
        variant: if max_k == 1 {
            "periodic resource, one window per smallest period"
        } else {
            "periodic resource"
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sbf_shape() {
        let r = Resource {
            period: 10,
            budget: 4,
        };
        // Blackout 2·(10-4) = 12, then 4 of supply, 6 of gap, ...
        assert_eq!(sbf(r, 12), 0);
        assert_eq!(sbf(r, 14), 2);
        assert_eq!(sbf(r, 16), 4);
        assert_eq!(sbf(r, 22), 4);
        assert_eq!(sbf(r, 26), 8);
        let full = Resource {
            period: 10,
            budget: 10,
        };
        assert_eq!(sbf(full, 7), 7);
    }

    #[test]
    fn budget_is_minimal() {
        let p = PartitionTasks {
            index: 0,
            id: 1,
            name: "p".into(),
            criticality: partita_config::model::Criticality::LevelA,
            cores: vec![],
            tasks: vec![Task {
                name: "t".into(),
                period: 100,
                wcet: 10,
                deadline: 100,
                priority: 1,
            }],
        };
        let r = design(&p, 0, 8).unwrap();
        assert!(fp_schedulable(&p.tasks, r));
        if r.budget > 0 {
            assert!(!fp_schedulable(
                &p.tasks,
                Resource {
                    period: r.period,
                    budget: r.budget - 1
                }
            ));
        }
    }
}
