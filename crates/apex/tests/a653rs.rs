// SPDX-License-Identifier: MIT OR Apache-2.0
//! An `a653rs` partition (the crate's `Partition` trait and its abstractions) running on the
//! Partita runtime through `partita_apex::a653rs::Partita` (feature `a653rs`). Standalone
//! (no manager): a test binary without harness whose `main` is the partition; it exits 0 when
//! every check passed, 1 on the first failed check, 2 if it hangs.
//!
//! `cargo test -p partita-apex --features a653rs --test a653rs`

use a653rs::bindings::ProcessState;
use a653rs::prelude::*;
use partita_apex::a653rs::Partita;
use std::str::FromStr;
use std::sync::Mutex as StdMutex;
use std::time::Duration;

/// What happened, in order (processes append, the worker checks).
static LOG: StdMutex<Vec<String>> = StdMutex::new(Vec::new());

fn log(s: impl Into<String>) {
    LOG.lock().unwrap().push(s.into());
}

fn check(ok: bool, what: &str) {
    if !ok {
        eprintln!("a653rs: FAILED: {what}\nlog: {:?}", LOG.lock().unwrap());
        std::process::exit(1);
    }
    println!("a653rs: ok: {what}");
}

fn n(s: &str) -> Name {
    Name::from_str(s).unwrap()
}

fn attr(name: &str, entry: extern "C" fn(), prio: Priority) -> ProcessAttribute {
    ProcessAttribute {
        period: SystemTime::Infinite,
        time_capacity: SystemTime::Infinite,
        entry_point: entry,
        stack_size: 256 * 1024,
        base_priority: prio,
        deadline: Deadline::Soft,
        name: n(name),
    }
}

struct App;

impl Partition<Partita> for App {
    fn cold_start(&self, ctx: &mut StartContext<Partita>) {
        ctx.create_semaphore(n("sem"), 0, 1, QueuingDiscipline::Fifo)
            .unwrap();
        ctx.create_buffer(n("buf"), 16, 2, QueuingDiscipline::Fifo)
            .unwrap();
        ctx.create_blackboard(n("bb"), 16).unwrap();
        ctx.create_event(n("ev")).unwrap();
        ctx.create_mutex(n("mx"), 50, QueuingDiscipline::Priority)
            .unwrap();
        ctx.set_error_handler(handler, 256 * 1024).unwrap();
        let w = ctx.create_process(attr("worker", worker, 10)).unwrap();
        let r = ctx.create_process(attr("receiver", receiver, 20)).unwrap();
        let dup = ctx.create_process(attr("worker", worker, 10));
        check(
            dup.err() == Some(Error::NoAction),
            "CREATE_PROCESS(existing name) -> NoAction",
        );
        w.start().unwrap();
        r.start().unwrap();
        standalone_inter_partition(ctx);
    }

    fn warm_start(&self, ctx: &mut StartContext<Partita>) {
        self.cold_start(ctx)
    }
}

/// Without a manager the partition has no configured ports, memory blocks or module
/// schedules: the port, memory-block and schedule traits answer as the standard says for a
/// name the configuration lacks. The limits are Partita's.
fn standalone_inter_partition(ctx: &mut StartContext<Partita>) {
    use a653rs::bindings::{
        ApexLimits, ApexMemoryBlockP2, ApexQueuingPortP1, ApexSamplingPortP1, ErrorReturnCode,
    };
    use partita_apex::types as abi;
    check(
        ctx.create_sampling_port_source(n("nowhere"), 8).err() == Some(Error::InvalidConfig),
        "CREATE_SAMPLING_PORT(unconfigured) -> InvalidConfig",
    );
    check(
        ctx.create_queuing_port_receiver(n("nowhere"), 8, 4, QueuingDiscipline::Fifo)
            .err()
            == Some(Error::InvalidConfig),
        "CREATE_QUEUING_PORT(unconfigured) -> InvalidConfig",
    );
    let name = n("nowhere").into_inner();
    check(
        <Partita as ApexSamplingPortP1>::get_sampling_port_id(name)
            == Err(ErrorReturnCode::InvalidConfig),
        "GET_SAMPLING_PORT_ID(unknown) -> InvalidConfig",
    );
    check(
        <Partita as ApexQueuingPortP1>::get_queuing_port_id(name)
            == Err(ErrorReturnCode::InvalidConfig),
        "GET_QUEUING_PORT_ID(unknown) -> InvalidConfig",
    );
    check(
        <Partita as ApexMemoryBlockP2>::get_memory_block_status(name).err()
            == Some(ErrorReturnCode::InvalidConfig),
        "GET_MEMORY_BLOCK_STATUS(unknown) -> InvalidConfig",
    );
    check(
        <Partita as ApexLimits>::SYSTEM_LIMIT_NUMBER_OF_PROCESSES as usize
            == abi::SYSTEM_LIMIT_NUMBER_OF_PROCESSES
            && i64::from(<Partita as ApexLimits>::SYSTEM_LIMIT_MESSAGE_SIZE)
                == i64::from(abi::SYSTEM_LIMIT_MESSAGE_SIZE),
        "ApexLimits are Partita's",
    );
}

extern "C" fn receiver() {
    let buf = Partita::get_buffer(n("buf")).unwrap();
    let mut m = [0u8; 16];
    let got = buf.receive(&mut m, SystemTime::Infinite).unwrap();
    log(format!("receiver got {}", String::from_utf8_lossy(got)));
    Partita::get_event(n("ev"))
        .unwrap()
        .wait(SystemTime::Infinite)
        .unwrap();
    log("receiver woke on the event");
    Partita::get_semaphore(n("sem"))
        .unwrap()
        .wait(SystemTime::Infinite)
        .unwrap();
    log("receiver got the semaphore");
    Process::<Partita>::stop_self();
}

extern "C" fn handler() {
    let e = Partita::error_status().unwrap();
    let me = Process::<Partita>::from_name(n("worker")).unwrap();
    log(format!(
        "handler: {:?} from worker: {}, \"{}\"",
        e.error_code,
        e.failed_process_id == me.id(),
        String::from_utf8_lossy(&e.message[..e.length as usize])
    ));
    check(
        Partita::error_status() == Err(Error::NoAction),
        "GET_ERROR_STATUS with no pending error -> NoAction",
    );
    Process::<Partita>::stop_self();
}

extern "C" fn worker() {
    let me = Process::<Partita>::get_self().unwrap();
    let recv = Process::<Partita>::from_name(n("receiver")).unwrap();
    check(
        me.status().process_state == ProcessState::Running,
        "worker RUNNING",
    );
    check(
        recv.status().process_state == ProcessState::Waiting,
        "receiver (higher) ran first and waits on the empty buffer",
    );
    check(
        std::ptr::fn_addr_eq(
            me.status().attributes.entry_point,
            worker as extern "C" fn(),
        ),
        "GET_PROCESS_STATUS entry point is the function given to CREATE_PROCESS",
    );
    check(
        Process::<Partita>::get_my_index() == Ok(1),
        "GET_MY_INDEX of the first process",
    );
    check(
        Process::<Partita>::get_my_processor_core_id() == 0,
        "GET_MY_PROCESSOR_CORE_ID",
    );

    // A message wakes the receiver, which runs at once (above the worker).
    let buf = Partita::get_buffer(n("buf")).unwrap();
    buf.send(&mut b"hello".to_owned(), SystemTime::Normal(Duration::ZERO))
        .unwrap();
    check(
        LOG.lock().unwrap().last().map(String::as_str) == Some("receiver got hello"),
        "SEND_BUFFER readies the receiver, which preempts the sender",
    );
    Partita::get_event(n("ev")).unwrap().set();
    check(
        LOG.lock().unwrap().last().map(String::as_str) == Some("receiver woke on the event"),
        "SET_EVENT readies the waiter, which preempts the setter",
    );

    // Mutex: the owner runs at the ceiling.
    let mx = Partita::get_mutex(n("mx")).unwrap();
    mx.acquire(SystemTime::Infinite).unwrap();
    check(
        me.status().current_priority == 50,
        "mutex owner at the ceiling (50)",
    );
    check(
        me.get_process_mutex_state() == MutexOwnedStatus::Owned(mx.id()),
        "GET_PROCESS_MUTEX_STATE -> the mutex",
    );
    check(mx.status().mutex_owner == me.id(), "GET_MUTEX_STATUS owner");
    mx.release().unwrap();
    check(
        me.status().current_priority == 10,
        "base priority after RELEASE_MUTEX",
    );
    check(
        mx.release() == Err(Error::InvalidMode),
        "RELEASE_MUTEX not owned -> InvalidMode",
    );

    // Blackboard.
    let bb = Partita::get_blackboard(n("bb")).unwrap();
    let mut m = [0u8; 16];
    check(
        bb.read(SystemTime::Normal(Duration::ZERO), &mut m) == Err(Error::NotAvailable),
        "READ_BLACKBOARD on an empty blackboard, zero time-out -> NotAvailable",
    );
    bb.display(b"bbmsg").unwrap();
    check(
        bb.read(SystemTime::Normal(Duration::ZERO), &mut m)
            .map(|s| s.to_vec())
            == Ok(b"bbmsg".to_vec()),
        "DISPLAY_BLACKBOARD then READ_BLACKBOARD",
    );

    // Time.
    let t0 = Partita::get_time().unwrap_duration();
    Partita::timed_wait(Duration::from_millis(2)).unwrap();
    check(
        Partita::get_time().unwrap_duration() >= t0 + Duration::from_millis(2),
        "TIMED_WAIT(2 ms) lasts at least 2 ms",
    );
    check(
        Partita::periodic_wait() == Err(Error::InvalidMode),
        "PERIODIC_WAIT of an aperiodic process -> InvalidMode",
    );

    // Health monitoring: the error handler runs before RAISE_APPLICATION_ERROR returns.
    Partita::raise_application_error(b"boom").unwrap();
    check(
        LOG.lock().unwrap().last().map(String::as_str)
            == Some("handler: ApplicationError from worker: true, \"boom\""),
        "RAISE_APPLICATION_ERROR runs the error handler first (GET_ERROR_STATUS fields)",
    );
    check(
        Partita::error_status() == Err(Error::InvalidConfig),
        "GET_ERROR_STATUS outside the handler -> InvalidConfig",
    );
    Partita::report_application_message(b"a653rs partition says hi").unwrap();

    // Errors through the abstractions.
    check(
        Partita::get_semaphore(n("nope")).err() == Some(Error::InvalidConfig),
        "GET_SEMAPHORE_ID(unknown) -> InvalidConfig",
    );
    check(
        <Partita as a653rs::bindings::ApexSemaphoreP1>::create_semaphore(
            *b"late\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
            0,
            1,
            QueuingDiscipline::Fifo,
        ) == Err(a653rs::bindings::ErrorReturnCode::InvalidMode),
        "CREATE_SEMAPHORE in NORMAL mode -> InvalidMode",
    );
    check(
        Partita::get_semaphore(n("a_name_that_is_31_bytes_long_xx")).err()
            == Some(Error::InvalidConfig),
        "a 31-byte name (longer than ARINC 653's 30) names nothing -> InvalidConfig",
    );

    // The semaphore releases the receiver, which ends.
    Partita::get_semaphore(n("sem")).unwrap().signal().unwrap();
    check(
        recv.status().process_state == ProcessState::Dormant,
        "receiver ran to its end",
    );
    let log = LOG.lock().unwrap().clone();
    check(
        log == [
            "receiver got hello",
            "receiver woke on the event",
            "handler: ApplicationError from worker: true, \"boom\"",
            "receiver got the semaphore",
        ],
        "order of events",
    );
    println!("a653rs: all checks passed");
    std::process::exit(0);
}

fn main() {
    // Watchdog: a hang is a failure.
    std::thread::spawn(|| {
        std::thread::sleep(Duration::from_secs(20));
        eprintln!("a653rs: FAILED: timed out; log: {:?}", LOG.lock().unwrap());
        std::process::exit(2);
    });
    App.run()
}
