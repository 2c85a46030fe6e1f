//! The safe Rust API of the inter-partition port services (ARINC 653 Part 1, 3.6, and the
//! Part 2 sampling extensions). The C binding (`ffi::ports`) is a thin layer over these
//! functions. Every function returns the ARINC 653 return code as the `Err` of a `Result`.
//!
//! Return codes where the standard leaves a choice (Partita's documented behaviour, see
//! `docs/ports.md`): a stale sampling message is returned with `Validity::Invalid` and
//! NO_ERROR; READ_UPDATED_SAMPLING_MESSAGE on an empty port or an already read message is
//! NO_ACTION (nothing copied); READ_SAMPLING_MESSAGE_CONDITIONAL of a message older than the
//! reference time is NOT_AVAILABLE (nothing copied).

use crate::ports::{self, Port, QueuingPort, SamplingPort};
use crate::runtime;
use partita_apex_core::{CallOutcome, Name, QueuingDiscipline, ReturnCode, Runner, SystemTime};
use partita_sys::port::SampledMessage;
use std::sync::atomic::Ordering;

/// Direction of a port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortDirection {
    /// The partition writes.
    Source,
    /// The partition reads.
    Destination,
}

/// `VALIDITY_TYPE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Validity {
    /// Older than the refresh period (or nothing read yet).
    Invalid,
    /// Within the refresh period.
    Valid,
}

/// `UPDATED_TYPE` (Part 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Updated {
    /// Nothing was ever written.
    EmptyPort,
    /// The current message was read before through this port.
    ConsumedMessage,
    /// The current message was not read yet.
    NewMessage,
}

/// `AGE_TYPE` (Part 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Age {
    /// Older than the refresh period.
    Stale,
    /// Within the refresh period.
    Fresh,
}

/// A sampling port identifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SamplingPortId(pub i32);

/// A queuing port identifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct QueuingPortId(pub i32);

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

fn direction(source: bool) -> PortDirection {
    if source {
        PortDirection::Source
    } else {
        PortDirection::Destination
    }
}

fn sampling(id: SamplingPortId) -> Result<&'static SamplingPort, ReturnCode> {
    match ports::table().get(id.0)? {
        Port::Sampling(p) => Ok(p),
        Port::Queuing(_) => Err(ReturnCode::InvalidParam),
    }
}

fn queuing(id: QueuingPortId) -> Result<&'static QueuingPort, ReturnCode> {
    match ports::table().get(id.0)? {
        Port::Queuing(p) => Ok(p),
        Port::Sampling(_) => Err(ReturnCode::InvalidParam),
    }
}

fn now() -> Result<SystemTime, ReturnCode> {
    Ok(runtime::get()?.now())
}

/// Checks the length of a message to write: INVALID_PARAM when empty, INVALID_CONFIG when
/// above the port's maximum.
fn check_length(len: usize, max: u32) -> Result<(), ReturnCode> {
    if len == 0 {
        Err(ReturnCode::InvalidParam)
    } else if len > max as usize {
        Err(ReturnCode::InvalidConfig)
    } else {
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Sampling ports
// ---------------------------------------------------------------------------

/// CREATE_SAMPLING_PORT: only during initialisation (INVALID_MODE); name, size, direction
/// and refresh period must match the configuration (INVALID_CONFIG); NO_ACTION when it was
/// created already.
pub fn create_sampling_port(
    name: &Name,
    max_message_size: usize,
    direction: PortDirection,
    refresh_period: SystemTime,
) -> Result<SamplingPortId, ReturnCode> {
    ports::create_sampling(
        name,
        max_message_size,
        direction == PortDirection::Source,
        refresh_period,
    )
    .map(SamplingPortId)
}

/// WRITE_SAMPLING_MESSAGE: replaces the channel's message.
pub fn write_sampling_message(id: SamplingPortId, msg: &[u8]) -> Result<(), ReturnCode> {
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
    let p = sampling(id)?;
    let m = read_current(p, out)?;
    Ok((m.len, consume(p, &m)?))
}

/// READ_UPDATED_SAMPLING_MESSAGE (Part 2): like READ_SAMPLING_MESSAGE, but only a message
/// not read before through this port is returned (with [`Updated::NewMessage`]); otherwise
/// NO_ACTION, and `Err` carries nothing (use [`get_sampling_port_current_status`] to tell
/// an empty port from a consumed message).
pub fn read_updated_sampling_message(
    id: SamplingPortId,
    out: &mut [u8],
) -> Result<(usize, Validity), ReturnCode> {
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

// ---------------------------------------------------------------------------
// Queuing ports
// ---------------------------------------------------------------------------

/// CREATE_QUEUING_PORT: as CREATE_SAMPLING_PORT; the number of messages must match too.
pub fn create_queuing_port(
    name: &Name,
    max_message_size: usize,
    max_nb_message: usize,
    direction: PortDirection,
    discipline: QueuingDiscipline,
) -> Result<QueuingPortId, ReturnCode> {
    ports::create_queuing(
        name,
        max_message_size,
        max_nb_message,
        direction == PortDirection::Source,
        discipline,
    )
    .map(QueuingPortId)
}

/// SEND_QUEUING_MESSAGE: queues `msg`; on a full queue waits up to `timeout` (0:
/// NOT_AVAILABLE at once; INFINITE_TIME_VALUE: no limit), TIMED_OUT when it expires.
pub fn send_queuing_message(
    id: QueuingPortId,
    msg: &[u8],
    timeout: SystemTime,
) -> Result<(), ReturnCode> {
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
