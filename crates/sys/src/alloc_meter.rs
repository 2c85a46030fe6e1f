// SPDX-License-Identifier: MIT OR Apache-2.0
//! A global allocator that counts: the bytes allocated now and the peak since the last
//! [`AllocMeter::reset_peak`]. The fuzz harness installs it (`#[global_allocator]`) to report
//! the peak allocation of each input and to stop a run whose allocation grows without bound.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator with byte counters. Install it with
/// `#[global_allocator] static A: AllocMeter = AllocMeter::new();`.
#[derive(Debug, Default)]
pub struct AllocMeter {
    current: AtomicUsize,
    peak: AtomicUsize,
}

impl AllocMeter {
    /// A meter with zero counts.
    pub const fn new() -> Self {
        AllocMeter {
            current: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        }
    }

    /// Bytes allocated and not yet freed.
    pub fn current(&self) -> usize {
        self.current.load(Ordering::Relaxed)
    }

    /// Highest [`current`](Self::current) since the last [`reset_peak`](Self::reset_peak).
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    /// Starts a new peak measurement from the current allocation.
    pub fn reset_peak(&self) {
        self.peak.store(self.current(), Ordering::Relaxed);
    }

    fn added(&self, size: usize) {
        let now = self.current.fetch_add(size, Ordering::Relaxed) + size;
        self.peak.fetch_max(now, Ordering::Relaxed);
    }

    fn removed(&self, size: usize) {
        self.current.fetch_sub(size, Ordering::Relaxed);
    }
}

// SAFETY: every method forwards to the system allocator with the caller's arguments unchanged
// (so the caller's contract is the system allocator's) and only updates atomic counters, which
// never allocate.
unsafe impl GlobalAlloc for AllocMeter {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout, which meets `GlobalAlloc::alloc`'s contract.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            self.added(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            self.added(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller passes a block this allocator (that is, `System`) returned, with
        // its layout.
        unsafe { System.dealloc(ptr, layout) };
        self.removed(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller passes a block `System` returned, its layout and a valid new size.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            self.removed(layout.size());
            self.added(new_size);
        }
        p
    }
}
