// SPDX-License-Identifier: MIT OR Apache-2.0
//! The manager's side of the extension-service mailbox (`ControlBlock::mbox`).
//!
//! A partition posts a request and wakes the mailbox's state word; its service thread
//! (crate::service, at the runtime's timer priority on the partition's cores) calls [`serve`]
//! at once (the partition waits on the same shared futex, with a time-out). Everything in the mailbox is untrusted: request codes and arguments are checked
//! and the caller's right to the service comes from the configuration (`SystemPartition`), not
//! from anything the partition says. A normal partition asking for a system-partition service
//! gets INVALID_CONFIG and an ILLEGAL_REQUEST in the logbook.
//!
//! Requests are decoded and replies encoded with the records of [`partita_abi::mailbox`]: an
//! unknown request code is INVALID_PARAM (and an ILLEGAL_REQUEST in the logbook), a malformed
//! argument INVALID_PARAM with a line in the module log.

use super::logbook::MEMORY_CAPACITY;
use super::Hm;
use crate::lifecycle::{Change, Life, LifeCycle};
use partita_abi::mailbox::{
    self, APartitionStatus, HmLogEntry, HmLogStatus, Request, RequestCode, MODULE_PARTITION_ID,
    REPLY_BYTES,
};
use partita_abi::{OperatingMode, ReturnCode, StartCondition, HM_LOG_NO_PROCESS};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// A reply: its return code, its payload and its length.
type Reply = (ReturnCode, [u8; REPLY_BYTES], usize);

fn status_only(rc: ReturnCode) -> Reply {
    (rc, [0; REPLY_BYTES], 0)
}

/// What serving the mailbox produced, for the module log.
pub(crate) enum Served {
    /// Nothing was posted.
    NothingPosted,
    /// Answered; an optional line for the module log.
    Answered(Option<String>),
}

/// Serves the request posted by partition `caller`, if any.
pub(crate) fn serve<P: LifeCycle + ?Sized>(hm: &Hm, parts: &[Arc<P>], caller: usize) -> Served {
    let me = &parts[caller];
    let mb = me.mailbox();
    if mb.state.load(Ordering::Acquire) != mailbox::POSTED {
        return Served::NothingPosted;
    }
    let seq = mb.seq.load(Ordering::Acquire);
    let code = mb.request.load(Ordering::Acquire);
    let args: [i64; mailbox::ARGS] = std::array::from_fn(|i| mb.args[i].load(Ordering::Acquire));
    let known = RequestCode::from_raw(code);
    let ((status, reply, len), note) = match known {
        Some(k) if me.is_system() => match Request::decode(code, args) {
            Ok(req) => answer(hm, parts, caller, req),
            Err(e) => (
                status_only(ReturnCode::InvalidParam),
                Some(format!(
                    "partition {}: malformed {} request refused (INVALID_PARAM): {e}",
                    me.name(),
                    k.c_name()
                )),
            ),
        },
        _ => {
            let (what, rc) = match known {
                Some(k) => (
                    format!("{} is reserved to system partitions", k.c_name()),
                    ReturnCode::InvalidConfig,
                ),
                None => (
                    format!("unknown extension request {code}"),
                    ReturnCode::InvalidParam,
                ),
            };
            let rec = hm.refused_request(parts, caller, what.clone());
            let note = rec.map(|rec| {
                format!(
                    "HM #{}: partition {} {what}: {} ({}, action {})",
                    rec.seq,
                    me.name(),
                    rc.c_name(),
                    rec.code.name(),
                    rec.action.name()
                )
            });
            (status_only(rc), note)
        }
    };
    mb.write_reply(&reply[..len]);
    mb.status.store(status.raw(), Ordering::Relaxed);
    mb.reply_seq.store(seq, Ordering::Relaxed);
    mb.state.store(mailbox::REPLIED, Ordering::Release);
    partita_sys::futex::wake(&mb.state, u32::MAX, true);
    Served::Answered(note)
}

/// Carries out a decoded request of system partition `caller`.
fn answer<P: LifeCycle + ?Sized>(
    hm: &Hm,
    parts: &[Arc<P>],
    caller: usize,
    req: Request,
) -> (Reply, Option<String>) {
    match req {
        Request::GetAPartitionStatus { partition } => partition_status(hm, parts, partition),
        Request::SetAPartitionMode { partition, mode } => {
            let (rc, note) = set_mode(hm, parts, caller, partition, mode);
            (status_only(rc), note)
        }
        Request::GetHmLogStatus => {
            let st = hm.status();
            let status = HmLogStatus {
                total: st.total as i64,
                first_index: st.first as i64,
                kept: st.kept as i64,
                evicted: st.evicted as i64,
                capacity: MEMORY_CAPACITY as i64,
            };
            (encoded(|b| status.encode(b)), None)
        }
        Request::ReadHmLog { index } => (read_log(hm, index), None),
    }
}

/// A NO_ERROR reply with the payload `encode` writes (every reply record fits the payload).
fn encoded(encode: impl FnOnce(&mut [u8]) -> Result<usize, partita_abi::EncodeError>) -> Reply {
    let mut b = [0u8; REPLY_BYTES];
    let n = encode(&mut b).expect("every reply record fits the mailbox payload");
    (ReturnCode::NoError, b, n)
}

fn find<P: LifeCycle + ?Sized>(parts: &[Arc<P>], id: i32) -> Option<usize> {
    parts.iter().position(|p| p.id() == id)
}

fn partition_status<P: LifeCycle + ?Sized>(
    hm: &Hm,
    parts: &[Arc<P>],
    id: i32,
) -> (Reply, Option<String>) {
    let Some(i) = find(parts, id) else {
        return (status_only(ReturnCode::InvalidParam), None);
    };
    let p = &parts[i];
    let s = p.status();
    let operating_mode = match s.mode {
        Ok(m) => m,
        Err(e) => {
            let note = format!("partition {} publishes an invalid mode: {e}", p.name());
            return (status_only(ReturnCode::NotAvailable), Some(note));
        }
    };
    let status = APartitionStatus {
        period: s.period as i64,
        duration: s.duration as i64,
        identifier: p.id(),
        lock_level: s.lock_level,
        operating_mode,
        start_condition: s.start_condition,
        num_assigned_cores: s.cores,
        restarts: s.restarts,
        hm_events: hm.events_of(i) as i64,
        windows: s.windows as i64,
        has_process: s.has_process,
        system: p.is_system(),
    };
    (encoded(|b| status.encode(b)), None)
}

fn set_mode<P: LifeCycle + ?Sized>(
    hm: &Hm,
    parts: &[Arc<P>],
    caller: usize,
    id: i32,
    m: OperatingMode,
) -> (ReturnCode, Option<String>) {
    let Some(i) = find(parts, id) else {
        return (ReturnCode::InvalidParam, None);
    };
    let p = &parts[i];
    let mut status = ReturnCode::NoError;
    p.change(&mut |life, current| {
        let (rc, change) = mode_change(life, current == Ok(OperatingMode::Normal), m);
        status = rc;
        change
    });
    if status != ReturnCode::NoError {
        return (status, None);
    }
    hm.work.fetch_add(1, Ordering::AcqRel);
    (
        ReturnCode::NoError,
        Some(format!(
            "system partition {} sets partition {} to {m}",
            parts[caller].name(),
            p.name()
        )),
    )
}

/// What SET_A_PARTITION_MODE to `m` does to a partition in state `life` (`normal`: it reports
/// NORMAL): its return code and the change asked for.
fn mode_change(life: Life, normal: bool, m: OperatingMode) -> (ReturnCode, Option<Change>) {
    match m {
        // A partition enters NORMAL only by itself, at the end of its initialisation.
        OperatingMode::Normal if normal => (ReturnCode::NoAction, None),
        OperatingMode::Normal => (ReturnCode::InvalidMode, None),
        OperatingMode::Idle if life == Life::Idle || life == Life::Dead => {
            (ReturnCode::NoAction, None)
        }
        OperatingMode::Idle => (ReturnCode::NoError, Some(Change::Idle)),
        OperatingMode::ColdStart | OperatingMode::WarmStart => (
            ReturnCode::NoError,
            Some(Change::Restart {
                mode: m,
                condition: StartCondition::PartitionRestart,
            }),
        ),
    }
}

fn read_log(hm: &Hm, index: i64) -> Reply {
    let Some(r) = u64::try_from(index).ok().and_then(|i| hm.record(i)) else {
        return status_only(ReturnCode::InvalidParam);
    };
    let entry = HmLogEntry {
        index: r.seq as i64,
        time: r.time_ns,
        partition_id: r.partition_id.unwrap_or(MODULE_PARTITION_ID),
        process_id: r.process.unwrap_or(HM_LOG_NO_PROCESS),
        system_state: r.state,
        error_code: r.code,
        level: r.level,
        action: r.action,
        identifier: r.identifier,
        length: 0,
        message: [0; partita_abi::HM_LOG_MESSAGE_SIZE],
    }
    .with_message(r.message.as_bytes());
    encoded(|b| entry.encode(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_a_partition_mode_follows_the_standard() {
        use OperatingMode as M;
        // NORMAL only by the partition itself.
        assert_eq!(
            mode_change(Life::Live, true, M::Normal),
            (ReturnCode::NoAction, None)
        );
        assert_eq!(
            mode_change(Life::Live, false, M::Normal),
            (ReturnCode::InvalidMode, None)
        );
        assert_eq!(
            mode_change(Life::Live, true, M::Idle),
            (ReturnCode::NoError, Some(Change::Idle))
        );
        for stopped in [Life::Idle, Life::Dead] {
            assert_eq!(
                mode_change(stopped, false, M::Idle),
                (ReturnCode::NoAction, None)
            );
        }
        assert_eq!(
            mode_change(Life::Idle, false, M::WarmStart),
            (
                ReturnCode::NoError,
                Some(Change::Restart {
                    mode: M::WarmStart,
                    condition: StartCondition::PartitionRestart
                })
            )
        );
    }
}
