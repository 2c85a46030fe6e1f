//! Sampling and queuing port services (ARINC 653 Part 1, 3.6; Part 2 sampling extensions).

use super::*;
use crate::ports_api::{
    self as ports, Age, PortDirection, QueuingPortId, SamplingPortId, Updated, Validity,
};

fn direction_in(d: PortDirectionType) -> Result<PortDirection, ReturnCode> {
    match d {
        SOURCE => Ok(PortDirection::Source),
        DESTINATION => Ok(PortDirection::Destination),
        _ => Err(ReturnCode::InvalidConfig),
    }
}

fn direction_out(d: PortDirection) -> PortDirectionType {
    match d {
        PortDirection::Source => SOURCE,
        PortDirection::Destination => DESTINATION,
    }
}

fn validity_out(v: Validity) -> ValidityType {
    match v {
        Validity::Valid => VALID,
        Validity::Invalid => INVALID,
    }
}

fn size_in(v: MessageSizeType) -> Result<usize, ReturnCode> {
    usize::try_from(v).map_err(|_| ReturnCode::InvalidConfig)
}

/// A message to write or send: INVALID_PARAM for a non-positive length or a null address,
/// INVALID_CONFIG above the system limit (the port's own maximum is checked by the service).
fn port_message_in<'a>(
    addr: MessageAddrType,
    length: MessageSizeType,
) -> Result<&'a [u8], ReturnCode> {
    if length <= 0 {
        return Err(ReturnCode::InvalidParam);
    }
    if length > SYSTEM_LIMIT_MESSAGE_SIZE as MessageSizeType {
        return Err(ReturnCode::InvalidConfig);
    }
    message_in(addr, length)
}

/// CREATE_SAMPLING_PORT.
#[no_mangle]
pub extern "C" fn CREATE_SAMPLING_PORT(
    sampling_port_name: *const c_char,
    max_message_size: MessageSizeType,
    port_direction: PortDirectionType,
    refresh_period: SystemTimeType,
    sampling_port_id: *mut SamplingPortIdType,
    return_code: *mut ReturnCodeType,
) {
    let r = name_in(sampling_port_name).and_then(|n| {
        ports::create_sampling_port(
            &n,
            size_in(max_message_size)?,
            direction_in(port_direction)?,
            refresh_period,
        )
    });
    put_out(sampling_port_id, return_code, r, |id| id.0);
}

/// WRITE_SAMPLING_MESSAGE.
#[no_mangle]
pub extern "C" fn WRITE_SAMPLING_MESSAGE(
    sampling_port_id: SamplingPortIdType,
    message_addr: MessageAddrType,
    length: MessageSizeType,
    return_code: *mut ReturnCodeType,
) {
    let r = port_message_in(message_addr, length)
        .and_then(|m| ports::write_sampling_message(SamplingPortId(sampling_port_id), m));
    put_rc(return_code, r);
}

/// The receiving area of a port read (the port's MAX_MESSAGE_SIZE bytes).
fn sampling_out<'a>(
    id: SamplingPortIdType,
    message_addr: MessageAddrType,
) -> Result<(SamplingPortId, &'a mut [u8]), ReturnCode> {
    let id = SamplingPortId(id);
    let max = ports::get_sampling_port_status(id)?.max_message_size;
    Ok((id, message_out(message_addr, max)?))
}

/// READ_SAMPLING_MESSAGE: MESSAGE_ADDR must hold the port's MAX_MESSAGE_SIZE bytes.
#[no_mangle]
pub extern "C" fn READ_SAMPLING_MESSAGE(
    sampling_port_id: SamplingPortIdType,
    message_addr: MessageAddrType,
    length: *mut MessageSizeType,
    validity: *mut ValidityType,
    return_code: *mut ReturnCodeType,
) {
    let r = sampling_out(sampling_port_id, message_addr)
        .and_then(|(id, out)| ports::read_sampling_message(id, out));
    match r {
        Ok((n, v)) => {
            put(length, n as MessageSizeType);
            put(validity, validity_out(v));
            put_rc(return_code, Ok(()));
        }
        Err(e) => {
            if e == ReturnCode::NoAction {
                put(length, 0);
                put(validity, INVALID);
            }
            put_rc(return_code, Err(e));
        }
    }
}

/// READ_UPDATED_SAMPLING_MESSAGE (Part 2): copies the current message only if it was not
/// read before through this port (UPDATED = NEW_MESSAGE); otherwise NO_ACTION with LENGTH 0
/// and UPDATED = EMPTY_PORT or CONSUMED_MESSAGE.
#[no_mangle]
pub extern "C" fn READ_UPDATED_SAMPLING_MESSAGE(
    sampling_port_id: SamplingPortIdType,
    message_addr: MessageAddrType,
    length: *mut MessageSizeType,
    updated: *mut UpdatedType,
    return_code: *mut ReturnCodeType,
) {
    let r = sampling_out(sampling_port_id, message_addr)
        .and_then(|(id, out)| ports::read_updated_sampling_message(id, out));
    match r {
        Ok((n, _)) => {
            put(length, n as MessageSizeType);
            put(updated, NEW_MESSAGE);
            put_rc(return_code, Ok(()));
        }
        Err(ReturnCode::NoAction) => {
            let u = ports::get_sampling_port_current_status(SamplingPortId(sampling_port_id))
                .map_or(EMPTY_PORT, |s| match s.updated {
                    Updated::EmptyPort => EMPTY_PORT,
                    _ => CONSUMED_MESSAGE,
                });
            put(length, 0);
            put(updated, u);
            put_rc(return_code, Err(ReturnCode::NoAction));
        }
        Err(e) => put_rc(return_code, Err(e)),
    }
}

/// READ_SAMPLING_MESSAGE_CONDITIONAL (Part 2): copies the current message only if it was
/// written at or after REF_TIME_STAMP (else NOT_AVAILABLE); TIME_STAMP is its write time.
#[no_mangle]
pub extern "C" fn READ_SAMPLING_MESSAGE_CONDITIONAL(
    sampling_port_id: SamplingPortIdType,
    ref_time_stamp: SystemTimeType,
    message_addr: MessageAddrType,
    length: *mut MessageSizeType,
    time_stamp: *mut SystemTimeType,
    return_code: *mut ReturnCodeType,
) {
    let r = sampling_out(sampling_port_id, message_addr)
        .and_then(|(id, out)| ports::read_sampling_message_conditional(id, ref_time_stamp, out));
    match r {
        Ok((n, t)) => {
            put(length, n as MessageSizeType);
            put(time_stamp, t);
            put_rc(return_code, Ok(()));
        }
        Err(e) => {
            if matches!(e, ReturnCode::NoAction | ReturnCode::NotAvailable) {
                put(length, 0);
            }
            put_rc(return_code, Err(e));
        }
    }
}

/// GET_SAMPLING_PORT_ID.
#[no_mangle]
pub extern "C" fn GET_SAMPLING_PORT_ID(
    sampling_port_name: *const c_char,
    sampling_port_id: *mut SamplingPortIdType,
    return_code: *mut ReturnCodeType,
) {
    let r = name_in(sampling_port_name).and_then(|n| ports::get_sampling_port_id(&n));
    put_out(sampling_port_id, return_code, r, |id| id.0);
}

/// GET_SAMPLING_PORT_STATUS.
#[no_mangle]
pub extern "C" fn GET_SAMPLING_PORT_STATUS(
    sampling_port_id: SamplingPortIdType,
    sampling_port_status: *mut SamplingPortStatusType,
    return_code: *mut ReturnCodeType,
) {
    let r = ports::get_sampling_port_status(SamplingPortId(sampling_port_id));
    put_out(sampling_port_status, return_code, r, |s| {
        SamplingPortStatusType {
            refresh_period: s.refresh_period,
            max_message_size: s.max_message_size as MessageSizeType,
            port_direction: direction_out(s.direction),
            last_msg_validity: validity_out(s.last_msg_validity),
        }
    });
}

/// GET_SAMPLING_PORT_CURRENT_STATUS (Part 2).
#[no_mangle]
pub extern "C" fn GET_SAMPLING_PORT_CURRENT_STATUS(
    sampling_port_id: SamplingPortIdType,
    sampling_port_current_status: *mut SamplingPortCurrentStatusType,
    return_code: *mut ReturnCodeType,
) {
    let r = ports::get_sampling_port_current_status(SamplingPortId(sampling_port_id));
    put_out(sampling_port_current_status, return_code, r, |s| {
        SamplingPortCurrentStatusType {
            refresh_period: s.refresh_period,
            time_stamp: s.time_stamp,
            max_message_size: s.max_message_size as MessageSizeType,
            port_direction: direction_out(s.direction),
            message_age: match s.message_age {
                Age::Fresh => FRESH,
                Age::Stale => STALE,
            },
            updated: match s.updated {
                Updated::EmptyPort => EMPTY_PORT,
                Updated::ConsumedMessage => CONSUMED_MESSAGE,
                Updated::NewMessage => NEW_MESSAGE,
            },
        }
    });
}

/// CREATE_QUEUING_PORT.
#[no_mangle]
pub extern "C" fn CREATE_QUEUING_PORT(
    queuing_port_name: *const c_char,
    max_message_size: MessageSizeType,
    max_nb_message: MessageRangeType,
    port_direction: PortDirectionType,
    queuing_discipline: QueuingDisciplineType,
    queuing_port_id: *mut QueuingPortIdType,
    return_code: *mut ReturnCodeType,
) {
    let r = name_in(queuing_port_name).and_then(|n| {
        let d = discipline(queuing_discipline).map_err(|_| ReturnCode::InvalidConfig)?;
        let nb = usize::try_from(max_nb_message).map_err(|_| ReturnCode::InvalidConfig)?;
        ports::create_queuing_port(
            &n,
            size_in(max_message_size)?,
            nb,
            direction_in(port_direction)?,
            d,
        )
    });
    put_out(queuing_port_id, return_code, r, |id| id.0);
}

/// SEND_QUEUING_MESSAGE.
#[no_mangle]
pub extern "C" fn SEND_QUEUING_MESSAGE(
    queuing_port_id: QueuingPortIdType,
    message_addr: MessageAddrType,
    length: MessageSizeType,
    time_out: SystemTimeType,
    return_code: *mut ReturnCodeType,
) {
    let r = port_message_in(message_addr, length)
        .and_then(|m| ports::send_queuing_message(QueuingPortId(queuing_port_id), m, time_out));
    put_rc(return_code, r);
}

/// RECEIVE_QUEUING_MESSAGE: MESSAGE_ADDR must hold the port's MAX_MESSAGE_SIZE bytes. An
/// overflow of the queue before the message is reported as INVALID_CONFIG with the message.
#[no_mangle]
pub extern "C" fn RECEIVE_QUEUING_MESSAGE(
    queuing_port_id: QueuingPortIdType,
    time_out: SystemTimeType,
    message_addr: MessageAddrType,
    length: *mut MessageSizeType,
    return_code: *mut ReturnCodeType,
) {
    let id = QueuingPortId(queuing_port_id);
    let r = ports::get_queuing_port_status(id).and_then(|s| {
        let out = message_out(message_addr, s.max_message_size)?;
        ports::receive_queuing_message(id, time_out, out)
    });
    match r {
        Ok(m) => {
            put(length, m.len as MessageSizeType);
            put_rc(
                return_code,
                if m.overflow {
                    Err(ReturnCode::InvalidConfig)
                } else {
                    Ok(())
                },
            );
        }
        Err(e) => {
            if matches!(e, ReturnCode::NotAvailable | ReturnCode::TimedOut) {
                put(length, 0);
            }
            put_rc(return_code, Err(e));
        }
    }
}

/// GET_QUEUING_PORT_ID.
#[no_mangle]
pub extern "C" fn GET_QUEUING_PORT_ID(
    queuing_port_name: *const c_char,
    queuing_port_id: *mut QueuingPortIdType,
    return_code: *mut ReturnCodeType,
) {
    let r = name_in(queuing_port_name).and_then(|n| ports::get_queuing_port_id(&n));
    put_out(queuing_port_id, return_code, r, |id| id.0);
}

/// GET_QUEUING_PORT_STATUS.
#[no_mangle]
pub extern "C" fn GET_QUEUING_PORT_STATUS(
    queuing_port_id: QueuingPortIdType,
    queuing_port_status: *mut QueuingPortStatusType,
    return_code: *mut ReturnCodeType,
) {
    let r = ports::get_queuing_port_status(QueuingPortId(queuing_port_id));
    put_out(queuing_port_status, return_code, r, |s| {
        QueuingPortStatusType {
            nb_message: s.nb_message as MessageRangeType,
            max_nb_message: s.max_nb_message as MessageRangeType,
            max_message_size: s.max_message_size as MessageSizeType,
            port_direction: direction_out(s.direction),
            waiting_processes: s.waiting_processes as WaitingRangeType,
        }
    });
}

/// CLEAR_QUEUING_PORT.
#[no_mangle]
pub extern "C" fn CLEAR_QUEUING_PORT(
    queuing_port_id: QueuingPortIdType,
    return_code: *mut ReturnCodeType,
) {
    put_rc(
        return_code,
        ports::clear_queuing_port(QueuingPortId(queuing_port_id)),
    );
}
