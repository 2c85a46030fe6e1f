// SPDX-License-Identifier: MIT OR Apache-2.0
//! GUEST CODE (test guest): stores 1 MiB past the end of its memory (a page fault there).
#![no_std]
#![no_main]

use partita_kvm_guest as rt;

fn main(memory_end: u64, _free_start: u64) -> u64 {
    // SAFETY: deliberately invalid, to fault: the address is mapped nowhere in the guest, so
    // the store writes nothing.
    unsafe { core::ptr::write_volatile((memory_end + 0x10_0000) as *mut u64, 1) };
    1
}

rt::entry!(main);
