// SPDX-License-Identifier: MIT OR Apache-2.0
//! Health monitoring services (ARINC 653 Part 1, 3.8): REPORT_APPLICATION_MESSAGE, the error
//! handler, RAISE_APPLICATION_ERROR and GET_ERROR_STATUS.

use super::*;
use crate::apex::hm;
use partita_apex_core::{ErrorCode, ErrorHandlerConcurrency, ErrorStatus};
use std::sync::Arc;

/// An application message (REPORT_APPLICATION_MESSAGE, RAISE_APPLICATION_ERROR): at most
/// `MAX_ERROR_MESSAGE_SIZE` bytes.
fn error_message_in<'a>(
    addr: *const ApexByte,
    length: ApexInteger,
) -> Result<&'a [u8], ReturnCode> {
    message_at_most(addr, length, hm::MAX_ERROR_MESSAGE_SIZE)
}

/// REPORT_APPLICATION_MESSAGE.
#[no_mangle]
pub extern "C" fn REPORT_APPLICATION_MESSAGE(
    message_addr: MessageAddrType,
    length: MessageSizeType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::ReportApplicationMessage, || {
        put_rc(
            return_code,
            error_message_in(message_addr, length).and_then(hm::report_application_message),
        );
    })
}

/// CREATE_ERROR_HANDLER. `INVALID_PARAM` for a null entry point.
#[no_mangle]
pub extern "C" fn CREATE_ERROR_HANDLER(
    entry_point: SystemAddressType,
    stack_size: StackSizeType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::CreateErrorHandler, || {
        if entry_point.is_null() {
            return put_rc(return_code, Err(ReturnCode::InvalidParam));
        }
        // SAFETY: the caller's ENTRY_POINT is, per the binding, the address of a
        // `void (*)(void)` function; it was checked non-null above.
        let f: extern "C" fn() = unsafe { std::mem::transmute(entry_point) };
        let entry = CEntry(f);
        put_rc(
            return_code,
            hm::create_error_handler_entry(
                entry_point as usize as u64,
                stack_size as u64,
                Arc::new(move || entry.call()),
            ),
        );
    })
}

fn error_status(e: ErrorStatus) -> ErrorStatusType {
    ErrorStatusType {
        error_code: e.error_code as ErrorCodeType,
        length: e.length as ErrorMessageSizeType,
        failed_process_id: e
            .failed_process
            .map_or(NULL_PROCESS_ID, |p| p.0 as ProcessIdType),
        failed_address: e.failed_address as usize as SystemAddressType,
        message: e.message,
    }
}

/// GET_ERROR_STATUS.
#[no_mangle]
pub extern "C" fn GET_ERROR_STATUS(
    error_status: *mut ErrorStatusType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetErrorStatus, || {
        put_out(
            error_status,
            return_code,
            hm::get_error_status(),
            self::error_status,
        );
    })
}

/// RAISE_APPLICATION_ERROR.
#[no_mangle]
pub extern "C" fn RAISE_APPLICATION_ERROR(
    error_code: ErrorCodeType,
    message_addr: MessageAddrType,
    length: ErrorMessageSizeType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::RaiseApplicationError, || {
        let Some(code) = ErrorCode::from_raw(error_code) else {
            return put_rc(return_code, Err(ReturnCode::InvalidParam));
        };
        let msg = match error_message_in(message_addr, length) {
            Ok(m) => m,
            Err(e) => return put_rc(return_code, Err(e)),
        };
        // The code is stored before the call: with an error handler the call returns only after
        // the handler ran, and the handler may stop the caller (its thread then never returns).
        put_rc(return_code, Ok(()));
        put_rc(return_code, hm::raise_application_error(code, msg));
    })
}

/// CONFIGURE_ERROR_HANDLER. `CORE_AFFINITY_NO_PREFERENCE` means the partition's first core.
#[no_mangle]
pub extern "C" fn CONFIGURE_ERROR_HANDLER(
    concurrency_control: ErrorHandlerConcurrencyControlType,
    processor_core_id: ProcessorCoreIdType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::ConfigureErrorHandler, || {
        let Some(concurrency) = ErrorHandlerConcurrency::from_raw(concurrency_control) else {
            return put_rc(return_code, Err(ReturnCode::InvalidParam));
        };
        let r = match processor_core_id {
            CORE_AFFINITY_NO_PREFERENCE => Ok(0),
            c => u32::try_from(c).map_err(|_| ReturnCode::InvalidConfig),
        }
        .and_then(|core| hm::configure_error_handler(concurrency, core));
        put_rc(return_code, r);
    })
}
