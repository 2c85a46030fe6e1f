// SPDX-License-Identifier: MIT OR Apache-2.0
//! Scheduling scenarios and time services with a simulated clock.

mod common;
use common::*;
use partita_apex_core::*;
use CallOutcome::{Blocked, Done};
use ReturnCode::*;

#[test]
fn fifo_among_equal_priorities() {
    let mut k = kernel();
    let b1 = spawn(&mut k, "B1", 5);
    let b2 = spawn(&mut k, "B2", 5);
    let b3 = spawn(&mut k, "B3", 5);
    normal(&mut k, 0);
    assert_eq!(cur(&k), Some(b1));
    assert_eq!(state(&k, b2), ProcessState::Ready);
    k.stop_self(1, pr(b1)).unwrap();
    assert_eq!(cur(&k), Some(b2));
    k.stop_self(2, pr(b2)).unwrap();
    assert_eq!(cur(&k), Some(b3));
}

#[test]
fn higher_priority_release_preempts() {
    let mut k = kernel();
    let lo = spawn(&mut k, "LO", 2);
    let hi = spawn(&mut k, "HI", 9);
    normal(&mut k, 0);
    assert_eq!(cur(&k), Some(hi));
    assert_eq!(k.timed_wait(0, pr(hi), 3 * MS), Ok(Blocked));
    assert_eq!(cur(&k), Some(lo));
    assert_eq!(state(&k, lo), ProcessState::Running);
    assert_eq!(k.next_event_time(), Some(3 * MS));
    k.advance(3 * MS);
    assert_eq!(cur(&k), Some(hi));
    assert_eq!(state(&k, lo), ProcessState::Ready);
    assert_eq!(k.take_wake_result(hi), Some(Ok(())));
    assert_eq!(k.take_wake_result(hi), None);
}

#[test]
fn equal_priority_release_does_not_preempt() {
    let mut k = kernel();
    let a = spawn(&mut k, "A", 5);
    let b = spawn(&mut k, "B", 5);
    normal(&mut k, 0);
    assert_eq!(k.timed_wait(0, pr(a), MS), Ok(Blocked));
    assert_eq!(cur(&k), Some(b));
    k.advance(MS);
    assert_eq!(cur(&k), Some(b));
    assert_eq!(state(&k, a), ProcessState::Ready);
}

#[test]
fn preempted_process_resumes_at_head_of_its_level() {
    let mut k = kernel();
    let a1 = spawn(&mut k, "A1", 5);
    let a2 = spawn(&mut k, "A2", 5);
    let hi = aperiodic(&mut k, "HI", 9);
    normal(&mut k, 0);
    assert_eq!(cur(&k), Some(a1));
    // A1 starts HI, which preempts it; when HI blocks, A1 (not A2) resumes.
    k.start(MS, pr(a1), hi).unwrap();
    assert_eq!(cur(&k), Some(hi));
    assert_eq!(k.timed_wait(2 * MS, pr(hi), MS), Ok(Blocked));
    assert_eq!(cur(&k), Some(a1));
    // Same when the preemption comes from a time-out.
    k.advance(3 * MS);
    assert_eq!(cur(&k), Some(hi));
    k.stop_self(4 * MS, pr(hi)).unwrap();
    assert_eq!(cur(&k), Some(a1));
    let _ = a2;
}

#[test]
fn timed_wait_zero_yields_to_equal_priority() {
    let mut k = kernel();
    let a = spawn(&mut k, "A", 5);
    let b = spawn(&mut k, "B", 5);
    let c = spawn(&mut k, "C", 5);
    normal(&mut k, 0);
    assert_eq!(k.timed_wait(0, pr(a), 0), Ok(Done(())));
    assert_eq!(cur(&k), Some(b));
    assert_eq!(k.timed_wait(0, pr(b), 0), Ok(Done(())));
    assert_eq!(cur(&k), Some(c));
    assert_eq!(k.timed_wait(0, pr(c), 0), Ok(Done(())));
    assert_eq!(cur(&k), Some(a));
}

#[test]
fn timed_wait_zero_alone_keeps_running() {
    let mut k = kernel();
    let a = spawn(&mut k, "A", 5);
    let _lo = spawn(&mut k, "LO", 1);
    normal(&mut k, 0);
    assert_eq!(k.timed_wait(0, pr(a), 0), Ok(Done(())));
    assert_eq!(cur(&k), Some(a));
}

#[test]
fn timed_wait_errors() {
    let mut k = kernel();
    assert_eq!(k.timed_wait(0, MAIN, MS), Err(InvalidMode));
    let a = spawn(&mut k, "A", 5);
    normal(&mut k, 0);
    assert_eq!(
        k.timed_wait(0, pr(a), INFINITE_TIME_VALUE),
        Err(InvalidParam)
    );
    assert_eq!(k.timed_wait(0, pr(a), -9), Err(InvalidParam));
    assert_eq!(k.timed_wait(1, pr(a), i64::MAX), Err(InvalidParam));
    k.lock_preemption(0, pr(a)).unwrap();
    assert_eq!(k.timed_wait(0, pr(a), MS), Err(InvalidMode));
}

#[test]
fn simultaneous_timeouts_release_in_order() {
    let mut k = kernel();
    let a = spawn(&mut k, "A", 5);
    let b = spawn(&mut k, "B", 5);
    let c = spawn(&mut k, "C", 5);
    let lo = spawn(&mut k, "LO", 1);
    normal(&mut k, 0);
    assert_eq!(k.timed_wait(0, pr(a), 5 * MS), Ok(Blocked));
    assert_eq!(k.timed_wait(0, pr(b), 3 * MS), Ok(Blocked));
    assert_eq!(k.timed_wait(MS, pr(c), 2 * MS), Ok(Blocked));
    assert_eq!(cur(&k), Some(lo));
    // Late timer: everything due is processed in expiry order.
    k.advance(10 * MS);
    assert_eq!(cur(&k), Some(b));
    k.stop_self(10 * MS, pr(b)).unwrap();
    assert_eq!(cur(&k), Some(c));
    k.stop_self(10 * MS, pr(c)).unwrap();
    assert_eq!(cur(&k), Some(a));
}

#[test]
fn preemption_lock_defers_preemption() {
    let mut k = kernel();
    let lo = spawn(&mut k, "LO", 2);
    let hi = spawn(&mut k, "HI", 9);
    normal(&mut k, 0);
    assert_eq!(k.timed_wait(0, pr(hi), MS), Ok(Blocked));
    assert_eq!(k.lock_preemption(0, pr(lo)), Ok(1));
    k.advance(MS);
    assert_eq!(cur(&k), Some(lo));
    assert_eq!(state(&k, hi), ProcessState::Ready);
    assert_eq!(k.lock_preemption(2 * MS, pr(lo)), Ok(2));
    assert_eq!(k.unlock_preemption(2 * MS, pr(lo)), Ok(1));
    assert_eq!(cur(&k), Some(lo));
    assert_eq!(k.unlock_preemption(2 * MS, pr(lo)), Ok(0));
    assert_eq!(cur(&k), Some(hi));
}

#[test]
fn blocking_running_process_selects_next() {
    let mut k = kernel();
    let a = spawn(&mut k, "A", 7);
    let b = spawn(&mut k, "B", 3);
    normal(&mut k, 0);
    assert_eq!(k.suspend_self(0, pr(a), INFINITE_TIME_VALUE), Ok(Blocked));
    assert_eq!(cur(&k), Some(b));
    assert_eq!(k.suspend_self(0, pr(b), INFINITE_TIME_VALUE), Ok(Blocked));
    assert_eq!(k.running(0), None);
}

#[test]
fn set_priority_of_ready_process_goes_to_tail() {
    let mut k = kernel();
    let a = spawn(&mut k, "A", 5);
    let b = spawn(&mut k, "B", 4);
    let c = spawn(&mut k, "C", 5);
    normal(&mut k, 0);
    // B joins level 5 as newest: C (older at level 5) runs first after A.
    k.set_priority(0, pr(a), b, 5).unwrap();
    k.stop_self(0, pr(a)).unwrap();
    assert_eq!(cur(&k), Some(c));
    k.stop_self(0, pr(c)).unwrap();
    assert_eq!(cur(&k), Some(b));
}

#[test]
fn periodic_release_from_partition_period_start() {
    let mut c = cfg();
    c.period_origin = 3 * MS;
    let mut k = Kernel::new(c).unwrap();
    let p = k
        .create_process(0, MAIN, &attrs("P", 9, 20 * MS, 20 * MS))
        .unwrap();
    let bg = spawn(&mut k, "BG", 1);
    normal(&mut k, 5 * MS);
    assert_eq!(cur(&k), Some(bg));
    k.start(5 * MS, pr(bg), p).unwrap();
    // First release: next partition period start at/after 5 ms = 13 ms.
    assert_eq!(state(&k, p), ProcessState::Waiting);
    assert_eq!(k.get_process_status(p).unwrap().deadline_time, 33 * MS);
    assert_eq!(k.next_event_time(), Some(13 * MS));
    k.advance(13 * MS);
    assert_eq!(cur(&k), Some(p));
    // Ran late (completes at 30 ms): next release is still 13 + 20 = 33 ms.
    assert_eq!(k.periodic_wait(30 * MS, pr(p)), Ok(Blocked));
    assert_eq!(k.get_process_status(p).unwrap().deadline_time, 53 * MS);
    assert_eq!(k.next_event_time(), Some(33 * MS));
    k.advance(33 * MS);
    assert_eq!(cur(&k), Some(p));
    assert_eq!(k.take_wake_result(p), Some(Ok(())));
    // Overrun past the next release point: released again at once.
    assert_eq!(k.periodic_wait(60 * MS, pr(p)), Ok(Done(())));
    assert_eq!(k.get_process_status(p).unwrap().deadline_time, 73 * MS);
    assert!(misses(&mut k).contains(&(p, 53 * MS)));
}

#[test]
fn periodic_started_in_init_released_at_first_period_after_normal() {
    let mut k = kernel();
    let p = k
        .create_process(0, MAIN, &attrs("P", 9, 10 * MS, 4 * MS))
        .unwrap();
    let q = k
        .create_process(0, MAIN, &attrs("Q", 8, 20 * MS, 4 * MS))
        .unwrap();
    k.start(0, MAIN, p).unwrap();
    k.delayed_start(0, MAIN, q, 5 * MS).unwrap();
    normal(&mut k, 12 * MS);
    assert_eq!(k.running(0), None);
    assert_eq!(k.get_process_status(p).unwrap().deadline_time, 24 * MS);
    assert_eq!(k.get_process_status(q).unwrap().deadline_time, 29 * MS);
    k.advance(20 * MS);
    assert_eq!(cur(&k), Some(p));
    assert_eq!(k.periodic_wait(21 * MS, pr(p)), Ok(Blocked));
    assert_eq!(k.running(0), None);
    k.advance(25 * MS);
    assert_eq!(cur(&k), Some(q));
    k.advance(30 * MS);
    assert_eq!(cur(&k), Some(p));
}

#[test]
fn init_started_aperiodic_released_in_start_order() {
    let mut k = kernel();
    let b = aperiodic(&mut k, "B", 5);
    let a = aperiodic(&mut k, "A", 5);
    let d = k
        .create_process(0, MAIN, &attrs("D", 9, -1, 2 * MS))
        .unwrap();
    k.start(0, MAIN, a).unwrap();
    k.start(0, MAIN, b).unwrap();
    k.delayed_start(0, MAIN, d, 3 * MS).unwrap();
    normal(&mut k, MS);
    assert_eq!(cur(&k), Some(a));
    assert_eq!(k.get_process_status(d).unwrap().deadline_time, 6 * MS);
    k.stop_self(MS, pr(a)).unwrap();
    assert_eq!(cur(&k), Some(b));
    k.advance(4 * MS);
    assert_eq!(cur(&k), Some(d));
}

#[test]
fn periodic_wait_errors() {
    let mut k = kernel();
    assert_eq!(k.periodic_wait(0, MAIN), Err(InvalidMode));
    let a = spawn(&mut k, "A", 5);
    let p = k
        .create_process(0, MAIN, &attrs("P", 9, 10 * MS, 4 * MS))
        .unwrap();
    k.start(0, MAIN, p).unwrap();
    normal(&mut k, 0);
    assert_eq!(cur(&k), Some(p));
    k.lock_preemption(0, pr(p)).unwrap();
    assert_eq!(k.periodic_wait(0, pr(p)), Err(InvalidMode));
    k.unlock_preemption(0, pr(p)).unwrap();
    assert_eq!(k.periodic_wait(0, pr(p)), Ok(Blocked));
    assert_eq!(k.periodic_wait(0, pr(a)), Err(InvalidMode));
}

#[test]
fn deadline_miss_reported_once() {
    let mut k = kernel();
    let p = k
        .create_process(0, MAIN, &attrs("P", 9, 10 * MS, 4 * MS))
        .unwrap();
    k.start(0, MAIN, p).unwrap();
    normal(&mut k, 0);
    effects(&mut k);
    assert_eq!(k.next_event_time(), Some(4 * MS + 1));
    k.advance(4 * MS);
    assert!(misses(&mut k).is_empty());
    k.advance(4 * MS + 1);
    assert_eq!(misses(&mut k), vec![(p, 4 * MS)]);
    assert_eq!(k.next_event_time(), None);
    k.advance(9 * MS);
    assert!(misses(&mut k).is_empty());
    // Completing re-arms the next deadline (release 10 ms + 4 ms).
    assert_eq!(k.periodic_wait(9 * MS, pr(p)), Ok(Blocked));
    assert_eq!(k.next_event_time(), Some(10 * MS));
    k.advance(10 * MS);
    assert_eq!(k.next_event_time(), Some(14 * MS + 1));
    assert_eq!(k.periodic_wait(12 * MS, pr(p)), Ok(Blocked));
    k.advance(30 * MS);
    assert_eq!(misses(&mut k), vec![(p, 24 * MS)]);
}

#[test]
fn deadline_miss_while_waiting_and_not_when_dormant() {
    let mut k = kernel();
    let a = k
        .create_process(0, MAIN, &attrs("A", 5, -1, 3 * MS))
        .unwrap();
    let b = k
        .create_process(0, MAIN, &attrs("B", 4, -1, 3 * MS))
        .unwrap();
    k.start(0, MAIN, a).unwrap();
    k.start(0, MAIN, b).unwrap();
    normal(&mut k, 0);
    assert_eq!(k.timed_wait(0, pr(a), 10 * MS), Ok(Blocked));
    k.stop_self(MS, pr(b)).unwrap();
    k.advance(5 * MS);
    assert_eq!(misses(&mut k), vec![(a, 3 * MS)]);
}

#[test]
fn replenish_nominal_and_errors() {
    let mut k = kernel();
    assert_eq!(k.replenish(0, MAIN, MS), Err(NoAction));
    let a = k
        .create_process(0, MAIN, &attrs("A", 5, -1, 3 * MS))
        .unwrap();
    let inf = k.create_process(0, MAIN, &attrs("I", 4, -1, -1)).unwrap();
    let p = k
        .create_process(0, MAIN, &attrs("P", 9, 10 * MS, 4 * MS))
        .unwrap();
    k.start(0, MAIN, a).unwrap();
    k.start(0, MAIN, inf).unwrap();
    normal(&mut k, 0);
    assert_eq!(k.replenish(MS, pr(a), -2), Err(InvalidParam));
    k.replenish(MS, pr(a), 5 * MS).unwrap();
    assert_eq!(k.get_process_status(a).unwrap().deadline_time, 6 * MS);
    k.replenish(MS, pr(a), INFINITE_TIME_VALUE).unwrap();
    assert_eq!(
        k.get_process_status(a).unwrap().deadline_time,
        INFINITE_TIME_VALUE
    );
    k.stop_self(MS, pr(a)).unwrap();
    k.replenish(MS, pr(inf), MS).unwrap();
    assert_eq!(
        k.get_process_status(inf).unwrap().deadline_time,
        INFINITE_TIME_VALUE
    );
    k.start(MS, pr(inf), p).unwrap();
    k.advance(10 * MS);
    assert_eq!(cur(&k), Some(p));
    assert_eq!(k.replenish(11 * MS, pr(p), 10 * MS), Err(InvalidMode));
    assert_eq!(
        k.replenish(11 * MS, pr(p), INFINITE_TIME_VALUE),
        Err(InvalidMode)
    );
    k.replenish(11 * MS, pr(p), 9 * MS).unwrap();
    assert_eq!(k.get_process_status(p).unwrap().deadline_time, 20 * MS);
}

#[test]
fn edf_policy_orders_by_deadline() {
    let mut c = cfg();
    c.policy = SchedulingPolicy::Edf;
    let mut k = Kernel::new(c).unwrap();
    let late = k
        .create_process(0, MAIN, &attrs("L", 9, -1, 8 * MS))
        .unwrap();
    let soon = k
        .create_process(0, MAIN, &attrs("S", 1, -1, 2 * MS))
        .unwrap();
    let none = k.create_process(0, MAIN, &attrs("N", 50, -1, -1)).unwrap();
    let tie = k
        .create_process(0, MAIN, &attrs("T", 3, -1, 2 * MS))
        .unwrap();
    for p in [late, soon, none, tie] {
        k.start(0, MAIN, p).unwrap();
    }
    normal(&mut k, 0);
    // Deadline 2 ms for S and T: tie broken by priority (T).
    assert_eq!(cur(&k), Some(tie));
    k.stop_self(0, pr(tie)).unwrap();
    assert_eq!(cur(&k), Some(soon));
    k.stop_self(0, pr(soon)).unwrap();
    assert_eq!(cur(&k), Some(late));
    k.stop_self(0, pr(late)).unwrap();
    assert_eq!(cur(&k), Some(none));
}

#[test]
fn multicore_independent_scheduling() {
    let mut c = cfg();
    c.cores = 2;
    let mut k = Kernel::new(c).unwrap();
    let a = aperiodic(&mut k, "A", 5);
    let b = aperiodic(&mut k, "B", 9);
    let x = aperiodic(&mut k, "X", 1);
    k.initialize_process_core_affinity(0, MAIN, x, 1).unwrap();
    for p in [a, b, x] {
        k.start(0, MAIN, p).unwrap();
    }
    assert_eq!(k.running(1), None);
    normal(&mut k, 0);
    assert_eq!(k.running(0), Some(pr(b)));
    assert_eq!(k.running(1), Some(pr(x)));
    assert_eq!(k.running(5), None);
    // X (core 1) suspends B (core 0): A takes core 0.
    k.suspend(MS, pr(x), b).unwrap();
    assert_eq!(k.running(0), Some(pr(a)));
    assert_eq!(k.running(1), Some(pr(x)));
}
