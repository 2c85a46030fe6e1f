// SPDX-License-Identifier: MIT OR Apache-2.0
//! Queuing ports (ARINC 653 Part 1, 3.6.2.2). A queue overflow reported by the other end is
//! returned with the next message received ([`Received::overflow`]).

use super::{check_length, direction};
use crate::ports::{self, Port, QueuingPort};
use crate::runtime;
use partita_apex_core::{CallOutcome, Name, ReturnCode, Runner, SystemTime};
use std::sync::atomic::Ordering;

pub use super::PortDirection;
pub use partita_apex_core::QueuingDiscipline;

/// A queuing port identifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct QueuingPortId(pub i32);

/// `QUEUING_PORT_STATUS_TYPE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueuingPortStatus {
    /// Messages in the queue.
    pub nb_message: usize,
    /// Capacity.
    pub max_nb_message: usize,
    /// Maximum message size.
    pub max_message_size: usize,
    /// Direction.
    pub direction: PortDirection,
    /// Processes of this partition waiting on the port.
    pub waiting_processes: usize,
}

/// A message received from a queuing port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Received {
    /// Its length.
    pub len: usize,
    /// The queue overflowed before it (messages were discarded): the C binding returns
    /// INVALID_CONFIG with the message.
    pub overflow: bool,
}

fn queuing(id: QueuingPortId) -> Result<&'static QueuingPort, ReturnCode> {
    match ports::table().get(id.0)? {
        Port::Queuing(p) => Ok(p),
        Port::Sampling(_) => Err(ReturnCode::InvalidParam),
    }
}

/// CREATE_QUEUING_PORT: as CREATE_SAMPLING_PORT; the number of messages must match too.
pub fn create_queuing_port(
    name: &Name,
    max_message_size: usize,
    max_nb_message: usize,
    direction: PortDirection,
    discipline: QueuingDiscipline,
) -> Result<QueuingPortId, ReturnCode> {
    let id = ports::create_queuing(
        name,
        max_message_size,
        max_nb_message,
        direction == PortDirection::Source,
        discipline,
    )?;
    crate::trace::port_created(id, true, name);
    Ok(QueuingPortId(id))
}

/// SEND_QUEUING_MESSAGE: queues `msg`; on a full queue waits up to `timeout` (0:
/// NOT_AVAILABLE at once; INFINITE_TIME_VALUE: no limit), TIMED_OUT when it expires.
pub fn send_queuing_message(
    id: QueuingPortId,
    msg: &[u8],
    timeout: SystemTime,
) -> Result<(), ReturnCode> {
    let r = send(id, msg, timeout);
    crate::trace::port_write(id.0, msg.len(), &r);
    r
}

fn send(id: QueuingPortId, msg: &[u8], timeout: SystemTime) -> Result<(), ReturnCode> {
    let p = queuing(id)?;
    check_length(msg.len(), p.entry.max_message_size)?;
    if !p.entry.source {
        return Err(ReturnCode::InvalidMode);
    }
    if timeout < 0 && timeout != partita_apex_core::INFINITE_TIME_VALUE {
        return Err(ReturnCode::InvalidParam);
    }
    let rt = runtime::get()?;
    // Fast path: nobody of ours waits before us, and there is room.
    if p.waiting.load(Ordering::Acquire) == 0 && rt.me().is_some() && p.push(msg) {
        return Ok(());
    }
    rt.call_blocking(|k, now, me| {
        p.pump(k, now);
        if k.port_waiting(p.waiters) == 0 {
            p.mem.set_tx_waiting(true);
            if p.push(msg) {
                p.mem.set_tx_waiting(false);
                return Ok(CallOutcome::Done(()));
            }
        }
        let r = k.port_block_send(now, me, p.waiters, msg, timeout);
        p.pump(k, now);
        if matches!(r, Ok(CallOutcome::Blocked)) {
            ports::table().wake_port_thread();
        }
        r
    })
}

/// RECEIVE_QUEUING_MESSAGE: moves the oldest message into `out` (which must hold the port's
/// maximum size); on an empty queue waits up to `timeout` (0: NOT_AVAILABLE at once).
pub fn receive_queuing_message(
    id: QueuingPortId,
    timeout: SystemTime,
    out: &mut [u8],
) -> Result<Received, ReturnCode> {
    let r = receive(id, timeout, out);
    crate::trace::port_read(id.0, r.as_ref().map_or(0, |m| m.len), &r, false);
    r
}

fn receive(id: QueuingPortId, timeout: SystemTime, out: &mut [u8]) -> Result<Received, ReturnCode> {
    let p = queuing(id)?;
    if p.entry.source {
        return Err(ReturnCode::InvalidMode);
    }
    if timeout < 0 && timeout != partita_apex_core::INFINITE_TIME_VALUE {
        return Err(ReturnCode::InvalidParam);
    }
    if out.len() < p.entry.max_message_size as usize {
        return Err(ReturnCode::InvalidParam);
    }
    let rt = runtime::get()?;
    if p.waiting.load(Ordering::Acquire) == 0 && rt.me().is_some() {
        if let Some(m) = p.pop(out) {
            return Ok(Received {
                len: m.len,
                overflow: m.overflow,
            });
        }
    }
    let mut overflow = false;
    let len = rt.call_blocking_message(out, |k, now, me, out| {
        p.pump(k, now);
        if k.port_waiting(p.waiters) == 0 {
            p.mem.set_rx_waiting(true);
            if let Some(m) = p.pop(out) {
                p.mem.set_rx_waiting(false);
                overflow = m.overflow;
                return Ok(CallOutcome::Done(m.len));
            }
        }
        let r = k.port_block_receive(now, me, p.waiters, timeout);
        p.pump(k, now);
        if matches!(r, Ok(CallOutcome::Blocked)) {
            ports::table().wake_port_thread();
        }
        r
    })?;
    if !overflow {
        if let Some(Runner::Process(pid)) = rt.me() {
            overflow = rt.lock().take_port_overflow(p.waiters, pid);
        }
    }
    Ok(Received { len, overflow })
}

/// GET_QUEUING_PORT_ID: INVALID_CONFIG when no created queuing port has that name.
pub fn get_queuing_port_id(name: &Name) -> Result<QueuingPortId, ReturnCode> {
    runtime::get()?;
    ports::table().id_by_name(name, false).map(QueuingPortId)
}

/// GET_QUEUING_PORT_STATUS.
pub fn get_queuing_port_status(id: QueuingPortId) -> Result<QueuingPortStatus, ReturnCode> {
    let p = queuing(id)?;
    let waiting = runtime::get()?.lock().port_waiting(p.waiters);
    Ok(QueuingPortStatus {
        nb_message: p.mem.len(),
        max_nb_message: p.entry.capacity as usize,
        max_message_size: p.entry.max_message_size as usize,
        direction: direction(p.entry.source),
        waiting_processes: waiting,
    })
}

/// CLEAR_QUEUING_PORT: discards the messages of a destination port (INVALID_MODE for a
/// source port).
pub fn clear_queuing_port(id: QueuingPortId) -> Result<(), ReturnCode> {
    let p = queuing(id)?;
    if p.entry.source {
        return Err(ReturnCode::InvalidMode);
    }
    p.clear();
    Ok(())
}
