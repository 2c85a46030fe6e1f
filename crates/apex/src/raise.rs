// SPDX-License-Identifier: MIT OR Apache-2.0
//! Raising a runtime thread's real-time priority without `CAP_SYS_NICE`.
//!
//! Partitions hold no capability. Where the manager could give them `RLIMIT_RTPRIO` = the
//! timer priority, the kernel lets the runtime raise its threads up to it directly. Where it
//! could not (a host whose root lacks `CAP_SYS_RESOURCE`), every raise is refused with `EPERM`
//! and the manager's *raise broker* does it instead: the runtime writes the thread and the
//! priority into the control block and waits; the broker checks that the thread belongs to the
//! partition and that the priority is at most the timer priority, and applies it. A partition
//! therefore cannot put any thread above the runtime's timer priority, on any host
//! (docs/priority-raising.md).

use partita_sys::control::ControlBlock;
use std::sync::atomic::Ordering;
use std::sync::Mutex;

/// One request at a time per partition.
static SERIAL: Mutex<()> = Mutex::new(());

/// Gives thread `tid` (0: the caller) the SCHED_FIFO priority `prio`: directly when the kernel
/// allows it (a lowering, or a raise within `RLIMIT_RTPRIO`), otherwise through the manager's
/// raise broker. Returns whether the thread has the priority.
pub(crate) fn set_priority(ctl: Option<&ControlBlock>, tid: i32, prio: i32) -> bool {
    if partita_sys::sched::set_priority(tid, prio).is_ok() {
        return true;
    }
    let Some(c) = ctl.filter(|c| c.raise_broker.load(Ordering::Acquire) != 0) else {
        return false;
    };
    let tid = if tid == 0 {
        partita_sys::sched::gettid()
    } else {
        tid
    };
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    c.raise_tid.store(tid, Ordering::Relaxed);
    c.raise_priority.store(prio, Ordering::Relaxed);
    let seq = c
        .raise_request
        .fetch_add(1, Ordering::AcqRel)
        .wrapping_add(1);
    partita_sys::futex::wake(&c.raise_request, 1, true);
    loop {
        let done = c.raise_done.load(Ordering::Acquire);
        if done == seq {
            return c.raise_result.load(Ordering::Acquire) == 0;
        }
        // Say that we sleep, then look again (the broker writes `raise_done` and then reads
        // this flag: one of us sees the other), and sleep only if still not answered.
        c.raise_waiting.store(1, Ordering::SeqCst);
        let done = c.raise_done.load(Ordering::SeqCst);
        if done == seq {
            continue;
        }
        partita_sys::futex::wait(&c.raise_done, done, None, true);
    }
}
