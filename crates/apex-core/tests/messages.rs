// SPDX-License-Identifier: MIT OR Apache-2.0
//! Buffers and blackboards (copy semantics).

mod common;
use common::*;
use partita_apex_core::*;
use CallOutcome::{Blocked, Done};
use QueuingDiscipline::Fifo;
use ReturnCode::*;

#[test]
fn buffer_create_errors() {
    let mut c = cfg();
    c.max_buffers = 2;
    c.message_memory = 1000;
    let mut k = Kernel::new(c).unwrap();
    let b = k.create_buffer(0, MAIN, &name("B"), 16, 4, Fifo).unwrap();
    assert_eq!(
        k.create_buffer(0, MAIN, &name("B"), 16, 4, Fifo),
        Err(NoAction)
    );
    assert_eq!(
        k.create_buffer(0, MAIN, &name("C"), 0, 4, Fifo),
        Err(InvalidParam)
    );
    assert_eq!(
        k.create_buffer(0, MAIN, &name("C"), 16, 0, Fifo),
        Err(InvalidParam)
    );
    assert_eq!(
        k.create_buffer(0, MAIN, &name("C"), SYSTEM_LIMIT_MESSAGE_SIZE + 1, 1, Fifo),
        Err(InvalidConfig)
    );
    assert_eq!(
        k.create_buffer(
            0,
            MAIN,
            &name("C"),
            1,
            SYSTEM_LIMIT_NUMBER_OF_MESSAGES + 1,
            Fifo
        ),
        Err(InvalidParam)
    );
    assert_eq!(
        k.create_buffer(0, MAIN, &name("C"), 100, 10, Fifo),
        Err(InvalidConfig)
    );
    k.create_buffer(0, MAIN, &name("C"), 10, 10, Fifo).unwrap();
    assert_eq!(
        k.create_buffer(0, MAIN, &name("D"), 1, 1, Fifo),
        Err(InvalidConfig)
    );
    assert_eq!(k.get_buffer_id(&name("B")), Ok(b));
    assert_eq!(k.get_buffer_id(&name("Z")), Err(InvalidConfig));
    let st = k.get_buffer_status(b).unwrap();
    assert_eq!(
        (
            st.nb_message,
            st.max_nb_message,
            st.max_message_size,
            st.waiting_processes
        ),
        (0, 4, 16, 0)
    );
    assert_eq!(k.get_buffer_status(BufferId(7)), Err(InvalidParam));
}

#[test]
fn buffer_send_receive_nominal() {
    let mut k = kernel();
    let b = k.create_buffer(0, MAIN, &name("B"), 8, 2, Fifo).unwrap();
    let a = spawn(&mut k, "A", 5);
    normal(&mut k, 0);
    let mut out = [0u8; 8];
    assert_eq!(
        k.send_buffer(0, pr(a), BufferId(9), b"x", 0),
        Err(InvalidParam)
    );
    assert_eq!(k.send_buffer(0, pr(a), b, b"", 0), Err(InvalidParam));
    assert_eq!(
        k.send_buffer(0, pr(a), b, b"123456789", 0),
        Err(InvalidParam)
    );
    assert_eq!(k.send_buffer(0, pr(a), b, b"x", -3), Err(InvalidParam));
    assert_eq!(k.send_buffer(0, pr(a), b, b"one", 0), Ok(Done(())));
    assert_eq!(k.send_buffer(0, pr(a), b, b"two!", 0), Ok(Done(())));
    assert_eq!(k.send_buffer(0, pr(a), b, b"3", 0), Err(NotAvailable));
    assert_eq!(k.get_buffer_status(b).unwrap().nb_message, 2);
    assert_eq!(
        k.receive_buffer(0, pr(a), b, 0, &mut [0u8; 4]),
        Err(InvalidParam)
    );
    assert_eq!(k.receive_buffer(0, pr(a), b, 0, &mut out), Ok(Done(3)));
    assert_eq!(&out[..3], b"one");
    assert_eq!(k.receive_buffer(0, pr(a), b, 0, &mut out), Ok(Done(4)));
    assert_eq!(&out[..4], b"two!");
    assert_eq!(
        k.receive_buffer(0, pr(a), b, 0, &mut out),
        Err(NotAvailable)
    );
    // Ring wrap-around.
    for i in 0..5u8 {
        assert_eq!(k.send_buffer(0, pr(a), b, &[i, i], 0), Ok(Done(())));
        assert_eq!(k.receive_buffer(0, pr(a), b, 0, &mut out), Ok(Done(2)));
        assert_eq!(&out[..2], &[i, i]);
    }
}

#[test]
fn buffer_blocked_receiver_gets_message_directly() {
    let mut k = kernel();
    let b = k.create_buffer(0, MAIN, &name("B"), 8, 2, Fifo).unwrap();
    let r = spawn(&mut k, "R", 9);
    let s = spawn(&mut k, "S", 1);
    normal(&mut k, 0);
    let mut out = [0u8; 8];
    assert_eq!(k.receive_buffer(0, pr(r), b, -1, &mut out), Ok(Blocked));
    assert_eq!(k.take_wake_message(r, &mut out), None);
    assert_eq!(k.send_buffer(MS, pr(s), b, b"hello", 0), Ok(Done(())));
    assert_eq!(cur(&k), Some(r));
    assert_eq!(k.get_buffer_status(b).unwrap().nb_message, 0);
    assert_eq!(k.take_wake_message(r, &mut out), Some(Ok(5)));
    assert_eq!(&out[..5], b"hello");
    // Receive time-out.
    assert_eq!(k.receive_buffer(MS, pr(r), b, MS, &mut out), Ok(Blocked));
    k.advance(2 * MS);
    assert_eq!(k.take_wake_message(r, &mut out), Some(Err(TimedOut)));
}

#[test]
fn buffer_blocked_sender_enqueued_on_receive() {
    let mut k = kernel();
    let b = k.create_buffer(0, MAIN, &name("B"), 8, 1, Fifo).unwrap();
    let s = spawn(&mut k, "S", 9);
    let r = spawn(&mut k, "R", 1);
    normal(&mut k, 0);
    let mut out = [0u8; 8];
    assert_eq!(k.send_buffer(0, pr(s), b, b"a", -1), Ok(Done(())));
    assert_eq!(k.send_buffer(0, pr(s), b, b"bb", -1), Ok(Blocked));
    assert_eq!(cur(&k), Some(r));
    assert_eq!(k.get_buffer_status(b).unwrap().waiting_processes, 1);
    assert_eq!(k.receive_buffer(MS, pr(r), b, 0, &mut out), Ok(Done(1)));
    assert_eq!(cur(&k), Some(s));
    assert_eq!(k.take_wake_result(s), Some(Ok(())));
    let st = k.get_buffer_status(b).unwrap();
    assert_eq!((st.nb_message, st.waiting_processes), (1, 0));
    assert_eq!(k.send_buffer(MS, pr(s), b, b"c", 2 * MS), Ok(Blocked));
    k.advance(3 * MS);
    assert_eq!(k.take_wake_result(s), Some(Err(TimedOut)));
    assert_eq!(k.receive_buffer(3 * MS, pr(s), b, 0, &mut out), Ok(Done(2)));
    assert_eq!(&out[..2], b"bb");
}

#[test]
fn blackboard_all_services() {
    let mut c = cfg();
    c.max_blackboards = 1;
    let mut k = Kernel::new(c).unwrap();
    assert_eq!(
        k.create_blackboard(0, MAIN, &name("X"), 0),
        Err(InvalidParam)
    );
    let bb = k.create_blackboard(0, MAIN, &name("BB"), 8).unwrap();
    assert_eq!(
        k.create_blackboard(0, MAIN, &name("BB"), 8),
        Err(InvalidConfig)
    );
    assert_eq!(k.get_blackboard_id(&name("BB")), Ok(bb));
    assert_eq!(k.get_blackboard_id(&name("Q")), Err(InvalidConfig));
    let r1 = spawn(&mut k, "R1", 9);
    let r2 = spawn(&mut k, "R2", 8);
    let w = spawn(&mut k, "W", 1);
    normal(&mut k, 0);
    let mut out = [0u8; 8];
    assert_eq!(
        k.read_blackboard(0, pr(r1), bb, 0, &mut out),
        Err(NotAvailable)
    );
    assert_eq!(
        k.read_blackboard(0, pr(r1), BlackboardId(2), 0, &mut out),
        Err(InvalidParam)
    );
    assert_eq!(
        k.read_blackboard(0, pr(r1), bb, -2, &mut out),
        Err(InvalidParam)
    );
    assert_eq!(k.read_blackboard(0, pr(r1), bb, -1, &mut out), Ok(Blocked));
    assert_eq!(
        k.read_blackboard(0, pr(r2), bb, 5 * MS, &mut out),
        Ok(Blocked)
    );
    let st = k.get_blackboard_status(bb).unwrap();
    assert_eq!(
        (
            st.empty_indicator,
            st.max_message_size,
            st.waiting_processes
        ),
        (EmptyIndicator::Empty, 8, 2)
    );
    assert_eq!(k.display_blackboard(MS, pr(w), bb, b""), Err(InvalidParam));
    assert_eq!(
        k.display_blackboard(MS, pr(w), bb, b"123456789"),
        Err(InvalidParam)
    );
    assert_eq!(
        k.display_blackboard(MS, pr(w), BlackboardId(0), b"1"),
        Err(InvalidParam)
    );
    k.display_blackboard(MS, pr(w), bb, b"data").unwrap();
    assert_eq!(cur(&k), Some(r1));
    assert_eq!(state(&k, r2), ProcessState::Ready);
    assert_eq!(k.take_wake_message(r1, &mut out), Some(Ok(4)));
    assert_eq!(&out[..4], b"data");
    let mut out2 = [0u8; 8];
    assert_eq!(k.take_wake_message(r2, &mut out2), Some(Ok(4)));
    assert_eq!(k.read_blackboard(MS, pr(r1), bb, 0, &mut out), Ok(Done(4)));
    assert_eq!(
        k.get_blackboard_status(bb).unwrap().empty_indicator,
        EmptyIndicator::Occupied
    );
    k.clear_blackboard(MS, pr(r1), bb).unwrap();
    assert_eq!(
        k.clear_blackboard(MS, pr(r1), BlackboardId(5)),
        Err(InvalidParam)
    );
    assert_eq!(
        k.read_blackboard(MS, pr(r1), bb, 0, &mut out),
        Err(NotAvailable)
    );
    assert_eq!(k.read_blackboard(MS, pr(r1), bb, MS, &mut out), Ok(Blocked));
    k.advance(2 * MS);
    assert_eq!(k.take_wake_message(r1, &mut out), Some(Err(TimedOut)));
}
