// SPDX-License-Identifier: MIT OR Apache-2.0
//! Memory blocks (ARINC 653 Part 2): GET_MEMORY_BLOCK_STATUS.
//!
//! A memory block is a `Memory_Requirements` entry of the partition's configuration that has
//! a `RegionName`; the manager lists them in the control block (name, `SizeBytes`, `Access`).
//! The runtime maps a block, zero-filled and private to the partition, at the first
//! GET_MEMORY_BLOCK_STATUS that names it, readable, and writable when its mode is
//! READ_WRITE; later calls return the same address. INVALID_CONFIG when the configuration
//! names no such block (or the partition runs without a manager).

use crate::runtime;
use partita_apex_core::{Name, ReturnCode};
use partita_sys::shm::PrivateMapping;
use std::sync::Mutex;

pub use partita_abi::MemoryBlockMode;

/// `MEMORY_BLOCK_STATUS_TYPE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryBlockStatus {
    /// Start of the block (valid while the partition runs).
    pub address: *mut u8,
    /// Size in bytes.
    pub size: usize,
    /// Access mode.
    pub mode: MemoryBlockMode,
}

/// The blocks mapped so far, by name.
static MAPPED: Mutex<Vec<(Vec<u8>, MemoryBlockMode, PrivateMapping)>> = Mutex::new(Vec::new());

/// `name` up to its first NUL.
fn trimmed(name: &[u8]) -> &[u8] {
    &name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())]
}

/// GET_MEMORY_BLOCK_STATUS.
pub fn get_memory_block_status(name: &Name) -> Result<MemoryBlockStatus, ReturnCode> {
    let rt = runtime::get()?;
    let wanted = trimmed(name);
    let block = rt
        .control()
        .and_then(|c| c.memory_blocks().find(|b| b.name.as_bytes() == wanted))
        .ok_or(ReturnCode::InvalidConfig)?;
    let mut mapped = MAPPED.lock().unwrap_or_else(|e| e.into_inner());
    let i = match mapped.iter().position(|(n, ..)| n == wanted) {
        Some(i) => i,
        None => {
            let size = usize::try_from(block.size).map_err(|_| ReturnCode::InvalidConfig)?;
            let writable = block.mode == MemoryBlockMode::ReadWrite;
            let m = PrivateMapping::anonymous(size, writable).map_err(|e| {
                eprintln!(
                    "partita runtime: memory block {}: {e}",
                    String::from_utf8_lossy(wanted)
                );
                ReturnCode::InvalidConfig
            })?;
            mapped.push((wanted.to_vec(), block.mode, m));
            mapped.len() - 1
        }
    };
    let (_, mode, m) = &mapped[i];
    Ok(MemoryBlockStatus {
        address: m.as_ptr(),
        size: m.len(),
        mode: *mode,
    })
}
