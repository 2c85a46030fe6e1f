// SPDX-License-Identifier: MIT OR Apache-2.0
//! The clean-up guard: a small child process that outlives a crashed manager.
//!
//! The manager forks the guard before it starts anything and keeps the write end of a pipe
//! whose read end only the guard holds. When the manager ends, however it ends, the kernel
//! closes that pipe; the guard then thaws every cgroup of the run, kills every process left in
//! them, removes the cgroup directories and exits. After a clean shutdown there is nothing left
//! to do and it exits at once.
//!
//! Between `fork` and `_exit` the guard makes only async-signal-safe system calls on buffers
//! prepared by the parent.

use crate::{Result, SysError};
use std::ffi::CString;
use std::os::fd::{AsRawFd, OwnedFd};

/// What the guard cleans up, in order.
#[derive(Debug, Default, Clone)]
pub struct GuardPlan {
    /// Control files to write before killing: `(path, value)`, e.g. `freezer.state` THAWED.
    pub thaw: Vec<(CString, CString)>,
    /// `cgroup.procs` files whose processes are killed with SIGKILL.
    pub procs: Vec<CString>,
    /// Directories to remove, deepest first.
    pub dirs: Vec<CString>,
}

/// A running guard.
#[derive(Debug)]
pub struct Guard {
    pid: i32,
    pipe: Option<OwnedFd>,
}

impl Guard {
    /// Forks the guard.
    pub fn start(plan: &GuardPlan) -> Result<Guard> {
        let (r, w) = crate::spawn::pipe()?;
        let thaw: Vec<(*const libc::c_char, *const libc::c_char, usize)> = plan
            .thaw
            .iter()
            .map(|(p, v)| (p.as_ptr(), v.as_ptr(), v.as_bytes().len()))
            .collect();
        let procs: Vec<*const libc::c_char> = plan.procs.iter().map(|p| p.as_ptr()).collect();
        let dirs: Vec<*const libc::c_char> = plan.dirs.iter().map(|p| p.as_ptr()).collect();
        let wfd = w.as_raw_fd();
        let rfd = r.as_raw_fd();
        // SAFETY: fork; the child below only uses async-signal-safe calls on data prepared
        // above, and ends in _exit.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(SysError::last("fork(guard)"));
        }
        if pid == 0 {
            // SAFETY (whole block): async-signal-safe calls on pre-built buffers only.
            unsafe {
                libc::close(wfd);
                // Survive the terminal's SIGINT/SIGTERM/SIGHUP: only pipe EOF ends us.
                for s in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
                    libc::signal(s, libc::SIG_IGN);
                }
                let mut set: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut set);
                libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
                let mut b = [0u8; 64];
                loop {
                    let n = libc::read(rfd, b.as_mut_ptr().cast(), b.len());
                    if n == 0 || (n < 0 && *libc::__errno_location() != libc::EINTR) {
                        break;
                    }
                }
                for round in 0..50 {
                    let mut left = 0;
                    for &(p, v, n) in &thaw {
                        let fd = libc::open(p, libc::O_WRONLY);
                        if fd >= 0 {
                            libc::write(fd, v.cast(), n);
                            libc::close(fd);
                        }
                    }
                    for &p in &procs {
                        left += kill_listed(p);
                    }
                    if left == 0 && round > 0 {
                        break;
                    }
                    let ts = libc::timespec {
                        tv_sec: 0,
                        tv_nsec: 20_000_000,
                    };
                    libc::nanosleep(&ts, std::ptr::null_mut());
                }
                for &d in &dirs {
                    libc::rmdir(d);
                }
                libc::_exit(0);
            }
        }
        drop(r);
        Ok(Guard { pid, pipe: Some(w) })
    }

    /// Tells the guard the manager has cleaned up (closes the pipe) and reaps it.
    pub fn finish(mut self) {
        self.pipe.take();
        crate::proc::wait(self.pid);
    }

    /// The guard's PID.
    pub fn pid(&self) -> i32 {
        self.pid
    }
}

/// Reads a `cgroup.procs` file and SIGKILLs every PID in it; returns how many it found.
///
/// # Safety
/// `path` must be a valid NUL-terminated string. Async-signal-safe.
unsafe fn kill_listed(path: *const libc::c_char) -> usize {
    // SAFETY: the caller guarantees `path`; buffers are local.
    unsafe {
        let fd = libc::open(path, libc::O_RDONLY);
        if fd < 0 {
            return 0;
        }
        let mut buf = [0u8; 8192];
        let mut found = 0;
        let mut cur: i32 = 0;
        let mut in_num = false;
        loop {
            let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
            if n <= 0 {
                break;
            }
            for &c in &buf[..n as usize] {
                if c.is_ascii_digit() {
                    cur = cur.saturating_mul(10).saturating_add((c - b'0') as i32);
                    in_num = true;
                } else if in_num {
                    libc::kill(cur, libc::SIGKILL);
                    found += 1;
                    cur = 0;
                    in_num = false;
                }
            }
        }
        if in_num {
            libc::kill(cur, libc::SIGKILL);
            found += 1;
        }
        libc::close(fd);
        found
    }
}
