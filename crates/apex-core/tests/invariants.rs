// SPDX-License-Identifier: MIT OR Apache-2.0
//! Property tests: scheduling and queue invariants under random operation
//! sequences.

mod common;
use common::*;
use partita_apex_core::*;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    TimedWait(i64),
    SuspendSelf(i64),
    Suspend(usize),
    Resume(usize),
    Stop(usize),
    Start(usize),
    SetPriority(usize, i32),
    WaitSem(i64),
    SignalSem,
    WaitEvent(i64),
    SetEvent,
    ResetEvent,
    Acquire(i64),
    Release,
    Lock,
    Unlock,
    PeriodicWait,
    Send(i64),
    Receive(i64),
    Advance(i64),
    /// The glue injects an error for process `i`.
    Raise(usize),
    RaiseApplication,
    GetErrorStatus,
    StopSelf,
}

fn timeout() -> impl Strategy<Value = i64> {
    prop_oneof![Just(0i64), Just(INFINITE_TIME_VALUE), 1..5 * MS]
}

fn op() -> impl Strategy<Value = Op> {
    let t = 0usize..6;
    prop_oneof![
        (0..3 * MS).prop_map(Op::TimedWait),
        timeout().prop_map(Op::SuspendSelf),
        t.clone().prop_map(Op::Suspend),
        t.clone().prop_map(Op::Resume),
        t.clone().prop_map(Op::Stop),
        t.clone().prop_map(Op::Start),
        (t, 1..12i32).prop_map(|(p, q)| Op::SetPriority(p, q)),
        timeout().prop_map(Op::WaitSem),
        Just(Op::SignalSem),
        timeout().prop_map(Op::WaitEvent),
        Just(Op::SetEvent),
        Just(Op::ResetEvent),
        timeout().prop_map(Op::Acquire),
        Just(Op::Release),
        Just(Op::Lock),
        Just(Op::Unlock),
        Just(Op::PeriodicWait),
        timeout().prop_map(Op::Send),
        timeout().prop_map(Op::Receive),
        (1..4 * MS).prop_map(Op::Advance),
    ]
}

/// `op()` plus the health-monitoring operations.
fn hm_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => op(),
        1 => (0usize..6).prop_map(Op::Raise),
        1 => Just(Op::RaiseApplication),
        2 => Just(Op::GetErrorStatus),
        2 => Just(Op::StopSelf),
    ]
}

struct World {
    k: Kernel,
    procs: Vec<ProcessId>,
    sem: SemaphoreId,
    ev: EventId,
    mx: MutexId,
    buf: BufferId,
    now: i64,
}

fn world(cores: u32, policy: SchedulingPolicy) -> World {
    world_hm(cores, policy, None)
}

/// With `Some(concurrency)`, the partition has an error handler on the last core.
fn world_hm(
    cores: u32,
    policy: SchedulingPolicy,
    handler: Option<ErrorHandlerConcurrency>,
) -> World {
    let mut c = cfg();
    c.cores = cores;
    c.policy = policy;
    c.max_pending_errors = 4;
    let mut k = Kernel::new(c).unwrap();
    if let Some(cc) = handler {
        k.create_error_handler(0, MAIN, 0x2000, 4096).unwrap();
        k.configure_error_handler(0, MAIN, cc, cores - 1).unwrap();
    }
    let sem = k
        .create_semaphore(0, MAIN, &name("S"), 1, 3, QueuingDiscipline::Priority)
        .unwrap();
    let ev = k.create_event(0, MAIN, &name("E")).unwrap();
    let mx = k
        .create_mutex(0, MAIN, &name("M"), 40, QueuingDiscipline::Fifo)
        .unwrap();
    let buf = k
        .create_buffer(0, MAIN, &name("B"), 4, 2, QueuingDiscipline::Fifo)
        .unwrap();
    let mut procs = Vec::new();
    for i in 0..6 {
        let (period, cap) = if i == 5 {
            (20 * MS, 10 * MS)
        } else {
            (-1, if i % 2 == 0 { 6 * MS } else { -1 })
        };
        let p = k
            .create_process(
                0,
                MAIN,
                &attrs(&format!("P{i}"), 2 + (i % 3) * 3, period, cap),
            )
            .unwrap();
        k.initialize_process_core_affinity(0, MAIN, p, i as u32 % cores)
            .unwrap();
        k.start(0, MAIN, p).unwrap();
        procs.push(p);
    }
    normal(&mut k, 0);
    World {
        k,
        procs,
        sem,
        ev,
        mx,
        buf,
        now: 0,
    }
}

fn caller(w: &World, step: usize) -> Runner {
    let cores = w.k.config().cores;
    for c in 0..cores {
        if let Some(r) = w.k.running((step as u32 + c) % cores) {
            return r;
        }
    }
    Runner::Process(w.procs[0])
}

fn apply(w: &mut World, op: &Op, step: usize) {
    let me = caller(w, step);
    let n = w.now;
    let k = &mut w.k;
    let p = |i: usize| w.procs[i];
    let mut out = [0u8; 4];
    let _ = match *op {
        Op::TimedWait(d) => k.timed_wait(n, me, d).map(|_| ()),
        Op::SuspendSelf(t) => k.suspend_self(n, me, t).map(|_| ()),
        Op::Suspend(i) => k.suspend(n, me, p(i)),
        Op::Resume(i) => k.resume(n, me, p(i)),
        Op::Stop(i) => k.stop(n, me, p(i)),
        Op::Start(i) => k.start(n, me, p(i)),
        Op::SetPriority(i, q) => k.set_priority(n, me, p(i), q),
        Op::WaitSem(t) => k.wait_semaphore(n, me, w.sem, t).map(|_| ()),
        Op::SignalSem => k.signal_semaphore(n, me, w.sem),
        Op::WaitEvent(t) => k.wait_event(n, me, w.ev, t).map(|_| ()),
        Op::SetEvent => k.set_event(n, me, w.ev),
        Op::ResetEvent => k.reset_event(n, me, w.ev),
        Op::Acquire(t) => k.acquire_mutex(n, me, w.mx, t).map(|_| ()),
        Op::Release => k.release_mutex(n, me, w.mx),
        Op::Lock => k.lock_preemption(n, me).map(|_| ()),
        Op::Unlock => k.unlock_preemption(n, me).map(|_| ()),
        Op::PeriodicWait => k.periodic_wait(n, me).map(|_| ()),
        Op::Send(t) => k.send_buffer(n, me, w.buf, b"ab", t).map(|_| ()),
        Op::Receive(t) => k.receive_buffer(n, me, w.buf, t, &mut out).map(|_| ()),
        Op::Advance(d) => {
            w.now += d;
            k.advance(w.now);
            Ok(())
        }
        Op::Raise(i) => k.raise_error(n, Runner::Process(p(i)), ErrorCode::NumericError, 0, b"x"),
        Op::RaiseApplication => k.raise_application_error(n, me, ErrorCode::ApplicationError, b"y"),
        Op::GetErrorStatus => k.get_error_status(n, me).map(|_| ()),
        Op::StopSelf => k.stop_self(n, me),
    };
    if let Some(t) = w.k.next_event_time() {
        if t <= w.now {
            w.k.advance(w.now);
        }
    }
    w.k.drain_effects().for_each(drop);
}

fn check(w: &World) {
    let k = &w.k;
    let cores = k.config().cores;
    let locked = k.get_partition_status().lock_level > 0;
    let edf = k.config().policy == SchedulingPolicy::Edf;
    let mut running_count = 0;
    let eh = k.error_handler_status();
    if let Some(h) = eh {
        assert_ne!(
            h.state,
            ProcessState::Waiting,
            "the error handler never waits"
        );
        assert!(h.pending_errors <= 4);
        if h.state == ProcessState::Dormant {
            assert_eq!(h.pending_errors, 0, "pending errors with a dormant handler");
        } else {
            assert_eq!(k.running(h.core), Some(Runner::ErrorHandler));
        }
    }
    let paused = eh.is_some_and(|h| {
        h.state != ProcessState::Dormant && h.concurrency == ErrorHandlerConcurrency::ProcessPause
    });
    for c in 0..cores {
        let run = k.running(c);
        let ready_on_core: Vec<ProcessStatus> = w
            .procs
            .iter()
            .filter(|&&p| k.process_core(p) == Some(c))
            .map(|&p| k.get_process_status(p).unwrap())
            .filter(|s| matches!(s.process_state, ProcessState::Ready | ProcessState::Running))
            .collect();
        match run {
            Some(Runner::Process(p)) => {
                running_count += 1;
                let st = k.get_process_status(p).unwrap();
                assert_eq!(st.process_state, ProcessState::Running);
                assert_eq!(k.process_core(p), Some(c));
                if !locked && !edf {
                    for s in &ready_on_core {
                        assert!(s.current_priority <= st.current_priority, "{s:?} vs {st:?}");
                    }
                }
            }
            Some(Runner::Main) => panic!("main runs in NORMAL"),
            Some(Runner::ErrorHandler) => {
                let h = eh.expect("no error handler in this world");
                assert_eq!((h.state, h.core), (ProcessState::Running, c));
            }
            None => assert!(
                paused || ready_on_core.is_empty(),
                "idle core with ready processes"
            ),
        }
    }
    let n_running = w
        .procs
        .iter()
        .filter(|&&p| k.get_process_status(p).unwrap().process_state == ProcessState::Running)
        .count();
    assert_eq!(n_running, running_count);
    // Every process waiting on an object is queued exactly once.
    let on_objects = w
        .procs
        .iter()
        .filter(|&&p| k.wait_reason(p) == Some(WaitReason::Object))
        .count();
    let queued = k.get_semaphore_status(w.sem).unwrap().waiting_processes
        + k.get_event_status(w.ev).unwrap().waiting_processes
        + k.get_mutex_status(w.mx).unwrap().waiting_processes
        + k.get_buffer_status(w.buf).unwrap().waiting_processes;
    assert!(queued <= on_objects);
    // Suspended-while-waiting processes are reported as `Suspended` only if
    // no longer queued; so queued == processes whose reason is Object.
    assert_eq!(queued, on_objects);
    // Mutex ownership is consistent with the ceiling priority.
    if let Some(o) = k.get_mutex_status(w.mx).unwrap().mutex_owner {
        assert_eq!(k.get_process_status(o).unwrap().current_priority, 40);
        assert_eq!(
            k.get_process_mutex_state(o),
            Ok(MutexOwnership::Owned(w.mx))
        );
    }
    for &p in &w.procs {
        let st = k.get_process_status(p).unwrap();
        if st.process_state == ProcessState::Waiting {
            assert_ne!(k.wait_reason(p), Some(WaitReason::None));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn fixed_priority_invariants(ops in proptest::collection::vec(op(), 1..120)) {
        let mut w = world(1, SchedulingPolicy::FixedPriority);
        check(&w);
        for (i, o) in ops.iter().enumerate() {
            apply(&mut w, o, i);
            check(&w);
        }
    }

    #[test]
    fn multicore_invariants(ops in proptest::collection::vec(op(), 1..120)) {
        let mut w = world(2, SchedulingPolicy::FixedPriority);
        for (i, o) in ops.iter().enumerate() {
            apply(&mut w, o, i);
            check(&w);
        }
    }

    #[test]
    fn edf_invariants(ops in proptest::collection::vec(op(), 1..120)) {
        let mut w = world(1, SchedulingPolicy::Edf);
        for (i, o) in ops.iter().enumerate() {
            apply(&mut w, o, i);
            check(&w);
        }
    }

    #[test]
    fn error_handler_invariants(
        ops in proptest::collection::vec(hm_op(), 1..120),
        cores in 1u32..=2,
        pause in any::<bool>(),
        edf in any::<bool>(),
    ) {
        let cc = if pause {
            ErrorHandlerConcurrency::ProcessPause
        } else {
            ErrorHandlerConcurrency::ProcessSchedule
        };
        let policy = if edf { SchedulingPolicy::Edf } else { SchedulingPolicy::FixedPriority };
        let mut w = world_hm(cores, policy, Some(cc));
        check(&w);
        for (i, o) in ops.iter().enumerate() {
            apply(&mut w, o, i);
            check(&w);
        }
    }
}
