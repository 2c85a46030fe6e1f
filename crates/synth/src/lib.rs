// SPDX-License-Identifier: MIT OR Apache-2.0
//! Partition schedule synthesis for Partita (`partita schedule`).
//!
//! From partitions with a criticality and a fixed-priority process set (period, WCET,
//! deadline, priority), three generators build a cyclic window table (a
//! [`FramePlan`](partita_schedule::FramePlan)):
//!
//! - [`Algorithm::Seed`]: the seed papers' criticality-ordered micro-period algorithm
//!   ([`gen::seed`]), and when that table misses a deadline, the same idea as a preemptive
//!   fixed-priority partition schedule by criticality ([`gen::Policy::Criticality`]);
//! - [`Algorithm::Prm`]: a periodic-resource-model baseline ([`prm`]);
//! - [`Algorithm::Ours`]: the table with the fewest partition switches among supply-aware
//!   EDF packing ([`gen::packing`], non-preemptive and preemptive between partitions), the seed
//!   table and the periodic-resource table, each with touching windows of a partition merged
//!   ([`gen::merge`]).
//!
//! On several cores, partitions are assigned in order of criticality, then utilisation, each
//! to the least-loaded allowed core whose table (built by the same algorithm) still meets
//! every deadline (worst fit: the load spreads over the cores). [`checker`] re-derives schedulability from
//! the plan alone, with its own simulation. Switch cost is charged inside each window; each
//! micro-period (smallest process period on the core) leaves a host reserve idle.

pub mod checker;
pub mod doc;
pub mod experiment;
pub mod gen;
pub mod model;
pub mod prm;
pub mod report;
mod sim;
pub mod svg;

pub use gen::{Params, Table, Win};
pub use model::{PartitionTasks, Task, TaskSet};

use partita_schedule::{FramePlan, Nanos, Window};
use serde::Serialize;

/// A generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Algorithm {
    /// Criticality-ordered micro-period tables (the seed papers).
    Seed,
    /// Periodic resource model baseline (Shin and Lee).
    Prm,
    /// Fewest switches among EDF packing, seed and PRM tables, windows merged (ours).
    Ours,
}

impl Algorithm {
    /// Every algorithm, in report order.
    pub const ALL: [Algorithm; 3] = [Algorithm::Seed, Algorithm::Prm, Algorithm::Ours];

    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Seed => "seed",
            Algorithm::Prm => "prm",
            Algorithm::Ours => "ours",
        }
    }
}

impl std::fmt::Display for Algorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Why synthesis produced no schedule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SynthError {
    /// The input exceeds what synthesis handles.
    #[error(transparent)]
    Limits(#[from] model::LimitError),
    /// No table meets every deadline.
    #[error("{algorithm}: not schedulable: {reason}")]
    Unschedulable {
        /// The generator.
        algorithm: Algorithm,
        /// Which partition failed, and how.
        reason: String,
    },
}

/// A synthesised schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Synthesis {
    /// The generator that made it.
    pub algorithm: Algorithm,
    /// The window table (windows refer to module partition indices).
    pub plan: FramePlan,
    /// Per core: (core, micro-period, host reserve per micro-period).
    pub cores: Vec<(u32, Nanos, Nanos)>,
    /// Per scheduled partition: (module index, `PeriodSeconds`, `PeriodDurationSeconds`).
    pub timing: Vec<(usize, Nanos, Nanos)>,
    /// Switch cost charged at every window start.
    pub switch_cost: Nanos,
    /// Per core: which construction made its table.
    pub variants: Vec<(u32, String)>,
}

fn core_table(
    alg: Algorithm,
    parts: &[&PartitionTasks],
    frame: Nanos,
    params: &Params,
) -> Result<Table, gen::Fail> {
    core_table_unchecked(alg, parts, frame, params).and_then(gen::anchored)
}

fn core_table_unchecked(
    alg: Algorithm,
    parts: &[&PartitionTasks],
    frame: Nanos,
    params: &Params,
) -> Result<Table, gen::Fail> {
    match alg {
        Algorithm::Seed => gen::seed(parts, frame, params)
            .and_then(gen::anchored)
            .or_else(|_| gen::packing(parts, frame, params, gen::Policy::Criticality)),
        Algorithm::Prm => prm::table(parts, frame, params),
        Algorithm::Ours => {
            let candidates = [
                gen::packing(parts, frame, params, gen::Policy::NonPreemptiveEdf),
                gen::packing(parts, frame, params, gen::Policy::PreemptiveEdf),
                gen::seed(parts, frame, params),
                prm::table(parts, frame, params),
            ]
            .map(|c| c.and_then(gen::anchored).map(gen::merge));
            let mut first_err = None;
            let mut best: Option<Table> = None;
            for c in candidates {
                match c {
                    Ok(w) => {
                        let better = best.as_ref().is_none_or(|b| {
                            (gen::switches(&w.windows, frame), w.windows.len())
                                < (gen::switches(&b.windows, frame), b.windows.len())
                        });
                        if better {
                            best = Some(w);
                        }
                    }
                    Err(e) => {
                        first_err.get_or_insert(e);
                    }
                }
            }
            best.ok_or_else(|| first_err.unwrap_or(gen::Fail::NoRoom))
        }
    }
}

/// Synthesises a schedule for `set` with `alg`.
pub fn synthesize(set: &TaskSet, alg: Algorithm, params: &Params) -> Result<Synthesis, SynthError> {
    set.check_limits()?;
    let frame = set.major_frame();
    let name_of = |index: usize| {
        set.partitions
            .iter()
            .find(|p| p.index == index)
            .map_or_else(|| format!("#{index}"), |p| p.name.clone())
    };
    let explain = |f: gen::Fail| {
        match f {
        gen::Fail::Deadline(i, None) => format!("a process of partition {} misses its deadline", name_of(i)),
        gen::Fail::Deadline(i, Some(what)) => format!("partition {}: {what} misses its deadline", name_of(i)),
        gen::Fail::Infeasible(i, why) => format!("partition {}: {why}", name_of(i)),
        gen::Fail::NoRoom => "the host reserve and switch cost leave no room in a micro-period (or the host reserve cannot be kept)".to_string(),
        gen::Fail::Anchor(i) => format!("partition {} cannot start its periods at a fixed offset of the frame", name_of(i)),
        gen::Fail::NoSteadyState => format!("the backlog did not settle within {} frames", gen::MAX_BUILD_FRAMES),
    }
    };
    let mut order: Vec<usize> = (0..set.partitions.len()).collect();
    order.sort_by(|&a, &b| {
        let (pa, pb) = (&set.partitions[a], &set.partitions[b]);
        (pa.rank(), pb.utilisation(), pa.index)
            .partial_cmp(&(pb.rank(), pa.utilisation(), pb.index))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut assigned: Vec<Vec<&PartitionTasks>> = vec![Vec::new(); set.cores.len()];
    let mut tables: Vec<Table> = vec![Table::default(); set.cores.len()];
    if set.cores.len() == 1 {
        let parts: Vec<&PartitionTasks> = set.partitions.iter().collect();
        tables[0] =
            core_table(alg, &parts, frame, params).map_err(|f| SynthError::Unschedulable {
                algorithm: alg,
                reason: explain(f),
            })?;
        assigned[0] = parts;
    } else {
        for &pi in &order {
            let p = &set.partitions[pi];
            let mut last = None;
            let mut placed = false;
            // Least-loaded core first (worst fit), so partitions spread over the cores.
            let mut by_load: Vec<usize> = (0..set.cores.len()).collect();
            by_load.sort_by(|&a, &b| {
                let load = |c: usize| assigned[c].iter().map(|q| q.utilisation()).sum::<f64>();
                load(a).total_cmp(&load(b)).then(a.cmp(&b))
            });
            for c in by_load {
                let core = set.cores[c];
                if !p.allows(core) {
                    continue;
                }
                let mut trial = assigned[c].clone();
                trial.push(p);
                match core_table(alg, &trial, frame, params) {
                    Ok(t) => {
                        assigned[c] = trial;
                        tables[c] = t;
                        placed = true;
                        break;
                    }
                    Err(f) => last = Some(f),
                }
            }
            if !placed {
                return Err(SynthError::Unschedulable {
                    algorithm: alg,
                    reason: format!(
                        "partition {} fits on no core ({})",
                        p.name,
                        last.map_or_else(|| "no allowed core".to_string(), explain)
                    ),
                });
            }
        }
    }
    let mut windows = Vec::new();
    let mut cores = Vec::new();
    let mut variants = Vec::new();
    for (c, &core) in set.cores.iter().enumerate() {
        if assigned[c].is_empty() {
            continue;
        }
        let m = gen::micro_period(&assigned[c]);
        cores.push((core, m, params.reserve(m)));
        variants.push((core, tables[c].variant.to_string()));
        let table = &tables[c];
        for w in &table.windows {
            windows.push(Window {
                id: 0,
                partition: w.partition,
                core,
                offset: w.start,
                duration: w.end - w.start,
                period_start: table.anchors.contains(&(w.partition, w.start)),
            });
        }
    }
    windows.sort_by_key(|w| (w.core, w.offset));
    for (k, w) in windows.iter_mut().enumerate() {
        w.id = k as u32 + 1;
    }
    let plan = FramePlan {
        major_frame: frame,
        windows,
    };
    let mut timing = Vec::new();
    let mut indices: Vec<usize> = set.partitions.iter().map(|p| p.index).collect();
    indices.sort_unstable();
    for idx in indices {
        let p = set
            .partitions
            .iter()
            .find(|p| p.index == idx)
            .expect("present");
        let period = p.partition_period();
        let duration = plan
            .supply_per_period(idx, period)
            .into_iter()
            .min()
            .unwrap_or(0);
        timing.push((idx, period, duration));
    }
    Ok(Synthesis {
        algorithm: alg,
        plan,
        cores,
        timing,
        switch_cost: params.switch_cost,
        variants,
    })
}
