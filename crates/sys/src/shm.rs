// SPDX-License-Identifier: MIT OR Apache-2.0
//! Shared memory: anonymous `memfd` objects mapped in the manager and inherited by partitions.

use crate::{check, Result, SysError};
use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;
use std::sync::atomic::AtomicU64;

/// A `MAP_SHARED` mapping of a memfd, unmapped on drop.
pub struct SharedMapping {
    ptr: *mut u8,
    len: usize,
    fd: OwnedFd,
}

// SAFETY: the mapping is plain shared memory; access to its contents goes through atomics or
// raw byte copies chosen by the user of the mapping.
unsafe impl Send for SharedMapping {}
// SAFETY: as above; `&SharedMapping` gives out only raw pointers.
unsafe impl Sync for SharedMapping {}

impl SharedMapping {
    /// Creates a memfd named `name` of `len` bytes (zero-filled) and maps it read-write.
    /// The fd is close-on-exec; use [`SharedMapping::fd`] with the manager's `crate::spawn` to
    /// pass it on.
    pub fn create(name: &str, len: usize) -> Result<Self> {
        let cname = CString::new(name).map_err(|e| SysError::io("memfd_create", e.into()))?;
        // SAFETY: `cname` is a valid NUL-terminated string.
        let fd = check(
            unsafe { libc::memfd_create(cname.as_ptr(), libc::MFD_CLOEXEC) },
            "memfd_create",
        )?;
        // SAFETY: `fd` was just returned by memfd_create and is owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: `fd` is a valid memfd.
        check(
            unsafe { libc::ftruncate(fd.as_raw_fd(), len as libc::off_t) },
            "ftruncate(memfd)",
        )?;
        Self::map(fd, len, true)
    }

    /// Maps an inherited memfd of `len` bytes (read-write when `writable`).
    pub fn map(fd: OwnedFd, len: usize, writable: bool) -> Result<Self> {
        let prot = libc::PROT_READ | if writable { libc::PROT_WRITE } else { 0 };
        // SAFETY: a fresh mapping chosen by the kernel (null hint) of a valid fd; the result is
        // checked against MAP_FAILED.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                prot,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(SysError::last("mmap(memfd)"));
        }
        Ok(SharedMapping {
            ptr: ptr.cast(),
            len,
            fd,
        })
    }

    /// Start of the mapping.
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the mapping is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The memfd.
    pub fn fd(&self) -> &OwnedFd {
        &self.fd
    }

    /// A shared reference to a `T` at the start of the mapping.
    ///
    /// `T` must be valid for any bit pattern and use atomics (or be read through volatile
    /// copies) for fields another process writes; the [`crate::control`] block is.
    pub fn view<T: SharedPod>(&self) -> &T {
        assert!(std::mem::size_of::<T>() <= self.len);
        assert_eq!(self.ptr as usize % std::mem::align_of::<T>(), 0);
        // SAFETY: the mapping is at least size_of::<T>() bytes, page-aligned (so aligned for
        // T), lives as long as `self`, and T: SharedPod is valid for every bit pattern and
        // only mutated through interior atomics.
        unsafe { &*(self.ptr as *const T) }
    }
}

impl Drop for SharedMapping {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` describe a mapping we created and nobody else unmaps.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

/// A private anonymous mapping (zero-filled memory of this process alone), unmapped on drop:
/// the partition runtime's memory blocks (ARINC 653 Part 2 GET_MEMORY_BLOCK_STATUS).
pub struct PrivateMapping {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the mapping is plain memory owned by this value; its contents are only reached
// through the raw pointer [`PrivateMapping::as_ptr`] gives out.
unsafe impl Send for PrivateMapping {}
// SAFETY: as above; `&PrivateMapping` gives out only a raw pointer and the length.
unsafe impl Sync for PrivateMapping {}

impl PrivateMapping {
    /// Maps `len` zero-filled bytes, readable, and writable when `writable`.
    pub fn anonymous(len: usize, writable: bool) -> Result<Self> {
        let prot = libc::PROT_READ | if writable { libc::PROT_WRITE } else { 0 };
        // SAFETY: a fresh anonymous mapping at an address of the kernel's choice (null hint);
        // the result is checked against MAP_FAILED.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                prot,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(SysError::last("mmap(anonymous)"));
        }
        Ok(PrivateMapping {
            ptr: ptr.cast(),
            len,
        })
    }

    /// Start of the mapping.
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the mapping is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Drop for PrivateMapping {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` describe a mapping we created and nobody else unmaps.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

/// Marker for `#[repr(C)]` types made only of integers and atomics, valid for every bit pattern
/// and safe to share between processes.
///
/// # Safety
/// Implement only for such types.
pub unsafe trait SharedPod: Sync {}

impl SharedMapping {
    /// Maps descriptor number `fd`, inherited from the parent process, taking ownership of it.
    /// Fails (without closing anything) when `fd` is not an open descriptor.
    pub fn map_inherited(fd: i32, len: usize, writable: bool) -> Result<Self> {
        // SAFETY: F_GETFD on an integer only queries the descriptor table.
        if unsafe { libc::fcntl(fd, libc::F_GETFD) } < 0 {
            return Err(SysError::last(format!("inherited descriptor {fd}")));
        }
        // SAFETY: `fd` is open (checked above) and, by the launch protocol, was passed to this
        // process for the runtime alone, which takes ownership of it exactly once.
        let owned = unsafe { OwnedFd::from_raw_fd(fd) };
        Self::map(owned, len, writable)
    }
}

impl SharedMapping {
    /// Opens the existing file `path` (e.g. under `/dev/shm`, visible to every process that
    /// can open it) and maps its first `len` bytes read-write and shared. The file must be at
    /// least `len` bytes long (a shorter one is refused: touching a page past its end would
    /// raise `SIGBUS`). The descriptor is close-on-exec.
    pub fn open_file(path: &Path, len: usize) -> Result<Self> {
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| SysError::io(format!("open {}", path.display()), e))?;
        let size = f
            .metadata()
            .map_err(|e| SysError::io(format!("stat {}", path.display()), e))?
            .len();
        if len == 0 || size < len as u64 {
            return Err(SysError::io(
                format!("map {}", path.display()),
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("file has {size} bytes, {len} wanted"),
                ),
            ));
        }
        Self::map(OwnedFd::from(f), len, true)
    }

    /// The mapping as a slice of `len / 8` 64-bit atomic words: a safe view for data shared
    /// between processes (every access is atomic, any bit pattern is a valid value).
    pub fn words(&self) -> &[AtomicU64] {
        // SAFETY: `ptr` is the page-aligned (so 8-byte aligned) start of a live mapping of
        // `len` bytes, of which the slice covers the first `len / 8 * 8`; `AtomicU64` has the
        // size and alignment of `u64` and is valid for every bit pattern; the slice borrows
        // `self`, so it cannot outlive the mapping; all accesses, here and in other processes,
        // go through atomic operations.
        unsafe { std::slice::from_raw_parts(self.ptr as *const AtomicU64, self.len / 8) }
    }
}
