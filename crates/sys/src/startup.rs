// SPDX-License-Identifier: MIT OR Apache-2.0
//! The start of a partition process: taking over what the partition manager passed on (its
//! descriptors) and setting up its standard output for the manager's log.

/// Takes ownership of descriptor number `fd` inherited from the parent, as a `File`.
/// `None` when it is not open.
pub fn inherited_file(fd: i32) -> Option<std::fs::File> {
    use std::os::fd::FromRawFd;
    // SAFETY: F_GETFD only queries the descriptor table.
    if unsafe { libc::fcntl(fd, libc::F_GETFD) } < 0 {
        return None;
    }
    // SAFETY: `fd` is open and, by the launch protocol, belongs to the caller alone, which
    // takes ownership of it exactly once.
    Some(unsafe { std::fs::File::from_raw_fd(fd) })
}

/// Makes stdout line-buffered in C stdio, so partition output reaches the manager line by
/// line even though it is a pipe.
pub fn line_buffer_c_stdout() {
    extern "C" {
        static mut stdout: *mut libc::FILE;
    }
    // SAFETY: `stdout` is the C library's stream, valid for the whole process; setvbuf before
    // any output is its documented use; we only read the pointer value.
    unsafe {
        let s = std::ptr::addr_of!(stdout).read();
        if !s.is_null() {
            libc::setvbuf(s, std::ptr::null_mut(), libc::_IOLBF, 0);
        }
    }
}
