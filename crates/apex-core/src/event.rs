// SPDX-License-Identifier: MIT OR Apache-2.0
//! Events (ARINC 653 Part 1, 3.7.2.4).

use crate::kernel::Kernel;
use crate::queue::{ObjRef, WaitQueue};
use crate::semaphore::obj_idx;
use crate::types::*;

pub use partita_abi::EventState;

#[derive(Debug, Clone)]
pub(crate) struct Event {
    pub name: Name,
    pub state: EventState,
    pub queue: WaitQueue,
}

/// `EVENT_STATUS_TYPE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EventStatus {
    /// Current state.
    pub event_state: EventState,
    /// Number of waiting processes.
    pub waiting_processes: usize,
}

impl Kernel {
    /// CREATE_EVENT (initially DOWN).
    ///
    /// Errors: `InvalidConfig` (too many events), `NoAction` (name exists),
    /// `InvalidMode` (NORMAL mode).
    pub fn create_event(
        &mut self,
        now: SystemTime,
        caller: Runner,
        name: &Name,
    ) -> Result<EventId, ReturnCode> {
        self.service(now, |k| {
            let exists = k.events.iter().any(|e| name_eq(&e.name, name));
            k.check_create(caller, k.events.len(), k.cfg.max_events, exists)?;
            k.check_create_mode()?;
            k.events.push(Event {
                name: *name,
                state: EventState::Down,
                queue: WaitQueue::new(QueuingDiscipline::Fifo, k.cfg.max_processes),
            });
            Ok(EventId(k.events.len() as u32))
        })
    }

    /// SET_EVENT: UP, and every waiting process is released (in arrival order).
    ///
    /// Errors: `InvalidParam` (unknown event).
    pub fn set_event(
        &mut self,
        now: SystemTime,
        caller: Runner,
        id: EventId,
    ) -> Result<(), ReturnCode> {
        self.service(now, |k| {
            k.caller(caller)?;
            let e = obj_idx(id.0, k.events.len())?;
            k.events[e].state = EventState::Up;
            while let Some(w) = k.events[e].queue.pop_front() {
                k.wake(w, Ok(()));
            }
            Ok(())
        })
    }

    /// RESET_EVENT: DOWN. Errors: `InvalidParam` (unknown event).
    pub fn reset_event(
        &mut self,
        now: SystemTime,
        caller: Runner,
        id: EventId,
    ) -> Result<(), ReturnCode> {
        self.service(now, |k| {
            k.caller(caller)?;
            let e = obj_idx(id.0, k.events.len())?;
            k.events[e].state = EventState::Down;
            Ok(())
        })
    }

    /// WAIT_EVENT.
    ///
    /// Errors: `InvalidParam` (unknown event, bad time-out), `InvalidMode`
    /// (non-zero time-out while holding the preemption lock or a mutex;
    /// main process that would block), `NotAvailable` (DOWN and zero
    /// time-out). Wake results: `Ok`, `Err(TimedOut)`.
    pub fn wait_event(
        &mut self,
        now: SystemTime,
        caller: Runner,
        id: EventId,
        timeout: SystemTime,
    ) -> Result<CallOutcome, ReturnCode> {
        self.service(now, |k| {
            let e = obj_idx(id.0, k.events.len())?;
            let (me, t) = k.check_wait(now, caller, timeout)?;
            if k.events[e].state == EventState::Up {
                return Ok(CallOutcome::Done(()));
            }
            if timeout == 0 {
                return Err(ReturnCode::NotAvailable);
            }
            k.block_on(me, ObjRef::Event(e), t)
        })
    }

    /// GET_EVENT_ID. Errors: `InvalidConfig` (no such name).
    pub fn get_event_id(&self, name: &Name) -> Result<EventId, ReturnCode> {
        self.events
            .iter()
            .position(|e| name_eq(&e.name, name))
            .map(|i| EventId(i as u32 + 1))
            .ok_or(ReturnCode::InvalidConfig)
    }

    /// GET_EVENT_STATUS. Errors: `InvalidParam` (unknown event).
    pub fn get_event_status(&self, id: EventId) -> Result<EventStatus, ReturnCode> {
        let e = &self.events[obj_idx(id.0, self.events.len())?];
        Ok(EventStatus {
            event_state: e.state,
            waiting_processes: e.queue.len(),
        })
    }
}
