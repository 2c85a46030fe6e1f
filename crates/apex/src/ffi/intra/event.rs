// SPDX-License-Identifier: MIT OR Apache-2.0
//! Event services (ARINC 653 Part 1, 3.7.2.4).

use crate::apex::intra::event;
use crate::ffi::*;
use partita_apex_core::EventId;

fn event(id: EventIdType) -> Result<EventId, ReturnCode> {
    object_id(id).map(EventId)
}

/// CREATE_EVENT.
#[no_mangle]
pub extern "C" fn CREATE_EVENT(
    event_name: *const c_char,
    event_id: *mut EventIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::CreateEvent, || {
        let r = name_in(event_name).and_then(|n| event::create_event(&n));
        put_out(event_id, return_code, r, |id| id.0 as EventIdType);
    })
}

/// SET_EVENT.
#[no_mangle]
pub extern "C" fn SET_EVENT(event_id: EventIdType, return_code: *mut ReturnCodeType) {
    crate::trace::apex_call(ApexService::SetEvent, || {
        put_rc(return_code, event(event_id).and_then(event::set_event));
    })
}

/// RESET_EVENT.
#[no_mangle]
pub extern "C" fn RESET_EVENT(event_id: EventIdType, return_code: *mut ReturnCodeType) {
    crate::trace::apex_call(ApexService::ResetEvent, || {
        put_rc(return_code, event(event_id).and_then(event::reset_event));
    })
}

/// WAIT_EVENT.
#[no_mangle]
pub extern "C" fn WAIT_EVENT(
    event_id: EventIdType,
    time_out: SystemTimeType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::WaitEvent, || {
        put_rc(
            return_code,
            event(event_id).and_then(|e| event::wait_event(e, time_out)),
        );
    })
}

/// GET_EVENT_ID.
#[no_mangle]
pub extern "C" fn GET_EVENT_ID(
    event_name: *const c_char,
    event_id: *mut EventIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetEventId, || {
        let r = name_in(event_name).and_then(|n| event::get_event_id(&n));
        put_out(event_id, return_code, r, |id| id.0 as EventIdType);
    })
}

/// GET_EVENT_STATUS.
#[no_mangle]
pub extern "C" fn GET_EVENT_STATUS(
    event_id: EventIdType,
    event_status: *mut EventStatusType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetEventStatus, || {
        let r = event(event_id).and_then(event::get_event_status);
        put_out(event_status, return_code, r, |s| EventStatusType {
            event_state: s.event_state.raw(),
            waiting_processes: s.waiting_processes as WaitingRangeType,
        });
    })
}
