// SPDX-License-Identifier: MIT OR Apache-2.0
//! The benchmark partition (`partita __bench-partition`) and the bare spinner
//! (`partita __bench-spinner`).

use crate::log::{self, status, WriterLog};
use partita_apex::apex;
use partita_apex::core::OperatingMode;
use std::path::Path;
use std::sync::Arc;

/// Priority of the periodic processes (above the spinner).
const PERIODIC_PRIORITY: i32 = 100;
/// Priority of the spinner (the lowest).
const SPINNER_PRIORITY: i32 = 1;
/// Stack of every benchmark process.
const STACK: u64 = 64 * 1024;

fn arg<T: std::str::FromStr>(args: &[String], i: usize, what: &str) -> Result<T, String> {
    args.get(i)
        .ok_or_else(|| format!("missing argument {i} ({what})"))?
        .parse()
        .map_err(|_| format!("argument {i} ({what}) is not valid: {:?}", args[i]))
}

/// Entry point of the benchmark partition, run by the partition manager as
/// `partita __bench-partition LOG SLOT PROCESSES RELEASE_DELAY_NS THRESHOLD_NS WORKAROUND`
/// (`args` are the words after `__bench-partition`).
///
/// The partition creates `PROCESSES - 1` periodic APEX processes (period: the partition
/// period, first release `RELEASE_DELAY_NS` after each period start, trivial work then
/// PERIODIC_WAIT) and one lowest-priority aperiodic *spinner* that reads the APEX clock in a
/// loop and logs every gap longer than `THRESHOLD_NS` into slot `SLOT` of the gap log `LOG`.
/// It then enters NORMAL mode and never returns; on a set-up error it returns 1.
///
/// With `WORKAROUND` = 1 the spinner first sleeps 1 ms outside APEX. Entering NORMAL, the
/// runtime lowers the main thread to the parked priority and designates the spinner *before*
/// the main thread raises itself to the timer-thread priority; a process that never blocks
/// then starves the main thread, which never becomes the timer thread: no periodic process is
/// ever released. The sleep lets the main thread get there first.
pub fn partition_main(args: &[String]) -> i32 {
    match partition(args) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("partita __bench-partition: {e}");
            1
        }
    }
}

fn partition(args: &[String]) -> Result<(), String> {
    let path: String = arg(args, 0, "log file")?;
    let slot: usize = arg(args, 1, "slot")?;
    let processes: u32 = arg(args, 2, "processes")?;
    let delay: i64 = arg(args, 3, "release delay")?;
    let threshold: i64 = arg(args, 4, "gap threshold")?;
    let workaround = arg::<u32>(args, 5, "workaround").unwrap_or(0) != 0;
    let log = Arc::new(WriterLog::open(Path::new(&path), slot)?);
    let fail = |step: u64, what: &str, e: partita_apex::core::ReturnCode| {
        log.slot().set_status(status::FAILED + step);
        format!("{what}: {e:?}")
    };
    let rt = partita_apex::runtime::get().map_err(|e| {
        format!(
            "runtime: {e:?} ({})",
            partita_apex::runtime::init_error()
                .map(ToString::to_string)
                .unwrap_or_default()
        )
    })?;
    let period = apex::partition::get_partition_status()
        .map_err(|e| fail(1, "GET_PARTITION_STATUS", e))?
        .period;
    for i in 1..processes.max(1) {
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
        let pid = apex::process::create_process(&attrs, move || loop {
            l.slot().activation();
            // Trivial work.
            let mut x = 0u64;
            for k in 0..64u64 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(k));
            }
            std::hint::black_box(x);
            if apex::time::periodic_wait().is_err() {
                return;
            }
        })
        .map_err(|e| fail(2, "CREATE_PROCESS (periodic)", e))?;
        rt.call(|k, now, me| k.delayed_start(now, me, pid, delay))
            .map_err(|e| fail(3, "DELAYED_START", e))?;
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
    let spinner = apex::process::create_process(&attrs, move || {
        if workaround {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        log::spin(l.slot(), threshold, || rt.now());
    })
    .map_err(|e| fail(4, "CREATE_PROCESS (spinner)", e))?;
    apex::process::start(spinner).map_err(|e| fail(5, "START", e))?;
    log.slot().set_status(status::NORMAL);
    apex::partition::set_partition_mode(OperatingMode::Normal)
        .map_err(|e| fail(6, "SET_PARTITION_MODE", e))
}

/// Entry point of a bare-floor spinner: `partita __bench-spinner LOG SLOT THRESHOLD_NS`
/// (`args` are the words after `__bench-spinner`). A plain process, nothing of Partita around
/// it: it puts itself at the partitions' `SCHED_FIFO` priority and logs its gaps, measured on
/// the monotonic clock from the epoch the bench wrote in its slot. Never returns unless the
/// arguments are wrong.
pub fn spinner_main(args: &[String]) -> i32 {
    let run = || -> Result<(), String> {
        let path: String = arg(args, 0, "log file")?;
        let slot: usize = arg(args, 1, "slot")?;
        let threshold: i64 = arg(args, 2, "gap threshold")?;
        let log = WriterLog::open(Path::new(&path), slot)?;
        let _ = partita_sys::sched::set_fifo(0, partita_manager::PARTITION_RUN_PRIORITY);
        let _ = partita_sys::sched::lock_memory();
        let s = log.slot();
        let epoch = s.epoch() as i64;
        log::spin(s, threshold, || {
            partita_sys::time::monotonic_ns() as i64 - epoch
        })
    };
    match run() {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("partita __bench-spinner: {e}");
            1
        }
    }
}
