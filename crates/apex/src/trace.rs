// SPDX-License-Identifier: MIT OR Apache-2.0
//! Recording into the partition's trace ring (`partita run --trace`).
//!
//! When the run is traced the manager passes the partition a ring (descriptor
//! [`partita_sys::control::TRACE_FD`], capacity in the control block); the runtime maps it at
//! start-up ([`open`]) and records process creations, port creations, writes and reads, the
//! application's own records ([`application`]), and, through the APEX kernel's
//! [`TraceSink`], process state changes and deadline misses. A record is a 64-byte push into
//! shared memory: no allocation, no formatting, no system call (the time is read from the
//! vDSO). Without a ring every function here returns after one check.
//!
//! With `partita run --trace-apex` (the control block's `trace_apex_calls`) every service of
//! the C binding also records `APEX_ENTER` and `APEX_EXIT` ([`apex_call`]); otherwise a call
//! costs two tests of a flag (on entry, and where it stores its return code).
//!
//! The manager reads the ring as untrusted input: it rewrites the partition field and refuses
//! manager events, so nothing here can speak for another partition.

use partita_abi::trace::{ApexService, Event, EventKind, NO_RETURN_CODE};
use partita_abi::{ERROR_HANDLER_PROCESS_ID, MAIN_PROCESS_ID};
use partita_apex_core::{ReturnCode, Runner, TraceSink};
use partita_sys::trace::RingMapping;
use std::cell::Cell;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

struct PartitionRing {
    ring: RingMapping,
    partition: u16,
}

static RING: OnceLock<PartitionRing> = OnceLock::new();

/// Whether the APEX calls are recorded: [`UNDECIDED`] until the runtime started (the first
/// APEX call of the program starts it), then [`RECORDED`] when the run asks for it and the
/// ring is mapped, [`NOT_RECORDED`] otherwise.
static APEX_CALLS: AtomicU8 = AtomicU8::new(UNDECIDED);
const UNDECIDED: u8 = 0;
const NOT_RECORDED: u8 = 1;
const RECORDED: u8 = 2;

thread_local! {
    /// The return code the service running on this thread stored last ([`note_return_code`]),
    /// for its `APEX_EXIT`.
    static RETURN_CODE: Cell<u64> = const { Cell::new(NO_RETURN_CODE) };
}

/// Maps the ring the manager passed (`capacity` events; 0: the run is not traced) and, with
/// `apex_calls`, records the APEX calls too. Returns whether the partition records; a ring
/// that cannot be mapped is reported on stderr (the partition's log) and the partition runs
/// untraced.
pub(crate) fn open(capacity: u32, partition: u32, apex_calls: bool) -> bool {
    if capacity == 0 {
        return false;
    }
    match RingMapping::map_inherited(partita_sys::control::TRACE_FD, capacity) {
        Ok(ring) => {
            let partition = u16::try_from(partition).unwrap_or(partita_abi::trace::NO_PARTITION);
            let opened = RING.set(PartitionRing { ring, partition }).is_ok();
            if opened && apex_calls {
                APEX_CALLS.store(RECORDED, Ordering::Release);
            }
            opened
        }
        Err(e) => {
            eprintln!("partita runtime: trace ring (descriptor {}): {e}; this partition records no trace events", partita_sys::control::TRACE_FD);
            false
        }
    }
}

/// Whether this partition records.
pub(crate) fn enabled() -> bool {
    RING.get().is_some()
}

/// The process field of `runner`.
pub(crate) fn process_of(runner: Option<Runner>) -> i32 {
    match runner {
        Some(Runner::Process(pid)) => pid.0 as i32,
        Some(Runner::ErrorHandler) => ERROR_HANDLER_PROCESS_ID,
        Some(Runner::Main) => MAIN_PROCESS_ID,
        None => partita_abi::trace::NO_PROCESS,
    }
}

/// Stamps `event` with the time and the partition and pushes it (a full ring counts it lost).
fn push(mut event: Event) {
    if let Some(r) = RING.get() {
        event.time_ns = partita_sys::time::monotonic_ns();
        event.partition = r.partition;
        r.ring.ring().push(&event);
    }
}

/// Records `event` for the calling APEX process.
fn record_mine(event: Event) {
    if !enabled() {
        return;
    }
    let me = crate::runtime::get().ok().and_then(|rt| rt.me());
    push(event.of_process(process_of(me)));
}

/// The kernel's sink: its events already name their process.
pub(crate) struct KernelSink;

impl TraceSink for KernelSink {
    fn record(&mut self, event: Event) {
        push(event);
    }
}

/// An APEX name up to its first NUL, cut to the event's name payload.
fn trimmed(name: &[u8]) -> &[u8] {
    let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())];
    &name[..name.len().min(partita_abi::trace::NAME_LEN)]
}

/// PROCESS_CREATED: process `pid` (`name`) runs on host thread `tid`.
pub(crate) fn process_created(process: i32, tid: i32, name: &[u8]) {
    if !enabled() {
        return;
    }
    let name = trimmed(name);
    if let Ok(e) = Event::named(0, EventKind::ProcessCreated, tid.max(0) as u64, name) {
        push(e.of_process(process));
    }
}

/// PORT_CREATED: port `id` (`queuing` or sampling) named `name`.
pub(crate) fn port_created(id: i32, queuing: bool, name: &[u8]) {
    if !enabled() {
        return;
    }
    let name = trimmed(name);
    let kind = if queuing {
        partita_abi::trace::PORT_CREATED_QUEUING
    } else {
        0
    };
    if let Ok(e) = Event::named(0, EventKind::PortCreated, id.max(0) as u64 | kind, name) {
        record_mine(e);
    }
}

fn rc_of<T>(r: &Result<T, ReturnCode>) -> u64 {
    match r {
        Ok(_) => 0,
        Err(rc) => u64::from(rc.raw()),
    }
}

/// PORT_WRITE: `bytes` written to port `id`, with the outcome.
pub(crate) fn port_write<T>(id: i32, bytes: usize, r: &Result<T, ReturnCode>) {
    if enabled() {
        let e = Event::new(
            0,
            EventKind::PortWrite,
            id.max(0) as u64,
            [bytes as u64, rc_of(r), 0, 0],
        );
        record_mine(e);
    }
}

/// PORT_READ: `bytes` read from port `id`, with the outcome and the validity (1 valid, 0
/// otherwise or for queuing ports).
pub(crate) fn port_read<T>(id: i32, bytes: usize, r: &Result<T, ReturnCode>, valid: bool) {
    if enabled() {
        let e = Event::new(
            0,
            EventKind::PortRead,
            id.max(0) as u64,
            [bytes as u64, rc_of(r), u64::from(valid), 0],
        );
        record_mine(e);
    }
}

/// APPLICATION: the application's own record (`PARTITA_TRACE_EVENT`): `value` on `stream`.
/// Returns whether it was recorded: `false` when the run is not traced or the ring is full.
pub(crate) fn application(stream: u32, value: u64) -> bool {
    let Some(r) = RING.get() else {
        return false;
    };
    let me = crate::runtime::get().ok().and_then(|rt| rt.me());
    let e = Event::new(
        partita_sys::time::monotonic_ns(),
        EventKind::Application,
        u64::from(stream),
        [value, 0, 0, 0],
    )
    .of_process(process_of(me))
    .of_partition(r.partition);
    r.ring.ring().push(&e)
}

/// Runs `body`, the C binding of `service`, and records `APEX_ENTER` before it and
/// `APEX_EXIT` with the return code it stored after it when the run records APEX calls;
/// otherwise runs it after one test (once the runtime started). A service that does not return (the thread ends in it)
/// has no exit.
#[inline]
pub(crate) fn apex_call(service: ApexService, body: impl FnOnce()) {
    match APEX_CALLS.load(Ordering::Relaxed) {
        NOT_RECORDED => return body(),
        RECORDED => {}
        _ => {
            // The program's first call: start the runtime (which maps the ring) before it, so
            // that this call is recorded too. A runtime that cannot start records nothing.
            let _ = crate::runtime::get();
            let _ = APEX_CALLS.compare_exchange(
                UNDECIDED,
                NOT_RECORDED,
                Ordering::AcqRel,
                Ordering::Acquire,
            );
            if APEX_CALLS.load(Ordering::Acquire) != RECORDED {
                return body();
            }
        }
    }
    let number = u64::from(service.raw());
    record_mine(Event::new(0, EventKind::ApexEnter, number, [0; 4]));
    RETURN_CODE.set(NO_RETURN_CODE);
    body();
    let code = RETURN_CODE.replace(NO_RETURN_CODE);
    record_mine(Event::new(0, EventKind::ApexExit, number, [code, 0, 0, 0]));
}

/// Notes the return code the running service stores, for its `APEX_EXIT` (one test when the
/// APEX calls are not recorded).
#[inline]
pub(crate) fn note_return_code(code: u32) {
    if APEX_CALLS.load(Ordering::Relaxed) == RECORDED {
        RETURN_CODE.set(u64::from(code));
    }
}
