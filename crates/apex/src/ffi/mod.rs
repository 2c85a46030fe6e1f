// SPDX-License-Identifier: MIT OR Apache-2.0
//! The ARINC 653 C binding: `extern "C"` functions with the standard names, declared in
//! `include/ARINC653.h`. Each converts its arguments, calls the Rust API ([`crate::apex`]), and
//! stores the outputs and the return code through the caller's pointers. The files follow the
//! Rust API's chapters: `partition.rs`, `process.rs`, `time.rs`, `inter/{sampling,queuing}.rs`,
//! `intra/{buffer,blackboard,semaphore,event,mutex}.rs`, `hm.rs`, `part2/{schedules,system}.rs`;
//! this module holds the conversions they share. Every service's body runs in
//! [`crate::trace::apex_call`], which records its entry and exit when the run is traced with
//! `--trace-apex`.
//!
//! A null output pointer is never written (the call still happens where it makes sense); a
//! null `RETURN_CODE` pointer means the caller does not want the code.

#![allow(non_snake_case)]
// These functions are the C ABI: C callers cannot honour a Rust `unsafe fn` contract, and the
// binding's contract (valid or null pointers) is documented in ARINC653.h; every dereference
// goes through `put`/`get` or carries its own SAFETY comment.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

mod entry;
mod hm;
mod inter;
mod intra;
mod part2;
mod partition;
mod process;
mod time;

pub use hm::*;
pub use inter::*;
pub use intra::*;
pub use part2::*;
pub use partition::*;
pub use process::*;
pub use time::*;

use crate::types::*;
use core::ffi::c_char;
use partita_abi::trace::ApexService;
use partita_apex_core::{Name, ProcessId, QueuingDiscipline, ReturnCode};

/// Stores `v` at `p` when `p` is not null.
fn put<T>(p: *mut T, v: T) {
    if !p.is_null() {
        // SAFETY: the C caller passes either null or a valid, aligned pointer to writable
        // storage of the declared type (the binding's contract).
        unsafe { p.write(v) };
    }
}

/// Stores the return code of a service at `p` (and notes it for its `APEX_EXIT` event when
/// the run records APEX calls).
fn put_rc(p: *mut ReturnCodeType, r: Result<(), ReturnCode>) {
    let c = code(r.err());
    crate::trace::note_return_code(c);
    put(p, c);
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
    QueuingDiscipline::from_raw(v).ok_or(ReturnCode::InvalidParam)
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
    message_at_most(addr, length, SYSTEM_LIMIT_MESSAGE_SIZE as usize)
}

/// The `length` bytes at `addr`: `InvalidParam` for a negative length, a length above `max`,
/// or a null address with a non-zero length.
fn message_at_most<'a>(
    addr: *const ApexByte,
    length: ApexInteger,
    max: usize,
) -> Result<&'a [u8], ReturnCode> {
    let len = match usize::try_from(length) {
        Ok(l) if l <= max => l,
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

/// A C process entry point, called on the process's thread.
#[derive(Clone, Copy)]
struct CEntry(extern "C" fn());

impl CEntry {
    /// Runs the C entry point inside `call_escapable`, so that its STOP_SELF can take the
    /// thread back here (`STOP_SELF`): only C bodies are left that way (their frames hold
    /// nothing to drop); a Rust body is never inside one.
    fn call(&self) {
        let f = self.0;
        partita_sys::escape::call_escapable(&mut || f());
    }
}

/// A process identifier: `InvalidParam` unless positive.
fn pid_of(id: ProcessIdType) -> Result<ProcessId, ReturnCode> {
    u32::try_from(id)
        .ok()
        .filter(|&v| v > 0)
        .map(ProcessId)
        .ok_or(ReturnCode::InvalidParam)
}
