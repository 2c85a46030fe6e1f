// SPDX-License-Identifier: MIT OR Apache-2.0
//! The gap log of `partita bench switch`: a file under `/dev/shm` shared by the spinners
//! (writers, in the benchmark partitions and the bare spinner processes) and the bench (reader).
//!
//! A spinner reads the clock in a tight loop; whenever two consecutive readings are more than
//! the threshold apart it appends the pair `(last, first)`: the last instant it executed before
//! it lost the CPU and the first instant it executed again. The file holds one *slot* per
//! spinner (a header and an array of pairs); every word is an `AtomicU64`, written by one
//! process and read by the other after the run.

use partita_sys::shm::SharedMapping;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

const MAGIC: u64 = u64::from_le_bytes(*b"PTGAPLG1");

// Header words of a slot.
const W_MAGIC: usize = 0;
const W_CAP: usize = 1;
const W_SLOTS: usize = 2;
const W_COUNT: usize = 3;
const W_DROPPED: usize = 4;
const W_STARTED: usize = 5;
const W_FIRST: usize = 6;
const W_EPOCH: usize = 7;
const W_STATUS: usize = 8;
const W_ACTIVATIONS: usize = 9;
const HEADER_WORDS: usize = 16;

/// A gap log that cannot be created or opened.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// Creating, sizing or opening the file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// Mapping it failed.
    #[error(transparent)]
    Map(#[from] partita_sys::SysError),
    /// The file does not start with a gap log header.
    #[error("{path}: not a gap log")]
    NotAGapLog {
        /// The file.
        path: PathBuf,
    },
    /// The file has fewer slots.
    #[error("{path}: no slot {slot}")]
    NoSlot {
        /// The file.
        path: PathBuf,
        /// The slot asked for.
        slot: usize,
    },
}

/// Partition status values (word `W_STATUS`).
pub mod status {
    /// Not started yet.
    pub const NONE: u64 = 0;
    /// Processes created and started; NORMAL requested.
    pub const NORMAL: u64 = 1;
    /// Set up failed (the low bits carry a step number).
    pub const FAILED: u64 = 0x100;
}

fn region_words(cap: usize) -> usize {
    HEADER_WORDS + 2 * cap
}

/// The log file, created and removed (on drop) by the bench.
pub struct LogFile {
    path: PathBuf,
    map: Option<SharedMapping>,
    slots: usize,
    cap: usize,
}

impl LogFile {
    /// Creates `path` with `slots` slots of `cap` gaps each.
    pub fn create(path: PathBuf, slots: usize, cap: usize) -> Result<LogFile, LogError> {
        let len = slots * region_words(cap) * 8;
        let io = |e| LogError::Io {
            path: path.clone(),
            source: e,
        };
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(io)?;
        // From here on the file exists: removed by `Drop` whatever happens.
        let mut lf = LogFile {
            path: path.clone(),
            map: None,
            slots,
            cap,
        };
        f.set_len(len as u64).map_err(io)?;
        // The writers are partitions, each under its own uid (see partita_sys::isolation):
        // this scratch file of the bench must be writable by them.
        use std::os::unix::fs::PermissionsExt;
        f.set_permissions(std::fs::Permissions::from_mode(0o666))
            .map_err(io)?;
        drop(f);
        let map = SharedMapping::open_file(&path, len)?;
        let w = map.words();
        for s in 0..slots {
            let b = s * region_words(cap);
            w[b + W_CAP].store(cap as u64, Ordering::Relaxed);
            w[b + W_SLOTS].store(slots as u64, Ordering::Relaxed);
            w[b + W_MAGIC].store(MAGIC, Ordering::Release);
        }
        lf.map = Some(map);
        Ok(lf)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A view of slot `slot`.
    pub fn slot(&self, slot: usize) -> Slot<'_> {
        assert!(slot < self.slots);
        let w = self.map.as_ref().expect("mapped").words();
        let b = slot * region_words(self.cap);
        Slot {
            w: &w[b..b + region_words(self.cap)],
        }
    }
}

impl Drop for LogFile {
    fn drop(&mut self) {
        self.map = None;
        let _ = std::fs::remove_file(&self.path);
    }
}

/// One slot of a log file, mapped by the writer (a spinner process).
pub struct WriterLog {
    map: SharedMapping,
    base: usize,
}

impl WriterLog {
    /// Maps slot `slot` of the log file at `path`.
    pub fn open(path: &Path, slot: usize) -> Result<WriterLog, LogError> {
        let len = std::fs::metadata(path)
            .map_err(|source| LogError::Io {
                path: path.to_path_buf(),
                source,
            })?
            .len() as usize;
        let map = SharedMapping::open_file(path, len)?;
        let w = map.words();
        if w.len() < HEADER_WORDS || w[W_MAGIC].load(Ordering::Acquire) != MAGIC {
            return Err(LogError::NotAGapLog {
                path: path.to_path_buf(),
            });
        }
        let cap = w[W_CAP].load(Ordering::Relaxed) as usize;
        let slots = w[W_SLOTS].load(Ordering::Relaxed) as usize;
        if slot >= slots || slots * region_words(cap) > w.len() {
            return Err(LogError::NoSlot {
                path: path.to_path_buf(),
                slot,
            });
        }
        Ok(WriterLog {
            base: slot * region_words(cap),
            map,
        })
    }

    /// The slot's words.
    pub fn slot(&self) -> Slot<'_> {
        let w = self.map.words();
        let cap = w[self.base + W_CAP].load(Ordering::Relaxed) as usize;
        Slot {
            w: &w[self.base..self.base + region_words(cap)],
        }
    }
}

/// The words of one slot.
#[derive(Clone, Copy)]
pub struct Slot<'a> {
    w: &'a [AtomicU64],
}

impl Slot<'_> {
    fn cap(&self) -> usize {
        (self.w.len() - HEADER_WORDS) / 2
    }

    /// Appends a gap (single writer).
    #[inline]
    pub fn record(&self, last: i64, first: i64) {
        let n = self.w[W_COUNT].load(Ordering::Relaxed) as usize;
        if n >= self.cap() {
            self.w[W_DROPPED].fetch_add(1, Ordering::Relaxed);
            return;
        }
        let e = HEADER_WORDS + 2 * n;
        self.w[e].store(last as u64, Ordering::Relaxed);
        self.w[e + 1].store(first as u64, Ordering::Relaxed);
        self.w[W_COUNT].store(n as u64 + 1, Ordering::Release);
    }

    /// Records the spinner's first reading.
    pub fn set_started(&self, t: i64) {
        self.w[W_FIRST].store(t as u64, Ordering::Relaxed);
        self.w[W_STARTED].store(1, Ordering::Release);
    }

    /// The spinner's first reading, if it started.
    pub fn started(&self) -> Option<i64> {
        (self.w[W_STARTED].load(Ordering::Acquire) != 0)
            .then(|| self.w[W_FIRST].load(Ordering::Relaxed) as i64)
    }

    /// The epoch (monotonic ns) a bare spinner measures from.
    pub fn epoch(&self) -> u64 {
        self.w[W_EPOCH].load(Ordering::Acquire)
    }

    /// Sets the epoch for a bare spinner.
    pub fn set_epoch(&self, e: u64) {
        self.w[W_EPOCH].store(e, Ordering::Release);
    }

    /// The partition's status word.
    pub fn status(&self) -> u64 {
        self.w[W_STATUS].load(Ordering::Acquire)
    }

    /// Sets the partition's status word.
    pub fn set_status(&self, s: u64) {
        self.w[W_STATUS].store(s, Ordering::Release);
    }

    /// Counts one activation of a periodic process.
    #[inline]
    pub fn activation(&self) {
        self.w[W_ACTIVATIONS].fetch_add(1, Ordering::Relaxed);
    }

    /// Periodic activations counted.
    pub fn activations(&self) -> u64 {
        self.w[W_ACTIVATIONS].load(Ordering::Relaxed)
    }

    /// Gaps that did not fit.
    pub fn dropped(&self) -> u64 {
        self.w[W_DROPPED].load(Ordering::Relaxed)
    }

    /// The recorded gaps, in time order.
    pub fn gaps(&self) -> Vec<(i64, i64)> {
        let n = (self.w[W_COUNT].load(Ordering::Acquire) as usize).min(self.cap());
        (0..n)
            .map(|i| {
                let e = HEADER_WORDS + 2 * i;
                (
                    self.w[e].load(Ordering::Relaxed) as i64,
                    self.w[e + 1].load(Ordering::Relaxed) as i64,
                )
            })
            .collect()
    }
}

/// `bench felt`: the slots where the partition (or bare thread) of spinner `slot` of
/// `spinners` logs its lateness pairs `(due, actual)`: periodic releases, then TIMED_WAIT
/// ends. The spinners have slots `0..spinners`.
pub fn lateness_slots(spinners: usize, slot: usize) -> (usize, usize) {
    (spinners + slot, 2 * spinners + slot)
}

/// The spinner loop: reads `now` forever and logs every gap longer than `threshold` ns.
pub fn spin(slot: Slot<'_>, threshold: i64, now: impl Fn() -> i64) -> ! {
    let mut last = now();
    slot.set_started(last);
    loop {
        let t = now();
        if t - last > threshold {
            slot.record(last, t);
        }
        last = t;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_writer_sees_the_slot_the_bench_reads() {
        let path =
            std::env::temp_dir().join(format!("partita-gap-log-test-{}", std::process::id()));
        let log = LogFile::create(path.clone(), 2, 4).unwrap();
        log.slot(1).set_epoch(42);
        let w = WriterLog::open(&path, 1).unwrap();
        assert_eq!(w.slot().epoch(), 42);
        w.slot().set_started(10);
        w.slot().set_status(status::NORMAL);
        for i in 0..6 {
            w.slot().record(100 * i, 100 * i + 50);
        }
        w.slot().activation();
        let s = log.slot(1);
        assert_eq!(s.started(), Some(10));
        assert_eq!(s.status(), status::NORMAL);
        assert_eq!(s.gaps(), vec![(0, 50), (100, 150), (200, 250), (300, 350)]);
        assert_eq!((s.dropped(), s.activations()), (2, 1));
        assert_eq!(log.slot(0).started(), None);
        assert!(matches!(
            WriterLog::open(&path, 2),
            Err(LogError::NoSlot { slot: 2, .. })
        ));
        drop(w);
        drop(log);
        assert!(!path.exists(), "the bench removes its log");
        std::fs::write(&path, vec![0u8; 4096]).unwrap();
        let r = WriterLog::open(&path, 0);
        std::fs::remove_file(&path).unwrap();
        assert!(matches!(r, Err(LogError::NotAGapLog { .. })));
    }
}
