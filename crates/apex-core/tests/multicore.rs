// SPDX-License-Identifier: MIT OR Apache-2.0
//! Multi-core scheduling (simulated clock): one process runs at a time per core, each core
//! is scheduled independently, and an event on one core preempts (only) the core of the
//! process it readies.

mod common;

use common::*;
use partita_apex_core::CallOutcome::Blocked;
use partita_apex_core::QueuingDiscipline::Fifo;
use partita_apex_core::*;

fn two_cores() -> Kernel {
    let mut c = cfg();
    c.cores = 2;
    Kernel::new(c).unwrap()
}

/// The process designated on `core`.
fn on(k: &Kernel, core: u32) -> Option<ProcessId> {
    match k.running(core) {
        Some(Runner::Process(p)) => Some(p),
        _ => None,
    }
}

/// Every core runs at most one process, and it is bound to that core.
fn one_per_core(k: &Kernel, procs: &[ProcessId]) {
    for c in 0..2 {
        let running: Vec<_> = procs
            .iter()
            .filter(|&&p| state(k, p) == ProcessState::Running && k.process_core(p) == Some(c))
            .collect();
        assert!(running.len() <= 1, "core {c} runs {running:?}");
        if let Some(p) = on(k, c) {
            assert_eq!(k.process_core(p), Some(c));
            assert_eq!(state(k, p), ProcessState::Running);
        }
    }
}

#[test]
fn a_signal_from_core_1_preempts_core_0_only() {
    let mut k = two_cores();
    let s = k.create_semaphore(0, MAIN, &name("S"), 0, 1, Fifo).unwrap();
    let low0 = aperiodic(&mut k, "LOW0", 5);
    let high0 = aperiodic(&mut k, "HIGH0", 20);
    let sig1 = aperiodic(&mut k, "SIG1", 5);
    let low1 = aperiodic(&mut k, "LOW1", 1);
    for p in [sig1, low1] {
        k.initialize_process_core_affinity(0, MAIN, p, 1).unwrap();
    }
    let all = [low0, high0, sig1, low1];
    for p in all {
        k.start(0, MAIN, p).unwrap();
    }
    normal(&mut k, 0);
    assert_eq!((on(&k, 0), on(&k, 1)), (Some(high0), Some(sig1)));
    assert_eq!(k.wait_semaphore(MS, pr(high0), s, -1), Ok(Blocked));
    assert_eq!((on(&k, 0), on(&k, 1)), (Some(low0), Some(sig1)));
    one_per_core(&k, &all);
    // SIG1 (core 1) signals: HIGH0 preempts LOW0 on core 0; SIG1 keeps core 1.
    k.signal_semaphore(2 * MS, pr(sig1), s).unwrap();
    assert_eq!((on(&k, 0), on(&k, 1)), (Some(high0), Some(sig1)));
    assert_eq!(state(&k, low0), ProcessState::Ready);
    assert_eq!(k.take_wake_result(high0), Some(Ok(())));
    one_per_core(&k, &all);
    // LOW1 (core 1) never ran on core 0, even while core 0 had a lower process.
    assert_eq!(state(&k, low1), ProcessState::Ready);
}

#[test]
fn an_idle_core_does_not_take_another_cores_process() {
    let mut k = two_cores();
    let a = aperiodic(&mut k, "A", 10);
    let b = aperiodic(&mut k, "B", 3);
    k.initialize_process_core_affinity(0, MAIN, a, 1).unwrap();
    k.initialize_process_core_affinity(0, MAIN, b, 1).unwrap();
    k.start(0, MAIN, a).unwrap();
    k.start(0, MAIN, b).unwrap();
    normal(&mut k, 0);
    assert_eq!((on(&k, 0), on(&k, 1)), (None, Some(a)));
    one_per_core(&k, &[a, b]);
    // A waits: B (same core) runs; core 0 stays idle throughout.
    assert_eq!(k.timed_wait(MS, pr(a), 3 * MS), Ok(Blocked));
    assert_eq!((on(&k, 0), on(&k, 1)), (None, Some(b)));
    assert_eq!(k.next_event_time(), Some(4 * MS));
    // A's time-out expires (a timer event): it preempts B on core 1.
    k.advance(4 * MS);
    assert_eq!((on(&k, 0), on(&k, 1)), (None, Some(a)));
    assert_eq!(state(&k, b), ProcessState::Ready);
    one_per_core(&k, &[a, b]);
}

#[test]
fn preemption_lock_on_one_core_defers_only_that_core() {
    let mut k = two_cores();
    let lk = aperiodic(&mut k, "LK", 5);
    let hi0 = aperiodic(&mut k, "HI0", 30);
    let run1 = aperiodic(&mut k, "RUN1", 5);
    let hi1 = aperiodic(&mut k, "HI1", 30);
    for p in [run1, hi1] {
        k.initialize_process_core_affinity(0, MAIN, p, 1).unwrap();
    }
    k.start(0, MAIN, lk).unwrap();
    k.start(0, MAIN, run1).unwrap();
    k.delayed_start(0, MAIN, hi0, 2 * MS).unwrap();
    k.delayed_start(0, MAIN, hi1, 2 * MS).unwrap();
    normal(&mut k, 0);
    assert_eq!(k.lock_preemption(MS, pr(lk)), Ok(1));
    // Both releases are due: HI1 preempts RUN1 on core 1; HI0 waits for the unlock.
    k.advance(2 * MS);
    assert_eq!((on(&k, 0), on(&k, 1)), (Some(lk), Some(hi1)));
    assert_eq!(state(&k, hi0), ProcessState::Ready);
    // Another core cannot take the lock while it is held.
    assert_eq!(
        k.lock_preemption(2 * MS, pr(hi1)),
        Err(ReturnCode::InvalidMode)
    );
    assert_eq!(k.unlock_preemption(3 * MS, pr(lk)), Ok(0));
    assert_eq!((on(&k, 0), on(&k, 1)), (Some(hi0), Some(hi1)));
    one_per_core(&k, &[lk, hi0, run1, hi1]);
}
