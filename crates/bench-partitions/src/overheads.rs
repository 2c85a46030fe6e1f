// SPDX-License-Identifier: MIT OR Apache-2.0
//! A partition of `partita bench overheads`: the tasks of the seed study's Table III that
//! belong to it, as periodic APEX processes whose busy work uses the task's (scaled) execution
//! time of CPU, each recording the release, start and finish of its jobs.

use crate::PartitionError;
use partita_apex::apex;
use partita_apex::core::OperatingMode;
use partita_bench_protocol::args::OverheadsPartitionArgs;
use partita_bench_protocol::overheads::{
    jobs_to_record, scaled_execution_ns, tasks_of, JobRecord, OverheadsResult, WARMUP_JOBS,
};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Stack of every process.
const STACK: u64 = 64 * 1024;

/// Uses `ns` of the calling thread's CPU time (time while preempted or held does not count);
/// returns the CPU time used.
pub fn busy_for(ns: u64) -> u64 {
    let c0 = partita_sys::time::thread_cpu_ns();
    let mut x = 0u64;
    loop {
        // About a microsecond of arithmetic between two readings of the CPU clock.
        for k in 0..256u64 {
            x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(k));
        }
        let used = partita_sys::time::thread_cpu_ns().saturating_sub(c0);
        if used >= ns {
            std::hint::black_box(x);
            return used;
        }
    }
}

/// What the processes of the partition share.
struct Record {
    /// Per task of the partition (in `tasks_of` order): its jobs, warm-up included.
    jobs: Vec<Mutex<Vec<JobRecord>>>,
    /// Tasks that have all their jobs.
    complete: AtomicUsize,
    /// The result has been written.
    written: AtomicBool,
    /// Errors of the processes.
    errors: Mutex<Vec<String>>,
    /// `CLOCK_MONOTONIC` when the partition was about to enter NORMAL.
    ready: AtomicU64,
}

/// A partition of `bench overheads` ([`OverheadsPartitionArgs`]), run by the partition
/// manager: one periodic process per task of Table III in the partition (period and time
/// capacity the task's period, soft deadline), each job using the task's execution time scaled
/// by `scale_permille` of CPU time. The process whose task completes the record last writes the
/// result file; the processes keep running (without recording) until the manager stops the
/// module. A set-up error is written to the result file too.
pub fn partition_main(words: &[String]) -> Result<(), PartitionError> {
    let args = OverheadsPartitionArgs::parse(words)?;
    set_up(&args).inspect_err(|e| {
        let r = OverheadsResult {
            error: Some(e.to_string()),
            ..OverheadsResult::default()
        };
        partita_bench_protocol::write_result_or_say(&args.result, &r);
    })
}

fn set_up(args: &OverheadsPartitionArgs) -> Result<(), PartitionError> {
    let rt = crate::runtime()?;
    if args.hyperperiods == 0 {
        // A start-up probe: the instant it is ready is the whole result.
        let r = OverheadsResult {
            ready_monotonic_ns: Some(partita_sys::time::monotonic_ns()),
            ..OverheadsResult::default()
        };
        partita_bench_protocol::write_result_or_say(&args.result, &r);
        return apex::partition::set_partition_mode(OperatingMode::Normal)
            .map_err(PartitionError::apex("SET_PARTITION_MODE"));
    }
    let tasks: Vec<_> = tasks_of(args.partition).collect();
    let record = Arc::new(Record {
        jobs: tasks
            .iter()
            .map(|(_, t)| {
                Mutex::new(Vec::with_capacity(
                    jobs_to_record(t, args.hyperperiods) + WARMUP_JOBS,
                ))
            })
            .collect(),
        complete: AtomicUsize::new(0),
        written: AtomicBool::new(false),
        errors: Mutex::new(Vec::new()),
        ready: AtomicU64::new(0),
    });
    let mut pids = Vec::new();
    for (k, &(index, task)) in tasks.iter().enumerate() {
        let period = i64::from(task.period_ms) * 1_000_000;
        let attrs = apex::process::ProcessAttributes {
            name: apex::name(task.name),
            entry: 0,
            stack_size: STACK,
            base_priority: task.priority,
            period,
            time_capacity: period,
            deadline: apex::process::DeadlineType::Soft,
        };
        let busy = scaled_execution_ns(task, args.scale_permille);
        let want = jobs_to_record(task, args.hyperperiods) + WARMUP_JOBS;
        let r = record.clone();
        let result = args.result.clone();
        let pid = apex::process::create_process(&attrs, move || {
            // Let the main thread become the APEX timer thread before the first busy job
            // (see `crate::switch::partition_main`); the first jobs are warm-up anyway.
            std::thread::sleep(std::time::Duration::from_millis(1));
            let me = apex::process::get_my_id();
            loop {
                let start = rt.now();
                let cpu = busy_for(busy);
                let finish = rt.now();
                let release = me
                    .and_then(apex::process::get_process_status)
                    .map(|s| s.deadline_time - s.attributes.time_capacity);
                if !r.written.load(Ordering::Acquire) {
                    match release {
                        Ok(release) => r.add(
                            k,
                            want,
                            JobRecord {
                                task: index as u8,
                                release,
                                start,
                                finish,
                                cpu: cpu as i64,
                            },
                            &result,
                        ),
                        Err(e) => r.error(format!("GET_PROCESS_STATUS: {e:?}")),
                    }
                }
                if let Err(e) = apex::time::periodic_wait() {
                    r.error(format!("PERIODIC_WAIT: {e:?}"));
                    return;
                }
            }
        })
        .map_err(PartitionError::apex("CREATE_PROCESS"))?;
        pids.push(pid);
    }
    let period = apex::partition::get_partition_status()
        .map_err(PartitionError::apex("GET_PARTITION_STATUS"))?
        .period;
    for k in 0..args.extra_processes {
        let attrs = apex::process::ProcessAttributes {
            name: apex::name(&format!("extra-{k}")),
            entry: 0,
            stack_size: STACK,
            base_priority: 1,
            period,
            time_capacity: period,
            deadline: apex::process::DeadlineType::Soft,
        };
        let pid =
            apex::process::create_process(&attrs, || while apex::time::periodic_wait().is_ok() {})
                .map_err(PartitionError::apex("CREATE_PROCESS (extra)"))?;
        pids.push(pid);
    }
    for pid in pids {
        apex::process::start(pid).map_err(PartitionError::apex("START"))?;
    }
    record
        .ready
        .store(partita_sys::time::monotonic_ns(), Ordering::Release);
    apex::partition::set_partition_mode(OperatingMode::Normal)
        .map_err(PartitionError::apex("SET_PARTITION_MODE"))
}

impl Record {
    fn error(&self, e: String) {
        let mut v = self.errors.lock().unwrap_or_else(|p| p.into_inner());
        if v.len() < 10 {
            v.push(e);
        }
    }

    /// Adds a job of task `k` (which wants `want` jobs); the job that completes the last task
    /// writes the result.
    fn add(&self, k: usize, want: usize, job: JobRecord, result: &std::path::Path) {
        let now_complete = {
            let mut v = self.jobs[k].lock().unwrap_or_else(|p| p.into_inner());
            if v.len() >= want {
                return;
            }
            v.push(job);
            v.len() == want
        };
        if now_complete && self.complete.fetch_add(1, Ordering::AcqRel) + 1 == self.jobs.len() {
            self.written.store(true, Ordering::Release);
            let mut out = OverheadsResult {
                ready_monotonic_ns: Some(self.ready.load(Ordering::Acquire)),
                ..OverheadsResult::default()
            };
            for m in &self.jobs {
                let v = m.lock().unwrap_or_else(|p| p.into_inner());
                out.jobs.extend(v.iter().skip(WARMUP_JOBS).copied());
            }
            out.notes = self
                .errors
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone();
            partita_bench_protocol::write_result_or_say(result, &out);
        }
    }
}
