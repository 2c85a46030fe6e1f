// SPDX-License-Identifier: MIT OR Apache-2.0
//! System-partition services: a Partita extension in the style of ARINC 653 Part 2 (not part
//! of ARINC 653 Part 1). A partition configured with `SystemPartition="true"` may read another
//! partition's status, set its operating mode, and read the module's health-monitor logbook.
//! A normal partition calling them gets `InvalidConfig` (its configuration does not grant the
//! service) and the manager records an ILLEGAL_REQUEST in the logbook.
//!
//! Mechanism: the request goes through the control block's mailbox
//! ([`partita_sys::control::Mailbox`]): post, wake the partition's service thread in the
//! manager (a futex wake of the mailbox's state word), wait (shared futex, [`REPLY_TIMEOUT_NS`]) for the reply. The manager checks
//! the caller's right from the configuration; nothing the partition writes is trusted. The
//! calling thread blocks in the kernel while it waits (like any non-APEX system call).

use crate::runtime;
use partita_apex_core::{OperatingMode, ReturnCode};
use partita_sys::control::mailbox::{self, request};
use std::sync::atomic::Ordering;
use std::sync::Mutex;

/// How long a request waits for the manager's answer (CLOCK_MONOTONIC; time spent frozen
/// outside the partition's windows counts, so it is generous). Then `NotAvailable`.
pub const REPLY_TIMEOUT_NS: u64 = 2_000_000_000;

/// Bytes of a logbook entry's message that a [`HmLogEntry`] carries at most.
pub const HM_LOG_MESSAGE_SIZE: usize = crate::types::HM_LOG_MESSAGE_SIZE;

/// Status of a partition as the manager sees it (GET_A_PARTITION_STATUS).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct APartitionStatus {
    /// Partition period, ns.
    pub period: i64,
    /// Partition duration, ns.
    pub duration: i64,
    /// Partition identifier.
    pub identifier: i32,
    /// Current preemption lock level.
    pub lock_level: i32,
    /// Operating mode (OPERATING_MODE_TYPE value; IDLE when it has no process).
    pub operating_mode: u32,
    /// Start condition of its current incarnation.
    pub start_condition: u32,
    /// Cores assigned.
    pub num_assigned_cores: u32,
    /// Restarts carried out.
    pub restarts: u32,
    /// Health-monitor events recorded for it.
    pub hm_events: i64,
    /// Windows it was scheduled in.
    pub windows: i64,
    /// Whether its Linux process exists.
    pub has_process: bool,
    /// Whether it is a system partition.
    pub system: bool,
}

/// Counters of the module logbook (GET_HM_LOG_STATUS).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HmLogStatus {
    /// Records made since the module started (the next record's index).
    pub total: i64,
    /// Index of the oldest record still readable.
    pub first_index: i64,
    /// Records readable.
    pub kept: i64,
    /// Records no longer readable (evicted; still in the manager's log file, if any).
    pub evicted: i64,
    /// Records the manager keeps readable.
    pub capacity: i64,
}

/// One logbook record (READ_HM_LOG).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HmLogEntry {
    /// Index (sequence number within the run).
    pub index: i64,
    /// Time since the module epoch, ns.
    pub time: i64,
    /// Partition identifier, -1 for a module-wide error.
    pub partition_id: i32,
    /// APEX process as in report records (-1 main process, -2 error handler, -3 none).
    pub process_id: i32,
    /// System state number (1 MODULE_INIT … 5 OS, docs/health-monitor.md).
    pub system_state: u32,
    /// ERROR_CODE_TYPE value.
    pub error_code: u32,
    /// Level: 0 module, 1 partition, 2 process.
    pub level: u32,
    /// Action: 0 error handler, 1 IGNORE, 2 IDLE, 3 COLD_START, 4 WARM_START, 5 SHUTDOWN,
    /// 6 RESET.
    pub action: u32,
    /// Error identifier matched in the HM tables.
    pub identifier: u32,
    /// Message (at most [`HM_LOG_MESSAGE_SIZE`] bytes).
    pub message: Vec<u8>,
}

static ONE_AT_A_TIME: Mutex<u32> = Mutex::new(0);

fn return_code(v: u32) -> ReturnCode {
    match v {
        1 => ReturnCode::NoAction,
        2 => ReturnCode::NotAvailable,
        3 => ReturnCode::InvalidParam,
        4 => ReturnCode::InvalidConfig,
        5 => ReturnCode::InvalidMode,
        6 => ReturnCode::TimedOut,
        _ => ReturnCode::NoError,
    }
}

/// Posts `req` with `args` and waits for the reply payload.
fn call(req: u32, args: [i64; 4]) -> Result<Vec<u8>, ReturnCode> {
    let rt = runtime::get()?;
    // Standalone: no manager, no configuration granting anything.
    let c = rt.control().ok_or(ReturnCode::InvalidConfig)?;
    let mb = &c.mbox;
    let mut seq_guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    *seq_guard = seq_guard.wrapping_add(1);
    let seq = *seq_guard;
    for (slot, v) in mb.args.iter().zip(args) {
        slot.store(v, Ordering::Relaxed);
    }
    mb.request.store(req, Ordering::Relaxed);
    mb.seq.store(seq, Ordering::Relaxed);
    mb.state.store(mailbox::POSTED, Ordering::Release);
    // The partition's service thread in the manager sleeps on this word.
    partita_sys::futex::wake(&mb.state, 1, true);
    let deadline = partita_sys::time::monotonic_ns() + REPLY_TIMEOUT_NS;
    loop {
        let s = mb.state.load(Ordering::Acquire);
        if s == mailbox::REPLIED && mb.reply_seq.load(Ordering::Acquire) == seq {
            break;
        }
        if partita_sys::time::monotonic_ns() >= deadline {
            // One last look: the partition may have been frozen past the deadline.
            if mb.state.load(Ordering::Acquire) == mailbox::REPLIED
                && mb.reply_seq.load(Ordering::Acquire) == seq
            {
                break;
            }
            return Err(ReturnCode::NotAvailable);
        }
        partita_sys::futex::wait(&mb.state, s, Some(deadline), true);
    }
    let status = mb.status.load(Ordering::Acquire);
    let reply = mb.read_reply();
    mb.state.store(mailbox::IDLE, Ordering::Release);
    match return_code(status) {
        ReturnCode::NoError => Ok(reply),
        e => Err(e),
    }
}

fn word(b: &[u8], i: usize) -> i64 {
    b.get(i * 8..i * 8 + 8)
        .and_then(|s| s.try_into().ok())
        .map_or(0, i64::from_le_bytes)
}

/// GET_A_PARTITION_STATUS: the status of partition `id` (system partitions only).
/// Errors: `InvalidConfig` (the caller is not a system partition), `InvalidParam` (no such
/// partition), `NotAvailable` (no answer from the manager).
pub fn get_a_partition_status(id: i32) -> Result<APartitionStatus, ReturnCode> {
    let b = call(request::GET_A_PARTITION_STATUS, [i64::from(id), 0, 0, 0])?;
    Ok(APartitionStatus {
        period: word(&b, 0),
        duration: word(&b, 1),
        identifier: word(&b, 2) as i32,
        lock_level: word(&b, 3) as i32,
        operating_mode: word(&b, 4) as u32,
        start_condition: word(&b, 5) as u32,
        num_assigned_cores: word(&b, 6) as u32,
        restarts: word(&b, 7) as u32,
        hm_events: word(&b, 8),
        windows: word(&b, 9),
        has_process: word(&b, 10) != 0,
        system: word(&b, 11) != 0,
    })
}

/// SET_A_PARTITION_MODE: sets partition `id` to IDLE (its processes are killed and its windows
/// stay empty), COLD_START or WARM_START (it is re-created, released at its next window).
/// NORMAL: `NoAction` when it already is in NORMAL, else `InvalidMode` (a partition reaches
/// NORMAL only from its own initialisation). IDLE of an IDLE partition: `NoAction`.
/// Errors as [`get_a_partition_status`].
pub fn set_a_partition_mode(id: i32, mode: OperatingMode) -> Result<(), ReturnCode> {
    call(
        request::SET_A_PARTITION_MODE,
        [i64::from(id), mode as u32 as i64, 0, 0],
    )
    .map(|_| ())
}

/// GET_HM_LOG_STATUS: the logbook's counters (system partitions only).
pub fn get_hm_log_status() -> Result<HmLogStatus, ReturnCode> {
    let b = call(request::GET_HM_LOG_STATUS, [0; 4])?;
    Ok(HmLogStatus {
        total: word(&b, 0),
        first_index: word(&b, 1),
        kept: word(&b, 2),
        evicted: word(&b, 3),
        capacity: word(&b, 4),
    })
}

/// READ_HM_LOG: logbook record `index` (system partitions only). `InvalidParam` when it is
/// not readable (not made yet, or evicted: see [`get_hm_log_status`]).
pub fn read_hm_log(index: i64) -> Result<HmLogEntry, ReturnCode> {
    let b = call(request::READ_HM_LOG, [index, 0, 0, 0])?;
    let len = (word(&b, 9).max(0) as usize).min(HM_LOG_MESSAGE_SIZE);
    let message = b.get(80..80 + len).unwrap_or(&[]).to_vec();
    Ok(HmLogEntry {
        index: word(&b, 0),
        time: word(&b, 1),
        partition_id: word(&b, 2) as i32,
        process_id: word(&b, 3) as i32,
        system_state: word(&b, 4) as u32,
        error_code: word(&b, 5) as u32,
        level: word(&b, 6) as u32,
        action: word(&b, 7) as u32,
        identifier: word(&b, 8) as u32,
        message,
    })
}
