// SPDX-License-Identifier: MIT OR Apache-2.0
//! GUEST CODE (test guest): writes a line and a 5000-byte pattern (more than one write call),
//! reports the time it read before its first exit, checks its clock moves forward, exits 0.
#![no_std]
#![no_main]

use partita_kvm_guest as rt;

/// Byte `i` of the pattern: every byte value, in an order a lost or repeated chunk breaks.
fn pattern_byte(i: usize) -> u8 {
    (i * 7 % 256) as u8
}

fn main(memory_end: u64, free_start: u64) -> u64 {
    let t0 = rt::now_ns();
    rt::println!("hello from the guest: memory {memory_end:#x}, free from {free_start:#x}");
    let mut pattern = [0u8; 5000];
    for (i, b) in pattern.iter_mut().enumerate() {
        *b = pattern_byte(i);
    }
    if rt::write(&pattern).is_err() {
        return 2;
    }
    if rt::echo(t0) != Ok(t0) {
        return 3;
    }
    let t1 = rt::now_ns();
    if t1 < t0 {
        return 4;
    }
    if rt::echo(t1) != Ok(t1) {
        return 5;
    }
    0
}

rt::entry!(main);
