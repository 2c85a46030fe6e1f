//! The monotonic clock and absolute sleeps.

/// Reads `clock` (`getres`: its resolution instead), in ns. Every clock used here exists on
/// the kernels Partita supports (MONOTONIC, BOOTTIME since 2.6.39, MONOTONIC_COARSE since
/// 2.6.32).
fn clock_ns(clock: libc::clockid_t, getres: bool) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec and `clock` an existing clock id (above).
    unsafe {
        if getres {
            libc::clock_getres(clock, &mut ts)
        } else {
            libc::clock_gettime(clock, &mut ts)
        }
    };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Nanoseconds on `CLOCK_MONOTONIC` (read through the vDSO: no system call).
pub fn monotonic_ns() -> u64 {
    clock_ns(libc::CLOCK_MONOTONIC, false)
}

/// `CLOCK_BOOTTIME` less `CLOCK_MONOTONIC` now, in ns (the time the system spent suspended;
/// process start times in `/proc/<pid>/stat` count on the boot-time clock).
pub fn boottime_offset_ns() -> u64 {
    clock_ns(libc::CLOCK_BOOTTIME, false).saturating_sub(monotonic_ns())
}

/// Clock ticks per second of the times in `/proc/<pid>/stat`.
pub fn clock_ticks_per_second() -> u64 {
    // SAFETY: sysconf takes an integer name and has no other effect.
    let r = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if r > 0 {
        r as u64
    } else {
        100
    }
}

/// The CPU's time-stamp counter (x86_64 `rdtsc`, not ordered with the instructions around
/// it), or the monotonic clock in ns on other architectures. For measurements only (what the
/// cheapest hardware time stamp costs): ticks are not nanoseconds.
pub fn tsc() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: rdtsc is available on every x86_64 CPU and only reads the counter (a kernel
        // could make it trap with PR_SET_TSC; Partita never does).
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        monotonic_ns()
    }
}

/// `CLOCK_MONOTONIC_COARSE` in ns (the time of the last timer tick: no counter read).
pub fn coarse_ns() -> u64 {
    clock_ns(libc::CLOCK_MONOTONIC_COARSE, false)
}

/// The resolution of `CLOCK_MONOTONIC_COARSE` in ns (one timer tick).
pub fn coarse_resolution_ns() -> u64 {
    clock_ns(libc::CLOCK_MONOTONIC_COARSE, true)
}

/// Converts nanoseconds to a `timespec`.
pub fn timespec(ns: u64) -> libc::timespec {
    libc::timespec {
        tv_sec: (ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (ns % 1_000_000_000) as libc::c_long,
    }
}

/// Sleeps until the absolute `CLOCK_MONOTONIC` instant `deadline_ns` (restarting after
/// signal interruptions). Absolute sleeps are what keep the partition schedule drift-free.
pub fn sleep_until(deadline_ns: u64) {
    let ts = timespec(deadline_ns);
    loop {
        // SAFETY: `ts` is a valid timespec; the remaining-time pointer may be null for
        // TIMER_ABSTIME sleeps.
        let r = unsafe {
            libc::clock_nanosleep(
                libc::CLOCK_MONOTONIC,
                libc::TIMER_ABSTIME,
                &ts,
                std::ptr::null_mut(),
            )
        };
        if r != libc::EINTR {
            return;
        }
    }
}
