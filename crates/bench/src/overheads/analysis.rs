// SPDX-License-Identifier: MIT OR Apache-2.0
//! From the manager's window starts and the jobs the partitions recorded to the seed study's
//! figures (its Section 4.1 and Table IV), with the counters of what could not be matched.

use partita_bench_protocol::overheads::JobRecord;
use partita_bench_protocol::Figures;
use serde::Serialize;

/// A window start as the manager's scheduler recorded it (ns since the module epoch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WindowObs {
    /// Partition index.
    pub partition: usize,
    /// Planned start.
    pub planned: i64,
    /// When the scheduler acted on it.
    pub actual: i64,
}

/// A job and its partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Job {
    /// Partition index.
    pub partition: usize,
    /// What the process recorded.
    pub record: JobRecord,
}

/// Order statistics, average, deviation and absolute jitter of one figure, as the seed's
/// tables give them, with its distribution for a CDF (Figure 15).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Distribution {
    /// Samples.
    pub count: u64,
    /// Average, ns.
    pub mean_ns: f64,
    /// Standard deviation (population), ns.
    pub stddev_ns: f64,
    /// Minimum, median, 99th percentile, maximum (nearest rank), ns.
    pub min_ns: i64,
    /// Median, ns.
    pub median_ns: i64,
    /// 99th percentile, ns.
    pub p99_ns: i64,
    /// Maximum, ns.
    pub max_ns: i64,
    /// Absolute jitter: maximum less minimum, ns.
    pub jitter_ns: i64,
    /// The 0th, 1st, ..., 100th percentiles (nearest rank), ns: the CDF (empty without
    /// samples).
    pub percentiles_ns: Vec<i64>,
}

impl Distribution {
    /// The distribution of `samples` (sorted in place).
    pub fn of(samples: &mut [i64]) -> Distribution {
        if samples.is_empty() {
            return Distribution::default();
        }
        let f = Figures::of(samples);
        let n = samples.len() as f64;
        let mean = samples.iter().map(|&v| v as f64).sum::<f64>() / n;
        let var = samples
            .iter()
            .map(|&v| (v as f64 - mean) * (v as f64 - mean))
            .sum::<f64>()
            / n;
        let len = samples.len();
        let percentiles_ns = (0..=100)
            .map(|p| {
                if p == 0 {
                    samples[0]
                } else {
                    samples[((p * len).div_ceil(100)).clamp(1, len) - 1]
                }
            })
            .collect();
        Distribution {
            count: f.count,
            mean_ns: mean,
            stddev_ns: var.sqrt(),
            min_ns: f.min,
            median_ns: f.median,
            p99_ns: f.p99,
            max_ns: f.max,
            jitter_ns: f.max - f.min,
            percentiles_ns,
        }
    }
}

/// The raw samples of one run, ns.
#[derive(Debug, Default)]
pub(crate) struct Samples {
    /// TmrO per window start: the scheduler acting, less the planned start.
    pub timer: Vec<i64>,
    /// PtswO per window start with a release: the first instruction of the partition's first
    /// released job, less the scheduler acting.
    pub partition_switch: Vec<i64>,
    /// CtswO: the first instruction of a ready job, less the last instruction of the job
    /// that ran before it in the same partition and window.
    pub context_switch: Vec<i64>,
    /// RelO of the first job of a window: its start less its release point (= TmrO + PtswO).
    pub release_first: Vec<i64>,
    /// RelO of the other jobs: the start less the later of the release point and the end of
    /// the job before it in the partition.
    pub release_other: Vec<i64>,
    /// Per task index (of Table III): execution time `f - s`, response time `f - r`, and the
    /// CPU time the busy work used.
    pub execution: Vec<Vec<i64>>,
    /// See `execution`.
    pub response: Vec<Vec<i64>>,
    /// See `execution`.
    pub cpu: Vec<Vec<i64>>,
    /// What could not be used.
    pub counts: MatchCounts,
}

/// Jobs and windows the figures leave out, and why.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct MatchCounts {
    /// Window starts in the recorded span.
    pub windows: u64,
    /// Window starts (their TmrO kept) and jobs (their `e` and `R` kept) released while not
    /// every task of their partition was recording (the first and last releases of a run).
    pub outside_recording: u64,
    /// Windows at whose planned start jobs of their partition were released.
    pub windows_with_release: u64,
    /// Of those, windows whose first job started before the scheduler acted (clock
    /// disagreement; left out of PtswO).
    pub started_before_switch: u64,
    /// Jobs (not first in a window) with no earlier job in the partition (left out).
    pub no_previous_job: u64,
    /// Jobs whose gap to the previous one spans another window start (left out of CtswO and
    /// RelO: the partition was switched out in between).
    pub across_a_switch: u64,
    /// Jobs released while their partition was idle that waited for a later window (left
    /// out of RelO).
    pub released_outside_windows: u64,
}

/// Works out every figure from the window starts and the jobs (of both partitions).
pub(crate) fn analyse(windows: &[WindowObs], jobs: &[Job], tasks: usize) -> Samples {
    let mut s = Samples {
        execution: vec![Vec::new(); tasks],
        response: vec![Vec::new(); tasks],
        cpu: vec![Vec::new(); tasks],
        ..Samples::default()
    };
    if jobs.is_empty() {
        return s;
    }
    let lo = jobs.iter().map(|j| j.record.release).min().unwrap_or(0);
    let hi = jobs.iter().map(|j| j.record.finish).max().unwrap_or(0);
    let mut ws: Vec<WindowObs> = windows
        .iter()
        .copied()
        .filter(|w| w.planned >= lo && w.planned <= hi)
        .collect();
    ws.sort_by_key(|w| w.actual);
    let mut starts: Vec<i64> = ws.iter().map(|w| w.actual).collect();
    starts.sort_unstable();
    // Whether a window start lies in (a, b].
    let switch_between = |a: i64, b: i64| {
        let i = starts.partition_point(|&t| t <= a);
        i < starts.len() && starts[i] <= b
    };
    for j in jobs {
        let r = &j.record;
        let t = r.task as usize;
        if t < tasks {
            s.execution[t].push(r.finish - r.start);
            s.response[t].push(r.finish - r.release);
            s.cpu[t].push(r.cpu);
        }
    }
    // Per partition, the releases during which every one of its tasks was recording: outside
    // them a window's first job, or the job before another, may not have been recorded.
    let recorded = |p: usize, t: i64| {
        let mut by_task: Vec<(u8, i64, i64)> = Vec::new();
        for j in jobs.iter().filter(|j| j.partition == p) {
            let r = &j.record;
            match by_task.iter_mut().find(|(task, _, _)| *task == r.task) {
                Some(e) => {
                    e.1 = e.1.min(r.release);
                    e.2 = e.2.max(r.release);
                }
                None => by_task.push((r.task, r.release, r.release)),
            }
        }
        let lo = by_task.iter().map(|e| e.1).max().unwrap_or(i64::MAX);
        let hi = by_task.iter().map(|e| e.2).min().unwrap_or(i64::MIN);
        lo <= t && t <= hi
    };
    let mut first = vec![false; jobs.len()];
    for w in &ws {
        s.counts.windows += 1;
        s.timer.push(w.actual - w.planned);
        if !recorded(w.partition, w.planned) {
            s.counts.outside_recording += 1;
            continue;
        }
        let Some((k, j)) = jobs
            .iter()
            .enumerate()
            .filter(|(_, j)| j.partition == w.partition && j.record.release == w.planned)
            .min_by_key(|(_, j)| j.record.start)
        else {
            continue;
        };
        s.counts.windows_with_release += 1;
        // The window's first job; the others released with it are "other" jobs.
        first[k] = true;
        if j.record.start < w.actual {
            s.counts.started_before_switch += 1;
            continue;
        }
        s.partition_switch.push(j.record.start - w.actual);
        s.release_first.push(j.record.start - j.record.release);
    }
    for (i, j) in jobs.iter().enumerate() {
        if first[i] {
            continue;
        }
        let r = &j.record;
        if !recorded(j.partition, r.release) {
            s.counts.outside_recording += 1;
            continue;
        }
        let prev = jobs
            .iter()
            .filter(|o| o.partition == j.partition && o.record.finish <= r.start)
            .map(|o| o.record.finish)
            .max();
        let Some(prev) = prev else {
            s.counts.no_previous_job += 1;
            continue;
        };
        if prev >= r.release {
            if switch_between(prev, r.start) {
                s.counts.across_a_switch += 1;
                continue;
            }
            s.context_switch.push(r.start - prev);
            s.release_other.push(r.start - prev);
        } else if switch_between(r.release, r.start) {
            s.counts.released_outside_windows += 1;
        } else {
            s.release_other.push(r.start - r.release);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(partition: usize, task: u8, release: i64, start: i64, finish: i64) -> Job {
        Job {
            partition,
            record: JobRecord {
                task,
                release,
                start,
                finish,
                cpu: finish - start,
            },
        }
    }

    #[test]
    fn distribution_gives_the_seed_tables_statistics() {
        let mut v = vec![4, 2, 6, 8];
        let d = Distribution::of(&mut v);
        assert_eq!(d.count, 4);
        assert_eq!(d.mean_ns, 5.0);
        assert!((d.stddev_ns - 5f64.sqrt()).abs() < 1e-9);
        assert_eq!((d.min_ns, d.median_ns, d.max_ns, d.jitter_ns), (2, 4, 8, 6));
        assert_eq!(d.percentiles_ns.len(), 101);
        assert_eq!(d.percentiles_ns[0], 2);
        assert_eq!(d.percentiles_ns[25], 2);
        assert_eq!(d.percentiles_ns[26], 4);
        assert_eq!(d.percentiles_ns[100], 8);
        assert_eq!(Distribution::of(&mut []), Distribution::default());
    }

    #[test]
    fn a_window_start_splits_into_timer_partition_switch_and_context_switch() {
        // Partition 0's window planned at 1000, acted on at 1010; GnC (task 0) released at
        // 1000 starts at 1050 and ends at 3000; NavReader (task 1), also released at 1000,
        // starts at 3040 and ends at 8000 (preempted by partition 1's window at 5000, acted on
        // at 5004, which releases nothing).
        let windows = [
            WindowObs {
                partition: 0,
                planned: 1000,
                actual: 1010,
            },
            WindowObs {
                partition: 1,
                planned: 5000,
                actual: 5004,
            },
        ];
        let jobs = [job(0, 0, 1000, 1050, 3000), job(0, 1, 1000, 3040, 8000)];
        let s = analyse(&windows, &jobs, 5);
        assert_eq!(s.timer, [10, 4]);
        assert_eq!(s.partition_switch, [40]);
        assert_eq!(s.release_first, [50]);
        assert_eq!(s.context_switch, [40]);
        assert_eq!(s.release_other, [40]);
        assert_eq!(s.execution[0], [1950]);
        assert_eq!(s.response[1], [7000]);
        assert_eq!(s.counts.windows, 2);
        assert_eq!(s.counts.windows_with_release, 1);
    }

    #[test]
    fn a_gap_across_another_window_is_not_a_context_switch() {
        // AdtReader (task 3) ends its predecessor's gap only after partition 1's window:
        // the gap is not a context switch.
        let windows = [
            WindowObs {
                partition: 0,
                planned: 0,
                actual: 5,
            },
            WindowObs {
                partition: 1,
                planned: 11_000,
                actual: 11_003,
            },
            WindowObs {
                partition: 0,
                planned: 20_000,
                actual: 20_006,
            },
        ];
        let jobs = [
            job(0, 0, 0, 20, 10_990),
            job(0, 3, 20_000, 20_100, 21_000),
            job(0, 0, 20_000, 20_030, 20_090),
        ];
        let s = analyse(&windows, &jobs, 5);
        assert_eq!(s.timer, [5, 3, 6]);
        // Task 3 records only from 20,000 on: the window at 0 is outside the span where
        // every task recorded (its first job might not have been recorded).
        assert_eq!(s.partition_switch, [24]);
        // The window at 0 and its GnC job, and partition 1's window (it recorded nothing).
        assert_eq!(s.counts.outside_recording, 3);
        // task 3 after the second GnC job: a context switch of 10.
        assert_eq!(s.context_switch, [10]);
        assert_eq!(s.counts.across_a_switch, 0);
        let jobs = [job(0, 0, 0, 20, 10_990), job(0, 3, 0, 20_100, 21_000)];
        let s = analyse(&windows, &jobs, 5);
        assert!(s.context_switch.is_empty());
        assert_eq!(s.counts.across_a_switch, 1);
    }

    #[test]
    fn a_job_started_before_the_switch_is_counted_not_measured() {
        let windows = [WindowObs {
            partition: 0,
            planned: 100,
            actual: 200,
        }];
        let jobs = [job(0, 0, 100, 150, 300)];
        let s = analyse(&windows, &jobs, 5);
        assert!(s.partition_switch.is_empty());
        assert_eq!(s.counts.started_before_switch, 1);
        assert!(analyse(&windows, &[], 5).timer.is_empty());
    }
}
