// SPDX-License-Identifier: MIT OR Apache-2.0
//! The bare floor of `partita bench apex`: two plain threads handing off through futexes.

use super::*;
use partita_bench_protocol::apex::{empty_timing_pair, now};
use std::sync::atomic::{AtomicI64, AtomicU32};

// ---------------------------------------------------------------------------------------------
// The bare floor: two plain threads, one futex each way
// ---------------------------------------------------------------------------------------------

pub(super) struct BareShared {
    /// Bumped by the driver to wake the echo thread.
    ping: AtomicU32,
    /// Bumped by the echo thread to wake the driver.
    pong: AtomicU32,
    t0: AtomicI64,
    tb: AtomicI64,
    stop: AtomicBool,
}

pub(super) fn rt_thread(core: u32) -> partita_sys::Result<()> {
    let tid = partita_sys::sched::gettid();
    partita_sys::sched::set_affinity(tid, &[core])?;
    partita_sys::sched::set_fifo(0, partita_manager::PARTITION_RUN_PRIORITY)
}

/// Wake and block hand-offs between two threads of the bench process pinned to `core` at the
/// partitions' `SCHED_FIFO` priority. Returns (timing pair, wake, block, notes).
pub(super) fn run_bare(core: u32, n: usize) -> (Figures, Figures, Figures, Vec<String>) {
    let sh = Arc::new(BareShared {
        ping: AtomicU32::new(0),
        pong: AtomicU32::new(0),
        t0: AtomicI64::new(0),
        tb: AtomicI64::new(0),
        stop: AtomicBool::new(false),
    });
    let total = n + WARMUP;
    let mut notes = Vec::new();
    let e = sh.clone();
    let echo = std::thread::Builder::new().name("bench-echo".into()).spawn(
        move || -> (Vec<i64>, Option<partita_sys::SysError>) {
            let err = rt_thread(core).err();
            let mut wake = Vec::with_capacity(total);
            let mut seen = 0u32;
            loop {
                let mut v = e.ping.load(Ordering::Acquire);
                while v == seen {
                    partita_sys::futex::wait(&e.ping, seen, None, false);
                    v = e.ping.load(Ordering::Acquire);
                }
                let t1 = now();
                if e.stop.load(Ordering::Acquire) {
                    break;
                }
                seen = v;
                wake.push(t1 - e.t0.load(Ordering::Acquire));
                e.tb.store(now(), Ordering::Release);
                e.pong.fetch_add(1, Ordering::Release);
                partita_sys::futex::wake(&e.pong, 1, false);
            }
            (wake, err)
        },
    );
    let echo = match echo {
        Ok(h) => h,
        Err(e) => {
            notes.push(format!("bare hand-off: cannot create a thread: {e}"));
            return (
                Figures::default(),
                Figures::default(),
                Figures::default(),
                notes,
            );
        }
    };
    let d = sh.clone();
    let driver = std::thread::Builder::new()
        .name("bench-driver".into())
        .spawn(
            move || -> (Figures, Vec<i64>, Option<partita_sys::SysError>) {
                let err = rt_thread(core).err();
                // Let the echo thread reach its first wait.
                std::thread::sleep(Duration::from_millis(5));
                let pair = empty_timing_pair(n);
                let mut block = Vec::with_capacity(total);
                for i in 0..total {
                    if i % BARE_BATCH == 0 {
                        std::thread::sleep(BARE_PAUSE);
                    }
                    let want = d.pong.load(Ordering::Acquire) + 1;
                    d.t0.store(now(), Ordering::Release);
                    d.ping.fetch_add(1, Ordering::Release);
                    partita_sys::futex::wake(&d.ping, 1, false);
                    let mut v = d.pong.load(Ordering::Acquire);
                    while v != want {
                        partita_sys::futex::wait(&d.pong, v, None, false);
                        v = d.pong.load(Ordering::Acquire);
                    }
                    let t2 = now();
                    block.push(t2 - d.tb.load(Ordering::Acquire));
                }
                d.stop.store(true, Ordering::Release);
                d.ping.fetch_add(1, Ordering::Release);
                partita_sys::futex::wake(&d.ping, 1, false);
                (pair, block, err)
            },
        );
    let (pair, block, derr) = match driver.map(|h| h.join()) {
        Ok(Ok(r)) => r,
        _ => {
            // The echo thread is left waiting; wake it up for good.
            sh.stop.store(true, Ordering::Release);
            sh.ping.fetch_add(1, Ordering::Release);
            partita_sys::futex::wake(&sh.ping, 1, false);
            let _ = echo.join();
            notes.push("bare hand-off: the driving thread failed".into());
            return (
                Figures::default(),
                Figures::default(),
                Figures::default(),
                notes,
            );
        }
    };
    let (wake, eerr) = echo.join().unwrap_or_default();
    if let Some(e) = derr.or(eerr) {
        notes.push(format!(
            "bare hand-off threads without SCHED_FIFO on core {core}: {e}"
        ));
    }
    let fig = |v: &[i64]| {
        let mut v: Vec<i64> = v.iter().skip(WARMUP).map(|x| x - pair.median).collect();
        Figures::of(&mut v)
    };
    (pair, fig(&wake), fig(&block), notes)
}
