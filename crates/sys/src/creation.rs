// SPDX-License-Identifier: MIT OR Apache-2.0
//! Task creations decided by the manager (seccomp user notification).
//!
//! A partition at its task limit that keeps trying to create tasks (a fork or thread bomb)
//! makes the kernel do costly work for every refused attempt: `clone()` allocates and then
//! frees a task structure and a kernel stack before the pids cgroup refuses it, and the
//! freeing goes through RCU callbacks that run later, in softirq context on the partition's
//! core, in whatever window a grace period ends: 1.4–3 ms at a time were measured in the
//! neighbours' windows. So every partition gets one more seccomp filter, [`program`], that
//! hands `clone`, `fork` and `vfork` to the manager (`SECCOMP_RET_USER_NOTIF`): the manager
//! answers `EAGAIN` at once when the partition is at its limit (nothing is allocated) and lets
//! the call proceed otherwise. Filters stack: a creation the allow-list refuses (namespace
//! flags) is refused before anyone is asked.
//!
//! The partition's first process installs the filter just before `execve` and sends the
//! listener descriptor to the manager over a socket ([`send_listener`]); the manager
//! receives it ([`receive_listener`]) and serves [`Listener::next`] / [`Listener::answer`].

use crate::{Result, SysError};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// `AUDIT_ARCH_X86_64`.
const AUDIT_ARCH_X86_64: u32 = 0xc000_003e;

/// The system calls that create tasks (x86-64 numbers; `clone3` is refused with `ENOSYS` by
/// the allow-list's prefix filter, so glibc uses `clone`).
pub const CREATION_CALLS: [i64; 3] = [libc::SYS_clone, libc::SYS_fork, libc::SYS_vfork];

/// The notification filter: task creations go to the listener, everything else passes (to
/// the allow-list, which is another filter).
pub fn program() -> Vec<libc::sock_filter> {
    let stmt = |code: u32, k: u32| libc::sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    };
    let jeq = |k: u32, jt: u8, jf: u8| libc::sock_filter {
        code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16,
        jt,
        jf,
        k,
    };
    let load = libc::BPF_LD | libc::BPF_W | libc::BPF_ABS;
    let ret = libc::BPF_RET | libc::BPF_K;
    // seccomp_data: nr at offset 0, arch at offset 4.
    vec![
        stmt(load, 4),
        jeq(AUDIT_ARCH_X86_64, 1, 0),
        stmt(ret, libc::SECCOMP_RET_ALLOW),
        stmt(load, 0),
        jeq(CREATION_CALLS[0] as u32, 3, 0),
        jeq(CREATION_CALLS[1] as u32, 2, 0),
        jeq(CREATION_CALLS[2] as u32, 1, 0),
        stmt(ret, libc::SECCOMP_RET_ALLOW),
        stmt(ret, libc::SECCOMP_RET_USER_NOTIF),
    ]
}

/// Installs `prog` (from [`program`]) on the calling thread and sends its listener over the
/// socket `sock`. For a freshly forked child before `execve`: raw system calls only, no
/// allocation; `PR_SET_NO_NEW_PRIVS` must be set. Returns 0, or -1 with `errno` set.
///
/// # Safety
/// `prog` must point at `len` valid filter instructions; `sock` must be a connected
/// `AF_UNIX` socket.
pub unsafe fn send_listener(prog: *const libc::sock_filter, len: usize, sock: RawFd) -> i32 {
    let fprog = libc::sock_fprog {
        len: len as u16,
        filter: prog as *mut libc::sock_filter,
    };
    // SAFETY: `fprog` describes the caller's valid program; the flag asks for a listener.
    let listener = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            libc::SECCOMP_FILTER_FLAG_NEW_LISTENER as libc::c_uint,
            &fprog as *const libc::sock_fprog,
        )
    };
    if listener < 0 {
        return -1;
    }
    let listener = listener as RawFd;
    // One byte of data and one SCM_RIGHTS message carrying the descriptor.
    let mut byte = 0u8;
    let mut iov = one_byte(&mut byte);
    let mut cbuf = [0u64; 4];
    let mut msg = header(&mut iov, &mut cbuf);
    // SAFETY: CMSG_SPACE only computes a size.
    msg.msg_controllen = unsafe { libc::CMSG_SPACE(4) } as usize;
    // SAFETY: the control buffer (32 bytes) holds CMSG_SPACE(4) (24) bytes; CMSG_FIRSTHDR and
    // CMSG_DATA return pointers inside it.
    let sent = unsafe {
        let c = libc::CMSG_FIRSTHDR(&msg);
        (*c).cmsg_level = libc::SOL_SOCKET;
        (*c).cmsg_type = libc::SCM_RIGHTS;
        (*c).cmsg_len = libc::CMSG_LEN(4) as usize;
        std::ptr::write_unaligned(libc::CMSG_DATA(c).cast::<RawFd>(), listener);
        libc::sendmsg(sock, &msg, 0)
    };
    // SAFETY: our own descriptor; the manager holds its copy once the message is sent.
    unsafe { libc::close(listener) };
    if sent == 1 {
        0
    } else {
        -1
    }
}

/// An iovec over one byte.
fn one_byte(byte: &mut u8) -> libc::iovec {
    libc::iovec {
        iov_base: (byte as *mut u8).cast(),
        iov_len: 1,
    }
}

/// A message header with one data buffer and a control buffer (u64-aligned, as cmsghdr
/// requires; its whole size is offered). No allocation: usable in a forked child.
fn header(iov: &mut libc::iovec, cbuf: &mut [u64; 4]) -> libc::msghdr {
    // SAFETY: msghdr is plain data; zeroed is a valid empty header.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cbuf.as_mut_ptr().cast();
    msg.msg_controllen = std::mem::size_of_val(cbuf);
    msg
}

/// The listener of one partition's notification filter, held by the manager.
#[derive(Debug)]
pub struct Listener {
    fd: OwnedFd,
}

/// Receives the listener a child sent with [`send_listener`] over `sock` (blocks until it
/// arrives). `Ok(None)` if the child closed the socket without sending one.
pub fn receive_listener(sock: &OwnedFd) -> Result<Option<Listener>> {
    let mut byte = 0u8;
    let mut iov = one_byte(&mut byte);
    let mut cbuf = [0u64; 4];
    let mut msg = header(&mut iov, &mut cbuf);
    let n = loop {
        // SAFETY: `msg` points at live buffers of the sizes it states; received descriptors
        // are close-on-exec.
        let n = unsafe { libc::recvmsg(sock.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if n >= 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            break n;
        }
    };
    if n < 0 {
        return Err(SysError::last("recvmsg(seccomp listener)"));
    }
    if n == 0 {
        return Ok(None);
    }
    // SAFETY: the kernel filled the control buffer; CMSG_FIRSTHDR returns null when empty and
    // CMSG_DATA a pointer inside the buffer.
    unsafe {
        let c = libc::CMSG_FIRSTHDR(&msg);
        if c.is_null() || (*c).cmsg_level != libc::SOL_SOCKET || (*c).cmsg_type != libc::SCM_RIGHTS
        {
            return Ok(None);
        }
        let fd = std::ptr::read_unaligned(libc::CMSG_DATA(c).cast::<RawFd>());
        Ok(Some(Listener {
            fd: OwnedFd::from_raw_fd(fd),
        }))
    }
}

/// One pending task creation.
#[derive(Debug, Clone, Copy)]
pub struct Request {
    /// The notification's identifier (for [`Listener::answer`]).
    pub id: u64,
    /// The calling task (host pid).
    pub pid: u32,
    /// The system call number.
    pub nr: i32,
}

/// What [`Listener::next`] saw.
#[derive(Debug)]
pub enum Next {
    /// A task creation to decide.
    Request(Request),
    /// Nothing within the time-out.
    Idle,
    /// No task uses the filter any more (the partition is gone).
    Gone,
}

impl Listener {
    /// Waits at most `timeout_ms` for the next task creation.
    pub fn next(&self, timeout_ms: i32) -> Result<Next> {
        let mut pfd = libc::pollfd {
            fd: self.fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let r = unsafe { libc::poll(&mut pfd, 1, timeout_ms) };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            return if e.raw_os_error() == Some(libc::EINTR) {
                Ok(Next::Idle)
            } else {
                Err(SysError::io("poll(seccomp listener)", e))
            };
        }
        if r == 0 {
            return Ok(Next::Idle);
        }
        if pfd.revents & libc::POLLIN == 0 {
            return Ok(Next::Gone);
        }
        // SAFETY: seccomp_notif is plain data; the kernel requires it zeroed on entry.
        let mut n: libc::seccomp_notif = unsafe { std::mem::zeroed() };
        // SAFETY: RECV fills the seccomp_notif we pass.
        let r = unsafe {
            libc::ioctl(
                self.fd.as_raw_fd(),
                libc::SECCOMP_IOCTL_NOTIF_RECV as _,
                &mut n as *mut libc::seccomp_notif,
            )
        };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            return match e.raw_os_error() {
                // The caller went away (a signal, its death) between poll and receive.
                Some(libc::ENOENT) | Some(libc::EINTR) => Ok(Next::Idle),
                _ => Err(SysError::io("ioctl(SECCOMP_IOCTL_NOTIF_RECV)", e)),
            };
        }
        Ok(Next::Request(Request {
            id: n.id,
            pid: n.pid,
            nr: n.data.nr,
        }))
    }

    /// Answers request `id`: lets the system call proceed, or (`refuse`) fails it with
    /// `EAGAIN`, as the kernel does at the task limit. A request whose caller went away
    /// meanwhile is ignored.
    pub fn answer(&self, id: u64, refuse: bool) -> Result<()> {
        let resp = libc::seccomp_notif_resp {
            id,
            val: 0,
            error: if refuse { -libc::EAGAIN } else { 0 },
            flags: if refuse {
                0
            } else {
                libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32
            },
        };
        // SAFETY: SEND reads the seccomp_notif_resp we pass.
        let r = unsafe {
            libc::ioctl(
                self.fd.as_raw_fd(),
                libc::SECCOMP_IOCTL_NOTIF_SEND as _,
                &resp as *const libc::seccomp_notif_resp,
            )
        };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::ENOENT) {
                return Ok(());
            }
            return Err(SysError::io("ioctl(SECCOMP_IOCTL_NOTIF_SEND)", e));
        }
        Ok(())
    }
}

/// A connected pair of `AF_UNIX` sequenced-packet sockets (close-on-exec): one end for the
/// manager, one for the child.
pub fn socket_pair() -> Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: `fds` has room for the two descriptors.
    let r = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if r != 0 {
        return Err(SysError::last("socketpair"));
    }
    // SAFETY: two descriptors just created and owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A forked child installs the filter and sends the listener; its forks then wait for the
    /// answer: refused with EAGAIN, then let through.
    #[test]
    fn creations_wait_for_the_answer() {
        let (mine, theirs) = socket_pair().unwrap();
        let prog = program();
        // SAFETY: fork in a test; the child makes raw system calls on memory prepared before
        // the fork and ends with _exit.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0);
        if pid == 0 {
            // SAFETY: see above.
            unsafe {
                libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
                if send_listener(prog.as_ptr(), prog.len(), theirs.as_raw_fd()) != 0 {
                    libc::_exit(10);
                }
                // Refused: -1 and EAGAIN, without a child.
                let r = libc::syscall(libc::SYS_fork);
                if r != -1 || *libc::__errno_location() != libc::EAGAIN {
                    libc::_exit(11);
                }
                // Let through.
                let r = libc::syscall(libc::SYS_fork);
                if r == 0 {
                    libc::_exit(0);
                }
                if r < 0 {
                    libc::_exit(12);
                }
                let mut st = 0;
                libc::waitpid(r as i32, &mut st, 0);
                libc::_exit(0);
            }
        }
        drop(theirs);
        let l = receive_listener(&mine).unwrap().expect("a listener");
        let mut answers = vec![true, false];
        let mut seen = Vec::new();
        while !answers.is_empty() {
            match l.next(5_000).unwrap() {
                Next::Request(r) => {
                    assert_eq!(r.pid as i32, pid);
                    seen.push(r.nr as i64);
                    l.answer(r.id, answers.remove(0)).unwrap();
                }
                Next::Idle => panic!("no request within 5 s"),
                Next::Gone => panic!("child gone early"),
            }
        }
        let mut st = 0;
        // SAFETY: waiting for our own child.
        unsafe { libc::waitpid(pid, &mut st, 0) };
        assert!(libc::WIFEXITED(st), "{st}");
        assert_eq!(libc::WEXITSTATUS(st), 0);
        assert_eq!(seen, vec![libc::SYS_fork, libc::SYS_fork]);
        // Every task using the filter is gone.
        assert!(matches!(l.next(1_000).unwrap(), Next::Gone));
    }
}
