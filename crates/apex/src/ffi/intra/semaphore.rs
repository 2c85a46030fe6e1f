// SPDX-License-Identifier: MIT OR Apache-2.0
//! Semaphore services (ARINC 653 Part 1, 3.7.2.3).

use crate::apex::intra::semaphore;
use crate::ffi::*;
use partita_apex_core::SemaphoreId;

fn sem(id: SemaphoreIdType) -> Result<SemaphoreId, ReturnCode> {
    object_id(id).map(SemaphoreId)
}

/// CREATE_SEMAPHORE.
#[no_mangle]
pub extern "C" fn CREATE_SEMAPHORE(
    semaphore_name: *const c_char,
    current_value: SemaphoreValueType,
    maximum_value: SemaphoreValueType,
    queuing_discipline: QueuingDisciplineType,
    semaphore_id: *mut SemaphoreIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::CreateSemaphore, || {
        let r = name_in(semaphore_name).and_then(|n| {
            let d = discipline(queuing_discipline)?;
            semaphore::create_semaphore(&n, current_value, maximum_value, d)
        });
        put_out(semaphore_id, return_code, r, |id| id.0 as SemaphoreIdType);
    })
}

/// WAIT_SEMAPHORE.
#[no_mangle]
pub extern "C" fn WAIT_SEMAPHORE(
    semaphore_id: SemaphoreIdType,
    time_out: SystemTimeType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::WaitSemaphore, || {
        put_rc(
            return_code,
            sem(semaphore_id).and_then(|s| semaphore::wait_semaphore(s, time_out)),
        );
    })
}

/// SIGNAL_SEMAPHORE.
#[no_mangle]
pub extern "C" fn SIGNAL_SEMAPHORE(
    semaphore_id: SemaphoreIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::SignalSemaphore, || {
        put_rc(
            return_code,
            sem(semaphore_id).and_then(semaphore::signal_semaphore),
        );
    })
}

/// GET_SEMAPHORE_ID.
#[no_mangle]
pub extern "C" fn GET_SEMAPHORE_ID(
    semaphore_name: *const c_char,
    semaphore_id: *mut SemaphoreIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetSemaphoreId, || {
        let r = name_in(semaphore_name).and_then(|n| semaphore::get_semaphore_id(&n));
        put_out(semaphore_id, return_code, r, |id| id.0 as SemaphoreIdType);
    })
}

/// GET_SEMAPHORE_STATUS.
#[no_mangle]
pub extern "C" fn GET_SEMAPHORE_STATUS(
    semaphore_id: SemaphoreIdType,
    semaphore_status: *mut SemaphoreStatusType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetSemaphoreStatus, || {
        let r = sem(semaphore_id).and_then(semaphore::get_semaphore_status);
        put_out(semaphore_status, return_code, r, |s| SemaphoreStatusType {
            current_value: s.current_value,
            maximum_value: s.maximum_value,
            waiting_processes: s.waiting_processes as WaitingRangeType,
        });
    })
}
