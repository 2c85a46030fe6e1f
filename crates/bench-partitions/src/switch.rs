// SPDX-License-Identifier: MIT OR Apache-2.0
//! The processes of `partita bench switch`: the benchmark partition and the bare spinner.

use crate::PartitionError;
use partita_apex::apex;
use partita_apex::core::OperatingMode;
use partita_bench_protocol::args::{SpinnerArgs, SwitchPartitionArgs};
use partita_bench_protocol::gap_log::{self, status, WriterLog};
use std::sync::Arc;

/// Priority of the periodic processes (above the spinner).
const PERIODIC_PRIORITY: i32 = 100;
/// Priority of the spinner (the lowest).
const SPINNER_PRIORITY: i32 = 1;
/// Stack of every benchmark process.
const STACK: u64 = 64 * 1024;

/// The benchmark partition ([`SwitchPartitionArgs`]), run by the partition manager.
///
/// The partition creates `processes - 1` periodic APEX processes (period: the partition
/// period, first release `release_delay_ns` after each period start, trivial work then
/// PERIODIC_WAIT) and one lowest-priority aperiodic *spinner* that reads the APEX clock in a
/// loop and logs every gap longer than `gap_threshold_ns` into its slot of the gap log. It
/// then enters NORMAL mode; a set-up failure is also written to the slot's status word.
///
/// With `timer_workaround` the spinner first sleeps 1 ms outside APEX. Entering NORMAL, the
/// runtime lowers the main thread to the parked priority and designates the spinner *before*
/// the main thread raises itself to the timer-thread priority; a process that never blocks
/// then starves the main thread, which never becomes the timer thread: no periodic process is
/// ever released. The sleep lets the main thread get there first.
pub fn partition_main(words: &[String]) -> Result<(), PartitionError> {
    let args = SwitchPartitionArgs::parse(words)?;
    let log = Arc::new(WriterLog::open(&args.log, args.slot)?);
    let fail = |step: u64, service: &'static str| {
        let log = log.clone();
        move |code| {
            log.slot().set_status(status::FAILED + step);
            PartitionError::Apex { service, code }
        }
    };
    let rt = crate::runtime()?;
    let period = apex::partition::get_partition_status()
        .map_err(fail(1, "GET_PARTITION_STATUS"))?
        .period;
    // `bench felt`: the first periodic process logs its lateness (see `measure_lateness`).
    let lateness = if args.timed_wait_ns > 0 {
        let (release, timed) = gap_log::lateness_slots(2, args.slot);
        Some(Arc::new((
            WriterLog::open(&args.log, release)?,
            WriterLog::open(&args.log, timed)?,
        )))
    } else {
        None
    };
    for i in 1..args.processes.max(1) {
        let attrs = apex::process::ProcessAttributes {
            name: apex::name(&format!("periodic-{i}")),
            entry: 0,
            stack_size: STACK,
            base_priority: PERIODIC_PRIORITY,
            period,
            time_capacity: apex::INFINITE_TIME_VALUE,
            deadline: apex::process::DeadlineType::Soft,
        };
        let l = log.clone();
        let measured = lateness.clone().filter(|_| i == 1);
        let first_release = args.window_offset_ns + args.release_delay_ns;
        let timed_wait = args.timed_wait_ns;
        let pid = apex::process::create_process(&attrs, move || {
            let mut next_due = None;
            loop {
                l.slot().activation();
                if let Some(m) = &measured {
                    let release = Release {
                        period,
                        first: first_release,
                    };
                    measure_lateness(m, rt, release, &mut next_due, timed_wait);
                }
                // Trivial work.
                let mut x = 0u64;
                for k in 0..64u64 {
                    x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(k));
                }
                std::hint::black_box(x);
                if apex::time::periodic_wait().is_err() {
                    return;
                }
            }
        })
        .map_err(fail(2, "CREATE_PROCESS (periodic)"))?;
        let delay = args.release_delay_ns;
        rt.call(|k, now, me| k.delayed_start(now, me, pid, delay))
            .map_err(fail(3, "DELAYED_START"))?;
    }
    let attrs = apex::process::ProcessAttributes {
        name: apex::name("spinner"),
        entry: 0,
        stack_size: STACK,
        base_priority: SPINNER_PRIORITY,
        period: apex::INFINITE_TIME_VALUE,
        time_capacity: apex::INFINITE_TIME_VALUE,
        deadline: apex::process::DeadlineType::Soft,
    };
    let l = log.clone();
    let (workaround, threshold) = (args.timer_workaround, args.gap_threshold_ns);
    let spinner = apex::process::create_process(&attrs, move || {
        if workaround {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        gap_log::spin(l.slot(), threshold, || rt.now());
    })
    .map_err(fail(4, "CREATE_PROCESS (spinner)"))?;
    apex::process::start(spinner).map_err(fail(5, "START"))?;
    log.slot().set_status(status::NORMAL);
    apex::partition::set_partition_mode(OperatingMode::Normal)
        .map_err(fail(6, "SET_PARTITION_MODE"))
}

/// The release points of a periodic process: `first + k * period` (APEX time).
#[derive(Clone, Copy)]
struct Release {
    period: i64,
    first: i64,
}

/// What an application inside the partition feels of time events (`bench felt`): how late
/// this activation was released, logged as `(due, actual)` into the first log, then how late a
/// TIMED_WAIT of `timed_wait` ns ended, into the second. The first activation is due at the
/// last release point before it; each one after at the next release point (`next_due`): an
/// activation that catches up a release point missed (a throttling hole) is due there, as
/// PERIODIC_WAIT releases it, not at the last point before it.
fn measure_lateness(
    logs: &(WriterLog, WriterLog),
    rt: &partita_apex::runtime::Runtime,
    release: Release,
    next_due: &mut Option<i64>,
    timed_wait: i64,
) {
    let now = rt.now();
    let period = release.period.max(1);
    let due = next_due.unwrap_or_else(|| now - (now - release.first).rem_euclid(period));
    *next_due = Some(due + period);
    logs.0.slot().record(due, now);
    let before = rt.now();
    if apex::time::timed_wait(timed_wait).is_ok() {
        let after = rt.now();
        logs.1.slot().record(before + timed_wait, after);
    }
}

/// A bare-floor spinner ([`SpinnerArgs`]): a plain process, nothing of Partita around it. It
/// puts itself at the given `SCHED_FIFO` priority and logs its gaps, measured on the monotonic
/// clock from the epoch the bench wrote in its slot. Never returns unless the arguments or the
/// log are wrong.
pub fn spinner_main(words: &[String]) -> Result<(), PartitionError> {
    let args = SpinnerArgs::parse(words)?;
    let log = WriterLog::open(&args.log, args.slot)?;
    // Without real-time priority or locked memory it still measures (the figures show it).
    let _ = partita_sys::sched::set_fifo(0, args.priority);
    let _ = partita_sys::sched::lock_memory();
    let s = log.slot();
    let epoch = s.epoch() as i64;
    gap_log::spin(s, args.gap_threshold_ns, || {
        partita_sys::time::monotonic_ns() as i64 - epoch
    })
}
