// SPDX-License-Identifier: MIT OR Apache-2.0
//! Counting semaphores (ARINC 653 Part 1, 3.7.2.3).

use crate::kernel::Kernel;
use crate::process::Wait;
use crate::queue::{ObjRef, WaitQueue};
use crate::types::*;

#[derive(Debug, Clone)]
pub(crate) struct Semaphore {
    pub name: Name,
    pub value: i32,
    pub max: i32,
    pub queue: WaitQueue,
}

/// `SEMAPHORE_STATUS_TYPE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SemaphoreStatus {
    /// Current value.
    pub current_value: i32,
    /// Maximum value.
    pub maximum_value: i32,
    /// Number of waiting processes.
    pub waiting_processes: usize,
}

/// Index of object `id` (1-based) in a table of `len`, else INVALID_PARAM.
pub(crate) fn obj_idx(id: u32, len: usize) -> Result<usize, ReturnCode> {
    let i = (id as usize).wrapping_sub(1);
    if i < len {
        Ok(i)
    } else {
        Err(ReturnCode::InvalidParam)
    }
}

impl Kernel {
    /// Common checks of a CREATE_* service: caller valid, room for one more
    /// object (`InvalidConfig`), name unused (`NoAction`).
    pub(crate) fn check_create(
        &self,
        caller: Runner,
        count: usize,
        max: usize,
        exists: bool,
    ) -> Result<(), ReturnCode> {
        self.caller(caller)?;
        if count >= max {
            return Err(ReturnCode::InvalidConfig);
        }
        if exists {
            return Err(ReturnCode::NoAction);
        }
        Ok(())
    }

    /// Final check of a CREATE_* service: only during initialisation.
    pub(crate) fn check_create_mode(&self) -> Result<(), ReturnCode> {
        if self.is_init_mode() {
            Ok(())
        } else {
            Err(ReturnCode::InvalidMode)
        }
    }

    /// Common checks of a potentially blocking service, after the object id
    /// was validated: returns the caller and the absolute time-out expiry.
    /// `InvalidParam` for a bad time-out, `InvalidMode` when a non-zero
    /// time-out is requested by the error handler or by a process holding
    /// the preemption lock or a mutex.
    pub(crate) fn check_wait(
        &self,
        now: SystemTime,
        caller: Runner,
        timeout: SystemTime,
    ) -> Result<(Option<usize>, SystemTime), ReturnCode> {
        let me = self.caller(caller)?;
        let t = Self::expiry(now, timeout)?;
        if let Some(i) = me {
            if timeout != 0 && !self.may_block(i) {
                return Err(ReturnCode::InvalidMode);
            }
        }
        Ok((me, t))
    }

    /// Queues the caller on `obj` and blocks it until woken or `expiry`.
    /// The main process cannot block (`InvalidMode`).
    pub(crate) fn block_on<T>(
        &mut self,
        me: Option<usize>,
        obj: ObjRef,
        expiry: SystemTime,
    ) -> Result<CallOutcome<T>, ReturnCode> {
        let i = me.ok_or(ReturnCode::InvalidMode)?;
        match obj {
            ObjRef::Semaphore(s) => self.semaphores[s].queue.push(i),
            ObjRef::Event(e) => self.events[e].queue.push(i),
            ObjRef::BufferSend(b) | ObjRef::BufferRecv(b) => self.buffers[b].queue.push(i),
            ObjRef::Blackboard(b) => self.blackboards[b].queue.push(i),
            ObjRef::Mutex(m) => self.mutexes[m].queue.push(i),
            ObjRef::Port(q) => self.ports[q].queue.push(i),
        }
        self.block(i, Wait::Object(obj), expiry);
        Ok(CallOutcome::Blocked)
    }

    /// CREATE_SEMAPHORE.
    ///
    /// Errors: `InvalidConfig` (too many semaphores), `NoAction` (name
    /// exists), `InvalidParam` (values out of `0..=MAX_SEMAPHORE_VALUE` or
    /// current > maximum), `InvalidMode` (NORMAL mode).
    pub fn create_semaphore(
        &mut self,
        now: SystemTime,
        caller: Runner,
        name: &Name,
        current_value: i32,
        maximum_value: i32,
        discipline: QueuingDiscipline,
    ) -> Result<SemaphoreId, ReturnCode> {
        self.service(now, |k| {
            let exists = k.semaphores.iter().any(|s| name_eq(&s.name, name));
            k.check_create(caller, k.semaphores.len(), k.cfg.max_semaphores, exists)?;
            if !(0..=MAX_SEMAPHORE_VALUE).contains(&current_value)
                || !(0..=MAX_SEMAPHORE_VALUE).contains(&maximum_value)
                || current_value > maximum_value
            {
                return Err(ReturnCode::InvalidParam);
            }
            k.check_create_mode()?;
            k.semaphores.push(Semaphore {
                name: *name,
                value: current_value,
                max: maximum_value,
                queue: WaitQueue::new(discipline, k.cfg.max_processes),
            });
            Ok(SemaphoreId(k.semaphores.len() as u32))
        })
    }

    /// WAIT_SEMAPHORE.
    ///
    /// Errors: `InvalidParam` (unknown semaphore, bad time-out),
    /// `InvalidMode` (non-zero time-out while holding the preemption lock or
    /// a mutex; main process that would block), `NotAvailable` (value 0 and
    /// zero time-out). Wake results: `Ok`, `Err(TimedOut)`.
    pub fn wait_semaphore(
        &mut self,
        now: SystemTime,
        caller: Runner,
        id: SemaphoreId,
        timeout: SystemTime,
    ) -> Result<CallOutcome, ReturnCode> {
        self.service(now, |k| {
            let s = obj_idx(id.0, k.semaphores.len())?;
            let (me, t) = k.check_wait(now, caller, timeout)?;
            let sem = &mut k.semaphores[s];
            if sem.value > 0 {
                sem.value -= 1;
                return Ok(CallOutcome::Done(()));
            }
            if timeout == 0 {
                return Err(ReturnCode::NotAvailable);
            }
            k.block_on(me, ObjRef::Semaphore(s), t)
        })
    }

    /// SIGNAL_SEMAPHORE: wakes the first waiter (per discipline) or
    /// increments the value.
    ///
    /// Errors: `InvalidParam` (unknown semaphore), `NoAction` (value already maximum).
    pub fn signal_semaphore(
        &mut self,
        now: SystemTime,
        caller: Runner,
        id: SemaphoreId,
    ) -> Result<(), ReturnCode> {
        self.service(now, |k| {
            k.caller(caller)?;
            let s = obj_idx(id.0, k.semaphores.len())?;
            if let Some(w) = k.semaphores[s].queue.pop(&k.procs) {
                k.wake(w, Ok(()));
                return Ok(());
            }
            let sem = &mut k.semaphores[s];
            if sem.value >= sem.max {
                return Err(ReturnCode::NoAction);
            }
            sem.value += 1;
            Ok(())
        })
    }

    /// GET_SEMAPHORE_ID. Errors: `InvalidConfig` (no such name).
    pub fn get_semaphore_id(&self, name: &Name) -> Result<SemaphoreId, ReturnCode> {
        self.semaphores
            .iter()
            .position(|s| name_eq(&s.name, name))
            .map(|i| SemaphoreId(i as u32 + 1))
            .ok_or(ReturnCode::InvalidConfig)
    }

    /// GET_SEMAPHORE_STATUS. Errors: `InvalidParam` (unknown semaphore).
    pub fn get_semaphore_status(&self, id: SemaphoreId) -> Result<SemaphoreStatus, ReturnCode> {
        let s = &self.semaphores[obj_idx(id.0, self.semaphores.len())?];
        Ok(SemaphoreStatus {
            current_value: s.value,
            maximum_value: s.max,
            waiting_processes: s.queue.len(),
        })
    }
}
