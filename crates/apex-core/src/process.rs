// SPDX-License-Identifier: MIT OR Apache-2.0
//! Process management services (ARINC 653 Part 1, 3.3).

use crate::kernel::{Kernel, NO_TIMER};
use crate::queue::ObjRef;
use crate::types::*;
use alloc::vec;
use alloc::vec::Vec;
use partita_abi::report::Refusal;

/// What a process waits for (besides a SUSPEND, tracked separately).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wait {
    None,
    /// Started during initialisation, released when NORMAL is entered.
    PartitionNormal,
    /// Waiting for its (first or next) release point (timer armed).
    Release,
    /// TIMED_WAIT (timer armed).
    Delay,
    /// SUSPEND_SELF (optional timer).
    SelfSuspend,
    /// Queued on an object (optional timer).
    Object(ObjRef),
}

/// Process control block.
#[derive(Debug, Clone)]
pub(crate) struct Process {
    pub attrs: ProcessAttributes,
    pub state: ProcessState,
    pub wait: Wait,
    /// Suspended by another process (SUSPEND).
    pub suspended: bool,
    /// Absolute time of the armed timer, `NO_TIMER` if none.
    pub timer: SystemTime,
    pub current_priority: Priority,
    /// Priority to restore when the owned mutex is released.
    pub retained_priority: Priority,
    /// Order within a priority level (smaller = served first).
    pub seq: u64,
    /// Explicitly moved to the tail while running (yield / SET_PRIORITY).
    pub repositioned: bool,
    pub deadline: SystemTime,
    pub deadline_reported: bool,
    /// Current (or next) release point of a periodic process.
    pub release_point: SystemTime,
    /// Delay of a DELAYED_START issued during initialisation.
    pub start_delay: SystemTime,
    pub core: u32,
    pub wake: Option<Result<(), ReturnCode>>,
    /// Message scratch: received message, or message of a blocked sender.
    pub msg: Vec<u8>,
    pub msg_len: usize,
    /// Index of the owned mutex.
    pub mutex: Option<usize>,
}

fn deadline_from(t: SystemTime, capacity: SystemTime) -> SystemTime {
    if capacity == INFINITE_TIME_VALUE {
        INFINITE_TIME_VALUE
    } else {
        t.saturating_add(capacity)
    }
}

impl Process {
    /// A DORMANT process control block.
    pub fn new(attrs: ProcessAttributes, max_msg: usize) -> Self {
        Self {
            attrs,
            state: ProcessState::Dormant,
            wait: Wait::None,
            suspended: false,
            timer: NO_TIMER,
            current_priority: attrs.base_priority,
            retained_priority: attrs.base_priority,
            seq: 0,
            repositioned: false,
            deadline: INFINITE_TIME_VALUE,
            deadline_reported: false,
            release_point: 0,
            start_delay: 0,
            core: 0,
            wake: None,
            msg: vec![0; max_msg],
            msg_len: 0,
            mutex: None,
        }
    }

    pub fn is_periodic(&self) -> bool {
        self.attrs.period != INFINITE_TIME_VALUE
    }
}

impl Kernel {
    pub(crate) fn is_init_mode(&self) -> bool {
        matches!(
            self.mode,
            OperatingMode::ColdStart | OperatingMode::WarmStart
        )
    }

    /// CREATE_PROCESS. Allowed only during initialisation.
    ///
    /// Errors: `InvalidConfig` (too many processes, stack storage exhausted,
    /// period not a multiple of the partition period), `NoAction` (name
    /// exists), `InvalidParam` (stack size 0, priority, period, time capacity
    /// out of range, periodic with time capacity > period), `InvalidMode`
    /// (NORMAL mode).
    pub fn create_process(
        &mut self,
        now: SystemTime,
        caller: Runner,
        attrs: &ProcessAttributes,
    ) -> Result<ProcessId, ReturnCode> {
        self.service(now, |k| {
            k.caller(caller)?;
            let a = attrs;
            if k.procs.len() >= k.cfg.max_processes {
                return k.refuse(Refusal::ProcessLimit);
            }
            if k.stack_used.saturating_add(a.stack_size) > k.cfg.stack_total {
                return k.refuse(Refusal::ProcessStackStorage);
            }
            let n = k.nprocs();
            if k.procs[..n].iter().any(|p| name_eq(&p.attrs.name, &a.name)) {
                return k.refuse(Refusal::ProcessNameExists);
            }
            if a.stack_size == 0 {
                return k.refuse(Refusal::ProcessStackSizeZero);
            }
            if !(MIN_PRIORITY_VALUE..=MAX_PRIORITY_VALUE).contains(&a.base_priority) {
                return k.refuse(Refusal::ProcessPriorityRange);
            }
            if a.period != INFINITE_TIME_VALUE && a.period <= 0 {
                return k.refuse(Refusal::ProcessPeriodNotPositive);
            }
            if a.period > 0 && a.period % k.cfg.period != 0 {
                return k.refuse(Refusal::ProcessPeriodNotMultiple);
            }
            if a.time_capacity != INFINITE_TIME_VALUE && a.time_capacity <= 0 {
                return k.refuse(Refusal::ProcessTimeCapacityNotPositive);
            }
            if a.period > 0 && a.time_capacity > a.period {
                return k.refuse(Refusal::ProcessTimeCapacityAbovePeriod);
            }
            if !k.is_init_mode() {
                return k.refuse(Refusal::ProcessCreateInNormal);
            }
            k.stack_used += a.stack_size;
            // Before the error handler, which stays last. No index is held
            // anywhere during initialisation (nothing waits on objects, no
            // lock or mutex is owned), so shifting it is harmless.
            k.procs.insert(n, Process::new(*a, k.max_msg));
            Ok(Self::pid_of(n))
        })
    }

    /// Resets a DORMANT process before (re)starting it.
    fn reset_for_start(&mut self, i: usize) {
        let p = &mut self.procs[i];
        p.current_priority = p.attrs.base_priority;
        p.retained_priority = p.attrs.base_priority;
        p.suspended = false;
        p.wait = Wait::None;
        p.timer = NO_TIMER;
        p.wake = None;
        p.deadline = INFINITE_TIME_VALUE;
        p.deadline_reported = false;
        p.start_delay = 0;
        p.mutex = None;
        self.effects.push(Effect::ProcessStarted(Self::pid_of(i)));
    }

    /// Puts a started process into scheduling at `now` (NORMAL mode) with the
    /// given start delay, computing its first release point and deadline.
    pub(crate) fn activate(&mut self, i: usize, now: SystemTime, delay: SystemTime) {
        let periodic = self.procs[i].is_periodic();
        let cap = self.procs[i].attrs.time_capacity;
        let release = if periodic {
            self.next_period_start(now).saturating_add(delay)
        } else {
            now.saturating_add(delay)
        };
        let p = &mut self.procs[i];
        p.release_point = release;
        p.deadline = deadline_from(release, cap);
        p.deadline_reported = false;
        p.wait = Wait::None;
        if release <= now {
            self.make_ready(i);
        } else {
            self.block(i, Wait::Release, release);
        }
    }

    /// START.
    ///
    /// Errors: `InvalidParam` (unknown process), `InvalidConfig` (the
    /// deadline would overflow the clock), `NoAction` (not DORMANT).
    pub fn start(
        &mut self,
        now: SystemTime,
        caller: Runner,
        pid: ProcessId,
    ) -> Result<(), ReturnCode> {
        self.delayed_start_inner(now, caller, pid, 0)
    }

    /// DELAYED_START.
    ///
    /// Errors: `InvalidParam` (unknown process, delay negative, infinite or
    /// overflowing the clock, periodic process with delay >= period),
    /// `InvalidConfig` (the deadline would overflow the clock), `NoAction`
    /// (not DORMANT).
    pub fn delayed_start(
        &mut self,
        now: SystemTime,
        caller: Runner,
        pid: ProcessId,
        delay: SystemTime,
    ) -> Result<(), ReturnCode> {
        self.delayed_start_inner(now, caller, pid, delay)
    }

    fn delayed_start_inner(
        &mut self,
        now: SystemTime,
        caller: Runner,
        pid: ProcessId,
        delay: SystemTime,
    ) -> Result<(), ReturnCode> {
        self.service(now, |k| {
            k.caller(caller)?;
            let i = k.pidx(pid)?;
            if k.procs[i].state != ProcessState::Dormant {
                return Err(ReturnCode::NoAction);
            }
            if delay < 0 {
                return Err(ReturnCode::InvalidParam);
            }
            if k.procs[i].is_periodic() && delay >= k.procs[i].attrs.period {
                return Err(ReturnCode::InvalidParam);
            }
            // DELAY_TIME out of range: the release time would overflow the clock.
            let release = Self::expiry(now, delay)?;
            // The deadline (release + time capacity) out of range: INVALID_CONFIG.
            let cap = k.procs[i].attrs.time_capacity;
            if cap != INFINITE_TIME_VALUE && release.checked_add(cap).is_none_or(|d| d == NO_TIMER)
            {
                return Err(ReturnCode::InvalidConfig);
            }
            k.reset_for_start(i);
            if k.mode == OperatingMode::Normal {
                k.activate(i, now, delay);
            } else {
                k.procs[i].start_delay = delay;
                let seq = k.next_tail();
                k.procs[i].seq = seq;
                k.block(i, Wait::PartitionNormal, NO_TIMER);
            }
            Ok(())
        })
    }

    /// Makes process `i` DORMANT: leaves any queue, cancels timers, releases
    /// its mutex and the preemption lock it holds.
    pub(crate) fn stop_process(&mut self, i: usize) {
        if let Wait::Object(obj) = self.procs[i].wait {
            self.unqueue(i, obj);
        }
        let p = &mut self.procs[i];
        p.wait = Wait::None;
        p.timer = NO_TIMER;
        p.suspended = false;
        p.wake = None;
        p.deadline = INFINITE_TIME_VALUE;
        p.deadline_reported = false;
        p.state = ProcessState::Dormant;
        if self.lock_owner == Some(i) {
            self.lock_level = 0;
            self.lock_owner = None;
        }
        if let Some(m) = self.procs[i].mutex {
            self.mutex_force_release(m);
        }
        self.effects.push(if self.is_handler(i) {
            Effect::ErrorHandlerStopped
        } else {
            Effect::ProcessStopped(Self::pid_of(i))
        });
    }

    /// STOP (another process).
    ///
    /// Errors: `InvalidParam` (unknown process or the caller itself),
    /// `NoAction` (already DORMANT).
    pub fn stop(
        &mut self,
        now: SystemTime,
        caller: Runner,
        pid: ProcessId,
    ) -> Result<(), ReturnCode> {
        self.service(now, |k| {
            let me = k.caller(caller)?;
            let i = k.pidx(pid)?;
            if me == Some(i) {
                return Err(ReturnCode::InvalidParam);
            }
            if k.procs[i].state == ProcessState::Dormant {
                return Err(ReturnCode::NoAction);
            }
            k.stop_process(i);
            Ok(())
        })
    }

    /// STOP_SELF. Errors: `InvalidMode` when called by the main process.
    ///
    /// Called by the error handler, it ends the handling: the handler returns
    /// to DORMANT and the preempted processes (a preemption lock owner
    /// first) resume. If errors are still queued (raised after its last
    /// GET_ERROR_STATUS) it is activated again at once, so none is lost.
    pub fn stop_self(&mut self, now: SystemTime, caller: Runner) -> Result<(), ReturnCode> {
        self.service(now, |k| {
            let i = k.caller(caller)?.ok_or(ReturnCode::InvalidMode)?;
            k.stop_process(i);
            if k.is_handler(i) && !k.errors.is_empty() {
                k.activate_error_handler();
            }
            Ok(())
        })
    }

    /// Whether the caller may block: not holding the preemption lock nor a
    /// mutex, and not the error handler.
    pub(crate) fn may_block(&self, i: usize) -> bool {
        !(self.lock_level > 0 && self.lock_owner == Some(i))
            && self.procs[i].mutex.is_none()
            && !self.is_handler(i)
    }

    /// SUSPEND_SELF with a time-out (`INFINITE_TIME_VALUE`: until RESUME).
    /// A zero time-out returns at once. After blocking, the wake result is
    /// `Ok` when resumed and `Err(TimedOut)` on expiry.
    ///
    /// Errors: `InvalidMode` (main process or error handler, preemption
    /// locked by the caller, caller owns a mutex, periodic caller), `InvalidParam` (time-out out of range).
    pub fn suspend_self(
        &mut self,
        now: SystemTime,
        caller: Runner,
        timeout: SystemTime,
    ) -> Result<CallOutcome, ReturnCode> {
        self.service(now, |k| {
            let i = k.caller(caller)?.ok_or(ReturnCode::InvalidMode)?;
            if !k.may_block(i) || k.procs[i].is_periodic() {
                return Err(ReturnCode::InvalidMode);
            }
            let t = Self::expiry(now, timeout)?;
            if timeout == 0 {
                return Ok(CallOutcome::Done(()));
            }
            k.block(i, Wait::SelfSuspend, t);
            Ok(CallOutcome::Blocked)
        })
    }

    /// SUSPEND (another aperiodic process). A process waiting on something
    /// becomes "suspended while waiting".
    ///
    /// Errors: `InvalidParam` (unknown or caller itself), `InvalidMode`
    /// (DORMANT or periodic process, mutex owner, process waiting on a mutex),
    /// `NoAction` (already suspended).
    pub fn suspend(
        &mut self,
        now: SystemTime,
        caller: Runner,
        pid: ProcessId,
    ) -> Result<(), ReturnCode> {
        self.service(now, |k| {
            let me = k.caller(caller)?;
            let i = k.pidx(pid)?;
            if me == Some(i) {
                return Err(ReturnCode::InvalidParam);
            }
            let p = &mut k.procs[i];
            // A mutex owner, or a process queued on a mutex, cannot be suspended (ARINC 653
            // Part 1 SUSPEND: it would hold up the mutex, or be handed it while suspended).
            let mutex_bound = p.mutex.is_some() || matches!(p.wait, Wait::Object(ObjRef::Mutex(_)));
            if p.state == ProcessState::Dormant || p.is_periodic() || mutex_bound {
                return Err(ReturnCode::InvalidMode);
            }
            if p.suspended || p.wait == Wait::SelfSuspend {
                return Err(ReturnCode::NoAction);
            }
            p.suspended = true;
            p.state = ProcessState::Waiting;
            Ok(())
        })
    }

    /// RESUME a suspended process (also cancels a SUSPEND_SELF time-out).
    ///
    /// Errors: `InvalidParam` (unknown or caller itself), `InvalidMode`
    /// (DORMANT), `NoAction` (not suspended).
    pub fn resume(
        &mut self,
        now: SystemTime,
        caller: Runner,
        pid: ProcessId,
    ) -> Result<(), ReturnCode> {
        self.service(now, |k| {
            let me = k.caller(caller)?;
            let i = k.pidx(pid)?;
            if me == Some(i) {
                return Err(ReturnCode::InvalidParam);
            }
            let p = &mut k.procs[i];
            if p.state == ProcessState::Dormant {
                return Err(ReturnCode::InvalidMode);
            }
            if p.wait == Wait::SelfSuspend {
                k.wake(i, Ok(()));
            } else if p.suspended {
                p.suspended = false;
                if p.wait == Wait::None {
                    k.make_ready(i);
                }
            } else {
                return Err(ReturnCode::NoAction);
            }
            Ok(())
        })
    }

    /// SET_PRIORITY. A READY/RUNNING process becomes the newest of its new
    /// priority. If the process owns a mutex, only its retained priority changes.
    ///
    /// Errors: `InvalidParam` (unknown process, priority out of range),
    /// `InvalidMode` (DORMANT).
    pub fn set_priority(
        &mut self,
        now: SystemTime,
        caller: Runner,
        pid: ProcessId,
        priority: Priority,
    ) -> Result<(), ReturnCode> {
        self.service(now, |k| {
            k.caller(caller)?;
            let i = k.pidx(pid)?;
            if !(MIN_PRIORITY_VALUE..=MAX_PRIORITY_VALUE).contains(&priority) {
                return Err(ReturnCode::InvalidParam);
            }
            let p = &mut k.procs[i];
            if p.state == ProcessState::Dormant {
                return Err(ReturnCode::InvalidMode);
            }
            if p.mutex.is_some() {
                p.retained_priority = priority;
                return Ok(());
            }
            p.current_priority = priority;
            if matches!(p.state, ProcessState::Ready | ProcessState::Running) {
                k.reposition_tail(i);
            }
            Ok(())
        })
    }

    /// LOCK_PREEMPTION: returns the new lock level.
    ///
    /// Errors: `NoAction` (not NORMAL, main process or error handler), `InvalidConfig`
    /// (lock level already `MAX_LOCK_LEVEL`), `InvalidMode` (lock held by a
    /// process of another core).
    pub fn lock_preemption(
        &mut self,
        now: SystemTime,
        caller: Runner,
    ) -> Result<LockLevel, ReturnCode> {
        self.service(now, |k| {
            let me = k.caller(caller)?;
            let (Some(i), OperatingMode::Normal) = (me, k.mode) else {
                return Err(ReturnCode::NoAction);
            };
            if k.is_handler(i) {
                return Err(ReturnCode::NoAction);
            }
            if k.lock_level >= MAX_LOCK_LEVEL {
                return Err(ReturnCode::InvalidConfig);
            }
            if k.lock_level > 0 && k.lock_owner != Some(i) {
                return Err(ReturnCode::InvalidMode);
            }
            k.lock_level += 1;
            k.lock_owner = Some(i);
            Ok(k.lock_level)
        })
    }

    /// UNLOCK_PREEMPTION: returns the new lock level; at zero, pending
    /// preemptions take place.
    ///
    /// Errors: `NoAction` (not NORMAL, main process, error handler,
    /// preemption not locked by the caller).
    pub fn unlock_preemption(
        &mut self,
        now: SystemTime,
        caller: Runner,
    ) -> Result<LockLevel, ReturnCode> {
        self.service(now, |k| {
            let me = k.caller(caller)?;
            let (Some(i), OperatingMode::Normal) = (me, k.mode) else {
                return Err(ReturnCode::NoAction);
            };
            if k.lock_level == 0 || k.lock_owner != Some(i) {
                return Err(ReturnCode::NoAction);
            }
            k.lock_level -= 1;
            if k.lock_level == 0 {
                k.lock_owner = None;
            }
            Ok(k.lock_level)
        })
    }

    /// GET_MY_ID. Errors: `InvalidMode` from the main process or the error handler.
    pub fn get_my_id(&self, caller: Runner) -> Result<ProcessId, ReturnCode> {
        match caller {
            Runner::Main | Runner::ErrorHandler => Err(ReturnCode::InvalidMode),
            Runner::Process(pid) => self.pidx(pid).map(|_| pid),
        }
    }

    /// GET_MY_INDEX: 1-based creation index of the caller.
    /// Errors: `InvalidMode` from the main process or the error handler.
    pub fn get_my_index(&self, caller: Runner) -> Result<u32, ReturnCode> {
        self.get_my_id(caller).map(|p| p.0)
    }

    /// GET_PROCESS_ID. Errors: `InvalidConfig` (no process of that name).
    pub fn get_process_id(&self, name: &Name) -> Result<ProcessId, ReturnCode> {
        self.procs[..self.nprocs()]
            .iter()
            .position(|p| name_eq(&p.attrs.name, name))
            .map(Self::pid_of)
            .ok_or(ReturnCode::InvalidConfig)
    }

    /// GET_PROCESS_STATUS. Errors: `InvalidParam` (unknown process).
    pub fn get_process_status(&self, pid: ProcessId) -> Result<ProcessStatus, ReturnCode> {
        let p = &self.procs[self.pidx(pid)?];
        Ok(ProcessStatus {
            deadline_time: p.deadline,
            current_priority: p.current_priority,
            process_state: p.state,
            attributes: p.attrs,
        })
    }

    /// INITIALIZE_PROCESS_CORE_AFFINITY (core ids are `0..cores`).
    ///
    /// Errors: `InvalidParam` (unknown process), `InvalidConfig` (core not
    /// assigned to the partition: like CONFIGURE_ERROR_HANDLER, the cores
    /// are configuration), `InvalidMode` (NORMAL mode).
    pub fn initialize_process_core_affinity(
        &mut self,
        now: SystemTime,
        caller: Runner,
        pid: ProcessId,
        core: u32,
    ) -> Result<(), ReturnCode> {
        self.service(now, |k| {
            k.caller(caller)?;
            let i = k.pidx(pid)?;
            if core >= k.cfg.cores {
                return Err(ReturnCode::InvalidConfig);
            }
            if !k.is_init_mode() {
                return Err(ReturnCode::InvalidMode);
            }
            k.procs[i].core = core;
            Ok(())
        })
    }

    /// GET_MY_PROCESSOR_CORE_ID (the main process runs on core 0).
    pub fn get_my_processor_core_id(&self, caller: Runner) -> u32 {
        match caller {
            Runner::Main => 0,
            Runner::Process(pid) => self.process_core(pid).unwrap_or(0),
            Runner::ErrorHandler => self.handler_idx().map_or(0, |h| self.procs[h].core),
        }
    }
}
