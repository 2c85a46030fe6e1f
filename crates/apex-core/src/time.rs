// SPDX-License-Identifier: MIT OR Apache-2.0
//! Time management services (ARINC 653 Part 1, 3.4).

use crate::kernel::Kernel;
use crate::process::Wait;
use crate::types::*;
use partita_abi::report::Refusal;

impl Kernel {
    /// GET_TIME: the core has no clock, the current time is the caller's `now`.
    pub fn get_time(now: SystemTime) -> SystemTime {
        now
    }

    /// TIMED_WAIT. A zero delay moves the caller to the tail of its priority
    /// level (yield to equal priority) and returns `Done`.
    ///
    /// Errors: `InvalidMode` (main process or error handler, caller holds
    /// the preemption lock or a mutex), `InvalidParam` (delay negative,
    /// infinite or overflowing).
    pub fn timed_wait(
        &mut self,
        now: SystemTime,
        caller: Runner,
        delay: SystemTime,
    ) -> Result<CallOutcome, ReturnCode> {
        self.service(now, |k| {
            let i = k.caller(caller)?.ok_or(ReturnCode::InvalidMode)?;
            if !k.may_block(i) {
                return Err(ReturnCode::InvalidMode);
            }
            if delay < 0 {
                return Err(ReturnCode::InvalidParam);
            }
            let t = Self::expiry(now, delay)?;
            if delay == 0 {
                k.reposition_tail(i);
                return Ok(CallOutcome::Done(()));
            }
            k.block(i, Wait::Delay, t);
            Ok(CallOutcome::Blocked)
        })
    }

    /// PERIODIC_WAIT: the next release point is the previous one plus the
    /// process period (never counted from the call time); the deadline
    /// becomes that release point plus the time capacity. If the release
    /// point has already passed the caller is re-released at once (newest
    /// of its priority) and `Done` is returned.
    ///
    /// Errors: `InvalidMode` (main process, aperiodic caller (the error
    /// handler is aperiodic), caller holds the preemption lock or a mutex).
    pub fn periodic_wait(
        &mut self,
        now: SystemTime,
        caller: Runner,
    ) -> Result<CallOutcome, ReturnCode> {
        self.service(now, |k| {
            let Some(i) = k.caller(caller)? else {
                return k.refuse(Refusal::PeriodicWaitNotPeriodic);
            };
            if !k.procs[i].is_periodic() {
                return k.refuse(Refusal::PeriodicWaitNotPeriodic);
            }
            if !k.may_block(i) {
                return k.refuse(Refusal::PeriodicWaitCannotWait);
            }
            let p = &mut k.procs[i];
            let next = p.release_point.saturating_add(p.attrs.period);
            p.release_point = next;
            p.deadline = if p.attrs.time_capacity == INFINITE_TIME_VALUE {
                INFINITE_TIME_VALUE
            } else {
                next.saturating_add(p.attrs.time_capacity)
            };
            p.deadline_reported = false;
            if next <= now {
                k.reposition_tail(i);
                return Ok(CallOutcome::Done(()));
            }
            k.block(i, Wait::Release, next);
            Ok(CallOutcome::Blocked)
        })
    }

    /// REPLENISH: the caller's deadline becomes `now + budget` (infinite if
    /// the budget or the time capacity is infinite).
    ///
    /// Errors: `NoAction` (not NORMAL, main process, error handler), `InvalidMode`
    /// (periodic caller whose new deadline would exceed its next release
    /// point; an infinite budget always does), `InvalidParam` (budget
    /// negative other than infinite, or overflowing).
    pub fn replenish(
        &mut self,
        now: SystemTime,
        caller: Runner,
        budget: SystemTime,
    ) -> Result<(), ReturnCode> {
        self.service(now, |k| {
            let me = k.caller(caller)?;
            let (Some(i), OperatingMode::Normal) = (me, k.mode) else {
                return Err(ReturnCode::NoAction);
            };
            if k.is_handler(i) {
                return Err(ReturnCode::NoAction);
            }
            let p = &k.procs[i];
            if p.is_periodic() {
                let next_release = p.release_point.saturating_add(p.attrs.period);
                if budget == INFINITE_TIME_VALUE
                    || (budget >= 0 && now.saturating_add(budget) > next_release)
                {
                    return Err(ReturnCode::InvalidMode);
                }
            }
            let t = Self::expiry(now, budget)?;
            let p = &mut k.procs[i];
            p.deadline =
                if budget == INFINITE_TIME_VALUE || p.attrs.time_capacity == INFINITE_TIME_VALUE {
                    INFINITE_TIME_VALUE
                } else {
                    t
                };
            p.deadline_reported = false;
            Ok(())
        })
    }
}
