// SPDX-License-Identifier: MIT OR Apache-2.0
//! Identities of partitions on the host.
//!
//! Every partition runs under its own user and group id, derived from its index in the
//! module, so that file permissions separate the partitions' shared-memory objects (a channel
//! buffer belongs to its writer; a reader's state belongs to the reader) even when a
//! partition re-opens a descriptor through `/proc/self/fd`.
//!
//! Two modules running at the same time on one host must not share ids either: each run
//! takes a *block* of ids (see [`set_uid_block`]; the manager picks a free block with a
//! host-wide lock), and partition `index` of the run in block `b` is
//! `PARTITION_UID_BASE + b·UID_BLOCK_SIZE + index` (`partita_abi::ids`, which `partita
//! check` uses too). Block 0 (the default) gives 61000, 61001, ...

use std::sync::atomic::{AtomicU32, Ordering};

pub use partita_abi::ids::{PARTITION_UID_BASE, UID_BLOCKS, UID_BLOCK_SIZE};

static UID_BLOCK: AtomicU32 = AtomicU32::new(0);

/// Selects the id block of this process's run (the manager calls it before it creates any
/// partition resource; runs of one process are sequential). Out-of-range values are clamped.
pub fn set_uid_block(block: u32) {
    UID_BLOCK.store(block.min(UID_BLOCKS - 1), Ordering::Relaxed);
}

/// The id block of this process's run.
pub fn uid_block() -> u32 {
    UID_BLOCK.load(Ordering::Relaxed)
}

/// The user id partition `index` runs as.
pub fn partition_uid(index: usize) -> u32 {
    partita_abi::ids::partition_uid(uid_block(), index)
}

/// The group id partition `index` runs as.
pub fn partition_gid(index: usize) -> u32 {
    partita_abi::ids::partition_gid(uid_block(), index)
}

/// `CAP_SYS_NICE`.
pub const CAP_SYS_NICE: u32 = 23;
/// `CAP_SYS_RESOURCE`.
const CAP_SYS_RESOURCE: u32 = 24;

/// Whether a child of the caller can be given `RLIMIT_RTPRIO` = `limit` (soft and hard): the
/// caller's hard limit is already that high, or it holds `CAP_SYS_RESOURCE` to raise it. When
/// it cannot (a container without `CAP_SYS_RESOURCE`, hard limit 0), an unprivileged
/// partition can never raise a thread's real-time priority; the manager then raises the
/// runtime's threads for it, up to the limit (its raise broker, see
/// `docs/priority-raising.md`).
pub fn can_limit_rtprio(limit: u64) -> bool {
    let mut rl = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `rl` is a valid rlimit to write to.
    if unsafe { libc::getrlimit(libc::RLIMIT_RTPRIO, &mut rl) } == 0
        && (rl.rlim_max == libc::RLIM_INFINITY || rl.rlim_max >= limit)
    {
        return true;
    }
    effective_caps() & (1 << CAP_SYS_RESOURCE) != 0
}

/// The caller's effective capability set (bits 0..63).
fn effective_caps() -> u64 {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: i32,
    }
    #[repr(C)]
    #[derive(Clone, Copy, Default)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    let mut h = Header {
        version: 0x2008_0522,
        pid: 0,
    };
    let mut d = [Data::default(); 2];
    // SAFETY: a version-3 header and room for the two data structs it fills.
    let r = unsafe { libc::syscall(libc::SYS_capget, &mut h, d.as_mut_ptr()) };
    if r != 0 {
        return 0;
    }
    d[0].effective as u64 | (d[1].effective as u64) << 32
}
