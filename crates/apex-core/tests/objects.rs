// SPDX-License-Identifier: MIT OR Apache-2.0
//! Intra-partition objects: semaphores, events, buffers, blackboards, mutexes.

mod common;
use common::*;
use partita_apex_core::*;
use CallOutcome::{Blocked, Done};
use QueuingDiscipline::{Fifo, Priority as Prio};
use ReturnCode::*;

#[test]
fn semaphore_create_errors_and_status() {
    let mut c = cfg();
    c.max_semaphores = 2;
    let mut k = Kernel::new(c).unwrap();
    let s = k.create_semaphore(0, MAIN, &name("S"), 1, 3, Fifo).unwrap();
    assert_eq!(
        k.create_semaphore(0, MAIN, &name("S"), 1, 3, Fifo),
        Err(NoAction)
    );
    assert_eq!(
        k.create_semaphore(0, MAIN, &name("T"), 4, 3, Fifo),
        Err(InvalidParam)
    );
    assert_eq!(
        k.create_semaphore(0, MAIN, &name("T"), -1, 3, Fifo),
        Err(InvalidParam)
    );
    assert_eq!(
        k.create_semaphore(0, MAIN, &name("T"), 0, MAX_SEMAPHORE_VALUE + 1, Fifo),
        Err(InvalidParam)
    );
    k.create_semaphore(0, MAIN, &name("T"), 0, 1, Prio).unwrap();
    assert_eq!(
        k.create_semaphore(0, MAIN, &name("U"), 0, 1, Fifo),
        Err(InvalidConfig)
    );
    assert_eq!(k.get_semaphore_id(&name("S")), Ok(s));
    assert_eq!(k.get_semaphore_id(&name("X")), Err(InvalidConfig));
    let st = k.get_semaphore_status(s).unwrap();
    assert_eq!(
        (st.current_value, st.maximum_value, st.waiting_processes),
        (1, 3, 0)
    );
    assert_eq!(k.get_semaphore_status(SemaphoreId(9)), Err(InvalidParam));
    let a = spawn(&mut k, "A", 1);
    normal(&mut k, 0);
    assert_eq!(
        k.create_semaphore(0, pr(a), &name("V"), 0, 1, Fifo),
        Err(InvalidConfig)
    );
}

#[test]
fn semaphore_create_in_normal_is_invalid_mode() {
    let mut k = kernel();
    let a = spawn(&mut k, "A", 1);
    normal(&mut k, 0);
    assert_eq!(
        k.create_semaphore(0, pr(a), &name("S"), 0, 1, Fifo),
        Err(InvalidMode)
    );
}

#[test]
fn semaphore_wait_signal_fifo() {
    let mut k = kernel();
    let s = k.create_semaphore(0, MAIN, &name("S"), 1, 2, Fifo).unwrap();
    let a = spawn(&mut k, "A", 5);
    let b = spawn(&mut k, "B", 6);
    let lo = spawn(&mut k, "LO", 1);
    normal(&mut k, 0);
    assert_eq!(cur(&k), Some(b));
    assert_eq!(
        k.wait_semaphore(0, pr(b), SemaphoreId(5), 0),
        Err(InvalidParam)
    );
    assert_eq!(k.wait_semaphore(0, pr(b), s, -4), Err(InvalidParam));
    assert_eq!(k.wait_semaphore(0, pr(b), s, 0), Ok(Done(())));
    assert_eq!(k.wait_semaphore(0, pr(b), s, 0), Err(NotAvailable));
    assert_eq!(
        k.wait_semaphore(0, pr(b), s, INFINITE_TIME_VALUE),
        Ok(Blocked)
    );
    assert_eq!(cur(&k), Some(a));
    assert_eq!(
        k.wait_semaphore(0, pr(a), s, INFINITE_TIME_VALUE),
        Ok(Blocked)
    );
    assert_eq!(cur(&k), Some(lo));
    assert_eq!(k.get_semaphore_status(s).unwrap().waiting_processes, 2);
    assert_eq!(k.next_event_time(), None);
    // FIFO: B (first arrived) is served first; a second signal serves A.
    k.signal_semaphore(MS, pr(lo), s).unwrap();
    assert_eq!(cur(&k), Some(b));
    assert_eq!(k.take_wake_result(b), Some(Ok(())));
    assert_eq!(k.take_wake_result(a), None);
    k.signal_semaphore(MS, pr(b), s).unwrap();
    assert_eq!(k.get_semaphore_status(s).unwrap().current_value, 0);
    assert_eq!(state(&k, a), ProcessState::Ready);
    k.signal_semaphore(MS, pr(b), s).unwrap();
    k.signal_semaphore(MS, pr(b), s).unwrap();
    assert_eq!(k.signal_semaphore(MS, pr(b), s), Err(NoAction));
    assert_eq!(
        k.signal_semaphore(MS, pr(b), SemaphoreId(0)),
        Err(InvalidParam)
    );
}

#[test]
fn semaphore_fifo_vs_priority_discipline() {
    for disc in [Fifo, Prio] {
        let mut k = kernel();
        let s = k.create_semaphore(0, MAIN, &name("S"), 0, 5, disc).unwrap();
        let l = spawn(&mut k, "L", 5);
        let h = spawn(&mut k, "H", 8);
        let sig = spawn(&mut k, "SIG", 2);
        normal(&mut k, 0);
        assert_eq!(k.timed_wait(0, pr(h), MS), Ok(Blocked));
        assert_eq!(k.wait_semaphore(0, pr(l), s, -1), Ok(Blocked));
        assert_eq!(cur(&k), Some(sig));
        k.advance(MS);
        assert_eq!(k.wait_semaphore(MS, pr(h), s, -1), Ok(Blocked));
        assert_eq!(cur(&k), Some(sig));
        k.signal_semaphore(MS, pr(sig), s).unwrap();
        let (first, other) = if disc == Fifo { (l, h) } else { (h, l) };
        assert_eq!(cur(&k), Some(first));
        assert_eq!(k.take_wake_result(first), Some(Ok(())));
        assert_eq!(state(&k, other), ProcessState::Waiting);
    }
}

#[test]
fn semaphore_timeout_and_stop_leave_queue() {
    let mut k = kernel();
    let s = k.create_semaphore(0, MAIN, &name("S"), 0, 5, Fifo).unwrap();
    let a = spawn(&mut k, "A", 5);
    let b = spawn(&mut k, "B", 4);
    let c = spawn(&mut k, "C", 1);
    normal(&mut k, 0);
    assert_eq!(k.wait_semaphore(0, pr(a), s, 2 * MS), Ok(Blocked));
    assert_eq!(k.wait_semaphore(0, pr(b), s, -1), Ok(Blocked));
    assert_eq!(k.next_event_time(), Some(2 * MS));
    k.advance(2 * MS);
    assert_eq!(cur(&k), Some(a));
    assert_eq!(k.take_wake_result(a), Some(Err(TimedOut)));
    assert_eq!(k.get_semaphore_status(s).unwrap().waiting_processes, 1);
    k.stop(3 * MS, pr(a), b).unwrap();
    assert_eq!(k.get_semaphore_status(s).unwrap().waiting_processes, 0);
    k.signal_semaphore(3 * MS, pr(a), s).unwrap();
    assert_eq!(k.get_semaphore_status(s).unwrap().current_value, 1);
    let _ = c;
}

#[test]
fn suspended_waiter_gets_resource_but_stays_suspended() {
    let mut k = kernel();
    let s = k.create_semaphore(0, MAIN, &name("S"), 0, 5, Fifo).unwrap();
    let a = spawn(&mut k, "A", 5);
    let b = spawn(&mut k, "B", 4);
    normal(&mut k, 0);
    assert_eq!(k.wait_semaphore(0, pr(a), s, -1), Ok(Blocked));
    k.suspend(0, pr(b), a).unwrap();
    k.signal_semaphore(0, pr(b), s).unwrap();
    assert_eq!(cur(&k), Some(b));
    assert_eq!(k.get_semaphore_status(s).unwrap().current_value, 0);
    assert_eq!(k.wait_reason(a), Some(WaitReason::Suspended));
    k.resume(MS, pr(b), a).unwrap();
    assert_eq!(cur(&k), Some(a));
    assert_eq!(k.take_wake_result(a), Some(Ok(())));
}

#[test]
fn blocking_calls_invalid_mode() {
    let mut k = kernel();
    let s = k.create_semaphore(0, MAIN, &name("S"), 0, 5, Fifo).unwrap();
    // Main process cannot block, but may take an available resource.
    assert_eq!(k.wait_semaphore(0, MAIN, s, 0), Err(NotAvailable));
    assert_eq!(k.wait_semaphore(0, MAIN, s, 5), Err(InvalidMode));
    let a = spawn(&mut k, "A", 5);
    normal(&mut k, 0);
    k.lock_preemption(0, pr(a)).unwrap();
    assert_eq!(k.wait_semaphore(0, pr(a), s, 5), Err(InvalidMode));
    assert_eq!(k.wait_semaphore(0, pr(a), s, 0), Err(NotAvailable));
}

#[test]
fn events() {
    let mut c = cfg();
    c.max_events = 1;
    let mut k = Kernel::new(c).unwrap();
    let e = k.create_event(0, MAIN, &name("E")).unwrap();
    assert_eq!(k.create_event(0, MAIN, &name("E")), Err(InvalidConfig));
    assert_eq!(k.get_event_id(&name("E")), Ok(e));
    assert_eq!(k.get_event_id(&name("F")), Err(InvalidConfig));
    assert_eq!(k.get_event_status(EventId(2)), Err(InvalidParam));
    let a = spawn(&mut k, "A", 5);
    let b = spawn(&mut k, "B", 6);
    let c = spawn(&mut k, "C", 1);
    normal(&mut k, 0);
    assert_eq!(k.wait_event(0, pr(b), e, 0), Err(NotAvailable));
    assert_eq!(k.wait_event(0, pr(b), EventId(0), 0), Err(InvalidParam));
    assert_eq!(k.wait_event(0, pr(b), e, -5), Err(InvalidParam));
    assert_eq!(k.wait_event(0, pr(b), e, -1), Ok(Blocked));
    assert_eq!(k.wait_event(0, pr(a), e, 5 * MS), Ok(Blocked));
    assert_eq!(cur(&k), Some(c));
    let st = k.get_event_status(e).unwrap();
    assert_eq!(
        (st.event_state, st.waiting_processes),
        (EventState::Down, 2)
    );
    k.set_event(MS, pr(c), e).unwrap();
    assert_eq!(k.get_event_status(e).unwrap().waiting_processes, 0);
    assert_eq!(cur(&k), Some(b));
    assert_eq!(state(&k, a), ProcessState::Ready);
    assert_eq!(k.take_wake_result(b), Some(Ok(())));
    assert_eq!(k.next_event_time(), None);
    assert_eq!(k.wait_event(MS, pr(b), e, -1), Ok(Done(())));
    k.reset_event(MS, pr(b), e).unwrap();
    assert_eq!(k.get_event_status(e).unwrap().event_state, EventState::Down);
    assert_eq!(k.set_event(MS, pr(b), EventId(3)), Err(InvalidParam));
    assert_eq!(k.reset_event(MS, pr(b), EventId(3)), Err(InvalidParam));
    assert_eq!(k.wait_event(MS, pr(b), e, 2 * MS), Ok(Blocked));
    k.advance(3 * MS);
    assert_eq!(k.take_wake_result(b), Some(Err(TimedOut)));
}
