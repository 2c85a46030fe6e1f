// SPDX-License-Identifier: MIT OR Apache-2.0
//! Host-wide per-CPU locks: tell when another module runs on a CPU of this one.
//!
//! A module assumes it owns the CPUs of its windows. When two modules (two `partita run`, e.g.
//! tests of two checkouts at once) use the same CPU, time partitioning no longer holds: a
//! process of one module, released at its window start, waits behind a computing
//! `SCHED_FIFO` thread of the other module at the same priority, possibly for the whole
//! window. The symptoms look like runtime timing bugs (periodic releases and time-outs due at a
//! window start handled one window late, deadline misses of processes that do almost nothing,
//! in a pattern that follows the other module's major frame). The manager therefore takes an
//! exclusive advisory lock (`flock`) on `partita-cpu<N>.lock` in the temporary directory for
//! every CPU it schedules, and adds a note naming each CPU another run already holds.
//! Nothing is refused: the lock only makes the cause visible.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::PathBuf;

/// The locks held for the duration of a run (released when dropped or when the manager dies).
pub(crate) struct CoreLocks {
    _files: Vec<File>,
}

/// Path of the lock file of `cpu`.
pub(crate) fn path(cpu: u32) -> PathBuf {
    std::env::temp_dir().join(format!("partita-cpu{cpu}.lock"))
}

/// Locks every CPU of `cpus`; returns the locks held and one note per CPU that another run
/// holds (or whose lock file cannot be used).
pub(crate) fn acquire(cpus: &[u32]) -> (CoreLocks, Vec<String>) {
    let mut files = Vec::new();
    let mut notes = Vec::new();
    let mut cpus = cpus.to_vec();
    cpus.sort_unstable();
    cpus.dedup();
    for cpu in cpus {
        let p = path(cpu);
        // A lock file another user created stays usable read-only (flock needs no write access).
        let f = match OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&p)
            .or_else(|_| File::open(&p))
        {
            Ok(f) => f,
            Err(e) => {
                notes.push(format!(
                    "cannot open {} ({e}): another module on CPU {cpu} would go unnoticed",
                    p.display()
                ));
                continue;
            }
        };
        match f.try_lock() {
            Ok(()) => files.push(f),
            Err(TryLockError::WouldBlock) => notes.push(format!(
                "another Partita module runs on CPU {cpu} ({} is locked): its real-time threads compete with this module's windows, so releases, time-outs and deadlines there may be late (time partitioning needs the CPU to itself)",
                p.display()
            )),
            Err(TryLockError::Error(e)) => notes.push(format!(
                "cannot lock {} ({e}): another module on CPU {cpu} would go unnoticed",
                p.display()
            )),
        }
    }
    (CoreLocks { _files: files }, notes)
}

/// The lock of the partition id block of a run (see `partita_sys::isolation`).
pub(crate) struct UidBlock {
    _file: Option<File>,
    /// The block taken.
    pub block: u32,
}

/// Takes the first free block of partition ids (a host-wide `flock` on
/// `partita-uids<N>.lock`), so that partitions of two modules running at once never share a
/// uid; selects it with `partita_sys::isolation::set_uid_block`. When every block is taken (or
/// no lock file can be used) block 0 is used and a note says so.
pub(crate) fn acquire_uid_block() -> (UidBlock, Option<String>) {
    match lock_free_uid_block() {
        Some((file, block)) => {
            partita_sys::isolation::set_uid_block(block);
            (
                UidBlock {
                    _file: Some(file),
                    block,
                },
                None,
            )
        }
        None => {
            partita_sys::isolation::set_uid_block(0);
            (
                UidBlock {
                    _file: None,
                    block: 0,
                },
                Some(format!(
                    "no free partition id block (all {} taken or unusable): partitions share uids with another module",
                    partita_sys::isolation::UID_BLOCKS
                )),
            )
        }
    }
}

/// Locks the first free id block: its lock file (held) and number.
fn lock_free_uid_block() -> Option<(File, u32)> {
    (0..partita_sys::isolation::UID_BLOCKS).find_map(|block| {
        let p = std::env::temp_dir().join(format!("partita-uids{block}.lock"));
        let f = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&p)
            .or_else(|_| File::open(&p))
            .ok()?;
        f.try_lock().ok().map(|()| (f, block))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_runs_get_different_uid_blocks() {
        // (Does not select the block: other tests of this process read it.)
        let (_a, first) = lock_free_uid_block().expect("a free block");
        let (_b, second) = lock_free_uid_block().expect("a second free block");
        assert_ne!(first, second);
    }

    #[test]
    fn a_second_holder_is_told() {
        // A CPU number no real run uses, so that the test does not meet a running module.
        let cpu = 4000 + std::process::id() % 1000;
        let (first, notes) = acquire(&[cpu, cpu]);
        assert!(notes.is_empty(), "{notes:?}");
        let (_second, notes) = acquire(&[cpu]);
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains(&format!("another Partita module runs on CPU {cpu}")));
        drop(first);
        drop(_second);
        let (_third, notes) = acquire(&[cpu]);
        assert!(notes.is_empty(), "released with the first run: {notes:?}");
        let _ = std::fs::remove_file(path(cpu));
    }
}
