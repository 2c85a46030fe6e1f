// SPDX-License-Identifier: MIT OR Apache-2.0
//! Health monitoring at process level: error handler, RAISE_APPLICATION_ERROR,
//! GET_ERROR_STATUS, CONFIGURE_ERROR_HANDLER, deadline misses, injected errors.

mod common;
use common::*;
use partita_apex_core::*;
use CallOutcome::Done;
use ReturnCode::*;

const EH: Runner = Runner::ErrorHandler;

/// Something observed on the kernel, in order.
#[derive(Debug, Clone, PartialEq)]
enum Ev {
    /// Core 0 switched to this runner.
    Run(Option<Runner>),
    /// An effect (process start/stop effects are left out).
    Eff(Effect),
}

/// Records core 0 switches and the effects of every call, in order.
struct Trace {
    last: Option<Runner>,
    evs: Vec<Ev>,
}

impl Trace {
    fn new(k: &mut Kernel) -> Self {
        k.drain_effects().for_each(drop);
        Self {
            last: k.running(0),
            evs: Vec::new(),
        }
    }

    fn see(&mut self, k: &mut Kernel) {
        for e in k.drain_effects() {
            if !matches!(e, Effect::ProcessStarted(_) | Effect::ProcessStopped(_)) {
                self.evs.push(Ev::Eff(e));
            }
        }
        let now = k.running(0);
        if now != self.last {
            self.evs.push(Ev::Run(now));
            self.last = now;
        }
    }

    fn take(&mut self) -> Vec<Ev> {
        std::mem::take(&mut self.evs)
    }
}

fn err(code: ErrorCode, p: Option<ProcessId>, addr: u64, msg: &[u8]) -> ErrorStatus {
    ErrorStatus::new(code, p, addr, msg).unwrap()
}

fn app(p: ProcessId, msg: &[u8]) -> ErrorStatus {
    err(ErrorCode::ApplicationError, Some(p), 0, msg)
}

fn with_handler(k: &mut Kernel) {
    k.create_error_handler(0, MAIN, 0x2000, 8192).unwrap();
}

fn eh_state(k: &Kernel) -> ProcessState {
    k.error_handler_status().unwrap().state
}

#[test]
fn error_codes_match_the_c_header() {
    use ErrorCode::*;
    let all = [
        DeadlineMissed,
        ApplicationError,
        NumericError,
        IllegalRequest,
        StackOverflow,
        MemoryViolation,
        HardwareFault,
        PowerFail,
    ];
    for (v, c) in all.iter().enumerate() {
        assert_eq!(*c as u32, v as u32);
        assert_eq!(ErrorCode::from_raw(v as u32), Some(*c));
    }
    assert_eq!(ErrorCode::from_raw(8), None);
    assert_eq!(ErrorHandlerConcurrency::ProcessPause as u32, 0);
    assert_eq!(ErrorHandlerConcurrency::ProcessSchedule as u32, 1);
    assert_eq!(
        ErrorHandlerConcurrency::from_raw(0),
        Some(ErrorHandlerConcurrency::ProcessPause)
    );
    assert_eq!(ErrorHandlerConcurrency::from_raw(2), None);
    assert_eq!(MAX_ERROR_MESSAGE_SIZE, 128);
    assert!(ErrorStatus::new(ApplicationError, None, 0, &[0; 129]).is_none());
    let e = err(NumericError, Some(ProcessId(3)), 0xdead, b"div");
    assert_eq!((e.length, e.message()), (3, &b"div"[..]));
}

#[test]
fn create_error_handler_nominal() {
    let mut k = kernel();
    assert!(!k.has_error_handler());
    assert_eq!(k.error_handler_status(), None);
    let a = aperiodic(&mut k, "A", 5);
    with_handler(&mut k);
    // Processes created after the handler keep contiguous identifiers.
    let b = aperiodic(&mut k, "B", 5);
    assert_eq!((a, b), (ProcessId(1), ProcessId(2)));
    assert_eq!(k.process_count(), 2);
    assert_eq!(k.get_process_status(ProcessId(3)), Err(InvalidParam));
    assert_eq!(k.get_process_id(&name("")), Err(InvalidConfig));
    assert!(k.has_error_handler());
    let st = k.error_handler_status().unwrap();
    assert_eq!(
        st,
        ErrorHandlerStatus {
            entry: 0x2000,
            stack_size: 8192,
            state: ProcessState::Dormant,
            core: 0,
            concurrency: ErrorHandlerConcurrency::ProcessSchedule,
            pending_errors: 0,
        }
    );
    // START does not apply to it and entering NORMAL leaves it DORMANT.
    k.start(0, MAIN, a).unwrap();
    normal(&mut k, 0);
    assert_eq!(cur(&k), Some(a));
    assert_eq!(eh_state(&k), ProcessState::Dormant);
    // A DORMANT error handler cannot call services.
    assert_eq!(k.stop_self(0, EH), Err(InvalidMode));
    assert_eq!(k.get_error_status(0, EH), Err(InvalidMode));
}

#[test]
fn create_error_handler_errors() {
    let mut k = kernel();
    assert_eq!(k.create_error_handler(0, MAIN, 1, 0), Err(InvalidParam));
    assert_eq!(
        k.create_error_handler(0, MAIN, 1, 2 << 20),
        Err(InvalidConfig)
    );
    with_handler(&mut k);
    assert_eq!(k.create_error_handler(0, MAIN, 1, 4096), Err(NoAction));
    // The handler counts against the process table.
    let mut c = cfg();
    c.max_processes = 1;
    let mut k = Kernel::new(c.clone()).unwrap();
    aperiodic(&mut k, "A", 5);
    assert_eq!(k.create_error_handler(0, MAIN, 1, 4096), Err(InvalidConfig));
    let mut k = Kernel::new(c).unwrap();
    with_handler(&mut k);
    assert_eq!(
        k.create_process(0, MAIN, &attrs("A", 5, -1, -1)),
        Err(InvalidConfig)
    );
    // ... and against the stack storage.
    let mut c = cfg();
    c.stack_total = 8192 + 4095;
    let mut k = Kernel::new(c).unwrap();
    with_handler(&mut k);
    assert_eq!(
        k.create_process(0, MAIN, &attrs("A", 5, -1, -1)),
        Err(InvalidConfig)
    );
    // Only during initialisation.
    let mut k = kernel();
    let a = spawn(&mut k, "A", 5);
    normal(&mut k, 0);
    assert_eq!(k.create_error_handler(0, pr(a), 1, 4096), Err(InvalidMode));
    assert_eq!(k.create_error_handler(0, MAIN, 1, 4096), Err(InvalidMode));
    assert!(!k.has_error_handler());
}

#[test]
fn configure_error_handler_nominal_and_errors() {
    let mut c = cfg();
    c.cores = 2;
    let mut k = Kernel::new(c).unwrap();
    use ErrorHandlerConcurrency::*;
    assert_eq!(
        k.configure_error_handler(0, MAIN, ProcessPause, 1),
        Err(InvalidConfig)
    );
    with_handler(&mut k);
    assert_eq!(
        k.configure_error_handler(0, MAIN, ProcessPause, 2),
        Err(InvalidConfig)
    );
    k.configure_error_handler(0, MAIN, ProcessPause, 1).unwrap();
    let st = k.error_handler_status().unwrap();
    assert_eq!((st.concurrency, st.core), (ProcessPause, 1));
    let a = spawn(&mut k, "A", 5);
    normal(&mut k, 0);
    assert_eq!(
        k.configure_error_handler(0, pr(a), ProcessSchedule, 0),
        Err(InvalidMode)
    );
    assert_eq!(k.error_handler_status().unwrap().core, 1);
}

#[test]
fn raise_application_error_errors() {
    let mut k = kernel();
    with_handler(&mut k);
    let a = spawn(&mut k, "A", 5);
    normal(&mut k, 0);
    for code in [
        ErrorCode::DeadlineMissed,
        ErrorCode::NumericError,
        ErrorCode::PowerFail,
    ] {
        assert_eq!(
            k.raise_application_error(0, pr(a), code, b"x"),
            Err(InvalidParam)
        );
    }
    assert_eq!(
        k.raise_application_error(0, pr(a), ErrorCode::ApplicationError, &[7; 129]),
        Err(InvalidParam)
    );
    assert_eq!(
        k.raise_application_error(0, MAIN, ErrorCode::ApplicationError, b""),
        Err(InvalidMode)
    );
    assert_eq!(eh_state(&k), ProcessState::Dormant);
    assert!(effects(&mut k).iter().all(|e| !matches!(
        e,
        Effect::PartitionError { .. } | Effect::ErrorHandlerStarted
    )));
    // A full-size message is accepted.
    k.raise_application_error(0, pr(a), ErrorCode::ApplicationError, &[7; 128])
        .unwrap();
    assert_eq!(k.running(0), Some(EH));
    assert_eq!(k.get_error_status(0, EH), Ok(app(a, &[7; 128])));
}

#[test]
fn no_handler_reports_at_partition_level() {
    let mut k = kernel();
    // During initialisation the main process may raise: partition level.
    k.raise_application_error(0, MAIN, ErrorCode::ApplicationError, b"init")
        .unwrap();
    let a = spawn(&mut k, "A", 5);
    normal(&mut k, 0);
    let mut t = Trace::new(&mut k);
    k.raise_application_error(MS, pr(a), ErrorCode::ApplicationError, b"boom")
        .unwrap();
    t.see(&mut k);
    assert_eq!(
        t.take(),
        vec![Ev::Eff(Effect::PartitionError {
            source: pr(a),
            error: app(a, b"boom"),
        })]
    );
    // The caller keeps running.
    assert_eq!(cur(&k), Some(a));
    // Errors the glue injects take the same path, with any code.
    k.raise_error(MS, pr(a), ErrorCode::NumericError, 0x42, b"SIGFPE")
        .unwrap();
    t.see(&mut k);
    assert_eq!(
        t.take(),
        vec![Ev::Eff(Effect::PartitionError {
            source: pr(a),
            error: err(ErrorCode::NumericError, Some(a), 0x42, b"SIGFPE"),
        })]
    );
    // A deadline miss is only the existing effect.
    let mut k = kernel();
    let p = k
        .create_process(0, MAIN, &attrs("P", 5, 10 * MS, 2 * MS))
        .unwrap();
    k.start(0, MAIN, p).unwrap();
    normal(&mut k, 0);
    effects(&mut k);
    k.advance(2 * MS + 1);
    assert_eq!(
        effects(&mut k),
        vec![Effect::DeadlineMissed {
            process: p,
            deadline: 2 * MS
        }]
    );
}

#[test]
fn init_errors_are_partition_level_even_with_a_handler() {
    let mut k = kernel();
    with_handler(&mut k);
    let a = spawn(&mut k, "A", 5);
    effects(&mut k);
    k.raise_application_error(0, MAIN, ErrorCode::ApplicationError, b"init")
        .unwrap();
    k.raise_error(0, pr(a), ErrorCode::HardwareFault, 0, b"")
        .unwrap();
    assert_eq!(
        effects(&mut k),
        vec![
            Effect::PartitionError {
                source: MAIN,
                error: err(ErrorCode::ApplicationError, None, 0, b"init"),
            },
            Effect::PartitionError {
                source: pr(a),
                error: err(ErrorCode::HardwareFault, Some(a), 0, b""),
            },
        ]
    );
    assert_eq!(eh_state(&k), ProcessState::Dormant);
    assert_eq!(k.running(0), Some(MAIN));
}

#[test]
fn handler_preempts_running_higher_priority_process() {
    let mut k = kernel();
    with_handler(&mut k);
    let lo = spawn(&mut k, "LO", 1);
    let hi = spawn(&mut k, "HI", MAX_PRIORITY_VALUE);
    normal(&mut k, 0);
    let mut t = Trace::new(&mut k);
    assert_eq!(cur(&k), Some(hi));
    k.raise_application_error(MS, pr(hi), ErrorCode::ApplicationError, b"bad input")
        .unwrap();
    t.see(&mut k);
    assert_eq!(
        t.take(),
        vec![Ev::Eff(Effect::ErrorHandlerStarted), Ev::Run(Some(EH))]
    );
    assert_eq!(eh_state(&k), ProcessState::Running);
    assert_eq!(state(&k, hi), ProcessState::Ready);
    assert_eq!(k.error_handler_status().unwrap().pending_errors, 1);
    // Inside the handler.
    assert_eq!(k.get_my_id(EH), Err(InvalidMode));
    assert_eq!(k.get_my_index(EH), Err(InvalidMode));
    assert_eq!(k.get_my_processor_core_id(EH), 0);
    assert_eq!(k.get_error_status(2 * MS, EH), Ok(app(hi, b"bad input")));
    assert_eq!(k.get_error_status(2 * MS, EH), Err(NoAction));
    k.stop_self(3 * MS, EH).unwrap();
    t.see(&mut k);
    assert_eq!(
        t.take(),
        vec![Ev::Eff(Effect::ErrorHandlerStopped), Ev::Run(Some(pr(hi)))]
    );
    assert_eq!(eh_state(&k), ProcessState::Dormant);
    // It is activated again by the next error.
    k.raise_application_error(4 * MS, pr(hi), ErrorCode::ApplicationError, b"again")
        .unwrap();
    t.see(&mut k);
    assert_eq!(
        t.take(),
        vec![Ev::Eff(Effect::ErrorHandlerStarted), Ev::Run(Some(EH))]
    );
    let _ = lo;
}

#[test]
fn handler_preempts_preemption_lock() {
    let mut k = kernel();
    with_handler(&mut k);
    let a = spawn(&mut k, "A", 5);
    let b = aperiodic(&mut k, "B", 9);
    normal(&mut k, 0);
    assert_eq!(k.lock_preemption(0, pr(a)), Ok(1));
    k.start(0, pr(a), b).unwrap();
    assert_eq!(cur(&k), Some(a));
    let mut t = Trace::new(&mut k);
    k.raise_application_error(MS, pr(a), ErrorCode::ApplicationError, b"locked")
        .unwrap();
    t.see(&mut k);
    assert_eq!(
        t.take(),
        vec![Ev::Eff(Effect::ErrorHandlerStarted), Ev::Run(Some(EH))]
    );
    // The lock is kept for its owner.
    assert_eq!(k.get_partition_status().lock_level, 1);
    assert_eq!(
        k.get_process_mutex_state(a),
        Ok(MutexOwnership::PreemptionLock)
    );
    assert_eq!(k.get_error_status(MS, EH), Ok(app(a, b"locked")));
    k.stop_self(2 * MS, EH).unwrap();
    t.see(&mut k);
    // The lock owner resumes, not the higher-priority B.
    assert_eq!(
        t.take(),
        vec![Ev::Eff(Effect::ErrorHandlerStopped), Ev::Run(Some(pr(a)))]
    );
    assert_eq!(k.unlock_preemption(3 * MS, pr(a)), Ok(0));
    t.see(&mut k);
    assert_eq!(t.take(), vec![Ev::Run(Some(pr(b)))]);
}

#[test]
fn handler_may_stop_the_lock_owner() {
    let mut k = kernel();
    with_handler(&mut k);
    let a = spawn(&mut k, "A", 5);
    let b = spawn(&mut k, "B", 3);
    normal(&mut k, 0);
    k.lock_preemption(0, pr(a)).unwrap();
    k.raise_error(0, pr(a), ErrorCode::MemoryViolation, 0x10, b"SIGSEGV")
        .unwrap();
    assert_eq!(k.running(0), Some(EH));
    let e = k.get_error_status(0, EH).unwrap();
    assert_eq!(
        (e.error_code, e.failed_process, e.failed_address),
        (ErrorCode::MemoryViolation, Some(a), 0x10)
    );
    k.stop(0, EH, e.failed_process.unwrap()).unwrap();
    assert_eq!(k.get_partition_status().lock_level, 0);
    k.stop_self(0, EH).unwrap();
    assert_eq!(cur(&k), Some(b));
    assert_eq!(state(&k, a), ProcessState::Dormant);
    // ... and restart it.
    k.raise_application_error(0, pr(b), ErrorCode::ApplicationError, b"")
        .unwrap();
    k.start(0, EH, a).unwrap();
    assert_eq!(k.running(0), Some(EH));
    assert_eq!(k.get_error_status(0, EH), Ok(app(b, b"")));
    k.stop_self(0, EH).unwrap();
    assert_eq!(cur(&k), Some(a));
}

#[test]
fn handler_restrictions() {
    let mut k = kernel();
    with_handler(&mut k);
    let s = k
        .create_semaphore(0, MAIN, &name("S"), 0, 5, QueuingDiscipline::Fifo)
        .unwrap();
    let m = k
        .create_mutex(
            0,
            MAIN,
            &name("M"),
            MAX_PRIORITY_VALUE,
            QueuingDiscipline::Fifo,
        )
        .unwrap();
    let a = spawn(&mut k, "A", 5);
    normal(&mut k, 0);
    k.raise_application_error(0, pr(a), ErrorCode::ApplicationError, b"")
        .unwrap();
    assert_eq!(k.running(0), Some(EH));
    // It cannot block.
    assert_eq!(k.timed_wait(0, EH, MS), Err(InvalidMode));
    assert_eq!(k.timed_wait(0, EH, 0), Err(InvalidMode));
    assert_eq!(k.suspend_self(0, EH, MS), Err(InvalidMode));
    assert_eq!(k.periodic_wait(0, EH), Err(InvalidMode));
    assert_eq!(k.wait_semaphore(0, EH, s, MS), Err(InvalidMode));
    assert_eq!(k.wait_semaphore(0, EH, s, 0), Err(NotAvailable));
    k.signal_semaphore(0, EH, s).unwrap();
    assert_eq!(k.wait_semaphore(0, EH, s, 0), Ok(Done(())));
    // Neither lock preemption nor replenish; mutexes are below its priority.
    assert_eq!(k.lock_preemption(0, EH), Err(NoAction));
    assert_eq!(k.unlock_preemption(0, EH), Err(NoAction));
    assert_eq!(k.replenish(0, EH, MS), Err(NoAction));
    assert_eq!(k.acquire_mutex(0, EH, m, 0), Err(InvalidConfig));
    // Others cannot read the error queue.
    assert_eq!(k.get_error_status(0, pr(a)), Err(InvalidConfig));
    assert_eq!(k.get_error_status(0, MAIN), Err(InvalidConfig));
    // Its own errors go to the partition level.
    effects(&mut k);
    k.raise_application_error(0, EH, ErrorCode::ApplicationError, b"me")
        .unwrap();
    assert_eq!(
        effects(&mut k),
        vec![Effect::PartitionError {
            source: EH,
            error: err(ErrorCode::ApplicationError, None, 0, b"me"),
        }]
    );
    k.raise_error(0, EH, ErrorCode::StackOverflow, 0, b"")
        .unwrap();
    assert!(matches!(
        effects(&mut k)[..],
        [Effect::PartitionError { source: EH, .. }]
    ));
    assert_eq!(k.error_handler_status().unwrap().pending_errors, 1);
    assert_eq!(k.running(0), Some(EH));
}

#[test]
fn raise_error_errors() {
    let mut k = kernel();
    let a = spawn(&mut k, "A", 5);
    normal(&mut k, 0);
    effects(&mut k);
    assert_eq!(
        k.raise_error(0, pr(ProcessId(2)), ErrorCode::NumericError, 0, b""),
        Err(InvalidParam)
    );
    assert_eq!(
        k.raise_error(0, EH, ErrorCode::NumericError, 0, b""),
        Err(InvalidParam)
    );
    assert_eq!(
        k.raise_error(0, pr(a), ErrorCode::NumericError, 0, &[0; 129]),
        Err(InvalidParam)
    );
    assert!(effects(&mut k).is_empty());
    // A fault of the main process (e.g. after NORMAL) is partition level.
    k.raise_error(0, MAIN, ErrorCode::IllegalRequest, 0, b"")
        .unwrap();
    assert!(matches!(
        effects(&mut k)[..],
        [Effect::PartitionError { source: MAIN, .. }]
    ));
}

#[test]
fn deadline_miss_is_queued_to_the_handler() {
    let mut k = kernel();
    with_handler(&mut k);
    let p = k
        .create_process(0, MAIN, &attrs("P", 5, 10 * MS, 2 * MS))
        .unwrap();
    k.start(0, MAIN, p).unwrap();
    normal(&mut k, 0);
    let mut t = Trace::new(&mut k);
    assert_eq!(cur(&k), Some(p));
    assert_eq!(k.next_event_time(), Some(2 * MS + 1));
    k.advance(2 * MS + 1);
    t.see(&mut k);
    assert_eq!(
        t.take(),
        vec![
            Ev::Eff(Effect::DeadlineMissed {
                process: p,
                deadline: 2 * MS
            }),
            Ev::Eff(Effect::ErrorHandlerStarted),
            Ev::Run(Some(EH)),
        ]
    );
    assert_eq!(
        k.get_error_status(3 * MS, EH),
        Ok(err(ErrorCode::DeadlineMissed, Some(p), 0, b""))
    );
    // Typical recovery: restart the late process.
    k.stop(3 * MS, EH, p).unwrap();
    k.start(3 * MS, EH, p).unwrap();
    k.stop_self(3 * MS, EH).unwrap();
    t.see(&mut k);
    assert_eq!(
        t.take(),
        vec![Ev::Eff(Effect::ErrorHandlerStopped), Ev::Run(None)]
    );
    // Released at the next partition period.
    k.advance(10 * MS);
    t.see(&mut k);
    assert_eq!(t.take(), vec![Ev::Run(Some(pr(p)))]);
}

#[test]
fn error_status_is_oldest_first() {
    let mut c = cfg();
    c.cores = 2;
    let mut k = Kernel::new(c).unwrap();
    with_handler(&mut k);
    let a = spawn(&mut k, "A", 5);
    let b = spawn(&mut k, "B", 5);
    let p = k
        .create_process(0, MAIN, &attrs("P", 9, 10 * MS, 2 * MS))
        .unwrap();
    k.initialize_process_core_affinity(0, MAIN, b, 1).unwrap();
    k.initialize_process_core_affinity(0, MAIN, p, 1).unwrap();
    k.start(0, MAIN, p).unwrap();
    normal(&mut k, 0);
    assert_eq!(k.running(1), Some(pr(p)));
    k.raise_application_error(MS, pr(a), ErrorCode::ApplicationError, b"first")
        .unwrap();
    assert_eq!(k.running(0), Some(EH));
    // PROCESS_SCHEDULE (default): core 1 keeps running, its errors queue up.
    assert_eq!(k.running(1), Some(pr(p)));
    k.advance(2 * MS + 1);
    k.raise_error(2 * MS + 1, pr(b), ErrorCode::NumericError, 8, b"fpe")
        .unwrap();
    k.raise_application_error(3 * MS, pr(p), ErrorCode::ApplicationError, b"last")
        .unwrap();
    assert_eq!(k.error_handler_status().unwrap().pending_errors, 4);
    let got: Vec<ErrorStatus> =
        std::iter::from_fn(|| k.get_error_status(4 * MS, EH).ok()).collect();
    assert_eq!(
        got,
        vec![
            app(a, b"first"),
            err(ErrorCode::DeadlineMissed, Some(p), 0, b""),
            err(ErrorCode::NumericError, Some(b), 8, b"fpe"),
            app(p, b"last"),
        ]
    );
    assert_eq!(k.get_error_status(4 * MS, EH), Err(NoAction));
    assert_eq!(k.error_handler_status().unwrap().pending_errors, 0);
}

#[test]
fn stop_self_with_pending_errors_reactivates() {
    let mut c = cfg();
    c.cores = 2;
    let mut k = Kernel::new(c).unwrap();
    with_handler(&mut k);
    let a = spawn(&mut k, "A", 5);
    let b = spawn(&mut k, "B", 5);
    k.initialize_process_core_affinity(0, MAIN, b, 1).unwrap();
    normal(&mut k, 0);
    k.raise_application_error(0, pr(a), ErrorCode::ApplicationError, b"1")
        .unwrap();
    let mut t = Trace::new(&mut k);
    assert_eq!(k.get_error_status(0, EH), Ok(app(a, b"1")));
    // Raised on core 1 after the handler's last read.
    k.raise_application_error(0, pr(b), ErrorCode::ApplicationError, b"2")
        .unwrap();
    k.stop_self(0, EH).unwrap();
    t.see(&mut k);
    assert_eq!(
        t.take(),
        vec![
            Ev::Eff(Effect::ErrorHandlerStopped),
            Ev::Eff(Effect::ErrorHandlerStarted),
        ]
    );
    assert_eq!(k.running(0), Some(EH));
    assert_eq!(eh_state(&k), ProcessState::Running);
    assert_eq!(k.get_error_status(0, EH), Ok(app(b, b"2")));
    k.stop_self(0, EH).unwrap();
    assert_eq!(cur(&k), Some(a));
}

#[test]
fn process_pause_idles_the_other_cores() {
    let mut c = cfg();
    c.cores = 2;
    let mut k = Kernel::new(c).unwrap();
    with_handler(&mut k);
    k.configure_error_handler(0, MAIN, ErrorHandlerConcurrency::ProcessPause, 1)
        .unwrap();
    let a = spawn(&mut k, "A", 5);
    let b = spawn(&mut k, "B", 5);
    k.initialize_process_core_affinity(0, MAIN, b, 1).unwrap();
    normal(&mut k, 0);
    assert_eq!((k.running(0), k.running(1)), (Some(pr(a)), Some(pr(b))));
    k.raise_application_error(0, pr(a), ErrorCode::ApplicationError, b"")
        .unwrap();
    // The handler runs on its core (1); core 0 is paused.
    assert_eq!((k.running(0), k.running(1)), (None, Some(EH)));
    assert_eq!(state(&k, a), ProcessState::Ready);
    assert_eq!(state(&k, b), ProcessState::Ready);
    assert_eq!(k.get_my_processor_core_id(EH), 1);
    k.get_error_status(0, EH).unwrap();
    k.stop_self(0, EH).unwrap();
    assert_eq!((k.running(0), k.running(1)), (Some(pr(a)), Some(pr(b))));
}

#[test]
fn full_error_queue_escalates_to_partition_level() {
    let mut c = cfg();
    c.max_pending_errors = 1;
    let mut k = Kernel::new(c).unwrap();
    with_handler(&mut k);
    let a = spawn(&mut k, "A", 5);
    normal(&mut k, 0);
    k.raise_application_error(0, pr(a), ErrorCode::ApplicationError, b"1")
        .unwrap();
    effects(&mut k);
    k.raise_error(0, pr(a), ErrorCode::PowerFail, 0, b"2")
        .unwrap();
    assert_eq!(
        effects(&mut k),
        vec![Effect::PartitionError {
            source: pr(a),
            error: err(ErrorCode::PowerFail, Some(a), 0, b"2"),
        }]
    );
    assert_eq!(k.get_error_status(0, EH), Ok(app(a, b"1")));
    assert_eq!(k.get_error_status(0, EH), Err(NoAction));
}

#[test]
fn handler_preempts_under_edf() {
    let mut c = cfg();
    c.policy = SchedulingPolicy::Edf;
    let mut k = Kernel::new(c).unwrap();
    with_handler(&mut k);
    let p = k
        .create_process(0, MAIN, &attrs("P", 5, 10 * MS, 2 * MS))
        .unwrap();
    k.start(0, MAIN, p).unwrap();
    normal(&mut k, 0);
    k.raise_application_error(0, pr(p), ErrorCode::ApplicationError, b"")
        .unwrap();
    assert_eq!(k.running(0), Some(EH));
}

#[test]
fn partition_stop_from_the_handler() {
    let mut k = kernel();
    with_handler(&mut k);
    let a = spawn(&mut k, "A", 5);
    normal(&mut k, 0);
    k.raise_application_error(0, pr(a), ErrorCode::ApplicationError, b"")
        .unwrap();
    effects(&mut k);
    k.set_partition_mode(0, EH, OperatingMode::Idle).unwrap();
    let eff = effects(&mut k);
    assert!(eff.contains(&Effect::ErrorHandlerStopped));
    assert!(eff.contains(&Effect::IdleRequested));
    assert_eq!(k.running(0), None);
    assert_eq!(k.error_handler_status().unwrap().pending_errors, 0);
    assert_eq!(eh_state(&k), ProcessState::Dormant);
}
