// SPDX-License-Identifier: MIT OR Apache-2.0
//! The task model: partitions with a criticality, allowed cores and a fixed-priority process
//! set, built from a validated module (with the positions of the `partita:Process` elements for
//! error messages).

use crate::doc::SourceMap;
use partita_config::model::{Criticality, ProcessPolicy, ValidatedModule};
use partita_schedule::{gcd, lcm, Nanos};
use serde::Serialize;
use std::path::PathBuf;

/// Longest major frame synthesis accepts (the LCM of all process periods).
pub const MAX_FRAME: Nanos = 10_000_000_000;

/// Most micro-periods (frame / smallest period) synthesis accepts.
pub const MAX_MICRO_PERIODS: u64 = 100_000;

/// One periodic process: released every `period`, needs `wcet` before `deadline` (relative,
/// at most `period`). Priority: larger is more urgent (ARINC 653 convention).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Task {
    /// Process name.
    pub name: String,
    /// Period (ns).
    pub period: Nanos,
    /// Worst-case execution time (ns).
    pub wcet: Nanos,
    /// Relative deadline (ns), `0 < deadline <= period`.
    pub deadline: Nanos,
    /// Base priority (larger runs first).
    pub priority: u32,
}

/// A partition to schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PartitionTasks {
    /// Index of the partition in the module (what windows refer to).
    pub index: usize,
    /// `PartitionIdentifier`.
    pub id: u32,
    /// `PartitionName`.
    pub name: String,
    /// `Criticality`.
    pub criticality: Criticality,
    /// Cores the partition may run on; empty: any core of the set.
    pub cores: Vec<u32>,
    /// Its processes.
    pub tasks: Vec<Task>,
}

impl PartitionTasks {
    /// Rank of the criticality: 0 for LEVEL_A (most critical) .. 4 for LEVEL_E.
    pub fn rank(&self) -> usize {
        criticality_rank(self.criticality)
    }

    /// Utilisation `sum(wcet / period)`.
    pub fn utilisation(&self) -> f64 {
        self.tasks
            .iter()
            .map(|t| t.wcet as f64 / t.period as f64)
            .sum()
    }

    /// Smallest process period.
    pub fn min_period(&self) -> Nanos {
        self.tasks.iter().map(|t| t.period).min().unwrap_or(0)
    }

    /// GCD of the process periods: the ARINC 653 partition period written for it (every
    /// process period is a multiple of it, as `CREATE_PROCESS` requires).
    pub fn partition_period(&self) -> Nanos {
        self.tasks.iter().fold(0, |g, t| gcd(g, t.period))
    }

    /// Whether the partition may run on `core`.
    pub fn allows(&self, core: u32) -> bool {
        self.cores.is_empty() || self.cores.contains(&core)
    }
}

/// Rank of a criticality: 0 for LEVEL_A .. 4 for LEVEL_E.
pub fn criticality_rank(c: Criticality) -> usize {
    Criticality::VALUES
        .iter()
        .position(|(_, v)| *v == c)
        .unwrap_or(Criticality::VALUES.len())
}

/// Everything synthesis schedules.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskSet {
    /// Partitions (only those with processes; see [`TaskSet::from_module`]).
    pub partitions: Vec<PartitionTasks>,
    /// Cores available, ascending, non-empty.
    pub cores: Vec<u32>,
}

impl TaskSet {
    /// The major frame: LCM of every process period.
    pub fn major_frame(&self) -> Nanos {
        self.partitions
            .iter()
            .flat_map(|p| p.tasks.iter())
            .fold(1, |l, t| lcm(l, t.period))
    }

    /// Total utilisation.
    pub fn utilisation(&self) -> f64 {
        self.partitions.iter().map(|p| p.utilisation()).sum()
    }

    /// Checks the arithmetic limits (frame length, number of micro-periods, deadlines).
    pub fn check_limits(&self) -> Result<(), LimitError> {
        if self.partitions.is_empty() {
            return Err(LimitError::NoPartition);
        }
        if self.cores.is_empty() {
            return Err(LimitError::NoCore);
        }
        let mut frame: u128 = 1;
        for t in self.partitions.iter().flat_map(|p| p.tasks.iter()) {
            if t.period == 0 || t.wcet == 0 || t.deadline == 0 || t.deadline > t.period {
                return Err(LimitError::BadTiming {
                    process: t.name.clone(),
                });
            }
            let g = u128::from(gcd(frame.min(u128::from(u64::MAX)) as u64, t.period));
            frame = frame / g.max(1) * u128::from(t.period);
            if frame > u128::from(MAX_FRAME) {
                return Err(LimitError::FrameTooLong);
            }
        }
        let min = self
            .partitions
            .iter()
            .map(|p| p.min_period())
            .min()
            .unwrap_or(1);
        if frame / u128::from(min.max(1)) > u128::from(MAX_MICRO_PERIODS) {
            return Err(LimitError::TooManyMicroPeriods);
        }
        Ok(())
    }
}

/// Why a task set is beyond what synthesis handles ([`TaskSet::check_limits`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    /// No partition has processes.
    #[error("no partition to schedule")]
    NoPartition,
    /// No core is given.
    #[error("no core to schedule on")]
    NoCore,
    /// A process's timing is not 0 < wcet, 0 < deadline <= period.
    #[error("process {process} needs 0 < wcet, 0 < deadline <= period")]
    BadTiming {
        /// The process.
        process: String,
    },
    /// The hyperperiod exceeds [`MAX_FRAME`].
    #[error(
        "the least common multiple of the process periods exceeds {} s; \
         choose periods with a shorter hyperperiod (e.g. harmonic ones)",
        MAX_FRAME / 1_000_000_000
    )]
    FrameTooLong,
    /// The major frame holds more than [`MAX_MICRO_PERIODS`] smallest periods.
    #[error("the major frame holds more than {MAX_MICRO_PERIODS} of the smallest period")]
    TooManyMicroPeriods,
}

/// A problem of the input that stops synthesis, with its place in the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputError {
    /// File.
    pub file: PathBuf,
    /// Line, from 1 (0: unknown).
    pub line: u32,
    /// Column, from 1.
    pub column: u32,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file.display(),
            self.line,
            self.column,
            self.message
        )
    }
}

/// Builds the task set of a validated module. `cores` overrides the cores. Every partition must list
/// processes with `periodSeconds` and `wcetSeconds`; `deadlineSeconds` defaults to the period;
/// without `cores`, the cores are core 0 and every core named by a partition's resources;
/// priorities are given for every process of a partition or for none (deadline-monotonic).
/// Returns every problem found, each naming its line.
pub fn task_set(
    module: &ValidatedModule,
    map: &SourceMap,
    cores: Option<&[u32]>,
) -> Result<TaskSet, Vec<InputError>> {
    let file = module.source_path.clone();
    let err = |pos: (u32, u32), message: String| InputError {
        file: file.clone(),
        line: pos.0,
        column: pos.1,
        message,
    };
    let mut errors = Vec::new();
    let mut partitions = Vec::new();
    for (index, p) in module.partitions.iter().enumerate() {
        let ppos = map.partition_pos(p.id);
        if p.processes.is_empty() {
            errors.push(err(
                ppos,
                format!(
                    "partition {} lists no <partita:Process>; schedule synthesis needs each partition's processes (periodSeconds, wcetSeconds)",
                    p.name
                ),
            ));
            continue;
        }
        if p.process_policy == Some(ProcessPolicy::Edf) {
            errors.push(err(
                ppos,
                format!(
                    "partition {} schedules its processes by EDF; schedule synthesis analyses fixed-priority scheduling only",
                    p.name
                ),
            ));
            continue;
        }
        let with_prio = p.processes.iter().filter(|x| x.priority.is_some()).count();
        if with_prio != 0 && with_prio != p.processes.len() {
            errors.push(err(
                ppos,
                format!(
                    "partition {}: give every process a priority, or none (deadline-monotonic priorities are then used)",
                    p.name
                ),
            ));
        }
        let mut tasks = Vec::new();
        for pr in &p.processes {
            let pos = map.process_pos(p.id, &pr.name).unwrap_or(ppos);
            let what = format!("process {} of partition {}", pr.name, p.name);
            let (Some(period), Some(wcet)) = (pr.period, pr.wcet) else {
                let missing = match (pr.period, pr.wcet) {
                    (None, None) => "periodSeconds and wcetSeconds",
                    (None, _) => "periodSeconds",
                    _ => "wcetSeconds",
                };
                errors.push(err(
                    pos,
                    format!("{what} has no {missing}; schedule synthesis needs both"),
                ));
                continue;
            };
            let deadline = pr.deadline.unwrap_or(period);
            if period == 0 || wcet == 0 || deadline == 0 {
                errors.push(err(
                    pos,
                    format!("{what}: period, WCET and deadline must be greater than zero"),
                ));
                continue;
            }
            if deadline > period {
                errors.push(err(
                    pos,
                    format!("{what}: deadline longer than the period is not supported (constrained deadlines only)"),
                ));
                continue;
            }
            if wcet > deadline {
                errors.push(err(
                    pos,
                    format!("{what}: WCET is longer than the deadline, so it can never meet it"),
                ));
                continue;
            }
            tasks.push(Task {
                name: pr.name.clone(),
                period,
                wcet,
                deadline,
                priority: pr.priority.unwrap_or(0),
            });
        }
        if with_prio == 0 {
            deadline_monotonic(&mut tasks);
        }
        partitions.push(PartitionTasks {
            index,
            id: p.id,
            name: p.name.clone(),
            criticality: p.criticality,
            cores: p.cores.clone(),
            tasks,
        });
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let cores = match cores {
        Some(c) if !c.is_empty() => {
            let mut c = c.to_vec();
            c.sort_unstable();
            c.dedup();
            c
        }
        _ => {
            // Core 0 (where windows go by default) and every core a partition names.
            let mut c: Vec<u32> = partitions
                .iter()
                .flat_map(|p| p.cores.iter().copied())
                .chain([0])
                .collect();
            c.sort_unstable();
            c.dedup();
            c
        }
    };
    for p in &partitions {
        if !p.cores.is_empty() && !p.cores.iter().any(|c| cores.contains(c)) {
            return Err(vec![err(
                map.partition_pos(p.id),
                format!(
                    "partition {} may only run on cores {:?}, none of which is scheduled ({:?})",
                    p.name, p.cores, cores
                ),
            )]);
        }
    }
    Ok(TaskSet { partitions, cores })
}

/// Gives priorities by deadline (shorter deadline: higher priority; ties by period, then
/// declaration order).
pub fn deadline_monotonic(tasks: &mut [Task]) {
    let mut order: Vec<usize> = (0..tasks.len()).collect();
    order.sort_by_key(|&i| (tasks[i].deadline, tasks[i].period, i));
    let n = tasks.len() as u32;
    for (rank, &i) in order.iter().enumerate() {
        tasks[i].priority = n - rank as u32;
    }
}
