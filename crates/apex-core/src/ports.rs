// SPDX-License-Identifier: MIT OR Apache-2.0
//! Waiting processes of inter-partition ports (ARINC 653 Part 1, 3.6.2.2).
//!
//! The messages of a queuing port live in shared memory outside the kernel
//! (the runtime moves them); the kernel only keeps the processes that wait
//! on a port: senders blocked on a full queue, receivers blocked on an empty
//! one, served in FIFO or PRIORITY order. When the peer partition moves
//! data, the runtime asks for the head waiter ([`Kernel::port_head_message`]
//! / [`Kernel::port_waiting`]), moves its message, and completes it
//! ([`Kernel::port_complete_send`], [`Kernel::port_complete_receive`]).
//! A waiter whose time-out expires first leaves the queue with `TimedOut`,
//! like any other object wait.

use crate::kernel::Kernel;
use crate::queue::{ObjRef, WaitQueue};
use crate::types::*;
use alloc::vec::Vec;

/// Identifier of a port's waiting queue (1-based, in creation order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PortWaitId(pub u32);

/// Which operation the processes of a port queue wait to complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PortWaitKind {
    /// Senders waiting for room (source queuing port).
    Send,
    /// Receivers waiting for a message (destination queuing port).
    Receive,
}

#[derive(Debug, Clone)]
pub(crate) struct PortWaiters {
    pub kind: PortWaitKind,
    pub queue: WaitQueue,
    /// Processes (indices) whose delivered message came with an overflow
    /// indication.
    pub overflowed: Vec<usize>,
}

impl Kernel {
    fn port_idx(&self, id: PortWaitId) -> Result<usize, ReturnCode> {
        let i = (id.0 as usize).wrapping_sub(1);
        if i < self.ports.len() {
            Ok(i)
        } else {
            Err(ReturnCode::InvalidParam)
        }
    }

    /// Creates the waiting queue of a port whose waiters complete `kind`
    /// operations, served per `discipline`. The message scratch of every
    /// process grows to `max_message_size` (ports do not use the partition's
    /// buffer memory: their messages live in the channel).
    pub fn create_port_waiters(
        &mut self,
        kind: PortWaitKind,
        discipline: QueuingDiscipline,
        max_message_size: usize,
    ) -> PortWaitId {
        if max_message_size > self.max_msg {
            self.max_msg = max_message_size;
            for p in &mut self.procs {
                p.msg.resize(max_message_size, 0);
            }
        }
        self.ports.push(PortWaiters {
            kind,
            queue: WaitQueue::new(discipline, self.cfg.max_processes),
            overflowed: Vec::new(),
        });
        PortWaitId(self.ports.len() as u32)
    }

    /// Blocks the caller as a sender on port `id` (whose queue is full, or
    /// has earlier senders waiting) with `msg`, until room is made for it or
    /// `timeout` expires.
    ///
    /// Errors: `InvalidParam` (unknown queue, bad time-out, message longer
    /// than the scratch), `NotAvailable` (zero time-out), `InvalidMode` (the
    /// caller may not block: main process, preemption lock, mutex owner,
    /// error handler). Wake results: `Ok`, `Err(TimedOut)`.
    pub fn port_block_send(
        &mut self,
        now: SystemTime,
        caller: Runner,
        id: PortWaitId,
        msg: &[u8],
        timeout: SystemTime,
    ) -> Result<CallOutcome, ReturnCode> {
        self.service(now, |k| {
            let q = k.port_idx(id)?;
            if msg.len() > k.max_msg || k.ports[q].kind != PortWaitKind::Send {
                return Err(ReturnCode::InvalidParam);
            }
            let (me, t) = k.check_wait(now, caller, timeout)?;
            if timeout == 0 {
                return Err(ReturnCode::NotAvailable);
            }
            let i = me.ok_or(ReturnCode::InvalidMode)?;
            let p = &mut k.procs[i];
            p.msg[..msg.len()].copy_from_slice(msg);
            p.msg_len = msg.len();
            k.block_on(me, ObjRef::Port(q), t)
        })
    }

    /// Blocks the caller as a receiver on port `id` until a message is
    /// delivered to it or `timeout` expires; the message is then fetched with
    /// [`Kernel::take_wake_message`] (and the overflow indication with
    /// [`Kernel::take_port_overflow`]).
    ///
    /// Errors: as [`Kernel::port_block_send`]. Wake results: `Ok(len)`,
    /// `Err(TimedOut)`.
    pub fn port_block_receive(
        &mut self,
        now: SystemTime,
        caller: Runner,
        id: PortWaitId,
        timeout: SystemTime,
    ) -> Result<CallOutcome<usize>, ReturnCode> {
        self.service(now, |k| {
            let q = k.port_idx(id)?;
            if k.ports[q].kind != PortWaitKind::Receive {
                return Err(ReturnCode::InvalidParam);
            }
            let (me, t) = k.check_wait(now, caller, timeout)?;
            if timeout == 0 {
                return Err(ReturnCode::NotAvailable);
            }
            k.block_on(me, ObjRef::Port(q), t)
        })
    }

    /// Number of processes waiting on port `id` (0 for an unknown id).
    pub fn port_waiting(&self, id: PortWaitId) -> usize {
        self.port_idx(id).map_or(0, |q| self.ports[q].queue.len())
    }

    fn port_head(&self, q: usize) -> Option<usize> {
        self.ports[q].queue.peek(&self.procs)
    }

    /// The message of the sender to serve next on port `id`, if any.
    pub fn port_head_message(&self, id: PortWaitId) -> Option<&[u8]> {
        let q = self.port_idx(id).ok()?;
        if self.ports[q].kind != PortWaitKind::Send {
            return None;
        }
        let p = &self.procs[self.port_head(q)?];
        Some(&p.msg[..p.msg_len])
    }

    /// The head sender's message was queued: it leaves the queue and becomes
    /// READY with `Ok`. Returns whether there was one.
    pub fn port_complete_send(&mut self, now: SystemTime, id: PortWaitId) -> bool {
        self.service(now, |k| {
            let Ok(q) = k.port_idx(id) else { return false };
            if k.ports[q].kind != PortWaitKind::Send {
                return false;
            }
            match k.ports[q].queue.pop(&k.procs) {
                Some(i) => {
                    k.wake(i, Ok(()));
                    true
                }
                None => false,
            }
        })
    }

    /// Delivers `msg` to the head receiver of port `id`, which becomes READY
    /// (`overflow`: the queue overflowed before this message, reported by
    /// [`Kernel::take_port_overflow`]). Returns whether there was a receiver;
    /// the message must not be longer than the port's maximum size.
    pub fn port_complete_receive(
        &mut self,
        now: SystemTime,
        id: PortWaitId,
        msg: &[u8],
        overflow: bool,
    ) -> bool {
        self.service(now, |k| {
            let Ok(q) = k.port_idx(id) else { return false };
            if k.ports[q].kind != PortWaitKind::Receive || msg.len() > k.max_msg {
                return false;
            }
            match k.ports[q].queue.pop(&k.procs) {
                Some(i) => {
                    let p = &mut k.procs[i];
                    p.msg[..msg.len()].copy_from_slice(msg);
                    p.msg_len = msg.len();
                    k.ports[q].overflowed.retain(|&o| o != i);
                    if overflow {
                        k.ports[q].overflowed.push(i);
                    }
                    k.wake(i, Ok(()));
                    true
                }
                None => false,
            }
        })
    }

    /// Whether the message `pid` received after waiting on port `id` came
    /// with an overflow indication (consumed).
    pub fn take_port_overflow(&mut self, id: PortWaitId, pid: ProcessId) -> bool {
        let (Ok(q), Ok(i)) = (self.port_idx(id), self.pidx(pid)) else {
            return false;
        };
        let before = self.ports[q].overflowed.len();
        self.ports[q].overflowed.retain(|&o| o != i);
        before != self.ports[q].overflowed.len()
    }
}
