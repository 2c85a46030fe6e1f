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
//! A process stopped by another one (STOP) or by itself in the middle of its body (STOP_SELF)
//! must begin again at its entry point when it is next started, but its thread may be anywhere
//! in application code. Such a thread is *abandoned*: its slot's incarnation is incremented,
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
//! *returns* from its entry point is back at the top of its loop and its thread is reused; one
//! that calls STOP_SELF leaves its thread parked (the limitation above), and the next
//! activation spawns a fresh one. Errors handled at partition level are sent to the manager as
//! [`record::PARTITION_ERROR`] records.
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

use partita_apex_core::{
    CallOutcome, Effect, ErrorCode, ErrorHandlerConcurrency, ErrorStatus, Kernel, OperatingMode,
    PartitionConfig, ProcessAttributes, ProcessId, ReturnCode, Runner, SchedulingPolicy,
    StartCondition, SystemTime,
};
use partita_sys::control::{self, ControlBlock};
use partita_sys::fault::{Fault, FaultSignal};
use partita_sys::shm::SharedMapping;
use std::io::Write;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicI64, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};

/// An APEX process body.
pub type Entry = Arc<dyn Fn() + Send + Sync + 'static>;

/// Report record kinds on the report channel.
pub mod record {
    /// REPORT_APPLICATION_MESSAGE.
    pub const APPLICATION_MESSAGE: u8 = 1;
    /// A deadline miss detected by the runtime.
    pub const DEADLINE_MISSED: u8 = 2;
    /// An error handled at partition level ([`partita_apex_core::Effect::PartitionError`]:
    /// no error handler, initialisation, the main process or the error handler failed, or the
    /// error queue was full). The record's process is the failed process, -1 for the main
    /// process, -2 for the error handler; its text is
    /// `<ERROR_CODE_TYPE name> (<code>)[ at 0x<failed address>]: <message>`.
    pub const PARTITION_ERROR: u8 = 3;
    /// An error queued to the partition's error handler (process level), for the module
    /// logbook; same text as [`PARTITION_ERROR`].
    pub const PROCESS_ERROR: u8 = 5;
}

/// Process number of a report record for a runner (see [`record::PARTITION_ERROR`]).
fn record_process(r: Runner) -> i32 {
    match r {
        Runner::Main => -1,
        Runner::Process(p) => p.0 as i32,
        Runner::ErrorHandler => -2,
    }
}

/// The C name of an error code.
pub fn error_code_name(c: ErrorCode) -> &'static str {
    match c {
        ErrorCode::DeadlineMissed => "DEADLINE_MISSED",
        ErrorCode::ApplicationError => "APPLICATION_ERROR",
        ErrorCode::NumericError => "NUMERIC_ERROR",
        ErrorCode::IllegalRequest => "ILLEGAL_REQUEST",
        ErrorCode::StackOverflow => "STACK_OVERFLOW",
        ErrorCode::MemoryViolation => "MEMORY_VIOLATION",
        ErrorCode::HardwareFault => "HARDWARE_FAULT",
        ErrorCode::PowerFail => "POWER_FAIL",
    }
}

/// Size of the alternate signal stack of every runtime thread (the fault handler takes the
/// kernel lock, dispatches and formats a report on it).
const ALT_STACK: usize = 128 * 1024;

/// Designation word values: 0 nobody, 1 the main process, `pid + 1` an APEX process.
fn encode(r: Option<Runner>) -> u32 {
    match r {
        None => 0,
        Some(Runner::Main) => 1,
        Some(Runner::Process(p)) => p.0 + 1,
        Some(Runner::ErrorHandler) => ERROR_HANDLER_WORD,
    }
}

/// Designation word value of the error handler.
const ERROR_HANDLER_WORD: u32 = u32::MAX;

struct Slot {
    /// Bumped (and futex-woken) whenever the designation of the slot's core changes.
    word: AtomicU32,
    tid: AtomicI32,
    core: AtomicU32,
    entry: Entry,
    /// Stack size of the slot's threads.
    stack: usize,
    /// Incremented when the current thread is abandoned (see the module documentation); a
    /// thread whose own incarnation differs parks forever. Changed with the kernel locked.
    incarnation: AtomicU32,
    /// The current thread is abandoned and no fresh one was spawned yet.
    abandoned: AtomicBool,
    /// The current thread waits at the top of its loop and will call the entry point from
    /// the start when designated. Changed by the thread with the kernel locked.
    at_top: AtomicBool,
    /// The SCHED_FIFO priority last given to the slot's thread, so that the dispatcher skips
    /// the system call when it would not change anything (the common case on a hand-off).
    prio: AtomicI32,
    /// apex3: the core the slot's thread last moved itself to (see [`crate::affinity`]).
    pinned: AtomicU32,
    /// apex3: the thread was demoted while in application code (see [`crate::idle`]).
    demoted: AtomicBool,
}

impl Slot {
    fn new(core: u32, entry: Entry, stack: usize) -> Slot {
        Slot {
            word: AtomicU32::new(0),
            tid: AtomicI32::new(0),
            core: AtomicU32::new(core),
            entry,
            stack,
            incarnation: AtomicU32::new(0),
            abandoned: AtomicBool::new(false),
            at_top: AtomicBool::new(true),
            prio: AtomicI32::new(0),
            pinned: AtomicU32::new(crate::affinity::UNPINNED),
            demoted: AtomicBool::new(false),
        }
    }
}

/// The partition runtime (one per process).
pub struct Runtime {
    ctl: Option<SharedMapping>,
    epoch: u64,
    kernel: Mutex<Kernel>,
    slots: RwLock<Vec<Arc<Slot>>>,
    main: Arc<Slot>,
    /// The error handler's slot, once CREATE_ERROR_HANDLER succeeded.
    handler: OnceLock<Arc<Slot>>,
    /// Per core: encoded runner that may run (see [`encode`]).
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

static RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();

/// The runtime of this partition, initialised on first use.
pub fn get() -> Result<&'static Runtime, ReturnCode> {
    match RUNTIME.get_or_init(Runtime::init) {
        Ok(r) => Ok(r),
        Err(_) => Err(ReturnCode::InvalidConfig),
    }
}

/// Why the runtime could not start, if it could not.
pub fn init_error() -> Option<String> {
    RUNTIME.get_or_init(Runtime::init).as_ref().err().cloned()
}

impl Runtime {
    fn init() -> Result<Runtime, String> {
        partita_sys::proc::line_buffer_c_stdout();
        let fd: Option<i32> = std::env::var(control::ENV_CONTROL_FD)
            .ok()
            .and_then(|v| v.parse().ok());
        let (ctl, standalone) = match fd {
            Some(fd) => {
                let m = SharedMapping::map_inherited(fd, control::SIZE, true)
                    .map_err(|e| format!("partita runtime: control block: {e}"))?;
                if !m.view::<ControlBlock>().is_valid() {
                    return Err("partita runtime: control block has a wrong magic or version (manager and runtime from different builds?)".into());
                }
                (Some(m), false)
            }
            None => {
                eprintln!(
                    "partita runtime: not started by the partition manager ({} unset): running standalone with a {} ms period",
                    control::ENV_CONTROL_FD,
                    PartitionConfig::default().period / 1_000_000
                );
                (None, true)
            }
        };
        let now = partita_sys::time::monotonic_ns();
        let (cfg, epoch, rt_run, cpus) = match &ctl {
            Some(m) => {
                let c = m.view::<ControlBlock>();
                let ld = |a: &AtomicI64| a.load(Ordering::Acquire);
                let cfg = PartitionConfig {
                    identifier: c.partition_id.load(Ordering::Acquire) as i64,
                    period: ld(&c.period_ns),
                    duration: ld(&c.duration_ns),
                    period_origin: ld(&c.period_origin_ns),
                    cores: c.num_cores.load(Ordering::Acquire).max(1),
                    initial_mode: if c.mode.load(Ordering::Acquire) == control::mode::WARM_START {
                        OperatingMode::WarmStart
                    } else {
                        OperatingMode::ColdStart
                    },
                    start_condition: match c.start_condition.load(Ordering::Acquire) {
                        1 => StartCondition::PartitionRestart,
                        2 => StartCondition::HmModuleRestart,
                        3 => StartCondition::HmPartitionRestart,
                        _ => StartCondition::NormalStart,
                    },
                    policy: if c.process_policy.load(Ordering::Acquire)
                        == control::process_policy::EDF
                    {
                        SchedulingPolicy::Edf
                    } else {
                        SchedulingPolicy::FixedPriority
                    },
                    ..PartitionConfig::default()
                };
                let cfg = PartitionConfig {
                    max_processes: match c.max_processes.load(Ordering::Acquire) {
                        0 => cfg.max_processes,
                        n => n as usize,
                    },
                    stack_total: match c.stack_bytes.load(Ordering::Acquire) {
                        0 => cfg.stack_total,
                        n => n,
                    },
                    ..cfg
                };
                let mask = c.cpus.load(Ordering::Acquire);
                let cpus: Vec<u32> = (0..64).filter(|b| mask & (1 << b) != 0).collect();
                (
                    cfg,
                    c.epoch_ns.load(Ordering::Acquire),
                    c.rt_run_priority.load(Ordering::Acquire),
                    cpus,
                )
            }
            None => {
                // Standalone: PARTITA_PROCESS_POLICY=EDF selects EDF (for tests).
                let edf = std::env::var("PARTITA_PROCESS_POLICY")
                    .is_ok_and(|v| v.eq_ignore_ascii_case("edf"));
                let cfg = PartitionConfig {
                    policy: if edf {
                        SchedulingPolicy::Edf
                    } else {
                        SchedulingPolicy::FixedPriority
                    },
                    ..PartitionConfig::default()
                };
                (cfg, now, 0, Vec::new())
            }
        };
        let cores = cfg.cores;
        let kernel = Kernel::new(cfg).map_err(|e| format!("partita runtime: {e:?}"))?;
        let report = if standalone {
            None
        } else {
            partita_sys::proc::inherited_file(control::REPORT_FD)
        };
        // PARTITA_PARK_LOWERING=0/1 overrides the manager's choice (for measurements).
        let park_lowering = match std::env::var("PARTITA_PARK_LOWERING").ok().as_deref() {
            Some("0") => false,
            Some("1") => true,
            _ => ctl.as_ref().is_none_or(|m| {
                m.view::<ControlBlock>()
                    .park_lowering
                    .load(Ordering::Acquire)
                    != 0
            }),
        };
        let rt = Runtime {
            ctl,
            epoch,
            kernel: Mutex::new(kernel),
            slots: RwLock::new(Vec::new()),
            main: Arc::new({
                let s = Slot::new(0, Arc::new(|| {}), 0);
                s.tid.store(partita_sys::sched::gettid(), Ordering::Release);
                s
            }),
            handler: OnceLock::new(),
            designated: (0..cores)
                .map(|c| AtomicU32::new(if c == 0 { 1 } else { 0 }))
                .collect(),
            timer_word: AtomicU32::new(0),
            timer_armed: AtomicI64::new(i64::MAX),
            rt_run,
            park_lowering,
            report: Mutex::new(report),
            standalone,
            idle: AtomicBool::new(false),
        };
        // Pins the main thread to core 0 (see crate::affinity).
        crate::affinity::init(cpus);
        ME.with(|m| m.set(Some(Runner::Main)));
        // Hardware faults of the runtime's threads go to the health monitor.
        if let Err(e) = partita_sys::fault::install_fault_handlers(on_fault) {
            eprintln!(
                "partita runtime: cannot handle hardware faults ({e}); a fault kills the partition"
            );
        }
        thread_fault_setup(0);
        if rt.rt_run > 0 {
            // The main (initialisation) process runs at the running priority. Failure means
            // the host denies SCHED_FIFO: scheduling then relies on futexes alone.
            if partita_sys::sched::set_fifo(0, rt.rt_run).is_err() {
                eprintln!("partita runtime: SCHED_FIFO denied; process preemption is deferred to APEX calls");
            } else {
                rt.main.prio.store(rt.rt_run, Ordering::Release);
            }
        }
        Ok(rt)
    }

    /// Current APEX time: ns since the module epoch.
    pub fn now(&self) -> SystemTime {
        partita_sys::time::monotonic_ns() as i64 - self.epoch as i64
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
        crate::schedules::refresh(self.control(), &mut g);
        KernelGuard(g)
    }

    /// Whether the calling thread is an abandoned thread of `me`'s slot. Reliable with the
    /// kernel locked (incarnations change under the lock).
    fn is_abandoned(&self, me: Runner, slot: &Slot) -> bool {
        matches!(me, Runner::Process(_) | Runner::ErrorHandler)
            && slot.incarnation.load(Ordering::Acquire) != INCARNATION.with(|c| c.get())
    }

    /// The end of an abandoned thread (or of a thread whose process stopped itself): it
    /// never returns to application code and never touches the kernel again.
    fn park_forever(&self) -> ! {
        // apex3: give back the memory it no longer needs (crate::reclaim).
        crate::reclaim::before_parking_forever();
        loop {
            std::thread::park();
        }
    }

    /// Locks the kernel for a service of the calling runner; an abandoned thread parks here.
    fn enter(&self) -> Result<(Runner, KernelGuard<'_>), ReturnCode> {
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

    fn slot(&self, r: Runner) -> Option<Arc<Slot>> {
        match r {
            Runner::Main => Some(self.main.clone()),
            Runner::Process(p) => self
                .slots
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .get(p.0.checked_sub(1)? as usize)
                .cloned(),
            Runner::ErrorHandler => self.handler.get().cloned(),
        }
    }

    /// Gives the slot's thread `prio`, unless it already has it.
    fn set_prio(&self, slot: &Slot, prio: i32) {
        let prio = prio.max(1);
        let tid = slot.tid.load(Ordering::Acquire);
        if self.rt_run > 0 && tid > 0 && slot.prio.swap(prio, Ordering::AcqRel) != prio {
            // prio stream: a raise may go through the manager (crate::raise).
            crate::raise::set_priority(self.control(), tid, prio);
        }
    }

    /// Makes the threads match the kernel's decisions, carries out its effects, and re-arms
    /// the timer. Called with the kernel locked, after every service.
    fn dispatch(&'static self, k: &mut Kernel) {
        let effects: Vec<Effect> = k.drain_effects().collect();
        // Thread bookkeeping first: a fresh thread must exist (with its tid) before it can be
        // designated below.
        for e in &effects {
            match *e {
                Effect::ProcessStopped(pid) => self.abandon(Runner::Process(pid)),
                Effect::ProcessStarted(pid) => self.respawn(Runner::Process(pid)),
                Effect::ErrorHandlerStopped => self.abandon(Runner::ErrorHandler),
                Effect::ErrorHandlerStarted => self.respawn(Runner::ErrorHandler),
                _ => {}
            }
        }
        for (core, d) in self.designated.iter().enumerate() {
            let want = k.running(core as u32);
            let enc = encode(want);
            let old = d.swap(enc, Ordering::AcqRel);
            if old == enc {
                continue;
            }
            let prev_runner = decode(old);
            if let Some(prev) = prev_runner.and_then(|r| self.slot(r)) {
                // Another thread preempted asynchronously (we are the timer thread, or a
                // process on another core): demote it so the kernel switches now while it
                // stays runnable. The calling thread itself is never demoted here: it holds
                // the kernel lock, and it parks on its futex once it has released it.
                if prev_runner != self.me() {
                    self.set_prio(&prev, self.rt_run - 10);
                    crate::idle::mark_demoted(&prev.demoted);
                }
                prev.word.fetch_add(1, Ordering::Release);
            }
            if let Some(next) = want.and_then(|r| self.slot(r)) {
                self.set_prio(&next, self.rt_run);
                crate::idle::clear_demoted(&next.demoted);
                next.word.fetch_add(1, Ordering::Release);
                partita_sys::futex::wake(&next.word, u32::MAX, false);
            }
        }
        // apex3: an idle core must not run a demoted thread (crate::idle).
        crate::idle::update(|c| k.running(c).is_none(), |c| self.any_demoted_on(c));
        for e in effects {
            match e {
                Effect::DeadlineMissed { process, deadline } => {
                    self.send_record(
                        record::DEADLINE_MISSED,
                        self.now(),
                        process.0 as i32,
                        format!("deadline missed (deadline {deadline} ns)").as_bytes(),
                    );
                }
                Effect::RestartRequested(m) => self.request_mode(m as u32),
                Effect::IdleRequested => self.request_mode(control::mode::IDLE),
                Effect::PartitionError { source, error } => self.report_error(source, &error),
                Effect::ProcessStarted(_)
                | Effect::ProcessStopped(_)
                | Effect::ErrorHandlerStarted
                | Effect::ErrorHandlerStopped => {}
            }
        }
        if let Some(c) = self.control() {
            c.mode.store(k.operating_mode() as u32, Ordering::Release);
            c.lock_level
                .store(k.get_partition_status().lock_level, Ordering::Relaxed);
        }
        let next = k.next_event_time().unwrap_or(i64::MAX);
        if next < self.timer_armed.load(Ordering::Acquire) {
            self.timer_armed.store(next, Ordering::Release);
            self.timer_word.fetch_add(1, Ordering::Release);
            partita_sys::futex::wake(&self.timer_word, 1, false);
        }
    }

    /// Whether a demoted thread is bound to `core` (see [`crate::idle`]).
    fn any_demoted_on(&self, core: u32) -> bool {
        let on =
            |s: &Slot| s.demoted.load(Ordering::Acquire) && s.core.load(Ordering::Acquire) == core;
        self.slots
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .any(|s| on(s))
            || self.handler.get().is_some_and(|s| on(s))
    }

    /// ProcessStopped / ErrorHandlerStopped: unless its thread waits at the top of its loop,
    /// the slot's thread is abandoned (it may be anywhere in application code) and woken so
    /// that, if it sleeps in the runtime, it parks for good. Called with the kernel locked.
    fn abandon(&self, who: Runner) {
        let Some(slot) = self.slot(who) else {
            return;
        };
        if slot.at_top.load(Ordering::Acquire) {
            return;
        }
        slot.incarnation.fetch_add(1, Ordering::AcqRel);
        slot.abandoned.store(true, Ordering::Release);
        slot.word.fetch_add(1, Ordering::Release);
        partita_sys::futex::wake(&slot.word, u32::MAX, false);
    }

    /// ProcessStarted / ErrorHandlerStarted: a slot whose thread was abandoned gets a fresh
    /// thread, which begins at the entry point when designated. Called with the kernel locked.
    fn respawn(&'static self, who: Runner) {
        let Some(slot) = self.slot(who) else {
            return;
        };
        if !slot.abandoned.load(Ordering::Acquire) {
            return;
        }
        slot.at_top.store(true, Ordering::Release);
        slot.abandoned.store(false, Ordering::Release);
        if self.spawn_thread(who, slot).is_err() {
            eprintln!(
                "partita runtime: cannot create a thread to restart {}; it will not run",
                runner_name(who)
            );
        }
    }

    /// A [`record::PROCESS_ERROR`] record: an error the error handler took.
    pub fn report_process_error(&self, source: Runner, code: ErrorCode, addr: u64, msg: &[u8]) {
        let pid = match source {
            Runner::Process(p) => Some(p),
            _ => None,
        };
        let msg = &msg[..msg.len().min(partita_apex_core::MAX_ERROR_MESSAGE_SIZE)];
        if let Some(e) = ErrorStatus::new(code, pid, addr, msg) {
            self.error_record(record::PROCESS_ERROR, source, &e);
        }
    }

    /// PartitionError: a report record for the manager's health monitor.
    fn report_error(&self, source: Runner, e: &ErrorStatus) {
        self.error_record(record::PARTITION_ERROR, source, e);
    }

    fn error_record(&self, kind: u8, source: Runner, e: &ErrorStatus) {
        let mut text = format!(
            "{} ({})",
            error_code_name(e.error_code),
            e.error_code as u32
        );
        if e.failed_address != 0 {
            text.push_str(&format!(" at {:#x}", e.failed_address));
        }
        text.push_str(": ");
        let mut msg = text.into_bytes();
        msg.extend_from_slice(e.message());
        self.send_record(kind, self.now(), record_process(source), &msg);
    }

    /// Spawns the thread of a slot (current incarnation) and waits until it has its tid and
    /// priority, so that dispatch can address it. The new thread does not need the kernel
    /// lock to get there, so the caller may hold it.
    fn spawn_thread(&'static self, who: Runner, slot: Arc<Slot>) -> Result<(), ReturnCode> {
        let ready = Arc::new(AtomicU32::new(0));
        let ready2 = ready.clone();
        let incarnation = slot.incarnation.load(Ordering::Acquire);
        let stack = slot.stack;
        let name = match who {
            Runner::Process(pid) => format!("apex-{}", pid.0),
            _ => "apex-error-handler".to_string(),
        };
        let spawned = slot.clone();
        std::thread::Builder::new()
            .name(name)
            .stack_size(stack)
            .spawn(move || self.process_thread(who, slot, incarnation, ready2))
            .map_err(|_| ReturnCode::InvalidConfig)?;
        while ready.load(Ordering::Acquire) == 0 {
            partita_sys::futex::wait(&ready, 0, None, false);
        }
        // apex3: the new thread inherited the spawner's SCHED_FIFO priority (at least the
        // running priority), so it reached `ready` without being preempted by the designated
        // thread of its core; now it drops below the running priority. Before this, a thread
        // spawned by the timer thread lowered itself first and then waited behind a computing
        // process while the timer thread held the kernel lock: a deadline miss reached the
        // error handler only when that process next called a service.
        let tid = spawned.tid.load(Ordering::Acquire);
        if self.rt_run > 0 && partita_sys::sched::set_priority(tid, self.rt_run - 10).is_ok() {
            spawned.prio.store(self.rt_run - 10, Ordering::Release);
        }
        Ok(())
    }

    fn request_mode(&self, m: u32) {
        self.idle.store(true, Ordering::Release);
        if let Some(c) = self.control() {
            c.mode_request.store(m, Ordering::Release);
        } else {
            eprintln!("partita runtime: standalone partition requested mode {m}; exiting");
            std::process::exit(0);
        }
    }

    fn is_designated(&self, me: Runner, slot: &Slot) -> bool {
        let core = slot.core.load(Ordering::Acquire) as usize;
        self.designated
            .get(core)
            .is_some_and(|d| d.load(Ordering::Acquire) == encode(Some(me)))
    }

    /// Sleeps until the kernel designates the caller to run.
    ///
    /// A parked thread first lowers itself below the running priority: a SIGCONT or a cgroup
    /// v2 thaw wakes every sleeping thread of the partition, and they must not run before the
    /// designated one. It raises itself back once designated (the dispatcher does too; doing it
    /// here closes the race with a designation that came before the lowering).
    fn wait_designated(&self, me: Runner) {
        let Some(slot) = self.slot(me) else { return };
        let mut lowered = false;
        loop {
            let w = slot.word.load(Ordering::Acquire);
            // A new core (initialisation): the thread moves itself there (crate::affinity).
            crate::affinity::follow(&slot.core, &slot.pinned);
            let designated = self.is_designated(me, &slot) && !self.idle.load(Ordering::Acquire);
            // Checked after the designation: a restart designates the same runner, but only
            // after the incarnation changed.
            if self.is_abandoned(me, &slot) {
                self.park_forever();
            }
            if designated {
                if lowered {
                    self.set_own_prio(&slot, self.rt_run);
                }
                return;
            }
            if !lowered && self.rt_run > 0 && self.park_lowering {
                self.set_own_prio(&slot, self.rt_run - 10);
                lowered = true;
                continue;
            }
            partita_sys::futex::wait(&slot.word, w, None, false);
        }
    }

    /// The calling thread gives itself `prio`. Always makes the system call: it can race with
    /// the dispatcher's [`Runtime::set_prio`], and the thread's own last word must hold.
    fn set_own_prio(&self, slot: &Slot, prio: i32) {
        if self.rt_run > 0 {
            let prio = prio.max(1);
            slot.prio.store(prio, Ordering::Release);
            crate::raise::set_priority(self.control(), 0, prio);
        }
    }

    /// Runs a non-blocking service: `f` gets the kernel, the time and the caller.
    pub fn call<T>(
        &'static self,
        f: impl FnOnce(&mut Kernel, SystemTime, Runner) -> Result<T, ReturnCode>,
    ) -> Result<T, ReturnCode> {
        let (me, mut k) = self.enter()?;
        let now = self.now();
        let r = f(&mut k, now, me);
        self.dispatch(&mut k);
        drop(k);
        // Preempted by our own call (e.g. START of a higher-priority process): wait here.
        self.wait_designated(me);
        r
    }

    /// Runs a service that may block the caller, and waits for its outcome.
    pub fn call_blocking(
        &'static self,
        f: impl FnOnce(&mut Kernel, SystemTime, Runner) -> Result<CallOutcome, ReturnCode>,
    ) -> Result<(), ReturnCode> {
        let (me, mut k) = self.enter()?;
        let now = self.now();
        let r = f(&mut k, now, me);
        self.dispatch(&mut k);
        drop(k);
        self.wait_designated(me);
        match r? {
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
        let (me, mut k) = self.enter()?;
        let now = self.now();
        let r = f(&mut k, now, me, out);
        self.dispatch(&mut k);
        drop(k);
        self.wait_designated(me);
        match r? {
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
        let (me, mut k) = self.enter()?;
        let now = self.now();
        let r = k.stop_self(now, me);
        self.dispatch(&mut k);
        drop(k);
        r?;
        self.park_forever()
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
        let pid = k.create_process(now, me, attrs)?;
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
        self.spawn_thread(Runner::Process(pid), slot)?;
        if let Some(c) = self.control() {
            c.processes
                .store(k.process_count() as u32, Ordering::Relaxed);
        }
        Ok(pid)
    }

    /// The thread of an APEX process or of the error handler: waits at the top of its loop
    /// until designated, runs the entry point, and stops the process when it returns.
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

    /// A hardware fault of the calling thread (`me`), from the fault signal handler: raised
    /// to the health monitor. Returns only when the thread must die with the signal's default
    /// action (the main process or the timer thread: the partition cannot go on); otherwise
    /// the thread parks forever (it must not return into the faulting instruction).
    ///
    /// Not async-signal-safe: it takes the kernel lock (the caller checked that this thread
    /// does not hold it), allocates (the message, dispatch) and may spawn a thread (a
    /// restarted error handler). A fault inside `malloc` or with another runtime lock held
    /// can therefore deadlock the faulting thread.
    fn fault(&'static self, me: Runner, f: &Fault) {
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

    fn process_thread(
        &'static self,
        me: Runner,
        slot: Arc<Slot>,
        incarnation: u32,
        ready: Arc<AtomicU32>,
    ) {
        ME.with(|m| m.set(Some(me)));
        INCARNATION.with(|c| c.set(incarnation));
        thread_fault_setup(slot.stack);
        // A fresh thread moves itself to its slot's core before it can be designated.
        crate::affinity::follow(&slot.core, &slot.pinned);
        slot.tid
            .store(partita_sys::sched::gettid(), Ordering::Release);
        // The spawner lowers this thread once `ready` is set (see spawn_thread): lowering
        // itself here could leave it preempted before `ready` while the spawner waits with
        // the kernel locked.
        ready.store(1, Ordering::Release);
        partita_sys::futex::wake(&ready, 1, false);
        loop {
            self.wait_designated(me);
            {
                let (_, k) = match self.enter() {
                    Ok(g) => g,
                    Err(_) => self.park_forever(),
                };
                // Stopped (or preempted) since: wait again, still at the top.
                if !self.is_designated(me, &slot) {
                    continue;
                }
                // Leaving the top of the loop: from now on a STOP abandons this thread.
                slot.at_top.store(false, Ordering::Release);
                drop(k);
            }
            (slot.entry)();
            // Returning from the entry point stops the process (it becomes DORMANT); this
            // thread is back at the top of its loop, so it is not abandoned.
            let (_, mut k) = match self.enter() {
                Ok(g) => g,
                Err(_) => self.park_forever(),
            };
            slot.at_top.store(true, Ordering::Release);
            let now = self.now();
            let _ = k.stop_self(now, me);
            self.dispatch(&mut k);
        }
    }

    /// SET_PARTITION_MODE.
    pub fn set_partition_mode(&'static self, mode: OperatingMode) -> Result<(), ReturnCode> {
        if mode == OperatingMode::Normal && self.me() == Some(Runner::Main) {
            // apex3: the per-core idle holders, started while only the main process runs.
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

    /// The main thread after NORMAL: handles time events forever.
    fn become_timer(&'static self) -> ! {
        let main = self.main.clone();
        self.set_own_prio(&main, self.rt_run + 1);
        loop {
            let w = self.timer_word.load(Ordering::Acquire);
            let mut k = self.lock();
            let now = self.now();
            k.advance(now);
            // Arm for the kernel's next event before dispatching, so dispatch does not poke us.
            let next = k.next_event_time().unwrap_or(i64::MAX);
            self.timer_armed.store(next, Ordering::Release);
            self.dispatch(&mut k);
            drop(k);
            let deadline = (next != i64::MAX).then(|| (self.epoch as i64 + next).max(0) as u64);
            // Returns at the deadline, or at once if a service armed an earlier event since.
            partita_sys::futex::wait(&self.timer_word, w, deadline, false);
        }
    }

    /// Runs `f` with the kernel locked, then dispatches (ports stream: the port thread
    /// completes waiting senders and receivers when a peer partition moved data).
    pub(crate) fn with_kernel(&'static self, f: impl FnOnce(&mut Kernel, SystemTime)) {
        let mut k = self.lock();
        let now = self.now();
        f(&mut k, now);
        self.dispatch(&mut k);
    }

    /// Sends a record on the report channel (or prints it when standalone).
    pub fn send_record(&self, kind: u8, time: SystemTime, process: i32, msg: &[u8]) {
        let mut rec = Vec::with_capacity(17 + msg.len());
        rec.extend_from_slice(&((13 + msg.len()) as u32).to_le_bytes());
        rec.push(kind);
        rec.extend_from_slice(&time.to_le_bytes());
        rec.extend_from_slice(&process.to_le_bytes());
        rec.extend_from_slice(msg);
        let mut g = self.report.lock().unwrap_or_else(|e| e.into_inner());
        match g.as_mut() {
            Some(f) => {
                let _ = f.write_all(&rec);
            }
            None => {
                eprintln!(
                    "[{} t={:.6}s process {}] {}",
                    match kind {
                        record::APPLICATION_MESSAGE => "application message",
                        record::DEADLINE_MISSED => "deadline missed",
                        _ => "partition error",
                    },
                    time as f64 / 1e9,
                    process,
                    String::from_utf8_lossy(msg)
                );
            }
        }
    }
}

fn decode(v: u32) -> Option<Runner> {
    match v {
        0 => None,
        1 => Some(Runner::Main),
        ERROR_HANDLER_WORD => Some(Runner::ErrorHandler),
        n => Some(Runner::Process(ProcessId(n - 1))),
    }
}

fn runner_name(r: Runner) -> String {
    match r {
        Runner::Main => "the main process".into(),
        Runner::Process(p) => format!("process {}", p.0),
        Runner::ErrorHandler => "the error handler".into(),
    }
}

/// Gives the calling runtime thread an alternate signal stack (so that a stack overflow
/// reaches the fault handler) and records where its stack ends. `stack` is the thread's
/// stack size (0: unknown, no stack overflow detection).
fn thread_fault_setup(stack: usize) {
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
fn on_fault(f: &Fault) {
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
