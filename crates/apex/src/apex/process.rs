// SPDX-License-Identifier: MIT OR Apache-2.0
//! Process management (ARINC 653 Part 1, 3.3, with the multicore services of Part 1 Supplement
//! 4): creating, starting, stopping, suspending and resuming processes, priorities, preemption
//! locking, identifiers and status, core affinity.

use crate::runtime::{self, Entry};
use partita_apex_core::{Name, ReturnCode, Runner, SystemTime};
use std::sync::Arc;

pub use partita_apex_core::{
    DeadlineType, LockLevel, Priority, ProcessAttributes, ProcessId, ProcessState, ProcessStatus,
};

/// CREATE_PROCESS with a Rust closure as the process body (`attrs.entry` is ignored).
pub fn create_process(
    attrs: &ProcessAttributes,
    body: impl Fn() + Send + Sync + 'static,
) -> Result<ProcessId, ReturnCode> {
    create_process_entry(attrs, Arc::new(body))
}

/// CREATE_PROCESS with a shared body.
pub fn create_process_entry(
    attrs: &ProcessAttributes,
    body: Entry,
) -> Result<ProcessId, ReturnCode> {
    runtime::get()?.create_process(attrs, body)
}

/// START.
pub fn start(pid: ProcessId) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.start(now, me, pid))
}

/// DELAYED_START: like START, the first release being `delay` later.
pub fn delayed_start(pid: ProcessId, delay: SystemTime) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.delayed_start(now, me, pid, delay))
}

/// STOP another process. It becomes DORMANT at once; a later START runs its entry point
/// from the beginning on a fresh thread.
pub fn stop(pid: ProcessId) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.stop(now, me, pid))
}

/// STOP_SELF. Returns only on error (e.g. `InvalidMode` from the main process).
///
/// In a process or error handler built with `panic = "unwind"` (the default), the body is
/// left by unwinding and the thread is reused at the next START; with `panic = "abort"` the
/// thread parks for good and a fresh one takes the process at its next START. The unwind
/// drops the body's values after the process is DORMANT: drop code cannot call APEX services
/// (they return `InvalidMode`), a `std::sync::Mutex` guard alive in the body is poisoned as
/// by a panic, and a `catch_unwind` in the body would catch it (the body then runs on with
/// every service refused, until it returns).
pub fn stop_self() -> Result<std::convert::Infallible, ReturnCode> {
    let rt = runtime::get()?;
    // Only from a Rust body: inside a C body (a C entry point calling Rust code) the unwind
    // could not leave the C frames.
    if cfg!(panic = "unwind") && rt.in_body() && !partita_sys::escape::available() {
        rt.stop_self_to_top(true)?;
        std::panic::resume_unwind(Box::new(StopSelfUnwind))
    }
    rt.stop_self()
}

/// STOP_SELF that parks the calling thread for good (bodies that can be neither unwound nor
/// discarded).
#[cfg(feature = "a653rs")]
pub(crate) fn stop_self_parking() -> Result<std::convert::Infallible, ReturnCode> {
    runtime::get()?.stop_self()
}

/// STOP_SELF by the runtime's own C entry point: back to the top of the thread's loop when
/// the thread can leave (the caller then calls [`partita_sys::escape::escape`]).
pub(crate) fn stop_self_to_top(can_leave: bool) -> Result<(), ReturnCode> {
    runtime::get()?.stop_self_to_top(can_leave)
}

/// The payload with which [`stop_self`] unwinds a Rust process body to the top of its
/// thread's loop.
pub(crate) struct StopSelfUnwind;

/// SUSPEND_SELF with a time-out (`INFINITE_TIME_VALUE`: until RESUME); `Err(TimedOut)`
/// when the time-out expires first.
pub fn suspend_self(timeout: SystemTime) -> Result<(), ReturnCode> {
    runtime::get()?.call_blocking(|k, now, me| k.suspend_self(now, me, timeout))
}

/// SUSPEND another (aperiodic) process.
pub fn suspend(pid: ProcessId) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.suspend(now, me, pid))
}

/// RESUME a suspended process.
pub fn resume(pid: ProcessId) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.resume(now, me, pid))
}

/// SET_PRIORITY.
pub fn set_priority(pid: ProcessId, priority: Priority) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.set_priority(now, me, pid, priority))
}

/// LOCK_PREEMPTION: returns the new lock level.
pub fn lock_preemption() -> Result<LockLevel, ReturnCode> {
    runtime::get()?.call(|k, now, me| k.lock_preemption(now, me))
}

/// UNLOCK_PREEMPTION: returns the new lock level.
pub fn unlock_preemption() -> Result<LockLevel, ReturnCode> {
    runtime::get()?.call(|k, now, me| k.unlock_preemption(now, me))
}

/// GET_MY_ID.
pub fn get_my_id() -> Result<ProcessId, ReturnCode> {
    runtime::get()?.query(|k, me| k.get_my_id(me.ok_or(ReturnCode::InvalidMode)?))
}

/// GET_PROCESS_ID.
pub fn get_process_id(name: &Name) -> Result<ProcessId, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_process_id(name))
}

/// GET_PROCESS_STATUS.
pub fn get_process_status(pid: ProcessId) -> Result<ProcessStatus, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_process_status(pid))
}

/// INITIALIZE_PROCESS_CORE_AFFINITY (core ids are `0..cores` of the partition).
pub fn initialize_process_core_affinity(pid: ProcessId, core: u32) -> Result<(), ReturnCode> {
    runtime::get()?.initialize_process_core_affinity(pid, core)
}

/// GET_MY_PROCESSOR_CORE_ID (0 for the main process and threads the runtime did not create).
pub fn get_my_processor_core_id() -> Result<u32, ReturnCode> {
    runtime::get()?.query(|k, me| Ok(k.get_my_processor_core_id(me.unwrap_or(Runner::Main))))
}

/// GET_MY_INDEX: 1-based creation index of the calling process.
pub fn get_my_index() -> Result<u32, ReturnCode> {
    runtime::get()?.query(|k, me| k.get_my_index(me.ok_or(ReturnCode::InvalidMode)?))
}
