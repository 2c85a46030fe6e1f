//! The partition control block: a page of shared memory between the partition manager and
//! one partition's runtime.
//!
//! The manager creates it (a memfd), fills in the partition's configuration and the module
//! epoch, and passes it to the partition as file descriptor [`CONTROL_FD`]. The runtime maps it
//! and publishes its operating mode and mode requests there. Every field is an atomic, so
//! either side may read while the other writes; the manager treats everything the partition
//! writes as untrusted input and validates it before acting on it.

use crate::shm::SharedPod;
use std::sync::atomic::{AtomicI32, AtomicI64, AtomicU32, AtomicU64, AtomicU8, Ordering};

/// `b"PARTCTL1"` as a little-endian u64.
pub const MAGIC: u64 = u64::from_le_bytes(*b"PARTCTL1");
/// Layout version of [`ControlBlock`].
pub const VERSION: u32 = 4;
/// The file descriptor number the control block is passed as.
pub const CONTROL_FD: i32 = 3;
/// The file descriptor number of the partition's health-monitor / report channel (a pipe).
pub const REPORT_FD: i32 = 4;
/// Environment variable naming the control-block fd (its presence means "run by Partita").
pub const ENV_CONTROL_FD: &str = "PARTITA_CONTROL_FD";
/// Environment variable naming the report fd.
pub const ENV_REPORT_FD: &str = "PARTITA_REPORT_FD";
/// Size of the shared mapping.
pub const SIZE: usize = 4096;

/// Operating modes, with the ARINC 653 values.
pub mod mode {
    /// IDLE.
    pub const IDLE: u32 = 0;
    /// COLD_START.
    pub const COLD_START: u32 = 1;
    /// WARM_START.
    pub const WARM_START: u32 = 2;
    /// NORMAL.
    pub const NORMAL: u32 = 3;
    /// Value of `mode_request` when nothing is requested.
    pub const NO_REQUEST: u32 = u32::MAX;
}

/// Values of [`ControlBlock::process_policy`].
pub mod process_policy {
    /// ARINC 653 fixed-priority preemptive scheduling (the default).
    pub const PRIORITY: u32 = 0;
    /// Earliest deadline first.
    pub const EDF: u32 = 1;
}

/// The shared control block. All fields are atomics: valid for any bit pattern.
#[repr(C)]
pub struct ControlBlock {
    /// [`MAGIC`].
    pub magic: AtomicU64,
    /// [`VERSION`].
    pub version: AtomicU32,
    /// `PartitionIdentifier`.
    pub partition_id: AtomicI32,
    /// Index of the partition in the plan.
    pub partition_index: AtomicU32,
    /// START_CONDITION_TYPE value for this incarnation.
    pub start_condition: AtomicU32,
    /// Partition name, NUL-padded.
    pub name: [AtomicU8; 32],
    /// `CLOCK_MONOTONIC` instant (ns) at which major frame 0 starts; APEX time is relative to it.
    pub epoch_ns: AtomicU64,
    /// `PeriodSeconds` in ns.
    pub period_ns: AtomicI64,
    /// `PeriodDurationSeconds` in ns.
    pub duration_ns: AtomicI64,
    /// Offset of the first partition period start after the epoch.
    pub period_origin_ns: AtomicI64,
    /// Major frame length in ns.
    pub major_frame_ns: AtomicI64,
    /// CPUs the partition may use (bit mask).
    pub cpus: AtomicU64,
    /// Number of cores assigned.
    pub num_cores: AtomicU32,
    /// Maximum number of APEX processes.
    pub max_processes: AtomicU32,
    /// Total stack bytes the processes may use (0: unlimited).
    pub stack_bytes: AtomicU64,
    /// `SCHED_FIFO` priority of a running APEX process; 0 when real-time priorities are not
    /// available (the runtime then falls back to `SCHED_OTHER`).
    pub rt_run_priority: AtomicI32,
    /// Times this partition has been restarted.
    pub restarts: AtomicU32,
    /// 1 when a parked APEX thread must lower its priority before it sleeps: the backend
    /// wakes every sleeping thread when it releases the partition (SIGCONT, cgroup v2 thaw),
    /// and they must not run before the designated process. 0 with the cgroup v1 freezer,
    /// which releases sleepers without waking them (the lowering would only cost time).
    pub park_lowering: AtomicU32,
    /// Intra-partition process scheduling policy: one of [`process_policy`] (from the
    /// configuration's `partita:ProcessScheduling policy`).
    pub process_policy: AtomicU32,
    /// Written by the partition: its current operating mode.
    pub mode: AtomicU32,
    /// Written by the partition: a requested mode change the manager must carry out (IDLE,
    /// COLD_START, WARM_START), or [`mode::NO_REQUEST`].
    pub mode_request: AtomicU32,
    /// Written by the partition: number of APEX processes created.
    pub processes: AtomicU32,
    /// Written by the partition: current preemption lock level.
    pub lock_level: AtomicI32,
    // --- hm stream ---
    /// Extension-service mailbox (Partita / ARINC 653 Part 2-style system-partition services,
    /// see [`mailbox`] and docs/health-monitor.md). One request at a time per partition.
    pub mbox: Mailbox,
}

/// Extension-service mailbox: the partition posts a request (code + arguments), rings the
/// manager (a [`mailbox::DOORBELL_RECORD`] record on its report channel), and waits on
/// [`Mailbox::state`] (a shared futex) for the reply the manager writes. Generic: any request
/// code fits; the manager validates everything (the partition is untrusted).
#[repr(C)]
pub struct Mailbox {
    /// [`mailbox::IDLE`], [`mailbox::POSTED`] (set by the partition) or [`mailbox::REPLIED`]
    /// (set by the manager); a shared futex word.
    pub state: AtomicU32,
    /// Sequence number of the posted request (chosen by the partition).
    pub seq: AtomicU32,
    /// Request code (see [`mailbox::request`]).
    pub request: AtomicU32,
    /// Manager: `seq` of the request the reply answers.
    pub reply_seq: AtomicU32,
    /// Request arguments.
    pub args: [AtomicI64; 4],
    /// Manager: ARINC 653 RETURN_CODE_TYPE of the request.
    pub status: AtomicU32,
    /// Manager: number of meaningful bytes in `reply`.
    pub reply_len: AtomicU32,
    /// Manager: reply payload (its layout depends on the request).
    pub reply: [AtomicU64; mailbox::REPLY_WORDS],
}

impl Mailbox {
    /// Stores `bytes` (at most `REPLY_WORDS * 8`, the rest is cut) as the reply payload.
    pub fn write_reply(&self, bytes: &[u8]) {
        let n = bytes.len().min(mailbox::REPLY_WORDS * 8);
        for (i, w) in self.reply.iter().enumerate() {
            let mut b = [0u8; 8];
            for (j, x) in b.iter_mut().enumerate() {
                *x = bytes
                    .get(i * 8 + j)
                    .copied()
                    .filter(|_| i * 8 + j < n)
                    .unwrap_or(0);
            }
            w.store(u64::from_le_bytes(b), Ordering::Relaxed);
        }
        self.reply_len.store(n as u32, Ordering::Relaxed);
    }

    /// The reply payload (`reply_len` bytes, bounded by the payload size).
    pub fn read_reply(&self) -> Vec<u8> {
        let n = (self.reply_len.load(Ordering::Relaxed) as usize).min(mailbox::REPLY_WORDS * 8);
        let mut out = Vec::with_capacity(mailbox::REPLY_WORDS * 8);
        for w in &self.reply {
            out.extend_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
        }
        out.truncate(n);
        out
    }
}

/// Values and request codes of the [`Mailbox`].
pub mod mailbox {
    /// Nothing posted.
    pub const IDLE: u32 = 0;
    /// A request is posted and not answered yet.
    pub const POSTED: u32 = 1;
    /// The manager answered (the partition sets it back to [`IDLE`]).
    pub const REPLIED: u32 = 2;
    /// Report record kind that rings the manager.
    pub const DOORBELL_RECORD: u8 = 4;
    /// Size of the reply payload in 64-bit words.
    pub const REPLY_WORDS: usize = 40;
    /// Request codes.
    pub mod request {
        /// GET_A_PARTITION_STATUS: args[0] = partition identifier.
        pub const GET_A_PARTITION_STATUS: u32 = 1;
        /// SET_A_PARTITION_MODE: args[0] = partition identifier, args[1] = operating mode.
        pub const SET_A_PARTITION_MODE: u32 = 2;
        /// GET_HM_LOG_STATUS: no arguments.
        pub const GET_HM_LOG_STATUS: u32 = 3;
        /// READ_HM_LOG: args[0] = entry index (sequence number).
        pub const READ_HM_LOG: u32 = 4;
    }
}

// SAFETY: ControlBlock is #[repr(C)] and made only of atomics, which are valid for every bit
// pattern and may be shared between threads and processes.
unsafe impl SharedPod for ControlBlock {}

const _: () = assert!(std::mem::size_of::<ControlBlock>() <= SIZE);

impl ControlBlock {
    /// Whether magic and version match this build.
    pub fn is_valid(&self) -> bool {
        self.magic.load(Ordering::Acquire) == MAGIC
            && self.version.load(Ordering::Acquire) == VERSION
    }

    /// Stores `name` (truncated to 31 bytes, NUL-padded).
    pub fn set_name(&self, name: &str) {
        let bytes = name.as_bytes();
        for (i, slot) in self.name.iter().enumerate() {
            let b = if i < 31 {
                bytes.get(i).copied().unwrap_or(0)
            } else {
                0
            };
            slot.store(b, Ordering::Relaxed);
        }
    }

    /// The stored name, up to the first NUL.
    pub fn name(&self) -> String {
        let bytes: Vec<u8> = self
            .name
            .iter()
            .map(|b| b.load(Ordering::Relaxed))
            .take_while(|&b| b != 0)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}
