// SPDX-License-Identifier: MIT OR Apache-2.0
//! **GUEST CODE.** The runtime of a program inside a Partita KVM guest: it runs in the guest's
//! user mode (ring 3), never on the host, and is built freestanding (`no_std`, no C runtime,
//! `panic = "abort"`, static at `partita_abi::vm::IMAGE_BASE`).
//!
//! What it gives a guest program:
//! - [`hypercall`] and its wrappers [`write`], [`echo`], [`exit`]: a request block in the
//!   guest's memory and one 8-byte store of its address to the doorbell
//!   (`partita_abi::vm::HYPERCALL_DOORBELL`), which leaves the guest as an MMIO exit;
//! - [`now_ns`]: the time, from `rdtsc` and the time page the monitor publishes, no exit;
//! - [`print!`]/[`println!`] through [`write`], and a panic handler that writes the message
//!   and exits with `partita_abi::vm::EXIT_PANIC`;
//! - a heap for `alloc` (`linked_list_allocator`) over the free memory between the image and
//!   the stack, set up by [`entry!`] before `main`;
//! - `memcpy`, `memmove`, `memset`, `memcmp` and `bcmp`, which compiled Rust code calls and no
//!   C library provides here.
//!
//! # Why this crate has `unsafe` code
//!
//! Partita keeps `unsafe` in `partita-sys` and the C binding; this crate is the third place,
//! because it is the only code that runs inside the guest, where neither exists. Its
//! `unsafe` is, and must stay, limited to:
//! - the doorbell store, an inline `mov` to an address outside guest RAM (no Rust reference can
//!   name it);
//! - reading the time page, a page the monitor writes, at a fixed address
//!   (`partita_abi::vm::TIME_PAGE`), with volatile loads;
//! - the memory functions (raw pointers by their C contract, `rep movsb`/`rep stosb`);
//! - handing the free memory to the heap (once, at entry);
//! - the instructions the test guests execute on purpose to fault (`ud2`, a division by zero,
//!   a wild store, port I/O).
//!
//! Each block has a `SAFETY` comment. The crate is outside the root workspace (its own
//! workspace, excluded there), so the workspace's `unsafe_code = "forbid"` is not weakened.
#![no_std]

use core::arch::asm;
use core::fmt;
use linked_list_allocator::LockedHeap;
use partita_abi::vm::{
    HypercallBlock, HypercallNumber, HypercallStatus, TimePage, EXIT_PANIC, HYPERCALL_DOORBELL,
    MAX_WRITE, MIN_STACK, TIME_PAGE,
};

#[global_allocator]
static HEAP: LockedHeap = LockedHeap::empty();

/// Gives the heap the free memory: from `free_start` (the first page after the image) to the
/// stack room at the end of RAM (`partita_abi::vm::MIN_STACK`). [`entry!`] calls it once,
/// before `main`, with the values the monitor passed.
pub fn init_heap(memory_end: u64, free_start: u64) {
    let end = memory_end.saturating_sub(MIN_STACK);
    if end > free_start {
        // SAFETY: `free_start..memory_end - MIN_STACK` is guest RAM that nothing else uses:
        // the image ends before it, the stack (from `memory_end` down) stays in the room after
        // it, and the monitor maps it user-writable. Called once, before any allocation.
        unsafe {
            HEAP.lock()
                .init(free_start as *mut u8, (end - free_start) as usize)
        };
    }
}

/// A hypercall the monitor did not carry out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused {
    /// The raw status the monitor left in the block (`Pending`: not answered at all).
    pub status: u32,
}

/// Makes the hypercall in `block` and returns its result. The block must stay where it is
/// until the call returns (it does: the borrow holds it).
pub fn hypercall(block: &mut HypercallBlock) -> Result<u64, Refused> {
    block.status = HypercallStatus::Pending as u32;
    let addr = block as *mut HypercallBlock as u64;
    // SAFETY: an 8-byte store of the block's address to the doorbell page, which the monitor
    // maps user-writable outside guest RAM: the store leaves the guest (MMIO exit) and writes
    // no guest memory. The asm is not `nomem`, so the compiler assumes it may read and write
    // memory (the monitor writes the block's status and result) and reloads them below.
    unsafe {
        asm!(
            "mov qword ptr [{door}], {addr}",
            door = in(reg) HYPERCALL_DOORBELL,
            addr = in(reg) addr,
            options(nostack, preserves_flags),
        );
    }
    // SAFETY: `block` is a valid, aligned reference; volatile because the monitor wrote it.
    let status = unsafe { core::ptr::read_volatile(&block.status) };
    // SAFETY: as above.
    let ret = unsafe { core::ptr::read_volatile(&block.ret) };
    if status == HypercallStatus::Done as u32 {
        Ok(ret)
    } else {
        Err(Refused { status })
    }
}

/// Writes `bytes` to the partition's output (in calls of at most `MAX_WRITE` bytes).
pub fn write(bytes: &[u8]) -> Result<(), Refused> {
    for chunk in bytes.chunks(MAX_WRITE as usize) {
        let mut b = HypercallBlock::new(
            HypercallNumber::Write,
            [chunk.as_ptr() as u64, chunk.len() as u64, 0, 0],
        );
        hypercall(&mut b)?;
    }
    Ok(())
}

/// A round trip to the monitor: returns `value` from it.
pub fn echo(value: u64) -> Result<u64, Refused> {
    hypercall(&mut HypercallBlock::new(
        HypercallNumber::Echo,
        [value, 0, 0, 0],
    ))
}

/// Ends the guest with `code`. The monitor does not resume it; should it, the guest waits.
pub fn exit(code: u64) -> ! {
    let _ = hypercall(&mut HypercallBlock::new(
        HypercallNumber::Exit,
        [code, 0, 0, 0],
    ));
    loop {
        core::hint::spin_loop();
    }
}

/// The time-stamp counter.
pub fn rdtsc() -> u64 {
    // SAFETY: `rdtsc` reads the counter only; the monitor leaves CR4.TSD clear, so it is
    // allowed in user mode.
    unsafe { core::arch::x86_64::_rdtsc() }
}

fn time_page_word(offset: usize) -> u64 {
    // SAFETY: the time page is mapped user-readable at TIME_PAGE for the guest's whole life
    // and the offset is inside it (TimePage::SIZE bytes); the monitor writes it, hence the
    // volatile load.
    unsafe { core::ptr::read_volatile((TIME_PAGE as usize + offset) as *const u64) }
}

/// The time page as the monitor last published it (a consistent copy: sequence lock).
pub fn time_page() -> TimePage {
    loop {
        let head = time_page_word(0);
        let page = TimePage {
            sequence: head as u32,
            version: (head >> 32) as u32,
            tsc_base: time_page_word(8),
            ns_base: time_page_word(16),
            ns_per_tick_q32: time_page_word(24),
        };
        if page.sequence.is_multiple_of(2) && time_page_word(0) == head {
            return page;
        }
        core::hint::spin_loop();
    }
}

/// The guest's time in nanoseconds: the host's monotonic clock less the monitor's time base.
pub fn now_ns() -> u64 {
    time_page().ns_at(rdtsc())
}

/// Output for `core::fmt`: formats into a buffer, written in [`write`] calls.
pub struct Output {
    buf: [u8; 256],
    len: usize,
}

impl Output {
    /// An empty buffer.
    pub const fn new() -> Self {
        Output {
            buf: [0; 256],
            len: 0,
        }
    }

    /// Writes what is buffered.
    pub fn flush(&mut self) {
        let _ = write(&self.buf[..self.len]);
        self.len = 0;
    }
}

impl Default for Output {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Write for Output {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for &b in s.as_bytes() {
            if self.len == self.buf.len() {
                self.flush();
            }
            self.buf[self.len] = b;
            self.len += 1;
        }
        Ok(())
    }
}

/// Formats and writes (what [`print!`] calls).
pub fn print(args: fmt::Arguments<'_>) {
    let mut out = Output::new();
    let _ = fmt::Write::write_fmt(&mut out, args);
    out.flush();
}

/// Writes formatted text to the partition's output.
#[macro_export]
macro_rules! print {
    ($($arg:tt)*) => { $crate::print(format_args!($($arg)*)) };
}

/// Writes formatted text and a newline to the partition's output.
#[macro_export]
macro_rules! println {
    ($($arg:tt)*) => { $crate::print(format_args!("{}\n", format_args!($($arg)*))) };
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    print(format_args!("guest panic: {info}\n"));
    exit(EXIT_PANIC)
}

/// The unwinding personality routine the precompiled `core` refers to. The guest is built
/// with `panic = "abort"`, so nothing unwinds and nothing calls it; should anything, the guest
/// ends as after a panic.
#[no_mangle]
pub extern "C" fn rust_eh_personality() -> ! {
    exit(EXIT_PANIC)
}

/// `memcpy`: copies `n` bytes (`rep movsb`).
///
/// # Safety
/// The C contract: `src` readable and `dst` writable for `n` bytes, not overlapping.
#[no_mangle]
pub unsafe extern "C" fn memcpy(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: the caller's contract; `rep movsb` copies forward with the direction flag
    // clear (the SysV ABI guarantees it clear at calls).
    unsafe {
        asm!("rep movsb", inout("rcx") n => _, inout("rdi") dst => _, inout("rsi") src => _,
            options(nostack, preserves_flags));
    }
    dst
}

/// `memmove`: copies `n` bytes, the ranges may overlap.
///
/// # Safety
/// The C contract: `src` readable and `dst` writable for `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn memmove(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    if (dst as usize).wrapping_sub(src as usize) >= n {
        // dst before src, or no overlap: forward is safe.
        // SAFETY: the caller's contract.
        unsafe { memcpy(dst, src, n) }
    } else {
        // SAFETY: the caller's contract; backward from the last byte with the direction flag
        // set, cleared again before returning (the ABI requires it clear).
        unsafe {
            asm!("std", "rep movsb", "cld",
                inout("rcx") n => _, inout("rdi") dst.add(n - 1) => _,
                inout("rsi") src.add(n - 1) => _, options(nostack));
        }
        dst
    }
}

/// `memset`: fills `n` bytes with `c` (`rep stosb`).
///
/// # Safety
/// The C contract: `dst` writable for `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn memset(dst: *mut u8, c: i32, n: usize) -> *mut u8 {
    // SAFETY: the caller's contract.
    unsafe {
        asm!("rep stosb", inout("rcx") n => _, inout("rdi") dst => _, in("al") c as u8,
            options(nostack, preserves_flags));
    }
    dst
}

/// `memcmp`: compares `n` bytes.
///
/// # Safety
/// The C contract: both readable for `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    let mut i = 0;
    while i < n {
        // SAFETY: i < n, inside both ranges by the caller's contract.
        let (x, y) = unsafe { (a.add(i).read_volatile(), b.add(i).read_volatile()) };
        if x != y {
            return i32::from(x) - i32::from(y);
        }
        i += 1;
    }
    0
}

/// `bcmp`: whether `n` bytes differ (0: equal).
///
/// # Safety
/// The C contract: both readable for `n` bytes.
#[no_mangle]
pub unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: the same contract.
    unsafe { memcmp(a, b, n) }
}

/// Declares the guest's entry point: `_start` calls `main(memory_end, free_start)` in user
/// mode on the stack the monitor set (see `partita_abi::vm`), and exits with its result.
#[macro_export]
macro_rules! entry {
    ($main:path) => {
        /// The entry point the monitor starts the guest at.
        #[no_mangle]
        #[link_section = ".text._start"]
        pub extern "C" fn _start(memory_end: u64, free_start: u64) -> ! {
            $crate::init_heap(memory_end, free_start);
            let main: fn(u64, u64) -> u64 = $main;
            $crate::exit(main(memory_end, free_start))
        }
    };
}
