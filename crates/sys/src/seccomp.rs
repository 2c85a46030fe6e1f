// SPDX-License-Identifier: MIT OR Apache-2.0
//! The system-call filter of every partition (seccomp-BPF), compiled with `seccompiler`.
//!
//! Deny by default: a system call that is not on the allow-list ([`ALLOWED`]) makes the kernel
//! skip it and send `SIGSYS` (`SECCOMP_RET_TRAP`) to the calling thread, which the partition
//! runtime reports to the health monitor as ILLEGAL_REQUEST (a program without a handler dies
//! of it and the manager records the same error). A few calls are allowed only with
//! particular arguments ([`Args`]): signals only to the partition's own process, CPU affinity
//! only of the calling thread, `prctl` only with harmless options, `clone` without namespace
//! flags. Every entry carries its reason; `docs/seccomp.md` is the reviewed list and a test
//! keeps it in step with this table.
//!
//! Two filters are installed here (a third, `crate::creation`, hands task creations to the
//! manager): `Filters::prefix` makes `clone3` fail with `ENOSYS` (its flags are behind a
//! pointer a BPF program cannot read, and glibc then falls back to `clone`, whose flags it can
//! check), and `Filters::main` is the allow-list. Compiling them (`filter`) is the manager's
//! work (`host` feature); the tables are also read by the partition runtime, which names the
//! calls the filter refused.
//!
//! The partition's own process id (1 in its PID namespace) is not known before `clone`: the
//! filter is compiled with a placeholder in every comparison against it, and the child
//! writes its `getpid()` into those instructions (`Filters::own_pid_slots`) before loading
//! it, without allocating.

// Compiling the filter is the manager's work: the partition runtime uses only the tables.
#[cfg(feature = "host")]
mod filter;
#[cfg(feature = "host")]
pub use filter::{compile, FilterError, Filters};

/// The name of system call `nr` if the tables know it.
pub fn syscall_name(nr: i64) -> Option<&'static str> {
    ALLOWED
        .iter()
        .chain(GENERAL)
        .map(|a| (a.nr, a.name))
        .chain(DENIED.iter().map(|d| (d.nr, d.name)))
        .find(|&(n, _)| n == nr)
        .map(|(_, name)| name)
}

/// Which allow-list a partition runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// An APEX partition: [`ALLOWED`].
    Apex,
    /// A general-purpose partition (ordinary Linux programs, no APEX runtime): [`ALLOWED`]
    /// with [`GENERAL`] added, an entry of [`GENERAL`] replacing the one of the same call.
    General,
}

impl Profile {
    /// The allow-list of the profile, one entry per call.
    pub fn allowed(self) -> Vec<Allowed> {
        let mut list = ALLOWED.to_vec();
        if self == Profile::General {
            for g in GENERAL {
                match list.iter_mut().find(|a| a.nr == g.nr) {
                    Some(a) => *a = *g,
                    None => list.push(*g),
                }
            }
        }
        list
    }
}

/// Condition under which an allowed call passes the filter.
#[derive(Debug, Clone, Copy)]
pub enum Args {
    /// Any arguments.
    Any,
    /// Argument `.0` (32 bits) is one of `.1`.
    OneOf(u8, &'static [u64]),
    /// Argument `.0` (32 bits) is 0 (the caller itself, or its own process group) or the
    /// partition's own process id.
    SelfOrZero(u8),
    /// Argument `.0` (32 bits) is the partition's own process id.
    SelfOnly(u8),
    /// Argument `.0` (64 bits) has none of the bits of `.1`.
    NoBits(u8, u64),
}

/// One allowed system call.
#[derive(Debug, Clone, Copy)]
pub struct Allowed {
    /// Name (as in `man 2`).
    pub name: &'static str,
    /// Number on this architecture.
    pub nr: i64,
    /// Argument condition.
    pub args: Args,
    /// Why a partition needs it, and why it cannot harm another partition.
    pub reason: &'static str,
}

/// One system call denied on purpose (not on the allow-list), named so that a trap can be
/// reported by name and the documentation lists it.
#[derive(Debug, Clone, Copy)]
pub struct Denied {
    /// Name.
    pub name: &'static str,
    /// Number on this architecture.
    pub nr: i64,
    /// What it could do to another partition or the host.
    pub reason: &'static str,
}

/// Namespace flags of `clone` (`CLONE_NEWTIME` lives in `clone3`/`unshare` only).
const CLONE_NS_FLAGS: u64 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWCGROUP
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET) as u64;

/// `prctl` options a partition may use.
const PRCTL_OPTIONS: &[u64] = &[
    libc::PR_GET_PDEATHSIG as u64,
    libc::PR_GET_DUMPABLE as u64,
    libc::PR_SET_NAME as u64,
    libc::PR_GET_NAME as u64,
    libc::PR_GET_SECCOMP as u64,
    libc::PR_CAPBSET_READ as u64,
    libc::PR_SET_TIMERSLACK as u64,
    libc::PR_GET_TIMERSLACK as u64,
    libc::PR_GET_NO_NEW_PRIVS as u64,
    0x5356_4d41, // PR_SET_VMA (glibc names anonymous mappings)
];

/// `ioctl` requests a partition may use (terminal queries of glibc/Rust, descriptor flags).
// The request constants are `c_ulong` on glibc x86_64 but `c_int` on other targets.
#[allow(clippy::unnecessary_cast)]
const IOCTL_REQUESTS: &[u64] = &[
    libc::TCGETS as u64,
    libc::TIOCGWINSZ as u64,
    libc::FIONREAD as u64,
    libc::FIONBIO as u64,
    libc::FIOCLEX as u64,
    libc::FIONCLEX as u64,
];

const AF_UNIX_ONLY: &[u64] = &[libc::AF_UNIX as u64];
const ZERO: &[u64] = &[0];

const fn al(name: &'static str, nr: i64, args: Args, reason: &'static str) -> Allowed {
    Allowed {
        name,
        nr,
        args,
        reason,
    }
}

const fn de(name: &'static str, nr: i64, reason: &'static str) -> Denied {
    Denied { name, nr, reason }
}

use libc as l;
use Args::{Any, NoBits, OneOf, SelfOnly, SelfOrZero};

const MEM: &str = "own address space; every page is charged to the partition's memory cgroup";
const FD: &str = "I/O on descriptors the partition already holds (its pipes, port memfds, files its uid may open)";
const FS: &str = "file-system access, limited by the partition's own uid and its mount namespace";
const POLL: &str = "waiting on own descriptors";
const TIME: &str =
    "reading clocks and sleeping; clock_nanosleep/futex time-outs are how APEX waits";
const TIMERS: &str = "timers of the caller; their signals reach only its own threads";
const SIG: &str = "signal handling of the caller's own threads (fault handlers, alternate stacks)";
const ID: &str = "reading the caller's own identity";
const SCHED_READ: &str = "reading scheduling parameters (no effect)";

/// The allow-list.
pub static ALLOWED: &[Allowed] = &[
    // Memory.
    al("brk", l::SYS_brk, Any, MEM),
    al("mmap", l::SYS_mmap, Any, MEM),
    al("munmap", l::SYS_munmap, Any, MEM),
    al("mprotect", l::SYS_mprotect, Any, "own mappings only; a port mapped read-only by the manager is a read-only memfd (F_SEAL or O_RDONLY): mprotect cannot add PROT_WRITE to it"),
    al("mremap", l::SYS_mremap, Any, MEM),
    al("madvise", l::SYS_madvise, Any, MEM),
    al("msync", l::SYS_msync, Any, MEM),
    al("mincore", l::SYS_mincore, Any, MEM),
    al("mlock", l::SYS_mlock, Any, "locking own pages (bounded by RLIMIT_MEMLOCK and the memory cgroup)"),
    al("mlock2", l::SYS_mlock2, Any, "as mlock"),
    al("munlock", l::SYS_munlock, Any, "as mlock"),
    al("mlockall", l::SYS_mlockall, Any, "as mlock"),
    al("munlockall", l::SYS_munlockall, Any, "as mlock"),
    al("membarrier", l::SYS_membarrier, Any, "memory barriers across the caller's own threads (some runtimes use it)"),
    al("memfd_create", l::SYS_memfd_create, Any, "anonymous memory of the partition, charged to its memory cgroup"),
    // Descriptors and files.
    al("read", l::SYS_read, Any, FD),
    al("write", l::SYS_write, Any, FD),
    al("readv", l::SYS_readv, Any, FD),
    al("writev", l::SYS_writev, Any, FD),
    al("pread64", l::SYS_pread64, Any, FD),
    al("pwrite64", l::SYS_pwrite64, Any, FD),
    al("preadv", l::SYS_preadv, Any, FD),
    al("pwritev", l::SYS_pwritev, Any, FD),
    al("preadv2", l::SYS_preadv2, Any, FD),
    al("pwritev2", l::SYS_pwritev2, Any, FD),
    al("lseek", l::SYS_lseek, Any, FD),
    al("close", l::SYS_close, Any, FD),
    al("close_range", l::SYS_close_range, Any, FD),
    al("dup", l::SYS_dup, Any, FD),
    al("dup3", l::SYS_dup3, Any, FD),
    al("fcntl", l::SYS_fcntl, Any, FD),
    al("fstat", l::SYS_fstat, Any, FD),
    al("fstatfs", l::SYS_fstatfs, Any, FD),
    al("fsync", l::SYS_fsync, Any, FD),
    al("fdatasync", l::SYS_fdatasync, Any, FD),
    al("ftruncate", l::SYS_ftruncate, Any, FD),
    al("fadvise64", l::SYS_fadvise64, Any, FD),
    al("flock", l::SYS_flock, Any, FD),
    al("pipe2", l::SYS_pipe2, Any, "pipes inside the partition"),
    al("ioctl", l::SYS_ioctl, OneOf(1, IOCTL_REQUESTS), "only terminal queries (isatty: TCGETS, TIOCGWINSZ) and descriptor flags (FIONREAD, FIONBIO, FIOCLEX, FIONCLEX); no TIOCSTI, no device control"),
    al("openat", l::SYS_openat, Any, FS),
    al("newfstatat", l::SYS_newfstatat, Any, FS),
    al("statx", l::SYS_statx, Any, FS),
    al("statfs", l::SYS_statfs, Any, FS),
    al("faccessat", l::SYS_faccessat, Any, FS),
    al("faccessat2", l::SYS_faccessat2, Any, FS),
    al("readlinkat", l::SYS_readlinkat, Any, FS),
    al("getdents64", l::SYS_getdents64, Any, FS),
    al("getcwd", l::SYS_getcwd, Any, FS),
    al("chdir", l::SYS_chdir, Any, FS),
    al("fchdir", l::SYS_fchdir, Any, FS),
    al("umask", l::SYS_umask, Any, FS),
    al("mkdirat", l::SYS_mkdirat, Any, FS),
    al("unlinkat", l::SYS_unlinkat, Any, FS),
    al("renameat2", l::SYS_renameat2, Any, FS),
    // Waiting.
    al("ppoll", l::SYS_ppoll, Any, POLL),
    al("pselect6", l::SYS_pselect6, Any, POLL),
    al("epoll_create1", l::SYS_epoll_create1, Any, POLL),
    al("epoll_ctl", l::SYS_epoll_ctl, Any, POLL),
    al("epoll_pwait", l::SYS_epoll_pwait, Any, POLL),
    al("epoll_pwait2", l::SYS_epoll_pwait2, Any, POLL),
    al("eventfd2", l::SYS_eventfd2, Any, POLL),
    al("timerfd_create", l::SYS_timerfd_create, Any, TIMERS),
    al("timerfd_settime", l::SYS_timerfd_settime, Any, TIMERS),
    al("timerfd_gettime", l::SYS_timerfd_gettime, Any, TIMERS),
    al("signalfd4", l::SYS_signalfd4, Any, SIG),
    // Time.
    al("clock_gettime", l::SYS_clock_gettime, Any, TIME),
    al("clock_getres", l::SYS_clock_getres, Any, TIME),
    al("clock_nanosleep", l::SYS_clock_nanosleep, Any, TIME),
    al("nanosleep", l::SYS_nanosleep, Any, TIME),
    al("gettimeofday", l::SYS_gettimeofday, Any, TIME),
    al("timer_create", l::SYS_timer_create, Any, TIMERS),
    al("timer_settime", l::SYS_timer_settime, Any, TIMERS),
    al("timer_gettime", l::SYS_timer_gettime, Any, TIMERS),
    al("timer_getoverrun", l::SYS_timer_getoverrun, Any, TIMERS),
    al("timer_delete", l::SYS_timer_delete, Any, TIMERS),
    al("setitimer", l::SYS_setitimer, Any, TIMERS),
    al("getitimer", l::SYS_getitimer, Any, TIMERS),
    al("times", l::SYS_times, Any, TIME),
    // Threads and processes.
    al("clone", l::SYS_clone, NoBits(0, CLONE_NS_FLAGS), "threads (pthread_create falls back to clone) and fork; no namespace flags (CLONE_NEWUSER would give the caller a fresh set of capabilities). The pids cgroup and RLIMIT_NPROC bound the number"),
    al("clone3", l::SYS_clone3, Any, "reaches the allow-list only in principle: the prefix filter answers ENOSYS (its flags are behind a pointer), so glibc uses clone"),
    al("execve", l::SYS_execve, Any, "the partition's own start; later an exec keeps every restriction (same uid, cgroups, namespaces, filter; no_new_privs ignores set-uid bits and file capabilities)"),
    al("execveat", l::SYS_execveat, Any, "how the manager starts the partition (the executable is opened before the privilege drop); same as execve"),
    al("exit", l::SYS_exit, Any, "thread end"),
    al("exit_group", l::SYS_exit_group, Any, "process end"),
    al("wait4", l::SYS_wait4, Any, "reaping own children (only children can be waited for)"),
    al("waitid", l::SYS_waitid, Any, "as wait4"),
    al("set_tid_address", l::SYS_set_tid_address, Any, "thread start-up (glibc)"),
    al("set_robust_list", l::SYS_set_robust_list, Any, "thread start-up (glibc robust mutexes)"),
    al("rseq", l::SYS_rseq, Any, "restartable sequences of the caller (glibc registers one per thread)"),
    al("futex", l::SYS_futex, Any, "APEX waits and wake-ups; futex words live in the caller's memory (a shared mapping it was given at most)"),
    al("futex_waitv", l::SYS_futex_waitv, Any, "as futex"),
    al("sched_yield", l::SYS_sched_yield, Any, "gives up the CPU inside the partition's window"),
    al("sched_getaffinity", l::SYS_sched_getaffinity, Any, SCHED_READ),
    al("sched_setaffinity", l::SYS_sched_setaffinity, OneOf(0, ZERO), "only the calling thread (pid 0): APEX pins its own threads; the cpuset cgroup bounds the mask anyway"),
    al("sched_getparam", l::SYS_sched_getparam, Any, SCHED_READ),
    al("sched_getscheduler", l::SYS_sched_getscheduler, Any, SCHED_READ),
    al("sched_getattr", l::SYS_sched_getattr, Any, SCHED_READ),
    al("sched_get_priority_max", l::SYS_sched_get_priority_max, Any, SCHED_READ),
    al("sched_get_priority_min", l::SYS_sched_get_priority_min, Any, SCHED_READ),
    al("sched_rr_get_interval", l::SYS_sched_rr_get_interval, Any, SCHED_READ),
    al("sched_setparam", l::SYS_sched_setparam, Any, "the runtime raises/demotes its own APEX threads within SCHED_FIFO (the partition starts in SCHED_FIFO, so it never needs sched_setscheduler); the PID namespace and the uid confine the target to the partition's own threads; with no capability left, the kernel refuses any raise above RLIMIT_RTPRIO (the runtime's timer priority, or 0 where the host cannot set it: the manager's raise broker then raises, capped at the timer priority)"),
    al("getpriority", l::SYS_getpriority, Any, SCHED_READ),
    al("getcpu", l::SYS_getcpu, Any, SCHED_READ),
    al("gettid", l::SYS_gettid, Any, ID),
    al("getpid", l::SYS_getpid, Any, ID),
    al("getppid", l::SYS_getppid, Any, ID),
    al("getpgid", l::SYS_getpgid, Any, ID),
    al("getsid", l::SYS_getsid, Any, ID),
    al("getuid", l::SYS_getuid, Any, ID),
    al("geteuid", l::SYS_geteuid, Any, ID),
    al("getgid", l::SYS_getgid, Any, ID),
    al("getegid", l::SYS_getegid, Any, ID),
    al("getresuid", l::SYS_getresuid, Any, ID),
    al("getresgid", l::SYS_getresgid, Any, ID),
    al("getgroups", l::SYS_getgroups, Any, ID),
    al("capget", l::SYS_capget, Any, "reading capabilities (the partition has none)"),
    al("uname", l::SYS_uname, Any, ID),
    al("sysinfo", l::SYS_sysinfo, Any, ID),
    al("getrusage", l::SYS_getrusage, Any, ID),
    al("prctl", l::SYS_prctl, OneOf(0, PRCTL_OPTIONS), "only thread names, timer slack, PR_SET_VMA and read-only queries"),
    al("prlimit64", l::SYS_prlimit64, SelfOrZero(0), "own resource limits only (raising a hard limit needs CAP_SYS_RESOURCE, which it has not)"),
    al("getrandom", l::SYS_getrandom, Any, "random numbers (hash seeds)"),
    al("restart_syscall", l::SYS_restart_syscall, Any, "kernel-internal restart of an interrupted sleep"),
    // Signals.
    al("rt_sigaction", l::SYS_rt_sigaction, Any, SIG),
    al("rt_sigprocmask", l::SYS_rt_sigprocmask, Any, SIG),
    al("rt_sigreturn", l::SYS_rt_sigreturn, Any, SIG),
    al("rt_sigpending", l::SYS_rt_sigpending, Any, SIG),
    al("rt_sigtimedwait", l::SYS_rt_sigtimedwait, Any, SIG),
    al("rt_sigsuspend", l::SYS_rt_sigsuspend, Any, SIG),
    al("sigaltstack", l::SYS_sigaltstack, Any, SIG),
    al("kill", l::SYS_kill, SelfOrZero(0), "only the partition's own main process or its own process group (it runs in a session of its own); anything else traps"),
    al("tgkill", l::SYS_tgkill, SelfOnly(0), "only threads of the partition's own main process (raise, abort, pthread_kill)"),
    al("rt_sigqueueinfo", l::SYS_rt_sigqueueinfo, SelfOnly(0), "as tgkill"),
    al("rt_tgsigqueueinfo", l::SYS_rt_tgsigqueueinfo, SelfOnly(0), "as tgkill"),
    // Local sockets on descriptors it holds.
    al("socketpair", l::SYS_socketpair, OneOf(0, AF_UNIX_ONLY), "an AF_UNIX pair inside the partition"),
    al("sendmsg", l::SYS_sendmsg, Any, FD),
    al("recvmsg", l::SYS_recvmsg, Any, FD),
    al("sendto", l::SYS_sendto, Any, FD),
    al("recvfrom", l::SYS_recvfrom, Any, FD),
    al("shutdown", l::SYS_shutdown, Any, FD),
    #[cfg(target_arch = "x86_64")]
    al("arch_prctl", l::SYS_arch_prctl, Any, "thread-local storage set-up (x86_64)"),
    #[cfg(target_arch = "x86_64")]
    al("open", l::SYS_open, Any, FS),
    #[cfg(target_arch = "x86_64")]
    al("stat", l::SYS_stat, Any, FS),
    #[cfg(target_arch = "x86_64")]
    al("lstat", l::SYS_lstat, Any, FS),
    #[cfg(target_arch = "x86_64")]
    al("access", l::SYS_access, Any, FS),
    #[cfg(target_arch = "x86_64")]
    al("readlink", l::SYS_readlink, Any, FS),
    #[cfg(target_arch = "x86_64")]
    al("mkdir", l::SYS_mkdir, Any, FS),
    #[cfg(target_arch = "x86_64")]
    al("rmdir", l::SYS_rmdir, Any, FS),
    #[cfg(target_arch = "x86_64")]
    al("unlink", l::SYS_unlink, Any, FS),
    #[cfg(target_arch = "x86_64")]
    al("rename", l::SYS_rename, Any, FS),
    #[cfg(target_arch = "x86_64")]
    al("dup2", l::SYS_dup2, Any, FD),
    #[cfg(target_arch = "x86_64")]
    al("pipe", l::SYS_pipe, Any, "pipes inside the partition"),
    #[cfg(target_arch = "x86_64")]
    al("poll", l::SYS_poll, Any, POLL),
    #[cfg(target_arch = "x86_64")]
    al("select", l::SYS_select, Any, POLL),
    #[cfg(target_arch = "x86_64")]
    al("epoll_wait", l::SYS_epoll_wait, Any, POLL),
    #[cfg(target_arch = "x86_64")]
    al("time", l::SYS_time, Any, TIME),
    #[cfg(target_arch = "x86_64")]
    al("alarm", l::SYS_alarm, Any, TIMERS),
    #[cfg(target_arch = "x86_64")]
    al("pause", l::SYS_pause, Any, SIG),
    #[cfg(target_arch = "x86_64")]
    al("fork", l::SYS_fork, Any, "as clone without flags"),
    #[cfg(target_arch = "x86_64")]
    al("vfork", l::SYS_vfork, Any, "as clone without namespace flags"),
    #[cfg(target_arch = "x86_64")]
    al("getpgrp", l::SYS_getpgrp, Any, ID),
    #[cfg(target_arch = "x86_64")]
    al("getrlimit", l::SYS_getrlimit, Any, ID),
    #[cfg(target_arch = "x86_64")]
    al("setrlimit", l::SYS_setrlimit, Any, "own limits (lowering; raising a hard limit is refused by the kernel)"),
];

const GP_PID: &str = "any process it can name is its own: it runs in its own PID namespace (pid 1 is its first process), under its own uid, without capabilities";
const GP_NET: &str = "sockets in its own network namespace (network none or link) or, with network=\"host\", the host's under its own uid without capabilities (no raw sockets, no port below 1024); a path socket reaches only what its uid may open";
const GP_ID: &str = "changing identity needs CAP_SETUID/CAP_SETGID, which it has not: only its own ids are accepted (programs that drop privileges call these)";
const GP_SCHED: &str = "only lowering its own priority: RLIMIT_RTPRIO is 0 and it has no CAP_SYS_NICE, so no real-time policy, SCHED_DEADLINE or negative nice value is granted";
const GP_FS: &str = "file-system changes within its uid's permissions (fs.protected_hardlinks and protected_symlinks apply); device nodes need CAP_MKNOD, which it has not (named pipes only)";
const XATTR: &str = "reading extended attributes (ls, cp): what its uid may read";
const GP_JOB: &str =
    "process groups and sessions of its own processes (shells): the PID namespace holds only them";

/// What a general-purpose partition may call in addition to [`ALLOWED`], or with fewer
/// conditions ([`Profile::General`]): sockets, signals to its own processes, job control,
/// file-system changes, identity and priority changes the kernel grants without
/// capabilities. Every other restriction stays (uid, cgroups, namespaces, no capability).
pub static GENERAL: &[Allowed] = &[
    al("kill", l::SYS_kill, Any, GP_PID),
    al("tgkill", l::SYS_tgkill, Any, GP_PID),
    al("rt_sigqueueinfo", l::SYS_rt_sigqueueinfo, Any, GP_PID),
    al("rt_tgsigqueueinfo", l::SYS_rt_tgsigqueueinfo, Any, GP_PID),
    al(
        "sched_setaffinity",
        l::SYS_sched_setaffinity,
        Any,
        "its own processes only (PID namespace, uid); the cpuset cgroup bounds the mask",
    ),
    al("setpgid", l::SYS_setpgid, Any, GP_JOB),
    al("setsid", l::SYS_setsid, Any, GP_JOB),
    al("socket", l::SYS_socket, Any, GP_NET),
    al("connect", l::SYS_connect, Any, GP_NET),
    al("bind", l::SYS_bind, Any, GP_NET),
    al("listen", l::SYS_listen, Any, GP_NET),
    al("accept", l::SYS_accept, Any, GP_NET),
    al("accept4", l::SYS_accept4, Any, GP_NET),
    al("getsockname", l::SYS_getsockname, Any, GP_NET),
    al("getpeername", l::SYS_getpeername, Any, GP_NET),
    al("setsockopt", l::SYS_setsockopt, Any, GP_NET),
    al("getsockopt", l::SYS_getsockopt, Any, GP_NET),
    al("sendmmsg", l::SYS_sendmmsg, Any, GP_NET),
    al("recvmmsg", l::SYS_recvmmsg, Any, GP_NET),
    al("sendfile", l::SYS_sendfile, Any, FD),
    al("splice", l::SYS_splice, Any, FD),
    al("tee", l::SYS_tee, Any, FD),
    al("copy_file_range", l::SYS_copy_file_range, Any, FD),
    al("fallocate", l::SYS_fallocate, Any, FD),
    al("readahead", l::SYS_readahead, Any, FD),
    al("syncfs", l::SYS_syncfs, Any, FD),
    al("sync_file_range", l::SYS_sync_file_range, Any, FD),
    al(
        "sync",
        l::SYS_sync,
        Any,
        "flushes file systems: I/O the host does anyway, no data of another partition is reached",
    ),
    al("truncate", l::SYS_truncate, Any, FS),
    al("renameat", l::SYS_renameat, Any, FS),
    al("utimensat", l::SYS_utimensat, Any, FS),
    al("fchmod", l::SYS_fchmod, Any, GP_FS),
    al("fchmodat", l::SYS_fchmodat, Any, GP_FS),
    al("fchown", l::SYS_fchown, Any, GP_FS),
    al("fchownat", l::SYS_fchownat, Any, GP_FS),
    al("linkat", l::SYS_linkat, Any, GP_FS),
    al("symlinkat", l::SYS_symlinkat, Any, GP_FS),
    al("mknodat", l::SYS_mknodat, Any, GP_FS),
    al("getxattr", l::SYS_getxattr, Any, XATTR),
    al("lgetxattr", l::SYS_lgetxattr, Any, XATTR),
    al("fgetxattr", l::SYS_fgetxattr, Any, XATTR),
    al("listxattr", l::SYS_listxattr, Any, XATTR),
    al("llistxattr", l::SYS_llistxattr, Any, XATTR),
    al("flistxattr", l::SYS_flistxattr, Any, XATTR),
    al("inotify_init1", l::SYS_inotify_init1, Any, POLL),
    al("inotify_add_watch", l::SYS_inotify_add_watch, Any, POLL),
    al("inotify_rm_watch", l::SYS_inotify_rm_watch, Any, POLL),
    al("setpriority", l::SYS_setpriority, Any, GP_SCHED),
    al(
        "sched_setscheduler",
        l::SYS_sched_setscheduler,
        Any,
        GP_SCHED,
    ),
    al("sched_setattr", l::SYS_sched_setattr, Any, GP_SCHED),
    al("ioprio_get", l::SYS_ioprio_get, Any, SCHED_READ),
    al(
        "ioprio_set",
        l::SYS_ioprio_set,
        Any,
        "its own I/O priority; the real-time class needs CAP_SYS_ADMIN, which it has not",
    ),
    al("setuid", l::SYS_setuid, Any, GP_ID),
    al("setgid", l::SYS_setgid, Any, GP_ID),
    al("setreuid", l::SYS_setreuid, Any, GP_ID),
    al("setregid", l::SYS_setregid, Any, GP_ID),
    al("setresuid", l::SYS_setresuid, Any, GP_ID),
    al("setresgid", l::SYS_setresgid, Any, GP_ID),
    al("setfsuid", l::SYS_setfsuid, Any, GP_ID),
    al("setfsgid", l::SYS_setfsgid, Any, GP_ID),
    al("setgroups", l::SYS_setgroups, Any, GP_ID),
    #[cfg(target_arch = "x86_64")]
    al("chmod", l::SYS_chmod, Any, GP_FS),
    #[cfg(target_arch = "x86_64")]
    al("chown", l::SYS_chown, Any, GP_FS),
    #[cfg(target_arch = "x86_64")]
    al("lchown", l::SYS_lchown, Any, GP_FS),
    #[cfg(target_arch = "x86_64")]
    al("link", l::SYS_link, Any, GP_FS),
    #[cfg(target_arch = "x86_64")]
    al("symlink", l::SYS_symlink, Any, GP_FS),
    #[cfg(target_arch = "x86_64")]
    al("mknod", l::SYS_mknod, Any, GP_FS),
    #[cfg(target_arch = "x86_64")]
    al("creat", l::SYS_creat, Any, FS),
    #[cfg(target_arch = "x86_64")]
    al("utimes", l::SYS_utimes, Any, FS),
    #[cfg(target_arch = "x86_64")]
    al("utime", l::SYS_utime, Any, FS),
    #[cfg(target_arch = "x86_64")]
    al("futimesat", l::SYS_futimesat, Any, FS),
    #[cfg(target_arch = "x86_64")]
    al("getdents", l::SYS_getdents, Any, FS),
    #[cfg(target_arch = "x86_64")]
    al("epoll_create", l::SYS_epoll_create, Any, POLL),
    #[cfg(target_arch = "x86_64")]
    al("eventfd", l::SYS_eventfd, Any, POLL),
    #[cfg(target_arch = "x86_64")]
    al("signalfd", l::SYS_signalfd, Any, SIG),
    #[cfg(target_arch = "x86_64")]
    al("inotify_init", l::SYS_inotify_init, Any, POLL),
];

/// Calls denied on purpose (a subset of everything that is not allowed), with the harm.
pub static DENIED: &[Denied] = &[
    de("ptrace", l::SYS_ptrace, "reading and writing another process's memory and registers"),
    de("process_vm_readv", l::SYS_process_vm_readv, "reading another process's memory"),
    de("process_vm_writev", l::SYS_process_vm_writev, "writing another process's memory"),
    de("kcmp", l::SYS_kcmp, "comparing kernel objects of other processes (information leak)"),
    de("pidfd_open", l::SYS_pidfd_open, "handles on other processes (signals, descriptors)"),
    de("pidfd_getfd", l::SYS_pidfd_getfd, "stealing another process's descriptors"),
    de("pidfd_send_signal", l::SYS_pidfd_send_signal, "signals to other processes"),
    de("tkill", l::SYS_tkill, "a signal to any thread id (cannot be limited to own threads; glibc uses tgkill)"),
    de("sched_setscheduler", l::SYS_sched_setscheduler, "changing a scheduling policy (the partition starts in SCHED_FIFO; leaving it, or changing another thread's policy, is not allowed)"),
    de("sched_setattr", l::SYS_sched_setattr, "SCHED_DEADLINE and other policies, utilisation clamps"),
    de("setpriority", l::SYS_setpriority, "nice values of processes and users"),
    de("ioprio_set", l::SYS_ioprio_set, "I/O priorities"),
    de("migrate_pages", l::SYS_migrate_pages, "moving another process's memory between NUMA nodes"),
    de("move_pages", l::SYS_move_pages, "as migrate_pages"),
    de("mbind", l::SYS_mbind, "NUMA placement (cpuset.mems decides)"),
    de("set_mempolicy", l::SYS_set_mempolicy, "as mbind"),
    de("mount", l::SYS_mount, "file-system mounts"),
    de("umount2", l::SYS_umount2, "as mount"),
    de("fsopen", l::SYS_fsopen, "new mount API"),
    de("fsmount", l::SYS_fsmount, "new mount API"),
    de("move_mount", l::SYS_move_mount, "new mount API"),
    de("open_tree", l::SYS_open_tree, "new mount API"),
    de("pivot_root", l::SYS_pivot_root, "changing the root file system"),
    de("chroot", l::SYS_chroot, "changing the root directory"),
    de("unshare", l::SYS_unshare, "new namespaces (a user namespace brings capabilities)"),
    de("setns", l::SYS_setns, "entering other namespaces"),
    de("init_module", l::SYS_init_module, "loading kernel code"),
    de("finit_module", l::SYS_finit_module, "loading kernel code"),
    de("delete_module", l::SYS_delete_module, "unloading kernel code"),
    de("kexec_load", l::SYS_kexec_load, "replacing the kernel"),
    de("kexec_file_load", l::SYS_kexec_file_load, "replacing the kernel"),
    de("bpf", l::SYS_bpf, "kernel BPF programs and maps"),
    de("perf_event_open", l::SYS_perf_event_open, "performance counters (side channels, kernel attack surface)"),
    de("keyctl", l::SYS_keyctl, "kernel key rings"),
    de("add_key", l::SYS_add_key, "kernel key rings"),
    de("request_key", l::SYS_request_key, "kernel key rings"),
    de("reboot", l::SYS_reboot, "rebooting the host"),
    de("swapon", l::SYS_swapon, "swap configuration"),
    de("swapoff", l::SYS_swapoff, "swap configuration"),
    de("setuid", l::SYS_setuid, "changing identity"),
    de("setgid", l::SYS_setgid, "changing identity"),
    de("setreuid", l::SYS_setreuid, "changing identity"),
    de("setregid", l::SYS_setregid, "changing identity"),
    de("setresuid", l::SYS_setresuid, "changing identity"),
    de("setresgid", l::SYS_setresgid, "changing identity"),
    de("setfsuid", l::SYS_setfsuid, "changing identity"),
    de("setfsgid", l::SYS_setfsgid, "changing identity"),
    de("setgroups", l::SYS_setgroups, "changing identity"),
    de("capset", l::SYS_capset, "changing capabilities"),
    de("setsid", l::SYS_setsid, "a new session (the partition already has its own)"),
    de("setpgid", l::SYS_setpgid, "moving processes between process groups"),
    de("personality", l::SYS_personality, "execution domain changes (e.g. disabling address randomisation)"),
    de("io_uring_setup", l::SYS_io_uring_setup, "io_uring: a second system-call interface that seccomp does not see"),
    de("io_uring_enter", l::SYS_io_uring_enter, "as io_uring_setup"),
    de("io_uring_register", l::SYS_io_uring_register, "as io_uring_setup"),
    de("userfaultfd", l::SYS_userfaultfd, "stalling the kernel on page faults (a classic exploit primitive)"),
    de("socket", l::SYS_socket, "sockets: the network namespace is empty, and a path socket could reach host services"),
    de("connect", l::SYS_connect, "as socket"),
    de("bind", l::SYS_bind, "as socket"),
    de("listen", l::SYS_listen, "as socket"),
    de("accept4", l::SYS_accept4, "as socket"),
    de("settimeofday", l::SYS_settimeofday, "setting the host clock"),
    de("clock_settime", l::SYS_clock_settime, "setting the host clock"),
    de("clock_adjtime", l::SYS_clock_adjtime, "adjusting the host clock"),
    de("adjtimex", l::SYS_adjtimex, "adjusting the host clock"),
    de("acct", l::SYS_acct, "process accounting"),
    de("quotactl", l::SYS_quotactl, "disk quotas"),
    de("syslog", l::SYS_syslog, "kernel log"),
    de("sethostname", l::SYS_sethostname, "host name"),
    de("setdomainname", l::SYS_setdomainname, "domain name"),
    de("fanotify_init", l::SYS_fanotify_init, "file-system wide monitoring"),
    de("name_to_handle_at", l::SYS_name_to_handle_at, "file handles"),
    de("open_by_handle_at", l::SYS_open_by_handle_at, "opening files by handle, bypassing paths"),
    de("shmget", l::SYS_shmget, "System V shared memory (the IPC namespace isolates it; APEX ports use memfds)"),
    de("msgget", l::SYS_msgget, "System V message queues"),
    de("semget", l::SYS_semget, "System V semaphores"),
    de("mq_open", l::SYS_mq_open, "POSIX message queues"),
    de("fchmodat", l::SYS_fchmodat, "changing file modes"),
    de("fchmod", l::SYS_fchmod, "changing file modes"),
    de("fchown", l::SYS_fchown, "changing file owners"),
    de("fchownat", l::SYS_fchownat, "changing file owners"),
    de("linkat", l::SYS_linkat, "hard links to files of others"),
    de("symlinkat", l::SYS_symlinkat, "symbolic links"),
    de("mknodat", l::SYS_mknodat, "device nodes"),
    de("vhangup", l::SYS_vhangup, "terminal hang-up"),
    de("lookup_dcookie", l::SYS_lookup_dcookie, "kernel profiling"),
    #[cfg(target_arch = "x86_64")]
    de("iopl", l::SYS_iopl, "direct I/O port access (x86)"),
    #[cfg(target_arch = "x86_64")]
    de("ioperm", l::SYS_ioperm, "direct I/O port access (x86)"),
    #[cfg(target_arch = "x86_64")]
    de("modify_ldt", l::SYS_modify_ldt, "x86 segment tables"),
];

/// The reviewed tables of `docs/seccomp.md` (between its `<!-- tables -->` markers), as
/// Markdown: kept in step with [`ALLOWED`] and [`DENIED`] by a test.
pub fn markdown_tables() -> String {
    let cond = |a: &Args| match a {
        Args::Any => "any arguments".to_string(),
        Args::OneOf(i, v) => format!(
            "arg{i} ∈ {{{}}}",
            v.iter()
                .map(|x| format!("{x:#x}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Args::SelfOrZero(i) => format!("arg{i} = 0 or own pid"),
        Args::SelfOnly(i) => format!("arg{i} = own pid"),
        Args::NoBits(i, m) => format!("arg{i} & {m:#x} = 0"),
    };
    let mut s = String::from("### Allowed\n\n| call | condition | why |\n| --- | --- | --- |\n");
    for a in ALLOWED {
        s += &format!("| `{}` | {} | {} |\n", a.name, cond(&a.args), a.reason);
    }
    s += "\n### Denied on purpose (trap → ILLEGAL_REQUEST)\n\n| call | what it could do |\n| --- | --- |\n";
    for d in DENIED {
        s += &format!("| `{}` | {} |\n", d.name, d.reason);
    }
    s += "\n### General-purpose partitions: allowed in addition, or with fewer conditions\n\n| call | condition | why |\n| --- | --- | --- |\n";
    for a in GENERAL {
        s += &format!("| `{}` | {} | {} |\n", a.name, cond(&a.args), a.reason);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_both_allowed_and_denied() {
        for d in DENIED {
            assert!(
                !ALLOWED.iter().any(|a| a.nr == d.nr),
                "{} is allowed and denied",
                d.name
            );
        }
        assert_eq!(syscall_name(libc::SYS_ptrace), Some("ptrace"));
        let general = Profile::General.allowed();
        for g in GENERAL {
            assert_eq!(
                general.iter().filter(|a| a.nr == g.nr).count(),
                1,
                "{} once in the general profile",
                g.name
            );
        }
        assert_eq!(Profile::Apex.allowed().len(), ALLOWED.len());
        assert!(general.len() > ALLOWED.len());
        assert_eq!(syscall_name(libc::SYS_futex), Some("futex"));
    }

    #[test]
    fn the_documentation_lists_every_call() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/seccomp.md");
        let doc = std::fs::read_to_string(path).unwrap();
        let (begin, end) = ("<!-- tables -->\n", "<!-- end of tables -->");
        let start = doc.find(begin).expect("begin marker") + begin.len();
        let stop = doc.find(end).expect("end marker");
        let want = markdown_tables();
        if std::env::var("PARTITA_BLESS").as_deref() == Ok("1") {
            let new = format!("{}{want}{}", &doc[..start], &doc[stop..]);
            std::fs::write(path, new).unwrap();
            return;
        }
        assert_eq!(
            &doc[start..stop],
            want,
            "docs/seccomp.md is out of date: run PARTITA_BLESS=1 cargo test -p partita-sys"
        );
    }
}
