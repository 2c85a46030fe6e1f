//! Time management services (ARINC 653 Part 1, 3.4) beyond GET_TIME and PERIODIC_WAIT (in
//! the parent module).

use super::*;

/// TIMED_WAIT.
#[no_mangle]
pub extern "C" fn TIMED_WAIT(delay_time: SystemTimeType, return_code: *mut ReturnCodeType) {
    put_rc(return_code, api::timed_wait(delay_time));
}

/// REPLENISH.
#[no_mangle]
pub extern "C" fn REPLENISH(budget_time: SystemTimeType, return_code: *mut ReturnCodeType) {
    put_rc(return_code, api::replenish(budget_time));
}
