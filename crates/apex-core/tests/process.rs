// SPDX-License-Identifier: MIT OR Apache-2.0
//! Process management services: nominal behaviour and every error code.

mod common;
use common::*;
use partita_abi::report::Refusal;
use partita_apex_core::*;
use ReturnCode::*;

#[test]
fn new_rejects_bad_config() {
    let mut c = cfg();
    c.cores = 0;
    assert_eq!(Kernel::new(c).unwrap_err(), InvalidConfig);
    let mut c = cfg();
    c.period = 0;
    assert_eq!(Kernel::new(c).unwrap_err(), InvalidConfig);
    let mut c = cfg();
    c.initial_mode = OperatingMode::Normal;
    assert_eq!(Kernel::new(c).unwrap_err(), InvalidConfig);
}

#[test]
fn initial_state_main_runs() {
    let k = kernel();
    assert_eq!(k.running(0), Some(Runner::Main));
    assert_eq!(k.running(1), None);
    assert_eq!(k.operating_mode(), OperatingMode::ColdStart);
    assert_eq!(k.next_event_time(), None);
    let mut c = cfg();
    c.initial_mode = OperatingMode::WarmStart;
    let k = Kernel::new(c).unwrap();
    assert_eq!(
        k.get_partition_status().operating_mode,
        OperatingMode::WarmStart
    );
}

#[test]
fn create_process_nominal_and_status() {
    let mut k = kernel();
    let a = attrs("P1", 10, 20 * MS, 5 * MS);
    let p = k.create_process(0, MAIN, &a).unwrap();
    let st = k.get_process_status(p).unwrap();
    assert_eq!(st.process_state, ProcessState::Dormant);
    assert_eq!(st.current_priority, 10);
    assert_eq!(st.attributes, a);
    assert_eq!(k.get_process_id(&name("P1")), Ok(p));
    assert_eq!(k.get_process_id(&name("P2")), Err(InvalidConfig));
    assert_eq!(k.process_count(), 1);
}

#[test]
fn create_process_errors() {
    let mut k = kernel();
    let ok = attrs("A", 10, INFINITE_TIME_VALUE, INFINITE_TIME_VALUE);
    k.create_process(0, MAIN, &ok).unwrap();
    assert_eq!(k.create_process(0, MAIN, &ok), Err(NoAction));
    let bad = |f: &dyn Fn(&mut ProcessAttributes)| {
        let mut a = attrs("B", 10, INFINITE_TIME_VALUE, INFINITE_TIME_VALUE);
        f(&mut a);
        a
    };
    assert_eq!(k.take_refusal(), Some(Refusal::ProcessNameExists));
    let cases: Vec<(ProcessAttributes, ReturnCode, Refusal)> = vec![
        (
            bad(&|a| a.base_priority = 0),
            InvalidParam,
            Refusal::ProcessPriorityRange,
        ),
        (
            bad(&|a| a.base_priority = 240),
            InvalidParam,
            Refusal::ProcessPriorityRange,
        ),
        (
            bad(&|a| a.stack_size = 0),
            InvalidParam,
            Refusal::ProcessStackSizeZero,
        ),
        (
            bad(&|a| a.stack_size = 2 << 20),
            InvalidConfig,
            Refusal::ProcessStackStorage,
        ),
        (
            bad(&|a| a.period = 0),
            InvalidParam,
            Refusal::ProcessPeriodNotPositive,
        ),
        (
            bad(&|a| a.period = -5),
            InvalidParam,
            Refusal::ProcessPeriodNotPositive,
        ),
        (
            bad(&|a| a.period = 15 * MS),
            InvalidConfig,
            Refusal::ProcessPeriodNotMultiple,
        ),
        (
            bad(&|a| a.time_capacity = 0),
            InvalidParam,
            Refusal::ProcessTimeCapacityNotPositive,
        ),
        (
            bad(&|a| a.time_capacity = -2),
            InvalidParam,
            Refusal::ProcessTimeCapacityNotPositive,
        ),
        (
            bad(&|a| {
                a.period = 10 * MS;
                a.time_capacity = 11 * MS
            }),
            InvalidParam,
            Refusal::ProcessTimeCapacityAbovePeriod,
        ),
    ];
    for (a, e, rule) in cases {
        assert_eq!(k.create_process(0, MAIN, &a), Err(e), "{a:?}");
        // The rule is named (with the standard's return code), and taken only once.
        assert_eq!(k.take_refusal(), Some(rule), "{a:?}");
        assert_eq!(rule.code(), e);
        assert_eq!(k.take_refusal(), None);
    }
    // Periodic with capacity == period and infinite capacity are fine.
    k.create_process(0, MAIN, &attrs("C", 1, 10 * MS, 10 * MS))
        .unwrap();
    k.create_process(0, MAIN, &attrs("D", 1, 20 * MS, INFINITE_TIME_VALUE))
        .unwrap();
    // Name compared up to the first NUL.
    let mut a = attrs("C", 1, INFINITE_TIME_VALUE, INFINITE_TIME_VALUE);
    a.name[1] = 0;
    a.name[5] = b'x';
    assert_eq!(k.create_process(0, MAIN, &a), Err(NoAction));
    normal(&mut k, 0);
    let p = k.get_process_id(&name("A")).unwrap();
    k.start(0, MAIN, p).unwrap_err();
    assert_eq!(
        k.create_process(0, pr(p), &attrs("E", 1, -1, -1)),
        Err(InvalidMode)
    );
}

#[test]
fn create_process_limits() {
    let mut c = cfg();
    c.max_processes = 2;
    c.stack_total = 10_000;
    let mut k = Kernel::new(c).unwrap();
    let mut a = attrs("A", 1, -1, -1);
    a.stack_size = 6000;
    k.create_process(0, MAIN, &a).unwrap();
    let mut b = attrs("B", 1, -1, -1);
    b.stack_size = 6000;
    assert_eq!(k.create_process(0, MAIN, &b), Err(InvalidConfig));
    b.stack_size = 4000;
    k.create_process(0, MAIN, &b).unwrap();
    assert_eq!(
        k.create_process(0, MAIN, &attrs("C", 1, -1, -1)),
        Err(InvalidConfig)
    );
}

#[test]
fn start_in_init_waits_for_normal() {
    let mut k = kernel();
    let p = aperiodic(&mut k, "A", 5);
    assert_eq!(k.start(0, MAIN, ProcessId(99)), Err(InvalidParam));
    k.start(0, MAIN, p).unwrap();
    assert_eq!(effects(&mut k), vec![Effect::ProcessStarted(p)]);
    assert_eq!(state(&k, p), ProcessState::Waiting);
    assert_eq!(k.wait_reason(p), Some(WaitReason::PartitionNormal));
    assert_eq!(k.start(0, MAIN, p), Err(NoAction));
    assert_eq!(k.running(0), Some(Runner::Main));
    normal(&mut k, 3 * MS);
    assert_eq!(k.running(0), Some(pr(p)));
    assert_eq!(state(&k, p), ProcessState::Running);
    assert_eq!(
        k.get_partition_status().operating_mode,
        OperatingMode::Normal
    );
}

#[test]
fn start_in_normal_aperiodic_deadline() {
    let mut k = kernel();
    let p = k
        .create_process(0, MAIN, &attrs("A", 5, -1, 4 * MS))
        .unwrap();
    let q = spawn(&mut k, "Q", 1);
    normal(&mut k, 0);
    assert_eq!(cur(&k), Some(q));
    k.start(2 * MS, pr(q), p).unwrap();
    assert_eq!(cur(&k), Some(p));
    assert_eq!(k.get_process_status(p).unwrap().deadline_time, 6 * MS);
    assert_eq!(k.next_event_time(), Some(6 * MS + 1));
}

#[test]
fn delayed_start_errors_and_nominal() {
    let mut k = kernel();
    let a = k
        .create_process(0, MAIN, &attrs("A", 5, -1, 4 * MS))
        .unwrap();
    let per = k
        .create_process(0, MAIN, &attrs("P", 5, 20 * MS, 5 * MS))
        .unwrap();
    assert_eq!(k.delayed_start(0, MAIN, ProcessId(0), 1), Err(InvalidParam));
    assert_eq!(
        k.delayed_start(0, MAIN, a, INFINITE_TIME_VALUE),
        Err(InvalidParam)
    );
    assert_eq!(k.delayed_start(0, MAIN, a, -7), Err(InvalidParam));
    assert_eq!(k.delayed_start(0, MAIN, per, 20 * MS), Err(InvalidParam));
    let q = spawn(&mut k, "Q", 1);
    normal(&mut k, 0);
    k.delayed_start(MS, pr(q), a, 3 * MS).unwrap();
    assert_eq!(k.delayed_start(MS, pr(q), a, 3 * MS), Err(NoAction));
    assert_eq!(state(&k, a), ProcessState::Waiting);
    assert_eq!(k.get_process_status(a).unwrap().deadline_time, 8 * MS);
    assert_eq!(k.next_event_time(), Some(4 * MS));
    k.advance(4 * MS);
    assert_eq!(cur(&k), Some(a));
    // Periodic: next partition period start (10 ms) + delay.
    k.delayed_start(5 * MS, pr(a), per, 2 * MS).unwrap();
    assert_eq!(k.get_process_status(per).unwrap().deadline_time, 17 * MS);
    k.advance(12 * MS - 1);
    assert_eq!(state(&k, per), ProcessState::Waiting);
    k.advance(12 * MS);
    assert_eq!(state(&k, per), ProcessState::Ready);
}

#[test]
fn stop_and_stop_self() {
    let mut k = kernel();
    let a = spawn(&mut k, "A", 5);
    let b = spawn(&mut k, "B", 3);
    normal(&mut k, 0);
    effects(&mut k);
    assert_eq!(k.stop(0, pr(a), a), Err(InvalidParam));
    assert_eq!(k.stop(0, pr(a), ProcessId(42)), Err(InvalidParam));
    k.stop(0, pr(a), b).unwrap();
    assert_eq!(state(&k, b), ProcessState::Dormant);
    assert_eq!(k.stop(0, pr(a), b), Err(NoAction));
    k.stop_self(MS, pr(a)).unwrap();
    assert_eq!(
        effects(&mut k),
        vec![Effect::ProcessStopped(b), Effect::ProcessStopped(a)]
    );
    assert_eq!(k.running(0), None);
    // A dormant process cannot call services.
    assert_eq!(k.stop_self(MS, pr(a)), Err(InvalidMode));
}

#[test]
fn stop_self_from_main_is_invalid() {
    let mut k = kernel();
    assert_eq!(k.stop_self(0, MAIN), Err(InvalidMode));
}

#[test]
fn suspend_resume_errors() {
    let mut k = kernel();
    let a = spawn(&mut k, "A", 5);
    let b = spawn(&mut k, "B", 3);
    let d = aperiodic(&mut k, "D", 3);
    let per = k
        .create_process(0, MAIN, &attrs("P", 3, 10 * MS, -1))
        .unwrap();
    k.start(0, MAIN, per).unwrap();
    normal(&mut k, 0);
    assert_eq!(k.suspend(0, pr(a), a), Err(InvalidParam));
    assert_eq!(k.suspend(0, pr(a), ProcessId(77)), Err(InvalidParam));
    assert_eq!(k.suspend(0, pr(a), d), Err(InvalidMode));
    assert_eq!(k.suspend(0, pr(a), per), Err(InvalidMode));
    k.suspend(0, pr(a), b).unwrap();
    assert_eq!(state(&k, b), ProcessState::Waiting);
    assert_eq!(k.wait_reason(b), Some(WaitReason::Suspended));
    assert_eq!(k.suspend(0, pr(a), b), Err(NoAction));
    assert_eq!(k.resume(0, pr(a), a), Err(InvalidParam));
    assert_eq!(k.resume(0, pr(a), ProcessId(77)), Err(InvalidParam));
    assert_eq!(k.resume(0, pr(a), d), Err(InvalidMode));
    assert_eq!(k.resume(0, pr(a), per), Err(NoAction));
    k.resume(0, pr(a), b).unwrap();
    assert_eq!(state(&k, b), ProcessState::Ready);
    assert_eq!(k.resume(0, pr(a), b), Err(NoAction));
}

#[test]
fn suspend_self_timeout_and_resume() {
    let mut k = kernel();
    let a = spawn(&mut k, "A", 5);
    let b = spawn(&mut k, "B", 3);
    normal(&mut k, 0);
    assert_eq!(k.suspend_self(0, pr(a), -3), Err(InvalidParam));
    assert_eq!(k.suspend_self(0, pr(a), 0), Ok(CallOutcome::Done(())));
    assert_eq!(cur(&k), Some(a));
    assert_eq!(k.suspend_self(0, pr(a), 5 * MS), Ok(CallOutcome::Blocked));
    assert_eq!(cur(&k), Some(b));
    assert_eq!(k.wait_reason(a), Some(WaitReason::SelfSuspended));
    assert_eq!(k.take_wake_result(a), None);
    assert_eq!(k.next_event_time(), Some(5 * MS));
    k.advance(5 * MS);
    assert_eq!(cur(&k), Some(a));
    assert_eq!(k.take_wake_result(a), Some(Err(TimedOut)));
    // Infinite suspension, resumed by B (B runs since A suspends itself).
    assert_eq!(
        k.suspend_self(6 * MS, pr(a), INFINITE_TIME_VALUE),
        Ok(CallOutcome::Blocked)
    );
    assert_eq!(k.next_event_time(), None);
    assert_eq!(k.suspend(6 * MS, pr(b), a), Err(NoAction));
    k.resume(7 * MS, pr(b), a).unwrap();
    assert_eq!(cur(&k), Some(a));
    assert_eq!(k.take_wake_result(a), Some(Ok(())));
}

#[test]
fn suspend_self_invalid_mode() {
    let mut k = kernel();
    assert_eq!(k.suspend_self(0, MAIN, 5), Err(InvalidMode));
    let per = k
        .create_process(0, MAIN, &attrs("P", 3, 10 * MS, -1))
        .unwrap();
    k.start(0, MAIN, per).unwrap();
    let a = spawn(&mut k, "A", 1);
    normal(&mut k, 0);
    assert_eq!(cur(&k), Some(per));
    assert_eq!(k.suspend_self(0, pr(per), 5), Err(InvalidMode));
    assert_eq!(k.periodic_wait(0, pr(per)), Ok(CallOutcome::Blocked));
    assert_eq!(cur(&k), Some(a));
    // Refusals name their rule: PERIODIC_WAIT of an aperiodic process, CREATE_PROCESS in
    // NORMAL mode.
    assert_eq!(k.periodic_wait(0, pr(a)), Err(InvalidMode));
    assert_eq!(k.take_refusal(), Some(Refusal::PeriodicWaitNotPeriodic));
    assert_eq!(
        k.create_process(0, pr(a), &attrs("E", 1, -1, -1)),
        Err(InvalidMode)
    );
    assert_eq!(k.take_refusal(), Some(Refusal::ProcessCreateInNormal));
    // A later service clears a refusal nobody took.
    assert_eq!(k.periodic_wait(0, pr(a)), Err(InvalidMode));
    k.lock_preemption(0, pr(a)).unwrap();
    assert_eq!(k.take_refusal(), None);
    assert_eq!(k.suspend_self(0, pr(a), 5), Err(InvalidMode));
}

#[test]
fn suspended_while_waiting_stays_suspended() {
    let mut k = kernel();
    let a = spawn(&mut k, "A", 5);
    let b = spawn(&mut k, "B", 3);
    normal(&mut k, 0);
    assert_eq!(k.timed_wait(0, pr(a), 4 * MS), Ok(CallOutcome::Blocked));
    k.suspend(MS, pr(b), a).unwrap();
    k.advance(4 * MS);
    assert_eq!(state(&k, a), ProcessState::Waiting);
    assert_eq!(k.wait_reason(a), Some(WaitReason::Suspended));
    assert_eq!(cur(&k), Some(b));
    k.resume(5 * MS, pr(b), a).unwrap();
    assert_eq!(cur(&k), Some(a));
    assert_eq!(k.take_wake_result(a), Some(Ok(())));
}

#[test]
fn resume_waiting_process_keeps_it_waiting() {
    let mut k = kernel();
    let a = spawn(&mut k, "A", 5);
    let b = spawn(&mut k, "B", 3);
    normal(&mut k, 0);
    assert_eq!(k.timed_wait(0, pr(a), 4 * MS), Ok(CallOutcome::Blocked));
    k.suspend(MS, pr(b), a).unwrap();
    k.resume(2 * MS, pr(b), a).unwrap();
    assert_eq!(k.wait_reason(a), Some(WaitReason::Delay));
    assert_eq!(cur(&k), Some(b));
    k.advance(4 * MS);
    assert_eq!(cur(&k), Some(a));
}

#[test]
fn set_priority_errors_and_effect() {
    let mut k = kernel();
    let a = spawn(&mut k, "A", 5);
    let b = spawn(&mut k, "B", 3);
    let d = aperiodic(&mut k, "D", 3);
    normal(&mut k, 0);
    assert_eq!(
        k.set_priority(0, pr(a), ProcessId(50), 4),
        Err(InvalidParam)
    );
    assert_eq!(k.set_priority(0, pr(a), b, 0), Err(InvalidParam));
    assert_eq!(k.set_priority(0, pr(a), b, 240), Err(InvalidParam));
    assert_eq!(k.set_priority(0, pr(a), d, 4), Err(InvalidMode));
    k.set_priority(0, pr(a), b, 9).unwrap();
    assert_eq!(cur(&k), Some(b));
    assert_eq!(k.get_process_status(b).unwrap().current_priority, 9);
    assert_eq!(k.get_process_status(b).unwrap().attributes.base_priority, 3);
    // Lowering one's own priority below a ready process yields.
    k.set_priority(0, pr(b), b, 1).unwrap();
    assert_eq!(cur(&k), Some(a));
}

#[test]
fn lock_unlock_preemption() {
    let mut k = kernel();
    assert_eq!(k.lock_preemption(0, MAIN), Err(NoAction));
    assert_eq!(k.unlock_preemption(0, MAIN), Err(NoAction));
    let a = spawn(&mut k, "A", 5);
    normal(&mut k, 0);
    assert_eq!(k.unlock_preemption(0, pr(a)), Err(NoAction));
    for l in 1..=MAX_LOCK_LEVEL {
        assert_eq!(k.lock_preemption(0, pr(a)), Ok(l));
    }
    assert_eq!(k.lock_preemption(0, pr(a)), Err(InvalidConfig));
    assert_eq!(k.get_partition_status().lock_level, MAX_LOCK_LEVEL);
    assert_eq!(
        k.get_process_mutex_state(a),
        Ok(MutexOwnership::PreemptionLock)
    );
    for l in (0..MAX_LOCK_LEVEL).rev() {
        assert_eq!(k.unlock_preemption(0, pr(a)), Ok(l));
    }
    assert_eq!(k.unlock_preemption(0, pr(a)), Err(NoAction));
    assert_eq!(k.get_process_mutex_state(a), Ok(MutexOwnership::None));
}

#[test]
fn stop_self_releases_preemption_lock() {
    let mut k = kernel();
    let a = spawn(&mut k, "A", 5);
    let b = spawn(&mut k, "B", 7);
    normal(&mut k, 0);
    assert_eq!(cur(&k), Some(b));
    k.lock_preemption(0, pr(b)).unwrap();
    k.lock_preemption(0, pr(b)).unwrap();
    k.stop_self(MS, pr(b)).unwrap();
    assert_eq!(k.get_partition_status().lock_level, 0);
    assert_eq!(cur(&k), Some(a));
}

#[test]
fn ids_index_and_cores() {
    let mut c = cfg();
    c.cores = 2;
    let mut k = Kernel::new(c).unwrap();
    let a = aperiodic(&mut k, "A", 5);
    let b = aperiodic(&mut k, "B", 5);
    assert_eq!(k.get_my_id(MAIN), Err(InvalidMode));
    assert_eq!(k.get_my_index(MAIN), Err(InvalidMode));
    assert_eq!(k.get_my_processor_core_id(MAIN), 0);
    assert_eq!(
        k.initialize_process_core_affinity(0, MAIN, ProcessId(9), 0),
        Err(InvalidParam)
    );
    assert_eq!(
        k.initialize_process_core_affinity(0, MAIN, b, 2),
        Err(InvalidConfig)
    );
    k.initialize_process_core_affinity(0, MAIN, b, 1).unwrap();
    k.start(0, MAIN, a).unwrap();
    k.start(0, MAIN, b).unwrap();
    normal(&mut k, 0);
    assert_eq!(k.running(0), Some(pr(a)));
    assert_eq!(k.running(1), Some(pr(b)));
    assert_eq!(k.get_my_id(pr(b)), Ok(b));
    assert_eq!(k.get_my_index(pr(b)), Ok(2));
    assert_eq!(k.get_my_processor_core_id(pr(b)), 1);
    assert_eq!(
        k.initialize_process_core_affinity(0, pr(a), b, 0),
        Err(InvalidMode)
    );
    assert_eq!(k.get_partition_status().num_assigned_cores, 2);
    assert_eq!(k.get_process_status(ProcessId(0)), Err(InvalidParam));
}

#[test]
fn partition_mode_transitions() {
    let mut k = kernel();
    assert_eq!(
        k.set_partition_mode(0, MAIN, OperatingMode::WarmStart),
        Err(InvalidMode)
    );
    let a = spawn(&mut k, "A", 5);
    normal(&mut k, 0);
    assert_eq!(
        k.set_partition_mode(0, pr(a), OperatingMode::Normal),
        Err(NoAction)
    );
    effects(&mut k);
    k.set_partition_mode(MS, pr(a), OperatingMode::WarmStart)
        .unwrap();
    assert!(effects(&mut k).contains(&Effect::RestartRequested(OperatingMode::WarmStart)));
    assert_eq!(k.running(0), None);
    assert_eq!(k.next_event_time(), None);

    let mut k = kernel();
    let a = spawn(&mut k, "A", 5);
    normal(&mut k, 0);
    k.set_partition_mode(MS, pr(a), OperatingMode::Idle)
        .unwrap();
    assert!(effects(&mut k).contains(&Effect::IdleRequested));
    assert_eq!(k.operating_mode(), OperatingMode::Idle);
    assert_eq!(state(&k, a), ProcessState::Dormant);
    assert_eq!(k.running(0), None);

    let mut k = kernel();
    k.set_partition_mode(0, MAIN, OperatingMode::ColdStart)
        .unwrap();
    assert!(effects(&mut k).contains(&Effect::RestartRequested(OperatingMode::ColdStart)));
    assert_eq!(OperatingMode::from_raw(7), None);
    assert_eq!(OperatingMode::from_raw(3), Some(OperatingMode::Normal));
}

#[test]
fn partition_status_fields() {
    let mut c = cfg();
    c.identifier = 7;
    c.start_condition = StartCondition::HmPartitionRestart;
    let k = Kernel::new(c).unwrap();
    let s = k.get_partition_status();
    assert_eq!(s.identifier, 7);
    assert_eq!(s.period, 10 * MS);
    assert_eq!(s.duration, 5 * MS);
    assert_eq!(s.start_condition, StartCondition::HmPartitionRestart);
    assert_eq!(s.lock_level, 0);
    assert_eq!(Kernel::get_time(123), 123);
}

#[test]
fn start_times_out_of_range() {
    let mut k = kernel();
    let ctl = spawn(&mut k, "CTL", 9);
    let a = aperiodic(&mut k, "A", 5);
    let big = k
        .create_process(
            0,
            MAIN,
            &attrs("BIG", 5, INFINITE_TIME_VALUE, i64::MAX - 10),
        )
        .unwrap();
    normal(&mut k, 0);
    // The release time would overflow the clock: DELAY_TIME out of range.
    assert_eq!(
        k.delayed_start(MS, pr(ctl), a, i64::MAX - 5),
        Err(InvalidParam)
    );
    // The deadline (release + TIME_CAPACITY) would overflow: INVALID_CONFIG.
    assert_eq!(k.start(MS, pr(ctl), big), Err(InvalidConfig));
    assert_eq!(state(&k, big), ProcessState::Dormant);
}
