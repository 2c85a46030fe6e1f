// SPDX-License-Identifier: MIT OR Apache-2.0
//! Time management (ARINC 653 Part 1, 3.4): GET_TIME, PERIODIC_WAIT, TIMED_WAIT, REPLENISH.

use crate::runtime;
use partita_apex_core::ReturnCode;

pub use partita_apex_core::{SystemTime, INFINITE_TIME_VALUE};

/// GET_TIME: nanoseconds since the start of the module's first major frame.
pub fn get_time() -> Result<SystemTime, ReturnCode> {
    Ok(runtime::get()?.now())
}

/// PERIODIC_WAIT.
pub fn periodic_wait() -> Result<(), ReturnCode> {
    runtime::get()?.call_blocking(|k, now, me| k.periodic_wait(now, me))
}

/// TIMED_WAIT: `delay` 0 yields to the processes of equal priority.
pub fn timed_wait(delay: SystemTime) -> Result<(), ReturnCode> {
    runtime::get()?.call_blocking(|k, now, me| k.timed_wait(now, me, delay))
}

/// REPLENISH: the caller's deadline becomes now + `budget`.
pub fn replenish(budget: SystemTime) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.replenish(now, me, budget))
}
