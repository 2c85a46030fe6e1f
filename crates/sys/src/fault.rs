// SPDX-License-Identifier: MIT OR Apache-2.0
//! Synchronous hardware faults (SIGFPE, SIGSEGV, SIGBUS, SIGILL) and system calls refused by
//! the partition's seccomp filter (SIGSYS) turned into calls of a Rust hook, for the
//! partition runtime's health monitoring.
//!
//! [`install_fault_handlers`] sets one process-wide `sigaction` (`SA_SIGINFO | SA_ONSTACK`)
//! for the four signals; [`install_alt_stack`] gives the calling thread an alternate signal
//! stack, so that the hook also runs after a stack overflow. The hook gets a [`Fault`]; if it
//! returns, the signal's default action is restored and the signal raised again, so the
//! process ends as it would have without a handler (core dump). A hook that must not let the
//! faulting thread resume (it would re-execute the faulting instruction) never returns.
//!
//! Async-signal safety: the trampoline itself only reads `siginfo_t`, loads the hook (an
//! atomic load) and, when the hook returns, calls `sigaction` and `raise`, all
//! async-signal-safe. What the hook does is its own responsibility.

use crate::{check, Result, SysError};
use std::sync::OnceLock;

/// The signal of a fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultSignal {
    /// SIGFPE: arithmetic fault (integer division by zero, trapping floating point).
    Fpe,
    /// SIGSEGV: invalid memory access (unmapped or protected address, stack overflow).
    Segv,
    /// SIGBUS: bus error (misaligned access, access beyond the end of a mapped file).
    Bus,
    /// SIGILL: illegal instruction.
    Ill,
    /// SIGSYS: a system call refused by the seccomp filter (`si_code` `SYS_SECCOMP`); the
    /// call was not executed.
    Sys,
}

impl FaultSignal {
    const ALL: [FaultSignal; 5] = [
        FaultSignal::Fpe,
        FaultSignal::Segv,
        FaultSignal::Bus,
        FaultSignal::Ill,
        FaultSignal::Sys,
    ];

    /// The signal number.
    pub fn number(self) -> i32 {
        match self {
            FaultSignal::Fpe => libc::SIGFPE,
            FaultSignal::Segv => libc::SIGSEGV,
            FaultSignal::Bus => libc::SIGBUS,
            FaultSignal::Ill => libc::SIGILL,
            FaultSignal::Sys => libc::SIGSYS,
        }
    }

    fn from_number(sig: i32) -> Option<FaultSignal> {
        Self::ALL.into_iter().find(|s| s.number() == sig)
    }
}

/// One delivered fault signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    /// Which signal.
    pub signal: FaultSignal,
    /// `si_code`: positive when the kernel raised the signal for a fault of the thread,
    /// zero or negative when it was sent (`kill`, `tgkill`, `sigqueue`).
    pub code: i32,
    /// `si_addr`: the faulting memory address (SIGSEGV, SIGBUS) or the address of the
    /// faulting instruction (SIGFPE, SIGILL), the address after the system call instruction
    /// (SIGSYS); 0 when the signal was sent.
    pub address: usize,
    /// SIGSYS: the number of the refused system call; 0 otherwise.
    pub syscall: i32,
}

impl Fault {
    /// Whether the signal reports a fault of the receiving thread (not a signal sent by a
    /// process).
    pub fn is_synchronous(&self) -> bool {
        self.code > 0
    }
}

/// The hook called on the faulting thread (on its alternate stack, if it has one).
pub type FaultHook = fn(&Fault);

static HOOK: OnceLock<FaultHook> = OnceLock::new();

/// The start of `siginfo_t` for SIGSYS (`<asm-generic/siginfo.h>`: three ints, padding to the
/// pointer-aligned union, then `_sigsys { void *_call_addr; int _syscall; unsigned _arch; }`).
#[repr(C)]
struct SigSys {
    signo: i32,
    errno: i32,
    code: i32,
    call_addr: *mut libc::c_void,
    syscall: i32,
    arch: u32,
}

extern "C" fn on_fault(sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    let (code, address, syscall) = if info.is_null() {
        (0, 0, 0)
    } else {
        // SAFETY: the kernel passes a valid siginfo_t to an SA_SIGINFO handler. `si_addr`
        // is the union member it fills for a fault (`si_code > 0`); for a sent signal the
        // same bytes hold the sender's pid and uid, so the value is discarded below then.
        // For SIGSYS the union is `_sigsys` (call address where `si_addr` is, then the
        // system call number), read through `SigSys`, which mirrors that layout.
        unsafe {
            let code = (*info).si_code;
            let nr = if sig == libc::SIGSYS && code > 0 {
                (*info.cast::<SigSys>()).syscall
            } else {
                0
            };
            (code, (*info).si_addr() as usize, nr)
        }
    };
    let address = if code > 0 { address } else { 0 };
    if let (Some(signal), Some(hook)) = (FaultSignal::from_number(sig), HOOK.get()) {
        hook(&Fault {
            signal,
            code,
            address,
            syscall,
        });
    }
    // The hook returned (or none is installed): default action. Restored, then raised again:
    // the raised signal stays pending (blocked while this handler runs) and is delivered with
    // the default action when the handler returns; a fault would also simply recur.
    // SAFETY: a zeroed sigaction with SIG_DFL is a valid argument; sigaction and raise are
    // async-signal-safe.
    unsafe {
        let mut dfl: libc::sigaction = std::mem::zeroed();
        dfl.sa_sigaction = libc::SIG_DFL;
        libc::sigaction(sig, &dfl, std::ptr::null_mut());
        libc::raise(sig);
    }
}

/// Installs the process-wide handler of SIGFPE, SIGSEGV, SIGBUS, SIGILL and SIGSYS calling
/// `hook`.
/// The hook is set once per process: a second call keeps the first hook (and re-installs
/// the handler, e.g. after something reset it).
pub fn install_fault_handlers(hook: FaultHook) -> Result<()> {
    let _ = HOOK.set(hook);
    for s in FaultSignal::ALL {
        // SAFETY: `act` is fully initialised (zeroed, then the handler, flags and an empty
        // mask); `on_fault` has the SA_SIGINFO handler signature.
        let r = unsafe {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = on_fault
                as extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void)
                as usize;
            act.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut act.sa_mask);
            libc::sigaction(s.number(), &act, std::ptr::null_mut())
        };
        check(r, "sigaction")?;
    }
    Ok(())
}

/// Gives the calling thread an alternate signal stack of `size` bytes (rounded up to pages,
/// below it a guard page). The mapping lives as long as the process: call it on threads that
/// never exit (or accept the leak).
pub fn install_alt_stack(size: usize) -> Result<()> {
    // SAFETY: sysconf has no memory-safety preconditions.
    let page = match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
        p if p > 0 => p as usize,
        _ => 4096,
    };
    let size = size.max(libc::SIGSTKSZ).div_ceil(page).saturating_mul(page);
    let total = size + page;
    // SAFETY: an anonymous private mapping at an address of the kernel's choice; the result
    // is checked against MAP_FAILED.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            total,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
            -1,
            0,
        )
    };
    if base == libc::MAP_FAILED {
        return Err(SysError::last("mmap (signal stack)"));
    }
    // SAFETY: the first page of the mapping just created; making it inaccessible turns an
    // overflow of the signal stack into a fault instead of silent corruption.
    let r = unsafe { libc::mprotect(base, page, libc::PROT_NONE) };
    if let Err(e) = check(r, "mprotect (signal stack guard)") {
        // SAFETY: unmapping the mapping created above, not used by anything yet.
        unsafe { libc::munmap(base, total) };
        return Err(e);
    }
    let ss = libc::stack_t {
        // SAFETY: `page` bytes into a mapping of `page + size` bytes.
        ss_sp: unsafe { base.cast::<u8>().add(page) }.cast(),
        ss_flags: 0,
        ss_size: size,
    };
    // SAFETY: `ss` describes `size` writable bytes that stay mapped while installed (only
    // `release_alt_stack` unmaps them, after disabling the alternate stack).
    let r = unsafe { libc::sigaltstack(&ss, std::ptr::null_mut()) };
    if let Err(e) = check(r, "sigaltstack") {
        // SAFETY: as above: the mapping is not in use (sigaltstack failed).
        unsafe { libc::munmap(base, total) };
        return Err(e);
    }
    Ok(())
}

/// Disables and unmaps the calling thread's alternate signal stack installed by
/// [`install_alt_stack`] (with its guard page), for a thread that will never run application
/// code again. Does nothing (returns 0) when the thread has none or runs on it right now (a
/// signal handler). Returns the bytes unmapped.
pub fn release_alt_stack() -> Result<usize> {
    // SAFETY: stack_t is plain data, filled by sigaltstack.
    let mut old: libc::stack_t = unsafe { std::mem::zeroed() };
    // SAFETY: querying only (null new stack); `old` is writable.
    check(
        unsafe { libc::sigaltstack(std::ptr::null(), &mut old) },
        "sigaltstack (query)",
    )?;
    if old.ss_flags & (libc::SS_DISABLE | libc::SS_ONSTACK) != 0 || old.ss_sp.is_null() {
        return Ok(0);
    }
    let off = libc::stack_t {
        ss_sp: std::ptr::null_mut(),
        ss_flags: libc::SS_DISABLE,
        ss_size: 0,
    };
    // SAFETY: disabling the alternate stack of the calling thread, which is not on it.
    check(
        unsafe { libc::sigaltstack(&off, std::ptr::null_mut()) },
        "sigaltstack (disable)",
    )?;
    // SAFETY: sysconf has no memory-safety preconditions.
    let page = match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
        p if p > 0 => p as usize,
        _ => 4096,
    };
    let base = (old.ss_sp as usize).wrapping_sub(page);
    let total = old.ss_size + page;
    // SAFETY: install_alt_stack mapped exactly [ss_sp - page, ss_sp + ss_size) for this
    // thread; it is disabled above and nothing else refers to it.
    check(
        unsafe { libc::munmap(base as *mut libc::c_void, total) },
        "munmap (signal stack)",
    )?;
    Ok(total)
}

/// Parks the calling thread for good. Async-signal-safe (a `pause` loop): for a fault hook
/// that must not let the faulting thread resume.
pub fn park_thread_forever() -> ! {
    loop {
        // SAFETY: pause has no preconditions; it returns only after a handled signal.
        unsafe { libc::pause() };
    }
}
