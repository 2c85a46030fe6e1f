// SPDX-License-Identifier: MIT OR Apache-2.0
//! Partita extension: application trace streams (`PARTITA_TRACE_EVENT`), the application's
//! own records in the trace of `partita run --trace FILE` (as XtratuM's trace streams). See
//! `docs/tracing.md`.

use partita_apex_core::ReturnCode;

/// PARTITA_TRACE_EVENT: records `value` on `stream` as an APPLICATION event of the calling
/// process. NO_ACTION when the run is not traced; NOT_AVAILABLE when the partition's trace
/// ring is full (the record is lost and counted in the trace).
pub fn trace_event(stream: u32, value: u64) -> Result<(), ReturnCode> {
    crate::runtime::get()?;
    if !crate::trace::enabled() {
        return Err(ReturnCode::NoAction);
    }
    if crate::trace::application(stream, value) {
        Ok(())
    } else {
        Err(ReturnCode::NotAvailable)
    }
}
