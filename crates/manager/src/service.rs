// SPDX-License-Identifier: MIT OR Apache-2.0
//! One service thread per partition: it answers the partition's extension-service mailbox
//! (`ControlBlock::mbox`: GET_A_PARTITION_STATUS, SET_A_PARTITION_MODE, GET_HM_LOG_STATUS,
//! READ_HM_LOG, see [`crate::hm::mailbox`]) and, where partitions cannot raise their own
//! real-time priorities, its raise requests ([`crate::raise`]).
//!
//! The thread sleeps on both request words of the control block at once (`futex_waitv`); the
//! runtime posts a request and wakes the word. It runs at the runtime's timer priority (run +
//! 1), pinned to the partition's CPUs: a request is answered at once, inside the requesting
//! partition's window and on its cores, whatever the other partitions do (before, mailbox
//! requests were answered by the manager's output thread, at normal priority, after whatever
//! output another partition had queued), and a partition flooding requests or wake-ups only
//! spends its own time. Requests still pending when the window ends may be served in the
//! next window of that core: the one in progress, tens of microseconds at most.

use crate::hm::mailbox::{self, Served};
use crate::hm::Hm;
use crate::output::EventSink;
use crate::partition::Partition;
use partita_sys::control::mailbox::POSTED;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

/// Starts the service thread of every partition. The threads end when their partition is
/// dropped.
pub(crate) fn start(parts: &[Arc<Partition>], hm: &Arc<Hm>, events: &EventSink, rt: bool) {
    let all: Vec<Weak<Partition>> = parts.iter().map(Arc::downgrade).collect();
    for p in parts {
        let (all, hm, events) = (all.clone(), hm.clone(), events.clone());
        let index = p.index;
        let name = format!("partita-svc{index}");
        if let Err(e) = std::thread::Builder::new()
            .name(name)
            .spawn(move || serve(index, all, hm, events, rt))
        {
            // The runtime's requests then time out (NOT_AVAILABLE) or wait: say why.
            eprintln!(
                "partita: no service thread for partition {}: {e}",
                p.spec().name
            );
        }
    }
}

fn serve(index: usize, all: Vec<Weak<Partition>>, hm: Arc<Hm>, events: EventSink, rt: bool) {
    if let Some(p) = all[index].upgrade() {
        if !p.cpus.is_empty() {
            let _ = partita_sys::sched::set_affinity(0, &p.cpus);
        }
    }
    if rt {
        let _ = partita_sys::sched::set_fifo(0, crate::raise::LIMIT);
    }
    // The partition's threads, for the raise broker.
    let mut tids = crate::raise::Threads::new();
    loop {
        let Some(p) = all[index].upgrade() else {
            return;
        };
        let c = p.control();
        let raise_seen = c.raise_request.load(Ordering::Acquire);
        let mbox_seen = c.mbox.state.load(Ordering::Acquire);
        let pid = || p.state.lock().map(|s| s.pid).unwrap_or(0);
        let forged = crate::raise::serve_pending(c, pid, &mut tids);
        if forged.is_some() || mbox_seen == POSTED {
            // Every partition, for the services that read or act on another one.
            let parts: Option<Vec<Arc<Partition>>> = all.iter().map(Weak::upgrade).collect();
            let Some(parts) = parts else { return };
            if let Some(what) = forged {
                refused(&hm, &parts, index, what, &events);
            }
            if mbox_seen == POSTED {
                if let Served::Answered(Some(note)) = mailbox::serve(&hm, &parts, index) {
                    events.event(&note);
                }
            }
            continue;
        }
        if c.raise_request.load(Ordering::Acquire) != c.raise_done.load(Ordering::Acquire) {
            continue;
        }
        // Wakes for a request, or now and then to notice that the partition is gone.
        let deadline = partita_sys::time::monotonic_ns() + 200_000_000;
        let _ = partita_sys::futex::wait_any(
            &[
                (&c.raise_request, raise_seen, true),
                (&c.mbox.state, mbox_seen, true),
            ],
            Some(deadline),
        );
    }
}

/// Records a raise request the runtime never makes (a forged one) as an ILLEGAL_REQUEST of
/// partition `index`.
fn refused(hm: &Hm, parts: &[Arc<Partition>], index: usize, what: String, events: &EventSink) {
    if let Some(rec) = hm.refused_request(parts, index, what.clone()) {
        events.event(&format!(
            "HM #{}: partition {} {what} ({}, action {})",
            rec.seq,
            parts[index].spec().name,
            rec.code.name(),
            rec.action.name()
        ));
    }
}
