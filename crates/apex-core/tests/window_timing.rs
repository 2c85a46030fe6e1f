// SPDX-License-Identifier: MIT OR Apache-2.0
//! Time events that fall due exactly at (or next to) a window start, on the simulated clock.
//! The glue calls [`Kernel::advance`] at the event's time or, when the partition is
//! held outside its windows, at the next window start; either way the event must be handled
//! then, and a periodic process whose TIME_CAPACITY equals its period that completes every
//! activation must never miss its deadline (the deadline of one activation is the release
//! point of the next one: both fall due at the same instant).

mod common;
use common::*;
use partita_apex_core::*;

use CallOutcome::*;

/// Partition period 10 ms = the frame; window [`start`, `start + len`) of every frame.
fn windowed(origin: i64) -> Kernel {
    let mut c = cfg();
    c.period_origin = origin;
    Kernel::new(c).unwrap()
}

/// The first instant at or after `t` at which a partition owning [`start`, `start + len`) of
/// every 10 ms frame runs (the glue's timer thread is held until then).
fn runs_at(t: i64, start: i64, len: i64) -> i64 {
    let f = 10 * MS;
    let base = t - t.rem_euclid(f);
    let off = t - base;
    if off < start {
        base + start
    } else if off < start + len {
        t
    } else {
        base + f + start
    }
}

#[test]
fn capacity_equal_to_period_never_misses_when_completed() {
    // Window [0, 5 ms) of each 10 ms frame, period start at 0: every release point is a
    // window start, and is the deadline of the previous activation.
    let mut k = windowed(0);
    let p = k
        .create_process(0, MAIN, &attrs("P", 9, 10 * MS, 10 * MS))
        .unwrap();
    k.start(0, MAIN, p).unwrap();
    normal(&mut k, 0);
    assert_eq!(cur(&k), Some(p));
    // Wake-up latencies of the timer thread after the window start (the thaw): none, one
    // nanosecond (the deadline + 1 event of the previous activation), tens of microseconds.
    let lateness = [0, 1, 2, 50_000, 999_999];
    for frame in 0..200i64 {
        let release = frame * 10 * MS;
        let status = k.get_process_status(p).unwrap();
        assert_eq!(status.deadline_time, release + 10 * MS, "frame {frame}");
        assert_eq!(cur(&k), Some(p), "frame {frame}");
        // Little work, then PERIODIC_WAIT well before the deadline.
        let done = release + lateness[frame as usize % lateness.len()] + 100_000;
        assert_eq!(k.periodic_wait(done, pr(p)), Ok(Blocked), "frame {frame}");
        assert_eq!(k.next_event_time(), Some(release + 10 * MS));
        // The timer thread: at the release point, or late by the thaw latency.
        let woke = release + 10 * MS + lateness[(frame as usize + 1) % lateness.len()];
        k.advance(woke);
        assert_eq!(k.take_wake_result(p), Some(Ok(())));
        assert_eq!(misses(&mut k), vec![], "frame {frame}");
    }
}

#[test]
fn capacity_equal_to_period_released_while_held() {
    // Window [5 ms, 10 ms): the release points (period start 0) fall while the partition is
    // held; the glue handles them at the window start. Completed activations never miss.
    let mut k = windowed(0);
    let p = k
        .create_process(0, MAIN, &attrs("P", 9, 10 * MS, 10 * MS))
        .unwrap();
    let bg = spawn(&mut k, "BG", 1);
    normal(&mut k, 5 * MS);
    assert_eq!(cur(&k), Some(bg));
    k.start(5 * MS, pr(bg), p).unwrap();
    for frame in 1..100i64 {
        let release = frame * 10 * MS;
        assert_eq!(k.next_event_time(), Some(release), "frame {frame}");
        let at = runs_at(release, 5 * MS, 5 * MS);
        assert_eq!(at, release + 5 * MS);
        k.advance(at);
        assert_eq!(cur(&k), Some(p), "frame {frame}");
        assert_eq!(k.periodic_wait(at + 1, pr(p)), Ok(Blocked));
        assert_eq!(cur(&k), Some(bg));
        assert_eq!(misses(&mut k), vec![], "frame {frame}");
    }
}

#[test]
fn an_activation_not_completed_by_the_next_release_misses_once() {
    let mut k = windowed(0);
    let p = k
        .create_process(0, MAIN, &attrs("P", 9, 10 * MS, 10 * MS))
        .unwrap();
    k.start(0, MAIN, p).unwrap();
    normal(&mut k, 0);
    // Still computing when its deadline (= the next release point) passes.
    assert_eq!(k.next_event_time(), Some(10 * MS + 1));
    k.advance(10 * MS);
    assert_eq!(misses(&mut k), vec![], "not past the deadline yet");
    k.advance(10 * MS + 1);
    assert_eq!(misses(&mut k), vec![(p, 10 * MS)]);
    // It completes late: its next release point (10 ms) is past, it is released at once
    // with the deadline 20 ms, and is not reported twice.
    assert_eq!(k.periodic_wait(12 * MS, pr(p)), Ok(Done(())));
    assert_eq!(k.get_process_status(p).unwrap().deadline_time, 20 * MS);
    assert_eq!(k.periodic_wait(13 * MS, pr(p)), Ok(Blocked));
    k.advance(20 * MS);
    assert_eq!(k.take_wake_result(p), Some(Ok(())));
    assert_eq!(misses(&mut k), vec![]);
}

#[test]
fn timed_wait_and_delayed_start_due_at_a_window_start() {
    // Window [0, 5 ms). A TIMED_WAIT and a DELAYED_START asked for exactly the time left until
    // the next window start; the glue (held until then) handles both there, in one advance.
    let mut k = windowed(0);
    let w = spawn(&mut k, "W", 5);
    let d = aperiodic(&mut k, "D", 7);
    normal(&mut k, MS);
    for frame in 1..50i64 {
        let start = frame * 10 * MS;
        let now = start - 10 * MS + MS + 17;
        assert_eq!(cur(&k), Some(w));
        k.delayed_start(now, pr(w), d, start - now).unwrap();
        assert_eq!(k.timed_wait(now, pr(w), start - now), Ok(Blocked));
        assert_eq!(k.next_event_time(), Some(start));
        assert_eq!(runs_at(start, 0, 5 * MS), start);
        k.advance(start);
        // D (higher) runs first, W is READY behind it.
        assert_eq!(cur(&k), Some(d), "frame {frame}");
        assert_eq!(state(&k, w), ProcessState::Ready);
        k.stop_self(start + 1, pr(d)).unwrap();
        assert_eq!(cur(&k), Some(w));
        assert_eq!(k.take_wake_result(w), Some(Ok(())));
        k.advance(start + MS);
    }
}
