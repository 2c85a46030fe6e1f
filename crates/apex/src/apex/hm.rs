// SPDX-License-Identifier: MIT OR Apache-2.0
//! Health monitoring (ARINC 653 Part 1, 3.8): REPORT_APPLICATION_MESSAGE, the partition's
//! error handler (CREATE_ERROR_HANDLER, CONFIGURE_ERROR_HANDLER, GET_ERROR_STATUS) and
//! RAISE_APPLICATION_ERROR.

use crate::runtime::{self, Entry};
use partita_apex_core::{ReturnCode, Runner};
use std::sync::Arc;

pub use partita_apex_core::{ErrorCode, ErrorHandlerConcurrency, ErrorStatus};

/// Longest application message (`MAX_ERROR_MESSAGE_SIZE`).
pub const MAX_ERROR_MESSAGE_SIZE: usize = 128;

/// REPORT_APPLICATION_MESSAGE: sends `msg` (at most [`MAX_ERROR_MESSAGE_SIZE`] bytes) to the
/// module's health-monitor log.
pub fn report_application_message(msg: &[u8]) -> Result<(), ReturnCode> {
    if msg.len() > MAX_ERROR_MESSAGE_SIZE {
        return Err(ReturnCode::InvalidParam);
    }
    let rt = runtime::get()?;
    rt.send_record(&partita_abi::report::Record {
        time: rt.now(),
        reporter: runtime::reporter(rt.me().unwrap_or(Runner::Main)),
        body: partita_abi::report::Body::ApplicationMessage(msg),
    });
    Ok(())
}

/// CREATE_ERROR_HANDLER with a Rust closure as the handler body (during initialisation).
/// The handler runs when an error is raised (above every process); it reads the errors
/// with [`get_error_status`] and ends with [`stop_self`](crate::apex::process::stop_self) or by
/// returning (either way its thread is reused for the next activation).
pub fn create_error_handler(
    stack_size: u64,
    body: impl Fn() + Send + Sync + 'static,
) -> Result<(), ReturnCode> {
    let body: Entry = Arc::new(body);
    let addr = Arc::as_ptr(&body) as *const () as usize as u64;
    create_error_handler_entry(addr, stack_size, body)
}

/// CREATE_ERROR_HANDLER with a shared body; `entry_addr` is the entry point reported by the
/// kernel's status (the C function's address for the C binding).
pub fn create_error_handler_entry(
    entry_addr: u64,
    stack_size: u64,
    body: Entry,
) -> Result<(), ReturnCode> {
    runtime::get()?.create_error_handler(entry_addr, stack_size, body)
}

/// CONFIGURE_ERROR_HANDLER (core ids are `0..cores` of the partition).
pub fn configure_error_handler(
    concurrency: ErrorHandlerConcurrency,
    core: u32,
) -> Result<(), ReturnCode> {
    runtime::get()?.configure_error_handler(concurrency, core)
}

/// RAISE_APPLICATION_ERROR: `code` must be `ApplicationError`, `msg` at most
/// [`MAX_ERROR_MESSAGE_SIZE`] bytes. With an error handler (in NORMAL mode) the handler runs
/// before this returns; otherwise the error is reported to the module's health monitor.
pub fn raise_application_error(code: ErrorCode, msg: &[u8]) -> Result<(), ReturnCode> {
    let rt = runtime::get()?;
    rt.call(|k, now, me| {
        let before = k.error_handler_status().map(|s| s.pending_errors);
        let r = k.raise_application_error(now, me, code, msg);
        // Taken by the error handler: recorded in the module logbook (process level).
        if r.is_ok() && k.error_handler_status().map(|s| s.pending_errors) > before {
            rt.report_process_error(me, code, 0, msg);
        }
        r
    })
}

/// GET_ERROR_STATUS (error handler only): the oldest pending error; `Err(NoAction)` when
/// none is pending, `Err(InvalidConfig)` for any other caller.
pub fn get_error_status() -> Result<ErrorStatus, ReturnCode> {
    let rt = runtime::get()?;
    if rt.me() != Some(Runner::ErrorHandler) {
        return Err(ReturnCode::InvalidConfig);
    }
    rt.call(|k, now, me| k.get_error_status(now, me))
}
