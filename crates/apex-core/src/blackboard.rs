// SPDX-License-Identifier: MIT OR Apache-2.0
//! Blackboards (ARINC 653 Part 1, 3.7.2.2).

use crate::kernel::Kernel;
use crate::queue::{ObjRef, WaitQueue};
use crate::semaphore::obj_idx;
use crate::types::*;
use alloc::vec;
use alloc::vec::Vec;

#[derive(Debug, Clone)]
pub(crate) struct Blackboard {
    pub name: Name,
    pub max_size: usize,
    pub data: Vec<u8>,
    pub len: usize,
    pub empty: bool,
    pub queue: WaitQueue,
}

pub use partita_abi::EmptyIndicator;

/// `BLACKBOARD_STATUS_TYPE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlackboardStatus {
    /// Whether a message is displayed.
    pub empty_indicator: EmptyIndicator,
    /// Maximum message size in bytes.
    pub max_message_size: usize,
    /// Number of waiting readers.
    pub waiting_processes: usize,
}

impl Kernel {
    /// CREATE_BLACKBOARD (initially empty).
    ///
    /// Errors: `InvalidConfig` (too many blackboards, message storage
    /// exhausted), `NoAction` (name exists), `InvalidParam` (message size
    /// out of range), `InvalidMode` (NORMAL mode).
    pub fn create_blackboard(
        &mut self,
        now: SystemTime,
        caller: Runner,
        name: &Name,
        max_message_size: usize,
    ) -> Result<BlackboardId, ReturnCode> {
        self.service(now, |k| {
            let exists = k.blackboards.iter().any(|b| name_eq(&b.name, name));
            if k.msg_used.saturating_add(max_message_size) > k.cfg.message_memory {
                k.caller(caller)?;
                return Err(ReturnCode::InvalidConfig);
            }
            k.check_create(caller, k.blackboards.len(), k.cfg.max_blackboards, exists)?;
            if !(1..=SYSTEM_LIMIT_MESSAGE_SIZE).contains(&max_message_size) {
                return Err(ReturnCode::InvalidParam);
            }
            k.check_create_mode()?;
            k.reserve_messages(max_message_size, max_message_size)?;
            k.blackboards.push(Blackboard {
                name: *name,
                max_size: max_message_size,
                data: vec![0; max_message_size],
                len: 0,
                empty: true,
                queue: WaitQueue::new(QueuingDiscipline::Fifo, k.cfg.max_processes),
            });
            Ok(BlackboardId(k.blackboards.len() as u32))
        })
    }

    /// DISPLAY_BLACKBOARD: the message becomes visible and every waiting
    /// reader receives a copy.
    ///
    /// Errors: `InvalidParam` (unknown blackboard, empty or oversized message).
    pub fn display_blackboard(
        &mut self,
        now: SystemTime,
        caller: Runner,
        id: BlackboardId,
        msg: &[u8],
    ) -> Result<(), ReturnCode> {
        self.service(now, |k| {
            k.caller(caller)?;
            let b = obj_idx(id.0, k.blackboards.len())?;
            let bb = &mut k.blackboards[b];
            if msg.is_empty() || msg.len() > bb.max_size {
                return Err(ReturnCode::InvalidParam);
            }
            bb.data[..msg.len()].copy_from_slice(msg);
            bb.len = msg.len();
            bb.empty = false;
            while let Some(r) = k.blackboards[b].queue.pop_front() {
                let p = &mut k.procs[r];
                p.msg[..msg.len()].copy_from_slice(msg);
                p.msg_len = msg.len();
                k.wake(r, Ok(()));
            }
            Ok(())
        })
    }

    /// READ_BLACKBOARD: copies the displayed message into `out` (which must
    /// hold the maximum message size) and returns its length.
    ///
    /// Errors: `InvalidParam` (unknown blackboard, `out` too small, bad
    /// time-out), `InvalidMode` (non-zero time-out while holding the
    /// preemption lock or a mutex; main process that would block),
    /// `NotAvailable` (empty and zero time-out). Wake results: `Ok(len)`,
    /// `Err(TimedOut)`.
    pub fn read_blackboard(
        &mut self,
        now: SystemTime,
        caller: Runner,
        id: BlackboardId,
        timeout: SystemTime,
        out: &mut [u8],
    ) -> Result<CallOutcome<usize>, ReturnCode> {
        self.service(now, |k| {
            let b = obj_idx(id.0, k.blackboards.len())?;
            if out.len() < k.blackboards[b].max_size {
                return Err(ReturnCode::InvalidParam);
            }
            let (me, t) = k.check_wait(now, caller, timeout)?;
            let bb = &k.blackboards[b];
            if !bb.empty {
                out[..bb.len].copy_from_slice(&bb.data[..bb.len]);
                return Ok(CallOutcome::Done(bb.len));
            }
            if timeout == 0 {
                return Err(ReturnCode::NotAvailable);
            }
            k.block_on(me, ObjRef::Blackboard(b), t)
        })
    }

    /// CLEAR_BLACKBOARD. Errors: `InvalidParam` (unknown blackboard).
    pub fn clear_blackboard(
        &mut self,
        now: SystemTime,
        caller: Runner,
        id: BlackboardId,
    ) -> Result<(), ReturnCode> {
        self.service(now, |k| {
            k.caller(caller)?;
            let b = obj_idx(id.0, k.blackboards.len())?;
            k.blackboards[b].empty = true;
            Ok(())
        })
    }

    /// GET_BLACKBOARD_ID. Errors: `InvalidConfig` (no such name).
    pub fn get_blackboard_id(&self, name: &Name) -> Result<BlackboardId, ReturnCode> {
        self.blackboards
            .iter()
            .position(|b| name_eq(&b.name, name))
            .map(|i| BlackboardId(i as u32 + 1))
            .ok_or(ReturnCode::InvalidConfig)
    }

    /// GET_BLACKBOARD_STATUS. Errors: `InvalidParam` (unknown blackboard).
    pub fn get_blackboard_status(&self, id: BlackboardId) -> Result<BlackboardStatus, ReturnCode> {
        let b = &self.blackboards[obj_idx(id.0, self.blackboards.len())?];
        Ok(BlackboardStatus {
            empty_indicator: if b.empty {
                EmptyIndicator::Empty
            } else {
                EmptyIndicator::Occupied
            },
            max_message_size: b.max_size,
            waiting_processes: b.queue.len(),
        })
    }
}
