// SPDX-License-Identifier: MIT OR Apache-2.0
//! Blackboards (ARINC 653 Part 1, 3.7.2.2): one displayed message, read by the processes of
//! one partition.

use crate::runtime;
use partita_apex_core::{Name, ReturnCode, SystemTime};

pub use partita_apex_core::{BlackboardId, BlackboardStatus, EmptyIndicator};

/// CREATE_BLACKBOARD (initially empty).
pub fn create_blackboard(name: &Name, max_message_size: usize) -> Result<BlackboardId, ReturnCode> {
    runtime::get()?.call(|k, now, me| k.create_blackboard(now, me, name, max_message_size))
}

/// DISPLAY_BLACKBOARD.
pub fn display_blackboard(id: BlackboardId, msg: &[u8]) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.display_blackboard(now, me, id, msg))
}

/// READ_BLACKBOARD: the displayed message is copied into `out`, which must hold the
/// blackboard's maximum message size (`InvalidParam` otherwise); returns its length.
pub fn read_blackboard(
    id: BlackboardId,
    timeout: SystemTime,
    out: &mut [u8],
) -> Result<usize, ReturnCode> {
    runtime::get()?.call_blocking_message(out, |k, now, me, out| {
        k.read_blackboard(now, me, id, timeout, out)
    })
}

/// CLEAR_BLACKBOARD.
pub fn clear_blackboard(id: BlackboardId) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.clear_blackboard(now, me, id))
}

/// GET_BLACKBOARD_ID.
pub fn get_blackboard_id(name: &Name) -> Result<BlackboardId, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_blackboard_id(name))
}

/// GET_BLACKBOARD_STATUS.
pub fn get_blackboard_status(id: BlackboardId) -> Result<BlackboardStatus, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_blackboard_status(id))
}
