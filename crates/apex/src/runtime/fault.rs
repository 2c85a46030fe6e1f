// SPDX-License-Identifier: MIT OR Apache-2.0
//! Hardware faults of the runtime's threads (see "Hardware faults" in the [`super`] module
//! documentation): the signal hook, the per-thread alternate signal stack, and the raise to
//! the health monitor.

use super::threads::runner_name;
use super::{Runtime, HOLDS_KERNEL, RUNTIME, STACK_LOW};
use partita_apex_core::{ErrorCode, Runner};
use partita_sys::fault::{Fault, FaultSignal};

/// Size of the alternate signal stack of every runtime thread (the fault handler takes the
/// kernel lock, dispatches and formats a report on it).
const ALT_STACK: usize = 128 * 1024;

/// Gives the calling runtime thread an alternate signal stack (so that a stack overflow
/// reaches the fault handler) and records where its stack ends. `stack` is the thread's
/// stack size (0: unknown, no stack overflow detection).
pub(super) fn thread_fault_setup(stack: usize) {
    if let Err(e) = partita_sys::fault::install_alt_stack(ALT_STACK) {
        eprintln!("partita runtime: no alternate signal stack ({e}): a stack overflow kills the partition");
    }
    if stack > 0 {
        let here = 0u8;
        let top = std::ptr::addr_of!(here) as usize;
        STACK_LOW.with(|l| l.set(top.saturating_sub(stack)));
    }
}

/// The fault hook (see [`partita_sys::fault`]): runs on the faulting thread. Returning means
/// "default action" (the partition dies): for signals sent by another process, threads the
/// runtime did not create, the main process and the timer thread, and faults inside the
/// runtime with the kernel locked (its state may be half updated).
pub(super) fn on_fault(f: &Fault) {
    if !f.is_synchronous() {
        return;
    }
    let Some(Ok(rt)) = RUNTIME.get() else {
        return;
    };
    let Some(me) = rt.me() else {
        return;
    };
    if HOLDS_KERNEL.with(|h| h.get()) {
        // Typically a bad pointer handed to a service (copied with the kernel locked).
        eprintln!(
            "partita runtime: {:?} fault at {:#x} inside an APEX service of {}: the partition stops",
            f.signal,
            f.address,
            runner_name(me)
        );
        return;
    }
    rt.fault(me, f);
}

impl Runtime {
    /// A hardware fault of the calling thread (`me`), from the fault signal handler: raised
    /// to the health monitor. Returns only when the thread must die with the signal's default
    /// action (the main process or the timer thread: the partition cannot go on); otherwise
    /// the thread parks forever (it must not return into the faulting instruction).
    ///
    /// Not async-signal-safe: it takes the kernel lock (the caller checked that this thread
    /// does not hold it), allocates (the message, dispatch) and may spawn a thread (a
    /// restarted error handler). A fault inside `malloc` or with another runtime lock held
    /// can therefore deadlock the faulting thread.
    pub(super) fn fault(&'static self, me: Runner, f: &Fault) {
        let low = STACK_LOW.with(|l| l.get());
        let code = match f.signal {
            FaultSignal::Fpe => ErrorCode::NumericError,
            FaultSignal::Segv | FaultSignal::Bus
                if low != 0 && f.address < low + 16 * 1024 && f.address + 256 * 1024 >= low =>
            {
                ErrorCode::StackOverflow
            }
            FaultSignal::Segv | FaultSignal::Bus => ErrorCode::MemoryViolation,
            FaultSignal::Ill => ErrorCode::HardwareFault,
            FaultSignal::Sys => ErrorCode::IllegalRequest,
        };
        let name = match f.signal {
            FaultSignal::Fpe => "SIGFPE",
            FaultSignal::Segv => "SIGSEGV",
            FaultSignal::Bus => "SIGBUS",
            FaultSignal::Ill => "SIGILL",
            FaultSignal::Sys => "SIGSYS",
        };
        let msg = match f.signal {
            FaultSignal::Sys => crate::isolation::illegal_call_message(f),
            _ => format!("{name} (si_code {})", f.code),
        };
        let mut k = self.lock();
        if super::LEAVING.with(std::cell::Cell::get) {
            // A fault after STOP_SELF, in drop code on the way back to the top: the slot
            // was marked as at the top, so it must be abandoned now or the next START would
            // find no thread to run.
            self.abandon_leaving(me);
            drop(k);
            crate::reclaim::before_parking_forever();
            partita_sys::fault::park_thread_forever()
        }
        if let Some(slot) = self.slot(me) {
            if self.is_abandoned(me, &slot) {
                // A thread of a stopped process, still in its code: the process it belonged
                // to is gone (or restarted on a fresh thread); nothing to report.
                drop(k);
                crate::reclaim::before_parking_forever();
                partita_sys::fault::park_thread_forever()
            }
        }
        let now = self.now();
        let before = k.error_handler_status().map(|s| s.pending_errors);
        let raised = k.raise_error(now, me, code, f.address as u64, msg.as_bytes());
        let queued = raised.is_ok() && k.error_handler_status().map(|s| s.pending_errors) > before;
        if queued {
            self.report_process_error(me, code, f.address as u64, msg.as_bytes());
        }
        if !queued && me != Runner::Main {
            // Handled at partition level (PartitionError, reported by dispatch): the failed
            // process (or error handler) is stopped, so that its core is not held by a thread
            // that never runs again; another process may START it again.
            let _ = k.stop_self(now, me);
        }
        self.dispatch(&mut k);
        drop(k);
        if me == Runner::Main {
            return;
        }
        crate::reclaim::before_parking_forever();
        partita_sys::fault::park_thread_forever()
    }
}
