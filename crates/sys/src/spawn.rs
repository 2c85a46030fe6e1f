//! Starting a partition process: `clone` into new namespaces, then wait for the manager's
//! "go" before `execve`.
//!
//! The child side runs between `clone` and `execve` in a copy of a multi-threaded process, so
//! it only makes async-signal-safe system calls on memory prepared by the parent (no
//! allocation, no locks).

use crate::{check, Result, SysError};
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
}

/// What the child gives up before `execve`, in this order: it enters `SCHED_FIFO` (so that it
/// never needs `sched_setscheduler` again), sets its resource limits, drops every capability
/// (bounding and ambient sets too), switches to its own user and group (no supplementary
/// groups), sets `PR_SET_NO_NEW_PRIVS` and loads the seccomp filters. It always starts a
/// session of its own (`setsid`: `kill(0, ..)` then reaches only the partition) and, when
/// possible, executes through a descriptor opened by the manager (`execveat` with
/// `AT_EMPTY_PATH`), so that the executable need not be reachable by path for the new uid.
#[derive(Debug, Clone, Default)]
pub struct Confinement {
    /// `(uid, gid)` to run as (needs root); `None` keeps the manager's identity.
    pub ids: Option<(u32, u32)>,
    /// `SCHED_FIFO` priority to start in; `None` leaves the policy inherited.
    pub fifo_priority: Option<i32>,
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
    let (go_r, go_w) = pipe_cloexec()?;
    let (st_r, st_w) = pipe_cloexec()?;
    let mut argv: Vec<*const libc::c_char> = spec.argv.iter().map(|a| a.as_ptr()).collect();
    argv.push(std::ptr::null());
    let mut envp: Vec<*const libc::c_char> = spec.envp.iter().map(|a| a.as_ptr()).collect();
    envp.push(std::ptr::null());
    // SAFETY: cpu_set_t is plain data; zeroed is the empty set.
    let mut cpuset: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in &spec.cpus {
        if (c as usize) < libc::CPU_SETSIZE as usize {
            // SAFETY: index checked against CPU_SETSIZE.
            unsafe { libc::CPU_SET(c as usize, &mut cpuset) };
        }
    }
    // Highest descriptor number the child installs; the go and status pipes go above it.
    let max_target = spec.fds.iter().map(|&(_, t)| t).max().unwrap_or(2);
    let go_fd = max_target + 1;
    let st_fd = max_target + 2;
    let mut staged: Vec<RawFd> = vec![-1; spec.fds.len()];
    let staged_ptr = staged.as_mut_ptr();
    let flags = spec.namespaces.flags() | libc::SIGCHLD as libc::c_ulong;
    // The executable, opened now (as the manager): the child executes this descriptor, so
    // the partition's uid needs no search permission on the directories above it. If it
    // cannot be opened, the child's execve by path reports the error.
    // SAFETY: a NUL-terminated path; the result is checked.
    let exec_fd = unsafe { libc::open(spec.path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
    // SAFETY: a descriptor just opened and owned by nobody else.
    let exec_owned = (exec_fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(exec_fd) });
    let ex_fd = max_target + 3;
    let nt_fd = max_target + 4;
    let base = nt_fd + 1;
    let creation_prog = crate::creation::program();
    let conf = &spec.confinement;
    // Mutable copies of the filters: the child writes its own pid into them.
    let mut filters = conf.filters.clone();
    let filter_ptrs = filters.as_mut().map(|f| {
        (
            f.prefix.as_mut_ptr(),
            f.prefix.len(),
            f.main.as_mut_ptr(),
            f.main.len(),
        )
    });
    let own_pid_slots: &[usize] = conf
        .filters
        .as_ref()
        .map(|f| f.own_pid_slots.as_slice())
        .unwrap_or(&[]);
    let empty = c"";
    let proc_c = c"/proc";
    let proc_t = c"proc";
    let root = c"/";

    // SAFETY: a fork-like clone (no CLONE_VM, null stack: the child gets a copy of our address
    // space). In the child we only call async-signal-safe functions on memory prepared above,
    // then execve or _exit.
    let pid = unsafe { libc::syscall(libc::SYS_clone, flags, 0usize, 0usize, 0usize, 0usize) };
    if pid < 0 {
        return Err(SysError::last(format!(
            "clone(namespaces: {})",
            spec.namespaces.describe()
        )));
    }
    if pid == 0 {
        // Child. SAFETY (whole block): async-signal-safe system calls only, on data prepared
        // by the parent before the clone; every failure ends in _exit.
        unsafe {
            let fail = |st: RawFd| -> ! {
                let e = *libc::__errno_location();
                let b = e.to_ne_bytes();
                libc::write(st, b.as_ptr().cast(), 4);
                libc::_exit(127)
            };
            let st = st_w.as_raw_fd();
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            // A session (and process group) of its own: not the manager's.
            libc::setsid();
            // Default signal dispositions and an empty mask (the manager blocks some).
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
            for s in 1..32 {
                if s != libc::SIGKILL && s != libc::SIGSTOP {
                    libc::signal(s, libc::SIG_DFL);
                }
            }
            if spec.namespaces.mount {
                if libc::mount(
                    std::ptr::null(),
                    root.as_ptr(),
                    std::ptr::null(),
                    libc::MS_REC | libc::MS_PRIVATE,
                    std::ptr::null(),
                ) != 0
                {
                    fail(st);
                }
                if spec.namespaces.pid
                    && libc::mount(
                        proc_t.as_ptr(),
                        proc_c.as_ptr(),
                        proc_t.as_ptr(),
                        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                        std::ptr::null(),
                    ) != 0
                {
                    fail(st);
                }
            }
            if !spec.cpus.is_empty() {
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &cpuset);
            }
            if let Some(l) = spec.rtprio_limit {
                let rl = libc::rlimit {
                    rlim_cur: l,
                    rlim_max: l,
                };
                // Refused only when the inherited hard limit is lower (raising it needs
                // CAP_SYS_RESOURCE): the child then keeps that lower limit, and with every
                // capability dropped it cannot raise a priority above it (the manager's raise broker
                // serves the runtime then, see docs/priority-raising.md).
                let _ = libc::setrlimit(libc::RLIMIT_RTPRIO, &rl);
            }
            if let Some(n) = conf.nproc_limit {
                let rl = libc::rlimit {
                    rlim_cur: n,
                    rlim_max: n,
                };
                if libc::setrlimit(libc::RLIMIT_NPROC, &rl) != 0 {
                    fail(st);
                }
            }
            if conf.ids.is_some() {
                // A partition that crashes in a loop must not fill the disk with core files.
                let rl = libc::rlimit {
                    rlim_cur: 0,
                    rlim_max: 0,
                };
                libc::setrlimit(libc::RLIMIT_CORE, &rl);
            }
            // Stage every descriptor above all targets (F_DUPFD picks the lowest free number
            // >= base, so it never clobbers a source or a target), then install.
            for (i, &(src, _)) in spec.fds.iter().enumerate() {
                let fd = libc::fcntl(src, libc::F_DUPFD_CLOEXEC, base);
                if fd < 0 {
                    fail(st);
                }
                *staged_ptr.add(i) = fd;
            }
            let ex_staged = if exec_fd >= 0 {
                let fd = libc::fcntl(exec_fd, libc::F_DUPFD_CLOEXEC, base);
                if fd < 0 {
                    fail(st);
                }
                fd
            } else {
                -1
            };
            let nt_staged = match spec.creation_notify {
                Some(fd) => {
                    let s = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, base);
                    if s < 0 {
                        fail(st);
                    }
                    s
                }
                None => -1,
            };
            let go_staged = libc::fcntl(go_r.as_raw_fd(), libc::F_DUPFD_CLOEXEC, base);
            let st_staged = libc::fcntl(st, libc::F_DUPFD_CLOEXEC, base);
            if go_staged < 0 || st_staged < 0 {
                fail(st);
            }
            let st = st_staged;
            for (i, &(_, target)) in spec.fds.iter().enumerate() {
                if libc::dup2(*staged_ptr.add(i), target) < 0 {
                    fail(st);
                }
            }
            if libc::dup2(go_staged, go_fd) < 0 || libc::dup3(st, st_fd, libc::O_CLOEXEC) < 0 {
                fail(st);
            }
            let st = st_fd;
            if ex_staged >= 0 && libc::dup3(ex_staged, ex_fd, libc::O_CLOEXEC) < 0 {
                fail(st);
            }
            if nt_staged >= 0 && libc::dup3(nt_staged, nt_fd, libc::O_CLOEXEC) < 0 {
                fail(st);
            }
            libc::syscall(libc::SYS_close_range, (nt_fd + 1) as u32, u32::MAX, 0u32);
            // Wait for the manager: it moves us into our cgroups and freezes or stops us first.
            let mut b = 0u8;
            loop {
                let r = libc::read(go_fd, (&mut b as *mut u8).cast(), 1);
                if r == 1 {
                    break;
                }
                if r == 0 {
                    libc::_exit(0);
                }
                if *libc::__errno_location() != libc::EINTR {
                    fail(st);
                }
            }
            libc::close(go_fd);
            if let Some(p) = conf.fifo_priority {
                let sp = libc::sched_param { sched_priority: p };
                // Refused without privileges: the runtime then runs without real-time
                // priorities (it cannot enter SCHED_FIFO later under the filter).
                if libc::sched_setscheduler(0, libc::SCHED_FIFO, &sp) != 0 && conf.ids.is_some() {
                    fail(st);
                }
            }
            if let Some((uid, gid)) = conf.ids {
                // Raw system calls: glibc's set*id wrappers would try to synchronise threads
                // that only exist in the parent.
                for cap in 0..64 {
                    if libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 {
                        if *libc::__errno_location() == libc::EINVAL {
                            break;
                        }
                        fail(st);
                    }
                }
                libc::prctl(
                    libc::PR_CAP_AMBIENT,
                    libc::PR_CAP_AMBIENT_CLEAR_ALL,
                    0,
                    0,
                    0,
                );
                if libc::syscall(libc::SYS_setgroups, 0usize, std::ptr::null::<libc::gid_t>()) != 0
                    || libc::syscall(libc::SYS_setresgid, gid, gid, gid) != 0
                    || libc::syscall(libc::SYS_setresuid, uid, uid, uid) != 0
                {
                    fail(st);
                }
                // Changing uid from 0 cleared the permitted and effective sets; set all three
                // to nothing (CAP_SYS_NICE included, on every host: the runtime never needs to
                // raise a priority itself) and check the result.
                let mut hdr = CapHeader {
                    version: LINUX_CAPABILITY_VERSION_3,
                    pid: 0,
                };
                let mut data = [
                    CapData {
                        effective: 0,
                        permitted: 0,
                        inheritable: 0,
                    },
                    CapData::default(),
                ];
                if libc::syscall(libc::SYS_capset, &mut hdr, data.as_ptr()) != 0 {
                    fail(st);
                }
                data = [CapData::default(); 2];
                if libc::syscall(libc::SYS_capget, &mut hdr, data.as_mut_ptr()) != 0 {
                    fail(st);
                }
                if data[0].effective != 0
                    || data[0].permitted != 0
                    || data[0].inheritable != 0
                    || data[1].effective != 0
                    || data[1].permitted != 0
                    || data[1].inheritable != 0
                {
                    *libc::__errno_location() = libc::EPERM;
                    fail(st);
                }
                // A credential change clears the parent-death signal: set it again.
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            }
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                fail(st);
            }
            // Task creations go to the manager (crate::creation); installed first, so the
            // listener is sent before the allow-list could refuse anything.
            if nt_staged >= 0 {
                if crate::creation::send_listener(
                    creation_prog.as_ptr(),
                    creation_prog.len(),
                    nt_fd,
                ) != 0
                {
                    fail(st);
                }
                libc::close(nt_fd);
            }
            if let Some((pre, pre_len, main, main_len)) = filter_ptrs {
                let me = libc::getpid() as u32;
                for &i in own_pid_slots {
                    (*main.add(i)).k = me;
                }
                for (ptr, len) in [(pre, pre_len), (main, main_len)] {
                    let prog = libc::sock_fprog {
                        len: len as u16,
                        filter: ptr,
                    };
                    if libc::syscall(
                        libc::SYS_seccomp,
                        libc::SECCOMP_SET_MODE_FILTER,
                        0u32,
                        &prog as *const libc::sock_fprog,
                    ) != 0
                    {
                        fail(st);
                    }
                }
            }
            if exec_fd >= 0 {
                libc::syscall(
                    libc::SYS_execveat,
                    ex_fd,
                    empty.as_ptr(),
                    argv.as_ptr(),
                    envp.as_ptr(),
                    libc::AT_EMPTY_PATH,
                );
            } else {
                libc::execve(spec.path.as_ptr(), argv.as_ptr(), envp.as_ptr());
            }
            fail(st);
        }
    }
    drop(go_r);
    drop(st_w);
    drop(exec_owned);
    drop(filters);
    Ok(Spawned {
        pid: pid as i32,
        go: Some(go_w),
        exec_status: st_r,
    })
}
