// SPDX-License-Identifier: MIT OR Apache-2.0
//! Mutexes (ARINC 653 Part 1 Supplement 4, 3.7.2.5): priority-ceiling mutexes for the
//! processes of one partition, and GET_PROCESS_MUTEX_STATE.

use crate::runtime;
use partita_apex_core::{Name, Priority, ProcessId, ReturnCode, SystemTime};

pub use partita_apex_core::{MutexId, MutexOwnership, MutexState, MutexStatus, QueuingDiscipline};

/// CREATE_MUTEX (priority ceiling `priority`).
pub fn create_mutex(
    name: &Name,
    priority: Priority,
    discipline: QueuingDiscipline,
) -> Result<MutexId, ReturnCode> {
    runtime::get()?.call(|k, now, me| k.create_mutex(now, me, name, priority, discipline))
}

/// ACQUIRE_MUTEX.
pub fn acquire_mutex(id: MutexId, timeout: SystemTime) -> Result<(), ReturnCode> {
    runtime::get()?.call_blocking(|k, now, me| k.acquire_mutex(now, me, id, timeout))
}

/// RELEASE_MUTEX.
pub fn release_mutex(id: MutexId) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.release_mutex(now, me, id))
}

/// RESET_MUTEX: releases `id` owned by `pid` whatever its lock count.
pub fn reset_mutex(id: MutexId, pid: ProcessId) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.reset_mutex(now, me, id, pid))
}

/// GET_MUTEX_ID.
pub fn get_mutex_id(name: &Name) -> Result<MutexId, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_mutex_id(name))
}

/// GET_MUTEX_STATUS.
pub fn get_mutex_status(id: MutexId) -> Result<MutexStatus, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_mutex_status(id))
}

/// GET_PROCESS_MUTEX_STATE.
pub fn get_process_mutex_state(pid: ProcessId) -> Result<MutexOwnership, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_process_mutex_state(pid))
}
