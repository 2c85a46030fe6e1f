// SPDX-License-Identifier: MIT OR Apache-2.0
//! GUEST CODE (test guest): reports the address of its counter, then counts forever without
//! leaving the guest. Only a kick stops it.
#![no_std]
#![no_main]

use core::sync::atomic::{AtomicU64, Ordering};
use partita_kvm_guest as rt;

static COUNTER: AtomicU64 = AtomicU64::new(0);

fn main(_memory_end: u64, _free_start: u64) -> u64 {
    if rt::echo(&COUNTER as *const AtomicU64 as u64).is_err() {
        return 1;
    }
    loop {
        COUNTER.fetch_add(1, Ordering::Relaxed);
    }
}

rt::entry!(main);
