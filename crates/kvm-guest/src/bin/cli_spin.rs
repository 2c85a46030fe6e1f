// SPDX-License-Identifier: MIT OR Apache-2.0
//! GUEST CODE (test guest): tries to disable interrupts and spin. In user mode with IOPL 0,
//! `cli` is a general-protection fault: a guest cannot mask anything, and the host's kick
//! does not depend on guest interrupts anyway.
#![no_std]
#![no_main]

use partita_kvm_guest as rt;

fn main(_memory_end: u64, _free_start: u64) -> u64 {
    // SAFETY: `cli` in user mode faults before it changes anything.
    unsafe { core::arch::asm!("cli", options(nomem, nostack)) };
    loop {
        core::hint::spin_loop();
    }
}

rt::entry!(main);
