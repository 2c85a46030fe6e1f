// SPDX-License-Identifier: MIT OR Apache-2.0
//! Per-core idle holders: a core with no designated APEX process must not run a
//! process that was preempted in the middle of its code.
//!
//! A process preempted asynchronously (by the timer thread, or by a process of another core:
//! a STOP, a SUSPEND, the error handler with PROCESSES_PAUSE) is *demoted* below the running
//! priority rather than stopped, so that a libc lock it holds stays releasable (see the
//! runtime's module documentation). On a core that has a designated process this is enough:
//! the designated thread outranks it. But when the kernel leaves the core idle, nothing
//! outranks the demoted thread, and it would go on running code of a process that is stopped,
//! suspended or paused. Each core therefore has a *holder* thread, pinned to the core's CPU at
//! a priority between the two (`run - 5`): while the core is idle and one of its processes is
//! demoted, the holder spins and keeps the demoted thread off the CPU; otherwise it sleeps on
//! a futex. The dispatcher decides ([`update`]) after every change of designation.
//!
//! The holder's spinning uses the partition's own window time on a core the partition owns;
//! it is what an RTOS's idle task does. Holders exist only with real-time priorities (not in a
//! standalone partition, whose threads are not SCHED_FIFO).

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::OnceLock;

struct Holder {
    hold: AtomicBool,
    word: AtomicU32,
}

static HOLDERS: OnceLock<Vec<Holder>> = OnceLock::new();

/// Number of demoted threads (slots whose `demoted` flag is set).
static DEMOTED: AtomicU32 = AtomicU32::new(0);

/// Starts one holder per core (once; from the main process before NORMAL, while it is the
/// only thread that runs, so that the new threads get the CPU to set themselves up).
pub(crate) fn start(cores: usize, rt_run: i32) {
    if rt_run <= 10 || HOLDERS.get().is_some() {
        return;
    }
    let holders = (0..cores)
        .map(|_| Holder {
            hold: AtomicBool::new(false),
            word: AtomicU32::new(0),
        })
        .collect();
    if HOLDERS.set(holders).is_err() {
        return;
    }
    for core in 0..cores {
        let ready = std::sync::Arc::new(AtomicU32::new(0));
        let r2 = ready.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("apex-idle-{core}"))
            .stack_size(64 * 1024)
            .spawn(move || holder(core, rt_run, r2));
        if spawned.is_err() {
            eprintln!("partita runtime: no idle holder for core {core}: a stopped or paused process may run while the core is idle");
            continue;
        }
        while ready.load(Ordering::Acquire) == 0 {
            partita_sys::futex::wait(&ready, 0, None, false);
        }
    }
}

fn holder(core: usize, rt_run: i32, ready: std::sync::Arc<AtomicU32>) {
    let _ = partita_sys::stack::block_all_signals();
    crate::affinity::pin_self(core as u32);
    // Inherited SCHED_FIFO from the main process; below the running priority, above demoted.
    let ok = partita_sys::sched::set_priority(0, rt_run - 5).is_ok();
    ready.store(1, Ordering::Release);
    partita_sys::futex::wake(&ready, 1, false);
    if !ok {
        eprintln!(
            "partita runtime: idle holder of core {core} has no real-time priority; not used"
        );
        return;
    }
    let Some(h) = HOLDERS.get().and_then(|v| v.get(core)) else {
        return;
    };
    loop {
        let w = h.word.load(Ordering::Acquire);
        while h.hold.load(Ordering::Acquire) {
            std::hint::spin_loop();
        }
        partita_sys::futex::wait(&h.word, w, None, false);
    }
}

/// Marks a slot's thread demoted (preempted in application code).
pub(crate) fn mark_demoted(flag: &AtomicBool) {
    if !flag.swap(true, Ordering::AcqRel) {
        DEMOTED.fetch_add(1, Ordering::AcqRel);
    }
}

/// The slot's thread is no longer a demoted runner (raised again, or back in the runtime).
pub(crate) fn clear_demoted(flag: &AtomicBool) {
    if flag.load(Ordering::Relaxed) && flag.swap(false, Ordering::AcqRel) {
        DEMOTED.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Recomputes which cores the holders must hold: `idle(c)` (the kernel designates nobody on
/// core `c`) and `demoted_on(c)` (a demoted thread is bound to core `c`). Called by the
/// dispatcher with the kernel locked.
pub(crate) fn update(idle: impl Fn(u32) -> bool, demoted_on: impl Fn(u32) -> bool) {
    let Some(holders) = HOLDERS.get() else {
        return;
    };
    let any = DEMOTED.load(Ordering::Acquire) > 0;
    for (c, h) in holders.iter().enumerate() {
        let c = c as u32;
        let hold = any && idle(c) && demoted_on(c);
        if h.hold.swap(hold, Ordering::AcqRel) != hold && hold {
            h.word.fetch_add(1, Ordering::Release);
            partita_sys::futex::wake(&h.word, 1, false);
        }
    }
}
