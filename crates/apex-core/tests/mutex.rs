// SPDX-License-Identifier: MIT OR Apache-2.0
//! Mutexes with priority ceiling.

mod common;
use common::*;
use partita_apex_core::*;
use CallOutcome::{Blocked, Done};
use QueuingDiscipline::{Fifo, Priority as Prio};
use ReturnCode::*;

#[test]
fn mutex_create_errors_and_ids() {
    let mut c = cfg();
    c.max_mutexes = 1;
    let mut k = Kernel::new(c).unwrap();
    assert_eq!(
        k.create_mutex(0, MAIN, &name("M"), 0, Fifo),
        Err(InvalidParam)
    );
    assert_eq!(
        k.create_mutex(0, MAIN, &name("M"), 240, Fifo),
        Err(InvalidParam)
    );
    let m = k.create_mutex(0, MAIN, &name("M"), 20, Prio).unwrap();
    assert_eq!(
        k.create_mutex(0, MAIN, &name("M"), 20, Prio),
        Err(InvalidConfig)
    );
    assert_eq!(k.get_mutex_id(&name("M")), Ok(m));
    assert_eq!(k.get_mutex_id(&name("N")), Err(InvalidConfig));
    let st = k.get_mutex_status(m).unwrap();
    assert_eq!(st.mutex_owner, None);
    assert_eq!(st.mutex_state, MutexState::Available);
    assert_eq!(
        (st.mutex_priority, st.lock_count, st.waiting_processes),
        (20, 0, 0)
    );
    assert_eq!(k.get_mutex_status(MutexId(2)), Err(InvalidParam));
    let mut k = kernel();
    k.create_mutex(0, MAIN, &name("M"), 20, Prio).unwrap();
    assert_eq!(k.create_mutex(0, MAIN, &name("M"), 20, Prio), Err(NoAction));
}

#[test]
fn mutex_ceiling_recursion_and_release() {
    let mut k = kernel();
    let m = k.create_mutex(0, MAIN, &name("M"), 20, Fifo).unwrap();
    let m2 = k.create_mutex(0, MAIN, &name("M2"), 20, Fifo).unwrap();
    let low = k.create_mutex(0, MAIN, &name("LOW"), 3, Fifo).unwrap();
    let a = spawn(&mut k, "A", 5);
    let b = aperiodic(&mut k, "B", 10);
    assert_eq!(k.acquire_mutex(0, MAIN, m, 0), Err(InvalidMode));
    normal(&mut k, 0);
    assert_eq!(k.acquire_mutex(0, pr(a), MutexId(9), 0), Err(InvalidParam));
    assert_eq!(k.acquire_mutex(0, pr(a), m, -5), Err(InvalidParam));
    assert_eq!(k.acquire_mutex(0, pr(a), low, 0), Err(InvalidConfig));
    assert_eq!(k.release_mutex(0, pr(a), m), Err(InvalidMode));
    assert_eq!(k.release_mutex(0, pr(a), MutexId(0)), Err(InvalidParam));
    assert_eq!(k.acquire_mutex(0, pr(a), m, -1), Ok(Done(())));
    let st = k.get_process_status(a).unwrap();
    assert_eq!(st.current_priority, 20);
    assert_eq!(k.get_process_mutex_state(a), Ok(MutexOwnership::Owned(m)));
    assert_eq!(k.acquire_mutex(0, pr(a), m2, 0), Err(InvalidMode));
    // Waiting on other objects / delays is not allowed while owning a mutex.
    assert_eq!(k.timed_wait(0, pr(a), MS), Err(InvalidMode));
    // A higher base priority process started now does not preempt (ceiling 20).
    k.start(0, pr(a), b).unwrap();
    assert_eq!(cur(&k), Some(a));
    for n in 2..=MAX_LOCK_LEVEL {
        assert_eq!(k.acquire_mutex(0, pr(a), m, 0), Ok(Done(())));
        assert_eq!(k.get_mutex_status(m).unwrap().lock_count, n);
    }
    assert_eq!(k.acquire_mutex(0, pr(a), m, 0), Err(InvalidConfig));
    // SET_PRIORITY while owning only changes the retained priority.
    k.set_priority(0, pr(a), a, 7).unwrap();
    assert_eq!(k.get_process_status(a).unwrap().current_priority, 20);
    for _ in 1..MAX_LOCK_LEVEL {
        k.release_mutex(0, pr(a), m).unwrap();
        assert_eq!(cur(&k), Some(a));
    }
    k.release_mutex(0, pr(a), m).unwrap();
    assert_eq!(k.get_process_status(a).unwrap().current_priority, 7);
    assert_eq!(k.get_process_mutex_state(a), Ok(MutexOwnership::None));
    assert_eq!(cur(&k), Some(b));
    assert_eq!(k.get_process_mutex_state(ProcessId(33)), Err(InvalidParam));
}

#[test]
fn mutex_ceiling_defers_release_and_timeout() {
    let mut k = kernel();
    let m = k.create_mutex(0, MAIN, &name("M"), 30, Prio).unwrap();
    let h = spawn(&mut k, "H", 9);
    let l = spawn(&mut k, "L", 2);
    normal(&mut k, 0);
    // H sleeps; L takes the mutex; H's release does not preempt L (ceiling 30).
    assert_eq!(k.timed_wait(0, pr(h), MS), Ok(Blocked));
    assert_eq!(k.acquire_mutex(0, pr(l), m, 0), Ok(Done(())));
    k.advance(MS);
    assert_eq!(cur(&k), Some(l));
    assert_eq!(state(&k, h), ProcessState::Ready);
    // L releases: back to priority 2, H preempts it.
    k.release_mutex(MS, pr(l), m).unwrap();
    assert_eq!(cur(&k), Some(h));
    assert_eq!(k.get_process_status(l).unwrap().current_priority, 2);
}

#[test]
fn stop_owner_releases_mutex_and_reset_mutex() {
    let mut c = cfg();
    c.cores = 2;
    let mut k = Kernel::new(c).unwrap();
    let m = k.create_mutex(0, MAIN, &name("M"), 30, Fifo).unwrap();
    let own = aperiodic(&mut k, "OWN", 5);
    let w = aperiodic(&mut k, "W", 5);
    let ctl = aperiodic(&mut k, "CTL", 1);
    k.initialize_process_core_affinity(0, MAIN, ctl, 1).unwrap();
    for p in [own, w, ctl] {
        k.start(0, MAIN, p).unwrap();
    }
    normal(&mut k, 0);
    assert_eq!(k.acquire_mutex(0, pr(own), m, 0), Ok(Done(())));
    assert_eq!(k.acquire_mutex(0, pr(own), m, 0), Ok(Done(())));
    // CTL (core 1) stops OWN (core 0): the mutex is released whatever the count.
    assert_eq!(k.running(1), Some(pr(ctl)));
    k.stop(MS, pr(ctl), own).unwrap();
    let st = k.get_mutex_status(m).unwrap();
    assert_eq!((st.mutex_owner, st.lock_count), (None, 0));
    assert_eq!(k.running(0), Some(pr(w)));
    assert_eq!(k.acquire_mutex(MS, pr(w), m, -1), Ok(Done(())));
    k.set_priority(MS, pr(ctl), w, 1).unwrap();
    assert_eq!(k.get_process_status(w).unwrap().current_priority, 30);
    // RESET_MUTEX errors, then nominal: W gets its retained priority back.
    assert_eq!(k.reset_mutex(2 * MS, pr(ctl), m, own), Err(InvalidMode));
    assert_eq!(
        k.reset_mutex(2 * MS, pr(ctl), MutexId(8), w),
        Err(InvalidParam)
    );
    assert_eq!(
        k.reset_mutex(2 * MS, pr(ctl), m, ProcessId(80)),
        Err(InvalidParam)
    );
    k.start(2 * MS, pr(ctl), own).unwrap();
    assert_eq!(k.running(0), Some(pr(w)));
    k.reset_mutex(2 * MS, pr(ctl), m, w).unwrap();
    assert_eq!(k.get_process_status(w).unwrap().current_priority, 1);
    assert_eq!(
        k.get_mutex_status(m).unwrap().mutex_state,
        MutexState::Available
    );
    assert_eq!(k.running(0), Some(pr(own)));
}

#[test]
fn priority_queue_handover_order() {
    let mut c = cfg();
    c.cores = 2;
    let mut k = Kernel::new(c).unwrap();
    let m = k.create_mutex(0, MAIN, &name("M"), 30, Prio).unwrap();
    let own = aperiodic(&mut k, "OWN", 1);
    let lo = aperiodic(&mut k, "LO", 3);
    let hi = aperiodic(&mut k, "HI", 7);
    k.initialize_process_core_affinity(0, MAIN, lo, 1).unwrap();
    k.initialize_process_core_affinity(0, MAIN, hi, 1).unwrap();
    k.start(0, MAIN, own).unwrap();
    normal(&mut k, 0);
    assert_eq!(k.acquire_mutex(0, pr(own), m, 0), Ok(Done(())));
    k.start(0, pr(own), lo).unwrap();
    assert_eq!(k.acquire_mutex(0, pr(lo), m, -1), Ok(Blocked));
    k.start(0, pr(own), hi).unwrap();
    assert_eq!(k.acquire_mutex(0, pr(hi), m, 5 * MS), Ok(Blocked));
    assert_eq!(k.get_mutex_status(m).unwrap().waiting_processes, 2);
    k.release_mutex(MS, pr(own), m).unwrap();
    assert_eq!(k.running(1), Some(pr(hi)));
    assert_eq!(k.take_wake_result(hi), Some(Ok(())));
    assert_eq!(k.get_mutex_status(m).unwrap().mutex_owner, Some(hi));
    assert_eq!(k.next_event_time(), None);
}

#[test]
fn stop_owner_hands_mutex_to_blocked_waiter() {
    let mut c = cfg();
    c.cores = 2;
    let mut k = Kernel::new(c).unwrap();
    let m = k.create_mutex(0, MAIN, &name("M"), 30, Fifo).unwrap();
    let own = aperiodic(&mut k, "OWN", 5);
    let w = aperiodic(&mut k, "W", 6);
    let ctl = aperiodic(&mut k, "CTL", 1);
    k.initialize_process_core_affinity(0, MAIN, w, 1).unwrap();
    k.start(0, MAIN, own).unwrap();
    k.start(0, MAIN, ctl).unwrap();
    normal(&mut k, 0);
    assert_eq!(k.acquire_mutex(0, pr(own), m, 0), Ok(Done(())));
    k.start(0, pr(own), w).unwrap();
    assert_eq!(k.running(1), Some(pr(w)));
    assert_eq!(k.acquire_mutex(0, pr(w), m, -1), Ok(Blocked));
    assert_eq!(k.get_mutex_status(m).unwrap().waiting_processes, 1);
    assert_eq!(k.running(1), None);
    k.stop_self(MS, pr(own)).unwrap();
    assert_eq!(k.running(1), Some(pr(w)));
    assert_eq!(k.take_wake_result(w), Some(Ok(())));
    let st = k.get_mutex_status(m).unwrap();
    assert_eq!(
        (st.mutex_owner, st.lock_count, st.waiting_processes),
        (Some(w), 1, 0)
    );
    assert_eq!(k.get_process_status(w).unwrap().current_priority, 30);
    assert_eq!(k.running(0), Some(pr(ctl)));
}

#[test]
fn owner_and_waiters_of_a_mutex_cannot_be_suspended() {
    let mut c = cfg();
    c.cores = 2;
    let mut k = Kernel::new(c).unwrap();
    let m = k.create_mutex(0, MAIN, &name("M"), 30, Fifo).unwrap();
    let own = aperiodic(&mut k, "OWN", 5);
    let w = aperiodic(&mut k, "W", 5);
    let ctl = aperiodic(&mut k, "CTL", 40);
    k.initialize_process_core_affinity(0, MAIN, w, 1).unwrap();
    k.initialize_process_core_affinity(0, MAIN, ctl, 1).unwrap();
    k.start(0, MAIN, own).unwrap();
    k.start(0, MAIN, w).unwrap();
    normal(&mut k, 0);
    assert_eq!(k.acquire_mutex(0, pr(own), m, 0), Ok(Done(())));
    assert_eq!(k.acquire_mutex(0, pr(w), m, -1), Ok(Blocked));
    k.start(MS, pr(own), ctl).unwrap();
    assert_eq!(k.running(1), Some(pr(ctl)));
    assert_eq!(k.suspend(MS, pr(ctl), own), Err(InvalidMode));
    assert_eq!(k.suspend(MS, pr(ctl), w), Err(InvalidMode));
    // Once the mutex is released (and handed to W, which releases it too), both can be.
    k.release_mutex(2 * MS, pr(own), m).unwrap();
    k.stop_self(2 * MS, pr(ctl)).unwrap();
    assert_eq!(k.running(1), Some(pr(w)));
    k.release_mutex(2 * MS, pr(w), m).unwrap();
    k.start(3 * MS, pr(w), ctl).unwrap();
    assert_eq!(k.suspend(3 * MS, pr(ctl), own), Ok(()));
    assert_eq!(k.suspend(3 * MS, pr(ctl), w), Ok(()));
}
