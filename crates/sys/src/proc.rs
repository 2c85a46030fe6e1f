// SPDX-License-Identifier: MIT OR Apache-2.0
//! Processes and signals: kill, wait, signal masks.

use crate::{check, Result};

/// How a child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitKind {
    /// `exit(code)`.
    Exited(i32),
    /// Killed by a signal.
    Signaled(i32),
}

impl std::fmt::Display for ExitKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExitKind::Exited(c) => write!(f, "exited with status {c}"),
            ExitKind::Signaled(s) => write!(f, "killed by signal {} ({})", s, signal_name(*s)),
        }
    }
}

/// Signal numbers the manager names (it has no libc dependency of its own).
pub const SIGSYS: i32 = libc::SIGSYS;
/// See [`SIGSYS`].
pub const SIGSEGV: i32 = libc::SIGSEGV;
/// See [`SIGSYS`].
pub const SIGBUS: i32 = libc::SIGBUS;
/// See [`SIGSYS`].
pub const SIGFPE: i32 = libc::SIGFPE;
/// See [`SIGSYS`].
pub const SIGILL: i32 = libc::SIGILL;
/// See [`SIGSYS`].
pub const SIGKILL: i32 = libc::SIGKILL;

/// Short name of a signal number.
pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGSYS => "SIGSYS",
        libc::SIGXCPU => "SIGXCPU",
        _ => "signal",
    }
}

/// Sends `sig` to process `pid`. A process that no longer exists is not an error.
pub fn kill(pid: i32, sig: i32) -> Result<()> {
    // SAFETY: kill takes plain integers.
    let r = unsafe { libc::kill(pid, sig) };
    if r == -1 && std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH) {
        check(r, "kill")?;
    }
    Ok(())
}

/// Sends `sig` to thread `tid` of process `pid`.
pub fn tgkill(pid: i32, tid: i32, sig: i32) -> Result<()> {
    // SAFETY: tgkill takes plain integers.
    let r = unsafe { libc::syscall(libc::SYS_tgkill, pid, tid, sig) } as libc::c_int;
    if r == -1 && std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH) {
        check(r, "tgkill")?;
    }
    Ok(())
}

/// A handle on one thread (a thread pidfd, Linux 6.9 and later): it names that thread only,
/// never a later task that reuses its id.
#[derive(Debug)]
pub struct ThreadHandle {
    fd: std::os::fd::OwnedFd,
}

impl ThreadHandle {
    /// Opens a handle on thread `tid` (an id in the caller's PID namespace); `None` if it does
    /// not exist or the kernel has no thread pidfds.
    pub fn open(tid: i32) -> Option<ThreadHandle> {
        // PIDFD_THREAD (= O_EXCL): the pidfd refers to the thread, not to its thread group.
        const PIDFD_THREAD: libc::c_uint = libc::O_EXCL as libc::c_uint;
        // SAFETY: pidfd_open takes an integer id and flags and returns a new descriptor or -1.
        let r = unsafe { libc::syscall(libc::SYS_pidfd_open, tid, PIDFD_THREAD) };
        if r < 0 {
            return None;
        }
        // SAFETY: `r` is a descriptor the kernel has just created for us and nothing else
        // owns.
        let fd = unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(r as i32) };
        Some(ThreadHandle { fd })
    }

    /// Whether the thread still exists (one system call, no path lookup).
    pub fn alive(&self) -> bool {
        use std::os::fd::AsRawFd;
        // SAFETY: signal 0 with no siginfo only checks that the target exists and may be
        // signalled; the descriptor is owned by `self`.
        let r = unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                self.fd.as_raw_fd(),
                0,
                std::ptr::null::<libc::siginfo_t>(),
                0u32,
            )
        };
        r == 0
    }
}

/// Reaps one child without blocking: `Some((pid, how))`, or `None` if no child has ended.
/// `pid` is -1 for any child.
pub fn try_wait(pid: i32) -> Option<(i32, ExitKind)> {
    let mut status = 0;
    // SAFETY: `status` is a valid int to write to.
    let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
    if r <= 0 {
        return None;
    }
    Some((r, decode(status)))
}

/// Waits (blocking) for child `pid`.
pub fn wait(pid: i32) -> Option<ExitKind> {
    let mut status = 0;
    loop {
        // SAFETY: `status` is a valid int to write to.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        if r == pid {
            return Some(decode(status));
        }
        if r == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        return None;
    }
}

fn decode(status: i32) -> ExitKind {
    if libc::WIFSIGNALED(status) {
        ExitKind::Signaled(libc::WTERMSIG(status))
    } else {
        ExitKind::Exited(libc::WEXITSTATUS(status))
    }
}

/// Blocks `signals` in the calling thread (threads created afterwards inherit the mask).
pub fn block_signals(signals: &[i32]) -> Result<()> {
    // SAFETY: sigset_t is plain data initialised by sigemptyset before use.
    let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid sigset_t.
    unsafe { libc::sigemptyset(&mut set) };
    for &s in signals {
        // SAFETY: `set` is a valid sigset_t; invalid signal numbers just fail.
        unsafe { libc::sigaddset(&mut set, s) };
    }
    // SAFETY: valid set pointer, null old-set pointer.
    let r = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
    check(if r == 0 { 0 } else { -1 }, "pthread_sigmask")?;
    Ok(())
}

/// Waits up to `timeout_ns` for one of the (blocked) `signals`; returns it, or `None`.
pub fn wait_signal(signals: &[i32], timeout_ns: u64) -> Option<i32> {
    // SAFETY: as in `block_signals`.
    let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid sigset_t.
    unsafe { libc::sigemptyset(&mut set) };
    for &s in signals {
        // SAFETY: `set` is a valid sigset_t.
        unsafe { libc::sigaddset(&mut set, s) };
    }
    let ts = crate::time::timespec(timeout_ns);
    // SAFETY: valid set and timespec; the siginfo pointer may be null.
    let r = unsafe { libc::sigtimedwait(&set, std::ptr::null_mut(), &ts) };
    (r > 0).then_some(r)
}

/// Sets `SIGPIPE` to be ignored in the whole process (writes to a closed pipe return EPIPE).
pub fn ignore_sigpipe() {
    // SAFETY: installing SIG_IGN for SIGPIPE has no memory-safety implications.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
}

/// Restores the default action of `SIGPIPE` (end the process), which the Rust runtime sets
/// to ignored: a command whose output goes to a pipe that closes (`partita rules | head`)
/// then ends quietly, as Unix tools do, instead of failing on the write.
pub fn default_sigpipe() {
    // SAFETY: installing SIG_DFL for SIGPIPE has no memory-safety implications.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
}

/// The width in columns of the terminal standard error is, if it is one (`TIOCGWINSZ`).
pub fn stderr_columns() -> Option<u16> {
    let mut ws = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes one `winsize` into `ws`, which lives across the call; a
    // descriptor that is not a terminal makes it fail (ENOTTY), reported as `None`.
    let r = unsafe { libc::ioctl(libc::STDERR_FILENO, libc::TIOCGWINSZ, &mut ws) };
    (r == 0 && ws.ws_col > 0).then_some(ws.ws_col)
}

/// Sets `FD_CLOEXEC` off on `fd`, so that it survives `execve`.
pub fn clear_cloexec(fd: i32) -> Result<()> {
    // SAFETY: fcntl on an integer descriptor; failure is reported.
    check(
        unsafe { libc::fcntl(fd, libc::F_SETFD, 0) },
        "fcntl(F_SETFD)",
    )?;
    Ok(())
}

/// Whether this process runs with effective uid 0.
pub fn is_root() -> bool {
    // SAFETY: geteuid has no arguments.
    unsafe { libc::geteuid() == 0 }
}

/// Waits up to `timeout_ms` (-1: forever) until one of `fds` is readable or hung up.
/// Returns, per descriptor, whether it is ready (readable, hung up or in error).
pub fn poll_readable(fds: &[i32], timeout_ms: i32) -> Result<Vec<bool>> {
    let mut p: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    // SAFETY: `p` is a valid array of `p.len()` pollfd structures.
    let r = unsafe { libc::poll(p.as_mut_ptr(), p.len() as libc::nfds_t, timeout_ms) };
    if r < 0 {
        if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            return Ok(vec![false; fds.len()]);
        }
        check(r, "poll")?;
    }
    Ok(p.iter().map(|x| x.revents != 0).collect())
}
