// SPDX-License-Identifier: MIT OR Apache-2.0
//! The partition of `partita bench apex`: times the non-blocking APEX services and the
//! hand-offs between two processes, and writes the figures to its result file.

use crate::PartitionError;
use partita_apex::apex;
use partita_apex::core::{OperatingMode, QueuingDiscipline, ReturnCode};
use partita_bench_protocol::apex::{
    empty_timing_pair, now, ApexResult, HandoffResult, ServiceResult, HIGH_PRIORITY, LOW_PRIORITY,
    WARMUP,
};
use partita_bench_protocol::args::ApexPartitionArgs;
use partita_bench_protocol::Figures;
use std::sync::atomic::{AtomicI64, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Ceiling of the benchmark mutex.
const MUTEX_CEILING: i32 = 50;
/// Stack of both benchmark processes.
const STACK: u64 = 256 * 1024;
/// REPORT_APPLICATION_MESSAGE: the measuring process sleeps this long (outside APEX, untimed)
/// after every `REPORT_BATCH` messages so that the manager drains the report pipe and a full
/// pipe never blocks a measured call.
const REPORT_BATCH: usize = 256;
const REPORT_PAUSE: Duration = Duration::from_millis(2);

/// Which samples are kept: both ends inside the same window, away from its edges.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Guard {
    /// `CLOCK_MONOTONIC` instant of APEX time 0 (the first major frame's start).
    pub epoch: i64,
    pub frame: i64,
    pub lo: i64,
    pub hi: i64,
}

impl Guard {
    /// The guard of a partition whose window starts every frame at offset 0 (`args`); the
    /// runtime gives APEX time 0.
    pub(crate) fn of(args: &ApexPartitionArgs, rt: &partita_apex::runtime::Runtime) -> Guard {
        Guard {
            epoch: now() - rt.now(),
            frame: args.major_frame_ns,
            lo: args.edge_guard_ns,
            hi: args.window_ns - args.spin_margin_ns - args.edge_guard_ns,
        }
    }

    pub(crate) fn ok(&self, t0: i64, t1: i64) -> bool {
        let (a, b) = (t0 - self.epoch, t1 - self.epoch);
        a >= 0
            && a / self.frame == b / self.frame
            && a % self.frame >= self.lo
            && b % self.frame <= self.hi
    }
}

/// Samples of one service.
struct Samples {
    v: Vec<i64>,
    dropped: u64,
    errors: u64,
    first_error: Option<ReturnCode>,
}

impl Samples {
    fn new(cap: usize) -> Samples {
        Samples {
            v: Vec::with_capacity(cap),
            dropped: 0,
            errors: 0,
            first_error: None,
        }
    }

    fn clear(&mut self) {
        self.v.clear();
        self.dropped = 0;
        self.errors = 0;
        self.first_error = None;
    }

    fn add<T>(&mut self, g: &Guard, t0: i64, t1: i64, r: Result<T, ReturnCode>) {
        if let Err(e) = r {
            self.errors += 1;
            self.first_error.get_or_insert(e);
        }
        if g.ok(t0, t1) {
            self.v.push(t1 - t0);
        } else {
            self.dropped += 1;
        }
    }

    /// Figures less `pair`, leaving out the first `skip` samples.
    fn figures(&mut self, skip: usize, pair: i64) -> Figures {
        let skip = skip.min(self.v.len());
        let mut v: Vec<i64> = self.v[skip..].iter().map(|x| x - pair).collect();
        Figures::of(&mut v)
    }
}

struct Out {
    g: Guard,
    n: usize,
    pair: i64,
    res: ApexResult,
    a: Samples,
    b: Samples,
}

impl Out {
    fn push(&mut self, service: &str, query: bool, condition: &str, second: bool) {
        let s = if second { &mut self.b } else { &mut self.a };
        let figures = s.figures(0, self.pair);
        if let Some(e) = s.first_error {
            self.res.notes.push(format!(
                "{service}: {} of the calls failed (first: {e:?})",
                s.errors
            ));
        }
        self.res.services.push(ServiceResult {
            service: service.into(),
            query,
            condition: condition.into(),
            figures,
            dropped: s.dropped,
            errors: s.errors,
        });
    }

    /// Times `f` until `n` calls are kept (after the warm-up); `between(i)` runs, untimed,
    /// after call `i`.
    fn one<T>(
        &mut self,
        service: &str,
        query: bool,
        condition: &str,
        mut f: impl FnMut() -> Result<T, ReturnCode>,
        mut between: impl FnMut(usize),
    ) {
        for i in 0..WARMUP {
            let _ = std::hint::black_box(f());
            between(i);
        }
        self.a.clear();
        let limit = self.n * 4;
        let mut i = 0;
        while self.a.v.len() < self.n && i < limit {
            i += 1;
            let t0 = now();
            let r = std::hint::black_box(f());
            let t1 = now();
            self.a.add(&self.g, t0, t1, r);
            between(i);
        }
        self.push(service, query, condition, false);
    }

    /// Times `f` and `g` in alternation (e.g. SIGNAL_SEMAPHORE then WAIT_SEMAPHORE).
    fn two<T, U>(
        &mut self,
        names: (&str, &str),
        conditions: (&str, &str),
        mut f: impl FnMut() -> Result<T, ReturnCode>,
        mut g: impl FnMut() -> Result<U, ReturnCode>,
    ) {
        for _ in 0..WARMUP {
            let _ = std::hint::black_box(f());
            let _ = std::hint::black_box(g());
        }
        self.a.clear();
        self.b.clear();
        let limit = self.n * 4;
        let mut i = 0;
        while (self.a.v.len() < self.n || self.b.v.len() < self.n) && i < limit {
            i += 1;
            let t0 = now();
            let r = std::hint::black_box(f());
            let t1 = now();
            let t2 = now();
            let s = std::hint::black_box(g());
            let t3 = now();
            self.a.add(&self.g, t0, t1, r);
            self.b.add(&self.g, t2, t3, s);
        }
        self.push(names.0, false, conditions.0, false);
        self.push(names.1, false, conditions.1, true);
    }
}

/// Hand-off state shared by the two APEX processes.
struct Shared {
    phase: AtomicU32,
    /// Instant just before the waking call (low process).
    t0: AtomicI64,
    /// Instant just before the blocking call (high process).
    tb: AtomicI64,
    /// Wake hand-offs recorded by the high process, (t0, t1), per phase (semaphore, event).
    wake: [Mutex<Vec<(i64, i64)>>; 2],
    /// Of those, how many the guard keeps.
    kept: [AtomicU64; 2],
    /// Errors seen by the high process.
    errors: Mutex<Vec<String>>,
}

/// Hand-off phases (the phase after the event one is the end).
const PH_SEM: u32 = 1;
const PH_EVT: u32 = 2;

/// The partition of `bench apex` ([`ApexPartitionArgs`]), run by the partition manager.
///
/// The main process creates one object of each kind and two processes: the measuring process
/// ([`LOW_PRIORITY`]) and the hand-off partner ([`HIGH_PRIORITY`]), then enters NORMAL. The
/// partner blocks in WAIT_SEMAPHORE at once; the measuring process times `calls` calls of
/// every non-blocking service, then drives `calls` semaphore hand-offs and `calls` event
/// hand-offs with the partner, and writes the figures to the result file. A set-up error is
/// written there too.
pub fn partition_main(words: &[String]) -> Result<(), PartitionError> {
    let args = ApexPartitionArgs::parse(words)?;
    set_up(&args).inspect_err(|e| {
        let r = ApexResult {
            error: Some(e.to_string()),
            ..ApexResult::default()
        };
        partita_bench_protocol::write_result_or_say(&args.result, &r);
    })
}

fn set_up(args: &ApexPartitionArgs) -> Result<(), PartitionError> {
    let n = args.calls;
    let rt = crate::runtime()?;
    let err = PartitionError::apex;
    let fifo = QueuingDiscipline::Fifo;
    let sem = apex::intra::semaphore::create_semaphore(&apex::name("bench-sem"), 0, 1, fifo)
        .map_err(err("CREATE_SEMAPHORE"))?;
    let hsem = apex::intra::semaphore::create_semaphore(&apex::name("handoff-sem"), 0, 1, fifo)
        .map_err(err("CREATE_SEMAPHORE"))?;
    let hold = apex::intra::semaphore::create_semaphore(&apex::name("hold-sem"), 0, 1, fifo)
        .map_err(err("CREATE_SEMAPHORE"))?;
    let ev = apex::intra::event::create_event(&apex::name("bench-event"))
        .map_err(err("CREATE_EVENT"))?;
    let hev = apex::intra::event::create_event(&apex::name("handoff-event"))
        .map_err(err("CREATE_EVENT"))?;
    let buf = apex::intra::buffer::create_buffer(&apex::name("bench-buffer"), 64, 4, fifo)
        .map_err(err("CREATE_BUFFER"))?;
    let bb = apex::intra::blackboard::create_blackboard(&apex::name("bench-blackboard"), 64)
        .map_err(err("CREATE_BLACKBOARD"))?;
    let mtx = apex::intra::mutex::create_mutex(&apex::name("bench-mutex"), MUTEX_CEILING, fifo)
        .map_err(err("CREATE_MUTEX"))?;
    let park_lowering = match std::env::var("PARTITA_PARK_LOWERING").ok().as_deref() {
        Some("0") => Some(false),
        Some("1") => Some(true),
        _ => rt
            .control()
            .map(|c| c.park_lowering.load(Ordering::Acquire) != 0),
    };
    let g = Guard::of(args, rt);
    let sh = Arc::new(Shared {
        phase: AtomicU32::new(PH_SEM),
        t0: AtomicI64::new(0),
        tb: AtomicI64::new(0),
        wake: [Mutex::new(Vec::new()), Mutex::new(Vec::new())],
        kept: [AtomicU64::new(0), AtomicU64::new(0)],
        errors: Mutex::new(Vec::new()),
    });
    let attrs = |name: &str, prio: i32| apex::process::ProcessAttributes {
        name: apex::name(name),
        entry: 0,
        stack_size: STACK,
        base_priority: prio,
        period: apex::INFINITE_TIME_VALUE,
        time_capacity: apex::INFINITE_TIME_VALUE,
        deadline: apex::process::DeadlineType::Soft,
    };

    // The partner: woken by the measuring process, records the instant it runs.
    let total = n + WARMUP;
    let h = sh.clone();
    let partner = apex::process::create_process(&attrs("partner", HIGH_PRIORITY), move || {
        let note = |s: String| h.errors.lock().unwrap_or_else(|e| e.into_inner()).push(s);
        for (k, phase) in [PH_SEM, PH_EVT].into_iter().enumerate() {
            let mut wake = h.wake[k].lock().unwrap_or_else(|e| e.into_inner());
            wake.reserve(total * 4);
            loop {
                let r = if phase == PH_SEM {
                    h.tb.store(now(), Ordering::Release);
                    apex::intra::semaphore::wait_semaphore(hsem, apex::INFINITE_TIME_VALUE)
                } else {
                    if let Err(e) = apex::intra::event::reset_event(hev) {
                        note(format!("RESET_EVENT (hand-off): {e:?}"));
                    }
                    h.tb.store(now(), Ordering::Release);
                    apex::intra::event::wait_event(hev, apex::INFINITE_TIME_VALUE)
                };
                let t1 = now();
                if h.phase.load(Ordering::Acquire) != phase {
                    break;
                }
                if let Err(e) = r {
                    note(format!("hand-off wait: {e:?}"));
                }
                let t0 = h.t0.load(Ordering::Acquire);
                wake.push((t0, t1));
                if g.ok(t0, t1) {
                    h.kept[k].fetch_add(1, Ordering::Release);
                }
            }
        }
        // Done: sleep for good (nobody signals `hold`).
        let _ = apex::intra::semaphore::wait_semaphore(hold, apex::INFINITE_TIME_VALUE);
    })
    .map_err(err("CREATE_PROCESS (partner)"))?;

    let m = sh.clone();
    let result = args.result.clone();
    let measure = apex::process::create_process(&attrs("measure", LOW_PRIORITY), move || {
        // Let the main thread become the APEX timer thread first (see
        // `crate::switch::partition_main`).
        std::thread::sleep(Duration::from_millis(1));
        let r = measure(n, g, &m, (sem, hsem, ev, hev, buf, bb, mtx));
        let mut r = match r {
            Ok(r) => r,
            Err(e) => ApexResult {
                error: Some(e.to_string()),
                ..ApexResult::default()
            },
        };
        r.park_lowering = park_lowering;
        r.notes
            .extend(m.errors.lock().unwrap_or_else(|e| e.into_inner()).drain(..));
        partita_bench_protocol::write_result_or_say(&result, &r);
        let _ = apex::intra::semaphore::wait_semaphore(hold, apex::INFINITE_TIME_VALUE);
    })
    .map_err(err("CREATE_PROCESS (measure)"))?;
    apex::process::start(partner).map_err(err("START (partner)"))?;
    apex::process::start(measure).map_err(err("START (measure)"))?;
    apex::partition::set_partition_mode(OperatingMode::Normal).map_err(err("SET_PARTITION_MODE"))
}

type Objects = (
    partita_apex::core::SemaphoreId,
    partita_apex::core::SemaphoreId,
    partita_apex::core::EventId,
    partita_apex::core::EventId,
    partita_apex::core::BufferId,
    partita_apex::core::BlackboardId,
    partita_apex::core::MutexId,
);

/// The measuring process.
fn measure(n: usize, g: Guard, sh: &Shared, objs: Objects) -> Result<ApexResult, PartitionError> {
    let (sem, hsem, ev, hev, buf, bb, mtx) = objs;
    crate::settle_clock();
    let pair = empty_timing_pair(n);
    let mut o = Out {
        g,
        n,
        pair: pair.median,
        res: ApexResult {
            pair,
            ..ApexResult::default()
        },
        a: Samples::new(n * 4),
        b: Samples::new(n * 4),
    };
    let me = apex::process::get_my_id().map_err(PartitionError::apex("GET_MY_ID"))?;
    let my_name = apex::name("measure");

    // Identity and status services.
    o.one("GET_TIME", true, "", apex::time::get_time, |_| {});
    o.one("GET_MY_ID", true, "", apex::process::get_my_id, |_| {});
    o.one(
        "GET_PARTITION_STATUS",
        true,
        "",
        apex::partition::get_partition_status,
        |_| {},
    );
    o.one(
        "GET_PROCESS_ID",
        true,
        "own name, 2 processes",
        || apex::process::get_process_id(&my_name),
        |_| {},
    );
    o.one(
        "GET_PROCESS_STATUS",
        true,
        "own id",
        || apex::process::get_process_status(me),
        |_| {},
    );
    o.one(
        "GET_MY_INDEX",
        true,
        "",
        apex::process::get_my_index,
        |_| {},
    );
    o.one(
        "GET_MY_PROCESSOR_CORE_ID",
        true,
        "",
        apex::process::get_my_processor_core_id,
        |_| {},
    );
    let names = [
        apex::name("bench-sem"),
        apex::name("bench-event"),
        apex::name("bench-buffer"),
        apex::name("bench-blackboard"),
        apex::name("bench-mutex"),
    ];
    o.one(
        "GET_SEMAPHORE_ID",
        true,
        "3 semaphores",
        || apex::intra::semaphore::get_semaphore_id(&names[0]),
        |_| {},
    );
    o.one(
        "GET_SEMAPHORE_STATUS",
        true,
        "",
        || apex::intra::semaphore::get_semaphore_status(sem),
        |_| {},
    );
    o.one(
        "GET_EVENT_ID",
        true,
        "2 events",
        || apex::intra::event::get_event_id(&names[1]),
        |_| {},
    );
    o.one(
        "GET_EVENT_STATUS",
        true,
        "",
        || apex::intra::event::get_event_status(ev),
        |_| {},
    );
    o.one(
        "GET_BUFFER_ID",
        true,
        "",
        || apex::intra::buffer::get_buffer_id(&names[2]),
        |_| {},
    );
    o.one(
        "GET_BUFFER_STATUS",
        true,
        "",
        || apex::intra::buffer::get_buffer_status(buf),
        |_| {},
    );
    o.one(
        "GET_BLACKBOARD_ID",
        true,
        "",
        || apex::intra::blackboard::get_blackboard_id(&names[3]),
        |_| {},
    );
    o.one(
        "GET_BLACKBOARD_STATUS",
        true,
        "",
        || apex::intra::blackboard::get_blackboard_status(bb),
        |_| {},
    );
    o.one(
        "GET_MUTEX_ID",
        true,
        "",
        || apex::intra::mutex::get_mutex_id(&names[4]),
        |_| {},
    );
    o.one(
        "GET_MUTEX_STATUS",
        true,
        "",
        || apex::intra::mutex::get_mutex_status(mtx),
        |_| {},
    );

    // Operations that do not block.
    o.two(
        ("SIGNAL_SEMAPHORE", "WAIT_SEMAPHORE"),
        ("nobody waiting", "available, time-out 0"),
        || apex::intra::semaphore::signal_semaphore(sem),
        || apex::intra::semaphore::wait_semaphore(sem, 0),
    );
    o.two(
        ("SET_EVENT", "RESET_EVENT"),
        ("nobody waiting", ""),
        || apex::intra::event::set_event(ev),
        || apex::intra::event::reset_event(ev),
    );
    let msg = [0x5au8; 16];
    let mut out = [0u8; 64];
    o.two(
        ("DISPLAY_BLACKBOARD", "READ_BLACKBOARD"),
        ("16 bytes", "non-empty, time-out 0"),
        || apex::intra::blackboard::display_blackboard(bb, &msg),
        || apex::intra::blackboard::read_blackboard(bb, 0, &mut out).map(|_| ()),
    );
    let mut out = [0u8; 64];
    o.two(
        ("SEND_BUFFER", "RECEIVE_BUFFER"),
        ("16 bytes, room, time-out 0", "1 message, time-out 0"),
        || apex::intra::buffer::send_buffer(buf, &msg, 0),
        || apex::intra::buffer::receive_buffer(buf, 0, &mut out).map(|_| ()),
    );
    o.two(
        ("ACQUIRE_MUTEX", "RELEASE_MUTEX"),
        ("free, time-out 0", ""),
        || apex::intra::mutex::acquire_mutex(mtx, 0),
        || apex::intra::mutex::release_mutex(mtx),
    );
    o.two(
        ("LOCK_PREEMPTION", "UNLOCK_PREEMPTION"),
        ("level 0 -> 1", "level 1 -> 0"),
        apex::process::lock_preemption,
        apex::process::unlock_preemption,
    );
    let text = b"partita bench apex";
    o.one(
        "REPORT_APPLICATION_MESSAGE",
        false,
        "18 bytes: one write(2) to the report pipe",
        || apex::hm::report_application_message(text),
        // Lets the manager drain the pipe: a full pipe would block the calls.
        |i| {
            if i % REPORT_BATCH == 0 {
                std::thread::sleep(REPORT_PAUSE);
            }
        },
    );

    // Hand-offs: semaphore, then event. The partner (higher priority) waits; each waking call
    // preempts us, the partner records its first instant and blocks again, which resumes us.
    let need = (n + WARMUP) as u64;
    let limit = (n + WARMUP) * 4;
    let mut block = [Samples::new(limit), Samples::new(limit)];
    for (k, phase) in [PH_SEM, PH_EVT].into_iter().enumerate() {
        let b = &mut block[k];
        let mut sent = 0;
        while (sh.kept[k].load(Ordering::Acquire) < need || (b.v.len() as u64) < need)
            && sent < limit
        {
            sent += 1;
            sh.t0.store(now(), Ordering::Release);
            let r = if phase == PH_SEM {
                apex::intra::semaphore::signal_semaphore(hsem)
            } else {
                apex::intra::event::set_event(hev)
            };
            let t2 = now();
            b.add(&g, sh.tb.load(Ordering::Acquire), t2, r);
        }
        // Moves the partner on to the next phase (or to its final sleep).
        sh.phase.store(phase + 1, Ordering::Release);
        let _ = if phase == PH_SEM {
            apex::intra::semaphore::signal_semaphore(hsem)
        } else {
            apex::intra::event::set_event(hev)
        };
    }
    // The partner now sleeps for good and has released `wake`.
    let labels = [
        (
            "SIGNAL_SEMAPHORE -> WAIT_SEMAPHORE",
            "WAIT_SEMAPHORE -> SIGNAL_SEMAPHORE",
        ),
        ("SET_EVENT -> WAIT_EVENT", "WAIT_EVENT -> SET_EVENT"),
    ];
    for (k, b) in block.iter_mut().enumerate() {
        let wake = std::mem::take(&mut *sh.wake[k].lock().unwrap_or_else(|e| e.into_inner()));
        let mut w = Samples::new(wake.len());
        for (t0, t1) in wake {
            w.add::<()>(&g, t0, t1, Ok(()));
        }
        let wf = w.figures(WARMUP, o.pair);
        // The first block sample spans the partner's start: part of the warm-up.
        let bf = b.figures(WARMUP, o.pair);
        if let Some(e) = b.first_error {
            o.res.notes.push(format!(
                "{}: {} calls failed (first: {e:?})",
                labels[k].0, b.errors
            ));
        }
        o.res.handoffs.push(HandoffResult {
            label: labels[k].0.into(),
            wake: true,
            figures: wf,
            dropped: w.dropped,
        });
        o.res.handoffs.push(HandoffResult {
            label: labels[k].1.into(),
            wake: false,
            figures: bf,
            dropped: b.dropped,
        });
    }
    Ok(o.res)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_keeps_samples_inside_the_window() {
        let g = Guard {
            epoch: 1_000,
            frame: 10_000,
            lo: 100,
            hi: 8_000,
        };
        assert!(g.ok(1_000 + 200, 1_000 + 7_000));
        assert!(g.ok(1_000 + 10_200, 1_000 + 10_300));
        // Too close to the start, past the switcher's wake-up, across frames, before time 0.
        assert!(!g.ok(1_000 + 50, 1_000 + 500));
        assert!(!g.ok(1_000 + 7_900, 1_000 + 8_100));
        assert!(!g.ok(1_000 + 7_000, 1_000 + 10_200));
        assert!(!g.ok(500, 1_200));
    }
}
