// SPDX-License-Identifier: MIT OR Apache-2.0
//! Sampling ports (ARINC 653 Part 1, 3.6.2.1) and the Part 2 sampling extensions
//! (READ_UPDATED_SAMPLING_MESSAGE, READ_SAMPLING_MESSAGE_CONDITIONAL,
//! GET_SAMPLING_PORT_CURRENT_STATUS), kept here next to the services they extend because they
//! share their reading and freshness rules.
//!
//! Return codes where the standard leaves a choice (Partita's documented behaviour, see
//! `docs/ports.md`): a stale sampling message is returned with `Validity::Invalid` and
//! NO_ERROR; READ_UPDATED_SAMPLING_MESSAGE on an empty port or an already read message is
//! NO_ACTION (nothing copied); READ_SAMPLING_MESSAGE_CONDITIONAL of a message older than the
//! reference time is NOT_AVAILABLE (nothing copied).

use super::{check_length, direction, now};
use crate::ports::{self, Port, SamplingPort};
use crate::runtime;
use partita_apex_core::{Name, ReturnCode, SystemTime};
use partita_sys::port::SampledMessage;
use std::sync::atomic::Ordering;

pub use super::PortDirection;
pub use partita_abi::{Age, Updated, Validity};

/// A sampling port identifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SamplingPortId(pub i32);

/// `SAMPLING_PORT_STATUS_TYPE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SamplingPortStatus {
    /// Refresh period (ns; -1 infinite).
    pub refresh_period: SystemTime,
    /// Maximum message size.
    pub max_message_size: usize,
    /// Direction.
    pub direction: PortDirection,
    /// Validity of the last message read.
    pub last_msg_validity: Validity,
}

/// `SAMPLING_PORT_CURRENT_STATUS_TYPE` (Part 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SamplingPortCurrentStatus {
    /// Refresh period (ns; -1 infinite).
    pub refresh_period: SystemTime,
    /// Write time of the current message (0 when empty).
    pub time_stamp: SystemTime,
    /// Maximum message size.
    pub max_message_size: usize,
    /// Direction.
    pub direction: PortDirection,
    /// Age of the current message.
    pub message_age: Age,
    /// Whether the current message is new for this port.
    pub updated: Updated,
}

fn sampling(id: SamplingPortId) -> Result<&'static SamplingPort, ReturnCode> {
    match ports::table().get(id.0)? {
        Port::Sampling(p) => Ok(p),
        Port::Queuing(_) => Err(ReturnCode::InvalidParam),
    }
}

/// CREATE_SAMPLING_PORT: only during initialisation (INVALID_MODE); name, size, direction
/// and refresh period must match the configuration (INVALID_CONFIG); NO_ACTION when it was
/// created already.
pub fn create_sampling_port(
    name: &Name,
    max_message_size: usize,
    direction: PortDirection,
    refresh_period: SystemTime,
) -> Result<SamplingPortId, ReturnCode> {
    let id = ports::create_sampling(
        name,
        max_message_size,
        direction == PortDirection::Source,
        refresh_period,
    )?;
    crate::trace::port_created(id, false, name);
    Ok(SamplingPortId(id))
}

/// WRITE_SAMPLING_MESSAGE: replaces the channel's message.
pub fn write_sampling_message(id: SamplingPortId, msg: &[u8]) -> Result<(), ReturnCode> {
    let r = write_sampling(id, msg);
    crate::trace::port_write(id.0, msg.len(), &r);
    r
}

fn write_sampling(id: SamplingPortId, msg: &[u8]) -> Result<(), ReturnCode> {
    let p = sampling(id)?;
    check_length(msg.len(), p.entry.max_message_size)?;
    if !p.entry.source {
        return Err(ReturnCode::InvalidMode);
    }
    let now = now()?;
    let _g = p.lock.lock();
    p.mem.write(msg, now);
    Ok(())
}

/// Reads the current message into `out` (at least the maximum size), or NO_ACTION when empty.
fn read_current(p: &SamplingPort, out: &mut [u8]) -> Result<SampledMessage, ReturnCode> {
    if p.entry.source {
        return Err(ReturnCode::InvalidMode);
    }
    if out.len() < p.entry.max_message_size as usize {
        return Err(ReturnCode::InvalidParam);
    }
    p.mem.read(out).ok_or(ReturnCode::NoAction)
}

/// Marks message `m` read; its validity. A message the writer left inconsistent
/// (`SampledMessage::consistent`: a hostile or corrupt writer) is never valid.
fn consume(p: &SamplingPort, m: &SampledMessage) -> Result<Validity, ReturnCode> {
    let fresh = m.consistent && ports::is_fresh(p, m.time, now()?);
    p.last_read.store(m.number, Ordering::Relaxed);
    p.last_valid.store(fresh, Ordering::Relaxed);
    Ok(if fresh {
        Validity::Valid
    } else {
        Validity::Invalid
    })
}

/// READ_SAMPLING_MESSAGE: copies the latest message into `out` (which must hold the port's
/// maximum size); returns its length and validity. NO_ACTION when nothing was written yet.
pub fn read_sampling_message(
    id: SamplingPortId,
    out: &mut [u8],
) -> Result<(usize, Validity), ReturnCode> {
    let r = (|| {
        let p = sampling(id)?;
        let m = read_current(p, out)?;
        Ok((m.len, consume(p, &m)?))
    })();
    trace_sampled_read(id, &r);
    r
}

/// PORT_READ of a sampling read's outcome.
fn trace_sampled_read(id: SamplingPortId, r: &Result<(usize, Validity), ReturnCode>) {
    let (len, valid) = r
        .as_ref()
        .map_or((0, false), |&(l, v)| (l, v == Validity::Valid));
    crate::trace::port_read(id.0, len, r, valid);
}

/// READ_UPDATED_SAMPLING_MESSAGE (Part 2): like READ_SAMPLING_MESSAGE, but only a message
/// not read before through this port is returned (with [`Updated::NewMessage`]); otherwise
/// NO_ACTION, and `Err` carries nothing (use [`get_sampling_port_current_status`] to tell
/// an empty port from a consumed message).
pub fn read_updated_sampling_message(
    id: SamplingPortId,
    out: &mut [u8],
) -> Result<(usize, Validity), ReturnCode> {
    let r = read_updated(id, out);
    trace_sampled_read(id, &r);
    r
}

fn read_updated(id: SamplingPortId, out: &mut [u8]) -> Result<(usize, Validity), ReturnCode> {
    let p = sampling(id)?;
    // Nothing is copied when there is nothing new.
    if !p.entry.source && p.mem.latest_number() == p.last_read.load(Ordering::Relaxed) {
        return Err(ReturnCode::NoAction);
    }
    let m = read_current(p, out)?;
    if m.number == p.last_read.load(Ordering::Relaxed) {
        return Err(ReturnCode::NoAction);
    }
    Ok((m.len, consume(p, &m)?))
}

/// READ_SAMPLING_MESSAGE_CONDITIONAL (Part 2): returns the latest message and its time stamp
/// only if it was written at or after `ref_time_stamp`; NOT_AVAILABLE otherwise, NO_ACTION
/// when empty.
pub fn read_sampling_message_conditional(
    id: SamplingPortId,
    ref_time_stamp: SystemTime,
    out: &mut [u8],
) -> Result<(usize, SystemTime), ReturnCode> {
    let r = read_conditional(id, ref_time_stamp, out);
    let len = r.as_ref().map_or(0, |&(l, _)| l);
    let valid = r.is_ok() && sampling(id).is_ok_and(|p| p.last_valid.load(Ordering::Relaxed));
    crate::trace::port_read(id.0, len, &r, valid);
    r
}

fn read_conditional(
    id: SamplingPortId,
    ref_time_stamp: SystemTime,
    out: &mut [u8],
) -> Result<(usize, SystemTime), ReturnCode> {
    let p = sampling(id)?;
    let max = p.entry.max_message_size as usize;
    if out.len() < max {
        return Err(ReturnCode::InvalidParam);
    }
    // Read into a scratch area: nothing is copied out for a message that is too old.
    thread_local! {
        static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        if s.len() < max {
            s.resize(max, 0);
        }
        let m = read_current(p, &mut s)?;
        // An inconsistent message has no time stamp to trust.
        if !m.consistent || m.time < ref_time_stamp {
            return Err(ReturnCode::NotAvailable);
        }
        out[..m.len].copy_from_slice(&s[..m.len]);
        consume(p, &m)?;
        Ok((m.len, m.time))
    })
}

/// GET_SAMPLING_PORT_ID: INVALID_CONFIG when no created sampling port has that name.
pub fn get_sampling_port_id(name: &Name) -> Result<SamplingPortId, ReturnCode> {
    runtime::get()?;
    ports::table().id_by_name(name, true).map(SamplingPortId)
}

/// GET_SAMPLING_PORT_STATUS.
pub fn get_sampling_port_status(id: SamplingPortId) -> Result<SamplingPortStatus, ReturnCode> {
    let p = sampling(id)?;
    Ok(SamplingPortStatus {
        refresh_period: p.refresh,
        max_message_size: p.entry.max_message_size as usize,
        direction: direction(p.entry.source),
        last_msg_validity: if p.last_valid.load(Ordering::Relaxed) {
            Validity::Valid
        } else {
            Validity::Invalid
        },
    })
}

/// GET_SAMPLING_PORT_CURRENT_STATUS (Part 2): the state of the channel's current message
/// (for a source port: of the last message it wrote).
pub fn get_sampling_port_current_status(
    id: SamplingPortId,
) -> Result<SamplingPortCurrentStatus, ReturnCode> {
    let p = sampling(id)?;
    let max = p.entry.max_message_size as usize;
    let mut buf = vec![0u8; max];
    let cur = p.mem.read(&mut buf);
    let now = now()?;
    let (time_stamp, message_age, updated) = match cur {
        None => (0, Age::Stale, Updated::EmptyPort),
        Some(m) => (
            m.time,
            if m.consistent && ports::is_fresh(p, m.time, now) {
                Age::Fresh
            } else {
                Age::Stale
            },
            if !p.entry.source && m.number == p.last_read.load(Ordering::Relaxed) {
                Updated::ConsumedMessage
            } else {
                Updated::NewMessage
            },
        ),
    };
    Ok(SamplingPortCurrentStatus {
        refresh_period: p.refresh,
        time_stamp,
        max_message_size: max,
        direction: direction(p.entry.source),
        message_age,
        updated,
    })
}
