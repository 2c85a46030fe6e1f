// SPDX-License-Identifier: MIT OR Apache-2.0
//! Trace rings in shared memory. The record, the ring protocol and its header are defined in
//! [`partita_abi::trace`] (re-exported here); this module declares the layouts fit for a
//! shared mapping and maps a ring: the manager creates one in a memfd (one per scheduler
//! thread, one per partition), a partition's runtime maps the one passed to it.

use crate::shm::{SharedMapping, SharedPod};
use crate::{Result, SysError};
use std::os::fd::OwnedFd;

pub use partita_abi::trace::*;

// SAFETY: RingHeader is #[repr(C)] and made only of atomics, valid for every bit pattern and
// shareable between threads and processes.
unsafe impl SharedPod for RingHeader {}
// SAFETY: as above: a sequence atomic and an array of atomic words.
unsafe impl SharedPod for Slot {}

/// A trace ring in a `MAP_SHARED` memfd mapping: a [`RingHeader`] followed by its [`Slot`]s.
pub struct RingMapping {
    map: SharedMapping,
    capacity: u32,
}

impl RingMapping {
    /// Creates a memfd named `name` holding an initialised ring of `capacity` events (a power
    /// of two, at most [`MAX_CAPACITY`]). The fd is close-on-exec; pass
    /// [`RingMapping::fd`] on with `crate::spawn`.
    pub fn create(name: &str, capacity: u32) -> Result<Self> {
        check_capacity(capacity)?;
        let map = SharedMapping::create(name, ring_bytes(capacity))?;
        let r = RingMapping { map, capacity };
        let (h, s) = r.parts();
        Ring::init(h, s).map_err(ring_error)?;
        Ok(r)
    }

    /// Maps descriptor `fd` inherited from the manager, holding a ring of `capacity` events
    /// (as the control block says), and checks its header.
    pub fn map_inherited(fd: i32, capacity: u32) -> Result<Self> {
        check_capacity(capacity)?;
        let map = SharedMapping::map_inherited(fd, ring_bytes(capacity), true)?;
        Self::attached(map, capacity)
    }

    /// Maps a ring another process created in `fd` (`capacity` events) and checks its header.
    pub fn map(fd: OwnedFd, capacity: u32) -> Result<Self> {
        check_capacity(capacity)?;
        let map = SharedMapping::map(fd, ring_bytes(capacity), true)?;
        Self::attached(map, capacity)
    }

    fn attached(map: SharedMapping, capacity: u32) -> Result<Self> {
        let r = RingMapping { map, capacity };
        let (h, s) = r.parts();
        Ring::attach(h, s).map_err(ring_error)?;
        Ok(r)
    }

    /// The header and the slots.
    fn parts(&self) -> (&RingHeader, &[Slot]) {
        let header = self.map.view::<RingHeader>();
        let base = self.map.as_ptr() as usize + std::mem::size_of::<RingHeader>();
        assert_eq!(base % std::mem::align_of::<Slot>(), 0);
        assert!(ring_bytes(self.capacity) <= self.map.len());
        // SAFETY: the mapping holds the header and then `capacity` slots (its length is
        // `ring_bytes(capacity)`, checked above), `base` is aligned for Slot (the header is a
        // multiple of 8 bytes, the mapping page-aligned, checked above), Slot is valid for
        // every bit pattern and mutated only through its atomics (SharedPod), and the slice
        // borrows `self`, so it cannot outlive the mapping.
        let slots =
            unsafe { std::slice::from_raw_parts(base as *const Slot, self.capacity as usize) };
        (header, slots)
    }

    /// The ring. Its header was checked when it was created or mapped; the geometry comes
    /// from this mapping, so a producer scribbling over the header later cannot move the
    /// consumer out of bounds.
    pub fn ring(&self) -> Ring<'_> {
        let (h, s) = self.parts();
        Ring::over(h, s).expect("capacity checked when mapped")
    }

    /// The slots, as raw shared memory (every access atomic): what the producer wrote,
    /// whatever it is.
    pub fn slots(&self) -> &[Slot] {
        self.parts().1
    }

    /// The memfd.
    pub fn fd(&self) -> &OwnedFd {
        self.map.fd()
    }

    /// Capacity in events.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }
}

/// Mounts a tracefs at `at` (an existing directory, normally `/sys/kernel/tracing`; needs
/// root).
#[cfg(feature = "host")]
pub fn mount_tracefs(at: &std::path::Path) -> Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let target = std::ffi::CString::new(at.as_os_str().as_bytes())
        .map_err(|e| SysError::io("mount tracefs", e.into()))?;
    // SAFETY: every pointer is a valid NUL-terminated string for the duration of the call;
    // no data argument.
    let rc = unsafe {
        libc::mount(
            c"tracefs".as_ptr(),
            target.as_ptr(),
            c"tracefs".as_ptr(),
            0,
            std::ptr::null(),
        )
    };
    crate::check(rc, &format!("mount tracefs on {}", at.display())).map(|_| ())
}

/// Unmounts the file system mounted at `at`.
#[cfg(feature = "host")]
pub fn unmount(at: &std::path::Path) -> Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let target = std::ffi::CString::new(at.as_os_str().as_bytes())
        .map_err(|e| SysError::io("umount", e.into()))?;
    // SAFETY: `target` is a valid NUL-terminated string for the duration of the call.
    let rc = unsafe { libc::umount2(target.as_ptr(), 0) };
    crate::check(rc, &format!("umount {}", at.display())).map(|_| ())
}

/// Opens `path` for reading without blocking (a read with nothing to read fails with
/// `WouldBlock`): for tracefs pipes, which a stopping reader must not wait on.
#[cfg(feature = "host")]
pub fn open_nonblocking(path: &std::path::Path) -> Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| SysError::io(format!("open {}", path.display()), e))
}

fn check_capacity(capacity: u32) -> Result<()> {
    if capacity == 0 || !capacity.is_power_of_two() || capacity > MAX_CAPACITY {
        return Err(ring_error(RingError::Capacity(capacity)));
    }
    Ok(())
}

fn ring_error(e: RingError) -> SysError {
    SysError::io(
        "trace ring",
        std::io::Error::new(std::io::ErrorKind::InvalidData, e),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn a_ring_carries_events_between_two_processes() {
        let r = RingMapping::create("partita-trace-test", 8).unwrap();
        // SAFETY: fork in a test: the child only pushes to the shared ring (atomics, no
        // allocation, no lock) and leaves with _exit.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let ring = r.ring();
            let mut ok = 0;
            for i in 0..12u64 {
                let e = Event::new(i, EventKind::Application, i, [i * 2, 0, 0, 0]);
                ok += i32::from(ring.push(&e));
            }
            // SAFETY: leaves the child at once, without running the parent's destructors.
            unsafe { libc::_exit(ok) };
        }
        let mut status = 0;
        // SAFETY: waits for the child just forked.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        assert!(libc::WIFEXITED(status));
        assert_eq!(libc::WEXITSTATUS(status), 8, "8 events fit");
        // The parent sees the child's events through a second, independent mapping of the fd.
        let dup = r.fd().try_clone().unwrap();
        let other = RingMapping::map(dup, 8).unwrap();
        let ring = other.ring();
        assert_eq!(ring.lost(), 4);
        for i in 0..8u64 {
            let e = ring.pop().unwrap().unwrap();
            assert_eq!((e.time_ns, e.a, e.b()), (i, i, i * 2));
        }
        assert!(ring.pop().is_none());
        assert!(r.ring().pop().is_none(), "both mappings share the memory");
        assert!(r.fd().as_raw_fd() >= 0);
    }

    #[test]
    fn mapping_checks_capacity_and_header() {
        assert!(RingMapping::create("x", 3).is_err());
        let plain = SharedMapping::create("not-a-ring", ring_bytes(4)).unwrap();
        let fd = plain.fd().try_clone().unwrap();
        let e = RingMapping::map(fd, 4).err().unwrap();
        assert!(e.to_string().contains("trace ring"), "{e}");
        let r = RingMapping::create("ring", 4).unwrap();
        assert!(RingMapping::map(r.fd().try_clone().unwrap(), 8).is_err());
    }
}
