// SPDX-License-Identifier: MIT OR Apache-2.0
//! Semaphores (ARINC 653 Part 1, 3.7.2.3): counting semaphores for the processes of one
//! partition.

use crate::runtime;
use partita_apex_core::{Name, ReturnCode, SystemTime};

pub use partita_apex_core::{QueuingDiscipline, SemaphoreId, SemaphoreStatus};

/// CREATE_SEMAPHORE.
pub fn create_semaphore(
    name: &Name,
    current_value: i32,
    maximum_value: i32,
    discipline: QueuingDiscipline,
) -> Result<SemaphoreId, ReturnCode> {
    runtime::get()?.call(|k, now, me| {
        k.create_semaphore(now, me, name, current_value, maximum_value, discipline)
    })
}

/// WAIT_SEMAPHORE.
pub fn wait_semaphore(id: SemaphoreId, timeout: SystemTime) -> Result<(), ReturnCode> {
    runtime::get()?.call_blocking(|k, now, me| k.wait_semaphore(now, me, id, timeout))
}

/// SIGNAL_SEMAPHORE.
pub fn signal_semaphore(id: SemaphoreId) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.signal_semaphore(now, me, id))
}

/// GET_SEMAPHORE_ID.
pub fn get_semaphore_id(name: &Name) -> Result<SemaphoreId, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_semaphore_id(name))
}

/// GET_SEMAPHORE_STATUS.
pub fn get_semaphore_status(id: SemaphoreId) -> Result<SemaphoreStatus, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_semaphore_status(id))
}
