// SPDX-License-Identifier: MIT OR Apache-2.0
//! Buffers: bounded message queues with copy semantics (ARINC 653 Part 1, 3.7.2.1).

use crate::kernel::Kernel;
use crate::queue::{ObjRef, WaitQueue};
use crate::semaphore::obj_idx;
use crate::types::*;
use alloc::vec;
use alloc::vec::Vec;

#[derive(Debug, Clone)]
pub(crate) struct Buffer {
    pub name: Name,
    pub max_size: usize,
    pub max_nb: usize,
    /// `max_nb` slots of `max_size` bytes.
    pub data: Vec<u8>,
    pub lens: Vec<usize>,
    pub head: usize,
    pub count: usize,
    /// Waiting senders (buffer full) or receivers (buffer empty).
    pub queue: WaitQueue,
}

/// `BUFFER_STATUS_TYPE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BufferStatus {
    /// Messages currently stored.
    pub nb_message: usize,
    /// Capacity in messages.
    pub max_nb_message: usize,
    /// Maximum message size in bytes.
    pub max_message_size: usize,
    /// Number of waiting processes (senders or receivers).
    pub waiting_processes: usize,
}

impl Buffer {
    fn push(&mut self, msg: &[u8]) {
        let slot = (self.head + self.count) % self.max_nb;
        let off = slot * self.max_size;
        self.data[off..off + msg.len()].copy_from_slice(msg);
        self.lens[slot] = msg.len();
        self.count += 1;
    }

    fn pop(&mut self, out: &mut [u8]) -> usize {
        let slot = self.head;
        let off = slot * self.max_size;
        let n = self.lens[slot];
        out[..n].copy_from_slice(&self.data[off..off + n]);
        self.head = (self.head + 1) % self.max_nb;
        self.count -= 1;
        n
    }
}

impl Kernel {
    /// Reserves message storage and grows the per-process message scratch
    /// areas (initialisation only).
    pub(crate) fn reserve_messages(
        &mut self,
        bytes: usize,
        max_size: usize,
    ) -> Result<(), ReturnCode> {
        if self.msg_used.saturating_add(bytes) > self.cfg.message_memory {
            return Err(ReturnCode::InvalidConfig);
        }
        self.msg_used += bytes;
        if max_size > self.max_msg {
            self.max_msg = max_size;
            for p in &mut self.procs {
                p.msg.resize(max_size, 0);
            }
        }
        Ok(())
    }

    /// CREATE_BUFFER.
    ///
    /// Errors: `InvalidConfig` (too many buffers, message storage
    /// exhausted), `NoAction` (name exists), `InvalidParam` (message size or
    /// number out of range), `InvalidMode` (NORMAL mode).
    pub fn create_buffer(
        &mut self,
        now: SystemTime,
        caller: Runner,
        name: &Name,
        max_message_size: usize,
        max_nb_message: usize,
        discipline: QueuingDiscipline,
    ) -> Result<BufferId, ReturnCode> {
        self.service(now, |k| {
            let exists = k.buffers.iter().any(|b| name_eq(&b.name, name));
            let bytes = max_message_size.saturating_mul(max_nb_message);
            if k.msg_used.saturating_add(bytes) > k.cfg.message_memory {
                k.caller(caller)?;
                return Err(ReturnCode::InvalidConfig);
            }
            k.check_create(caller, k.buffers.len(), k.cfg.max_buffers, exists)?;
            if !(1..=SYSTEM_LIMIT_MESSAGE_SIZE).contains(&max_message_size)
                || !(1..=SYSTEM_LIMIT_NUMBER_OF_MESSAGES).contains(&max_nb_message)
            {
                return Err(ReturnCode::InvalidParam);
            }
            k.check_create_mode()?;
            k.reserve_messages(bytes, max_message_size)?;
            k.buffers.push(Buffer {
                name: *name,
                max_size: max_message_size,
                max_nb: max_nb_message,
                data: vec![0; bytes],
                lens: vec![0; max_nb_message],
                head: 0,
                count: 0,
                queue: WaitQueue::new(discipline, k.cfg.max_processes),
            });
            Ok(BufferId(k.buffers.len() as u32))
        })
    }

    /// SEND_BUFFER: hands the message to the first waiting receiver, or
    /// queues it, or blocks while the buffer is full.
    ///
    /// Errors: `InvalidParam` (unknown buffer, empty or oversized message,
    /// bad time-out), `InvalidMode` (non-zero time-out while holding the
    /// preemption lock or a mutex; main process that would block),
    /// `NotAvailable` (full and zero time-out). Wake results: `Ok`, `Err(TimedOut)`.
    pub fn send_buffer(
        &mut self,
        now: SystemTime,
        caller: Runner,
        id: BufferId,
        msg: &[u8],
        timeout: SystemTime,
    ) -> Result<CallOutcome, ReturnCode> {
        self.service(now, |k| {
            let b = obj_idx(id.0, k.buffers.len())?;
            if msg.is_empty() || msg.len() > k.buffers[b].max_size {
                return Err(ReturnCode::InvalidParam);
            }
            let (me, t) = k.check_wait(now, caller, timeout)?;
            let buf = &mut k.buffers[b];
            if buf.count == 0 {
                if let Some(r) = buf.queue.pop(&k.procs) {
                    let p = &mut k.procs[r];
                    p.msg[..msg.len()].copy_from_slice(msg);
                    p.msg_len = msg.len();
                    k.wake(r, Ok(()));
                    return Ok(CallOutcome::Done(()));
                }
            }
            if buf.count < buf.max_nb {
                buf.push(msg);
                return Ok(CallOutcome::Done(()));
            }
            if timeout == 0 {
                return Err(ReturnCode::NotAvailable);
            }
            if let Some(i) = me {
                let p = &mut k.procs[i];
                p.msg[..msg.len()].copy_from_slice(msg);
                p.msg_len = msg.len();
            }
            k.block_on(me, ObjRef::BufferSend(b), t)
        })
    }

    /// RECEIVE_BUFFER: copies the oldest message into `out` (which must hold
    /// the buffer's maximum message size) and returns its length; a blocked
    /// sender's message then enters the buffer. When blocked, the message is
    /// fetched with [`Kernel::take_wake_message`].
    ///
    /// Errors: `InvalidParam` (unknown buffer, `out` too small, bad
    /// time-out), `InvalidMode` (as for SEND_BUFFER), `NotAvailable` (empty
    /// and zero time-out). Wake results: `Ok(len)`, `Err(TimedOut)`.
    pub fn receive_buffer(
        &mut self,
        now: SystemTime,
        caller: Runner,
        id: BufferId,
        timeout: SystemTime,
        out: &mut [u8],
    ) -> Result<CallOutcome<usize>, ReturnCode> {
        self.service(now, |k| {
            let b = obj_idx(id.0, k.buffers.len())?;
            if out.len() < k.buffers[b].max_size {
                return Err(ReturnCode::InvalidParam);
            }
            let (me, t) = k.check_wait(now, caller, timeout)?;
            let buf = &mut k.buffers[b];
            if buf.count > 0 {
                let n = buf.pop(out);
                if let Some(s) = buf.queue.pop(&k.procs) {
                    let p = &k.procs[s];
                    buf.push(&p.msg[..p.msg_len]);
                    k.wake(s, Ok(()));
                }
                return Ok(CallOutcome::Done(n));
            }
            if timeout == 0 {
                return Err(ReturnCode::NotAvailable);
            }
            k.block_on(me, ObjRef::BufferRecv(b), t)
        })
    }

    /// GET_BUFFER_ID. Errors: `InvalidConfig` (no such name).
    pub fn get_buffer_id(&self, name: &Name) -> Result<BufferId, ReturnCode> {
        self.buffers
            .iter()
            .position(|b| name_eq(&b.name, name))
            .map(|i| BufferId(i as u32 + 1))
            .ok_or(ReturnCode::InvalidConfig)
    }

    /// GET_BUFFER_STATUS. Errors: `InvalidParam` (unknown buffer).
    pub fn get_buffer_status(&self, id: BufferId) -> Result<BufferStatus, ReturnCode> {
        let b = &self.buffers[obj_idx(id.0, self.buffers.len())?];
        Ok(BufferStatus {
            nb_message: b.count,
            max_nb_message: b.max_nb,
            max_message_size: b.max_size,
            waiting_processes: b.queue.len(),
        })
    }
}
