// SPDX-License-Identifier: MIT OR Apache-2.0
//! Buffers (ARINC 653 Part 1, 3.7.2.1): message queues between the processes of one
//! partition.

use crate::runtime;
use partita_apex_core::{Name, ReturnCode, SystemTime};

pub use partita_apex_core::{BufferId, BufferStatus, QueuingDiscipline};

/// CREATE_BUFFER.
pub fn create_buffer(
    name: &Name,
    max_message_size: usize,
    max_nb_message: usize,
    discipline: QueuingDiscipline,
) -> Result<BufferId, ReturnCode> {
    runtime::get()?.call(|k, now, me| {
        k.create_buffer(now, me, name, max_message_size, max_nb_message, discipline)
    })
}

/// SEND_BUFFER.
pub fn send_buffer(id: BufferId, msg: &[u8], timeout: SystemTime) -> Result<(), ReturnCode> {
    runtime::get()?.call_blocking(|k, now, me| k.send_buffer(now, me, id, msg, timeout))
}

/// RECEIVE_BUFFER: the oldest message is copied into `out`, which must hold the buffer's
/// maximum message size (`InvalidParam` otherwise); returns its length.
pub fn receive_buffer(
    id: BufferId,
    timeout: SystemTime,
    out: &mut [u8],
) -> Result<usize, ReturnCode> {
    runtime::get()?.call_blocking_message(out, |k, now, me, out| {
        k.receive_buffer(now, me, id, timeout, out)
    })
}

/// GET_BUFFER_ID.
pub fn get_buffer_id(name: &Name) -> Result<BufferId, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_buffer_id(name))
}

/// GET_BUFFER_STATUS.
pub fn get_buffer_status(id: BufferId) -> Result<BufferStatus, ReturnCode> {
    runtime::get()?.query(|k, _| k.get_buffer_status(id))
}
