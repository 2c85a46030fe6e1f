//! Identities of partitions on the host.
//!
//! Every partition runs under its own user and group id, derived from its index in the
//! module, so that file permissions separate the partitions' shared-memory objects (a channel
//! buffer belongs to its writer; a reader's state belongs to the reader) even when a
//! partition re-opens a descriptor through `/proc/self/fd`.

/// First user and group id used for partitions.
pub const PARTITION_UID_BASE: u32 = 61_000;

/// The user id partition `index` runs as.
pub fn partition_uid(index: usize) -> u32 {
    PARTITION_UID_BASE + index as u32
}

/// The group id partition `index` runs as.
pub fn partition_gid(index: usize) -> u32 {
    PARTITION_UID_BASE + index as u32
}
