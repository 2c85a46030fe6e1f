// SPDX-License-Identifier: MIT OR Apache-2.0
//! Mutexes with priority ceiling (ARINC 653 Part 1, 3.7.2.5).
//!
//! A process owns at most one mutex at a time. While owning it, the
//! process runs at the mutex priority; its previous priority is retained and
//! restored when the lock count drops to zero. Ownership is handed over
//! directly to the first waiter (per the queuing discipline).

use crate::kernel::Kernel;
use crate::queue::{ObjRef, WaitQueue};
use crate::semaphore::obj_idx;
use crate::types::*;

#[derive(Debug, Clone)]
pub(crate) struct Mutex {
    pub name: Name,
    pub priority: Priority,
    pub owner: Option<usize>,
    pub lock_count: i32,
    pub queue: WaitQueue,
}

pub use partita_abi::MutexState;

/// `MUTEX_STATUS_TYPE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MutexStatus {
    /// Owner (`None` when available).
    pub mutex_owner: Option<ProcessId>,
    /// State.
    pub mutex_state: MutexState,
    /// Ceiling priority.
    pub mutex_priority: Priority,
    /// Recursive lock count.
    pub lock_count: i32,
    /// Number of waiting processes.
    pub waiting_processes: usize,
}

/// Result of GET_PROCESS_MUTEX_STATE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MutexOwnership {
    /// `NO_MUTEX_OWNED`.
    None,
    /// `PREEMPTION_LOCK_MUTEX`: the process holds the preemption lock.
    PreemptionLock,
    /// The process owns this mutex.
    Owned(MutexId),
}

impl Kernel {
    /// CREATE_MUTEX.
    ///
    /// Errors: `InvalidConfig` (too many mutexes), `NoAction` (name exists),
    /// `InvalidParam` (priority out of range), `InvalidMode` (NORMAL mode).
    pub fn create_mutex(
        &mut self,
        now: SystemTime,
        caller: Runner,
        name: &Name,
        priority: Priority,
        discipline: QueuingDiscipline,
    ) -> Result<MutexId, ReturnCode> {
        self.service(now, |k| {
            let exists = k.mutexes.iter().any(|m| name_eq(&m.name, name));
            k.check_create(caller, k.mutexes.len(), k.cfg.max_mutexes, exists)?;
            if !(MIN_PRIORITY_VALUE..=MAX_PRIORITY_VALUE).contains(&priority) {
                return Err(ReturnCode::InvalidParam);
            }
            k.check_create_mode()?;
            k.mutexes.push(Mutex {
                name: *name,
                priority,
                owner: None,
                lock_count: 0,
                queue: WaitQueue::new(discipline, k.cfg.max_processes),
            });
            Ok(MutexId(k.mutexes.len() as u32))
        })
    }

    /// Gives mutex `m` to process `i` (lock count 1, priority raised to the ceiling).
    fn mutex_take(&mut self, m: usize, i: usize) {
        let mx = &mut self.mutexes[m];
        mx.owner = Some(i);
        mx.lock_count = 1;
        let p = &mut self.procs[i];
        p.mutex = Some(m);
        p.retained_priority = p.current_priority;
        p.current_priority = mx.priority;
    }

    /// Hands an unowned mutex to its first waiter, if any.
    fn mutex_handover(&mut self, m: usize) {
        self.mutexes[m].owner = None;
        self.mutexes[m].lock_count = 0;
        if let Some(w) = self.mutexes[m].queue.pop(&self.procs) {
            self.mutex_take(m, w);
            self.wake(w, Ok(()));
        }
    }

    /// Releases mutex `m` completely (owner stopped or RESET_MUTEX),
    /// restoring the owner's retained priority.
    pub(crate) fn mutex_force_release(&mut self, m: usize) {
        if let Some(o) = self.mutexes[m].owner {
            let p = &mut self.procs[o];
            p.mutex = None;
            p.current_priority = p.retained_priority;
        }
        self.mutex_handover(m);
    }

    /// ACQUIRE_MUTEX (recursive for the owner, up to `MAX_LOCK_LEVEL`).
    ///
    /// Errors: `InvalidParam` (unknown mutex, bad time-out), `InvalidMode`
    /// (main process, caller owns another mutex, non-zero time-out while
    /// holding the preemption lock), `InvalidConfig` (caller's current
    /// priority above the mutex priority, lock count at `MAX_LOCK_LEVEL`),
    /// `NotAvailable` (owned by another process and zero time-out). Wake
    /// results: `Ok` (the caller owns the mutex), `Err(TimedOut)`.
    pub fn acquire_mutex(
        &mut self,
        now: SystemTime,
        caller: Runner,
        id: MutexId,
        timeout: SystemTime,
    ) -> Result<CallOutcome, ReturnCode> {
        self.service(now, |k| {
            let m = obj_idx(id.0, k.mutexes.len())?;
            let me = k.caller(caller)?;
            let t = Self::expiry(now, timeout)?;
            let i = me.ok_or(ReturnCode::InvalidMode)?;
            if k.procs[i].mutex.is_some_and(|o| o != m)
                || (timeout != 0 && k.lock_level > 0 && k.lock_owner == Some(i))
            {
                return Err(ReturnCode::InvalidMode);
            }
            let mx = &mut k.mutexes[m];
            if mx.owner == Some(i) {
                if mx.lock_count >= MAX_LOCK_LEVEL {
                    return Err(ReturnCode::InvalidConfig);
                }
                mx.lock_count += 1;
                return Ok(CallOutcome::Done(()));
            }
            if k.procs[i].current_priority > mx.priority {
                return Err(ReturnCode::InvalidConfig);
            }
            if mx.owner.is_none() {
                k.mutex_take(m, i);
                // The running owner stays at the head of its (ceiling) level.
                let seq = k.next_head();
                k.procs[i].seq = seq;
                return Ok(CallOutcome::Done(()));
            }
            if timeout == 0 {
                return Err(ReturnCode::NotAvailable);
            }
            k.block_on(me, ObjRef::Mutex(m), t)
        })
    }

    /// RELEASE_MUTEX: decrements the lock count; at zero the caller gets
    /// back its retained priority (staying at the head of that level) and
    /// the first waiter becomes the owner.
    ///
    /// Errors: `InvalidParam` (unknown mutex), `InvalidMode` (caller is not
    /// the owner).
    pub fn release_mutex(
        &mut self,
        now: SystemTime,
        caller: Runner,
        id: MutexId,
    ) -> Result<(), ReturnCode> {
        self.service(now, |k| {
            let m = obj_idx(id.0, k.mutexes.len())?;
            let me = k.caller(caller)?;
            let Some(i) = me.filter(|&i| k.mutexes[m].owner == Some(i)) else {
                return Err(ReturnCode::InvalidMode);
            };
            k.mutexes[m].lock_count -= 1;
            if k.mutexes[m].lock_count == 0 {
                k.mutex_force_release(m);
                let seq = k.next_head();
                k.procs[i].seq = seq;
            }
            Ok(())
        })
    }

    /// RESET_MUTEX: releases a mutex owned by `pid` whatever its lock count
    /// (typically used by the error handler after a fault).
    ///
    /// Errors: `InvalidParam` (unknown mutex or process), `InvalidMode`
    /// (the mutex is not owned by `pid`).
    pub fn reset_mutex(
        &mut self,
        now: SystemTime,
        caller: Runner,
        id: MutexId,
        pid: ProcessId,
    ) -> Result<(), ReturnCode> {
        self.service(now, |k| {
            k.caller(caller)?;
            let m = obj_idx(id.0, k.mutexes.len())?;
            let i = k.pidx(pid)?;
            if k.mutexes[m].owner != Some(i) {
                return Err(ReturnCode::InvalidMode);
            }
            k.mutex_force_release(m);
            Ok(())
        })
    }

    /// GET_MUTEX_ID. Errors: `InvalidConfig` (no such name).
    pub fn get_mutex_id(&self, name: &Name) -> Result<MutexId, ReturnCode> {
        self.mutexes
            .iter()
            .position(|m| name_eq(&m.name, name))
            .map(|i| MutexId(i as u32 + 1))
            .ok_or(ReturnCode::InvalidConfig)
    }

    /// GET_MUTEX_STATUS. Errors: `InvalidParam` (unknown mutex).
    pub fn get_mutex_status(&self, id: MutexId) -> Result<MutexStatus, ReturnCode> {
        let m = &self.mutexes[obj_idx(id.0, self.mutexes.len())?];
        Ok(MutexStatus {
            mutex_owner: m.owner.map(Self::pid_of),
            mutex_state: if m.owner.is_some() {
                MutexState::Owned
            } else {
                MutexState::Available
            },
            mutex_priority: m.priority,
            lock_count: m.lock_count,
            waiting_processes: m.queue.len(),
        })
    }

    /// GET_PROCESS_MUTEX_STATE. Errors: `InvalidParam` (unknown process).
    pub fn get_process_mutex_state(&self, pid: ProcessId) -> Result<MutexOwnership, ReturnCode> {
        let i = self.pidx(pid)?;
        if let Some(m) = self.procs[i].mutex {
            return Ok(MutexOwnership::Owned(MutexId(m as u32 + 1)));
        }
        if self.lock_level > 0 && self.lock_owner == Some(i) {
            return Ok(MutexOwnership::PreemptionLock);
        }
        Ok(MutexOwnership::None)
    }
}
