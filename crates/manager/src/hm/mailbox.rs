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
//! Reply payloads (little-endian 64-bit words, see docs/health-monitor.md):
//! - GET_A_PARTITION_STATUS: period, duration, identifier, lock level, operating mode, start
//!   condition, assigned cores, restarts, HM events, windows, has-a-process, system partition;
//! - GET_HM_LOG_STATUS: records made, oldest index kept, records kept, evicted, capacity;
//! - READ_HM_LOG: index, time, partition id (-1: module), process (-3: none), system state,
//!   error code, level, action, identifier, message length, then the message bytes.

use super::logbook::{level_value, MEMORY_CAPACITY};
use super::table::code_value;
use super::Hm;
use crate::partition::{Life, Partition};
use partita_sys::control::mailbox::{self, request};
use partita_sys::control::mode;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// RETURN_CODE_TYPE values.
mod rc {
    pub const NO_ERROR: u32 = 0;
    pub const NO_ACTION: u32 = 1;
    pub const INVALID_PARAM: u32 = 3;
    pub const INVALID_CONFIG: u32 = 4;
    pub const INVALID_MODE: u32 = 5;
}

/// Bytes of the READ_HM_LOG header before the message.
pub(crate) const LOG_ENTRY_HEADER: usize = 80;

/// What serving the mailbox produced, for the module log.
pub(crate) enum Served {
    /// Nothing was posted.
    NothingPosted,
    /// Answered; an optional line for the module log.
    Answered(Option<String>),
}

/// Serves the request posted by partition `caller`, if any.
pub(crate) fn serve(hm: &Hm, parts: &[Arc<Partition>], caller: usize) -> Served {
    let me = &parts[caller];
    let mb = &me.control().mbox;
    if mb.state.load(Ordering::Acquire) != mailbox::POSTED {
        return Served::NothingPosted;
    }
    let seq = mb.seq.load(Ordering::Acquire);
    let req = mb.request.load(Ordering::Acquire);
    let args: Vec<i64> = mb.args.iter().map(|a| a.load(Ordering::Acquire)).collect();
    let known = matches!(
        req,
        request::GET_A_PARTITION_STATUS
            | request::SET_A_PARTITION_MODE
            | request::GET_HM_LOG_STATUS
            | request::READ_HM_LOG
    );
    let mut note = None;
    let (status, reply) = if !known || !me.spec().system {
        let what = if known {
            format!(
                "{} is reserved to system partitions",
                request_name(req).unwrap_or("?")
            )
        } else {
            format!("unknown extension request {req}")
        };
        let rec = hm.refused_request(parts, caller, what.clone());
        note = rec.map(|rec| {
            format!(
                "HM #{}: partition {} {what}: {} ({}, action {})",
                rec.seq,
                me.spec().name,
                if known {
                    "INVALID_CONFIG"
                } else {
                    "INVALID_PARAM"
                },
                rec.code.as_str(),
                rec.action.name()
            )
        });
        (
            if known {
                rc::INVALID_CONFIG
            } else {
                rc::INVALID_PARAM
            },
            Vec::new(),
        )
    } else {
        match req {
            request::GET_A_PARTITION_STATUS => partition_status(hm, parts, args[0]),
            request::SET_A_PARTITION_MODE => {
                let (s, n) = set_mode(hm, parts, caller, args[0], args[1]);
                note = n;
                (s, Vec::new())
            }
            request::GET_HM_LOG_STATUS => {
                let st = hm.status();
                (
                    rc::NO_ERROR,
                    words(&[
                        st.total as i64,
                        st.first as i64,
                        st.kept as i64,
                        st.evicted as i64,
                        MEMORY_CAPACITY as i64,
                    ]),
                )
            }
            _ => read_log(hm, args[0]),
        }
    };
    mb.write_reply(&reply);
    mb.status.store(status, Ordering::Relaxed);
    mb.reply_seq.store(seq, Ordering::Relaxed);
    mb.state.store(mailbox::REPLIED, Ordering::Release);
    partita_sys::futex::wake(&mb.state, u32::MAX, true);
    Served::Answered(note)
}

fn request_name(req: u32) -> Option<&'static str> {
    Some(match req {
        request::GET_A_PARTITION_STATUS => "GET_A_PARTITION_STATUS",
        request::SET_A_PARTITION_MODE => "SET_A_PARTITION_MODE",
        request::GET_HM_LOG_STATUS => "GET_HM_LOG_STATUS",
        request::READ_HM_LOG => "READ_HM_LOG",
        _ => return None,
    })
}

fn words(w: &[i64]) -> Vec<u8> {
    w.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn find(parts: &[Arc<Partition>], id: i64) -> Option<usize> {
    parts.iter().position(|p| i64::from(p.id()) == id)
}

/// The operating mode the manager reports for a partition.
pub(crate) fn reported_mode(p: &Partition, life: Life) -> u32 {
    match life {
        Life::Idle | Life::Dead => mode::IDLE,
        Life::RestartPending(m) => m,
        Life::Live => p.control().mode.load(Ordering::Acquire),
    }
}

fn partition_status(hm: &Hm, parts: &[Arc<Partition>], id: i64) -> (u32, Vec<u8>) {
    let Some(i) = find(parts, id) else {
        return (rc::INVALID_PARAM, Vec::new());
    };
    let p = &parts[i];
    let d = p.state.lock().expect("partition state");
    let c = p.control();
    let w = [
        p.plan.initial_timing(i).period as i64,
        p.plan.initial_timing(i).duration as i64,
        i64::from(p.id()),
        i64::from(c.lock_level.load(Ordering::Acquire)),
        i64::from(reported_mode(p, d.life)),
        i64::from(c.start_condition.load(Ordering::Acquire)),
        p.cpus.len() as i64,
        i64::from(d.restarts),
        hm.events_of(i) as i64,
        d.windows as i64,
        i64::from(d.pid > 0),
        i64::from(p.spec().system),
    ];
    (rc::NO_ERROR, words(&w))
}

fn set_mode(
    hm: &Hm,
    parts: &[Arc<Partition>],
    caller: usize,
    id: i64,
    m: i64,
) -> (u32, Option<String>) {
    let Some(i) = find(parts, id) else {
        return (rc::INVALID_PARAM, None);
    };
    let Ok(m) = u32::try_from(m) else {
        return (rc::INVALID_PARAM, None);
    };
    let p = &parts[i];
    let mut d = p.state.lock().expect("partition state");
    let current = reported_mode(p, d.life);
    let status = match m {
        // A partition enters NORMAL only by itself, at the end of its initialisation.
        mode::NORMAL if current == mode::NORMAL => rc::NO_ACTION,
        mode::NORMAL => rc::INVALID_MODE,
        mode::IDLE if d.life == Life::Idle || d.life == Life::Dead => rc::NO_ACTION,
        mode::IDLE => {
            d.life = Life::Idle;
            rc::NO_ERROR
        }
        mode::COLD_START | mode::WARM_START => {
            d.life = Life::RestartPending(m);
            d.hm_restart = Some(super::start_condition::PARTITION_RESTART);
            rc::NO_ERROR
        }
        _ => return (rc::INVALID_PARAM, None),
    };
    drop(d);
    if status != rc::NO_ERROR {
        return (status, None);
    }
    hm.work.fetch_add(1, Ordering::AcqRel);
    let name = match m {
        mode::IDLE => "IDLE",
        mode::COLD_START => "COLD_START",
        _ => "WARM_START",
    };
    (
        rc::NO_ERROR,
        Some(format!(
            "system partition {} sets partition {} to {name}",
            parts[caller].spec().name,
            p.spec().name
        )),
    )
}

fn read_log(hm: &Hm, index: i64) -> (u32, Vec<u8>) {
    let Some(r) = u64::try_from(index).ok().and_then(|i| hm.record(i)) else {
        return (rc::INVALID_PARAM, Vec::new());
    };
    let room = mailbox::REPLY_WORDS * 8 - LOG_ENTRY_HEADER;
    let msg = r.message.as_bytes();
    let msg = &msg[..msg.len().min(room)];
    let mut out = words(&[
        r.seq as i64,
        r.time_ns,
        r.partition_id.map_or(-1, i64::from),
        r.process.map_or(-3, i64::from),
        i64::from(r.state_number),
        i64::from(code_value(r.code)),
        i64::from(level_value(r.level)),
        i64::from(r.action.value()),
        i64::from(r.identifier),
        msg.len() as i64,
    ]);
    debug_assert_eq!(out.len(), LOG_ENTRY_HEADER);
    out.extend_from_slice(msg);
    (rc::NO_ERROR, out)
}
