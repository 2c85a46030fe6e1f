// SPDX-License-Identifier: MIT OR Apache-2.0
//! The manager's side of the task-creation filter ([`partita_sys::creation`]): one thread per
//! partition incarnation answers its `clone`, `fork` and `vfork` calls: refused with `EAGAIN`
//! when the partition is at its task limit (`pids.current` >= `pids.max`), before the kernel
//! allocates anything, and let through otherwise (the pids cgroup still has the last word).
//!
//! Why: at its limit, every refused creation used to cost the kernel a task structure and a
//! kernel stack, freed later through RCU callbacks in softirq context on the partition's core,
//! in whatever window a grace period ended: a thread bomb retrying at its limit made its
//! neighbours' windows start up to 3 ms late (ftrace, CAVEATS.md). Refused here, nothing is
//! allocated, and the bomb's caller waits for the answer in its own window.
//!
//! The thread runs at the runtime's timer priority (run + 1), pinned to the partition's CPUs,
//! like its service thread (crate::service): a creation is answered at once, in the
//! partition's own time. The refusals are counted with the pids cgroup's own
//! ([`Partition::task_limit_hits`]) for the health monitor's task-limit records.

use crate::partition::Partition;
use partita_sys::creation::{receive_listener, Next};
use std::os::fd::OwnedFd;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

/// Starts the creation thread of `p`'s new incarnation, if it has a creation socket.
pub(crate) fn start(p: &Arc<Partition>, rt: bool) {
    let Some(sock) = p
        .state
        .lock()
        .expect("partition state")
        .creation_sock
        .take()
    else {
        return;
    };
    let weak = Arc::downgrade(p);
    if let Err(e) = std::thread::Builder::new()
        .name(format!("partita-new{}", p.index))
        .spawn(move || serve(weak, sock, rt))
    {
        // The partition's creations then wait for an answer that never comes: say why.
        eprintln!(
            "partita: no task-creation thread for partition {}: {e}",
            p.spec().name
        );
    }
}

fn serve(part: Weak<Partition>, sock: OwnedFd, rt: bool) {
    let Some(p) = part.upgrade() else { return };
    if !p.cpus.is_empty() {
        let _ = partita_sys::sched::set_affinity(0, &p.cpus);
    }
    drop(p);
    if rt {
        let _ = partita_sys::sched::set_fifo(0, crate::raise::LIMIT);
    }
    // Until the child sends its listener (just before execve), or dies without.
    let Ok(Some(listener)) = receive_listener(&sock) else {
        return;
    };
    drop(sock);
    loop {
        match listener.next(200) {
            Ok(Next::Request(r)) => {
                let refuse = match part.upgrade() {
                    Some(p) => {
                        let (full, tasks) = task_count(&p);
                        if full {
                            p.refused_creations.fetch_add(1, Ordering::Relaxed);
                        } else {
                            hint_scheduler(&p, tasks + 1);
                        }
                        full
                    }
                    None => true,
                };
                if listener.answer(r.id, refuse).is_err() {
                    return;
                }
            }
            Ok(Next::Idle) => {
                if part.strong_count() == 0 {
                    return;
                }
            }
            // Every task of this incarnation is gone.
            Ok(Next::Gone) | Err(_) => return,
        }
    }
}

/// Whether partition `p` has as many tasks as its pids cgroup allows (false without one: the
/// kernel decides), and how many it has (0 without a pids cgroup).
fn task_count(p: &Partition) -> (bool, u64) {
    let limit = p.task_limit();
    let n = p
        .groups
        .iter()
        .find_map(|g| g.read("pids.current").ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    (n.is_some_and(|n| n >= limit), n.unwrap_or(0))
}

/// `p` is about to have `tasks` tasks: at each multiple of [`crate::lead::HINT_TASKS`], tell
/// the scheduler threads of its CPUs (they then give it a freeze lead for its next boundary
/// at once, crate::lead::FreezeLead::hint).
fn hint_scheduler(p: &Partition, tasks: u64) {
    let step = u64::from(crate::lead::HINT_TASKS);
    if tasks < step || !tasks.is_multiple_of(step) {
        return;
    }
    p.tasks_hint
        .store(tasks.min(u64::from(u32::MAX)) as u32, Ordering::Release);
    if let Some(words) = p.nudge.get() {
        for &cpu in &p.cpus {
            if let Some(w) = words.get(cpu as usize) {
                w.fetch_add(1, Ordering::Release);
                partita_sys::futex::wake(w, 1, false);
            }
        }
    }
}
