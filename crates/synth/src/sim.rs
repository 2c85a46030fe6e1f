// SPDX-License-Identifier: MIT OR Apache-2.0
//! Generator-side simulation of one partition's process scheduler (fixed-priority preemptive:
//! larger priority first, then earlier release, then declaration order), used to build window
//! tables. The checker has its own, separate implementation.
//!
//! A partition is *started* at the start of its first window, its *anchor*: process `i` is
//! released at `anchor + k·period_i` from then on, for ever (the generators simulate several
//! frames until the backlog at a frame boundary repeats, then keep the last frame as the
//! table). In every later frame, a window of the partition must start exactly at the anchor
//! (mod the frame): that window is flagged `PartitionPeriodStart`, so the runtime's period
//! origin, and thus its releases, are the simulated ones.

use crate::model::{PartitionTasks, Task};
use partita_schedule::Nanos;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Job {
    task: usize,
    release: Nanos,
    deadline: Nanos,
    remaining: Nanos,
}

/// The state of one partition during table construction.
#[derive(Debug, Clone)]
pub(crate) struct PartSim<'a> {
    /// Module index of the partition.
    pub index: usize,
    /// Criticality rank (0 = LEVEL_A).
    pub rank: usize,
    tasks: &'a [Task],
    frame: Nanos,
    anchor: Option<Nanos>,
    next: Vec<Nanos>,
    jobs: Vec<Job>,
    /// A job missed its deadline, or a window did not start at the anchor.
    pub failed: bool,
    /// The first job found late: (task, release).
    late: Option<(usize, Nanos)>,
}

impl<'a> PartSim<'a> {
    pub fn new(p: &'a PartitionTasks, frame: Nanos) -> Self {
        PartSim {
            index: p.index,
            rank: p.rank(),
            tasks: &p.tasks,
            frame,
            anchor: None,
            next: vec![0; p.tasks.len()],
            jobs: Vec::new(),
            failed: false,
            late: None,
        }
    }

    /// Smallest process period.
    pub fn tasks_min_period(&self) -> Nanos {
        self.tasks.iter().map(|t| t.period).min().unwrap_or(0)
    }

    pub fn started(&self) -> bool {
        self.anchor.is_some()
    }

    /// Offset of the anchor in the frame.
    pub fn anchor(&self) -> Option<Nanos> {
        self.anchor.map(|a| a % self.frame)
    }

    /// Starts the partition at `t` (its first window starts there).
    pub fn start(&mut self, t: Nanos) {
        self.anchor = Some(t);
        self.next.iter_mut().for_each(|n| *n = t);
        self.release_to(t);
    }

    /// Releases every job due at or before `t`.
    pub fn release_to(&mut self, t: Nanos) {
        if self.anchor.is_none() {
            return;
        }
        for (i, task) in self.tasks.iter().enumerate() {
            while self.next[i] <= t {
                let r = self.next[i];
                self.jobs.push(Job {
                    task: i,
                    release: r,
                    deadline: r + task.deadline,
                    remaining: task.wcet,
                });
                self.next[i] += task.period;
            }
        }
    }

    /// Next release instant after the ones already made.
    pub fn next_release(&self) -> Option<Nanos> {
        self.anchor?;
        self.next.iter().copied().min()
    }

    /// Earliest next release among the tasks whose job would be due before `bound`.
    pub fn next_urgent_release(&self, bound: Nanos) -> Option<Nanos> {
        self.anchor?;
        self.tasks
            .iter()
            .zip(&self.next)
            .filter(|(t, &n)| n + t.deadline < bound)
            .map(|(_, &n)| n)
            .min()
    }

    pub fn busy(&self) -> bool {
        !self.jobs.is_empty()
    }

    /// Earliest deadline of a pending job.
    pub fn earliest_deadline(&self) -> Option<Nanos> {
        self.jobs.iter().map(|j| j.deadline).min()
    }

    fn pick(&self) -> Option<usize> {
        (0..self.jobs.len()).min_by_key(|&k| {
            let j = &self.jobs[k];
            (
                std::cmp::Reverse(self.tasks[j.task].priority),
                j.release,
                j.task,
            )
        })
    }

    /// Runs the partition's processes from `from` until it is idle or `until`, releasing jobs
    /// on the way; returns the instant it stopped.
    pub fn run(&mut self, from: Nanos, until: Nanos) -> Nanos {
        let mut t = from;
        loop {
            self.release_to(t);
            if t >= until {
                return until.max(from);
            }
            let Some(k) = self.pick() else { return t };
            let next_rel = self.next_release().unwrap_or(Nanos::MAX);
            let stop = until.min(next_rel).min(t + self.jobs[k].remaining);
            self.jobs[k].remaining -= stop - t;
            t = stop;
            if self.jobs[k].remaining == 0 {
                let j = self.jobs.swap_remove(k);
                if t > j.deadline {
                    self.failed = true;
                    self.late.get_or_insert((j.task, j.release));
                }
            }
        }
    }

    /// The failure of this partition: which process was late, and when it was released
    /// (relative to the frame).
    pub fn fail(&self) -> crate::gen::Fail {
        crate::gen::Fail::Deadline(
            self.index,
            self.late.map(|(k, r)| {
                format!(
                    "{} (released at {} in the frame)",
                    self.tasks[k].name,
                    partita_config::time::format_duration(r % self.frame)
                )
            }),
        )
    }

    /// Marks the partition failed when one of its pending jobs is already late at `t`.
    pub fn check_late(&mut self, t: Nanos) {
        if let Some(j) = self.jobs.iter().find(|j| j.deadline < t) {
            self.failed = true;
            self.late.get_or_insert((j.task, j.release));
        }
    }

    /// The backlog at frame boundary `t`, relative to it: (task, release mod frame, remaining).
    pub fn state(&self, t: Nanos) -> Vec<(usize, Nanos, Nanos)> {
        let mut s: Vec<_> = self
            .jobs
            .iter()
            .map(|j| {
                (
                    j.task,
                    (j.release + self.frame - t % self.frame) % self.frame,
                    j.remaining,
                )
            })
            .collect();
        s.sort_unstable();
        s
    }
}
