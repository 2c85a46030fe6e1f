// SPDX-License-Identifier: MIT OR Apache-2.0
//! GUEST CODE (test guest): executes `ud2` (invalid opcode).
#![no_std]
#![no_main]

use partita_kvm_guest as rt;

fn main(_memory_end: u64, _free_start: u64) -> u64 {
    // SAFETY: deliberately invalid, to fault: `ud2` raises #UD and touches nothing.
    unsafe { core::arch::asm!("ud2", options(nomem, nostack)) };
    1
}

rt::entry!(main);
