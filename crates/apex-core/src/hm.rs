// SPDX-License-Identifier: MIT OR Apache-2.0
//! Health monitoring services at process level (ARINC 653 Part 1, 3.8):
//! the error handler, RAISE_APPLICATION_ERROR and GET_ERROR_STATUS.
//!
//! The error handler is a special process without `ProcessId`
//! ([`Runner::ErrorHandler`]). START does not apply to it: it goes from
//! DORMANT to READY when an error is queued for it, and back to DORMANT with
//! STOP_SELF. Its priority is above every process
//! ([`ERROR_HANDLER_PRIORITY`]) and it preempts even the preemption lock
//! owner; it may not block (services with a non-zero time-out, TIMED_WAIT,
//! SUSPEND_SELF return `InvalidMode`), lock preemption or REPLENISH
//! (`NoAction`), and the mutex ceiling check refuses it every mutex
//! (`InvalidConfig`).
//!
//! An error is handled at process level (queued to the error handler) when
//! the handler exists, the partition is in NORMAL mode, the failed runner is
//! a process and the queue is not full; otherwise it is reported at
//! partition level with [`Effect::PartitionError`].

use crate::kernel::Kernel;
use crate::process::Process;
use crate::types::*;
use alloc::collections::VecDeque;

impl Kernel {
    /// CREATE_ERROR_HANDLER: creates the (DORMANT) error handler; it counts
    /// as a process against `max_processes` and `stack_total`, and executes
    /// on core 0 unless CONFIGURE_ERROR_HANDLER says otherwise.
    ///
    /// Errors: `NoAction` (already created), `InvalidConfig` (process table
    /// or stack storage exhausted), `InvalidParam` (stack size 0),
    /// `InvalidMode` (not initialising).
    pub fn create_error_handler(
        &mut self,
        now: SystemTime,
        caller: Runner,
        entry: u64,
        stack_size: u64,
    ) -> Result<(), ReturnCode> {
        self.service(now, |k| {
            k.caller(caller)?;
            if k.has_handler {
                return Err(ReturnCode::NoAction);
            }
            if k.procs.len() >= k.cfg.max_processes
                || k.stack_used.saturating_add(stack_size) > k.cfg.stack_total
            {
                return Err(ReturnCode::InvalidConfig);
            }
            if stack_size == 0 {
                return Err(ReturnCode::InvalidParam);
            }
            if !k.is_init_mode() {
                return Err(ReturnCode::InvalidMode);
            }
            let attrs = ProcessAttributes {
                name: [0; MAX_NAME_LENGTH],
                entry,
                stack_size,
                base_priority: ERROR_HANDLER_PRIORITY,
                period: INFINITE_TIME_VALUE,
                time_capacity: INFINITE_TIME_VALUE,
                deadline: DeadlineType::Soft,
            };
            k.stack_used += stack_size;
            k.procs.push(Process::new(attrs, k.max_msg));
            k.has_handler = true;
            k.errors = VecDeque::with_capacity(k.cfg.max_pending_errors);
            Ok(())
        })
    }

    /// CONFIGURE_ERROR_HANDLER (multicore): concurrency control and the core
    /// the error handler executes on.
    ///
    /// Errors: `InvalidConfig` (no error handler, core not in `0..cores`),
    /// `InvalidMode` (not initialising).
    pub fn configure_error_handler(
        &mut self,
        now: SystemTime,
        caller: Runner,
        concurrency: ErrorHandlerConcurrency,
        core: u32,
    ) -> Result<(), ReturnCode> {
        self.service(now, |k| {
            k.caller(caller)?;
            let h = k.handler_idx().ok_or(ReturnCode::InvalidConfig)?;
            if core >= k.cfg.cores {
                return Err(ReturnCode::InvalidConfig);
            }
            if !k.is_init_mode() {
                return Err(ReturnCode::InvalidMode);
            }
            k.procs[h].core = core;
            k.handler_concurrency = concurrency;
            Ok(())
        })
    }

    /// RAISE_APPLICATION_ERROR: records an `ApplicationError` for the
    /// caller. Handled at process level (the error handler is activated and
    /// preempts) or reported with [`Effect::PartitionError`] (see the module
    /// documentation).
    ///
    /// Errors: `InvalidParam` (code other than `ApplicationError`, message
    /// longer than `MAX_ERROR_MESSAGE_SIZE`), `InvalidMode` (caller not
    /// executing).
    pub fn raise_application_error(
        &mut self,
        now: SystemTime,
        caller: Runner,
        code: ErrorCode,
        message: &[u8],
    ) -> Result<(), ReturnCode> {
        self.service(now, |k| {
            k.caller(caller)?;
            if code != ErrorCode::ApplicationError {
                return Err(ReturnCode::InvalidParam);
            }
            let failed = match caller {
                Runner::Process(pid) => Some(pid),
                _ => None,
            };
            let e = ErrorStatus::new(code, failed, 0, message).ok_or(ReturnCode::InvalidParam)?;
            k.dispatch_error(caller, e);
            Ok(())
        })
    }

    /// Glue entry point for errors it detects itself (SIGFPE:
    /// `NumericError`, SIGSEGV: `MemoryViolation`, ...), any code allowed.
    /// `failed` is the runner that faulted (it need not be executing);
    /// `address` the faulting address (0 if unknown). Dispatched like
    /// [`Kernel::raise_application_error`].
    ///
    /// Errors: `InvalidParam` (unknown process, no error handler for
    /// [`Runner::ErrorHandler`], message too long).
    pub fn raise_error(
        &mut self,
        now: SystemTime,
        failed: Runner,
        code: ErrorCode,
        address: u64,
        message: &[u8],
    ) -> Result<(), ReturnCode> {
        self.service(now, |k| {
            let pid = match failed {
                Runner::Main => None,
                Runner::Process(pid) => Some(k.pidx(pid).map(|_| pid)?),
                Runner::ErrorHandler => {
                    k.handler_idx().ok_or(ReturnCode::InvalidParam)?;
                    None
                }
            };
            let e =
                ErrorStatus::new(code, pid, address, message).ok_or(ReturnCode::InvalidParam)?;
            k.dispatch_error(failed, e);
            Ok(())
        })
    }

    /// GET_ERROR_STATUS: removes and returns the oldest pending error.
    ///
    /// Errors: `InvalidConfig` (caller is not the error handler),
    /// `NoAction` (no pending error).
    pub fn get_error_status(
        &mut self,
        now: SystemTime,
        caller: Runner,
    ) -> Result<ErrorStatus, ReturnCode> {
        self.service(now, |k| {
            if caller != Runner::ErrorHandler {
                return Err(ReturnCode::InvalidConfig);
            }
            k.caller(caller)?;
            k.errors.pop_front().ok_or(ReturnCode::NoAction)
        })
    }

    /// Whether CREATE_ERROR_HANDLER succeeded.
    pub fn has_error_handler(&self) -> bool {
        self.has_handler
    }

    /// State of the error handler (`None` if it was not created).
    pub fn error_handler_status(&self) -> Option<ErrorHandlerStatus> {
        let p = &self.procs[self.handler_idx()?];
        Some(ErrorHandlerStatus {
            entry: p.attrs.entry,
            stack_size: p.attrs.stack_size,
            state: p.state,
            core: p.core,
            concurrency: self.handler_concurrency,
            pending_errors: self.errors.len(),
        })
    }

    /// Routes an error: queued to the error handler (activating it) when
    /// handled at process level, else an [`Effect::PartitionError`].
    pub(crate) fn dispatch_error(&mut self, source: Runner, error: ErrorStatus) {
        let process_level = self.has_handler
            && self.mode == OperatingMode::Normal
            && matches!(source, Runner::Process(_))
            && self.errors.len() < self.cfg.max_pending_errors;
        if process_level {
            self.errors.push_back(error);
            self.activate_error_handler();
        } else {
            self.effects.push(Effect::PartitionError { source, error });
        }
    }

    /// DORMANT error handler to READY (no-op if already active).
    pub(crate) fn activate_error_handler(&mut self) {
        let Some(h) = self.handler_idx() else { return };
        if self.procs[h].state != ProcessState::Dormant {
            return;
        }
        let p = &mut self.procs[h];
        p.current_priority = ERROR_HANDLER_PRIORITY;
        p.retained_priority = ERROR_HANDLER_PRIORITY;
        p.suspended = false;
        p.wake = None;
        p.deadline = INFINITE_TIME_VALUE;
        p.deadline_reported = false;
        self.make_ready(h);
        self.effects.push(Effect::ErrorHandlerStarted);
    }
}
