// SPDX-License-Identifier: MIT OR Apache-2.0
//! The Linux glue around the OS-independent [`Kernel`]: one kernel per partition behind a
//! mutex, one thread per APEX process, and the main thread turned into the timer thread once
//! the partition is in NORMAL mode.
//!
//! # Which thread runs
//! The kernel decides which APEX process runs on each core ([`Kernel::running`]); the glue
//! makes exactly that thread runnable:
//! - a process that is not ready (dormant, waiting) sleeps on its own futex in the runtime;
//! - the designated process has `SCHED_FIFO` priority `run`; a process preempted while it
//!   executes application code (a release handled by the timer thread) is lowered to
//!   `run - 10`, so the kernel switches at once *and* a lock it may hold inside libc stays
//!   releasable (it runs again only if the designated thread blocks outside APEX);
//! - a process preempted inside an APEX call sleeps on its futex until designated again;
//! - the timer thread runs at `run + 1` and only ever sleeps or briefly takes the kernel lock.
//!
//! Because every non-designated APEX thread sleeps in a futex, freezing the partition costs
//! the same whether it has 1 or 64 processes (the cgroup v1 freezer marks sleeping tasks frozen
//! without waking them).
//!
//! # Stopped processes
//! A process stopped by itself in the middle of its body (STOP_SELF) leaves its body at once:
//! the runtime calls every entry point through `partita_sys::escape::call_escapable`, and
//! STOP_SELF marks the thread as being at the top of its loop, stops the process and returns
//! there (C bodies: `escape`, discarding their frames; Rust bodies: an unwind, dropping their
//! values), so the thread is reused at the next START. a653rs bodies (`extern "C"` Rust
//! functions) can be neither: their thread is abandoned as below.
//!
//! A process stopped by another one (STOP) must begin again at its entry point when it is
//! next started, but its thread may be anywhere in application code. Such a thread is
//! *abandoned*: its slot's incarnation is incremented,
//! and the old thread, the next time it reaches the runtime (any service, the return of its
//! entry point, or a wake-up while it waits), notices the mismatch and parks forever without
//! touching the kernel. The next START spawns a fresh thread for the slot. A thread that is
//! waiting at the top of its loop (never ran, or returned from its entry point) is reused.
//!
//! Limitation: an abandoned thread is never killed. Until it reaches the runtime it may keep
//! executing the stopped process's code (at the demoted priority, so only when a designated
//! thread of its core blocks outside APEX: an idle core is held by `crate::idle`), and
//! anything it holds stays held: a libc lock (malloc, stdio)
//! taken when it was stopped is never released; when it parks it gives back its dead stack
//! pages and its signal stack (`crate::reclaim`), not its address range or kernel task.
//!
//! # Error handler
//! CREATE_ERROR_HANDLER gives the handler a slot and a thread like a process
//! ([`Runner::ErrorHandler`], designation word `u32::MAX`). `ErrorHandlerStarted` runs its
//! entry point (on the waiting thread, or a fresh one if the last was abandoned);
//! `ErrorHandlerStopped` abandons it unless it waits at the top of its loop. A handler that
//! *returns* from its entry point, or ends with STOP_SELF, is back at the top of its loop and its
//! thread is reused (before STOP_SELF did so, a handler ending every activation with it, the
//! standard's usual pattern, left one parked thread per error and reached the partition's
//! task limit after about 124 errors). Errors handled at partition level are sent to the manager as
//! partition-error records ([`partita_abi::report`]).
//!
//! # Hardware faults
//! SIGFPE, SIGSEGV, SIGBUS and SIGILL of a runtime thread (each has an alternate signal stack)
//! are raised to the kernel for the faulting runner as NUMERIC_ERROR, MEMORY_VIOLATION
//! (STACK_OVERFLOW near the end of the thread's stack), MEMORY_VIOLATION and HARDWARE_FAULT;
//! the faulting thread then parks forever inside the signal handler. When the error handler
//! takes the error it decides (e.g. STOP + START); otherwise the error is reported at
//! partition level and the process (or handler) is stopped. A fault of the main process or
//! the timer thread, of a thread the runtime did not create, or inside a service with the
//! kernel locked (a bad pointer passed to a service) takes the default action: the partition
//! dies. The fault path is not async-signal-safe (see `Runtime::fault`). A system call refused
//! by the partition's seccomp filter (SIGSYS) is handled the same way as ILLEGAL_REQUEST
//! (see [`crate::isolation`]).
//!
//! # Parts
//! - this module: the [`Runtime`] (one per partition process), the kernel lock, entering the
//!   runtime from a service;
//! - `init`: start-up from the control block (or standalone);
//! - `services`: running services for the calling runner, blocking, creating processes and
//!   the error handler, SET_PARTITION_MODE;
//! - `threads`: slots, the runners' threads, abandon / re-spawn, the timer thread;
//! - `dispatch`: designations and priorities after every service, the kernel's effects;
//! - `fault`: hardware faults and the alternate signal stacks;
//! - `report`: report records for the manager ([`partita_abi::report`]).

mod dispatch;
mod fault;
mod init;
mod report;
mod services;
mod threads;

pub(crate) use report::reporter;

use partita_apex_core::{Kernel, ReturnCode, Runner, SystemTime};
use partita_sys::control::ControlBlock;
use partita_sys::shm::SharedMapping;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};
use threads::Slot;

/// An APEX process body.
pub type Entry = Arc<dyn Fn() + Send + Sync + 'static>;

/// The partition runtime (one per process).
pub struct Runtime {
    ctl: Option<SharedMapping>,
    epoch: u64,
    kernel: Mutex<Kernel>,
    slots: RwLock<Vec<Arc<Slot>>>,
    main: Arc<Slot>,
    /// The error handler's slot, once CREATE_ERROR_HANDLER succeeded.
    handler: OnceLock<Arc<Slot>>,
    /// Per core: encoded runner that may run (see [`threads::encode`]).
    designated: Vec<AtomicU32>,
    timer_word: AtomicU32,
    timer_armed: AtomicI64,
    rt_run: i32,
    park_lowering: bool,
    report: Mutex<Option<std::fs::File>>,
    standalone: bool,
    idle: AtomicBool,
}

thread_local! {
    static ME: std::cell::Cell<Option<Runner>> = const { std::cell::Cell::new(None) };
    /// The calling thread runs a process or error-handler body (`process_thread`).
    static IN_BODY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The calling thread's process stopped itself (STOP_SELF) and the thread is on its way
    /// back to the top of its loop: it is no longer the process's, so every service it calls
    /// meanwhile (drop code of an unwinding Rust body, a body that caught the unwind) is
    /// refused with INVALID_MODE, and a fault abandons the slot.
    static LEAVING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Incarnation of the calling thread's slot when the thread was spawned.
    static INCARNATION: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    /// The calling thread holds the kernel lock (read by the fault handler).
    static HOLDS_KERNEL: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Approximate lowest address of the calling thread's stack (0: unknown), to tell a stack
    /// overflow from another memory violation.
    static STACK_LOW: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The locked kernel (see [`Runtime::lock`]).
pub struct KernelGuard<'a>(MutexGuard<'a, Kernel>);

impl Deref for KernelGuard<'_> {
    type Target = Kernel;
    fn deref(&self) -> &Kernel {
        &self.0
    }
}

impl DerefMut for KernelGuard<'_> {
    fn deref_mut(&mut self) -> &mut Kernel {
        &mut self.0
    }
}

impl Drop for KernelGuard<'_> {
    fn drop(&mut self) {
        HOLDS_KERNEL.with(|h| h.set(false));
    }
}

/// Why the runtime could not start.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    /// The control block the manager passed could not be mapped.
    #[error("partita runtime: control block: {0}")]
    ControlBlock(partita_sys::SysError),
    /// The control block is of another build.
    #[error("partita runtime: control block has a wrong magic or version (manager and runtime from different builds?)")]
    ControlBlockVersion,
    /// The kernel refused the partition's configuration.
    #[error("partita runtime: the partition configuration is refused ({0:?})")]
    Configuration(ReturnCode),
}

static RUNTIME: OnceLock<Result<Runtime, InitError>> = OnceLock::new();

/// The runtime of this partition, initialised on first use.
pub fn get() -> Result<&'static Runtime, ReturnCode> {
    match RUNTIME.get_or_init(Runtime::init) {
        Ok(r) => Ok(r),
        Err(_) => Err(ReturnCode::InvalidConfig),
    }
}

/// Why the runtime could not start, if it could not.
pub fn init_error() -> Option<&'static InitError> {
    RUNTIME.get_or_init(Runtime::init).as_ref().err()
}

impl Runtime {
    /// Current APEX time: ns since the module epoch, on the `CLOCK_MONOTONIC` scale (read
    /// from the counter clock when the host allows it: `partita_sys::time::CounterClock`).
    #[inline]
    pub fn now(&self) -> SystemTime {
        partita_sys::time::COUNTER_CLOCK.now_ns() as i64 - self.epoch as i64
    }

    /// The calling runner (`None` for a thread the runtime did not create).
    pub fn me(&self) -> Option<Runner> {
        ME.with(|m| m.get())
    }

    fn caller(&self) -> Result<Runner, ReturnCode> {
        self.me().ok_or(ReturnCode::InvalidMode)
    }

    /// Locks the kernel.
    pub fn lock(&self) -> KernelGuard<'_> {
        let mut g = self.kernel.lock().unwrap_or_else(|p| p.into_inner());
        HOLDS_KERNEL.with(|h| h.set(true));
        // A module schedule switch may have changed the partition's timing.
        crate::apex::part2::schedules::refresh(self.control(), &mut g);
        KernelGuard(g)
    }

    /// Locks the kernel for a service of the calling runner; an abandoned thread parks here.
    fn enter(&self) -> Result<(Runner, KernelGuard<'_>), ReturnCode> {
        if LEAVING.with(std::cell::Cell::get) {
            return Err(ReturnCode::InvalidMode);
        }
        let me = self.caller()?;
        let k = self.lock();
        if let Some(slot) = self.slot(me) {
            // Back in the runtime: no longer a demoted runner (crate::idle).
            crate::idle::clear_demoted(&slot.demoted);
            if self.is_abandoned(me, &slot) {
                drop(k);
                self.park_forever();
            }
        }
        Ok((me, k))
    }

    /// Runs a query (no state change, no rescheduling). Threads the runtime did not create
    /// may query too (`None` caller); an abandoned thread parks here.
    pub fn query<T>(
        &self,
        f: impl FnOnce(&Kernel, Option<Runner>) -> Result<T, ReturnCode>,
    ) -> Result<T, ReturnCode> {
        match self.me() {
            Some(_) => {
                let (me, k) = self.enter()?;
                f(&k, Some(me))
            }
            None => f(&self.lock(), None),
        }
    }

    /// The control block (absent when standalone).
    pub fn control(&self) -> Option<&ControlBlock> {
        self.ctl.as_ref().map(|m| m.view::<ControlBlock>())
    }

    /// Whether the partition runs without a manager.
    pub fn standalone(&self) -> bool {
        self.standalone
    }

    /// Runs `f` with the kernel locked, then dispatches (the port thread
    /// completes waiting senders and receivers when a peer partition moved data).
    pub(crate) fn with_kernel(&'static self, f: impl FnOnce(&mut Kernel, SystemTime)) {
        let mut k = self.lock();
        let now = self.now();
        f(&mut k, now);
        self.dispatch(&mut k);
    }
}
