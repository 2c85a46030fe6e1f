// SPDX-License-Identifier: MIT OR Apache-2.0
//! The module-schedule fields of the control block: the seqlock and the schedule table.

use partita_sys::control::{self, schedule::Timing, ControlBlock};
use partita_sys::shm::SharedMapping;
use std::sync::atomic::Ordering;
use std::sync::Arc;

fn block() -> SharedMapping {
    SharedMapping::create("partita-test-msched", control::SIZE).unwrap()
}

#[test]
fn timing_round_trips_and_bumps_the_sequence() {
    let m = block();
    let c = m.view::<ControlBlock>();
    let (s0, _) = c.read_schedule().unwrap();
    let t = Timing {
        period: 50,
        duration: 10,
        period_origin: 400,
        major_frame: 100,
        current: 7,
        next: 8,
        last_switch: 400,
        may_set: true,
    };
    c.write_schedule(&t);
    let (s1, got) = c.read_schedule().unwrap();
    assert_eq!(got, t);
    assert_eq!(s1, s0 + 2);
    assert_eq!(s1 % 2, 0);
    assert_eq!(c.period_ns.load(Ordering::Relaxed), 50);
}

#[test]
fn a_reader_never_sees_a_torn_timing() {
    let m = Arc::new(block());
    let writer = {
        let m = m.clone();
        std::thread::spawn(move || {
            let c = m.view::<ControlBlock>();
            for i in 1..500_000i64 {
                // Every field derived from i: a torn read would mix two values of i.
                c.write_schedule(&Timing {
                    period: i,
                    duration: i,
                    period_origin: i,
                    major_frame: i,
                    current: i as i32,
                    next: i as i32,
                    last_switch: i,
                    may_set: i % 2 == 0,
                });
            }
        })
    };
    let c = m.view::<ControlBlock>();
    let mut reads = 0;
    while !writer.is_finished() || reads == 0 {
        if let Some((seq, t)) = c.read_schedule() {
            assert_eq!(seq % 2, 0);
            let i = t.period;
            assert!(
                t.duration == i
                    && t.period_origin == i
                    && t.major_frame == i
                    && i64::from(t.current) == i
                    && i64::from(t.next) == i
                    && t.last_switch == i
                    && (i == 0 || t.may_set == (i % 2 == 0)),
                "torn read: {t:?}"
            );
            reads += 1;
        }
    }
    writer.join().unwrap();
}

#[test]
fn schedule_table_keeps_ids_and_names() {
    let m = block();
    let c = m.view::<ControlBlock>();
    assert_eq!(c.schedule_table().count(), 0);
    let long = "a_name_of_exactly_thirty_chars";
    assert_eq!(long.len(), 30);
    c.set_schedule_table(&[(1, "init"), (20, ""), (3, long)]);
    let t: Vec<(i32, Vec<u8>)> = c
        .schedule_table()
        .map(|(id, name)| (id, name.as_bytes().to_vec()))
        .collect();
    assert_eq!(
        t,
        vec![
            (1, b"init".to_vec()),
            (20, Vec::new()),
            (3, long.as_bytes().to_vec())
        ]
    );
}
