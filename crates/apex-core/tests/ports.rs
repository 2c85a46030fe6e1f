// SPDX-License-Identifier: MIT OR Apache-2.0
//! Port waiting queues (the partition side of blocking SEND/RECEIVE_QUEUING_MESSAGE), on the
//! simulated clock.

mod common;
use common::*;
use partita_apex_core::*;
use CallOutcome::Blocked;
use ReturnCode::*;

/// Three processes of priorities 5, 9, 7 that block on a port in that order (each runs once
/// the previous one blocked).
fn three_waiters(k: &mut Kernel, q: PortWaitId, send: bool) -> [ProcessId; 3] {
    let a = spawn(k, "A", 5);
    let b = spawn(k, "B", 9);
    let c = spawn(k, "C", 7);
    normal(k, 0);
    for (i, p) in [b, c, a].into_iter().enumerate() {
        assert_eq!(k.running(0), Some(pr(p)));
        let t = (i as i64 + 1) * MS;
        let r = if send {
            k.port_block_send(t, pr(p), q, &[i as u8; 3], INFINITE_TIME_VALUE)
                .map(|_| ())
        } else {
            k.port_block_receive(t, pr(p), q, INFINITE_TIME_VALUE)
                .map(|_| ())
        };
        assert_eq!(r, Ok(()));
    }
    assert_eq!(k.port_waiting(q), 3);
    assert_eq!(k.running(0), None);
    [b, c, a]
}

#[test]
fn fifo_receivers_served_in_arrival_order() {
    let mut k = kernel();
    let q = k.create_port_waiters(PortWaitKind::Receive, QueuingDiscipline::Fifo, 8);
    let order = three_waiters(&mut k, q, false);
    for (n, p) in order.into_iter().enumerate() {
        assert!(k.port_complete_receive(10 * MS, q, &[n as u8; 4], n == 1));
        assert_eq!(k.running(0), Some(pr(p)));
        let mut out = [0u8; 8];
        assert_eq!(k.take_wake_message(p, &mut out), Some(Ok(4)));
        assert_eq!(out[..4], [n as u8; 4]);
        assert_eq!(k.take_port_overflow(q, p), n == 1);
        assert!(!k.take_port_overflow(q, p));
        k.stop_self(10 * MS, pr(p)).unwrap();
    }
    assert!(!k.port_complete_receive(11 * MS, q, &[1], false));
}

#[test]
fn priority_senders_served_by_priority() {
    let mut k = kernel();
    let q = k.create_port_waiters(PortWaitKind::Send, QueuingDiscipline::Priority, 8);
    let [b, c, a] = three_waiters(&mut k, q, true);
    // Priorities: b 9, c 7, a 5; messages: b [0;3], c [1;3], a [2;3].
    for (p, m) in [(b, 0u8), (c, 1), (a, 2)] {
        assert_eq!(k.port_head_message(q), Some(&[m; 3][..]));
        assert!(k.port_complete_send(10 * MS, q));
        assert_eq!(k.take_wake_result(p), Some(Ok(())));
        k.stop_self(10 * MS, pr(p)).unwrap();
    }
    assert_eq!(k.port_head_message(q), None);
    assert!(!k.port_complete_send(11 * MS, q));
}

#[test]
fn time_out_leaves_the_queue() {
    let mut k = kernel();
    let q = k.create_port_waiters(PortWaitKind::Receive, QueuingDiscipline::Fifo, 8);
    let a = spawn(&mut k, "A", 5);
    let b = spawn(&mut k, "B", 4);
    normal(&mut k, 0);
    assert_eq!(k.port_block_receive(MS, pr(a), q, 5 * MS), Ok(Blocked));
    assert_eq!(k.port_block_receive(2 * MS, pr(b), q, 20 * MS), Ok(Blocked));
    assert_eq!(k.next_event_time(), Some(6 * MS));
    k.advance(6 * MS);
    assert_eq!(k.running(0), Some(pr(a)));
    assert_eq!(k.take_wake_result(a), Some(Err(TimedOut)));
    assert_eq!(k.port_waiting(q), 1);
    // The remaining waiter gets the next message.
    assert!(k.port_complete_receive(7 * MS, q, b"x", false));
    k.stop_self(7 * MS, pr(a)).unwrap();
    assert_eq!(k.running(0), Some(pr(b)));
    let mut out = [0u8; 8];
    assert_eq!(k.take_wake_message(b, &mut out), Some(Ok(1)));
}

#[test]
fn errors_and_stop_of_a_waiter() {
    let mut k = kernel();
    let q = k.create_port_waiters(PortWaitKind::Send, QueuingDiscipline::Fifo, 4);
    let a = spawn(&mut k, "A", 5);
    let b = spawn(&mut k, "B", 4);
    // The main process cannot block; zero time-out means NOT_AVAILABLE.
    assert_eq!(
        k.port_block_send(0, MAIN, q, b"ab", INFINITE_TIME_VALUE),
        Err(InvalidMode)
    );
    normal(&mut k, 0);
    assert_eq!(k.port_block_send(MS, pr(a), q, b"ab", 0), Err(NotAvailable));
    assert_eq!(
        k.port_block_send(MS, pr(a), q, b"ab", -5),
        Err(InvalidParam)
    );
    assert_eq!(
        k.port_block_send(MS, pr(a), PortWaitId(9), b"ab", 1),
        Err(InvalidParam)
    );
    assert_eq!(
        k.port_block_send(MS, pr(a), q, b"abcdef", 1),
        Err(InvalidParam)
    );
    assert_eq!(k.port_block_receive(MS, pr(a), q, 1), Err(InvalidParam));
    k.lock_preemption(MS, pr(a)).unwrap();
    assert_eq!(k.port_block_send(MS, pr(a), q, b"ab", MS), Err(InvalidMode));
    k.unlock_preemption(MS, pr(a)).unwrap();
    assert_eq!(
        k.port_block_send(2 * MS, pr(a), q, b"ab", INFINITE_TIME_VALUE),
        Ok(Blocked)
    );
    assert_eq!(k.running(0), Some(pr(b)));
    k.stop(3 * MS, pr(b), a).unwrap();
    assert_eq!(k.port_waiting(q), 0);
    assert!(!k.port_complete_send(4 * MS, q));
}
