// SPDX-License-Identifier: MIT OR Apache-2.0
//! Thread life cycle: one slot and thread per APEX process (and the error handler), the
//! designation words they sleep on, abandoning and re-spawning a stopped runner's thread
//! (see "Stopped processes" in the [`super`] module documentation), and the timer thread.

use super::fault::thread_fault_setup;
use super::{Entry, Runtime, INCARNATION, IN_BODY, LEAVING, ME};
use crate::apex::process::StopSelfUnwind;
use partita_apex_core::{ProcessId, ReturnCode, Runner};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, Ordering};
use std::sync::Arc;

/// Designation word values: 0 nobody, 1 the main process, `pid + 1` an APEX process.
pub(super) fn encode(r: Option<Runner>) -> u32 {
    match r {
        None => 0,
        Some(Runner::Main) => 1,
        Some(Runner::Process(p)) => p.0 + 1,
        Some(Runner::ErrorHandler) => ERROR_HANDLER_WORD,
    }
}

/// Designation word value of the error handler.
const ERROR_HANDLER_WORD: u32 = u32::MAX;

pub(super) struct Slot {
    /// Bumped (and futex-woken) whenever the designation of the slot's core changes.
    pub(super) word: AtomicU32,
    pub(super) tid: AtomicI32,
    pub(super) core: AtomicU32,
    pub(super) entry: Entry,
    /// Stack size of the slot's threads.
    pub(super) stack: usize,
    /// Incremented when the current thread is abandoned (see the module documentation); a
    /// thread whose own incarnation differs parks forever. Changed with the kernel locked.
    pub(super) incarnation: AtomicU32,
    /// The current thread is abandoned and no fresh one was spawned yet.
    pub(super) abandoned: AtomicBool,
    /// The current thread waits at the top of its loop and will call the entry point from
    /// the start when designated. Changed by the thread with the kernel locked.
    pub(super) at_top: AtomicBool,
    /// The SCHED_FIFO priority last given to the slot's thread, so that the dispatcher skips
    /// the system call when it would not change anything (the common case on a hand-off).
    pub(super) prio: AtomicI32,
    /// The core the slot's thread last moved itself to (see [`crate::affinity`]).
    pub(super) pinned: AtomicU32,
    /// The thread was demoted while in application code (see [`crate::idle`]).
    pub(super) demoted: AtomicBool,
}

impl Slot {
    pub(super) fn new(core: u32, entry: Entry, stack: usize) -> Slot {
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

pub(super) fn decode(v: u32) -> Option<Runner> {
    match v {
        0 => None,
        1 => Some(Runner::Main),
        ERROR_HANDLER_WORD => Some(Runner::ErrorHandler),
        n => Some(Runner::Process(ProcessId(n - 1))),
    }
}

pub(super) fn runner_name(r: Runner) -> String {
    match r {
        Runner::Main => "the main process".into(),
        Runner::Process(p) => format!("process {}", p.0),
        Runner::ErrorHandler => "the error handler".into(),
    }
}

impl Runtime {
    pub(super) fn slot(&self, r: Runner) -> Option<Arc<Slot>> {
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

    /// Whether the calling thread is an abandoned thread of `me`'s slot. Reliable with the
    /// kernel locked (incarnations change under the lock).
    pub(super) fn is_abandoned(&self, me: Runner, slot: &Slot) -> bool {
        matches!(me, Runner::Process(_) | Runner::ErrorHandler)
            && slot.incarnation.load(Ordering::Acquire) != INCARNATION.with(|c| c.get())
    }

    /// The end of an abandoned thread (or of a thread whose process stopped itself): it
    /// never returns to application code and never touches the kernel again.
    pub(super) fn park_forever(&self) -> ! {
        // Give back the memory it no longer needs (crate::reclaim).
        crate::reclaim::before_parking_forever();
        loop {
            std::thread::park();
        }
    }

    /// ProcessStopped / ErrorHandlerStopped: unless its thread waits at the top of its loop,
    /// the slot's thread is abandoned (it may be anywhere in application code) and woken so
    /// that, if it sleeps in the runtime, it parks for good. Called with the kernel locked.
    pub(super) fn abandon(&self, who: Runner) {
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

    /// The calling thread, on its way back to the top after STOP_SELF (marked as at the top),
    /// will not get there (a fault): abandon it as a STOP would have, so that the next START
    /// spawns a fresh thread. Called with the kernel locked, from the fault handler, which
    /// spawns nothing: a START that came in between (another core) finds no thread and the
    /// process waits for the next one.
    pub(super) fn abandon_leaving(&self, who: Runner) {
        if let Some(slot) = self.slot(who) {
            slot.at_top.store(false, Ordering::Release);
        }
        self.abandon(who);
    }

    /// ProcessStarted / ErrorHandlerStarted: a slot whose thread was abandoned gets a fresh
    /// thread, which begins at the entry point when designated. Called with the kernel locked.
    pub(super) fn respawn(&'static self, who: Runner) {
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

    /// Spawns the thread of a slot (current incarnation) and waits until it has its tid and
    /// priority, so that dispatch can address it. The new thread does not need the kernel
    /// lock to get there, so the caller may hold it.
    pub(super) fn spawn_thread(
        &'static self,
        who: Runner,
        slot: Arc<Slot>,
    ) -> Result<(), ReturnCode> {
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
        // The new thread inherited the spawner's SCHED_FIFO priority (at least the
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

    pub(super) fn is_designated(&self, me: Runner, slot: &Slot) -> bool {
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
    pub(super) fn wait_designated(&self, me: Runner) {
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
    pub(super) fn set_own_prio(&self, slot: &Slot, prio: i32) {
        if self.rt_run > 0 {
            let prio = prio.max(1);
            slot.prio.store(prio, Ordering::Release);
            crate::raise::set_priority(self.control(), 0, prio);
        }
    }

    /// The thread of an APEX process or of the error handler: waits at the top of its loop
    /// until designated, runs the entry point, and stops the process when it returns.
    pub(super) fn process_thread(
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
            // STOP_SELF leaves the entry point early (C bodies: `partita_sys::escape`, inside
            // `CEntry::call`; Rust bodies: an unwind), the process already DORMANT, this
            // thread marked as at the top and as leaving (`LEAVING`).
            IN_BODY.with(|b| b.set(true));
            let body = std::panic::catch_unwind(AssertUnwindSafe(|| (slot.entry)()));
            IN_BODY.with(|b| b.set(false));
            let left = LEAVING.with(|l| l.replace(false));
            match body {
                // Already stopped by STOP_SELF (also when the body caught the unwind and
                // returned later, or panicked in its drop code): back to the top.
                _ if left => continue,
                Ok(()) => {}
                Err(p) if p.is::<StopSelfUnwind>() => continue,
                Err(p) => std::panic::resume_unwind(p),
            }
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

    /// The main thread after NORMAL: handles time events forever.
    pub(super) fn become_timer(&'static self) -> ! {
        let main = self.main.clone();
        self.set_own_prio(&main, self.rt_run + 1);
        // Releases and time-outs end exactly when due, as the scheduler's boundaries do (a
        // real-time thread has no slack on Linux 6.11 and later; older kernels give it the
        // default 50 us unless told).
        let _ = partita_sys::sched::set_timer_slack(1);
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
}
