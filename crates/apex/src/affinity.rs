// SPDX-License-Identifier: MIT OR Apache-2.0
//! Processor cores of the partition → host CPUs, and the pinning of the runtime's threads.
//!
//! The partition's cores are numbered `0..cores` (the APEX processor core ids); core `k` is
//! the `k`-th CPU, in increasing order, of the CPU mask the manager gave the partition (the
//! cores of its windows, or its `partita:Resources` cores). Every runtime thread pins itself
//! to the CPU of its core, so the kernel's rule "one APEX process runs at a time per core" is
//! what really happens: the designated thread of a core and a demoted (preempted) thread of
//! the same core share one CPU, and SCHED_FIFO priorities order them.
//!
//! A thread only ever changes its *own* affinity (`sched_setaffinity(0, ..)`), never another
//! thread's, so a seccomp filter restricting affinity calls to the caller keeps working:
//! - the main thread pins itself to core 0 when the runtime starts;
//! - a process (or error handler) thread pins itself to its slot's core when it starts;
//! - INITIALIZE_PROCESS_CORE_AFFINITY and CONFIGURE_ERROR_HANDLER (initialisation only, while
//!   the thread sleeps at the top of its loop) change the slot's core, wake the thread, and
//!   wait until it has moved itself ([`request_move`] / [`follow`]). Waiting matters: a thread
//!   woken on its old CPU would queue behind that core's running thread (same SCHED_FIFO
//!   priority) instead of running on its own core.
//!
//! Standalone (no manager, no CPU mask) nothing is pinned and every core id maps to no CPU.

use std::cell::Cell;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// "Not pinned yet" in a slot's `pinned` word and in [`PINNED`].
pub(crate) const UNPINNED: u32 = u32::MAX;

static HOST_CPUS: OnceLock<Vec<u32>> = OnceLock::new();

thread_local! {
    /// The core the calling thread pinned itself to ([`UNPINNED`]: none).
    static PINNED: Cell<u32> = const { Cell::new(UNPINNED) };
    /// The slot core the calling thread last acted on in [`follow`] (pinned or not).
    static FOLLOWED: Cell<u32> = const { Cell::new(UNPINNED) };
}

/// Records the partition's CPUs (ascending; empty when standalone) and pins the calling
/// (main) thread to core 0.
pub(crate) fn init(mut cpus: Vec<u32>) {
    cpus.sort_unstable();
    cpus.dedup();
    let _ = HOST_CPUS.set(cpus);
    pin_self(0);
}

/// The host CPU of partition core `core` (`None` standalone or out of range).
pub fn host_cpu(core: u32) -> Option<u32> {
    HOST_CPUS.get()?.get(core as usize).copied()
}

/// The core the calling thread is pinned to (`None`: not pinned, or pinning failed).
pub fn pinned_core() -> Option<u32> {
    let c = PINNED.with(|p| p.get());
    (c != UNPINNED).then_some(c)
}

/// Pins the calling thread to the CPU of `core`, unless it already is. Returns whether the
/// thread is now on that core's CPU (false standalone, or when the host refused).
pub(crate) fn pin_self(core: u32) -> bool {
    if PINNED.with(|p| p.get()) == core {
        return true;
    }
    let Some(cpu) = host_cpu(core) else {
        return false;
    };
    match partita_sys::sched::pin_self(cpu) {
        Ok(()) => {
            PINNED.with(|p| p.set(core));
            true
        }
        Err(e) => {
            PINNED.with(|p| p.set(UNPINNED));
            eprintln!("partita runtime: cannot pin a thread of core {core} to CPU {cpu}: {e}");
            false
        }
    }
}

/// Called by a slot's own thread (at start and whenever it wakes while waiting): if the
/// slot's core is not the one this thread last moved to, moves itself there, then
/// acknowledges in `pinned` (even on failure, so that the requester never waits forever).
/// Cheap when nothing changed: one thread-local and one atomic read.
pub(crate) fn follow(core: &AtomicU32, pinned: &AtomicU32) {
    let want = core.load(Ordering::Acquire);
    if FOLLOWED.with(|f| f.get()) == want {
        return;
    }
    pin_self(want);
    FOLLOWED.with(|f| f.set(want));
    pinned.store(want, Ordering::Release);
    partita_sys::futex::wake(pinned, u32::MAX, false);
}

/// Called after a slot's core was set to `core`: wakes the slot's thread (through its
/// designation word) and waits until it has moved itself ([`follow`]). The thread sleeps at
/// the top of its loop (initialisation), so it answers as soon as the caller blocks here.
pub(crate) fn request_move(word: &AtomicU32, pinned: &AtomicU32, core: u32) {
    loop {
        let p = pinned.load(Ordering::Acquire);
        if p == core {
            return;
        }
        word.fetch_add(1, Ordering::Release);
        partita_sys::futex::wake(word, u32::MAX, false);
        // Bounded wait: the wake-up above may race with the thread going to sleep.
        let deadline = partita_sys::time::monotonic_ns() + 10_000_000;
        partita_sys::futex::wait(pinned, p, Some(deadline), false);
    }
}
