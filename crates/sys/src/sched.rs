// SPDX-License-Identifier: MIT OR Apache-2.0
//! Thread scheduling: real-time priorities, CPU affinity, thread ids.

use crate::{check, Result, SysError};

/// The kernel thread id of the calling thread.
pub fn gettid() -> i32 {
    // SAFETY: gettid has no arguments and cannot fail.
    unsafe { libc::gettid() }
}

/// The process id of the caller.
pub fn getpid() -> i32 {
    // SAFETY: getpid has no arguments and cannot fail.
    unsafe { libc::getpid() }
}

/// Puts thread `tid` (0: the caller) in `SCHED_FIFO` at `priority` (1..=99). A thread that
/// already is in `SCHED_FIFO` only gets its priority changed (`sched_setparam`): partitions
/// start in `SCHED_FIFO` and their seccomp filter refuses `sched_setscheduler`.
pub fn set_fifo(tid: i32, priority: i32) -> Result<()> {
    let p = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: sched_getscheduler takes a thread id only.
    let policy = unsafe { libc::sched_getscheduler(tid) };
    if policy >= 0 && policy & !libc::SCHED_RESET_ON_FORK == libc::SCHED_FIFO {
        return set_priority(tid, priority);
    }
    // Under a seccomp filter (a partition) sched_setscheduler would trap: report the refusal
    // instead (the partition was not started in SCHED_FIFO, e.g. without privileges).
    // SAFETY: PR_GET_SECCOMP takes no pointer.
    if unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } == 2 {
        return Err(SysError::io(
            "sched_setscheduler(SCHED_FIFO)",
            std::io::Error::from_raw_os_error(libc::EPERM),
        ));
    }
    // SAFETY: `p` is a valid sched_param for the duration of the call.
    check(
        unsafe { libc::sched_setscheduler(tid, libc::SCHED_FIFO, &p) },
        "sched_setscheduler(SCHED_FIFO)",
    )?;
    Ok(())
}

/// Changes the real-time priority of thread `tid` (0: the caller) without changing its policy.
/// Lowering the priority of a running thread makes the kernel reschedule at once.
pub fn set_priority(tid: i32, priority: i32) -> Result<()> {
    let p = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: `p` is a valid sched_param for the duration of the call.
    check(unsafe { libc::sched_setparam(tid, &p) }, "sched_setparam")?;
    Ok(())
}

/// Puts thread `tid` (0: the caller) back in `SCHED_OTHER`.
pub fn set_other(tid: i32) -> Result<()> {
    let p = libc::sched_param { sched_priority: 0 };
    // SAFETY: `p` is a valid sched_param for the duration of the call.
    check(
        unsafe { libc::sched_setscheduler(tid, libc::SCHED_OTHER, &p) },
        "sched_setscheduler(SCHED_OTHER)",
    )?;
    Ok(())
}

/// Restricts thread `tid` (0: the caller) to the given CPUs.
pub fn set_affinity(tid: i32, cpus: &[u32]) -> Result<()> {
    // SAFETY: cpu_set_t is plain data; an all-zero value is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        // SAFETY: CPU_SET bounds-checks nothing, so guard the index ourselves.
        if (c as usize) < libc::CPU_SETSIZE as usize {
            unsafe { libc::CPU_SET(c as usize, &mut set) };
        }
    }
    // SAFETY: `set` is a valid cpu_set_t of the size we pass.
    check(
        unsafe { libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &set) },
        "sched_setaffinity",
    )?;
    Ok(())
}

/// Pins the calling thread to one CPU (`sched_setaffinity(0, {cpu})`). It only ever addresses
/// the caller, so it stays allowed under a seccomp filter that forbids acting on other threads.
pub fn pin_self(cpu: u32) -> Result<()> {
    if cpu as usize >= libc::CPU_SETSIZE as usize {
        return Err(SysError::io(
            format!("sched_setaffinity(cpu {cpu})"),
            std::io::Error::from_raw_os_error(libc::EINVAL),
        ));
    }
    set_affinity(0, &[cpu])
}

/// The CPUs the calling thread may run on (`sched_getaffinity(0)`).
pub fn own_affinity() -> Result<Vec<u32>> {
    // SAFETY: cpu_set_t is plain data; an all-zero value is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid, writable cpu_set_t of the size we pass.
    check(
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) },
        "sched_getaffinity",
    )?;
    Ok((0..libc::CPU_SETSIZE as usize)
        // SAFETY: `c` is below CPU_SETSIZE, the size of `set`.
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .map(|c| c as u32)
        .collect())
}

/// The CPU the caller is running on right now.
pub fn current_cpu() -> u32 {
    // SAFETY: sched_getcpu has no arguments.
    let c = unsafe { libc::sched_getcpu() };
    c.max(0) as u32
}

/// Whether the caller may use `SCHED_FIFO` (tried on a short-lived thread, so the caller's own
/// policy is untouched).
pub fn fifo_allowed() -> std::result::Result<(), SysError> {
    std::thread::spawn(|| set_fifo(0, 1))
        .join()
        .unwrap_or_else(|_| {
            Err(SysError::io(
                "probe thread",
                std::io::Error::other("panicked"),
            ))
        })
}

/// Sets the calling thread's timer slack to `ns` (at least 1: 0 would restore the default
/// of 50 us): how much later than asked the kernel may end its sleeps and time-outs to merge
/// timer interrupts. Linux 6.11 and later give real-time threads no slack whatever this
/// says; older kernels apply it to them too.
pub fn set_timer_slack(ns: u64) -> Result<()> {
    // SAFETY: PR_SET_TIMERSLACK takes an integer only, and applies to the calling thread.
    check(
        unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, ns.max(1) as libc::c_ulong, 0, 0, 0) },
        "prctl(PR_SET_TIMERSLACK)",
    )
    .map(|_| ())
}

/// The calling thread's timer slack, ns.
pub fn timer_slack() -> u64 {
    // SAFETY: PR_GET_TIMERSLACK takes no argument and returns the value.
    unsafe { libc::prctl(libc::PR_GET_TIMERSLACK, 0, 0, 0, 0) }.max(0) as u64
}

/// `/proc/sys/kernel/sched_rt_runtime_us` and `sched_rt_period_us` (real-time throttling).
pub fn rt_throttling() -> Option<(i64, i64)> {
    let rd = |p: &str| -> Option<i64> { std::fs::read_to_string(p).ok()?.trim().parse().ok() };
    Some((
        rd("/proc/sys/kernel/sched_rt_runtime_us")?,
        rd("/proc/sys/kernel/sched_rt_period_us")?,
    ))
}

/// Locks all current and future pages of the caller in memory (no page faults on the hot path).
pub fn lock_memory() -> Result<()> {
    // SAFETY: mlockall only takes flags.
    check(
        unsafe { libc::mlockall(libc::MCL_CURRENT | libc::MCL_FUTURE) },
        "mlockall",
    )?;
    Ok(())
}

/// Number of online CPUs.
pub fn online_cpus() -> u32 {
    // SAFETY: sysconf only takes a name.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    n.max(1) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timer_slack_is_set_for_the_calling_thread_only() {
        let read = timer_slack;
        let before = read();
        let inside = std::thread::spawn(move || {
            set_timer_slack(1).unwrap();
            let one = read();
            set_timer_slack(0).unwrap();
            (one, read())
        })
        .join()
        .unwrap();
        // 1 ns asked, 1 ns given; 0 is taken as 1 (0 would mean the default).
        assert_eq!(inside, (1, 1));
        assert_eq!(read(), before);
    }

    #[test]
    fn pin_self_moves_only_the_calling_thread() {
        let before = own_affinity().unwrap();
        assert!(!before.is_empty());
        let target = *before.last().unwrap();
        let (mask, cpu) = std::thread::spawn(move || {
            pin_self(target).unwrap();
            (own_affinity().unwrap(), current_cpu())
        })
        .join()
        .unwrap();
        assert_eq!(mask, vec![target]);
        assert_eq!(cpu, target);
        // The test thread itself is untouched.
        assert_eq!(own_affinity().unwrap(), before);
        assert!(pin_self(u32::MAX).is_err());
    }
}
