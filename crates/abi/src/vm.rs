// SPDX-License-Identifier: MIT OR Apache-2.0
//! What a partition's KVM virtual machine and the monitor that runs it share: the guest memory
//! map, the registers at entry, the hypercall ABI and the time page.
//!
//! The monitor is `partita-kvm` (host side); the code inside the guest is built on the guest
//! runtime `partita-kvm-guest`. Both read these definitions, and nothing else crosses the
//! boundary. `docs/kvm.md` explains the design.
//!
//! # Memory map
//!
//! Guest virtual addresses equal guest physical addresses (identity paging). Guest RAM starts at
//! physical address 0 and ends at the partition's memory size (a multiple of
//! [`MEMORY_ALIGN`], at most [`MAX_MEMORY`]).
//!
//! | range | what | guest access |
//! |---|---|---|
//! | `0 .. 0x1000` | null guard | none (page fault) |
//! | `0x1000 .. 0x5000` | GDT and TSS, IDT, fault stubs, fault stack (built by the monitor) | kernel only |
//! | [`TIME_PAGE`] | the [`TimePage`] | read only |
//! | `0x6000 .. IMAGE_BASE` | the monitor's page tables, reserved | none |
//! | [`IMAGE_BASE`] `..` memory size | the image (ELF `PT_LOAD` segments), then free memory, then the stack | read, write, execute |
//! | [`HYPERCALL_DOORBELL`] (one page, not RAM) | hypercall doorbell | write (8-byte store) |
//! | [`FAULT_DOORBELL`] (one page, not RAM) | the fault stubs' doorbell | kernel only |
//!
//! # Entry
//!
//! The virtual CPU starts in 64-bit mode at privilege level 3 (user mode) at the ELF entry
//! point, with `rsp` = memory size − 8 (as just after a `call`: the stack grows down from the
//! end of RAM), `rdi` = memory size and `rsi` = the first page-aligned address after the
//! image (where free memory starts). Every other general register is 0; interrupts are off.
//!
//! # Hypercalls
//!
//! The guest fills a [`HypercallBlock`] in its own memory (8-byte aligned), then stores the
//! block's address with one 8-byte `mov` to [`HYPERCALL_DOORBELL`]. The doorbell is outside
//! RAM, so the store leaves the guest (an MMIO exit) without any guest kernel code. The
//! monitor checks the block, carries the call out, writes [`HypercallBlock::status`] and
//! [`HypercallBlock::ret`] back, and resumes the guest after the store.

use crate::wire::{Reader, Writer};
use crate::{abi_enum, DecodeError, EncodeError};

/// Size of a guest page.
pub const PAGE_SIZE: u64 = 0x1000;
/// The page the monitor publishes the [`TimePage`] in.
pub const TIME_PAGE: u64 = 0x5000;
/// Lowest address of the guest image; user memory runs from here to the end of RAM.
pub const IMAGE_BASE: u64 = 0x20_0000;
/// Guest memory sizes are multiples of this (the user region is mapped with 2 MiB pages).
pub const MEMORY_ALIGN: u64 = 0x20_0000;
/// Smallest guest memory: the system area below [`IMAGE_BASE`] and one 2 MiB user page.
pub const MIN_MEMORY: u64 = IMAGE_BASE + MEMORY_ALIGN;
/// Largest guest memory: RAM ends where the doorbells start.
pub const MAX_MEMORY: u64 = HYPERCALL_DOORBELL;
/// Guest address whose 8-byte store is a hypercall (the stored value: the block's address).
pub const HYPERCALL_DOORBELL: u64 = 0x4000_0000;
/// Guest address the monitor's fault stubs store the exception vector to (kernel only, so
/// user code cannot forge a fault report).
pub const FAULT_DOORBELL: u64 = 0x4000_1000;

/// Room the image leaves at the end of guest memory for the stack; the guest runtime's heap
/// ends there.
pub const MIN_STACK: u64 = 64 * 1024;

// The memory map's own consistency, checked when the crate compiles.
const _: () = {
    assert!(IMAGE_BASE.is_multiple_of(MEMORY_ALIGN));
    assert!(MAX_MEMORY.is_multiple_of(MEMORY_ALIGN));
    assert!(TIME_PAGE < IMAGE_BASE);
    assert!(FAULT_DOORBELL >= MAX_MEMORY);
    // The fault stubs address the doorbell with a sign-extended 32-bit displacement.
    assert!(FAULT_DOORBELL < 0x8000_0000);
};

/// Exit code the guest runtime reports after a panic (its message went out first as a
/// [`HypercallNumber::Write`]).
pub const EXIT_PANIC: u64 = 101;

/// Largest [`HypercallNumber::Write`] in one call, in bytes.
pub const MAX_WRITE: u64 = 4096;

abi_enum! {
    /// What a hypercall asks for ([`HypercallBlock::number`]).
    "HYPERCALL_NUMBER" HypercallNumber short "HYPERCALL_" {
        /// The guest is done: `args[0]` is its exit code. The monitor does not resume it.
        Exit = 1 => "HYPERCALL_EXIT",
        /// Output: `args[0]` is the address of the bytes, `args[1]` their number (at most
        /// [`MAX_WRITE`]).
        Write = 2 => "HYPERCALL_WRITE",
        /// A round trip: the monitor returns `args[0]` in [`HypercallBlock::ret`]. For
        /// measurements and for checking the path.
        Echo = 3 => "HYPERCALL_ECHO",
    }
}

abi_enum! {
    /// How the monitor answered a hypercall ([`HypercallBlock::status`]).
    "HYPERCALL_STATUS" HypercallStatus short "HYPERCALL_" {
        /// Set by the guest before the doorbell store; still there means not answered.
        Pending = 0 => "HYPERCALL_PENDING",
        /// Carried out; [`HypercallBlock::ret`] holds the result.
        Done = 1 => "HYPERCALL_DONE",
        /// Refused: the number or an argument is invalid (the monitor also reports it).
        Refused = 2 => "HYPERCALL_REFUSED",
    }
}

/// The request block of one hypercall, in guest memory. `repr(C)`: the guest runtime uses
/// this type in place; the monitor reads and writes its bytes ([`HypercallBlock::decode`],
/// [`HypercallBlock::STATUS_OFFSET`], [`HypercallBlock::RET_OFFSET`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(C, align(8))]
pub struct HypercallBlock {
    /// A [`HypercallNumber`], raw (the monitor validates it).
    pub number: u32,
    /// A [`HypercallStatus`], raw: the guest sets `Pending`, the monitor the answer.
    pub status: u32,
    /// The arguments; their meaning depends on the number.
    pub args: [u64; 4],
    /// The result, written by the monitor.
    pub ret: u64,
}

impl HypercallBlock {
    /// Bytes of the block.
    pub const SIZE: usize = 48;
    /// Alignment the guest must give the block.
    pub const ALIGN: u64 = 8;
    /// Offset of [`HypercallBlock::status`].
    pub const STATUS_OFFSET: u64 = 4;
    /// Offset of [`HypercallBlock::ret`].
    pub const RET_OFFSET: u64 = 40;

    /// A pending request.
    pub const fn new(number: HypercallNumber, args: [u64; 4]) -> Self {
        HypercallBlock {
            number: number as u32,
            status: HypercallStatus::Pending as u32,
            args,
            ret: 0,
        }
    }

    /// The block from its bytes (little-endian, the layout of the `repr(C)` type). The number
    /// and status stay raw: the monitor decides what an unknown one means.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let number = r.u32()?;
        let status = r.u32()?;
        let mut args = [0u64; 4];
        for a in &mut args {
            *a = r.u64()?;
        }
        let ret = r.u64()?;
        Ok(HypercallBlock {
            number,
            status,
            args,
            ret,
        })
    }

    /// The block's bytes into `out` (at least [`HypercallBlock::SIZE`]).
    pub fn encode(&self, out: &mut [u8]) -> Result<usize, EncodeError> {
        let mut w = Writer::new(out, Self::SIZE)?;
        w.u32(self.number);
        w.u32(self.status);
        for a in self.args {
            w.u64(a);
        }
        w.u64(self.ret);
        Ok(w.len())
    }
}

/// Guest time, published by the monitor at [`TIME_PAGE`] so that the guest reads the time with
/// `rdtsc` and no exit: `ns = ns_base + ((tsc − tsc_base) · ns_per_tick_q32) >> 32`
/// ([`TimePage::ns_at`]).
///
/// `ns` is the host's monotonic clock, in nanoseconds, less the time base the monitor chose
/// (its [`TimePage::ns_base`] is that clock at [`TimePage::tsc_base`]). The monitor changes
/// the page only while the guest is stopped, and makes `sequence` odd during a change
/// (sequence lock): a reader that sees an odd value, or a different value after reading the
/// fields, reads again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(C)]
pub struct TimePage {
    /// Even when the fields are consistent.
    pub sequence: u32,
    /// [`TimePage::VERSION`].
    pub version: u32,
    /// A guest TSC reading.
    pub tsc_base: u64,
    /// The time at `tsc_base`, in nanoseconds.
    pub ns_base: u64,
    /// Nanoseconds per TSC tick, fixed point with 32 fraction bits.
    pub ns_per_tick_q32: u64,
}

impl TimePage {
    /// Bytes of the page's fields.
    pub const SIZE: usize = 32;
    /// The layout version this build speaks.
    pub const VERSION: u32 = 1;

    /// The page for a TSC of `tsc_khz` kHz that read `tsc_base` at time `ns_base`.
    pub fn from_tsc_khz(tsc_khz: u32, tsc_base: u64, ns_base: u64) -> Result<Self, EncodeError> {
        if tsc_khz == 0 {
            return Err(EncodeError::Value("TSC frequency 0"));
        }
        Ok(TimePage {
            sequence: 0,
            version: Self::VERSION,
            tsc_base,
            ns_base,
            ns_per_tick_q32: (1_000_000u64 << 32) / u64::from(tsc_khz),
        })
    }

    /// The time at TSC reading `tsc`, in nanoseconds (a reading before `tsc_base` gives
    /// `ns_base`).
    pub fn ns_at(&self, tsc: u64) -> u64 {
        let ticks = u128::from(tsc.saturating_sub(self.tsc_base));
        let ns = (ticks * u128::from(self.ns_per_tick_q32)) >> 32;
        self.ns_base
            .saturating_add(u64::try_from(ns).unwrap_or(u64::MAX))
    }

    /// The page from its bytes; refuses another layout version.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let sequence = r.u32()?;
        let version = r.u32()?;
        if version != Self::VERSION {
            return Err(DecodeError::Version {
                found: u16::try_from(version).unwrap_or(u16::MAX),
                expected: Self::VERSION as u16,
            });
        }
        Ok(TimePage {
            sequence,
            version,
            tsc_base: r.u64()?,
            ns_base: r.u64()?,
            ns_per_tick_q32: r.u64()?,
        })
    }

    /// The page's bytes into `out` (at least [`TimePage::SIZE`]).
    pub fn encode(&self, out: &mut [u8]) -> Result<usize, EncodeError> {
        let mut w = Writer::new(out, Self::SIZE)?;
        w.u32(self.sequence);
        w.u32(self.version);
        w.u64(self.tsc_base);
        w.u64(self.ns_base);
        w.u64(self.ns_per_tick_q32);
        Ok(w.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::mem::{align_of, offset_of, size_of};

    #[test]
    fn the_block_layout_is_the_one_the_offsets_name() {
        assert_eq!(size_of::<HypercallBlock>(), HypercallBlock::SIZE);
        assert_eq!(align_of::<HypercallBlock>() as u64, HypercallBlock::ALIGN);
        assert_eq!(
            offset_of!(HypercallBlock, status) as u64,
            HypercallBlock::STATUS_OFFSET
        );
        assert_eq!(
            offset_of!(HypercallBlock, ret) as u64,
            HypercallBlock::RET_OFFSET
        );
        assert_eq!(size_of::<TimePage>(), TimePage::SIZE);
    }

    #[test]
    fn a_block_round_trips_and_a_short_one_is_refused() {
        let b = HypercallBlock {
            number: 2,
            status: 1,
            args: [1, u64::MAX, 3, 4],
            ret: 7,
        };
        let mut bytes = [0u8; HypercallBlock::SIZE];
        assert_eq!(b.encode(&mut bytes), Ok(HypercallBlock::SIZE));
        assert_eq!(HypercallBlock::decode(&bytes), Ok(b));
        assert_eq!(
            bytes[HypercallBlock::RET_OFFSET as usize],
            7,
            "ret at its offset"
        );
        assert!(matches!(
            HypercallBlock::decode(&bytes[..47]),
            Err(DecodeError::Truncated { .. })
        ));
        assert!(b.encode(&mut [0u8; 40]).is_err());
    }

    #[test]
    fn numbers_and_statuses_convert_and_unknown_ones_are_refused() {
        for n in [
            HypercallNumber::Exit,
            HypercallNumber::Write,
            HypercallNumber::Echo,
        ] {
            assert_eq!(HypercallNumber::try_from(n as u32), Ok(n));
        }
        assert!(HypercallNumber::try_from(0).is_err());
        assert!(HypercallNumber::try_from(99).is_err());
        assert_eq!(HypercallStatus::try_from(2), Ok(HypercallStatus::Refused));
        assert!(HypercallStatus::try_from(3).is_err());
    }

    #[test]
    fn the_time_page_converts_ticks_to_nanoseconds() {
        // 2.5 GHz: 2.5 ticks per ns.
        let p = TimePage::from_tsc_khz(2_500_000, 1_000, 5_000_000_000).expect("page");
        assert_eq!(p.ns_at(1_000), 5_000_000_000);
        assert_eq!(p.ns_at(1_000 + 2_500_000_000), 6_000_000_000 - 1);
        assert_eq!(p.ns_at(0), 5_000_000_000, "before the base");
        let mut bytes = [0u8; TimePage::SIZE];
        p.encode(&mut bytes).expect("encode");
        assert_eq!(TimePage::decode(&bytes), Ok(p));
        bytes[4] = 9;
        assert!(matches!(
            TimePage::decode(&bytes),
            Err(DecodeError::Version { found: 9, .. })
        ));
        assert!(TimePage::from_tsc_khz(0, 0, 0).is_err());
    }
}
