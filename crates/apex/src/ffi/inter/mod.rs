// SPDX-License-Identifier: MIT OR Apache-2.0
//! Inter-partition communication services (ARINC 653 Part 1, 3.6), and the Part 2 sampling
//! extensions with the sampling port services they extend.

mod queuing;
mod sampling;

pub use queuing::*;
pub use sampling::*;

use crate::apex::inter::PortDirection;
use crate::ffi::*;

pub(super) fn direction_in(d: PortDirectionType) -> Result<PortDirection, ReturnCode> {
    match d {
        SOURCE => Ok(PortDirection::Source),
        DESTINATION => Ok(PortDirection::Destination),
        _ => Err(ReturnCode::InvalidConfig),
    }
}

pub(super) fn direction_out(d: PortDirection) -> PortDirectionType {
    d.raw()
}

pub(super) fn size_in(v: MessageSizeType) -> Result<usize, ReturnCode> {
    usize::try_from(v).map_err(|_| ReturnCode::InvalidConfig)
}

/// A message to write or send: INVALID_PARAM for a non-positive length or a null address,
/// INVALID_CONFIG above the system limit (the port's own maximum is checked by the service).
pub(super) fn port_message_in<'a>(
    addr: MessageAddrType,
    length: MessageSizeType,
) -> Result<&'a [u8], ReturnCode> {
    if length <= 0 {
        return Err(ReturnCode::InvalidParam);
    }
    if length > SYSTEM_LIMIT_MESSAGE_SIZE as MessageSizeType {
        return Err(ReturnCode::InvalidConfig);
    }
    message_in(addr, length)
}
