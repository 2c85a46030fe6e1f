// SPDX-License-Identifier: MIT OR Apache-2.0
//! The service entry points of the runtime: running a kernel service for the calling runner
//! (and waiting when it blocks), and the services that also create or move threads.

use super::threads::Slot;
use super::{Entry, Runtime};
use partita_apex_core::{
    CallOutcome, ErrorHandlerConcurrency, Kernel, OperatingMode, ProcessAttributes, ProcessId,
    ReturnCode, Runner, SystemTime,
};
use std::sync::atomic::Ordering;
use std::sync::Arc;

impl Runtime {
    /// Runs a non-blocking service: `f` gets the kernel, the time and the caller.
    pub fn call<T>(
        &'static self,
        f: impl FnOnce(&mut Kernel, SystemTime, Runner) -> Result<T, ReturnCode>,
    ) -> Result<T, ReturnCode> {
        let (me, mut k) = self.enter()?;
        let now = self.now();
        let r = f(&mut k, now, me);
        let refusal = k.take_refusal();
        self.dispatch(&mut k);
        drop(k);
        if let Some(rule) = refusal {
            self.report_refusal(me, rule, &[]);
        }
        // Preempted by our own call (e.g. START of a higher-priority process): wait here.
        self.wait_designated(me);
        r
    }

    /// Runs a service that may block the caller, and waits for its outcome.
    pub fn call_blocking(
        &'static self,
        f: impl FnOnce(&mut Kernel, SystemTime, Runner) -> Result<CallOutcome, ReturnCode>,
    ) -> Result<(), ReturnCode> {
        match self.call(f)? {
            CallOutcome::Done(()) => Ok(()),
            CallOutcome::Blocked => {
                let (me, mut k) = self.enter()?;
                match me {
                    Runner::Process(pid) => k.take_wake_result(pid).unwrap_or(Ok(())),
                    _ => Ok(()),
                }
            }
        }
    }

    /// Runs a service that may block the caller and delivers a message into `out`
    /// (RECEIVE_BUFFER, READ_BLACKBOARD): `f` gets `out` for the immediate case; after a
    /// wait the message is fetched with [`Kernel::take_wake_message`]. Returns its length.
    pub fn call_blocking_message(
        &'static self,
        out: &mut [u8],
        f: impl FnOnce(
            &mut Kernel,
            SystemTime,
            Runner,
            &mut [u8],
        ) -> Result<CallOutcome<usize>, ReturnCode>,
    ) -> Result<usize, ReturnCode> {
        match self.call(|k, now, me| f(k, now, me, &mut *out))? {
            CallOutcome::Done(n) => Ok(n),
            CallOutcome::Blocked => {
                let (me, mut k) = self.enter()?;
                match me {
                    Runner::Process(pid) => k
                        .take_wake_message(pid, out)
                        .unwrap_or(Err(ReturnCode::NotAvailable)),
                    _ => Err(ReturnCode::NotAvailable),
                }
            }
        }
    }

    /// STOP_SELF. On success the calling thread never returns: the process is DORMANT and
    /// its thread abandoned (a later START runs the entry point on a fresh thread).
    pub fn stop_self(&'static self) -> Result<std::convert::Infallible, ReturnCode> {
        self.stop_self_to_top(false)?;
        // Not reached: without `can_leave` the call parks the thread itself.
        self.park_forever()
    }

    /// STOP_SELF for a caller that can take its thread back to the top of its loop (see
    /// [`partita_sys::escape`]): with `can_leave` and a process or error handler calling from
    /// its own thread's entry point, the thread is marked as being at the top *before* the
    /// stop, so the stop does not abandon it, and `Ok` tells the caller to leave now
    /// (and not to touch the kernel on the way). Otherwise, as before, the thread parks
    /// for good (a fresh one takes the slot at the next START). Returns only on error or
    /// when the caller is to leave.
    pub(crate) fn stop_self_to_top(&'static self, can_leave: bool) -> Result<(), ReturnCode> {
        let (me, mut k) = self.enter()?;
        let now = self.now();
        let slot = self
            .slot(me)
            .filter(|_| can_leave && matches!(me, Runner::Process(_) | Runner::ErrorHandler));
        let slot = slot.filter(|s| !self.is_abandoned(me, s));
        if let Some(s) = &slot {
            s.at_top.store(true, Ordering::Release);
        }
        let r = k.stop_self(now, me);
        if r.is_err() {
            if let Some(s) = &slot {
                s.at_top.store(false, Ordering::Release);
            }
        }
        self.dispatch(&mut k);
        drop(k);
        r?;
        if let Some(s) = slot {
            // No longer the process's thread: services refused, a fault abandons the slot.
            super::LEAVING.with(|l| l.set(true));
            // Dispatch never demotes its caller (it usually parks next); this thread may
            // still run drop code (a Rust body's unwind): below the designated threads.
            if self.rt_run > 0 && !self.is_designated(me, &s) {
                self.set_own_prio(&s, self.rt_run - 10);
            }
            crate::reclaim::note_thread_reused();
            return Ok(());
        }
        self.park_forever()
    }

    /// Whether the calling thread runs a process or error-handler body (not the main
    /// process, not the timer thread, not a thread the runtime did not create).
    pub(crate) fn in_body(&self) -> bool {
        super::IN_BODY.with(std::cell::Cell::get)
    }

    /// INITIALIZE_PROCESS_CORE_AFFINITY: also moves the process's thread to the core's
    /// designation word.
    pub fn initialize_process_core_affinity(
        &'static self,
        pid: ProcessId,
        core: u32,
    ) -> Result<(), ReturnCode> {
        self.call(|k, now, me| {
            k.initialize_process_core_affinity(now, me, pid, core)?;
            if let Some(slot) = self.slot(Runner::Process(pid)) {
                slot.core.store(core, Ordering::Release);
            }
            Ok(())
        })?;
        if let Some(slot) = self.slot(Runner::Process(pid)) {
            crate::affinity::request_move(&slot.word, &slot.pinned, core);
        }
        Ok(())
    }

    /// CREATE_PROCESS: creates the process in the kernel and its thread (which sleeps until
    /// the process is first chosen to run).
    pub fn create_process(
        &'static self,
        attrs: &ProcessAttributes,
        entry: Entry,
    ) -> Result<ProcessId, ReturnCode> {
        let (me, mut k) = self.enter()?;
        let now = self.now();
        let pid = match k.create_process(now, me, attrs) {
            Ok(pid) => pid,
            Err(e) => {
                let refusal = k.take_refusal();
                drop(k);
                if let Some(rule) = refusal {
                    self.report_refusal(me, rule, &attrs.name);
                }
                return Err(e);
            }
        };
        let core = k.process_core(pid).unwrap_or(0);
        let stack = (attrs.stack_size as usize).max(64 * 1024);
        let slot = Arc::new(Slot::new(core, entry, stack));
        {
            let mut slots = self.slots.write().unwrap_or_else(|e| e.into_inner());
            let idx = pid.0 as usize - 1;
            if slots.len() <= idx {
                slots.resize_with(idx + 1, || slot.clone());
            }
            slots[idx] = slot.clone();
        }
        self.spawn_thread(Runner::Process(pid), slot.clone())?;
        crate::trace::process_created(pid.0 as i32, slot.tid.load(Ordering::Acquire), &attrs.name);
        if let Some(c) = self.control() {
            c.processes
                .store(k.process_count() as u32, Ordering::Relaxed);
        }
        Ok(pid)
    }

    /// CREATE_ERROR_HANDLER: creates the error handler in the kernel and its thread (which
    /// sleeps until an error activates the handler). `entry_addr` is the opaque entry point
    /// the kernel records.
    pub fn create_error_handler(
        &'static self,
        entry_addr: u64,
        stack_size: u64,
        entry: Entry,
    ) -> Result<(), ReturnCode> {
        let (me, mut k) = self.enter()?;
        let now = self.now();
        k.create_error_handler(now, me, entry_addr, stack_size)?;
        let core = k.error_handler_status().map_or(0, |s| s.core);
        let stack = (stack_size as usize).max(64 * 1024);
        let slot = Arc::new(Slot::new(core, entry, stack));
        // The kernel refuses a second handler (NO_ACTION), so the cell is empty here.
        if self.handler.set(slot.clone()).is_err() {
            return Err(ReturnCode::NoAction);
        }
        self.spawn_thread(Runner::ErrorHandler, slot)?;
        self.dispatch(&mut k);
        Ok(())
    }

    /// CONFIGURE_ERROR_HANDLER: also moves the handler's thread to the core's designation
    /// word.
    pub fn configure_error_handler(
        &'static self,
        concurrency: ErrorHandlerConcurrency,
        core: u32,
    ) -> Result<(), ReturnCode> {
        self.call(|k, now, me| {
            k.configure_error_handler(now, me, concurrency, core)?;
            if let Some(slot) = self.slot(Runner::ErrorHandler) {
                slot.core.store(core, Ordering::Release);
            }
            Ok(())
        })?;
        if let Some(slot) = self.slot(Runner::ErrorHandler) {
            crate::affinity::request_move(&slot.word, &slot.pinned, core);
        }
        Ok(())
    }

    /// SET_PARTITION_MODE.
    pub fn set_partition_mode(&'static self, mode: OperatingMode) -> Result<(), ReturnCode> {
        if mode == OperatingMode::Normal && self.me() == Some(Runner::Main) {
            // The per-core idle holders, started while only the main process runs.
            crate::idle::start(self.designated.len(), self.rt_run);
        }
        let (me, mut k) = self.enter()?;
        let now = self.now();
        k.set_partition_mode(now, me, mode)?;
        self.dispatch(&mut k);
        drop(k);
        match (mode, me) {
            (OperatingMode::Normal, Runner::Main) => self.become_timer(),
            (OperatingMode::Normal, _) => Ok(()),
            // IDLE or a restart: nothing of this partition runs any more; the manager holds
            // it at the end of the window and restarts or idles it.
            _ => loop {
                std::thread::park();
            },
        }
    }
}
