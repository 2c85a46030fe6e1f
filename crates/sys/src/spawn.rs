// SPDX-License-Identifier: MIT OR Apache-2.0
//! Starting a partition process: `clone` into new namespaces, then wait for the manager's
//! "go" before `execve`.
//!
//! The child side runs between `clone` and `execve` in a copy of a multi-threaded process, so
//! it only makes async-signal-safe system calls on memory prepared by the parent (no
//! allocation, no locks): see the `child` module.

mod child;

use crate::{check, Result, SysError};
use child::Child;
use std::ffi::{CString, OsStr};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;

/// Namespaces to create for the child.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Namespaces {
    /// New PID namespace (the partition is PID 1 in it; `/proc` is remounted when `mount` too).
    pub pid: bool,
    /// New mount namespace (mounts are made private).
    pub mount: bool,
    /// New System V IPC / POSIX message-queue namespace.
    pub ipc: bool,
    /// New, empty network namespace.
    pub net: bool,
    /// New UTS namespace.
    pub uts: bool,
}

impl Namespaces {
    /// All of them.
    pub fn all() -> Self {
        Namespaces {
            pid: true,
            mount: true,
            ipc: true,
            net: true,
            uts: true,
        }
    }

    fn flags(&self) -> libc::c_ulong {
        let mut f = 0;
        if self.pid {
            f |= libc::CLONE_NEWPID;
        }
        if self.mount {
            f |= libc::CLONE_NEWNS;
        }
        if self.ipc {
            f |= libc::CLONE_NEWIPC;
        }
        if self.net {
            f |= libc::CLONE_NEWNET;
        }
        if self.uts {
            f |= libc::CLONE_NEWUTS;
        }
        f as libc::c_ulong
    }

    /// Human-readable list, e.g. `pid,mount,ipc,net,uts`.
    pub fn describe(&self) -> String {
        let mut v = Vec::new();
        for (on, n) in [
            (self.pid, "pid"),
            (self.mount, "mount"),
            (self.ipc, "ipc"),
            (self.net, "net"),
            (self.uts, "uts"),
        ] {
            if on {
                v.push(n);
            }
        }
        if v.is_empty() {
            "none".into()
        } else {
            v.join(",")
        }
    }
}

/// What to start.
#[derive(Debug)]
pub struct SpawnSpec {
    /// Executable path.
    pub path: CString,
    /// Working directory of the child (entered after its privileges are dropped, so that its
    /// own uid must be able to reach it); `None`: the parent's.
    pub cwd: Option<CString>,
    /// argv (argv[0] included).
    pub argv: Vec<CString>,
    /// Full environment.
    pub envp: Vec<CString>,
    /// File descriptors to install in the child: `(fd in the parent, number in the child)`.
    /// Every other descriptor is closed in the child.
    pub fds: Vec<(RawFd, RawFd)>,
    /// Namespaces.
    pub namespaces: Namespaces,
    /// CPUs the child is restricted to (empty: unchanged).
    pub cpus: Vec<u32>,
    /// `RLIMIT_RTPRIO` for the child (the highest SCHED_FIFO priority it may set without
    /// privileges), if any.
    pub rtprio_limit: Option<u64>,
    /// Privilege drop before `execve`: see [`Confinement`].
    pub confinement: Confinement,
    /// A connected `AF_UNIX` socket (the child's end): the child installs the task-creation
    /// notification filter ([`crate::creation`]) before its other filters and sends the
    /// listener over it. `None`: no such filter.
    pub creation_notify: Option<RawFd>,
    /// Host paths bound into the child's mount namespace, in order, before it drops its
    /// privileges (needs `namespaces.mount`: [`spawn`] refuses binds without it).
    pub binds: Vec<BindMount>,
}

/// A host path shown at another path in the child's mount namespace.
#[derive(Debug, Clone)]
pub struct BindMount {
    /// The host path.
    pub source: CString,
    /// Where the child sees it (an existing path).
    pub target: CString,
    /// Remounted read-only.
    pub read_only: bool,
}

/// What the child gives up before `execve`, in this order: it sets its resource limits, then
/// (after the manager's "go") enters `SCHED_FIFO` (so that it never needs
/// `sched_setscheduler` again), drops every capability
/// (bounding and ambient sets too), switches to its own user and group (no supplementary
/// groups), sets `PR_SET_NO_NEW_PRIVS` and loads the seccomp filters. It always starts a
/// session of its own (`setsid`: `kill(0, ..)` then reaches only the partition) and, when
/// possible, executes through a descriptor opened by the manager (`execveat` with
/// `AT_EMPTY_PATH`), so that the executable need not be reachable by path for the new uid.
#[derive(Debug, Clone, Default)]
pub struct Confinement {
    /// `(uid, gid)` to run as (needs root); `None` keeps the manager's identity.
    pub ids: Option<(u32, u32)>,
    /// `SCHED_FIFO` priority to start in; `None` leaves the policy inherited (or sets
    /// SCHED_OTHER, with `normal_policy`).
    pub fifo_priority: Option<i32>,
    /// Start in `SCHED_OTHER` whatever the manager's policy (general-purpose partitions);
    /// ignored when `fifo_priority` is given.
    pub normal_policy: bool,
    /// `RLIMIT_NPROC` (processes and threads of the uid).
    pub nproc_limit: Option<u64>,
    /// Seccomp filters to load (with `PR_SET_NO_NEW_PRIVS`).
    pub filters: Option<crate::seccomp::Filters>,
}

/// `_LINUX_CAPABILITY_VERSION_3`.
const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;

/// `struct __user_cap_header_struct`.
#[repr(C)]
struct CapHeader {
    version: u32,
    pid: i32,
}

/// `struct __user_cap_data_struct`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// Converts an `OsStr` to a `CString` (error on interior NUL).
pub fn cstring(s: &OsStr) -> Result<CString> {
    CString::new(s.as_bytes()).map_err(|e| SysError::io("argument with NUL byte", e.into()))
}

/// A child that has been cloned and waits for [`Spawned::go`].
#[derive(Debug)]
pub struct Spawned {
    /// Its PID (in our namespace).
    pub pid: i32,
    go: Option<OwnedFd>,
    /// Read end of the exec-status pipe: EOF when `execve` succeeded, 4 bytes of `errno` when
    /// it failed.
    pub exec_status: OwnedFd,
}

impl Spawned {
    /// Lets the child proceed to `execve`.
    pub fn go(&mut self) -> Result<()> {
        if let Some(fd) = self.go.take() {
            let b = [1u8];
            // SAFETY: writing one byte from a valid buffer to a pipe we own.
            let r = unsafe { libc::write(fd.as_raw_fd(), b.as_ptr().cast(), 1) };
            if r != 1 {
                return Err(SysError::last("write(go pipe)"));
            }
        }
        Ok(())
    }

    /// Takes the "go" end, to release the child later with [`release`].
    pub fn take_go(&mut self) -> Option<OwnedFd> {
        self.go.take()
    }

    /// Waits (blocking) for the exec result: `Ok(())` if `execve` succeeded.
    pub fn exec_result(&self) -> std::result::Result<(), std::io::Error> {
        let mut buf = [0u8; 4];
        let mut got = 0;
        while got < 4 {
            // SAFETY: reading into the unfilled tail of a valid buffer.
            let r = unsafe {
                libc::read(
                    self.exec_status.as_raw_fd(),
                    buf[got..].as_mut_ptr().cast(),
                    4 - got,
                )
            };
            if r == 0 {
                break;
            }
            if r < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            got += r as usize;
        }
        if got == 4 {
            Err(std::io::Error::from_raw_os_error(i32::from_ne_bytes(buf)))
        } else {
            Ok(())
        }
    }
}

/// Lets a child whose "go" end was taken with [`Spawned::take_go`] proceed to `execve`.
pub fn release(go: OwnedFd) -> Result<()> {
    let b = [1u8];
    // SAFETY: writing one byte from a valid buffer to a pipe we own.
    let r = unsafe { libc::write(go.as_raw_fd(), b.as_ptr().cast(), 1) };
    if r != 1 {
        return Err(SysError::last("write(go pipe)"));
    }
    Ok(())
}

fn pipe_cloexec() -> Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    check(
        unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) },
        "pipe2",
    )?;
    // SAFETY: both descriptors were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Creates a pipe whose two ends are close-on-exec: `(read, write)`.
pub fn pipe() -> Result<(OwnedFd, OwnedFd)> {
    pipe_cloexec()
}

/// Clones a child per `spec`. The child sets itself up and blocks until [`Spawned::go`].
/// If a namespace cannot be created (`EPERM`/`EINVAL`), the error is returned: the caller
/// decides whether to retry with fewer namespaces and must say so.
pub fn spawn(spec: &SpawnSpec) -> Result<Spawned> {
    if !spec.binds.is_empty() && !spec.namespaces.mount {
        // A bind outside a mount namespace of its own would change the host's mounts.
        return Err(SysError::io(
            "bind mounts without a mount namespace",
            std::io::ErrorKind::InvalidInput.into(),
        ));
    }
    let (go_r, go_w) = pipe_cloexec()?;
    let (st_r, st_w) = pipe_cloexec()?;
    let exec = open_executable(&spec.path);
    let mut child = Child::prepare(
        spec,
        go_r.as_raw_fd(),
        st_w.as_raw_fd(),
        exec.as_ref().map(AsRawFd::as_raw_fd),
    )?;
    let flags = spec.namespaces.flags() | libc::SIGCHLD as libc::c_ulong;
    // SAFETY: a fork-like clone (no CLONE_VM, null stack: the child gets a copy of our address
    // space and continues on its copy of this stack); no pointer is passed.
    let pid = unsafe { libc::syscall(libc::SYS_clone, flags, 0usize, 0usize, 0usize, 0usize) };
    if pid < 0 {
        return Err(SysError::last(format!(
            "clone(namespaces: {})",
            spec.namespaces.describe()
        )));
    }
    if pid == 0 {
        // SAFETY: this is the child of the fork-like clone above, and `child` was prepared
        // by its parent before it; `run` never returns.
        unsafe { child.run() }
    }
    Ok(Spawned {
        pid: pid as i32,
        go: Some(go_w),
        exec_status: st_r,
    })
}

/// The executable, opened now (as the manager): the child executes this descriptor, so the
/// partition's uid needs no search permission on the directories above it. `None` if it
/// cannot be opened: the child's `execve` by path then reports the error.
fn open_executable(path: &CString) -> Option<OwnedFd> {
    // SAFETY: a NUL-terminated path; the result is checked.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
    // SAFETY: a descriptor just opened and owned by nobody else.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proc::{wait, ExitKind};
    use std::io::Read;

    fn spec(path: &str, args: &[&str], fds: Vec<(RawFd, RawFd)>) -> SpawnSpec {
        let path = CString::new(path).unwrap();
        SpawnSpec {
            argv: std::iter::once(path.clone())
                .chain(args.iter().map(|a| CString::new(*a).unwrap()))
                .collect(),
            path,
            cwd: None,
            envp: vec![c"PATH=/usr/bin:/bin".into()],
            fds,
            namespaces: Namespaces::default(),
            cpus: Vec::new(),
            rtprio_limit: None,
            confinement: Confinement::default(),
            creation_notify: None,
            binds: Vec::new(),
        }
    }

    /// Runs `s` to its failed `execve`: the errno the child reported (it then exits 127).
    fn exec_errno(s: &SpawnSpec) -> i32 {
        let mut child = spawn(s).unwrap();
        child.go().unwrap();
        let e = child.exec_result().unwrap_err();
        assert_eq!(wait(child.pid), Some(ExitKind::Exited(127)));
        e.raw_os_error().expect("an errno")
    }

    #[test]
    fn the_child_gets_its_descriptors_at_their_numbers_and_only_after_go() {
        let (r, w) = pipe().unwrap();
        // The pipe's write end goes to number 7 whatever its number here; the shell writes
        // to 7 and checks that the go pipe (just above, 8) did not survive the exec.
        let script = "echo hello >&7; if (: <&8) 2>/dev/null; then echo go-open >&7; fi";
        let s = spec("/bin/sh", &["-c", script], vec![(w.as_raw_fd(), 7)]);
        let mut child = spawn(&s).unwrap();
        drop(w);
        // Before go the child is still a copy of this program, waiting.
        let exe = |pid: i32| std::fs::read_link(format!("/proc/{pid}/exe")).unwrap();
        assert_eq!(exe(child.pid), std::env::current_exe().unwrap());
        child.go().unwrap();
        assert!(child.exec_result().is_ok());
        let mut out = String::new();
        std::fs::File::from(r).read_to_string(&mut out).unwrap();
        assert_eq!(out, "hello\n");
        assert_eq!(wait(child.pid), Some(ExitKind::Exited(0)));
    }

    #[test]
    fn no_other_descriptor_of_the_parent_reaches_the_child() {
        let (r, w) = pipe().unwrap();
        // A descriptor without close-on-exec below the child's highest target number (40): it
        // is no target, so the child must close it (the numbers below the staging base used
        // to stay open).
        let (a, _b) = pipe().unwrap();
        // SAFETY: fcntl on a descriptor we own; the copy is owned right below.
        let fd = unsafe { libc::fcntl(a.as_raw_fd(), libc::F_DUPFD, 20) };
        assert!((20..40).contains(&fd), "F_DUPFD gave {fd}");
        // SAFETY: `fd` was just created and is owned by nobody else.
        let stray = unsafe { OwnedFd::from_raw_fd(fd) };
        // `ls` lists the descriptors it has: 0-2, its own directory descriptor, and 40.
        let fds = vec![(w.as_raw_fd(), 1), (w.as_raw_fd(), 40)];
        let s = spec("/bin/ls", &["/proc/self/fd"], fds);
        let mut child = spawn(&s).unwrap();
        drop(w);
        child.go().unwrap();
        assert!(child.exec_result().is_ok());
        let mut out = String::new();
        std::fs::File::from(r).read_to_string(&mut out).unwrap();
        let open: Vec<i32> = out.split_whitespace().map(|n| n.parse().unwrap()).collect();
        assert!(open.contains(&40), "the target is open: {open:?}");
        assert!(
            !open.contains(&fd),
            "descriptor {fd} leaked into the child: {open:?}"
        );
        assert_eq!(wait(child.pid), Some(ExitKind::Exited(0)));
        drop(stray);
    }

    #[test]
    fn an_exec_failure_comes_back_as_its_errno() {
        let s = spec("/nonexistent/partition", &[], Vec::new());
        assert_eq!(exec_errno(&s), libc::ENOENT);
    }

    #[test]
    fn the_child_runs_in_its_working_directory_and_a_missing_one_is_an_errno() {
        let (r, w) = pipe().unwrap();
        let mut s = spec("/bin/sh", &["-c", "pwd >&7"], vec![(w.as_raw_fd(), 7)]);
        s.cwd = Some(c"/proc".into());
        let mut child = spawn(&s).unwrap();
        drop(w);
        child.go().unwrap();
        assert!(child.exec_result().is_ok());
        let mut out = String::new();
        std::fs::File::from(r).read_to_string(&mut out).unwrap();
        assert_eq!(out, "/proc\n");
        assert_eq!(wait(child.pid), Some(ExitKind::Exited(0)));
        let mut s = spec("/bin/true", &[], Vec::new());
        s.cwd = Some(c"/nonexistent/run/dir".into());
        assert_eq!(exec_errno(&s), libc::ENOENT);
    }

    #[test]
    fn a_child_whose_go_pipe_closes_ends_without_exec() {
        let s = spec("/bin/true", &[], Vec::new());
        let mut child = spawn(&s).unwrap();
        drop(child.take_go());
        assert!(child.exec_result().is_ok(), "no errno: it did not try");
        assert_eq!(wait(child.pid), Some(ExitKind::Exited(0)));
    }
}
