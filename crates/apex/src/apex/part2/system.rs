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
use partita_abi::mailbox::{self, Request, REPLY_BYTES};
use partita_abi::DecodeError;
use partita_apex_core::{OperatingMode, ReturnCode};
use std::sync::atomic::Ordering;
use std::sync::Mutex;

pub use partita_abi::mailbox::{APartitionStatus, HmLogEntry, HmLogStatus};

/// How long a request waits for the manager's answer (CLOCK_MONOTONIC; time spent frozen
/// outside the partition's windows counts, so it is generous). Then `NotAvailable`.
pub const REPLY_TIMEOUT_NS: u64 = 2_000_000_000;

/// Bytes of a logbook entry's message that a [`HmLogEntry`] carries at most.
pub const HM_LOG_MESSAGE_SIZE: usize = partita_abi::HM_LOG_MESSAGE_SIZE;

static ONE_AT_A_TIME: Mutex<u32> = Mutex::new(0);

/// A reply the runtime cannot decode (a manager of another version): the service is not
/// available.
fn undecodable(_: DecodeError) -> ReturnCode {
    ReturnCode::NotAvailable
}

/// Posts `req` and waits for the reply payload (the buffer and its length).
fn call(req: Request) -> Result<([u8; REPLY_BYTES], usize), ReturnCode> {
    let rt = runtime::get()?;
    // Standalone: no manager, no configuration granting anything.
    let c = rt.control().ok_or(ReturnCode::InvalidConfig)?;
    let mb = &c.mbox;
    let mut seq_guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    *seq_guard = seq_guard.wrapping_add(1);
    let seq = *seq_guard;
    for (slot, v) in mb.args.iter().zip(req.args()) {
        slot.store(v, Ordering::Relaxed);
    }
    mb.request.store(req.code().raw(), Ordering::Relaxed);
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
    match ReturnCode::from_raw(status) {
        Some(ReturnCode::NoError) => Ok(reply),
        Some(e) => Err(e),
        None => Err(ReturnCode::NotAvailable),
    }
}

/// GET_A_PARTITION_STATUS: the status of partition `id` (system partitions only).
/// Errors: `InvalidConfig` (the caller is not a system partition), `InvalidParam` (no such
/// partition), `NotAvailable` (no answer from the manager).
pub fn get_a_partition_status(id: i32) -> Result<APartitionStatus, ReturnCode> {
    let (b, n) = call(Request::GetAPartitionStatus { partition: id })?;
    APartitionStatus::decode(&b[..n]).map_err(undecodable)
}

/// SET_A_PARTITION_MODE: sets partition `id` to IDLE (its processes are killed and its windows
/// stay empty), COLD_START or WARM_START (it is re-created, released at its next window).
/// NORMAL: `NoAction` when it already is in NORMAL, else `InvalidMode` (a partition reaches
/// NORMAL only from its own initialisation). IDLE of an IDLE partition: `NoAction`.
/// Errors as [`get_a_partition_status`].
pub fn set_a_partition_mode(id: i32, mode: OperatingMode) -> Result<(), ReturnCode> {
    call(Request::SetAPartitionMode {
        partition: id,
        mode,
    })
    .map(|_| ())
}

/// GET_HM_LOG_STATUS: the logbook's counters (system partitions only).
pub fn get_hm_log_status() -> Result<HmLogStatus, ReturnCode> {
    let (b, n) = call(Request::GetHmLogStatus)?;
    HmLogStatus::decode(&b[..n]).map_err(undecodable)
}

/// READ_HM_LOG: logbook record `index` (system partitions only). `InvalidParam` when it is
/// negative or not readable (not made yet, or evicted: see [`get_hm_log_status`]).
pub fn read_hm_log(index: i64) -> Result<HmLogEntry, ReturnCode> {
    let (b, n) = call(Request::ReadHmLog { index })?;
    HmLogEntry::decode(&b[..n]).map_err(undecodable)
}
