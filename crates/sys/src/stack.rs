// SPDX-License-Identifier: MIT OR Apache-2.0
//! Giving back the memory of a thread that will never run application code again (an
//! abandoned APEX thread, see the partition runtime): the pages of its stack below its stack
//! pointer, and its alternate signal stack ([`crate::fault::release_alt_stack`]).
//!
//! Only the calling thread's own memory is touched, and only memory that is dead: the stack
//! grows down, so everything below the stack pointer (minus a margin) belongs to frames that
//! have returned (the top of glibc's stack block holds the thread descriptor and TLS, which
//! are live). `MADV_DONTNEED` on a private anonymous mapping frees the physical pages; a
//! later touch would get zero-filled pages, so even a mistaken estimate cannot corrupt live
//! data above the stack pointer. The address range (and the kernel task) stay: glibc owns the
//! mapping and frees it only when the thread exits through its own path.

use crate::{check, Result, SysError};

fn page_size() -> usize {
    // SAFETY: sysconf has no memory-safety preconditions.
    match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
        p if p > 0 => p as usize,
        _ => 4096,
    }
}

/// The calling thread's stack as `(lowest address, size)` (`pthread_getattr_np`).
pub fn own_stack() -> Result<(usize, usize)> {
    // SAFETY: pthread_attr_t is plain data, initialised by pthread_getattr_np below.
    let mut attr: libc::pthread_attr_t = unsafe { std::mem::zeroed() };
    // SAFETY: `attr` is writable; pthread_self is the calling thread.
    let r = unsafe { libc::pthread_getattr_np(libc::pthread_self(), &mut attr) };
    if r != 0 {
        return Err(SysError::io(
            "pthread_getattr_np",
            std::io::Error::from_raw_os_error(r),
        ));
    }
    let mut addr: *mut libc::c_void = std::ptr::null_mut();
    let mut size: libc::size_t = 0;
    // SAFETY: `attr` was initialised by pthread_getattr_np; the out-pointers are valid.
    let r = unsafe { libc::pthread_attr_getstack(&attr, &mut addr, &mut size) };
    // SAFETY: `attr` was initialised above and is destroyed once.
    unsafe { libc::pthread_attr_destroy(&mut attr) };
    if r != 0 {
        return Err(SysError::io(
            "pthread_attr_getstack",
            std::io::Error::from_raw_os_error(r),
        ));
    }
    Ok((addr as usize, size))
}

/// Frees the physical pages of the calling thread's stack below its stack pointer minus
/// `margin` bytes. Does nothing (returns 0) when the caller runs on another stack (an
/// alternate signal stack): the range glibc reports for a thread's stack also holds its
/// thread descriptor and static TLS at the top, so only "below the stack pointer" is known to
/// be dead. Returns the size of the released range.
pub fn release_unused_stack(margin: usize) -> Result<usize> {
    let (lo, size) = own_stack()?;
    let hi = lo + size;
    let marker = 0u8;
    let sp = std::ptr::addr_of!(marker) as usize;
    let page = page_size();
    if !(lo..hi).contains(&sp) {
        return Ok(0);
    }
    let top = sp.saturating_sub(margin);
    let start = lo.div_ceil(page) * page;
    let end = top / page * page;
    if end <= start {
        return Ok(0);
    }
    // SAFETY: [start, end) lies inside the calling thread's own stack mapping, below every
    // live frame of the caller (see the module documentation); MADV_DONTNEED only replaces
    // those private pages by zero-filled ones on the next touch.
    check(
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED) },
        "madvise(MADV_DONTNEED, stack)",
    )?;
    Ok(end - start)
}

/// Blocks every blockable signal for the calling thread, so that process-directed signals go
/// to other threads.
pub fn block_all_signals() -> Result<()> {
    // SAFETY: sigset_t is plain data, filled by sigfillset.
    let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid, writable sigset_t.
    unsafe { libc::sigfillset(&mut set) };
    // SAFETY: `set` is initialised; the old mask is not needed.
    let r = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
    if r != 0 {
        return Err(SysError::io(
            "pthread_sigmask",
            std::io::Error::from_raw_os_error(r),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Resident size of a range, from mincore.
    fn resident(lo: usize, len: usize) -> usize {
        let page = page_size();
        let mut v = vec![0u8; len.div_ceil(page)];
        // SAFETY: [lo, lo+len) is a mapped range (the thread's stack); `v` holds one byte per page.
        let r = unsafe { libc::mincore(lo as *mut libc::c_void, len, v.as_mut_ptr()) };
        assert_eq!(r, 0, "mincore");
        v.iter().filter(|&&b| b & 1 != 0).count() * page
    }

    #[inline(never)]
    fn touch(depth: usize) -> u8 {
        let buf = [depth as u8; 64 * 1024];
        if depth == 0 {
            std::hint::black_box(&buf)[0]
        } else {
            touch(depth - 1).wrapping_add(std::hint::black_box(&buf)[1])
        }
    }

    #[test]
    fn the_dead_part_of_the_stack_is_released() {
        std::thread::Builder::new()
            .stack_size(4 << 20)
            .spawn(|| {
                let (lo, size) = own_stack().unwrap();
                assert!(size >= 4 << 20);
                std::hint::black_box(touch(24)); // ~1.5 MiB of frames, now dead
                let before = resident(lo, size);
                assert!(before >= 1 << 20, "{before}");
                let released = release_unused_stack(16 * 1024).unwrap();
                assert!(released >= 1 << 20, "{released}");
                let after = resident(lo, size);
                assert!(after + (1 << 20) <= before, "{before} -> {after}");
                block_all_signals().unwrap();
            })
            .unwrap()
            .join()
            .unwrap();
    }
}
