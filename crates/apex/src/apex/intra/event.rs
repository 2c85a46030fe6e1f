// SPDX-License-Identifier: MIT OR Apache-2.0
//! Events (ARINC 653 Part 1, 3.7.2.4): UP/DOWN conditions processes of one partition wait on.

use crate::runtime;
use partita_apex_core::{Name, ReturnCode, SystemTime};

pub use partita_apex_core::{EventId, EventState, EventStatus};

/// CREATE_EVENT (initially DOWN).
pub fn create_event(name: &Name) -> Result<EventId, ReturnCode> {
    runtime::get()?.call(|k, now, me| k.create_event(now, me, name))
}

/// SET_EVENT.
pub fn set_event(id: EventId) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.set_event(now, me, id))
}

/// RESET_EVENT.
pub fn reset_event(id: EventId) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.reset_event(now, me, id))
}

/// WAIT_EVENT.
pub fn wait_event(id: EventId, timeout: SystemTime) -> Result<(), ReturnCode> {
    runtime::get()?.call_blocking(|k, now, me| k.wait_event(now, me, id, timeout))
}

/// GET_EVENT_ID.
pub fn get_event_id(name: &Name) -> Result<EventId, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_event_id(name))
}

/// GET_EVENT_STATUS.
pub fn get_event_status(id: EventId) -> Result<EventStatus, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_event_status(id))
}
