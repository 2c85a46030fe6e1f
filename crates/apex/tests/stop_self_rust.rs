// SPDX-License-Identifier: MIT OR Apache-2.0
//! STOP_SELF from a Rust process body takes its thread back to the top of its loop: the body
//! is left by unwinding (its values are dropped, after the process is DORMANT), nothing after
//! the call runs, and the
//! thread is reused at the next START (`partita_apex::reclaim::reused_threads`; none is
//! parked). 500 STARTs of a body that calls `process::stop_self()` three calls deep; the
//! body's drop code, running after the process is DORMANT, is refused every service
//! (INVALID_MODE). The C binding's STOP_SELF called from a Rust body must not discard its
//! frames: that thread parks for good, its values never dropped.
//! Standalone (no manager); a test binary without harness: exit 0 when the checks pass, 1 on
//! a failed check, 2 on a hang.

use partita_apex::apex::process::{self, DeadlineType, ProcessAttributes};
use partita_apex::apex::{name, partition, time, INFINITE_TIME_VALUE};
use partita_apex::core::ReturnCode;
use partita_apex::reclaim;
use std::sync::atomic::{AtomicU64, Ordering};

const RUNS: u64 = 500;

static BODIES: AtomicU64 = AtomicU64::new(0);
static DROPPED: AtomicU64 = AtomicU64::new(0);
static AFTER: AtomicU64 = AtomicU64::new(0);
static REFUSED_IN_DROP: AtomicU64 = AtomicU64::new(0);
static C_DROPPED: AtomicU64 = AtomicU64::new(0);

fn check(ok: bool, what: &str) {
    if !ok {
        eprintln!("stop_self_rust: FAILED: {what}");
        std::process::exit(1);
    }
    println!("stop_self_rust: ok: {what}");
}

/// Counts its drop: the unwind must drop the body's values.
struct Held;

impl Drop for Held {
    fn drop(&mut self) {
        DROPPED.fetch_add(1, Ordering::Relaxed);
        if process::get_my_id() == Err(ReturnCode::InvalidMode) {
            REFUSED_IN_DROP.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Counts its drop, which must never happen: its frame is parked, not unwound.
struct HeldByC;

impl Drop for HeldByC {
    fn drop(&mut self) {
        C_DROPPED.fetch_add(1, Ordering::Relaxed);
    }
}

#[inline(never)]
fn descend(depth: u32) {
    let _held = Held;
    if depth == 0 {
        let _ = process::stop_self();
    } else {
        descend(depth - 1);
    }
    AFTER.fetch_add(1, Ordering::Relaxed);
}

fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").map_or(0, Iterator::count)
}

fn attrs(n: &str, prio: i32) -> ProcessAttributes {
    ProcessAttributes {
        name: name(n),
        entry: 0,
        stack_size: 1 << 20,
        base_priority: prio,
        period: INFINITE_TIME_VALUE,
        time_capacity: INFINITE_TIME_VALUE,
        deadline: DeadlineType::Soft,
    }
}

fn main() {
    std::thread::spawn(|| {
        std::thread::sleep(std::time::Duration::from_secs(60));
        eprintln!("stop_self_rust: FAILED: timed out");
        std::process::exit(2);
    });
    let quitter = process::create_process(&attrs("quitter", 20), || {
        BODIES.fetch_add(1, Ordering::Relaxed);
        descend(2);
    })
    .unwrap();
    let c_caller = process::create_process(&attrs("c_caller", 20), || {
        let _held = HeldByC;
        partita_apex::ffi::STOP_SELF();
        AFTER.fetch_add(1, Ordering::Relaxed);
    })
    .unwrap();
    let ctl = process::create_process(&attrs("ctl", 10), move || {
        let before = threads();
        for _ in 0..RUNS {
            // The quitter is above the controller: START runs it to its STOP_SELF at once.
            process::start(quitter).unwrap();
        }
        process::start(c_caller).unwrap();
        // The last quitter finishes its unwind once it is DORMANT (at the priority of a
        // thread that is not designated): let it get there.
        time::timed_wait(20_000_000).unwrap();
        let grown = threads().saturating_sub(before);
        println!(
            "stop_self_rust: {} bodies, {} values dropped, {} threads reused, {} parked, threads grew by {grown}",
            BODIES.load(Ordering::Relaxed),
            DROPPED.load(Ordering::Relaxed),
            reclaim::reused_threads(),
            reclaim::parked_threads(),
        );
        check(BODIES.load(Ordering::Relaxed) == RUNS, "every START ran the body");
        check(
            DROPPED.load(Ordering::Relaxed) == 3 * RUNS,
            "the unwind dropped the values of the three frames it left",
        );
        check(AFTER.load(Ordering::Relaxed) == 0, "nothing after STOP_SELF ran");
        check(
            REFUSED_IN_DROP.load(Ordering::Relaxed) == 3 * RUNS,
            "drop code after STOP_SELF is refused every service (INVALID_MODE)",
        );
        check(
            reclaim::reused_threads() == RUNS && reclaim::parked_threads() == 1,
            "every Rust STOP_SELF reused its thread; the C binding's, from a Rust body, parked",
        );
        check(
            C_DROPPED.load(Ordering::Relaxed) == 0,
            "the C binding's STOP_SELF did not discard or unwind the Rust body's frames",
        );
        check(
            grown == 0,
            "the process has no more threads than before (the parked one is c_caller's own)",
        );
        std::process::exit(0);
    })
    .unwrap();
    process::start(ctl).unwrap();
    let _ = partition::set_partition_mode(partita_apex::core::OperatingMode::Normal);
    eprintln!("stop_self_rust: FAILED: SET_PARTITION_MODE(NORMAL) returned");
    std::process::exit(1);
}
