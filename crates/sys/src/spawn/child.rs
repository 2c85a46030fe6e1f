// SPDX-License-Identifier: MIT OR Apache-2.0
//! The child side of [`super::spawn`]: what a partition process does between `clone` and
//! `execve`.
//!
//! It runs in a copy of a multi-threaded process (the manager), so it must not allocate, take
//! a lock or unwind: a lock held by another manager thread at the clone stays held forever in
//! the copy. It therefore only makes async-signal-safe system calls on memory the parent
//! prepared before the clone ([`Child::prepare`]), and the steps of [`Child::run`] write into
//! nothing but that memory. A failed step leaves `errno` set; [`Child::run`] writes it to the
//! exec-status pipe and exits with 127.

use super::{CapData, CapHeader, SpawnSpec, LINUX_CAPABILITY_VERSION_3};
use crate::seccomp::Filters;
use crate::{Result, SysError};
use std::os::fd::RawFd;

/// A step of the child failed; `errno` holds the cause.
struct Failed;

/// The outcome of one step of the child.
type Step = std::result::Result<(), Failed>;

/// `Err(Failed)` when a system call returned a negative value (-1 with `errno` set).
fn checked(ret: impl Into<i64>) -> Step {
    if ret.into() < 0 {
        Err(Failed)
    } else {
        Ok(())
    }
}

/// A descriptor of the parent that the child installs at a fixed number.
#[derive(Debug, Clone, Copy)]
struct Move {
    /// Its number in the parent (and so, right after the clone, in the child).
    from: RawFd,
    /// Its number in the child.
    to: RawFd,
    /// It stays open across `execve` (the partition's descriptors); the manager's own pipes
    /// and the executable close there.
    inherited: bool,
    /// Where the child stages it before installing (filled by the child).
    staged: RawFd,
}

/// Everything the child needs, prepared by the parent before the clone.
pub(super) struct Child<'a> {
    spec: &'a SpawnSpec,
    /// `spec.argv` as a null-terminated pointer array.
    argv: Vec<*const libc::c_char>,
    /// `spec.envp` as a null-terminated pointer array.
    envp: Vec<*const libc::c_char>,
    /// `spec.cpus` as a CPU set (`None`: the affinity stays inherited).
    cpus: Option<libc::cpu_set_t>,
    /// The exec-status pipe's write end as the parent numbers it.
    status: RawFd,
    /// Descriptor moves, the status pipe first (see [`Child::install_descriptors`]).
    moves: Vec<Move>,
    /// Lowest number the child stages descriptors at: above every number it installs.
    staging_base: RawFd,
    /// The "go" pipe's read end in the child.
    go_at: RawFd,
    /// The exec-status pipe's write end in the child.
    status_at: RawFd,
    /// The executable opened by the parent, at its number in the child (`None`: execute by
    /// path).
    exec_at: Option<RawFd>,
    /// The task-creation notification socket in the child, if any.
    notify_at: Option<RawFd>,
    /// The task-creation notification filter ([`crate::creation::program`]).
    creation_filter: Vec<libc::sock_filter>,
    /// A copy of the seccomp filters: the child writes its own pid into them.
    filters: Option<Filters>,
}

impl<'a> Child<'a> {
    /// Prepares the child of `spec`: `go` and `status` are the parent's ends of the "go" and
    /// exec-status pipes, `exec` the executable opened by the parent (if it could be).
    pub(super) fn prepare(
        spec: &'a SpawnSpec,
        go: RawFd,
        status: RawFd,
        exec: Option<RawFd>,
    ) -> Result<Self> {
        let nul_terminated = |strings: &[std::ffi::CString]| {
            strings
                .iter()
                .map(|s| s.as_ptr())
                .chain(std::iter::once(std::ptr::null()))
                .collect()
        };
        let filters = spec.confinement.filters.clone();
        if let Some(f) = &filters {
            if f.own_pid_slots.iter().any(|&i| i >= f.main.len()) {
                return Err(SysError::io(
                    "seccomp filter: own-pid slot past the program's end",
                    std::io::ErrorKind::InvalidInput.into(),
                ));
            }
        }
        // The fixed numbers go just above the partition's own descriptors.
        let top = spec.fds.iter().map(|&(_, to)| to).max().unwrap_or(2);
        let (go_at, status_at, exec_number, notify_number) = (top + 1, top + 2, top + 3, top + 4);
        let exec_at = exec.map(|_| exec_number);
        let notify_at = spec.creation_notify.map(|_| notify_number);
        let manager_move = |from, to| Move {
            from,
            to,
            inherited: false,
            staged: -1,
        };
        let mut moves = vec![manager_move(status, status_at), manager_move(go, go_at)];
        moves.extend(exec.map(|fd| manager_move(fd, exec_number)));
        moves.extend(
            spec.creation_notify
                .map(|fd| manager_move(fd, notify_number)),
        );
        moves.extend(spec.fds.iter().map(|&(from, to)| Move {
            from,
            to,
            inherited: true,
            staged: -1,
        }));
        Ok(Child {
            spec,
            argv: nul_terminated(&spec.argv),
            envp: nul_terminated(&spec.envp),
            cpus: (!spec.cpus.is_empty()).then(|| cpu_set(&spec.cpus)),
            status,
            moves,
            staging_base: notify_number + 1,
            go_at,
            status_at,
            exec_at,
            notify_at,
            creation_filter: crate::creation::program(),
            filters,
        })
    }

    /// The child's life until `execve`, one named step after the other; never returns.
    ///
    /// # Safety
    /// Only in the child of a fork-like `clone` (no `CLONE_VM`) of the process that prepared
    /// `self`, once: it takes over the process's descriptors, credentials and signal state.
    pub(super) unsafe fn run(&mut self) -> ! {
        let mut status = self.status;
        if self.steps(&mut status).is_err() {
            report_errno(status);
        }
        // SAFETY: _exit ends the process without running the parent's atexit handlers or
        // flushing its stdio buffers (copies of the parent's).
        unsafe { libc::_exit(127) }
    }

    /// The steps; returns only on failure. `status` follows the exec-status pipe as the
    /// descriptors are installed.
    fn steps(&mut self, status: &mut RawFd) -> Step {
        detach();
        self.private_mounts()?;
        self.bind_mounts()?;
        self.limits()?;
        self.install_descriptors(status)?;
        self.wait_for_go()?;
        self.enter_fifo()?;
        if let Some((uid, gid)) = self.spec.confinement.ids {
            drop_privileges(uid, gid)?;
        }
        self.enter_cwd()?;
        self.confine()?;
        self.exec();
        Err(Failed)
    }

    /// Private mount propagation and a `/proc` of the new PID namespace.
    fn private_mounts(&self) -> Step {
        let ns = self.spec.namespaces;
        if !ns.mount {
            return Ok(());
        }
        let null = std::ptr::null();
        // SAFETY: a NUL-terminated static path; null source, type and data are allowed for a
        // propagation change.
        checked(unsafe {
            libc::mount(
                null,
                c"/".as_ptr(),
                null,
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            )
        })?;
        if ns.pid {
            let proc = c"proc".as_ptr();
            let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
            // SAFETY: NUL-terminated static source, target and type; no data.
            checked(unsafe {
                libc::mount(proc, c"/proc".as_ptr(), proc, flags, std::ptr::null())
            })?;
        }
        Ok(())
    }

    /// The configured binds, each remounted read-only when asked (a bind mount takes the
    /// read-only flag only on a remount).
    fn bind_mounts(&self) -> Step {
        for b in &self.spec.binds {
            let null = std::ptr::null();
            // SAFETY: NUL-terminated source and target owned by the spec; null type and data
            // are allowed for a bind.
            checked(unsafe {
                libc::mount(
                    b.source.as_ptr(),
                    b.target.as_ptr(),
                    null,
                    libc::MS_BIND | libc::MS_REC,
                    std::ptr::null(),
                )
            })?;
            if b.read_only {
                let flags = libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY;
                // SAFETY: as above, a remount of the bind just made.
                checked(unsafe {
                    libc::mount(null, b.target.as_ptr(), null, flags, std::ptr::null())
                })?;
            }
        }
        Ok(())
    }

    /// CPU affinity and resource limits.
    fn limits(&self) -> Step {
        if let Some(set) = &self.cpus {
            // SAFETY: `set` is a valid cpu_set_t of the size passed. A refusal (CPUs not in
            // the manager's own set) leaves the inherited affinity: the cpuset cgroup the
            // manager moves the child into restricts it anyway.
            unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) };
        }
        if let Some(l) = self.spec.rtprio_limit {
            // Refused only when the inherited hard limit is lower (raising it needs
            // CAP_SYS_RESOURCE): the child then keeps that lower limit, and with every
            // capability dropped it cannot raise a priority above it (the manager's raise
            // broker serves the runtime, see docs/priority-raising.md).
            let _ = set_limit(libc::RLIMIT_RTPRIO, l);
        }
        if let Some(n) = self.spec.confinement.nproc_limit {
            set_limit(libc::RLIMIT_NPROC, n)?;
        }
        if self.spec.confinement.ids.is_some() {
            // A partition that crashes in a loop must not fill the disk with core files (best
            // effort: lowering a limit is always allowed).
            let _ = set_limit(libc::RLIMIT_CORE, 0);
        }
        Ok(())
    }

    /// Puts every descriptor at its number: first each is duplicated above all target
    /// numbers (`F_DUPFD_CLOEXEC` picks the lowest free number at or above the base, so it
    /// never clobbers a source or a target), then each staged copy is installed at its target
    /// (the exec-status pipe first, so that a later failure is reported through it), then
    /// every other descriptor above 2 is closed: from the base up, and the numbers below it
    /// that are no target (the parent's ends of the go and status pipes can sit there; a
    /// copy of the go pipe's write end would keep the child from seeing it close).
    fn install_descriptors(&mut self, status: &mut RawFd) -> Step {
        let base = self.staging_base;
        for m in self.moves.iter_mut() {
            // SAFETY: fcntl on a descriptor number; no memory is passed.
            m.staged = unsafe { libc::fcntl(m.from, libc::F_DUPFD_CLOEXEC, base) };
            checked(m.staged)?;
        }
        for m in &self.moves {
            let flags = if m.inherited { 0 } else { libc::O_CLOEXEC };
            // SAFETY: dup3 on descriptor numbers (the staged copy is above the target, never
            // equal to it); no memory is passed.
            checked(unsafe { libc::dup3(m.staged, m.to, flags) })?;
            if m.to == self.status_at {
                *status = self.status_at;
            }
        }
        for n in 3..base {
            if !self.moves.iter().any(|m| m.to == n) {
                // SAFETY: close on a number that is no target: this process's copy of a
                // parent descriptor, used by nothing after this point.
                unsafe { libc::close(n) };
            }
        }
        // SAFETY: close_range on numbers only; the closed descriptors are this process's
        // copies, used by nothing after this point.
        unsafe { libc::syscall(libc::SYS_close_range, base as u32, u32::MAX, 0u32) };
        Ok(())
    }

    /// Blocks until the manager writes the "go" byte: it puts the child in its cgroups and
    /// freezes or stops it first. The manager closing the pipe instead ends the child.
    fn wait_for_go(&self) -> Step {
        let mut byte = 0u8;
        loop {
            // SAFETY: reads at most one byte into a local byte.
            let r = unsafe { libc::read(self.go_at, (&mut byte as *mut u8).cast(), 1) };
            match r {
                1 => break,
                // SAFETY: _exit without the parent's atexit handlers (see `run`).
                0 => unsafe { libc::_exit(0) },
                _ if errno() == libc::EINTR => continue,
                _ => return Err(Failed),
            }
        }
        // SAFETY: closes the child's own copy of the pipe, used by nothing after this.
        unsafe { libc::close(self.go_at) };
        Ok(())
    }

    /// Enters `SCHED_FIFO` at the configured priority, or `SCHED_OTHER` when asked (see
    /// [`super::Confinement::normal_policy`]). Refused without privileges: a child
    /// that keeps the manager's identity then runs without real-time priorities (it cannot
    /// enter SCHED_FIFO later under the filter); a confined one fails.
    fn enter_fifo(&self) -> Step {
        let conf = &self.spec.confinement;
        let Some(p) = conf.fifo_priority else {
            if conf.normal_policy {
                let param = libc::sched_param { sched_priority: 0 };
                // SAFETY: `param` is a valid sched_param for the call; leaving a real-time
                // policy needs no privilege.
                checked(unsafe { libc::sched_setscheduler(0, libc::SCHED_OTHER, &param) })?;
            }
            return Ok(());
        };
        let param = libc::sched_param { sched_priority: p };
        // SAFETY: `param` is a valid sched_param for the call.
        let r = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) };
        if r != 0 && conf.ids.is_some() {
            return Err(Failed);
        }
        Ok(())
    }

    /// `PR_SET_NO_NEW_PRIVS`, then the task-creation notification filter (first, so that its
    /// listener is sent before the allow-list could refuse anything), then the allow-list
    /// filters with the child's own pid written into them.
    fn confine(&mut self) -> Step {
        // SAFETY: prctl with integer arguments only.
        checked(unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) })?;
        if let Some(sock) = self.notify_at {
            let prog = &self.creation_filter;
            // SAFETY: `prog` holds `prog.len()` valid instructions; `sock` is the connected
            // socket installed at this number; PR_SET_NO_NEW_PRIVS is set.
            checked(unsafe { crate::creation::send_listener(prog.as_ptr(), prog.len(), sock) })?;
            // SAFETY: closes the child's own copy of the socket, used by nothing after this.
            unsafe { libc::close(sock) };
        }
        if let Some(f) = self.filters.as_mut() {
            // SAFETY: getpid has no arguments.
            let me = unsafe { libc::getpid() } as u32;
            for &i in &f.own_pid_slots {
                f.main[i].k = me; // in range: checked by `prepare`
            }
            load_filter(&mut f.prefix)?;
            load_filter(&mut f.main)?;
        }
        Ok(())
    }

    /// Enters the working directory, if the spec names one.
    fn enter_cwd(&self) -> Step {
        match &self.spec.cwd {
            // SAFETY: a NUL-terminated path owned by the spec.
            Some(dir) => checked(unsafe { libc::chdir(dir.as_ptr()) }),
            None => Ok(()),
        }
    }

    /// Executes the partition: through the descriptor the parent opened, or by path. Returns
    /// only on failure.
    fn exec(&self) {
        let (argv, envp) = (self.argv.as_ptr(), self.envp.as_ptr());
        match self.exec_at {
            // SAFETY: `fd` is the executable's descriptor, the path is the empty C string
            // AT_EMPTY_PATH asks for, `argv` and `envp` are null-terminated arrays of pointers
            // to the spec's C strings, alive in this copy of the parent's memory.
            Some(fd) => unsafe {
                libc::syscall(
                    libc::SYS_execveat,
                    fd,
                    c"".as_ptr(),
                    argv,
                    envp,
                    libc::AT_EMPTY_PATH,
                );
            },
            // SAFETY: a NUL-terminated path; `argv` and `envp` as above.
            None => unsafe {
                libc::execve(self.spec.path.as_ptr(), argv, envp);
            },
        }
    }
}

/// `cpus` as a CPU set (numbers past `CPU_SETSIZE` left out).
fn cpu_set(cpus: &[u32]) -> libc::cpu_set_t {
    // SAFETY: cpu_set_t is plain data; all zeroes is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        if (c as usize) < libc::CPU_SETSIZE as usize {
            // SAFETY: the index is below CPU_SETSIZE, inside the set.
            unsafe { libc::CPU_SET(c as usize, &mut set) };
        }
    }
    set
}

/// Leaves the manager's session and signal state: killed with the manager, a session and
/// process group of its own (`kill(0, ..)` then reaches only the partition), default signal
/// dispositions and an empty mask (the manager blocks some signals).
fn detach() {
    // SAFETY: prctl and setsid with integer arguments only.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        libc::setsid();
    }
    // SAFETY: sigset_t is plain data, initialised by sigemptyset before use; the mask call
    // reads it and writes no old mask (null).
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
    }
    for s in (1..32).filter(|&s| s != libc::SIGKILL && s != libc::SIGSTOP) {
        // SAFETY: SIG_DFL for a catchable signal number; no handler code is involved.
        unsafe { libc::signal(s, libc::SIG_DFL) };
    }
}

/// Drops every capability (bounding and ambient sets too) and switches to `uid`/`gid` with
/// no supplementary groups, then checks that no capability is left. Raw system calls: glibc's
/// set*id wrappers would try to synchronise threads that only exist in the parent.
fn drop_privileges(uid: u32, gid: u32) -> Step {
    for cap in 0..64 {
        // SAFETY: prctl with integer arguments only.
        if unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) } != 0 {
            if errno() == libc::EINVAL {
                break; // past the last capability this kernel knows
            }
            return Err(Failed);
        }
    }
    // SAFETY: prctl and the id system calls take integers; setgroups gets a zero count and a
    // null list.
    unsafe {
        let clear = libc::PR_CAP_AMBIENT_CLEAR_ALL;
        libc::prctl(libc::PR_CAP_AMBIENT, clear, 0, 0, 0);
        checked(libc::syscall(
            libc::SYS_setgroups,
            0usize,
            std::ptr::null::<libc::gid_t>(),
        ))?;
        checked(libc::syscall(libc::SYS_setresgid, gid, gid, gid))?;
        checked(libc::syscall(libc::SYS_setresuid, uid, uid, uid))?;
    }
    // Changing uid from 0 cleared the permitted and effective sets; set all three to nothing
    // (CAP_SYS_NICE included, on every host: the runtime never needs to raise a priority
    // itself) and check the result.
    let mut header = CapHeader {
        version: LINUX_CAPABILITY_VERSION_3,
        pid: 0,
    };
    let mut data = [CapData::default(); 2];
    // SAFETY: a version-3 header and the two data structs version 3 reads.
    checked(unsafe { libc::syscall(libc::SYS_capset, &mut header, data.as_ptr()) })?;
    // SAFETY: a version-3 header and room for the two data structs version 3 writes.
    checked(unsafe { libc::syscall(libc::SYS_capget, &mut header, data.as_mut_ptr()) })?;
    if data
        .iter()
        .any(|d| d.effective != 0 || d.permitted != 0 || d.inheritable != 0)
    {
        set_errno(libc::EPERM);
        return Err(Failed);
    }
    // A credential change clears the parent-death signal: set it again.
    // SAFETY: prctl with integer arguments only.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) };
    Ok(())
}

/// Sets both the soft and the hard `resource` limit to `value`.
fn set_limit(resource: libc::__rlimit_resource_t, value: u64) -> Step {
    let limit = libc::rlimit {
        rlim_cur: value,
        rlim_max: value,
    };
    // SAFETY: `limit` is a valid rlimit for the call.
    checked(unsafe { libc::setrlimit(resource, &limit) })
}

/// Loads one seccomp filter program on the calling thread.
fn load_filter(program: &mut [libc::sock_filter]) -> Step {
    let prog = libc::sock_fprog {
        len: program.len() as u16,
        filter: program.as_mut_ptr(),
    };
    // SAFETY: `prog` describes `program`, which outlives the call (the kernel copies it).
    checked(unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            0u32,
            &prog as *const libc::sock_fprog,
        )
    })
}

/// The calling thread's `errno`.
fn errno() -> i32 {
    // SAFETY: __errno_location returns the calling thread's errno slot, always valid.
    unsafe { *libc::__errno_location() }
}

/// Sets the calling thread's `errno`.
fn set_errno(e: i32) {
    // SAFETY: as in `errno`.
    unsafe { *libc::__errno_location() = e };
}

/// Writes `errno` (4 bytes) to the exec-status pipe `status`.
fn report_errno(status: RawFd) {
    let bytes = errno().to_ne_bytes();
    // SAFETY: writes 4 bytes from a local array. Nothing is left to do if it fails: the
    // manager then sees the pipe close without a status, and the child's exit code 127.
    unsafe { libc::write(status, bytes.as_ptr().cast(), bytes.len()) };
}
