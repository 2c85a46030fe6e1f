//! The ARINC 653 C binding: `extern "C"` functions with the standard names, declared in
//! `include/ARINC653.h`. Each converts its arguments, calls [`crate::api`], and stores the
//! outputs and the return code through the caller's pointers.
//!
//! A null output pointer is never written (the call still happens where it makes sense); a
//! null `RETURN_CODE` pointer means the caller does not want the code.

#![allow(non_snake_case)]
// These functions are the C ABI: C callers cannot honour a Rust `unsafe fn` contract, and the
// binding's contract (valid or null pointers) is documented in ARINC653.h; every dereference
// goes through `put`/`get` or carries its own SAFETY comment.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use crate::api;
use crate::types::*;
use partita_apex_core::{
    DeadlineType as CoreDeadline, OperatingMode, ProcessAttributes, ProcessId, ReturnCode,
};
use std::sync::Arc;

/// Stores `v` at `p` when `p` is not null.
fn put<T>(p: *mut T, v: T) {
    if !p.is_null() {
        // SAFETY: the C caller passes either null or a valid, aligned pointer to writable
        // storage of the declared type (the binding's contract).
        unsafe { p.write(v) };
    }
}

fn put_rc(p: *mut ReturnCodeType, r: Result<(), ReturnCode>) {
    put(p, code(r.err()));
}

fn code(e: Option<ReturnCode>) -> ReturnCodeType {
    e.map_or(NO_ERROR, |e| e as u32)
}

/// Reads `*p`, or `None` for a null pointer.
fn get<T: Copy>(p: *const T) -> Option<T> {
    if p.is_null() {
        None
    } else {
        // SAFETY: the C caller passes either null or a valid pointer to an initialised value
        // of the declared type.
        Some(unsafe { p.read() })
    }
}

/// GET_PARTITION_STATUS.
#[no_mangle]
pub extern "C" fn GET_PARTITION_STATUS(
    status: *mut PartitionStatusType,
    return_code: *mut ReturnCodeType,
) {
    match api::get_partition_status() {
        Ok(s) => {
            put(
                status,
                PartitionStatusType {
                    period: s.period,
                    duration: s.duration,
                    identifier: s.identifier as PartitionIdType,
                    lock_level: s.lock_level,
                    operating_mode: s.operating_mode as u32,
                    start_condition: s.start_condition as u32,
                    num_assigned_cores: s.num_assigned_cores,
                },
            );
            put_rc(return_code, Ok(()));
        }
        Err(e) => put_rc(return_code, Err(e)),
    }
}

/// SET_PARTITION_MODE.
#[no_mangle]
pub extern "C" fn SET_PARTITION_MODE(
    operating_mode: OperatingModeType,
    return_code: *mut ReturnCodeType,
) {
    let r = match OperatingMode::from_raw(operating_mode) {
        None => Err(ReturnCode::InvalidParam),
        // The code is stored first: a successful NORMAL from the main process does not return.
        Some(m) => {
            put_rc(return_code, Ok(()));
            api::set_partition_mode(m)
        }
    };
    put_rc(return_code, r);
}

/// GET_TIME.
#[no_mangle]
pub extern "C" fn GET_TIME(system_time: *mut SystemTimeType, return_code: *mut ReturnCodeType) {
    match api::get_time() {
        Ok(t) => {
            put(system_time, t);
            put_rc(return_code, Ok(()));
        }
        Err(e) => put_rc(return_code, Err(e)),
    }
}

/// A C process entry point, called on the process's thread.
#[derive(Clone, Copy)]
struct CEntry(extern "C" fn());

/// CREATE_PROCESS.
#[no_mangle]
pub extern "C" fn CREATE_PROCESS(
    attributes: *const ProcessAttributeType,
    process_id: *mut ProcessIdType,
    return_code: *mut ReturnCodeType,
) {
    let Some(a) = get(attributes) else {
        return put_rc(return_code, Err(ReturnCode::InvalidParam));
    };
    if a.entry_point.is_null() {
        return put_rc(return_code, Err(ReturnCode::InvalidParam));
    }
    let deadline = match a.deadline {
        SOFT => CoreDeadline::Soft,
        HARD => CoreDeadline::Hard,
        _ => return put_rc(return_code, Err(ReturnCode::InvalidParam)),
    };
    let mut name = [0u8; partita_apex_core::MAX_NAME_LENGTH];
    for (d, s) in name.iter_mut().zip(a.name.iter()) {
        *d = *s as u8;
    }
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
    match api::create_process_entry(&attrs, Arc::new(move || (entry.0)())) {
        Ok(pid) => {
            put(process_id, pid.0 as ProcessIdType);
            put_rc(return_code, Ok(()));
        }
        Err(e) => put_rc(return_code, Err(e)),
    }
}

fn pid_of(id: ProcessIdType) -> Result<ProcessId, ReturnCode> {
    u32::try_from(id)
        .ok()
        .filter(|&v| v > 0)
        .map(ProcessId)
        .ok_or(ReturnCode::InvalidParam)
}

/// START.
#[no_mangle]
pub extern "C" fn START(process_id: ProcessIdType, return_code: *mut ReturnCodeType) {
    put_rc(return_code, pid_of(process_id).and_then(api::start));
}

/// PERIODIC_WAIT.
#[no_mangle]
pub extern "C" fn PERIODIC_WAIT(return_code: *mut ReturnCodeType) {
    put_rc(return_code, api::periodic_wait());
}

/// GET_MY_ID.
#[no_mangle]
pub extern "C" fn GET_MY_ID(process_id: *mut ProcessIdType, return_code: *mut ReturnCodeType) {
    match api::get_my_id() {
        Ok(p) => {
            put(process_id, p.0 as ProcessIdType);
            put_rc(return_code, Ok(()));
        }
        Err(e) => put_rc(return_code, Err(e)),
    }
}

/// REPORT_APPLICATION_MESSAGE.
#[no_mangle]
pub extern "C" fn REPORT_APPLICATION_MESSAGE(
    message_addr: *const ApexByte,
    length: MessageSizeType,
    return_code: *mut ReturnCodeType,
) {
    let len = match usize::try_from(length) {
        Ok(l) if l <= api::MAX_ERROR_MESSAGE_SIZE => l,
        _ => return put_rc(return_code, Err(ReturnCode::InvalidParam)),
    };
    if message_addr.is_null() && len > 0 {
        return put_rc(return_code, Err(ReturnCode::InvalidParam));
    }
    let msg: &[u8] = if len == 0 {
        &[]
    } else {
        // SAFETY: the caller passes a pointer to at least `length` readable bytes (checked
        // non-null and within MAX_ERROR_MESSAGE_SIZE above).
        unsafe { std::slice::from_raw_parts(message_addr, len) }
    };
    put_rc(return_code, api::report_application_message(msg));
}
