// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita bench overheads`: the seed study's workload (Han and Jin, *Resource partitioning
//! for Integrated Modular Avionics*, Table III) and the result file its two partitions write.

use serde::{Deserialize, Serialize};

/// One of the two partitions of the workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SeedPartition {
    /// The Operational Flight Program.
    Ofp,
    /// The video streaming program.
    Vsp,
}

impl SeedPartition {
    /// Both, in plan order.
    pub const ALL: [SeedPartition; 2] = [SeedPartition::Ofp, SeedPartition::Vsp];

    /// The partition's name in the plan.
    pub fn name(self) -> &'static str {
        match self {
            SeedPartition::Ofp => "OFP",
            SeedPartition::Vsp => "VSP",
        }
    }

    /// Its index in the plan.
    pub fn index(self) -> usize {
        match self {
            SeedPartition::Ofp => 0,
            SeedPartition::Vsp => 1,
        }
    }
}

impl std::fmt::Display for SeedPartition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for SeedPartition {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        SeedPartition::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or(())
    }
}

/// A periodic task of Table III.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeedTask {
    /// The task's name in the paper (also its APEX process name).
    pub name: &'static str,
    /// Its partition.
    pub partition: SeedPartition,
    /// Period, ms.
    pub period_ms: u32,
    /// Execution time, ms.
    pub execution_ms: u32,
    /// APEX priority (rate monotonic inside the partition, as the paper's GnC preempts
    /// AdtReader; NavReader before SwmReader at equal rates, by shorter execution time).
    pub priority: i32,
}

/// Table III: period and execution time of the tasks.
pub const TABLE_III: [SeedTask; 5] = [
    SeedTask {
        name: "GnC",
        partition: SeedPartition::Ofp,
        period_ms: 20,
        execution_ms: 2,
        priority: 40,
    },
    SeedTask {
        name: "NavReader",
        partition: SeedPartition::Ofp,
        period_ms: 20,
        execution_ms: 6,
        priority: 30,
    },
    SeedTask {
        name: "SwmReader",
        partition: SeedPartition::Ofp,
        period_ms: 80,
        execution_ms: 3,
        priority: 20,
    },
    SeedTask {
        name: "AdtReader",
        partition: SeedPartition::Ofp,
        period_ms: 80,
        execution_ms: 10,
        priority: 10,
    },
    SeedTask {
        name: "VdoStrming",
        partition: SeedPartition::Vsp,
        period_ms: 80,
        execution_ms: 35,
        priority: 10,
    },
];

/// The tasks of `partition`, with their indices in [`TABLE_III`].
pub fn tasks_of(partition: SeedPartition) -> impl Iterator<Item = (usize, &'static SeedTask)> {
    TABLE_III
        .iter()
        .enumerate()
        .filter(move |(_, t)| t.partition == partition)
}

/// The busy work of `task` with the execution times scaled by `scale_permille`/1000, ns.
pub fn scaled_execution_ns(task: &SeedTask, scale_permille: u32) -> u64 {
    u64::from(task.execution_ms) * 1_000_000 * u64::from(scale_permille) / 1000
}

/// One job of a task, as its process recorded it. Instants are APEX time (ns since the
/// module epoch, the scale of the manager's window trace).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobRecord {
    /// Index of the task in [`TABLE_III`].
    pub task: u8,
    /// Release point: the job's deadline time less the process's time capacity.
    pub release: i64,
    /// First instruction of the job (the return of PERIODIC_WAIT; the entry for the first).
    pub start: i64,
    /// Last instruction of the job (before PERIODIC_WAIT).
    pub finish: i64,
    /// CPU time the job's busy work used (the calibration check), ns.
    pub cpu: i64,
}

/// Everything a partition of `bench overheads` reports (a set-up failure in `error`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct OverheadsResult {
    /// Set-up failure.
    pub error: Option<String>,
    /// Jobs of every task of the partition, after the warm-up.
    pub jobs: Vec<JobRecord>,
    /// `CLOCK_MONOTONIC` when the partition had created its processes and was about to enter
    /// NORMAL, ns.
    pub ready_monotonic_ns: Option<u64>,
    /// Errors and remarks.
    pub notes: Vec<String>,
}

/// Jobs left out at the start of every task (its first activations, while the partition and
/// the caches settle).
pub const WARMUP_JOBS: usize = 2;

/// The hyperperiod of Table III (the longest period), ms: the unit the bench counts in.
pub const HYPERPERIOD_MS: u32 = 80;

/// Jobs `task` records when the bench asks for `hyperperiods` hyperperiods.
pub fn jobs_to_record(task: &SeedTask, hyperperiods: usize) -> usize {
    hyperperiods * (HYPERPERIOD_MS / task.period_ms) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_iii_is_the_papers() {
        let row: Vec<(&str, u32, u32)> = TABLE_III
            .iter()
            .map(|t| (t.name, t.period_ms, t.execution_ms))
            .collect();
        assert_eq!(
            row,
            [
                ("GnC", 20, 2),
                ("NavReader", 20, 6),
                ("SwmReader", 80, 3),
                ("AdtReader", 80, 10),
                ("VdoStrming", 80, 35)
            ]
        );
        assert_eq!(tasks_of(SeedPartition::Ofp).count(), 4);
        assert_eq!(
            tasks_of(SeedPartition::Vsp)
                .map(|(i, _)| i)
                .collect::<Vec<_>>(),
            [4]
        );
        assert_eq!(scaled_execution_ns(&TABLE_III[4], 500), 17_500_000);
        assert_eq!(jobs_to_record(&TABLE_III[0], 10), 40);
        assert_eq!(jobs_to_record(&TABLE_III[4], 10), 10);
        assert!(TABLE_III
            .iter()
            .all(|t| HYPERPERIOD_MS.is_multiple_of(t.period_ms)));
        for p in SeedPartition::ALL {
            assert_eq!(p.name().parse::<SeedPartition>(), Ok(p));
        }
    }
}
