// SPDX-License-Identifier: MIT OR Apache-2.0
//! Abandoned threads give their memory back (`partita_apex::reclaim`): a process that touches
//! 1 MiB of stack is STOPped in the middle of its code and STARTed again 40 times (each STOP
//! abandons its thread, each START spawns a fresh one). Without the reclaim the partition's
//! resident memory grows by the touched stack of every abandoned thread (40+ MiB); with it,
//! by a few pages per thread. Standalone (no manager); a test binary without harness: exit 0
//! when the checks pass, 1 on a failed check, 2 on a hang.

use partita_apex::apex::intra::semaphore;
use partita_apex::apex::process::{self, DeadlineType, ProcessAttributes};
use partita_apex::apex::{name, partition, time, INFINITE_TIME_VALUE};
use partita_apex::core::{QueuingDiscipline, SemaphoreId};
use partita_apex::reclaim;
use std::sync::atomic::{AtomicU32, Ordering};

const CYCLES: u64 = 40;
const MIB: u64 = 1 << 20;

static READY: AtomicU32 = AtomicU32::new(0);
static NEVER: AtomicU32 = AtomicU32::new(0);

fn check(ok: bool, what: &str) {
    if !ok {
        eprintln!("reclaim: FAILED: {what}");
        std::process::exit(1);
    }
    println!("reclaim: ok: {what}");
}

/// Resident set size of this process, from /proc/self/status.
fn rss() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = s.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

/// Touches about `depth` × 64 KiB of stack.
#[inline(never)]
fn touch(depth: usize) -> u8 {
    let buf = [depth as u8; 64 * 1024];
    if depth == 0 {
        std::hint::black_box(&buf)[0]
    } else {
        touch(depth - 1).wrapping_add(std::hint::black_box(&buf)[1])
    }
}

fn attrs(n: &str, prio: i32) -> ProcessAttributes {
    ProcessAttributes {
        name: name(n),
        entry: 0,
        stack_size: 2 * MIB,
        base_priority: prio,
        period: INFINITE_TIME_VALUE,
        time_capacity: INFINITE_TIME_VALUE,
        deadline: DeadlineType::Soft,
    }
}

fn sem(a: &AtomicU32) -> SemaphoreId {
    SemaphoreId(a.load(Ordering::Acquire))
}

fn main() {
    std::thread::spawn(|| {
        std::thread::sleep(std::time::Duration::from_secs(60));
        eprintln!("reclaim: FAILED: timed out");
        std::process::exit(2);
    });
    let ready = semaphore::create_semaphore(&name("ready"), 0, 1, QueuingDiscipline::Fifo).unwrap();
    let never = semaphore::create_semaphore(&name("never"), 0, 1, QueuingDiscipline::Fifo).unwrap();
    READY.store(ready.0, Ordering::Release);
    NEVER.store(never.0, Ordering::Release);
    let deep = process::create_process(&attrs("deep", 10), || {
        std::hint::black_box(touch(16)); // ~1 MiB of stack, dead once returned
                                         // The controller (higher) preempts us inside this call; it then STOPs us.
        semaphore::signal_semaphore(sem(&READY)).unwrap();
        let _ = semaphore::wait_semaphore(sem(&NEVER), INFINITE_TIME_VALUE);
    })
    .unwrap();
    let ctl = process::create_process(&attrs("ctl", 20), move || {
        let mut baseline = 0;
        for i in 0..CYCLES + 4 {
            process::start(deep).unwrap();
            semaphore::wait_semaphore(sem(&READY), INFINITE_TIME_VALUE).unwrap();
            process::stop(deep).unwrap();
            if i == 3 {
                // Let the abandoned threads reach their parking place, then measure.
                time::timed_wait(20_000_000).unwrap();
                baseline = rss();
            }
        }
        time::timed_wait(50_000_000).unwrap();
        let grown = rss().saturating_sub(baseline);
        println!(
            "reclaim: {} threads parked, {} KiB of ranges released, resident memory grew by {} KiB over {CYCLES} STOP/START cycles",
            reclaim::parked_threads(),
            reclaim::released_bytes() / 1024,
            grown / 1024
        );
        check(
            reclaim::parked_threads() >= CYCLES,
            "every STOP in the middle of the code parked the thread for good",
        );
        check(
            reclaim::released_bytes() >= CYCLES * MIB,
            "the released stack ranges cover at least the touched stacks",
        );
        check(
            grown < CYCLES * MIB / 4,
            "resident memory grows by much less than the abandoned threads' touched stacks",
        );
        std::process::exit(0);
    })
    .unwrap();
    process::start(ctl).unwrap();
    let _ = partition::set_partition_mode(partita_apex::core::OperatingMode::Normal);
    eprintln!("reclaim: FAILED: SET_PARTITION_MODE(NORMAL) returned");
    std::process::exit(1);
}
