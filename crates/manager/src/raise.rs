// SPDX-License-Identifier: MIT OR Apache-2.0
//! The raise broker: partitions hold no capability, and where the manager
//! cannot give them `RLIMIT_RTPRIO` (root without `CAP_SYS_RESOURCE`, hard limit 0) the kernel
//! refuses every raise of a real-time priority. The partition runtime must raise its own
//! threads (a demoted APEX process designated again, the timer thread), so the manager does
//! it for the runtime (`partita_apex`'s `raise` module): one broker thread per partition
//! serves the requests written into the control block, after checking that the thread belongs
//! to the partition and that the priority is at most the runtime's timer priority (run + 1).
//! See docs/priority-raising.md.
//!
//! The broker is the partition's service thread (crate::service), at that timer priority,
//! pinned to the partition's CPUs: a request is served inside the requesting partition's
//! window, on its cores, so a partition flooding requests only spends its own time. Requests
//! still pending when the window ends may be served in the next window of that core: the one
//! in progress and at most one more (each pass serves the latest request once, however far the
//! partition moved the counter), tens of microseconds.

use partita_sys::control::ControlBlock;
use partita_sys::proc::ThreadHandle;
use std::collections::HashMap;
use std::sync::atomic::Ordering;

/// A thread of the partition the broker has seen: its host tid, and a handle on it (a thread
/// pidfd) that tells cheaply whether it is still that thread.
#[derive(Debug)]
pub(crate) struct Known {
    host: i32,
    handle: Option<ThreadHandle>,
}

/// The broker's cache of a partition's threads: partition tid -> [`Known`].
pub(crate) type Threads = HashMap<i32, Known>;

/// Handles kept per partition at most (each is a descriptor of the manager); threads beyond
/// are checked through `/proc`.
const MAX_HANDLES: usize = 64;

/// Highest priority the broker grants: the runtime's timer priority.
pub(crate) const LIMIT: i32 = crate::PARTITION_RUN_PRIORITY + 1;

/// Whether partitions need a broker on this host (real-time priorities in use is checked by
/// the caller): the manager is root (partitions get their own uid and lose every capability)
/// and cannot give them `RLIMIT_RTPRIO`.
pub(crate) fn needed() -> bool {
    partita_sys::proc::is_root() && !crate::isolation::rtprio_limit_possible()
}

/// Serves the raise request pending in a partition's control block `c`, if any (called by its
/// service thread, crate::service); `pid` gives its main process (host pid, 0 when it has
/// none), asked only when a request is served.
/// `tids` caches the partition's thread ids. Returns what
/// was wrong with a request the runtime never makes (a priority above the cap, a thread that
/// is not the partition's, a request where no broker serves): the caller records it as an
/// ILLEGAL_REQUEST.
pub(crate) fn serve_pending(
    c: &ControlBlock,
    pid: impl FnOnce() -> i32,
    tids: &mut Threads,
) -> Option<String> {
    let req = c.raise_request.load(Ordering::Acquire);
    if req == c.raise_done.load(Ordering::Acquire) {
        return None;
    }
    let tid = c.raise_tid.load(Ordering::Acquire);
    let prio = c.raise_priority.load(Ordering::Acquire);
    let (result, forged) = if c.raise_broker.load(Ordering::Acquire) == 0 {
        // Not a broker host: the runtime raises its threads itself and never asks.
        (EPERM, Some(String::from("no broker serves this partition")))
    } else {
        let pid = pid();
        let r = serve(pid, tid, prio, tids);
        let forged = match r {
            EPERM if !(1..=LIMIT).contains(&prio) => {
                Some(format!("priority {prio} is outside 1..={LIMIT}"))
            }
            ESRCH if pid > 0 => Some(format!("thread {tid} is not one of the partition's")),
            _ => None,
        };
        (r, forged)
    };
    c.raise_result.store(result, Ordering::Release);
    // Dekker with the requester (crate docs of `raise_waiting`): it sets `raise_waiting` and
    // then reads `raise_done`; here `raise_done` is written and then `raise_waiting` read, all
    // sequentially consistent, so one of the two sees the other.
    c.raise_done.store(req, Ordering::SeqCst);
    if c.raise_waiting.swap(0, Ordering::SeqCst) != 0 {
        partita_sys::futex::wake(&c.raise_done, u32::MAX, true);
    }
    forged.map(|why| format!("raise of thread {tid} to real-time priority {prio} refused: {why}"))
}

/// Raises thread `tid` (as the partition names it) of the partition whose main process is
/// `pid` (host) to `prio`; 0 or an errno.
fn serve(pid: i32, tid: i32, prio: i32, tids: &mut Threads) -> i32 {
    if !(1..=LIMIT).contains(&prio) {
        return EPERM;
    }
    if pid <= 0 || tid <= 0 {
        return ESRCH;
    }
    // A cached thread that still exists is still the partition's: its handle names that thread
    // only (one system call); without a handle, a host tid still listed under the process is
    // (a tid freed by an exited thread and taken by another process's task is not; one `stat`
    // of /proc, ~2 us more). Otherwise the cache is rebuilt from the status files.
    let alive = |k: &Known| match &k.handle {
        Some(h) => h.alive(),
        None => std::path::Path::new(&format!("/proc/{pid}/task/{}", k.host)).exists(),
    };
    let host = match tids.get(&tid) {
        Some(k) if alive(k) => k.host,
        _ => {
            tids.clear();
            for h in threads(pid) {
                if let Some(t) = ns_tid(pid, h) {
                    tids.insert(
                        t,
                        Known {
                            host: h,
                            handle: None,
                        },
                    );
                }
            }
            let Some(k) = tids.get_mut(&tid) else {
                return ESRCH;
            };
            // Opened after the status file named it the partition's thread: if it ended in
            // between, the handle names the ended thread and the next request rebuilds.
            k.handle = ThreadHandle::open(k.host);
            let host = k.host;
            if tids.values().filter(|k| k.handle.is_some()).count() > MAX_HANDLES {
                if let Some(k) = tids.get_mut(&tid) {
                    k.handle = None;
                }
            }
            host
        }
    };
    match partita_sys::sched::set_priority(host, prio) {
        Ok(()) => 0,
        Err(e) => e.errno().unwrap_or(EPERM),
    }
}

const EPERM: i32 = 1;
const ESRCH: i32 = 3;

/// The host tids of process `pid`'s threads.
fn threads(pid: i32) -> Vec<i32> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// The tid of host thread `host` of process `pid` in the partition's innermost PID namespace
/// (the last `NSpid` field; the host tid itself without a PID namespace). `None` if it is not
/// a thread of `pid` (any more).
fn ns_tid(pid: i32, host: i32) -> Option<i32> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/task/{host}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with("NSpid:"))?;
    line.split_whitespace().last()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_threads_are_found_and_limits_hold() {
        let me = partita_sys::sched::getpid();
        let tid = partita_sys::sched::gettid();
        assert!(threads(me).contains(&tid));
        assert_eq!(ns_tid(me, tid), Some(tid));
        let mut m = Threads::new();
        // Above the timer priority, or not a thread of the process: refused.
        assert_eq!(serve(me, tid, LIMIT + 1, &mut m), EPERM);
        assert_eq!(serve(me, i32::MAX, 5, &mut m), ESRCH);
        // A thread of another process (init) cannot be named.
        assert_eq!(serve(me, 1, 5, &mut m), ESRCH);
        assert_eq!(serve(me, tid, 0, &mut m), EPERM);
        assert_eq!(serve(0, tid, 5, &mut m), ESRCH);
    }

    #[test]
    fn a_thread_handle_sees_its_thread_end() {
        let (tx, rx) = std::sync::mpsc::channel();
        let (end_tx, end_rx) = std::sync::mpsc::channel::<()>();
        let t = std::thread::spawn(move || {
            tx.send(partita_sys::sched::gettid()).unwrap();
            let _ = end_rx.recv();
        });
        let other = rx.recv().unwrap();
        let h = ThreadHandle::open(other).expect("thread pidfds (Linux 6.9 or later)");
        assert!(h.alive());
        end_tx.send(()).unwrap();
        t.join().unwrap();
        assert!(!h.alive());
        assert!(ThreadHandle::open(other).is_none());
    }
}
