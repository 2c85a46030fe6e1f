// SPDX-License-Identifier: MIT OR Apache-2.0
//! GUEST CODE (test guest): port output from user mode, which the TSS forbids (no I/O
//! permission bitmap, IOPL 0): a general-protection fault.
#![no_std]
#![no_main]

use partita_kvm_guest as rt;

fn main(_memory_end: u64, _free_start: u64) -> u64 {
    // SAFETY: `out` from user mode faults before it reaches any port.
    unsafe { core::arch::asm!("out 0x80, al", in("al") 0u8, options(nomem, nostack)) };
    1
}

rt::entry!(main);
