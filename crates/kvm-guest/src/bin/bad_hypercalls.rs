// SPDX-License-Identifier: MIT OR Apache-2.0
//! GUEST CODE (test guest): five hypercalls the monitor must refuse, in this order, each
//! checked where the guest can see the refusal; exits 0 when every one was refused as
//! expected, else the number of the first that was not.
//!
//! 1. a write of a buffer outside guest memory;
//! 2. an unknown hypercall number (99);
//! 3. a request block outside guest memory (nothing to answer in: the status stays pending);
//! 4. a misaligned request block;
//! 5. a write longer than `MAX_WRITE`.
#![no_std]
#![no_main]

use partita_abi::vm::{
    HypercallBlock, HypercallNumber, HypercallStatus, HYPERCALL_DOORBELL, MAX_WRITE,
};
use partita_kvm_guest as rt;

const REFUSED: Result<u64, rt::Refused> = Err(rt::Refused {
    status: HypercallStatus::Refused as u32,
});

/// Rings the doorbell with an arbitrary value, as a hostile guest would.
fn ring(value: u64) {
    // SAFETY: the doorbell store of `rt::hypercall`, with a value that is not a valid block;
    // the monitor reads nothing through it and writes no guest memory.
    unsafe {
        core::arch::asm!(
            "mov qword ptr [{door}], {value}",
            door = in(reg) HYPERCALL_DOORBELL,
            value = in(reg) value,
            options(nostack, preserves_flags),
        )
    };
}

fn main(memory_end: u64, free_start: u64) -> u64 {
    let outside = memory_end + 0x1000;
    let mut write_outside = HypercallBlock::new(HypercallNumber::Write, [outside, 16, 0, 0]);
    if rt::hypercall(&mut write_outside) != REFUSED {
        return 1;
    }
    let mut unknown = HypercallBlock {
        number: 99,
        ..HypercallBlock::new(HypercallNumber::Echo, [0; 4])
    };
    if rt::hypercall(&mut unknown) != REFUSED {
        return 2;
    }
    ring(outside);
    ring(free_start + 4);
    let mut too_long =
        HypercallBlock::new(HypercallNumber::Write, [free_start, MAX_WRITE + 1, 0, 0]);
    if rt::hypercall(&mut too_long) != REFUSED {
        return 5;
    }
    0
}

rt::entry!(main);
