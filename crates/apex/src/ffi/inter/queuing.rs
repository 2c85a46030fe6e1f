// SPDX-License-Identifier: MIT OR Apache-2.0
//! Queuing port services (ARINC 653 Part 1, 3.6.2.2).

use super::{direction_in, direction_out, port_message_in, size_in};
use crate::apex::inter::queuing::{self, QueuingPortId};
use crate::ffi::*;

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
    crate::trace::apex_call(ApexService::CreateQueuingPort, || {
        let r = name_in(queuing_port_name).and_then(|n| {
            let d = discipline(queuing_discipline).map_err(|_| ReturnCode::InvalidConfig)?;
            let nb = usize::try_from(max_nb_message).map_err(|_| ReturnCode::InvalidConfig)?;
            queuing::create_queuing_port(
                &n,
                size_in(max_message_size)?,
                nb,
                direction_in(port_direction)?,
                d,
            )
        });
        put_out(queuing_port_id, return_code, r, |id| id.0);
    })
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
    crate::trace::apex_call(ApexService::SendQueuingMessage, || {
        let r = port_message_in(message_addr, length).and_then(|m| {
            queuing::send_queuing_message(QueuingPortId(queuing_port_id), m, time_out)
        });
        put_rc(return_code, r);
    })
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
    crate::trace::apex_call(ApexService::ReceiveQueuingMessage, || {
        let id = QueuingPortId(queuing_port_id);
        let r = queuing::get_queuing_port_status(id).and_then(|s| {
            let out = message_out(message_addr, s.max_message_size)?;
            queuing::receive_queuing_message(id, time_out, out)
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
    })
}

/// GET_QUEUING_PORT_ID.
#[no_mangle]
pub extern "C" fn GET_QUEUING_PORT_ID(
    queuing_port_name: *const c_char,
    queuing_port_id: *mut QueuingPortIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetQueuingPortId, || {
        let r = name_in(queuing_port_name).and_then(|n| queuing::get_queuing_port_id(&n));
        put_out(queuing_port_id, return_code, r, |id| id.0);
    })
}

/// GET_QUEUING_PORT_STATUS.
#[no_mangle]
pub extern "C" fn GET_QUEUING_PORT_STATUS(
    queuing_port_id: QueuingPortIdType,
    queuing_port_status: *mut QueuingPortStatusType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetQueuingPortStatus, || {
        let r = queuing::get_queuing_port_status(QueuingPortId(queuing_port_id));
        put_out(queuing_port_status, return_code, r, |s| {
            QueuingPortStatusType {
                nb_message: s.nb_message as MessageRangeType,
                max_nb_message: s.max_nb_message as MessageRangeType,
                max_message_size: s.max_message_size as MessageSizeType,
                port_direction: direction_out(s.direction),
                waiting_processes: s.waiting_processes as WaitingRangeType,
            }
        });
    })
}

/// CLEAR_QUEUING_PORT.
#[no_mangle]
pub extern "C" fn CLEAR_QUEUING_PORT(
    queuing_port_id: QueuingPortIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::ClearQueuingPort, || {
        put_rc(
            return_code,
            queuing::clear_queuing_port(QueuingPortId(queuing_port_id)),
        );
    })
}
