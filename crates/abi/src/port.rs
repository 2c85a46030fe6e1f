// SPDX-License-Identifier: MIT OR Apache-2.0
//! The layout of a sampling or queuing channel's shared memory (the protocol itself is
//! described in `partita_sys::port`, which maps these areas and reads and writes them), and
//! the descriptors and version of the port directory (its text codec, which needs allocation,
//! is `partita_sys::port_dir`).
//!
//! Each area starts with a magic word that names its kind and layout version
//! ([`SAMPLING_MAGIC`], [`QUEUE_MAGIC`], [`READ_STATE_MAGIC`]); the geometry (message size,
//! capacity) comes from the manager's port directory, never from the shared memory. All
//! headers are made of atomics, valid for any bit pattern a peer may leave.

use core::sync::atomic::{AtomicI64, AtomicU32, AtomicU64};

/// Descriptor number of the port directory in a partition (the manager's list of the
/// partition's ports, `partita_sys::port_dir`).
pub const PORT_DIR_FD: i32 = 16;
/// First descriptor number of the ports' shared memory in a partition.
pub const FIRST_PORT_FD: i32 = 17;
/// Environment variable naming the directory's descriptor.
pub const ENV_PORTS_FD: &str = "PARTITA_PORTS_FD";
/// First line of the port directory: its format and version.
pub const PORT_DIRECTORY_HEADER: &str = "partita-ports 1";

/// Number of slots of a sampling channel.
pub const SAMPLING_SLOTS: u64 = 3;
/// Magic of a sampling data area (`b"PSAMPLE1"`).
pub const SAMPLING_MAGIC: u64 = u64::from_le_bytes(*b"PSAMPLE1");
/// Magic of a queuing data area (`b"PQUEUE01"`).
pub const QUEUE_MAGIC: u64 = u64::from_le_bytes(*b"PQUEUE01");
/// Magic of a queuing read state (`b"PQREAD01"`).
pub const READ_STATE_MAGIC: u64 = u64::from_le_bytes(*b"PQREAD01");

/// Bytes of an area header before the slots.
pub const HEADER: usize = 64;
/// Bytes of a sampling slot header before the message.
pub const SAMPLING_SLOT_HEADER: usize = 64;
/// Bytes of a queue slot header before the message.
pub const QUEUE_SLOT_HEADER: usize = 64;
/// Areas are whole pages.
pub const PAGE: usize = 4096;

/// `n` rounded up to a multiple of `to`.
pub fn round_up(n: usize, to: usize) -> usize {
    n.div_ceil(to) * to
}

/// Header of a sampling data area (writer-owned).
#[repr(C)]
pub struct SamplingHeader {
    /// [`SAMPLING_MAGIC`].
    pub magic: AtomicU64,
    /// `(message number << 8) | slot` of the latest complete message (the slot is the number
    /// modulo [`SAMPLING_SLOTS`]); 0 before the first.
    pub latest: AtomicU64,
}

/// Header of one sampling slot; the message bytes follow at offset 64 (cache-line aligned:
/// a copy between buffers whose addresses differ by a small amount modulo 4096 is much slower).
#[repr(C)]
pub struct SamplingSlot {
    /// `2n - 1` while message `n` is written into the slot, `2n` once it is complete.
    pub seq: AtomicU64,
    /// Write time of the message (APEX system time, ns).
    pub time: AtomicI64,
    /// Message length.
    pub len: AtomicU32,
}

/// Header of a queuing data area (writer-owned); the slots follow at offset 64.
#[repr(C)]
pub struct QueueHeader {
    /// [`QUEUE_MAGIC`].
    pub magic: AtomicU64,
    /// Messages written so far, modulo twice the capacity; a futex word.
    pub head: AtomicU32,
    /// Non-zero while the writer has senders blocked on a full queue.
    pub tx_waiting: AtomicU32,
    /// Messages the writer had to discard because the queue was full (a pseudo-partition
    /// bridge cannot block): the reader reports an overflow when it changes.
    pub overflows: AtomicU32,
    /// Messages the writer appended since the run started (traffic statistics for the run
    /// report; counted by the writer, so only as trustworthy as the writer).
    pub sent: AtomicU64,
}

/// Read state of a queuing channel (reader-owned).
#[repr(C)]
pub struct ReadState {
    /// [`READ_STATE_MAGIC`].
    pub magic: AtomicU64,
    /// Messages consumed so far, modulo twice the capacity; a futex word.
    pub tail: AtomicU32,
    /// Non-zero while the reader has receivers blocked on an empty queue.
    pub rx_waiting: AtomicU32,
    /// Last value of the writer's `overflows` the reader reported.
    pub overflows_seen: AtomicU32,
    /// Messages the reader removed since the run started (statistics, as `sent`).
    pub received: AtomicU64,
}

/// Bytes between two sampling slots.
pub fn sampling_stride(max_size: usize) -> usize {
    round_up(SAMPLING_SLOT_HEADER + max_size, 64)
}

/// Size of the data area of a sampling channel.
pub fn sampling_len(max_size: usize) -> usize {
    round_up(
        HEADER + SAMPLING_SLOTS as usize * sampling_stride(max_size),
        PAGE,
    )
}

/// Bytes between two queue slots.
pub fn queue_stride(max_size: usize) -> usize {
    round_up(QUEUE_SLOT_HEADER + max_size, 64)
}

/// Size of the data area of a queuing channel.
pub fn queue_len(max_size: usize, capacity: usize) -> usize {
    round_up(HEADER + capacity * queue_stride(max_size), PAGE)
}

/// Size of a read state.
pub const READ_STATE_LEN: usize = PAGE;
