// SPDX-License-Identifier: MIT OR Apache-2.0
//! Mutex services (ARINC 653 Part 1, 3.7.2.5).

use crate::apex::intra::mutex;
use crate::ffi::*;
use partita_apex_core::{MutexId, MutexOwnership};

fn mutex(id: MutexIdType) -> Result<MutexId, ReturnCode> {
    object_id(id).map(MutexId)
}

/// CREATE_MUTEX.
#[no_mangle]
pub extern "C" fn CREATE_MUTEX(
    mutex_name: *const c_char,
    mutex_priority: PriorityType,
    queuing_discipline: QueuingDisciplineType,
    mutex_id: *mut MutexIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::CreateMutex, || {
        let r = name_in(mutex_name).and_then(|n| {
            let d = discipline(queuing_discipline)?;
            mutex::create_mutex(&n, mutex_priority, d)
        });
        put_out(mutex_id, return_code, r, |id| id.0 as MutexIdType);
    })
}

/// ACQUIRE_MUTEX.
#[no_mangle]
pub extern "C" fn ACQUIRE_MUTEX(
    mutex_id: MutexIdType,
    time_out: SystemTimeType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::AcquireMutex, || {
        put_rc(
            return_code,
            mutex(mutex_id).and_then(|m| mutex::acquire_mutex(m, time_out)),
        );
    })
}

/// RELEASE_MUTEX.
#[no_mangle]
pub extern "C" fn RELEASE_MUTEX(mutex_id: MutexIdType, return_code: *mut ReturnCodeType) {
    crate::trace::apex_call(ApexService::ReleaseMutex, || {
        put_rc(return_code, mutex(mutex_id).and_then(mutex::release_mutex));
    })
}

/// RESET_MUTEX.
#[no_mangle]
pub extern "C" fn RESET_MUTEX(
    mutex_id: MutexIdType,
    process_id: ProcessIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::ResetMutex, || {
        let r = mutex(mutex_id).and_then(|m| mutex::reset_mutex(m, pid_of(process_id)?));
        put_rc(return_code, r);
    })
}

/// GET_MUTEX_ID.
#[no_mangle]
pub extern "C" fn GET_MUTEX_ID(
    mutex_name: *const c_char,
    mutex_id: *mut MutexIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetMutexId, || {
        let r = name_in(mutex_name).and_then(|n| mutex::get_mutex_id(&n));
        put_out(mutex_id, return_code, r, |id| id.0 as MutexIdType);
    })
}

/// GET_MUTEX_STATUS.
#[no_mangle]
pub extern "C" fn GET_MUTEX_STATUS(
    mutex_id: MutexIdType,
    mutex_status: *mut MutexStatusType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetMutexStatus, || {
        let r = mutex(mutex_id).and_then(mutex::get_mutex_status);
        put_out(mutex_status, return_code, r, |s| MutexStatusType {
            mutex_owner: s
                .mutex_owner
                .map_or(NULL_PROCESS_ID, |p| p.0 as ProcessIdType),
            mutex_state: s.mutex_state.raw(),
            mutex_priority: s.mutex_priority,
            lock_count: s.lock_count,
            waiting_processes: s.waiting_processes as WaitingRangeType,
        });
    })
}

/// GET_PROCESS_MUTEX_STATE: the mutex the process owns, `PREEMPTION_LOCK_MUTEX` when it
/// holds the preemption lock, else `NO_MUTEX_OWNED`.
#[no_mangle]
pub extern "C" fn GET_PROCESS_MUTEX_STATE(
    process_id: ProcessIdType,
    mutex_id: *mut MutexIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetProcessMutexState, || {
        let r = pid_of(process_id).and_then(mutex::get_process_mutex_state);
        put_out(mutex_id, return_code, r, |o| match o {
            MutexOwnership::None => NO_MUTEX_OWNED,
            MutexOwnership::PreemptionLock => PREEMPTION_LOCK_MUTEX,
            MutexOwnership::Owned(m) => m.0 as MutexIdType,
        });
    })
}
