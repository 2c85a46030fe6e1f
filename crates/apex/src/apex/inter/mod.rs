// SPDX-License-Identifier: MIT OR Apache-2.0
//! Inter-partition communication (ARINC 653 Part 1, 3.6): sampling ports ([`sampling`]) and
//! queuing ports ([`queuing`]) on the channels the configuration connects. The C binding
//! (`ffi::inter`) is a thin layer over these functions. Every function returns the ARINC 653
//! return code as the `Err` of a `Result`.
//!
//! Return codes where the standard leaves a choice are Partita's documented behaviour (see
//! `docs/ports.md` and the module documentation of [`sampling`] and [`queuing`]).

use crate::runtime;
use partita_apex_core::{ReturnCode, SystemTime};

pub mod queuing;
pub mod sampling;

pub use partita_abi::PortDirection;

pub(crate) fn direction(source: bool) -> PortDirection {
    if source {
        PortDirection::Source
    } else {
        PortDirection::Destination
    }
}

pub(crate) fn now() -> Result<SystemTime, ReturnCode> {
    Ok(runtime::get()?.now())
}

/// Checks the length of a message to write: INVALID_PARAM when empty, INVALID_CONFIG when
/// above the port's maximum.
pub(crate) fn check_length(len: usize, max: u32) -> Result<(), ReturnCode> {
    if len == 0 {
        Err(ReturnCode::InvalidParam)
    } else if len > max as usize {
        Err(ReturnCode::InvalidConfig)
    } else {
        Ok(())
    }
}
