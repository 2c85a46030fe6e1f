// SPDX-License-Identifier: MIT OR Apache-2.0
//! Partita extension: application trace streams, declared in the "PARTITA EXTENSION:
//! application trace streams" section of ARINC653.h. See [`crate::apex::part2::trace`].

use crate::apex::part2::trace;
use crate::ffi::*;
use crate::types::{ApexLongInteger, ApexUnsigned};

/// PARTITA_TRACE_EVENT.
#[no_mangle]
pub extern "C" fn PARTITA_TRACE_EVENT(
    stream: ApexUnsigned,
    value: ApexLongInteger,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::PartitaTraceEvent, || {
        put_rc(return_code, trace::trace_event(stream, value as u64));
    })
}
