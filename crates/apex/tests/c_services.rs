// SPDX-License-Identifier: MIT OR Apache-2.0
//! Runs `tests/c/services.c`, a C partition exercising the ARINC 653 C binding of the
//! process, time, semaphore, event, buffer, blackboard and mutex services, and compares its
//! trace with [`EXPECTED`].
//!
//! The program runs standalone (no partition manager: `PARTITA_CONTROL_FD` unset, so the
//! runtime uses a 10 ms period and no real-time priorities). It links
//! `target/<profile>/libpartita_apex.a`, refreshed here with `cargo build -p partita-apex`
//! (`cargo test` builds the static library only under a hashed name in `deps/`).
//!
//! Needs `cc` on `PATH` (or `CC` set).

mod c_harness;
use c_harness::*;

/// The trace `services.c` prints. Every line comes from the process the priorities designate;
/// lines marked "must not happen" in the C source never appear.
const EXPECTED: &str = r#"main: CREATE_PROCESS(ctl) -> NO_ERROR id=1
main: CREATE_PROCESS(high) -> NO_ERROR id=2
main: CREATE_PROCESS(low) -> NO_ERROR id=3
main: CREATE_PROCESS(per) -> NO_ERROR id=4
main: GET_PROCESS_ID(nope) -> INVALID_CONFIG id=-77 (unchanged)
main: GET_PROCESS_ID(per) -> NO_ERROR id=4
main: GET_MY_INDEX -> INVALID_MODE index=-77 (unchanged)
main: GET_MY_PROCESSOR_CORE_ID -> NO_ERROR core=0
main: INITIALIZE_PROCESS_CORE_AFFINITY(ctl, 0) -> NO_ERROR
main: INITIALIZE_PROCESS_CORE_AFFINITY(ctl, NO_PREFERENCE) -> NO_ERROR
main: INITIALIZE_PROCESS_CORE_AFFINITY(ctl, 3) -> INVALID_CONFIG
main: TIMED_WAIT -> INVALID_MODE
main: SUSPEND_SELF -> INVALID_MODE
main: LOCK_PREEMPTION -> NO_ACTION level=-77 (unchanged)
main: REPLENISH -> NO_ACTION
main: STOP_SELF returned
main: DELAYED_START(high, -5) -> INVALID_PARAM
main: CREATE_SEMAPHORE(sem) -> NO_ERROR id=1
main: CREATE_SEMAPHORE(ctl_go) -> NO_ERROR id=2
main: CREATE_SEMAPHORE(low_go) -> NO_ERROR id=3
main: CREATE_SEMAPHORE(per_go) -> NO_ERROR id=4
main: CREATE_SEMAPHORE(30 characters) -> NO_ERROR id=5
main: CREATE_SEMAPHORE(bad, 2, 1) -> INVALID_PARAM id=-77 (unchanged)
main: CREATE_SEMAPHORE(sem) (exists) -> NO_ACTION
main: CREATE_SEMAPHORE(q, discipline 7) -> INVALID_PARAM
main: CREATE_EVENT(evt) -> NO_ERROR id=1
main: CREATE_EVENT(evt) (exists) -> NO_ACTION
main: CREATE_BUFFER(buf, 16, 2) -> NO_ERROR id=1
main: CREATE_BUFFER(b0, 0, 2) -> INVALID_PARAM
main: CREATE_BUFFER(b1, 16, -1) -> INVALID_PARAM
main: CREATE_BLACKBOARD(bb, 16) -> NO_ERROR id=1
main: CREATE_BLACKBOARD(bb2, -1) -> INVALID_PARAM
main: CREATE_MUTEX(mtx, 60) -> NO_ERROR id=1
main: CREATE_MUTEX(m0, 300) -> INVALID_PARAM
main: WAIT_SEMAPHORE(sem, 0) -> NOT_AVAILABLE
main: WAIT_SEMAPHORE(sem, INFINITE) -> INVALID_MODE
main: START(ctl) -> NO_ERROR
ctl: entry
ctl: GET_MY_INDEX -> NO_ERROR index=1
ctl: GET_MY_PROCESSOR_CORE_ID -> NO_ERROR core=0
ctl: GET_PROCESS_ID(ctl) -> NO_ERROR id=1
ctl: GET_PROCESS_STATUS(1) -> NO_ERROR state=RUNNING prio=50 name=ctl base=50 period=-1 capacity=-1 deadline=-1 stack=65536
ctl: GET_PROCESS_STATUS entry point matches
ctl: GET_PROCESS_STATUS(99) -> INVALID_PARAM
ctl: GET_PROCESS_STATUS(ctl, NULL) -> NO_ERROR
ctl: SET_PRIORITY(ctl, 55) -> NO_ERROR
ctl: GET_PROCESS_STATUS(1) -> NO_ERROR state=RUNNING prio=55 name=ctl base=50 period=-1 capacity=-1 deadline=-1 stack=65536
ctl: SET_PRIORITY(ctl, 0) -> INVALID_PARAM
ctl: SET_PRIORITY(ctl, 50) -> NO_ERROR
ctl: SET_PRIORITY(high) (dormant) -> INVALID_MODE
ctl: TIMED_WAIT(0) -> NO_ERROR
ctl: TIMED_WAIT(-2) -> INVALID_PARAM
ctl: TIMED_WAIT(2 ms) -> NO_ERROR
ctl: REPLENISH(5 ms) -> NO_ERROR
ctl: REPLENISH(-3) -> INVALID_PARAM
ctl: GET_SEMAPHORE_ID(sem) -> NO_ERROR id=1
ctl: GET_SEMAPHORE_ID(30 characters) -> NO_ERROR id=5
ctl: GET_SEMAPHORE_ID(33 characters) -> NO_ERROR id=5
ctl: GET_SEMAPHORE_ID(zz) -> INVALID_CONFIG id=-77 (unchanged)
ctl: GET_SEMAPHORE_ID(NULL) -> INVALID_PARAM
ctl: WAIT_SEMAPHORE(sem, 0) -> NOT_AVAILABLE
ctl: WAIT_SEMAPHORE(sem, 2 ms) -> TIMED_OUT
ctl: SIGNAL_SEMAPHORE(sem) -> NO_ERROR
ctl: SIGNAL_SEMAPHORE(sem) (at maximum) -> NO_ACTION
ctl: GET_SEMAPHORE_STATUS -> NO_ERROR value=1 max=1 waiting=0
ctl: WAIT_SEMAPHORE(sem, INFINITE) -> NO_ERROR
ctl: SIGNAL_SEMAPHORE(99) -> INVALID_PARAM
ctl: GET_SEMAPHORE_STATUS(sem, NULL) -> NO_ERROR
ctl: WAIT_SEMAPHORE(sem, 0) after SIGNAL_SEMAPHORE(sem, NULL) -> NO_ERROR
ctl: GET_EVENT_ID(evt) -> NO_ERROR id=1
ctl: GET_EVENT_STATUS -> NO_ERROR state=DOWN waiting=0
ctl: WAIT_EVENT(0) -> NOT_AVAILABLE
ctl: WAIT_EVENT(2 ms) -> TIMED_OUT
ctl: SET_EVENT -> NO_ERROR
ctl: WAIT_EVENT(INFINITE) -> NO_ERROR
ctl: GET_EVENT_STATUS -> NO_ERROR state=UP waiting=0
ctl: RESET_EVENT -> NO_ERROR
ctl: GET_EVENT_STATUS -> NO_ERROR state=DOWN waiting=0
ctl: SET_EVENT(0) -> INVALID_PARAM
ctl: GET_EVENT_ID(nope) -> INVALID_CONFIG
ctl: GET_BUFFER_ID(buf) -> NO_ERROR id=1
ctl: RECEIVE_BUFFER -> NOT_AVAILABLE len=-1 ''
ctl: RECEIVE_BUFFER -> TIMED_OUT len=-1 ''
ctl: SEND_BUFFER('a', 1) -> NO_ERROR
ctl: SEND_BUFFER('bb', 2) -> NO_ERROR
ctl: SEND_BUFFER('c', 1) -> NOT_AVAILABLE
ctl: SEND_BUFFER('c', 1) -> TIMED_OUT
ctl: SEND_BUFFER('0123456789abcdefg', 17) -> INVALID_PARAM
ctl: SEND_BUFFER('', 0) -> INVALID_PARAM
ctl: GET_BUFFER_STATUS -> NO_ERROR nb=2 max_nb=2 size=16 waiting=0
ctl: RECEIVE_BUFFER -> NO_ERROR len=1 'a'
ctl: RECEIVE_BUFFER -> NO_ERROR len=2 'bb'
ctl: RECEIVE_BUFFER(NULL address) -> INVALID_PARAM
ctl: GET_BLACKBOARD_ID(bb) -> NO_ERROR id=1
ctl: READ_BLACKBOARD -> NOT_AVAILABLE len=-1 ''
ctl: READ_BLACKBOARD -> TIMED_OUT len=-1 ''
ctl: DISPLAY_BLACKBOARD(hello) -> NO_ERROR
ctl: READ_BLACKBOARD -> NO_ERROR len=5 'hello'
ctl: GET_BLACKBOARD_STATUS -> NO_ERROR OCCUPIED size=16 waiting=0
ctl: DISPLAY_BLACKBOARD(length 0) -> INVALID_PARAM
ctl: CLEAR_BLACKBOARD -> NO_ERROR
ctl: GET_BLACKBOARD_STATUS -> NO_ERROR EMPTY size=16 waiting=0
ctl: READ_BLACKBOARD -> NOT_AVAILABLE len=-1 ''
ctl: CLEAR_BLACKBOARD(5) -> INVALID_PARAM
ctl: GET_MUTEX_ID(mtx) -> NO_ERROR id=1
ctl: GET_MUTEX_ID(zz) -> INVALID_CONFIG
ctl: GET_MUTEX_STATUS -> NO_ERROR owner=0 AVAILABLE prio=60 count=0 waiting=0
ctl: ACQUIRE_MUTEX -> NO_ERROR
ctl: GET_MUTEX_STATUS -> NO_ERROR owner=1 OWNED prio=60 count=1 waiting=0
ctl: GET_PROCESS_STATUS(1) -> NO_ERROR state=RUNNING prio=60 name=ctl base=50 period=-1 capacity=-1 deadline=-1 stack=65536
ctl: ACQUIRE_MUTEX (again) -> NO_ERROR
ctl: GET_PROCESS_MUTEX_STATE -> NO_ERROR mutex=1
ctl: TIMED_WAIT(1 ms) (owning a mutex) -> INVALID_MODE
ctl: RELEASE_MUTEX -> NO_ERROR
ctl: GET_MUTEX_STATUS -> NO_ERROR owner=1 OWNED prio=60 count=1 waiting=0
ctl: RESET_MUTEX(mtx, ctl) -> NO_ERROR
ctl: GET_MUTEX_STATUS -> NO_ERROR owner=0 AVAILABLE prio=60 count=0 waiting=0
ctl: GET_PROCESS_STATUS(1) -> NO_ERROR state=RUNNING prio=50 name=ctl base=50 period=-1 capacity=-1 deadline=-1 stack=65536
ctl: RELEASE_MUTEX (not owner) -> INVALID_MODE
ctl: RESET_MUTEX(mtx, ctl) (not owned) -> INVALID_MODE
ctl: GET_PROCESS_MUTEX_STATE -> NO_ERROR mutex=-2
ctl: ACQUIRE_MUTEX(99) -> INVALID_PARAM
ctl: LOCK_PREEMPTION -> NO_ERROR level=1
ctl: GET_PROCESS_MUTEX_STATE -> NO_ERROR mutex=-3
ctl: LOCK_PREEMPTION -> NO_ERROR level=2
ctl: UNLOCK_PREEMPTION -> NO_ERROR level=1
ctl: UNLOCK_PREEMPTION -> NO_ERROR level=0
ctl: UNLOCK_PREEMPTION (not locked) -> NO_ACTION
high: entry
high: SIGNAL_SEMAPHORE(ctl_go) -> NO_ERROR
ctl: DELAYED_START(high, 2 ms) -> NO_ERROR
ctl: WAIT_SEMAPHORE(ctl_go) -> NO_ERROR
ctl: DELAYED_START(high, 0) (not dormant) -> NO_ACTION
ctl: GET_BUFFER_STATUS -> NO_ERROR nb=0 max_nb=2 size=16 waiting=1
high: RECEIVE_BUFFER -> NO_ERROR len=3 'msg'
ctl: SEND_BUFFER('msg', 3) -> NO_ERROR
ctl: GET_BLACKBOARD_STATUS -> NO_ERROR EMPTY size=16 waiting=1
high: READ_BLACKBOARD -> NO_ERROR len=4 'news'
ctl: DISPLAY_BLACKBOARD(news) -> NO_ERROR
ctl: GET_EVENT_STATUS -> NO_ERROR state=DOWN waiting=1
high: WAIT_EVENT -> NO_ERROR
ctl: SET_EVENT -> NO_ERROR
ctl: RESET_EVENT -> NO_ERROR
ctl: GET_SEMAPHORE_STATUS -> NO_ERROR value=0 max=1 waiting=1
ctl: LOCK_PREEMPTION -> NO_ERROR level=1
ctl: SIGNAL_SEMAPHORE(sem) (preemption locked) -> NO_ERROR
ctl: GET_PROCESS_STATUS(2) -> NO_ERROR state=READY prio=90 name=high base=90 period=-1 capacity=-1 deadline=-1 stack=65536
high: WAIT_SEMAPHORE(sem) -> NO_ERROR
high: ACQUIRE_MUTEX (priority above the ceiling) -> INVALID_CONFIG
ctl: UNLOCK_PREEMPTION -> NO_ERROR level=0
ctl: GET_PROCESS_STATUS(2) -> NO_ERROR state=WAITING prio=90 name=high base=90 period=-1 capacity=-1 deadline=-1 stack=65536
ctl: SUSPEND(high) (suspended itself) -> NO_ACTION
high: SUSPEND_SELF -> NO_ERROR
ctl: RESUME(high) -> NO_ERROR
ctl: GET_PROCESS_STATUS(2) -> NO_ERROR state=DORMANT prio=90 name=high base=90 period=-1 capacity=-1 deadline=-1 stack=65536
ctl: RESUME(high) (dormant) -> INVALID_MODE
ctl: START(low) -> NO_ERROR
low: entry 1
ctl: SET_PRIORITY(low, 70) -> NO_ERROR
ctl: SET_PRIORITY(low, 10) -> NO_ERROR
ctl: SUSPEND(low) -> NO_ERROR
ctl: SUSPEND(low) (again) -> NO_ACTION
ctl: SUSPEND(ctl) (self) -> INVALID_PARAM
ctl: SIGNAL_SEMAPHORE(low_go) -> NO_ERROR
ctl: GET_PROCESS_STATUS(3) -> NO_ERROR state=WAITING prio=10 name=low base=10 period=-1 capacity=-1 deadline=-1 stack=65536
ctl: RESUME(low) -> NO_ERROR
ctl: GET_PROCESS_STATUS(3) -> NO_ERROR state=READY prio=10 name=low base=10 period=-1 capacity=-1 deadline=-1 stack=65536
ctl: RESUME(low) (not suspended) -> NO_ACTION
low: WAIT_SEMAPHORE(low_go) -> NO_ERROR
ctl: SUSPEND_SELF(INFINITE) -> NO_ERROR
ctl: GET_PROCESS_STATUS(3) -> NO_ERROR state=READY prio=10 name=low base=10 period=-1 capacity=-1 deadline=-1 stack=65536
ctl: STOP(low) (preempted inside RESUME) -> NO_ERROR
ctl: STOP(low) (dormant) -> NO_ACTION
ctl: STOP(ctl) (self) -> INVALID_PARAM
ctl: GET_PROCESS_STATUS(3) -> NO_ERROR state=DORMANT prio=10 name=low base=10 period=-1 capacity=-1 deadline=-1 stack=65536
ctl: START(low) -> NO_ERROR
low: entry 2
ctl: SET_PRIORITY(low, 70) -> NO_ERROR
ctl: STOP(low) (waiting on low_go) -> NO_ERROR
ctl: START(low) -> NO_ERROR
low: entry 3
ctl: SET_PRIORITY(low, 70) -> NO_ERROR
ctl: GET_SEMAPHORE_STATUS -> NO_ERROR value=0 max=10 waiting=1
ctl: SUSPEND_SELF(2 ms) -> TIMED_OUT
ctl: SUSPEND_SELF(0) -> NO_ERROR
ctl: SUSPEND_SELF(-5) -> INVALID_PARAM
per: entry 1
per: REPLENISH(0) -> NO_ERROR
per: REPLENISH(INFINITE) (periodic) -> INVALID_MODE
per: PERIODIC_WAIT -> NO_ERROR
per: SUSPEND_SELF (periodic) -> INVALID_MODE
per: SIGNAL_SEMAPHORE(ctl_go) -> NO_ERROR
ctl: START(per) round 1 -> NO_ERROR
ctl: WAIT_SEMAPHORE(ctl_go) -> NO_ERROR
ctl: SUSPEND(per) (periodic) -> INVALID_MODE
ctl: STOP(per) -> NO_ERROR
ctl: GET_PROCESS_STATUS(4) -> NO_ERROR state=DORMANT prio=80 name=per base=80 period=10000000 capacity=-1 deadline=-1 stack=65536
per: entry 2
per: REPLENISH(0) -> NO_ERROR
per: REPLENISH(INFINITE) (periodic) -> INVALID_MODE
per: PERIODIC_WAIT -> NO_ERROR
per: SUSPEND_SELF (periodic) -> INVALID_MODE
per: SIGNAL_SEMAPHORE(ctl_go) -> NO_ERROR
ctl: START(per) round 2 -> NO_ERROR
ctl: WAIT_SEMAPHORE(ctl_go) -> NO_ERROR
ctl: GET_PROCESS_STATUS(4) -> NO_ERROR state=DORMANT prio=80 name=per base=80 period=10000000 capacity=-1 deadline=-1 stack=65536
per: entry 3
per: REPLENISH(0) -> NO_ERROR
per: REPLENISH(INFINITE) (periodic) -> INVALID_MODE
per: PERIODIC_WAIT -> NO_ERROR
per: SUSPEND_SELF (periodic) -> INVALID_MODE
per: SIGNAL_SEMAPHORE(ctl_go) -> NO_ERROR
ctl: START(per) round 3 -> NO_ERROR
ctl: WAIT_SEMAPHORE(ctl_go) -> NO_ERROR
ctl: GET_PROCESS_STATUS(4) -> NO_ERROR state=WAITING prio=80 name=per base=80 period=10000000 capacity=-1 deadline=-1 stack=65536
ctl: GET_PROCESS_STATUS(1) -> NO_ERROR state=RUNNING prio=50 name=ctl base=50 period=-1 capacity=-1 deadline=-1 stack=65536
ctl: done
"#;

#[test]
fn c_services_trace() {
    run_trace_test("services", EXPECTED);
}
