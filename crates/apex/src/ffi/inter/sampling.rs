// SPDX-License-Identifier: MIT OR Apache-2.0
//! Sampling port services (ARINC 653 Part 1, 3.6.2.1) and the Part 2 sampling extensions.

use super::{direction_in, direction_out, port_message_in, size_in};
use crate::apex::inter::sampling::{self, SamplingPortId, Updated, Validity};
use crate::ffi::*;

fn validity_out(v: Validity) -> ValidityType {
    v.raw()
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
    crate::trace::apex_call(ApexService::CreateSamplingPort, || {
        let r = name_in(sampling_port_name).and_then(|n| {
            sampling::create_sampling_port(
                &n,
                size_in(max_message_size)?,
                direction_in(port_direction)?,
                refresh_period,
            )
        });
        put_out(sampling_port_id, return_code, r, |id| id.0);
    })
}

/// WRITE_SAMPLING_MESSAGE.
#[no_mangle]
pub extern "C" fn WRITE_SAMPLING_MESSAGE(
    sampling_port_id: SamplingPortIdType,
    message_addr: MessageAddrType,
    length: MessageSizeType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::WriteSamplingMessage, || {
        let r = port_message_in(message_addr, length)
            .and_then(|m| sampling::write_sampling_message(SamplingPortId(sampling_port_id), m));
        put_rc(return_code, r);
    })
}

/// The receiving area of a port read (the port's MAX_MESSAGE_SIZE bytes).
fn sampling_out<'a>(
    id: SamplingPortIdType,
    message_addr: MessageAddrType,
) -> Result<(SamplingPortId, &'a mut [u8]), ReturnCode> {
    let id = SamplingPortId(id);
    let max = sampling::get_sampling_port_status(id)?.max_message_size;
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
    crate::trace::apex_call(ApexService::ReadSamplingMessage, || {
        let r = sampling_out(sampling_port_id, message_addr)
            .and_then(|(id, out)| sampling::read_sampling_message(id, out));
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
    })
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
    crate::trace::apex_call(ApexService::ReadUpdatedSamplingMessage, || {
        let r = sampling_out(sampling_port_id, message_addr)
            .and_then(|(id, out)| sampling::read_updated_sampling_message(id, out));
        match r {
            Ok((n, _)) => {
                put(length, n as MessageSizeType);
                put(updated, NEW_MESSAGE);
                put_rc(return_code, Ok(()));
            }
            Err(ReturnCode::NoAction) => {
                let u =
                    sampling::get_sampling_port_current_status(SamplingPortId(sampling_port_id))
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
    })
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
    crate::trace::apex_call(ApexService::ReadSamplingMessageConditional, || {
        let r = sampling_out(sampling_port_id, message_addr).and_then(|(id, out)| {
            sampling::read_sampling_message_conditional(id, ref_time_stamp, out)
        });
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
    })
}

/// GET_SAMPLING_PORT_ID.
#[no_mangle]
pub extern "C" fn GET_SAMPLING_PORT_ID(
    sampling_port_name: *const c_char,
    sampling_port_id: *mut SamplingPortIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetSamplingPortId, || {
        let r = name_in(sampling_port_name).and_then(|n| sampling::get_sampling_port_id(&n));
        put_out(sampling_port_id, return_code, r, |id| id.0);
    })
}

/// GET_SAMPLING_PORT_STATUS.
#[no_mangle]
pub extern "C" fn GET_SAMPLING_PORT_STATUS(
    sampling_port_id: SamplingPortIdType,
    sampling_port_status: *mut SamplingPortStatusType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetSamplingPortStatus, || {
        let r = sampling::get_sampling_port_status(SamplingPortId(sampling_port_id));
        put_out(sampling_port_status, return_code, r, |s| {
            SamplingPortStatusType {
                refresh_period: s.refresh_period,
                max_message_size: s.max_message_size as MessageSizeType,
                port_direction: direction_out(s.direction),
                last_msg_validity: validity_out(s.last_msg_validity),
            }
        });
    })
}

/// GET_SAMPLING_PORT_CURRENT_STATUS (Part 2).
#[no_mangle]
pub extern "C" fn GET_SAMPLING_PORT_CURRENT_STATUS(
    sampling_port_id: SamplingPortIdType,
    sampling_port_current_status: *mut SamplingPortCurrentStatusType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetSamplingPortCurrentStatus, || {
        let r = sampling::get_sampling_port_current_status(SamplingPortId(sampling_port_id));
        put_out(sampling_port_current_status, return_code, r, |s| {
            SamplingPortCurrentStatusType {
                refresh_period: s.refresh_period,
                time_stamp: s.time_stamp,
                max_message_size: s.max_message_size as MessageSizeType,
                port_direction: direction_out(s.direction),
                message_age: s.message_age.raw(),
                updated: s.updated.raw(),
            }
        });
    })
}
