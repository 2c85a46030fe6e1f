// SPDX-License-Identifier: MIT OR Apache-2.0
//! [`escape`](self) on architectures without the x86-64 assembly: a call that cannot be left
//! early. [`available`] is always false, so STOP_SELF parks its thread for good there, as it
//! did before the escape existed (see `escape.rs`).

/// How a [`call_escapable`] call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The function returned.
    Returned,
    /// [`escape`] was called inside it (never, on this architecture).
    Escaped,
}

/// Calls `function` (it cannot be left early on this architecture).
pub fn call_escapable(function: &mut dyn FnMut()) -> Ended {
    function();
    Ended::Returned
}

/// Always false on this architecture.
pub fn available() -> bool {
    false
}

/// Aborts the process: there is no call to end on this architecture ([`available`] is false).
///
/// # Safety
/// None needed here; `unsafe` to match the x86-64 contract.
pub unsafe fn escape() -> ! {
    std::process::abort()
}
