// SPDX-License-Identifier: MIT OR Apache-2.0
//! The per-partition kernel state machine: construction, glue-facing queries,
//! time advance, and the process scheduler.

use crate::blackboard::Blackboard;
use crate::buffer::Buffer;
use crate::event::Event;
use crate::mutex::Mutex;
use crate::ports::PortWaiters;
use crate::process::{Process, Wait};
use crate::queue::ObjRef;
use crate::semaphore::Semaphore;
use crate::types::*;
use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;
use partita_abi::report::Refusal;

/// Internal "no timer armed" value.
pub(crate) const NO_TIMER: SystemTime = SystemTime::MAX;

/// The OS-independent APEX kernel of one partition.
///
/// Every mutating service takes the current time `now` and the identity of the
/// calling [`Runner`]. Before doing its work, a service first processes every
/// time-out, release and deadline due at or before `now` (exactly as
/// [`Kernel::advance`] would), and afterwards recomputes which runner must
/// execute on each core ([`Kernel::running`]) and the next time the glue must
/// call [`Kernel::advance`] ([`Kernel::next_event_time`]).
///
/// Mutating services are O(number of processes) at worst and allocate no memory
/// once the partition is in NORMAL mode (objects pre-allocate at creation);
/// status queries are O(1).
#[derive(Debug)]
pub struct Kernel {
    pub(crate) cfg: PartitionConfig,
    pub(crate) mode: OperatingMode,
    pub(crate) procs: Vec<Process>,
    pub(crate) stack_used: u64,
    pub(crate) lock_level: LockLevel,
    pub(crate) lock_owner: Option<usize>,
    pub(crate) running: Vec<Option<Runner>>,
    pub(crate) main_active: bool,
    tail_seq: u64,
    head_seq: u64,
    pub(crate) effects: Vec<Effect>,
    next_event: Option<SystemTime>,
    pub(crate) msg_used: usize,
    pub(crate) max_msg: usize,
    pub(crate) semaphores: Vec<Semaphore>,
    pub(crate) events: Vec<Event>,
    pub(crate) buffers: Vec<Buffer>,
    pub(crate) blackboards: Vec<Blackboard>,
    pub(crate) mutexes: Vec<Mutex>,
    /// Waiting queues of inter-partition ports.
    pub(crate) ports: Vec<PortWaiters>,
    /// Whether CREATE_ERROR_HANDLER succeeded: the handler is then the last
    /// entry of `procs` (regular processes are inserted before it).
    pub(crate) has_handler: bool,
    pub(crate) handler_concurrency: ErrorHandlerConcurrency,
    /// Errors queued for the error handler, oldest first.
    pub(crate) errors: VecDeque<ErrorStatus>,
    /// Where state changes are recorded (`partita run --trace`), if anywhere.
    pub(crate) trace: Option<crate::trace::Tracer>,
    /// The rule the last service refused a call by, when it names one (see
    /// [`Kernel::take_refusal`]).
    pub(crate) refusal: Option<Refusal>,
}

impl Kernel {
    /// Creates the kernel of a partition in its initial mode (COLD_START or
    /// WARM_START) with the main process running on core 0.
    ///
    /// Errors: `InvalidConfig` when `cores == 0`, `period <= 0`, or the initial
    /// mode is not a start mode.
    pub fn new(cfg: PartitionConfig) -> Result<Self, ReturnCode> {
        if cfg.cores == 0
            || cfg.period <= 0
            || !matches!(
                cfg.initial_mode,
                OperatingMode::ColdStart | OperatingMode::WarmStart
            )
        {
            return Err(ReturnCode::InvalidConfig);
        }
        let mut running = vec![None; cfg.cores as usize];
        running[0] = Some(Runner::Main);
        Ok(Self {
            mode: cfg.initial_mode,
            procs: Vec::with_capacity(cfg.max_processes),
            stack_used: 0,
            lock_level: 0,
            lock_owner: None,
            running,
            main_active: true,
            tail_seq: 1 << 62,
            head_seq: 1 << 62,
            effects: Vec::with_capacity(cfg.max_processes + 4),
            next_event: None,
            msg_used: 0,
            max_msg: 0,
            semaphores: Vec::with_capacity(cfg.max_semaphores),
            events: Vec::with_capacity(cfg.max_events),
            buffers: Vec::with_capacity(cfg.max_buffers),
            blackboards: Vec::with_capacity(cfg.max_blackboards),
            mutexes: Vec::with_capacity(cfg.max_mutexes),
            ports: Vec::new(),
            has_handler: false,
            handler_concurrency: ErrorHandlerConcurrency::default(),
            errors: VecDeque::new(),
            trace: None,
            refusal: None,
            cfg,
        })
    }

    /// The configuration this kernel was built with.
    pub fn config(&self) -> &PartitionConfig {
        &self.cfg
    }

    /// Current operating mode.
    pub fn operating_mode(&self) -> OperatingMode {
        self.mode
    }

    /// Who must execute on `core` now (`None`: the core idles). Cores outside
    /// `0..cores` always idle.
    pub fn running(&self, core: u32) -> Option<Runner> {
        self.running.get(core as usize).copied().flatten()
    }

    /// Earliest absolute time at which [`Kernel::advance`] must be called
    /// (a time-out, a release point, or just after an unreported deadline).
    pub fn next_event_time(&self) -> Option<SystemTime> {
        self.next_event
    }

    /// Drains the pending effects, oldest first.
    pub fn drain_effects(&mut self) -> alloc::vec::Drain<'_, Effect> {
        self.effects.drain(..)
    }

    /// Processes every time-out, release point and deadline due at or before `now`.
    pub fn advance(&mut self, now: SystemTime) {
        self.tick(now);
        self.finish();
    }

    /// Result of the blocking call a woken process made: `None` while it is
    /// still blocked (or if nothing is pending). Consumes the result.
    pub fn take_wake_result(&mut self, pid: ProcessId) -> Option<Result<(), ReturnCode>> {
        let i = self.pidx(pid).ok()?;
        if self.procs[i].wait != Wait::None {
            return None;
        }
        self.procs[i].wake.take()
    }

    /// Like [`Kernel::take_wake_result`] for RECEIVE_BUFFER / READ_BLACKBOARD:
    /// on success copies the received message into `out` (which must hold the
    /// object's maximum message size) and returns its length.
    pub fn take_wake_message(
        &mut self,
        pid: ProcessId,
        out: &mut [u8],
    ) -> Option<Result<usize, ReturnCode>> {
        let i = self.pidx(pid).ok()?;
        let r = self.take_wake_result(pid)?;
        Some(r.and_then(|()| {
            let p = &self.procs[i];
            let n = p.msg_len;
            if out.len() < n {
                return Err(ReturnCode::InvalidParam);
            }
            out[..n].copy_from_slice(&p.msg[..n]);
            Ok(n)
        }))
    }

    /// Core a process is bound to (`None` for an unknown id).
    pub fn process_core(&self, pid: ProcessId) -> Option<u32> {
        self.pidx(pid).ok().map(|i| self.procs[i].core)
    }

    /// Number of processes created so far (the error handler excluded).
    pub fn process_count(&self) -> usize {
        self.nprocs()
    }

    /// Finer-grained waiting reason of a process (`None` for an unknown id).
    pub fn wait_reason(&self, pid: ProcessId) -> Option<WaitReason> {
        let p = &self.procs[self.pidx(pid).ok()?];
        Some(match p.wait {
            Wait::None if p.suspended => WaitReason::Suspended,
            Wait::None => WaitReason::None,
            Wait::PartitionNormal => WaitReason::PartitionNormal,
            Wait::Release => WaitReason::Release,
            Wait::Delay => WaitReason::Delay,
            Wait::SelfSuspend => WaitReason::SelfSuspended,
            Wait::Object(_) => WaitReason::Object,
        })
    }

    // ----- internal helpers -------------------------------------------------

    /// Number of regular processes (`procs[..nprocs]`; the error handler,
    /// if any, follows them).
    pub(crate) fn nprocs(&self) -> usize {
        self.procs.len() - usize::from(self.has_handler)
    }

    /// Index of the error handler in `procs`.
    pub(crate) fn handler_idx(&self) -> Option<usize> {
        self.has_handler.then(|| self.procs.len() - 1)
    }

    pub(crate) fn is_handler(&self, i: usize) -> bool {
        self.handler_idx() == Some(i)
    }

    /// The runner executing process control block `i`.
    pub(crate) fn runner_of(&self, i: usize) -> Runner {
        if self.is_handler(i) {
            Runner::ErrorHandler
        } else {
            Runner::Process(Self::pid_of(i))
        }
    }

    /// The process control block of a runner (`None` for the main process).
    fn runner_idx(&self, r: Runner) -> Option<usize> {
        match r {
            Runner::Main => None,
            Runner::Process(pid) => Some(pid.0 as usize - 1),
            Runner::ErrorHandler => self.handler_idx(),
        }
    }

    pub(crate) fn pidx(&self, pid: ProcessId) -> Result<usize, ReturnCode> {
        let i = (pid.0 as usize).wrapping_sub(1);
        if i < self.nprocs() {
            Ok(i)
        } else {
            Err(ReturnCode::InvalidParam)
        }
    }

    pub(crate) fn pid_of(i: usize) -> ProcessId {
        ProcessId(i as u32 + 1)
    }

    /// Validates a calling runner: `Ok(None)` for the main process, `Ok(Some(i))`
    /// for a process (or the error handler) able to execute (READY or RUNNING).
    pub(crate) fn caller(&self, who: Runner) -> Result<Option<usize>, ReturnCode> {
        match who {
            Runner::Main => {
                if self.main_active {
                    Ok(None)
                } else {
                    Err(ReturnCode::InvalidMode)
                }
            }
            Runner::Process(pid) => {
                let i = self.pidx(pid)?;
                match self.procs[i].state {
                    ProcessState::Ready | ProcessState::Running => Ok(Some(i)),
                    _ => Err(ReturnCode::InvalidMode),
                }
            }
            Runner::ErrorHandler => match self.handler_idx() {
                Some(h)
                    if matches!(
                        self.procs[h].state,
                        ProcessState::Ready | ProcessState::Running
                    ) =>
                {
                    Ok(Some(h))
                }
                _ => Err(ReturnCode::InvalidMode),
            },
        }
    }

    /// Absolute expiry of a time-out: `NO_TIMER` for infinite, INVALID_PARAM
    /// for negative (other than infinite) or overflowing values.
    pub(crate) fn expiry(now: SystemTime, timeout: SystemTime) -> Result<SystemTime, ReturnCode> {
        if timeout == INFINITE_TIME_VALUE {
            return Ok(NO_TIMER);
        }
        if timeout < 0 {
            return Err(ReturnCode::InvalidParam);
        }
        match now.checked_add(timeout) {
            Some(t) if t != NO_TIMER => Ok(t),
            _ => Err(ReturnCode::InvalidParam),
        }
    }

    /// First partition period start at or after `t`.
    pub(crate) fn next_period_start(&self, t: SystemTime) -> SystemTime {
        let (o, p) = (self.cfg.period_origin, self.cfg.period);
        if t <= o {
            return o;
        }
        let k = (t - o + p - 1) / p;
        o + k * p
    }

    pub(crate) fn next_tail(&mut self) -> u64 {
        self.tail_seq += 1;
        self.tail_seq
    }

    pub(crate) fn next_head(&mut self) -> u64 {
        self.head_seq -= 1;
        self.head_seq
    }

    /// Makes a non-waiting, non-suspended process READY as the newest of its priority.
    pub(crate) fn make_ready(&mut self, i: usize) {
        let seq = self.next_tail();
        let p = &mut self.procs[i];
        debug_assert!(p.wait == Wait::None);
        if !p.suspended {
            p.state = ProcessState::Ready;
            p.seq = seq;
        } else {
            p.state = ProcessState::Waiting;
        }
    }

    /// Puts a READY/RUNNING process to the tail of its priority level.
    pub(crate) fn reposition_tail(&mut self, i: usize) {
        let seq = self.next_tail();
        let p = &mut self.procs[i];
        p.seq = seq;
        p.repositioned = true;
    }

    /// Blocks process `i` with the given reason and absolute timer.
    pub(crate) fn block(&mut self, i: usize, wait: Wait, timer: SystemTime) {
        let p = &mut self.procs[i];
        p.wait = wait;
        p.timer = timer;
        p.wake = None;
        p.state = ProcessState::Waiting;
    }

    /// Ends the wait of process `i` with `result` (READY unless suspended).
    pub(crate) fn wake(&mut self, i: usize, result: Result<(), ReturnCode>) {
        let p = &mut self.procs[i];
        p.wait = Wait::None;
        p.timer = NO_TIMER;
        p.wake = Some(result);
        self.make_ready(i);
    }

    /// Removes process `i` from the queue of the object it waits on.
    pub(crate) fn unqueue(&mut self, i: usize, obj: ObjRef) {
        match obj {
            ObjRef::Semaphore(s) => self.semaphores[s].queue.remove(i),
            ObjRef::Event(e) => self.events[e].queue.remove(i),
            ObjRef::BufferSend(b) | ObjRef::BufferRecv(b) => self.buffers[b].queue.remove(i),
            ObjRef::Blackboard(b) => self.blackboards[b].queue.remove(i),
            ObjRef::Mutex(m) => self.mutexes[m].queue.remove(i),
            ObjRef::Port(q) => self.ports[q].queue.remove(i),
        };
    }

    /// Processes timers and deadlines due at or before `now`.
    pub(crate) fn tick(&mut self, now: SystemTime) {
        loop {
            let mut best: Option<(SystemTime, usize)> = None;
            for (i, p) in self.procs.iter().enumerate() {
                if p.timer <= now && best.is_none_or(|(t, _)| p.timer < t) {
                    best = Some((p.timer, i));
                }
            }
            let Some((_, i)) = best else { break };
            self.fire_timer(i);
        }
        for i in 0..self.procs.len() {
            let p = &mut self.procs[i];
            if p.state != ProcessState::Dormant
                && p.deadline != INFINITE_TIME_VALUE
                && !p.deadline_reported
                && now > p.deadline
            {
                p.deadline_reported = true;
                let deadline = p.deadline;
                self.trace_deadline_miss(i, deadline);
                self.effects.push(Effect::DeadlineMissed {
                    process: Self::pid_of(i),
                    deadline,
                });
                if self.has_handler {
                    // Process-level HM: queue DEADLINE_MISSED to the error handler.
                    let e =
                        ErrorStatus::new(ErrorCode::DeadlineMissed, Some(Self::pid_of(i)), 0, &[])
                            .expect("empty message");
                    self.dispatch_error(Runner::Process(Self::pid_of(i)), e);
                }
            }
        }
    }

    fn fire_timer(&mut self, i: usize) {
        let p = &mut self.procs[i];
        p.timer = NO_TIMER;
        match p.wait {
            Wait::Release | Wait::Delay => self.wake(i, Ok(())),
            Wait::SelfSuspend => self.wake(i, Err(ReturnCode::TimedOut)),
            Wait::Object(obj) => {
                self.unqueue(i, obj);
                self.wake(i, Err(ReturnCode::TimedOut));
            }
            Wait::None | Wait::PartitionNormal => {}
        }
    }

    /// Reschedules and recomputes the next event time. Called at the end of
    /// every mutating service.
    pub(crate) fn finish(&mut self) {
        self.reschedule();
        if self.trace.is_some() {
            self.trace_states();
        }
        let mut next = NO_TIMER;
        for p in &self.procs {
            next = next.min(p.timer);
            if p.state != ProcessState::Dormant
                && p.deadline != INFINITE_TIME_VALUE
                && !p.deadline_reported
            {
                next = next.min(p.deadline.saturating_add(1));
            }
        }
        self.next_event = (next != NO_TIMER).then_some(next);
    }

    /// Whether process `a` must be preferred to process `b` (same core).
    fn better(&self, a: usize, b: usize) -> bool {
        let (pa, pb) = (&self.procs[a], &self.procs[b]);
        if self.cfg.policy == SchedulingPolicy::Edf {
            let da = if pa.deadline < 0 {
                SystemTime::MAX
            } else {
                pa.deadline
            };
            let db = if pb.deadline < 0 {
                SystemTime::MAX
            } else {
                pb.deadline
            };
            if da != db {
                return da < db;
            }
        }
        if pa.current_priority != pb.current_priority {
            return pa.current_priority > pb.current_priority;
        }
        pa.seq < pb.seq
    }

    fn pick(&self, core: u32) -> Option<usize> {
        let eligible = |p: &Process| {
            matches!(p.state, ProcessState::Ready | ProcessState::Running) && p.core == core
        };
        // The error handler is above every process and preempts even the
        // preemption lock.
        if let Some(h) = self.handler_idx() {
            if eligible(&self.procs[h]) {
                return Some(h);
            }
        }
        if self.lock_level > 0 {
            if let Some(o) = self.lock_owner {
                if eligible(&self.procs[o]) {
                    return Some(o);
                }
            }
        }
        let mut best: Option<usize> = None;
        for (i, p) in self.procs.iter().enumerate() {
            if eligible(p) && best.is_none_or(|b| self.better(i, b)) {
                best = Some(i);
            }
        }
        best
    }

    fn reschedule(&mut self) {
        let init = matches!(
            self.mode,
            OperatingMode::ColdStart | OperatingMode::WarmStart
        );
        // PROCESS_PAUSE: while the error handler is eligible (it then runs,
        // being above everything on its core), the other cores idle.
        let paused = match self.handler_idx() {
            Some(h)
                if self.handler_concurrency == ErrorHandlerConcurrency::ProcessPause
                    && matches!(
                        self.procs[h].state,
                        ProcessState::Ready | ProcessState::Running
                    ) =>
            {
                Some(self.procs[h].core)
            }
            _ => None,
        };
        for c in 0..self.cfg.cores {
            let new = if self.mode == OperatingMode::Normal {
                if paused.is_some_and(|hc| hc != c) {
                    None
                } else {
                    self.pick(c).map(|i| self.runner_of(i))
                }
            } else if init && c == 0 && self.main_active {
                Some(Runner::Main)
            } else {
                None
            };
            let old = self.running[c as usize];
            if old == new {
                // Still designated, but possibly stopped and made READY again
                // within the service (error handler STOP_SELF with pending errors).
                if let Some(i) = new.and_then(|r| self.runner_idx(r)) {
                    self.procs[i].state = ProcessState::Running;
                }
                continue;
            }
            if let Some(i) = old.and_then(|r| self.runner_idx(r)) {
                if self.procs[i].state == ProcessState::Running {
                    self.procs[i].state = ProcessState::Ready;
                    if !self.procs[i].repositioned {
                        // Preempted: stays at the head of its priority level.
                        self.procs[i].seq = self.next_head();
                    }
                }
            }
            if let Some(i) = new.and_then(|r| self.runner_idx(r)) {
                self.procs[i].state = ProcessState::Running;
            }
            self.running[c as usize] = new;
        }
        for p in &mut self.procs {
            p.repositioned = false;
        }
    }

    /// Refuses the current call by `rule`: records the rule for [`Kernel::take_refusal`] and
    /// returns the rule's return code.
    pub(crate) fn refuse<T>(&mut self, rule: Refusal) -> Result<T, ReturnCode> {
        self.refusal = Some(rule);
        Err(rule.code())
    }

    /// The rule by which the last service refused its call, if it named one (taken: a
    /// second call returns `None`). The runtime reports it to the manager, since the return
    /// code alone does not say which condition failed.
    pub fn take_refusal(&mut self) -> Option<Refusal> {
        self.refusal.take()
    }

    /// Runs `f` as a service body: timers first, then `f`, then rescheduling.
    pub(crate) fn service<T>(&mut self, now: SystemTime, f: impl FnOnce(&mut Self) -> T) -> T {
        self.refusal = None;
        self.tick(now);
        let r = f(self);
        self.finish();
        r
    }
}
