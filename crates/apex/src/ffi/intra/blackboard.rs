// SPDX-License-Identifier: MIT OR Apache-2.0
//! Blackboard services (ARINC 653 Part 1, 3.7.2.2).

use crate::apex::intra::blackboard;
use crate::ffi::*;
use partita_apex_core::BlackboardId;

fn blackboard(id: BlackboardIdType) -> Result<BlackboardId, ReturnCode> {
    object_id(id).map(BlackboardId)
}

/// CREATE_BLACKBOARD.
#[no_mangle]
pub extern "C" fn CREATE_BLACKBOARD(
    blackboard_name: *const c_char,
    max_message_size: MessageSizeType,
    blackboard_id: *mut BlackboardIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::CreateBlackboard, || {
        let r = name_in(blackboard_name).and_then(|n| {
            let size = usize::try_from(max_message_size).map_err(|_| ReturnCode::InvalidParam)?;
            blackboard::create_blackboard(&n, size)
        });
        put_out(blackboard_id, return_code, r, |id| id.0 as BlackboardIdType);
    })
}

/// DISPLAY_BLACKBOARD.
#[no_mangle]
pub extern "C" fn DISPLAY_BLACKBOARD(
    blackboard_id: BlackboardIdType,
    message_addr: MessageAddrType,
    length: MessageSizeType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::DisplayBlackboard, || {
        let r = blackboard(blackboard_id).and_then(|b| {
            let msg = message_in(message_addr, length)?;
            blackboard::display_blackboard(b, msg)
        });
        put_rc(return_code, r);
    })
}

/// READ_BLACKBOARD: MESSAGE_ADDR must hold the blackboard's MAX_MESSAGE_SIZE bytes.
#[no_mangle]
pub extern "C" fn READ_BLACKBOARD(
    blackboard_id: BlackboardIdType,
    time_out: SystemTimeType,
    message_addr: MessageAddrType,
    length: *mut MessageSizeType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::ReadBlackboard, || {
        let r = blackboard(blackboard_id).and_then(|b| {
            let max = blackboard::get_blackboard_status(b)?.max_message_size;
            let out = message_out(message_addr, max)?;
            blackboard::read_blackboard(b, time_out, out)
        });
        put_out(length, return_code, r, |n| n as MessageSizeType);
    })
}

/// CLEAR_BLACKBOARD.
#[no_mangle]
pub extern "C" fn CLEAR_BLACKBOARD(
    blackboard_id: BlackboardIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::ClearBlackboard, || {
        put_rc(
            return_code,
            blackboard(blackboard_id).and_then(blackboard::clear_blackboard),
        );
    })
}

/// GET_BLACKBOARD_ID.
#[no_mangle]
pub extern "C" fn GET_BLACKBOARD_ID(
    blackboard_name: *const c_char,
    blackboard_id: *mut BlackboardIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetBlackboardId, || {
        let r = name_in(blackboard_name).and_then(|n| blackboard::get_blackboard_id(&n));
        put_out(blackboard_id, return_code, r, |id| id.0 as BlackboardIdType);
    })
}

/// GET_BLACKBOARD_STATUS.
#[no_mangle]
pub extern "C" fn GET_BLACKBOARD_STATUS(
    blackboard_id: BlackboardIdType,
    blackboard_status: *mut BlackboardStatusType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetBlackboardStatus, || {
        let r = blackboard(blackboard_id).and_then(blackboard::get_blackboard_status);
        put_out(blackboard_status, return_code, r, |s| {
            BlackboardStatusType {
                empty_indicator: s.empty_indicator.raw(),
                max_message_size: s.max_message_size as MessageSizeType,
                waiting_processes: s.waiting_processes as WaitingRangeType,
            }
        });
    })
}
