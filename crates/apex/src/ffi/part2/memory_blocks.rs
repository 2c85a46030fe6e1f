// SPDX-License-Identifier: MIT OR Apache-2.0
//! Memory blocks (ARINC 653 Part 2): GET_MEMORY_BLOCK_STATUS (see
//! [`crate::apex::part2::memory_blocks`]).

use crate::apex::part2::memory_blocks;
use crate::ffi::*;

/// GET_MEMORY_BLOCK_STATUS. A block larger than `MEMORY_BLOCK_SIZE_TYPE` can hold cannot be
/// configured (the configuration refuses it).
#[no_mangle]
pub extern "C" fn GET_MEMORY_BLOCK_STATUS(
    memory_block_name: *const c_char,
    memory_block_status: *mut MemoryBlockStatusType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetMemoryBlockStatus, || {
        let r = name_in(memory_block_name)
            .and_then(|n| memory_blocks::get_memory_block_status(&n))
            .and_then(|s| {
                Ok(MemoryBlockStatusType {
                    address: s.address,
                    mode: s.mode.raw(),
                    size: MemoryBlockSizeType::try_from(s.size)
                        .map_err(|_| ReturnCode::InvalidConfig)?,
                })
            });
        put_out(memory_block_status, return_code, r, |s| s);
    })
}
