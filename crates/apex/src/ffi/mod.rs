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

mod blackboard;
mod buffer;
mod event;
mod hm;
mod mutex;
mod ports;
mod process;
mod schedule;
mod semaphore;
mod system;
mod time;

pub use blackboard::*;
pub use buffer::*;
pub use event::*;
pub use hm::*;
pub use mutex::*;
pub use ports::*;
pub use process::*;
pub use schedule::*;
pub use semaphore::*;
pub use system::*;
pub use time::*;

use crate::api;
use crate::types::*;
use core::ffi::c_char;
use partita_apex_core::{
    DeadlineType as CoreDeadline, Name, OperatingMode, ProcessAttributes, ProcessId,
    QueuingDiscipline, ReturnCode,
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

/// Stores the output of `r` (converted by `f`) at `value` and its code at `return_code`;
/// nothing is stored at `value` on error.
fn put_out<T, U>(
    value: *mut U,
    return_code: *mut ReturnCodeType,
    r: Result<T, ReturnCode>,
    f: impl FnOnce(T) -> U,
) {
    match r {
        Ok(v) => {
            put(value, f(v));
            put_rc(return_code, Ok(()));
        }
        Err(e) => put_rc(return_code, Err(e)),
    }
}

/// Reads an object name: up to `MAX_NAME_LENGTH` bytes, stopping at the first NUL (so a
/// shorter NUL-terminated string is never read past its end). `InvalidParam` for null.
fn name_in(p: *const c_char) -> Result<Name, ReturnCode> {
    if p.is_null() {
        return Err(ReturnCode::InvalidParam);
    }
    let mut n = [0u8; MAX_NAME_LENGTH];
    for (i, d) in n.iter_mut().enumerate() {
        // SAFETY: `p` is non-null and points to a NAME_TYPE or a NUL-terminated string (the
        // binding's contract); byte `i` is read only if bytes `0..i` were not NUL, so it is
        // within the array or the string.
        let c = unsafe { p.add(i).read() } as u8;
        if c == 0 {
            break;
        }
        *d = c;
    }
    Ok(n)
}

/// Converts a C name array to the core's.
fn name_of(n: &NameType) -> Name {
    let mut name = [0u8; MAX_NAME_LENGTH];
    for (d, s) in name.iter_mut().zip(n.iter()) {
        *d = *s as u8;
    }
    name
}

/// Converts a core name to the C array.
fn name_to_c(n: &Name) -> NameType {
    let mut name = [0 as c_char; MAX_NAME_LENGTH];
    for (d, s) in name.iter_mut().zip(n.iter()) {
        *d = *s as c_char;
    }
    name
}

/// QUEUING_DISCIPLINE_TYPE; `InvalidParam` for other values.
fn discipline(v: QueuingDisciplineType) -> Result<QueuingDiscipline, ReturnCode> {
    match v {
        FIFO => Ok(QueuingDiscipline::Fifo),
        PRIORITY => Ok(QueuingDiscipline::Priority),
        _ => Err(ReturnCode::InvalidParam),
    }
}

/// An object identifier (semaphore, event, ...): `InvalidParam` unless positive.
fn object_id(id: ApexInteger) -> Result<u32, ReturnCode> {
    u32::try_from(id)
        .ok()
        .filter(|&v| v > 0)
        .ok_or(ReturnCode::InvalidParam)
}

/// The `length` bytes at `addr` (a message to send): `InvalidParam` for a negative length,
/// a length above `SYSTEM_LIMIT_MESSAGE_SIZE`, or a null address with a non-zero length.
fn message_in<'a>(addr: *const ApexByte, length: MessageSizeType) -> Result<&'a [u8], ReturnCode> {
    let len = match usize::try_from(length) {
        Ok(l) if l <= SYSTEM_LIMIT_MESSAGE_SIZE as usize => l,
        _ => return Err(ReturnCode::InvalidParam),
    };
    if len == 0 {
        return Ok(&[]);
    }
    if addr.is_null() {
        return Err(ReturnCode::InvalidParam);
    }
    // SAFETY: the caller passes a pointer to at least `length` readable bytes (checked
    // non-null and bounded above); the slice lives only for the duration of the call.
    Ok(unsafe { std::slice::from_raw_parts(addr, len) })
}

/// The receiving area at `addr`, which must hold `size` bytes (the object's maximum
/// message size): `InvalidParam` for a null address.
fn message_out<'a>(addr: *mut ApexByte, size: usize) -> Result<&'a mut [u8], ReturnCode> {
    if addr.is_null() {
        return Err(ReturnCode::InvalidParam);
    }
    // SAFETY: per ARINC653.h the receiving area of RECEIVE_BUFFER / READ_BLACKBOARD holds
    // the object's MAX_MESSAGE_SIZE writable bytes; it is not aliased during the call.
    Ok(unsafe { std::slice::from_raw_parts_mut(addr, size) })
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
