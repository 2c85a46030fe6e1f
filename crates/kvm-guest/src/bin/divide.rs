// SPDX-License-Identifier: MIT OR Apache-2.0
//! GUEST CODE (test guest): an integer division by zero (`div` with a zero divisor).
#![no_std]
#![no_main]

use partita_kvm_guest as rt;

fn main(_memory_end: u64, _free_start: u64) -> u64 {
    // SAFETY: `div` by a zero register raises #DE; it touches only the named registers.
    unsafe {
        core::arch::asm!(
            "xor edx, edx",
            "xor ecx, ecx",
            "mov eax, 1",
            "div ecx",
            out("eax") _, out("ecx") _, out("edx") _,
            options(nomem, nostack),
        )
    };
    1
}

rt::entry!(main);
