// SPDX-License-Identifier: MIT OR Apache-2.0
//! Process management services (ARINC 653 Part 1, 3.3).

use super::*;
use crate::apex::process;
use partita_apex_core::{DeadlineType as CoreDeadline, ProcessAttributes, ProcessStatus};
use std::sync::Arc;

/// CREATE_PROCESS.
#[no_mangle]
pub extern "C" fn CREATE_PROCESS(
    attributes: *mut ProcessAttributeType,
    process_id: *mut ProcessIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::CreateProcess, || {
        let Some(a) = get(attributes) else {
            return put_rc(return_code, Err(ReturnCode::InvalidParam));
        };
        if a.entry_point.is_null() {
            return put_rc(return_code, Err(ReturnCode::InvalidParam));
        }
        let Some(deadline) = CoreDeadline::from_raw(a.deadline) else {
            return put_rc(return_code, Err(ReturnCode::InvalidParam));
        };
        let name = name_of(&a.name);
        // SAFETY: the caller's ENTRY_POINT is, per the binding, the address of a
        // `void (*)(void)` function; it was checked non-null above.
        let f: extern "C" fn() = unsafe { std::mem::transmute(a.entry_point) };
        let entry = CEntry(f);
        let attrs = ProcessAttributes {
            name,
            entry: a.entry_point as usize as u64,
            stack_size: a.stack_size as u64,
            base_priority: a.base_priority,
            period: a.period,
            time_capacity: a.time_capacity,
            deadline,
        };
        match process::create_process_entry(&attrs, Arc::new(move || entry.call())) {
            Ok(pid) => {
                put(process_id, pid.0 as ProcessIdType);
                put_rc(return_code, Ok(()));
            }
            Err(e) => put_rc(return_code, Err(e)),
        }
    })
}

/// START.
#[no_mangle]
pub extern "C" fn START(process_id: ProcessIdType, return_code: *mut ReturnCodeType) {
    crate::trace::apex_call(ApexService::Start, || {
        put_rc(return_code, pid_of(process_id).and_then(process::start));
    })
}

/// GET_MY_ID.
#[no_mangle]
pub extern "C" fn GET_MY_ID(process_id: *mut ProcessIdType, return_code: *mut ReturnCodeType) {
    crate::trace::apex_call(ApexService::GetMyId, || match process::get_my_id() {
        Ok(p) => {
            put(process_id, p.0 as ProcessIdType);
            put_rc(return_code, Ok(()));
        }
        Err(e) => put_rc(return_code, Err(e)),
    })
}

/// DELAYED_START.
#[no_mangle]
pub extern "C" fn DELAYED_START(
    process_id: ProcessIdType,
    delay_time: SystemTimeType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::DelayedStart, || {
        put_rc(
            return_code,
            pid_of(process_id).and_then(|p| process::delayed_start(p, delay_time)),
        );
    })
}

/// STOP.
#[no_mangle]
pub extern "C" fn STOP(process_id: ProcessIdType, return_code: *mut ReturnCodeType) {
    crate::trace::apex_call(ApexService::Stop, || {
        put_rc(return_code, pid_of(process_id).and_then(process::stop));
    })
}

/// STOP_SELF: does not return when called by a process; the main process gets no effect.
#[no_mangle]
pub extern "C" fn STOP_SELF() {
    let mut leave = false;
    crate::trace::apex_call(ApexService::StopSelf, || {
        leave = process::stop_self_to_top(partita_sys::escape::available()).is_ok();
    });
    if leave {
        // SAFETY: `available()` said this thread runs a C entry point inside
        // `call_escapable` (`CEntry::call`: only C bodies are called that way; from a Rust
        // body, `available()` is false and the thread parks instead). The frames in between
        // are the C body's (nothing to drop), `CEntry::call`'s closure (a copied function
        // pointer) and this function's (a bool): the service above has returned and dropped
        // everything it held, the kernel lock first. Not a signal handler: the runtime's
        // fault handlers park without calling here (an application calling STOP_SELF from its
        // own signal handler would keep that signal blocked, see the C binding's notes).
        unsafe { partita_sys::escape::escape() }
    }
}

/// SUSPEND_SELF.
#[no_mangle]
pub extern "C" fn SUSPEND_SELF(time_out: SystemTimeType, return_code: *mut ReturnCodeType) {
    crate::trace::apex_call(ApexService::SuspendSelf, || {
        put_rc(return_code, process::suspend_self(time_out));
    })
}

/// SUSPEND.
#[no_mangle]
pub extern "C" fn SUSPEND(process_id: ProcessIdType, return_code: *mut ReturnCodeType) {
    crate::trace::apex_call(ApexService::Suspend, || {
        put_rc(return_code, pid_of(process_id).and_then(process::suspend));
    })
}

/// RESUME.
#[no_mangle]
pub extern "C" fn RESUME(process_id: ProcessIdType, return_code: *mut ReturnCodeType) {
    crate::trace::apex_call(ApexService::Resume, || {
        put_rc(return_code, pid_of(process_id).and_then(process::resume));
    })
}

/// SET_PRIORITY.
#[no_mangle]
pub extern "C" fn SET_PRIORITY(
    process_id: ProcessIdType,
    priority: PriorityType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::SetPriority, || {
        put_rc(
            return_code,
            pid_of(process_id).and_then(|p| process::set_priority(p, priority)),
        );
    })
}

/// LOCK_PREEMPTION.
#[no_mangle]
pub extern "C" fn LOCK_PREEMPTION(
    lock_level: *mut LockLevelType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::LockPreemption, || {
        put_out(lock_level, return_code, process::lock_preemption(), |l| l);
    })
}

/// UNLOCK_PREEMPTION.
#[no_mangle]
pub extern "C" fn UNLOCK_PREEMPTION(
    lock_level: *mut LockLevelType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::UnlockPreemption, || {
        put_out(lock_level, return_code, process::unlock_preemption(), |l| l);
    })
}

/// GET_PROCESS_ID.
#[no_mangle]
pub extern "C" fn GET_PROCESS_ID(
    process_name: *const c_char,
    process_id: *mut ProcessIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetProcessId, || {
        let r = name_in(process_name).and_then(|n| process::get_process_id(&n));
        put_out(process_id, return_code, r, |p| p.0 as ProcessIdType);
    })
}

fn process_status(s: ProcessStatus) -> ProcessStatusType {
    let a = &s.attributes;
    ProcessStatusType {
        deadline_time: s.deadline_time,
        current_priority: s.current_priority,
        process_state: s.process_state.raw(),
        attributes: ProcessAttributeType {
            period: a.period,
            time_capacity: a.time_capacity,
            entry_point: a.entry as usize as SystemAddressType,
            stack_size: a.stack_size as StackSizeType,
            base_priority: a.base_priority,
            deadline: a.deadline.raw(),
            name: name_to_c(&a.name),
        },
    }
}

/// GET_PROCESS_STATUS.
#[no_mangle]
pub extern "C" fn GET_PROCESS_STATUS(
    process_id: ProcessIdType,
    process_status: *mut ProcessStatusType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetProcessStatus, || {
        let r = pid_of(process_id).and_then(process::get_process_status);
        put_out(process_status, return_code, r, self::process_status);
    })
}

/// INITIALIZE_PROCESS_CORE_AFFINITY. `CORE_AFFINITY_NO_PREFERENCE` means the partition's
/// first core (the default).
#[no_mangle]
pub extern "C" fn INITIALIZE_PROCESS_CORE_AFFINITY(
    process_id: ProcessIdType,
    processor_core_id: ProcessorCoreIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::InitializeProcessCoreAffinity, || {
        let core = match processor_core_id {
            CORE_AFFINITY_NO_PREFERENCE => Ok(0),
            c => u32::try_from(c).map_err(|_| ReturnCode::InvalidConfig),
        };
        let r = pid_of(process_id)
            .and_then(|p| core.and_then(|c| process::initialize_process_core_affinity(p, c)));
        put_rc(return_code, r);
    })
}

/// GET_MY_PROCESSOR_CORE_ID.
#[no_mangle]
pub extern "C" fn GET_MY_PROCESSOR_CORE_ID(
    processor_core_id: *mut ProcessorCoreIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetMyProcessorCoreId, || {
        put_out(
            processor_core_id,
            return_code,
            process::get_my_processor_core_id(),
            |c| c as ProcessorCoreIdType,
        );
    })
}

/// GET_MY_INDEX.
#[no_mangle]
pub extern "C" fn GET_MY_INDEX(
    process_index: *mut ProcessIndexType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetMyIndex, || {
        put_out(process_index, return_code, process::get_my_index(), |i| {
            i as ProcessIndexType
        });
    })
}
