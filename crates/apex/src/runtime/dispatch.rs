// SPDX-License-Identifier: MIT OR Apache-2.0
//! Dispatch: after every service and timer event, the threads are made to match the
//! kernel's decisions (designation words, SCHED_FIFO priorities; see "Which thread runs" in
//! the [`super`] module documentation), the kernel's effects are carried out and the timer
//! is re-armed.

use super::threads::{decode, encode, Slot};
use super::Runtime;
use partita_apex_core::{Effect, Kernel, OperatingMode, Runner};
use std::sync::atomic::Ordering;

impl Runtime {
    /// Gives the slot's thread `prio`, unless it already has it.
    pub(super) fn set_prio(&self, slot: &Slot, prio: i32) {
        let prio = prio.max(1);
        let tid = slot.tid.load(Ordering::Acquire);
        if self.rt_run > 0 && tid > 0 && slot.prio.swap(prio, Ordering::AcqRel) != prio {
            // A raise may go through the manager (crate::raise).
            crate::raise::set_priority(self.control(), tid, prio);
        }
    }

    /// Makes the threads match the kernel's decisions, carries out its effects, and re-arms
    /// the timer. Called with the kernel locked, after every service.
    pub(super) fn dispatch(&'static self, k: &mut Kernel) {
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
        // An idle core must not run a demoted thread (crate::idle).
        crate::idle::update(|c| k.running(c).is_none(), |c| self.any_demoted_on(c));
        for e in effects {
            match e {
                Effect::DeadlineMissed { process, deadline } => {
                    self.report_deadline_miss(process.0, deadline);
                }
                Effect::RestartRequested(m) => self.request_mode(m),
                Effect::IdleRequested => self.request_mode(OperatingMode::Idle),
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
    pub(super) fn any_demoted_on(&self, core: u32) -> bool {
        let on =
            |s: &Slot| s.demoted.load(Ordering::Acquire) && s.core.load(Ordering::Acquire) == core;
        self.slots
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .any(|s| on(s))
            || self.handler.get().is_some_and(|s| on(s))
    }

    pub(super) fn request_mode(&self, m: OperatingMode) {
        self.idle.store(true, Ordering::Release);
        if let Some(c) = self.control() {
            c.mode_request.store(m.raw(), Ordering::Release);
        } else {
            eprintln!("partita runtime: standalone partition requested mode {m}; exiting");
            std::process::exit(0);
        }
    }
}
