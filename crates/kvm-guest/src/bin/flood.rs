// SPDX-License-Identifier: MIT OR Apache-2.0
//! GUEST CODE (test guest): hypercalls as fast as it can, forever (echoes of 0, 1, 2, ...),
//! checking every answer; exits 1 on a wrong one.
#![no_std]
#![no_main]

use partita_kvm_guest as rt;

fn main(_memory_end: u64, _free_start: u64) -> u64 {
    let mut i = 0u64;
    loop {
        if rt::echo(i) != Ok(i) {
            return 1;
        }
        i += 1;
    }
}

rt::entry!(main);
