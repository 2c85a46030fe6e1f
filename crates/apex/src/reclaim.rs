// SPDX-License-Identifier: MIT OR Apache-2.0
//! Giving back what an abandoned APEX thread no longer needs.
//!
//! A thread whose process was stopped while it was in application code, or that stopped
//! itself, or that faulted, parks for good (see the runtime's "Stopped processes"). It cannot
//! exit: its stack holds frames of application code (C frames cannot be unwound, and a thread
//! leaving through glibc's exit path needs them unwound), so glibc keeps its stack mapping and
//! the kernel its task. What can be given back is given back just before it parks:
//! - the physical pages of its stack below its stack pointer (everything a deep call chain
//!   touched), with `MADV_DONTNEED`;
//! - its alternate signal stack (128 KiB mapping);
//!
//! A thread that parks from the fault handler runs on its alternate signal stack: it gives
//! back neither (its stack pointer tells nothing about its thread stack, and it runs on the
//! signal stack).
//! - its signal mask is filled, so that process-directed signals go to live threads.
//!
//! Still held per abandoned thread: the stack's address range and the pages above the stack
//! pointer, the kernel task (it counts against the partition's `pids` limit), and whatever
//! libc lock it held when it was stopped (CAVEATS.md).

use std::sync::atomic::{AtomicU64, Ordering};

static PARKED: AtomicU64 = AtomicU64::new(0);
static RELEASED_BYTES: AtomicU64 = AtomicU64::new(0);
static REUSED: AtomicU64 = AtomicU64::new(0);

/// Number of runtime threads parked for good so far in this partition.
pub fn parked_threads() -> u64 {
    PARKED.load(Ordering::Relaxed)
}

/// Number of STOP_SELF calls whose thread went back to the top of its loop for reuse
/// (`partita_sys::escape`) instead of parking.
pub fn reused_threads() -> u64 {
    REUSED.load(Ordering::Relaxed)
}

pub(crate) fn note_thread_reused() {
    REUSED.fetch_add(1, Ordering::Relaxed);
}

/// Total size of the stack ranges released and signal stacks unmapped by parked threads so
/// far (address ranges: the pages actually resident in them were fewer).
pub fn released_bytes() -> u64 {
    RELEASED_BYTES.load(Ordering::Relaxed)
}

/// Called by a runtime thread right before it parks for good.
pub(crate) fn before_parking_forever() {
    let _ = partita_sys::stack::block_all_signals();
    let alt = partita_sys::fault::release_alt_stack().unwrap_or(0);
    let stack = partita_sys::stack::release_unused_stack(16 * 1024).unwrap_or(0);
    PARKED.fetch_add(1, Ordering::Relaxed);
    RELEASED_BYTES.fetch_add((alt + stack) as u64, Ordering::Relaxed);
}
