// SPDX-License-Identifier: MIT OR Apache-2.0
//! Buffer services (ARINC 653 Part 1, 3.7.2.1).

use crate::apex::intra::buffer;
use crate::ffi::*;
use partita_apex_core::BufferId;

fn buffer(id: BufferIdType) -> Result<BufferId, ReturnCode> {
    object_id(id).map(BufferId)
}

/// CREATE_BUFFER.
#[no_mangle]
pub extern "C" fn CREATE_BUFFER(
    buffer_name: *const c_char,
    max_message_size: MessageSizeType,
    max_nb_message: MessageRangeType,
    queuing_discipline: QueuingDisciplineType,
    buffer_id: *mut BufferIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::CreateBuffer, || {
        let r = name_in(buffer_name).and_then(|n| {
            let size = usize::try_from(max_message_size).map_err(|_| ReturnCode::InvalidParam)?;
            let nb = usize::try_from(max_nb_message).map_err(|_| ReturnCode::InvalidParam)?;
            let d = discipline(queuing_discipline)?;
            buffer::create_buffer(&n, size, nb, d)
        });
        put_out(buffer_id, return_code, r, |id| id.0 as BufferIdType);
    })
}

/// SEND_BUFFER.
#[no_mangle]
pub extern "C" fn SEND_BUFFER(
    buffer_id: BufferIdType,
    message_addr: MessageAddrType,
    length: MessageSizeType,
    time_out: SystemTimeType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::SendBuffer, || {
        let r = buffer(buffer_id).and_then(|b| {
            let msg = message_in(message_addr, length)?;
            buffer::send_buffer(b, msg, time_out)
        });
        put_rc(return_code, r);
    })
}

/// RECEIVE_BUFFER: MESSAGE_ADDR must hold the buffer's MAX_MESSAGE_SIZE bytes.
#[no_mangle]
pub extern "C" fn RECEIVE_BUFFER(
    buffer_id: BufferIdType,
    time_out: SystemTimeType,
    message_addr: MessageAddrType,
    length: *mut MessageSizeType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::ReceiveBuffer, || {
        let r = buffer(buffer_id).and_then(|b| {
            let max = buffer::get_buffer_status(b)?.max_message_size;
            let out = message_out(message_addr, max)?;
            buffer::receive_buffer(b, time_out, out)
        });
        put_out(length, return_code, r, |n| n as MessageSizeType);
    })
}

/// GET_BUFFER_ID.
#[no_mangle]
pub extern "C" fn GET_BUFFER_ID(
    buffer_name: *const c_char,
    buffer_id: *mut BufferIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetBufferId, || {
        let r = name_in(buffer_name).and_then(|n| buffer::get_buffer_id(&n));
        put_out(buffer_id, return_code, r, |id| id.0 as BufferIdType);
    })
}

/// GET_BUFFER_STATUS.
#[no_mangle]
pub extern "C" fn GET_BUFFER_STATUS(
    buffer_id: BufferIdType,
    buffer_status: *mut BufferStatusType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetBufferStatus, || {
        let r = buffer(buffer_id).and_then(buffer::get_buffer_status);
        put_out(buffer_status, return_code, r, |s| BufferStatusType {
            nb_message: s.nb_message as MessageRangeType,
            max_nb_message: s.max_nb_message as MessageRangeType,
            max_message_size: s.max_message_size as MessageSizeType,
            waiting_processes: s.waiting_processes as WaitingRangeType,
        });
    })
}
