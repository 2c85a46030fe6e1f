// SPDX-License-Identifier: MIT OR Apache-2.0
//! Multiple module schedules (ARINC 653 Part 2): SET_MODULE_SCHEDULE,
//! GET_MODULE_SCHEDULE_STATUS, GET_MODULE_SCHEDULE_ID (see [`crate::apex::part2::schedules`]).

use crate::apex::part2::schedules;
use crate::ffi::*;

/// SET_MODULE_SCHEDULE.
#[no_mangle]
pub extern "C" fn SET_MODULE_SCHEDULE(
    schedule_id: ScheduleIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::SetModuleSchedule, || {
        put_rc(return_code, schedules::set_module_schedule(schedule_id));
    })
}

/// GET_MODULE_SCHEDULE_STATUS.
#[no_mangle]
pub extern "C" fn GET_MODULE_SCHEDULE_STATUS(
    schedule_status: *mut ScheduleStatusType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetModuleScheduleStatus, || {
        put_out(
            schedule_status,
            return_code,
            schedules::get_module_schedule_status(),
            |s| ScheduleStatusType {
                time_of_last_schedule_switch: s.time_of_last_schedule_switch,
                current_schedule: s.current_schedule,
                next_schedule: s.next_schedule,
            },
        );
    })
}

/// GET_MODULE_SCHEDULE_ID.
#[no_mangle]
pub extern "C" fn GET_MODULE_SCHEDULE_ID(
    schedule_name: *const c_char,
    schedule_id: *mut ScheduleIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetModuleScheduleId, || {
        let r = name_in(schedule_name).and_then(|n| schedules::get_module_schedule_id(&n));
        put_out(schedule_id, return_code, r, |id| id);
    })
}
