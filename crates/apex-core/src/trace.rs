// SPDX-License-Identifier: MIT OR Apache-2.0
//! Recording process state changes for `partita run --trace`.
//!
//! The kernel stays free of any OS: the glue gives it a [`TraceSink`] (the Linux runtime's
//! writes into the partition's shared-memory ring) with [`Kernel::set_trace`]. Without one,
//! recording costs one branch per service. With one, at the end of every service the kernel
//! compares each process's state with the one it last recorded and records every change as
//! `PROCESS_STATE` with its [`StateReason`], derived from what the process waited for and how
//! its wait ended; deadline misses are recorded where they are detected.

use crate::kernel::Kernel;
use crate::process::{Process, Wait};
use crate::types::*;
use alloc::boxed::Box;
use alloc::vec::Vec;
use partita_abi::trace::{Event, EventKind, StateReason};
use partita_abi::ERROR_HANDLER_PROCESS_ID;

/// Where the kernel's trace events go. The kernel leaves the event's time at 0: the sink
/// stamps it (with the clock the module epoch is given in).
pub trait TraceSink: Send {
    /// Records one event; must not block (a full buffer drops and counts it).
    fn record(&mut self, event: Event);
}

/// What the tracer last recorded of a process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Seen {
    state: ProcessState,
    wait: WaitKind,
    suspended: bool,
}

/// [`Wait`] without its object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WaitKind {
    None,
    PartitionNormal,
    Release,
    Delay,
    SelfSuspend,
    Object,
}

impl Seen {
    fn of(p: &Process) -> Seen {
        Seen {
            state: p.state,
            wait: match p.wait {
                Wait::None => WaitKind::None,
                Wait::PartitionNormal => WaitKind::PartitionNormal,
                Wait::Release => WaitKind::Release,
                Wait::Delay => WaitKind::Delay,
                Wait::SelfSuspend => WaitKind::SelfSuspend,
                Wait::Object(_) => WaitKind::Object,
            },
            suspended: p.suspended,
        }
    }
}

/// The kernel's recorder: the sink and what it last recorded, regular processes by index and
/// the error handler apart (it stays last in the kernel's table while processes are added).
pub(crate) struct Tracer {
    sink: Box<dyn TraceSink>,
    seen: Vec<Seen>,
    handler: Option<Seen>,
}

impl core::fmt::Debug for Tracer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Tracer").field("seen", &self.seen).finish()
    }
}

const DORMANT: Seen = Seen {
    state: ProcessState::Dormant,
    wait: WaitKind::None,
    suspended: false,
};

/// Why a process went from `old` to `new` (`periodic`: it has a period; `timed_out`: its wait
/// ended with TIMED_OUT).
fn reason(old: Seen, new: Seen, periodic: bool, timed_out: bool) -> StateReason {
    use ProcessState::*;
    match (old.state, new.state) {
        (_, Dormant) => StateReason::Stopped,
        (Dormant, _) => StateReason::Started,
        (Running, Ready) | (Ready, Running) => StateReason::Scheduled,
        (_, Waiting) if new.suspended && !old.suspended => StateReason::Suspended,
        (_, Waiting) => match new.wait {
            WaitKind::Delay => StateReason::WaitTime,
            WaitKind::Release if periodic => StateReason::WaitTime,
            WaitKind::Release | WaitKind::PartitionNormal => StateReason::Started,
            WaitKind::SelfSuspend => StateReason::Suspended,
            WaitKind::Object => StateReason::WaitObject,
            // Still waiting, no longer on anything but a SUSPEND being lifted or kept.
            WaitKind::None if old.suspended && !new.suspended => StateReason::Resumed,
            WaitKind::None => StateReason::Signalled,
        },
        (Waiting, _) => match old.wait {
            _ if old.suspended && !new.suspended => StateReason::Resumed,
            WaitKind::Release if periodic => StateReason::PeriodicRelease,
            WaitKind::Release => StateReason::Started,
            WaitKind::PartitionNormal => StateReason::ModeChange,
            _ if timed_out => StateReason::Timeout,
            WaitKind::Delay => StateReason::Timeout,
            WaitKind::SelfSuspend => StateReason::Resumed,
            WaitKind::Object | WaitKind::None => StateReason::Signalled,
        },
        _ => StateReason::Scheduled,
    }
}

fn state_event(process: i32, state: ProcessState, why: StateReason) -> Event {
    Event::new(
        0,
        EventKind::ProcessState,
        u64::from(state.raw()),
        [u64::from(why.raw()), 0, 0, 0],
    )
    .of_process(process)
}

impl Kernel {
    /// Records process state changes and deadline misses into `sink` from now on.
    pub fn set_trace(&mut self, sink: Box<dyn TraceSink>) {
        let n = self.nprocs();
        self.trace = Some(Tracer {
            sink,
            seen: self.procs[..n].iter().map(Seen::of).collect(),
            handler: self.handler_idx().map(|h| Seen::of(&self.procs[h])),
        });
    }

    /// Records a deadline miss of process control block `i` (when tracing).
    pub(crate) fn trace_deadline_miss(&mut self, i: usize, deadline: SystemTime) {
        let process = self.trace_id(i);
        if let Some(t) = self.trace.as_mut() {
            let e = Event::new(0, EventKind::DeadlineMiss, deadline as u64, [0; 4]);
            t.sink.record(e.of_process(process));
        }
    }

    fn trace_id(&self, i: usize) -> i32 {
        if self.is_handler(i) {
            ERROR_HANDLER_PROCESS_ID
        } else {
            Self::pid_of(i).0 as i32
        }
    }

    /// Records every state change since the last call (end of a service).
    pub(crate) fn trace_states(&mut self) {
        let Some(mut t) = self.trace.take() else {
            return;
        };
        let n = self.nprocs();
        t.seen.resize(n, DORMANT);
        for i in 0..self.procs.len() {
            let p = &self.procs[i];
            let new = Seen::of(p);
            let old = if self.is_handler(i) {
                t.handler.replace(new).unwrap_or(DORMANT)
            } else {
                core::mem::replace(&mut t.seen[i], new)
            };
            let waiting_changed = new.state == ProcessState::Waiting
                && (old.wait != new.wait || old.suspended != new.suspended);
            if old.state == new.state && !waiting_changed {
                continue;
            }
            let timed_out = p.wake == Some(Err(ReturnCode::TimedOut));
            let why = reason(old, new, p.is_periodic(), timed_out);
            t.sink.record(state_event(self.trace_id(i), new.state, why));
        }
        self.trace = Some(t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Log(Arc<Mutex<Vec<Event>>>);

    impl TraceSink for Log {
        fn record(&mut self, event: Event) {
            self.0.lock().unwrap().push(event);
        }
    }

    fn seen(state: ProcessState, wait: WaitKind) -> Seen {
        Seen {
            state,
            wait,
            suspended: false,
        }
    }

    #[test]
    fn reasons_follow_the_wait() {
        use ProcessState::*;
        let r = |o, n, periodic, to| reason(o, n, periodic, to);
        let ready = seen(Ready, WaitKind::None);
        let running = seen(Running, WaitKind::None);
        assert_eq!(r(DORMANT, ready, false, false), StateReason::Started);
        assert_eq!(r(ready, running, false, false), StateReason::Scheduled);
        assert_eq!(r(running, ready, false, false), StateReason::Scheduled);
        let period = seen(Waiting, WaitKind::Release);
        assert_eq!(r(running, period, true, false), StateReason::WaitTime);
        assert_eq!(r(period, ready, true, false), StateReason::PeriodicRelease);
        let obj = seen(Waiting, WaitKind::Object);
        assert_eq!(r(running, obj, false, false), StateReason::WaitObject);
        assert_eq!(r(obj, ready, false, true), StateReason::Timeout);
        assert_eq!(r(obj, ready, false, false), StateReason::Signalled);
        let mut susp = seen(Waiting, WaitKind::None);
        susp.suspended = true;
        assert_eq!(r(ready, susp, false, false), StateReason::Suspended);
        assert_eq!(r(susp, ready, false, false), StateReason::Resumed);
        assert_eq!(r(running, DORMANT, false, false), StateReason::Stopped);
    }

    #[test]
    fn a_periodic_process_is_traced_through_its_cycle() {
        let period = 10_000_000;
        let cfg = PartitionConfig {
            period,
            ..PartitionConfig::default()
        };
        let mut k = Kernel::new(cfg).unwrap();
        let log = Log::default();
        k.set_trace(Box::new(log.clone()));
        let mut name = [0; MAX_NAME_LENGTH];
        name[0] = b'P';
        let attrs = ProcessAttributes {
            name,
            entry: 0,
            stack_size: 4096,
            base_priority: 10,
            period,
            time_capacity: period,
            deadline: DeadlineType::Soft,
        };
        let pid = k.create_process(0, Runner::Main, &attrs).unwrap();
        k.start(0, Runner::Main, pid).unwrap();
        k.set_partition_mode(0, Runner::Main, OperatingMode::Normal)
            .unwrap();
        assert_eq!(
            k.periodic_wait(1, Runner::Process(pid)),
            Ok(CallOutcome::Blocked)
        );
        k.advance(period);
        let got: Vec<(u64, StateReason)> = log
            .0
            .lock()
            .unwrap()
            .iter()
            .filter(|e| e.kind == EventKind::ProcessState && e.process == pid.0 as i32)
            .map(|e| (e.a, StateReason::from_raw(e.b() as u32).unwrap()))
            .collect();
        let st = |s: ProcessState| u64::from(s.raw());
        assert_eq!(
            got,
            [
                (st(ProcessState::Waiting), StateReason::Started),
                (st(ProcessState::Running), StateReason::ModeChange),
                (st(ProcessState::Waiting), StateReason::WaitTime),
                (st(ProcessState::Running), StateReason::PeriodicRelease),
            ]
        );
    }
}
