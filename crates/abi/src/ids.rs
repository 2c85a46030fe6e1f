// SPDX-License-Identifier: MIT OR Apache-2.0
//! The host user and group ids partitions run under.
//!
//! Every partition runs under its own uid and gid, derived from its index in the module.
//! Two modules running at the same time on one host must not share ids, so each run takes a
//! *block* of ids (the manager locks the first free one): partition `index` of a run in
//! block `b` is `PARTITION_UID_BASE + b·UID_BLOCK_SIZE + index`, and block 0 gives 61000,
//! 61001, ... The manager (which assigns them) and `partita check` (which tells whether a
//! partition's uid reaches the files its configuration names) both compute them here.

/// First user and group id used for partitions.
pub const PARTITION_UID_BASE: u32 = 61_000;

/// Ids per block: the most partitions one module may have.
pub const UID_BLOCK_SIZE: u32 = 1_000;

/// Blocks available (concurrent runs on one host).
pub const UID_BLOCKS: u32 = 64;

/// The user id of partition `index` in id block `block` (a block past the last is taken as
/// the last, an index past the block's size as its last id).
pub const fn partition_uid(block: u32, index: usize) -> u32 {
    let block = if block < UID_BLOCKS {
        block
    } else {
        UID_BLOCKS - 1
    };
    let index = if index < UID_BLOCK_SIZE as usize {
        index as u32
    } else {
        UID_BLOCK_SIZE - 1
    };
    PARTITION_UID_BASE + block * UID_BLOCK_SIZE + index
}

/// The group id of partition `index` in id block `block`: the same number as its uid.
pub const fn partition_gid(block: u32, index: usize) -> u32 {
    partition_uid(block, index)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_disjoint_and_clamped() {
        assert_eq!(partition_uid(0, 0), 61_000);
        assert_eq!(partition_uid(0, 1), 61_001);
        assert_eq!(partition_uid(1, 0), 62_000);
        assert_eq!(partition_uid(0, 5_000), 61_999);
        assert_eq!(
            partition_uid(UID_BLOCKS + 3, 0),
            partition_uid(UID_BLOCKS - 1, 0)
        );
        assert_eq!(partition_gid(2, 7), partition_uid(2, 7));
    }
}
