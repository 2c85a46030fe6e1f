// SPDX-License-Identifier: MIT OR Apache-2.0
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

/// `struct futex_waitv` of the kernel (Linux ≥ 5.16).
#[repr(C)]
struct FutexWaitv {
    val: u64,
    uaddr: u64,
    flags: u32,
    reserved: u32,
}

/// Most words [`wait_any`] accepts (the kernel's limit).
pub const WAIT_ANY_MAX: usize = 128;

/// Waits until one of `words` (word, expected value, shared between processes) is woken or
/// differs from its expected value, or until the absolute `CLOCK_MONOTONIC` instant
/// `deadline_ns`. Spurious returns are possible: callers re-check. More than
/// [`WAIT_ANY_MAX`] words: only the first ones are watched. Returns the index of the word
/// whose wake-up ended the wait (`None`: time-out, a value that differed, an interruption), or
/// the system call's error (e.g. `ENOSYS` before Linux 5.16).
pub fn wait_any(
    words: &[(&AtomicU32, u32, bool)],
    deadline_ns: Option<u64>,
) -> crate::Result<Option<usize>> {
    let v: Vec<FutexWaitv> = words.iter().take(WAIT_ANY_MAX).map(waitv_entry).collect();
    waitv(&v, deadline_ns)
}

/// [`wait_any`] on two words, without allocating (for a real-time thread's sleep).
pub fn wait_either(
    a: (&AtomicU32, u32, bool),
    b: (&AtomicU32, u32, bool),
    deadline_ns: Option<u64>,
) -> crate::Result<()> {
    waitv(&[waitv_entry(&a), waitv_entry(&b)], deadline_ns).map(|_| ())
}

fn waitv_entry((w, val, shared): &(&AtomicU32, u32, bool)) -> FutexWaitv {
    const FUTEX2_SIZE_U32: u32 = 0x02;
    const FUTEX2_PRIVATE: u32 = 128;
    FutexWaitv {
        val: u64::from(*val),
        uaddr: w.as_ptr() as u64,
        flags: FUTEX2_SIZE_U32 | if *shared { 0 } else { FUTEX2_PRIVATE },
        reserved: 0,
    }
}

/// `futex_waitv` on the entries `v` (at most [`WAIT_ANY_MAX`]) until `deadline_ns`.
fn waitv(v: &[FutexWaitv], deadline_ns: Option<u64>) -> crate::Result<Option<usize>> {
    let ts = deadline_ns.map(crate::time::timespec);
    let ts_ptr = ts
        .as_ref()
        .map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `v` holds `v.len()` initialised futex_waitv entries whose addresses are live
    // 4-byte aligned u32 words for the duration of the call (borrowed by the callers from
    // their `words`); `ts_ptr` is null or an absolute CLOCK_MONOTONIC timespec that outlives
    // the call.
    let r = unsafe {
        libc::syscall(
            libc::SYS_futex_waitv,
            v.as_ptr(),
            v.len() as libc::c_uint,
            0u32,
            ts_ptr,
            libc::CLOCK_MONOTONIC,
        )
    };
    if r < 0 {
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::ETIMEDOUT) | Some(libc::EAGAIN) | Some(libc::EINTR) => Ok(None),
            _ => Err(crate::SysError::io("futex_waitv", e)),
        }
    } else {
        Ok(Some(r as usize))
    }
}
