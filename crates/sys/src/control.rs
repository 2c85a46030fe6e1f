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
pub const VERSION: u32 = 3;
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
