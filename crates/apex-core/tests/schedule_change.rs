// SPDX-License-Identifier: MIT OR Apache-2.0
//! Module schedule changes (ARINC 653 Part 2) seen by the partition kernel: a new period,
//! duration and period origin, with a simulated clock.

mod common;
use common::*;
use partita_apex_core::*;

#[test]
fn status_reports_the_new_timing() {
    let mut k = kernel();
    assert_eq!(k.get_partition_status().period, 10 * MS);
    k.set_partition_timing(20 * MS, 7 * MS, 100 * MS).unwrap();
    let s = k.get_partition_status();
    assert_eq!((s.period, s.duration), (20 * MS, 7 * MS));
    assert_eq!(k.config().period_origin, 100 * MS);
}

#[test]
fn bad_timing_is_refused_and_changes_nothing() {
    let mut k = kernel();
    assert_eq!(
        k.set_partition_timing(0, MS, 0),
        Err(ReturnCode::InvalidConfig)
    );
    assert_eq!(
        k.set_partition_timing(10 * MS, -1, 0),
        Err(ReturnCode::InvalidConfig)
    );
    assert_eq!(k.get_partition_status().period, 10 * MS);
    assert_eq!(k.get_partition_status().duration, 5 * MS);
}

/// A periodic process started after the switch is released at the first period start of the
/// new schedule, not of the old one.
#[test]
fn periodic_start_after_switch_uses_new_period_origin() {
    let mut k = kernel();
    let starter = spawn(&mut k, "STARTER", 9);
    let per = k
        .create_process(0, MAIN, &attrs("PER", 5, 20 * MS, 20 * MS))
        .unwrap();
    normal(&mut k, 0);
    assert_eq!(cur(&k), Some(starter));
    // The module switches at 30 ms; under the new schedule the partition's periods start at
    // 30 ms + 15 ms and repeat every 20 ms.
    k.set_partition_timing(20 * MS, 5 * MS, 45 * MS).unwrap();
    k.start(33 * MS, pr(starter), per).unwrap();
    assert_eq!(state(&k, per), ProcessState::Waiting);
    k.advance(40 * MS);
    // Under the old timing (origin 0, period 10 ms) it would be released at 40 ms.
    assert_eq!(state(&k, per), ProcessState::Waiting);
    k.advance(45 * MS);
    assert_eq!(state(&k, per), ProcessState::Ready);
    assert_eq!(
        k.get_process_status(per).unwrap().deadline_time,
        65 * MS,
        "deadline = release point + time capacity"
    );
}

/// Process periods are checked against the partition period of the schedule in force.
#[test]
fn create_process_checks_the_new_period() {
    let mut k = kernel();
    assert_eq!(
        k.create_process(0, MAIN, &attrs("P15", 5, 15 * MS, 15 * MS)),
        Err(ReturnCode::InvalidConfig)
    );
    k.set_partition_timing(5 * MS, 2 * MS, 0).unwrap();
    assert!(k
        .create_process(0, MAIN, &attrs("P15", 5, 15 * MS, 15 * MS))
        .is_ok());
}
