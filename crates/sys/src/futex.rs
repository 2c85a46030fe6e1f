//! Futex wait and wake on an `AtomicU32`, private or shared between processes.

use std::sync::atomic::AtomicU32;

/// Waits while `*word == expected`, until woken, or until the absolute `CLOCK_MONOTONIC`
/// instant `deadline_ns` if given. Returns `false` when the deadline passed. Spurious wake-ups
/// are possible: callers re-check their condition.
pub fn wait(word: &AtomicU32, expected: u32, deadline_ns: Option<u64>, shared: bool) -> bool {
    let ts = deadline_ns.map(crate::time::timespec);
    let ts_ptr = ts
        .as_ref()
        .map_or(std::ptr::null(), |t| t as *const libc::timespec);
    let op = libc::FUTEX_WAIT_BITSET | if shared { 0 } else { libc::FUTEX_PRIVATE_FLAG };
    // SAFETY: `word` is a live, 4-byte aligned u32 for the duration of the call; `ts_ptr` is
    // null or points at a timespec that outlives the call; FUTEX_WAIT_BITSET takes an absolute
    // CLOCK_MONOTONIC time-out and a bitset of all ones.
    let r = unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            op,
            expected,
            ts_ptr,
            std::ptr::null::<u32>(),
            libc::FUTEX_BITSET_MATCH_ANY,
        )
    };
    !(r == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ETIMEDOUT))
}

/// Wakes up to `n` waiters on `word`; returns how many were woken.
pub fn wake(word: &AtomicU32, n: u32, shared: bool) -> usize {
    let op = libc::FUTEX_WAKE | if shared { 0 } else { libc::FUTEX_PRIVATE_FLAG };
    // SAFETY: `word` is a live u32; FUTEX_WAKE only reads the address as a key.
    let r = unsafe { libc::syscall(libc::SYS_futex, word.as_ptr(), op, n.min(i32::MAX as u32)) };
    r.max(0) as usize
}
