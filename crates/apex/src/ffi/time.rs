// SPDX-License-Identifier: MIT OR Apache-2.0
//! Time management services (ARINC 653 Part 1, 3.4).

use super::*;
use crate::apex::time;

/// GET_TIME.
#[no_mangle]
pub extern "C" fn GET_TIME(system_time: *mut SystemTimeType, return_code: *mut ReturnCodeType) {
    crate::trace::apex_call(ApexService::GetTime, || match time::get_time() {
        Ok(t) => {
            put(system_time, t);
            put_rc(return_code, Ok(()));
        }
        Err(e) => put_rc(return_code, Err(e)),
    })
}

/// PERIODIC_WAIT.
#[no_mangle]
pub extern "C" fn PERIODIC_WAIT(return_code: *mut ReturnCodeType) {
    crate::trace::apex_call(ApexService::PeriodicWait, || {
        put_rc(return_code, time::periodic_wait());
    })
}

/// TIMED_WAIT.
#[no_mangle]
pub extern "C" fn TIMED_WAIT(delay_time: SystemTimeType, return_code: *mut ReturnCodeType) {
    crate::trace::apex_call(ApexService::TimedWait, || {
        put_rc(return_code, time::timed_wait(delay_time));
    })
}

/// REPLENISH.
#[no_mangle]
pub extern "C" fn REPLENISH(budget_time: SystemTimeType, return_code: *mut ReturnCodeType) {
    crate::trace::apex_call(ApexService::Replenish, || {
        put_rc(return_code, time::replenish(budget_time));
    })
}
