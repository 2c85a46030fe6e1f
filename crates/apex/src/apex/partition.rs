// SPDX-License-Identifier: MIT OR Apache-2.0
//! Partition management (ARINC 653 Part 1, 3.2): GET_PARTITION_STATUS, SET_PARTITION_MODE.

use crate::runtime;
use partita_apex_core::ReturnCode;

pub use partita_apex_core::{OperatingMode, PartitionStatus, StartCondition};

/// GET_PARTITION_STATUS.
pub fn get_partition_status() -> Result<PartitionStatus, ReturnCode> {
    let rt = runtime::get()?;
    Ok(rt.lock().get_partition_status())
}

/// SET_PARTITION_MODE. Called by the main process with NORMAL, it does not return: the
/// main thread becomes the partition's timer thread.
pub fn set_partition_mode(mode: OperatingMode) -> Result<(), ReturnCode> {
    runtime::get()?.set_partition_mode(mode)
}
