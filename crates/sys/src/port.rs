// SPDX-License-Identifier: MIT OR Apache-2.0
//! Inter-partition channels in shared memory: sampling slots validated by sequence counters,
//! and single-producer / single-consumer message rings.
//!
//! Every channel is made of memfds created by the partition manager:
//! - the **data area** belongs to the writer: it maps it read-write, every reader maps it
//!   read-only (from an `O_RDONLY` descriptor, see [`readonly_fd`]);
//! - for a queuing channel, the **read state** (the consumer index) belongs to the reader; the
//!   writer maps it read-only.
//!
//! Neither side takes a lock and the common path makes no system call, so a partition that is
//! stopped or frozen at any instruction cannot block its peer:
//! - sampling: the writer fills one of [`SAMPLING_SLOTS`] slots (its sequence counter is odd
//!   while it does), stamps it with an even counter, then publishes "message `n` is in slot
//!   `s`" with one atomic store. A reader copies the published slot and keeps the copy only if
//!   the slot's counter did not change meanwhile (seqlock); a writer stopped in the middle of
//!   a write leaves the previous message published and intact.
//! - queuing: the writer owns `head` (messages written), the reader owns `tail` (messages
//!   consumed), both counted modulo twice the capacity (so that full and empty differ and the
//!   slot of index `i` is `i % capacity` across the wrap); a slot is written only while
//!   `head - tail < capacity` and read only while `tail != head`.
//!
//! Each side treats what its peer writes as untrusted: indices are reduced modulo the
//! capacity and lengths clamped to the configured maximum, so a corrupt peer can only garble
//! its own messages. The geometry (sizes, capacity) comes from the manager's port directory,
//! never from the shared memory.
//!
//! Waking a blocked peer: `head` and `tail` are futex words. A reader with blocked receivers
//! sets `rx_waiting` in its state and the writer wakes `head` after publishing (a writer with
//! blocked senders sets `tx_waiting` in its data area and the reader wakes `tail`). Flag and
//! index use sequentially consistent accesses on both sides, so either the peer sees the flag
//! or the waiter sees the new index before it sleeps: no lost wake-up. The system call is made
//! only when somebody waits.

use crate::shm::{SharedMapping, SharedPod};
use crate::{check, Result, SysError};
use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering};

pub use partita_abi::port::{
    queue_len, queue_stride, round_up, sampling_len, sampling_stride, QueueHeader, ReadState,
    SamplingHeader, SamplingSlot, HEADER, PAGE, QUEUE_MAGIC, QUEUE_SLOT_HEADER, READ_STATE_LEN,
    READ_STATE_MAGIC, SAMPLING_MAGIC, SAMPLING_SLOTS, SAMPLING_SLOT_HEADER,
};

// SAFETY: all four (defined in partita_abi::port) are #[repr(C)] and made only of atomics, valid for every bit pattern and
// shareable between threads and processes.
unsafe impl SharedPod for SamplingHeader {}
// SAFETY: as above.
unsafe impl SharedPod for SamplingSlot {}
// SAFETY: as above.
unsafe impl SharedPod for QueueHeader {}
// SAFETY: as above.
unsafe impl SharedPod for ReadState {}

/// Creates a memfd of `len` zero bytes named `name`, mapped read-write; the descriptor is
/// close-on-exec. With an `owner` (uid, gid) — memory shared between partitions — it belongs
/// to that owner with mode 0644 (only the owner may open it for writing through
/// `/proc/<pid>/fd`). Without one (private memory of the caller) its mode is left alone: a
/// partition's seccomp filter forbids `fchmod`.
pub fn create_memfd(name: &str, len: usize, owner: Option<(u32, u32)>) -> Result<SharedMapping> {
    let m = SharedMapping::create(name, len)?;
    let fd = m.fd().as_raw_fd();
    if let Some((uid, gid)) = owner {
        // SAFETY: fchmod on a descriptor we own.
        check(unsafe { libc::fchmod(fd, 0o644) }, "fchmod(memfd)")?;
        // SAFETY: fchown on a descriptor we own.
        check(unsafe { libc::fchown(fd, uid, gid) }, "fchown(memfd)")?;
    }
    Ok(m)
}

/// A new read-only descriptor of the file behind `fd` (opened through `/proc/self/fd`), for
/// a peer that must map it read-only: a mapping of an `O_RDONLY` descriptor can never be made
/// writable. Close-on-exec.
pub fn readonly_fd(fd: &OwnedFd) -> Result<OwnedFd> {
    let path = CString::new(format!("/proc/self/fd/{}", fd.as_raw_fd()))
        .map_err(|e| SysError::io("readonly_fd", e.into()))?;
    // SAFETY: `path` is a valid NUL-terminated string.
    let r = check(
        unsafe { libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) },
        "open(/proc/self/fd, O_RDONLY)",
    )?;
    // SAFETY: `r` was just returned by open and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(r) })
}

/// Maps inherited descriptor `fd` whole (its size from `fstat`), read-write when `writable`,
/// taking ownership of the descriptor. Fails when the file is shorter than `min_len`.
pub fn map_inherited(fd: i32, writable: bool, min_len: usize) -> Result<SharedMapping> {
    // SAFETY: fstat writes into a properly sized, zeroed struct.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: as above; `fd` is only queried.
    check(unsafe { libc::fstat(fd, &mut st) }, "fstat(port fd)")?;
    let len = st.st_size as usize;
    if len < min_len.max(1) {
        return Err(SysError::io(
            format!("port descriptor {fd}"),
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{len} bytes, {min_len} expected"),
            ),
        ));
    }
    SharedMapping::map_inherited(fd, len, writable)
}

/// Copies `src` to `dst`.
///
/// # Safety
/// `dst` must be valid for `src.len()` bytes of writes, inside a mapping owned by the caller.
unsafe fn copy_in(dst: *mut u8, src: &[u8]) {
    // SAFETY: per the contract; the regions cannot overlap (`src` is private memory or
    // another mapping).
    unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst, src.len()) };
}

/// Copies `n` bytes from shared memory another process may be writing concurrently.
///
/// # Safety
/// `src` must be valid for `n` bytes of reads and `out` at least `n` bytes long. The bytes
/// read may be torn; callers validate them (sequence counter or queue indices) before use.
unsafe fn copy_out(out: &mut [u8], src: *const u8, n: usize) {
    // SAFETY: per the contract. The source lies in memory shared with another process, outside
    // this program's memory model: the copy is of plain bytes and its result is only used
    // after validation.
    unsafe { std::ptr::copy_nonoverlapping(src, out.as_mut_ptr(), n) };
}

fn check_len(m: &SharedMapping, need: usize, what: &str) -> Result<()> {
    if m.len() < need {
        return Err(SysError::io(
            what.to_string(),
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("mapping of {} bytes, {need} needed", m.len()),
            ),
        ));
    }
    Ok(())
}

/// A sampling channel's data area as seen by one side.
pub struct Sampling {
    map: SharedMapping,
    max: usize,
    /// [`sampling_stride`] of `max`.
    stride: usize,
}

/// A message read from a sampling channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampledMessage {
    /// Message number (1 for the first message ever written).
    pub number: u64,
    /// Length in bytes.
    pub len: usize,
    /// Write time (APEX system time of the writer).
    pub time: i64,
    /// The copy was validated by the slot's counter. `false` only when the writer keeps the
    /// channel inconsistent ([`Sampling::read`]): the bytes, length and time are then
    /// whatever the slot held.
    pub consistent: bool,
}

impl Sampling {
    /// Wraps the mapping of a sampling data area for messages of up to `max` bytes.
    pub fn new(map: SharedMapping, max: usize) -> Result<Self> {
        check_len(&map, sampling_len(max), "sampling data area")?;
        // Checked once here: `header` relies on it.
        let _ = map.view::<SamplingHeader>();
        Ok(Sampling {
            map,
            max,
            stride: sampling_stride(max),
        })
    }

    /// Initialises a fresh area (manager side, before any partition maps it).
    pub fn init(&self) {
        self.header().magic.store(SAMPLING_MAGIC, Ordering::Release);
    }

    /// The mapping.
    pub fn mapping(&self) -> &SharedMapping {
        &self.map
    }

    #[inline]
    fn header(&self) -> &SamplingHeader {
        // SAFETY: `new` checked (through `view`) that the mapping holds an aligned header;
        // SamplingHeader is SharedPod and borrowed no longer than the mapping.
        unsafe { &*(self.map.as_ptr() as *const SamplingHeader) }
    }

    /// Slot `s` (< [`SAMPLING_SLOTS`]): its header and its data.
    #[inline]
    fn slot(&self, s: u64) -> (&SamplingSlot, *mut u8) {
        debug_assert!(s < SAMPLING_SLOTS);
        let off = HEADER + s as usize * self.stride;
        // SAFETY: `off + stride <= len` (checked in `new`); slot offsets are multiples of 64,
        // so the header is aligned; SamplingSlot is SharedPod (atomics only) and borrowed no
        // longer than the mapping.
        unsafe {
            let p = self.map.as_ptr().add(off);
            (&*(p as *const SamplingSlot), p.add(SAMPLING_SLOT_HEADER))
        }
    }

    /// Writes a message (writer side, mapping writable; `msg.len() <= max`), stamped `time`.
    /// Returns its number.
    pub fn write(&self, msg: &[u8], time: i64) -> u64 {
        assert!(msg.len() <= self.max);
        let h = self.header();
        let latest = h.latest.load(Ordering::Relaxed);
        let n = (latest >> 8) + 1;
        // The slot after the latest one (`n % SAMPLING_SLOTS`, without a division).
        let s = match latest & 0xff {
            0 => 1,
            1 => 2,
            _ => 0,
        };
        let (slot, data) = self.slot(s);
        slot.seq.store(2 * n - 1, Ordering::Relaxed);
        fence(Ordering::Release);
        // SAFETY: the slot's data area holds `max >= msg.len()` bytes of the writable mapping.
        unsafe { copy_in(data, msg) };
        slot.len.store(msg.len() as u32, Ordering::Relaxed);
        slot.time.store(time, Ordering::Relaxed);
        slot.seq.store(2 * n, Ordering::Release);
        h.latest.store(n << 8 | s, Ordering::Release);
        n
    }

    /// Number of the latest message (0: none yet).
    pub fn latest_number(&self) -> u64 {
        self.header().latest.load(Ordering::Acquire) >> 8
    }

    /// Copies the latest message into `out` (at least `max` bytes). `None` when nothing was
    /// written yet. Never blocks: it retries only while the writer overwrites the very slot it
    /// copies, which needs two complete writes during one copy (so the published number has
    /// moved on when it retries). A writer that leaves the published slot inconsistent for
    /// good (a hostile or corrupt writer: the slot's counter never matches the number it
    /// publishes) cannot hold it: after [`SAME_LATEST_ATTEMPTS`] failed copies under one
    /// published number, or [`MAX_READ_ATTEMPTS`] in all, it returns the last copy marked
    /// [`SampledMessage::consistent`] `false`.
    pub fn read(&self, out: &mut [u8]) -> Option<SampledMessage> {
        assert!(out.len() >= self.max);
        let (mut attempts, mut same, mut previous) = (0, 0, 0);
        loop {
            let latest = self.header().latest.load(Ordering::Acquire);
            if latest == 0 {
                return None;
            }
            let n = latest >> 8;
            // The writer's slot index, kept in bounds (an honest writer's is `n % 3`).
            let (slot, data) = self.slot((latest & 0xff).min(SAMPLING_SLOTS - 1));
            let s1 = slot.seq.load(Ordering::Acquire);
            let len = (slot.len.load(Ordering::Relaxed) as usize).min(self.max);
            let time = slot.time.load(Ordering::Relaxed);
            // SAFETY: the slot's data area holds `max >= len` readable bytes; `out` holds at
            // least `max`; the copy is validated by the sequence counter below.
            unsafe { copy_out(out, data, len) };
            fence(Ordering::Acquire);
            let consistent = s1 == 2 * n && slot.seq.load(Ordering::Relaxed) == s1;
            attempts += 1;
            same = if latest == previous { same + 1 } else { 1 };
            previous = latest;
            if consistent || same >= SAME_LATEST_ATTEMPTS || attempts >= MAX_READ_ATTEMPTS {
                return Some(SampledMessage {
                    number: n,
                    len,
                    time,
                    consistent,
                });
            }
            std::hint::spin_loop();
        }
    }
}

/// Failed copies of one published sampling message after which the reader gives up (an
/// honest writer publishes a new number before it can overwrite the published slot).
pub const SAME_LATEST_ATTEMPTS: u32 = 3;
/// Failed copies after which a sampling reader gives up whatever the writer publishes.
pub const MAX_READ_ATTEMPTS: u32 = 256;

/// A queuing channel as seen by its writer or its reader.
pub struct Queue {
    data: SharedMapping,
    state: SharedMapping,
    max: usize,
    cap: u32,
}

/// Outcome of [`Queue::pop`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Popped {
    /// Message length.
    pub len: usize,
    /// The writer discarded messages since the last pop (queue overflow).
    pub overflow: bool,
}

impl Queue {
    /// Wraps the data area and read state of a queue of `capacity` messages of up to `max`
    /// bytes. The writer maps `data` writable and `state` read-only, the reader the opposite.
    pub fn new(
        data: SharedMapping,
        state: SharedMapping,
        max: usize,
        capacity: usize,
    ) -> Result<Self> {
        check_len(&data, queue_len(max, capacity), "queue data area")?;
        check_len(&state, std::mem::size_of::<ReadState>(), "queue read state")?;
        if capacity == 0 || capacity > u32::MAX as usize / 4 {
            return Err(SysError::io(
                "queue",
                std::io::Error::new(std::io::ErrorKind::InvalidInput, "bad capacity"),
            ));
        }
        Ok(Queue {
            data,
            state,
            max,
            cap: capacity as u32,
        })
    }

    /// Initialises fresh areas (manager side).
    pub fn init(&self) {
        self.header().magic.store(QUEUE_MAGIC, Ordering::Release);
        self.read_state()
            .magic
            .store(READ_STATE_MAGIC, Ordering::Release);
    }

    /// The writer's header.
    pub fn header(&self) -> &QueueHeader {
        self.data.view::<QueueHeader>()
    }

    /// The reader's state.
    pub fn read_state(&self) -> &ReadState {
        self.state.view::<ReadState>()
    }

    /// Capacity in messages.
    pub fn capacity(&self) -> usize {
        self.cap as usize
    }

    /// Distance from `from` to `to` modulo twice the capacity (indices sanitised first).
    fn dist(&self, from: u32, to: u32) -> u32 {
        let m = 2 * self.cap;
        (to % m + m - from % m) % m
    }

    fn next(&self, i: u32) -> u32 {
        (i % (2 * self.cap) + 1) % (2 * self.cap)
    }

    fn slot(&self, i: u32) -> *mut u8 {
        let off = HEADER + (i % self.cap) as usize * queue_stride(self.max);
        // SAFETY: `off + stride <= len` (checked in `new`).
        unsafe { self.data.as_ptr().add(off) }
    }

    /// Messages in the queue, as seen from either side (at most the capacity).
    pub fn len(&self) -> usize {
        let head = self.header().head.load(Ordering::Acquire);
        let tail = self.read_state().tail.load(Ordering::Acquire);
        self.dist(tail, head).min(self.cap) as usize
    }

    /// Messages sent and received since the run started (the writer's and the reader's
    /// counters).
    pub fn traffic(&self) -> (u64, u64) {
        (
            self.header().sent.load(Ordering::Relaxed),
            self.read_state().received.load(Ordering::Relaxed),
        )
    }

    /// Whether the queue is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends a message (writer side; `msg.len() <= max`). `false` when the queue is full.
    pub fn push(&self, msg: &[u8]) -> bool {
        assert!(msg.len() <= self.max);
        let h = self.header();
        let head = h.head.load(Ordering::Relaxed);
        let tail = self.read_state().tail.load(Ordering::Acquire);
        if self.dist(tail, head) >= self.cap {
            return false;
        }
        let p = self.slot(head);
        // SAFETY: slot `head % cap` is not readable by the reader until `head` moves past it;
        // it holds a 4-byte aligned length word and `max` data bytes of the writable mapping.
        unsafe {
            (*(p as *const AtomicU32)).store(msg.len() as u32, Ordering::Relaxed);
            copy_in(p.add(QUEUE_SLOT_HEADER), msg);
        }
        h.head.store(self.next(head), Ordering::SeqCst);
        h.sent.fetch_add(1, Ordering::Relaxed);
        if self.read_state().rx_waiting.load(Ordering::SeqCst) != 0 {
            crate::futex::wake(&h.head, u32::MAX, true);
        }
        true
    }

    /// Removes the oldest message into `out` (reader side; at least `max` bytes). `None`
    /// when the queue is empty.
    pub fn pop(&self, out: &mut [u8]) -> Option<Popped> {
        assert!(out.len() >= self.max);
        let rs = self.read_state();
        let tail = rs.tail.load(Ordering::Relaxed);
        let h = self.header();
        let head = h.head.load(Ordering::Acquire);
        if self.dist(tail, head) == 0 {
            return None;
        }
        let p = self.slot(tail);
        // SAFETY: slot `tail % cap` was published by the writer (tail < head) and is not
        // rewritten before `tail` moves; the slot holds an aligned length word and `max`
        // bytes; `out` holds at least `max`.
        let len = unsafe {
            let len = ((*(p as *const AtomicU32)).load(Ordering::Relaxed) as usize).min(self.max);
            copy_out(out, p.add(QUEUE_SLOT_HEADER), len);
            len
        };
        rs.tail.store(self.next(tail), Ordering::SeqCst);
        rs.received.fetch_add(1, Ordering::Relaxed);
        if h.tx_waiting.load(Ordering::SeqCst) != 0 {
            crate::futex::wake(&rs.tail, u32::MAX, true);
        }
        let ov = h.overflows.load(Ordering::Acquire);
        let overflow = rs.overflows_seen.swap(ov, Ordering::Relaxed) != ov;
        Some(Popped { len, overflow })
    }

    /// Discards every queued message (reader side, CLEAR_QUEUING_PORT). Returns how many.
    pub fn clear(&self) -> usize {
        let rs = self.read_state();
        let tail = rs.tail.load(Ordering::Relaxed);
        let head = self.header().head.load(Ordering::Acquire);
        let n = self.dist(tail, head).min(self.cap);
        rs.tail.store(
            (tail % (2 * self.cap) + n) % (2 * self.cap),
            Ordering::SeqCst,
        );
        if n > 0 && self.header().tx_waiting.load(Ordering::SeqCst) != 0 {
            crate::futex::wake(&rs.tail, u32::MAX, true);
        }
        n as usize
    }

    /// Counts a message the writer discarded (a bridge facing a full queue).
    pub fn count_overflow(&self) {
        self.header().overflows.fetch_add(1, Ordering::AcqRel);
    }

    /// Reader side: marks (or unmarks) blocked receivers. Sequentially consistent, so that a
    /// writer publishing at the same time either sees the mark or is seen by the re-check
    /// the caller makes afterwards.
    pub fn set_rx_waiting(&self, on: bool) {
        self.read_state()
            .rx_waiting
            .store(u32::from(on), Ordering::SeqCst);
    }

    /// Writer side: marks (or unmarks) blocked senders (see [`Queue::set_rx_waiting`]).
    pub fn set_tx_waiting(&self, on: bool) {
        self.header()
            .tx_waiting
            .store(u32::from(on), Ordering::SeqCst);
    }

    /// The futex word a reader's waiter sleeps on (the writer's `head`).
    pub fn head_word(&self) -> &AtomicU32 {
        &self.header().head
    }

    /// The futex word a writer's waiter sleeps on (the reader's `tail`).
    pub fn tail_word(&self) -> &AtomicU32 {
        &self.read_state().tail
    }
}

/// A bare shared-memory area: the floor the port benchmark compares the ports with (a copy
/// into shared memory plus one atomic publish, and the reverse).
pub struct RawArea {
    map: SharedMapping,
}

impl RawArea {
    /// A fresh area for messages of up to `max` bytes.
    pub fn create(max: usize) -> Result<RawArea> {
        let map = create_memfd("partita-bench-floor", round_up(HEADER + max, PAGE), None)?;
        Ok(RawArea { map })
    }

    fn counter(&self) -> &AtomicU64 {
        &self.map.words()[0]
    }

    /// Copies `msg` into the area and publishes it (one release store).
    pub fn publish(&self, msg: &[u8]) {
        assert!(HEADER + msg.len() <= self.map.len());
        // SAFETY: the area holds `msg.len()` bytes after the header (checked above).
        unsafe { copy_in(self.map.as_ptr().add(HEADER), msg) };
        let c = self.counter();
        c.store(c.load(Ordering::Relaxed) + 1, Ordering::Release);
    }

    /// Reads the published counter (one acquire load) and copies `out.len()` bytes out.
    pub fn fetch(&self, out: &mut [u8]) -> u64 {
        assert!(HEADER + out.len() <= self.map.len());
        let n = self.counter().load(Ordering::Acquire);
        // SAFETY: the area holds `out.len()` bytes after the header (checked above).
        unsafe { copy_out(out, self.map.as_ptr().add(HEADER), out.len()) };
        n
    }
}

/// Creates the named pipe `path` (mode 0666 minus the umask) unless something exists there.
pub fn mkfifo(path: &std::path::Path) -> Result<()> {
    if path.exists() {
        return Ok(());
    }
    let c = CString::new(std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()))
        .map_err(|e| SysError::io("mkfifo", e.into()))?;
    // SAFETY: `c` is a valid NUL-terminated path.
    check(unsafe { libc::mkfifo(c.as_ptr(), 0o666) }, "mkfifo")?;
    Ok(())
}

/// Opens the named pipe `path` non-blocking, for reading (`write` false) or writing. A pipe
/// opened for writing is opened read-write, so that the open succeeds without a reader
/// (Linux semantics) and writes fail with `EAGAIN` rather than block when it is full.
pub fn open_fifo(path: &std::path::Path, write: bool) -> Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .write(write)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| SysError::io(format!("open {}", path.display()), e))
}

#[cfg(test)]
mod tests;
