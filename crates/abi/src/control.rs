// SPDX-License-Identifier: MIT OR Apache-2.0
//! The partition control block: a page of shared memory between the partition manager and
//! one partition's runtime.
//!
//! The manager creates it (a memfd, `partita_sys::control`), fills in the partition's
//! configuration and the module epoch, and passes it to the partition as file descriptor
//! [`CONTROL_FD`]. The runtime maps it and publishes its operating mode and mode requests
//! there. Every field is an atomic, so either side may read while the other writes; the
//! manager treats everything the partition writes as untrusted input and validates it before
//! acting on it ([`ControlBlock::operating_mode`], [`crate::mailbox::Request::decode`]).
//!
//! The layout is versioned by [`VERSION`] (with [`MAGIC`]); the mailbox's request and reply
//! records ([`crate::mailbox`]) are part of it. Declaring the block fit for shared memory
//! (`SharedPod`) and mapping it need `unsafe` and stay in `partita-sys`.

use crate::{DecodeError, OperatingMode};
use core::sync::atomic::{AtomicI32, AtomicI64, AtomicU32, AtomicU64, AtomicU8, Ordering};

/// `b"PARTCTL1"` as a little-endian u64.
pub const MAGIC: u64 = u64::from_le_bytes(*b"PARTCTL1");
/// Layout version of [`ControlBlock`].
pub const VERSION: u32 = 10;
/// The file descriptor number the control block is passed as.
pub const CONTROL_FD: i32 = 3;
/// The file descriptor number of the partition's health-monitor / report channel (a pipe).
pub const REPORT_FD: i32 = 4;
/// The file descriptor number of the partition's trace ring ([`crate::trace::Ring`]), passed
/// only when the run is traced ([`ControlBlock::trace_capacity`] not 0).
pub const TRACE_FD: i32 = 5;
/// Environment variable naming the control-block fd (its presence means "run by Partita").
pub const ENV_CONTROL_FD: &str = "PARTITA_CONTROL_FD";
/// Environment variable naming the report fd.
pub const ENV_REPORT_FD: &str = "PARTITA_REPORT_FD";
/// Environment variable naming the partition's entry function (`EntryPoint` with
/// `partita:Executable`): the runtime starts the partition there instead of at `main`. An
/// environment variable, not a control-block field: it is read once, before `main`, by a
/// constructor that must not depend on the control block's layout.
pub const ENV_ENTRY_FUNCTION: &str = "PARTITA_ENTRY_FUNCTION";
/// Size of the shared mapping.
pub const SIZE: usize = 4096;

/// Value of [`ControlBlock::mode_request`] when nothing is requested.
pub const NO_MODE_REQUEST: u32 = u32::MAX;

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
    /// COLD_START, WARM_START), or [`NO_MODE_REQUEST`].
    pub mode_request: AtomicU32,
    /// Written by the partition: number of APEX processes created.
    pub processes: AtomicU32,
    /// Written by the partition: current preemption lock level.
    pub lock_level: AtomicI32,
    // --- System-partition services ---
    /// Extension-service mailbox (Partita / ARINC 653 Part 2-style system-partition services,
    /// see [`crate::mailbox`] and docs/health-monitor.md). One request at a time per partition.
    pub mbox: Mailbox,

    // --- Module schedules ---
    // Multiple module schedules (ARINC 653 Part 2). The manager rewrites `period_ns`,
    // `duration_ns`, `period_origin_ns`, `major_frame_ns` and the `schedule_*` status fields at
    // a schedule switch inside the `schedule_seq` seqlock (see [`schedule`]).
    /// Written by the manager: seqlock word, odd while it rewrites the schedule fields.
    pub schedule_seq: AtomicU32,
    /// Written by the manager: 1 when this partition may call SET_MODULE_SCHEDULE in the
    /// current schedule (a system partition the schedule does not forbid it).
    pub schedule_may_set: AtomicU32,
    /// Written by the manager: identifier of the current module schedule.
    pub schedule_current: AtomicI32,
    /// Written by the manager: APEX time (ns since the epoch) of the last schedule switch, 0
    /// when none happened.
    pub schedule_last_switch_ns: AtomicI64,
    /// Written by the partition: the last SET_MODULE_SCHEDULE request,
    /// `sequence << 32 | schedule identifier`; 0: none.
    pub schedule_request: AtomicU64,
    /// Written by the partition: APEX time of that request (written before it).
    pub schedule_request_ns: AtomicI64,
    /// Written by the manager: the sequence number of the last request it consumed.
    pub schedule_ack: AtomicU32,
    /// Written by the manager: number of valid entries in `schedule_ids` / `schedule_names`.
    pub schedule_count: AtomicU32,
    /// Written by the manager: the module schedules' identifiers.
    pub schedule_ids: [AtomicI32; schedule::MAX_SCHEDULES],
    /// Written by the manager: the module schedules' names, NUL-padded (empty: no name).
    pub schedule_names: [[AtomicU8; schedule::NAME_LEN]; schedule::MAX_SCHEDULES],
    /// Written by the manager: identifier of the schedule that runs from the next frame
    /// boundary (the current one when no change is pending).
    pub schedule_next: AtomicI32,
    // --- Raise broker ---
    // The raise broker: partitions hold no capability, so where the manager cannot give them
    // RLIMIT_RTPRIO (see `isolation::can_limit_rtprio`) it raises a runtime thread's SCHED_FIFO
    // priority on request, never above the runtime's timer priority (docs/priority-raising.md).
    /// Written by the manager: 1 when a raise broker serves this partition.
    pub raise_broker: AtomicU32,
    /// Written by the partition: incremented (and futex-woken) for each request.
    pub raise_request: AtomicU32,
    /// Written by the partition before `raise_request`: the thread (partition's PID namespace).
    pub raise_tid: AtomicI32,
    /// Written by the partition before `raise_request`: the SCHED_FIFO priority wanted.
    pub raise_priority: AtomicI32,
    /// Written by the manager: the value of `raise_request` last served (futex-woken).
    pub raise_done: AtomicU32,
    /// Written by the manager before `raise_done`: 0, or the errno of the refusal.
    pub raise_result: AtomicI32,
    /// Written by the partition: 1 before it sleeps on `raise_done`; the manager wakes
    /// `raise_done` only then (the broker preempts the requester on its core, so it has
    /// usually answered before the requester could sleep: no wake-up system call).
    pub raise_waiting: AtomicU32,
    /// Where the runtime reads APEX time from: one of [`time_source`].
    pub time_source: AtomicU32,
    /// With [`time_source::COUNTER`]: a `partita_sys::time::counter_pair` the manager took when the
    /// run started, from which the runtime measures the counter's rate
    /// (`partita_sys::time::CounterClock::seed`).
    pub clock_seed_tick: AtomicU64,
    /// The `CLOCK_MONOTONIC` half of that pair, ns.
    pub clock_seed_ns: AtomicU64,
    // --- Tracing ---
    /// Written by the manager: events the partition's trace ring (descriptor [`TRACE_FD`])
    /// holds; 0 when the run is not traced (no ring is passed, the runtime records nothing).
    pub trace_capacity: AtomicU32,
    /// Written by the manager: 1 when the runtime records every APEX call of the C binding
    /// (`APEX_ENTER` / `APEX_EXIT`, `partita run --trace-apex`), 0 otherwise; only read when
    /// [`ControlBlock::trace_capacity`] is not 0.
    pub trace_apex_calls: AtomicU32,
    // --- Memory blocks ---
    // The partition's named memory requirements (`Memory_Requirements RegionName`), for
    // GET_MEMORY_BLOCK_STATUS (ARINC 653 Part 2); see [`memory_blocks`].
    /// Written by the manager: number of valid entries of the memory block table.
    pub memory_block_count: AtomicU32,
    /// Written by the manager: the blocks' sizes in bytes.
    pub memory_block_sizes: [AtomicU64; memory_blocks::MAX_BLOCKS],
    /// Written by the manager: the blocks' modes (`MEMORY_BLOCK_MODE_TYPE` values).
    pub memory_block_modes: [AtomicU32; memory_blocks::MAX_BLOCKS],
    /// Written by the manager: the blocks' names, NUL-padded.
    pub memory_block_names: [[AtomicU8; memory_blocks::NAME_LEN]; memory_blocks::MAX_BLOCKS],
}

/// The memory block table of [`ControlBlock`].
pub mod memory_blocks {
    use super::{ControlBlock, Text};
    use crate::MemoryBlockMode;
    use core::sync::atomic::Ordering;

    /// Entries of the memory block table: named memory requirements per partition.
    pub const MAX_BLOCKS: usize = 16;
    /// Bytes per block name (ARINC 653 names have at most 30 characters).
    pub const NAME_LEN: usize = 32;

    /// One named memory block of the partition's configuration.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Block {
        /// `RegionName`, up to the first NUL.
        pub name: Text<NAME_LEN>,
        /// `SizeBytes`.
        pub size: u64,
        /// From `Access`.
        pub mode: MemoryBlockMode,
    }

    impl ControlBlock {
        /// Stores the memory block table (manager side, before the partition starts): at
        /// most [`MAX_BLOCKS`] entries (the configuration refuses more), names truncated to
        /// 31 bytes (the configuration refuses names over 30).
        pub fn set_memory_blocks(&self, blocks: &[(&str, u64, MemoryBlockMode)]) {
            let n = blocks.len().min(MAX_BLOCKS);
            for (i, (name, size, mode)) in blocks.iter().take(n).enumerate() {
                self.memory_block_sizes[i].store(*size, Ordering::Relaxed);
                self.memory_block_modes[i].store(mode.raw(), Ordering::Relaxed);
                Text::store(&self.memory_block_names[i], name);
            }
            self.memory_block_count.store(n as u32, Ordering::Release);
        }

        /// The memory block table (partition side). An entry with an unknown mode (the
        /// manager never writes one) is left out.
        pub fn memory_blocks(&self) -> impl Iterator<Item = Block> + '_ {
            let n = (self.memory_block_count.load(Ordering::Acquire) as usize).min(MAX_BLOCKS);
            (0..n).filter_map(|i| {
                Some(Block {
                    name: Text::load(&self.memory_block_names[i]),
                    size: self.memory_block_sizes[i].load(Ordering::Relaxed),
                    mode: MemoryBlockMode::from_raw(
                        self.memory_block_modes[i].load(Ordering::Relaxed),
                    )?,
                })
            })
        }
    }
}

/// Values of [`ControlBlock::time_source`].
pub mod time_source {
    /// `CLOCK_MONOTONIC` through the vDSO.
    pub const MONOTONIC: u32 = 0;
    /// The counter clock (`partita_sys::time::CounterClock`): the manager found the host's
    /// time-stamp counter fit (`partita_sys::time::counter_clock_unsupported`).
    pub const COUNTER: u32 = 1;
}

/// Multiple module schedules: the table sizes and the seqlock protocol of the schedule fields.
pub mod schedule {
    use super::{ControlBlock, Text};
    use core::sync::atomic::{fence, Ordering};

    /// Entries of the schedule table.
    pub const MAX_SCHEDULES: usize = 16;
    /// Bytes per schedule name (ARINC 653 names have at most 30 characters).
    pub const NAME_LEN: usize = 32;

    /// The timing and status a partition runs under in the current module schedule.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub struct Timing {
        /// `PeriodSeconds` in ns.
        pub period: i64,
        /// `PeriodDurationSeconds` in ns.
        pub duration: i64,
        /// APEX time of the partition's first period start under this schedule.
        pub period_origin: i64,
        /// Major frame of the schedule, ns.
        pub major_frame: i64,
        /// Identifier of the current schedule.
        pub current: i32,
        /// Identifier of the schedule that runs from the next frame boundary.
        pub next: i32,
        /// APEX time of the last switch (0: none).
        pub last_switch: i64,
        /// The partition may call SET_MODULE_SCHEDULE.
        pub may_set: bool,
    }

    impl ControlBlock {
        /// Writes `t` (manager side): readers never see a mix of old and new values.
        pub fn write_schedule(&self, t: &Timing) {
            let s = self.schedule_seq.load(Ordering::Relaxed);
            self.schedule_seq
                .store(s.wrapping_add(1) | 1, Ordering::Relaxed);
            fence(Ordering::Release);
            self.period_ns.store(t.period, Ordering::Relaxed);
            self.duration_ns.store(t.duration, Ordering::Relaxed);
            self.period_origin_ns
                .store(t.period_origin, Ordering::Relaxed);
            self.major_frame_ns.store(t.major_frame, Ordering::Relaxed);
            self.schedule_current.store(t.current, Ordering::Relaxed);
            self.schedule_next.store(t.next, Ordering::Relaxed);
            self.schedule_last_switch_ns
                .store(t.last_switch, Ordering::Relaxed);
            self.schedule_may_set
                .store(u32::from(t.may_set), Ordering::Relaxed);
            self.schedule_seq
                .store((s | 1).wrapping_add(1), Ordering::Release);
        }

        /// Reads the schedule fields consistently (partition side), with the seqlock word they
        /// belong to; `None` if the writer never finished (a manager that died mid-write).
        pub fn read_schedule(&self) -> Option<(u32, Timing)> {
            for _ in 0..1_000_000 {
                let s1 = self.schedule_seq.load(Ordering::Acquire);
                if s1 & 1 == 1 {
                    core::hint::spin_loop();
                    continue;
                }
                let t = Timing {
                    period: self.period_ns.load(Ordering::Relaxed),
                    duration: self.duration_ns.load(Ordering::Relaxed),
                    period_origin: self.period_origin_ns.load(Ordering::Relaxed),
                    major_frame: self.major_frame_ns.load(Ordering::Relaxed),
                    current: self.schedule_current.load(Ordering::Relaxed),
                    next: self.schedule_next.load(Ordering::Relaxed),
                    last_switch: self.schedule_last_switch_ns.load(Ordering::Relaxed),
                    may_set: self.schedule_may_set.load(Ordering::Relaxed) != 0,
                };
                fence(Ordering::Acquire);
                if self.schedule_seq.load(Ordering::Relaxed) == s1 {
                    return Some((s1, t));
                }
            }
            None
        }

        /// Stores the schedule table (manager side, before the partition starts).
        pub fn set_schedule_table(&self, table: &[(i32, &str)]) {
            let n = table.len().min(MAX_SCHEDULES);
            for (i, (id, name)) in table.iter().take(n).enumerate() {
                self.schedule_ids[i].store(*id, Ordering::Relaxed);
                Text::store(&self.schedule_names[i], name);
            }
            self.schedule_count.store(n as u32, Ordering::Release);
        }

        /// The schedule table: (identifier, name up to the first NUL).
        pub fn schedule_table(&self) -> impl Iterator<Item = (i32, Text<NAME_LEN>)> + '_ {
            let n = (self.schedule_count.load(Ordering::Acquire) as usize).min(MAX_SCHEDULES);
            (0..n).map(|i| {
                (
                    self.schedule_ids[i].load(Ordering::Relaxed),
                    Text::load(&self.schedule_names[i]),
                )
            })
        }
    }
}

/// Extension-service mailbox: the partition posts a request (code + arguments), rings the
/// manager (a futex wake of [`Mailbox::state`], on which the partition's service thread in the
/// manager sleeps), and waits on
/// [`Mailbox::state`] (a shared futex) for the reply the manager writes. Generic: any request
/// code fits; the manager validates everything (the partition is untrusted).
#[repr(C)]
pub struct Mailbox {
    /// [`crate::mailbox::IDLE`], [`crate::mailbox::POSTED`] (set by the partition) or [`crate::mailbox::REPLIED`]
    /// (set by the manager); a shared futex word.
    pub state: AtomicU32,
    /// Sequence number of the posted request (chosen by the partition).
    pub seq: AtomicU32,
    /// Request code (a [`crate::mailbox::RequestCode`]).
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
    pub reply: [AtomicU64; crate::mailbox::REPLY_WORDS],
}

impl Mailbox {
    /// Stores `bytes` (at most `REPLY_WORDS * 8`, the rest is cut) as the reply payload.
    pub fn write_reply(&self, bytes: &[u8]) {
        let n = bytes.len().min(crate::mailbox::REPLY_WORDS * 8);
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

    /// The reply payload: the buffer and its `reply_len` significant bytes (bounded by the
    /// payload size).
    pub fn read_reply(&self) -> ([u8; crate::mailbox::REPLY_BYTES], usize) {
        let n = (self.reply_len.load(Ordering::Relaxed) as usize).min(crate::mailbox::REPLY_BYTES);
        let mut out = [0u8; crate::mailbox::REPLY_BYTES];
        for (w, chunk) in self.reply.iter().zip(out.chunks_exact_mut(8)) {
            chunk.copy_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
        }
        (out, n)
    }
}

const _: () = assert!(core::mem::size_of::<ControlBlock>() <= SIZE);

impl ControlBlock {
    /// Whether magic and version match this build.
    pub fn is_valid(&self) -> bool {
        self.magic.load(Ordering::Acquire) == MAGIC
            && self.version.load(Ordering::Acquire) == VERSION
    }

    /// Stores `name` (truncated to 31 bytes, NUL-padded).
    pub fn set_name(&self, name: &str) {
        Text::store(&self.name, name);
    }

    /// The stored name, up to the first NUL.
    pub fn name(&self) -> Text<32> {
        Text::load(&self.name)
    }

    /// The operating mode the partition published, validated.
    pub fn operating_mode(&self) -> Result<OperatingMode, DecodeError> {
        Ok(OperatingMode::try_from(self.mode.load(Ordering::Acquire))?)
    }
}

/// A NUL-padded name read from shared memory: at most `N` bytes, up to the first NUL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Text<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> Text<N> {
    /// Stores `text` into `slots`: at most `N - 1` bytes, NUL-padded (so always terminated).
    fn store(slots: &[AtomicU8; N], text: &str) {
        let bytes = text.as_bytes();
        for (i, slot) in slots.iter().enumerate() {
            let b = if i < N - 1 {
                bytes.get(i).copied().unwrap_or(0)
            } else {
                0
            };
            slot.store(b, Ordering::Relaxed);
        }
    }

    fn load(slots: &[AtomicU8; N]) -> Self {
        let mut bytes = [0u8; N];
        for (b, s) in bytes.iter_mut().zip(slots) {
            *b = s.load(Ordering::Relaxed);
        }
        let len = bytes.iter().position(|&b| b == 0).unwrap_or(N);
        Text { bytes, len }
    }

    /// The bytes up to the first NUL.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}
