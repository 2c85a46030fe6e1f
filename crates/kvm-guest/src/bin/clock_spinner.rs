// SPDX-License-Identifier: MIT OR Apache-2.0
//! GUEST CODE (bench guest): spins reading the TSC, for `partita bench kvm`. It reports the
//! address of three words, then forever: word 0 = its latest TSC reading; when the monitor has
//! set word 2 (armed) and the guest sees a jump of more than 2 us between two readings (it was
//! stopped), word 1 = the first reading after the jump and word 2 = 0. So the monitor learns,
//! in the guest's own clock (the host's TSC), when the guest last ran before a stop and when it
//! ran again.
#![no_std]
#![no_main]

use core::sync::atomic::{AtomicU64, Ordering};
use partita_kvm_guest as rt;

static MARKS: [AtomicU64; 3] = [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)];

fn main(_memory_end: u64, _free_start: u64) -> u64 {
    let page = rt::time_page();
    // Ticks in 2 us: 2000 ns over the tick length (32.32 fixed point).
    let gap = (2000u64 << 32) / page.ns_per_tick_q32.max(1);
    if rt::echo(MARKS.as_ptr() as u64).is_err() {
        return 1;
    }
    let mut prev = rt::rdtsc();
    loop {
        let t = rt::rdtsc();
        if t.wrapping_sub(prev) > gap && MARKS[2].load(Ordering::Relaxed) != 0 {
            MARKS[1].store(t, Ordering::Relaxed);
            MARKS[2].store(0, Ordering::Relaxed);
        }
        MARKS[0].store(t, Ordering::Relaxed);
        prev = t;
    }
}

rt::entry!(main);
