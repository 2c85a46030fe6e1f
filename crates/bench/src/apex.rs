//! `partita bench apex`: per-call latency of the non-blocking APEX services and the cost of a
//! process switch inside a partition, against a bare futex hand-off measured in the same run.
//!
//! The bench builds a one-partition [`ModulePlan`] whose partition is the `partita` binary
//! itself (`partita __bench-apex-partition`, [`apex_partition_main`]), run by the partition
//! manager. The partition measures with `partita_sys::time::monotonic_ns` around every call,
//! computes the figures and writes them as JSON into a file under `/dev/shm`, which the bench
//! reads. The bare floor (two plain threads of the bench process, pinned to the same core at the
//! partitions' `SCHED_FIFO` priority, handing off through a futex) is measured by the bench
//! itself before the partition runs. See `docs/benchmarks.md`.

use crate::stats::Figures;
use crate::switch::Machine;
use crate::BenchError;
use partita_apex::api;
use partita_apex::core::{OperatingMode, QueuingDiscipline, ReturnCode};
use partita_manager::{ModulePlan, PartitionSpec, RunOptions};
use partita_schedule::{FramePlan, Window};
use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Major frame of the one-partition plan.
const MAJOR_FRAME_NS: u64 = 10_000_000;
/// The partition's window, at offset 0: 1 ms of every frame stays free of real-time work
/// (real-time throttling needs 5 % of the core, and the switcher's spin counts).
const WINDOW_NS: u64 = 9_000_000;
/// Samples that begin less than this after the window start, or end less than this before the
/// switcher wakes (window end less the spin margin), are dropped: the switcher's work at the
/// boundaries is not the service's.
const EDGE_GUARD_NS: u64 = 20_000;
/// Calls per service (and hand-offs per kind): full run and `--quick`.
const CALLS_FULL: usize = 100_000;
const CALLS_QUICK: usize = 10_000;
/// Discarded calls (or hand-offs) before each measurement.
const WARMUP: usize = 1_000;
/// Upper bound on a run of the partition.
const RUN_LIMIT: Duration = Duration::from_secs(100);
/// Priority of the measuring process (the low-priority side of the hand-offs).
const LOW_PRIORITY: i32 = 10;
/// Priority of the process woken by the hand-offs.
const HIGH_PRIORITY: i32 = 20;
/// Ceiling of the benchmark mutex.
const MUTEX_CEILING: i32 = 50;
/// Stack of both benchmark processes.
const STACK: u64 = 256 * 1024;
/// REPORT_APPLICATION_MESSAGE: the measuring process sleeps this long (outside APEX, untimed)
/// after every `REPORT_BATCH` messages so that the manager drains the report pipe and a full
/// pipe never blocks a measured call.
const REPORT_BATCH: usize = 256;
const REPORT_PAUSE: Duration = Duration::from_millis(2);
/// The bare hand-off sleeps this long every `BARE_BATCH` hand-offs (keeps real-time throttling
/// away: the ping-pong is otherwise 100 % real-time work on the core).
const BARE_BATCH: usize = 1_000;
const BARE_PAUSE: Duration = Duration::from_millis(1);
/// Identity and status services: median target.
const QUERY_TARGET_NS: i64 = 100;
/// Hand-offs: factor over the bare futex hand-off.
const HANDOFF_FACTOR: f64 = 1.5;

/// What to run.
#[derive(Debug, Clone, Default)]
pub struct ApexOptions {
    /// 10,000 calls per service instead of 100,000.
    pub quick: bool,
}

/// Latency of one service.
#[derive(Debug, Clone, Serialize)]
pub struct ServiceFigures {
    /// The APEX service.
    pub service: String,
    /// `query` (identity and status services, under the 100 ns target) or `operation`.
    pub kind: &'static str,
    /// What was measured, when not obvious.
    pub condition: String,
    /// Per-call latency, ns, less the median cost of an empty timing pair.
    pub figures: Figures,
    /// Calls dropped because they touched a window edge.
    pub dropped: u64,
    /// Calls that returned an error.
    pub errors: u64,
}

/// One hand-off measure.
#[derive(Debug, Clone, Serialize)]
pub struct HandoffFigures {
    /// `bare` (futex, plain threads) or `partita` (APEX processes).
    pub kind: &'static str,
    /// `wake`: from just before the waking call to the first instruction of the woken thread;
    /// `block`: from just before the blocking call of the woken thread to the first
    /// instruction of the waker (the switch back).
    pub direction: &'static str,
    /// A short label.
    pub label: String,
    /// ns, less the median cost of an empty timing pair.
    pub figures: Figures,
    /// Hand-offs dropped because they touched a window edge.
    pub dropped: u64,
}

/// One target check.
#[derive(Debug, Clone, Serialize)]
pub struct ApexCheck {
    /// Which target.
    pub target: &'static str,
    /// The service or hand-off, and the statistic.
    pub figure: String,
    /// Our value, ns.
    pub value: i64,
    /// The limit (absolute target) or the bare figure, ns.
    pub reference: i64,
    /// value / reference (hand-offs).
    pub ratio: Option<f64>,
    /// Met.
    pub pass: bool,
}

/// The set-up every figure comes from.
#[derive(Debug, Clone, Serialize)]
pub struct ApexPlan {
    /// Core of the partition and of the bare threads.
    pub core: u32,
    /// Major frame, ns.
    pub major_frame_ns: u64,
    /// The partition's window (offset 0), ns.
    pub window_ns: u64,
    /// The manager's spin margin, ns.
    pub spin_margin_ns: u64,
    /// Samples closer than this to a window edge are dropped, ns.
    pub edge_guard_ns: u64,
    /// Partition-switch backend the manager used.
    pub backend: String,
    /// Whether the runtime lowers a parked process thread's priority (control block).
    pub park_lowering: Option<bool>,
    /// Calls per service and hand-offs per kind (after warm-up).
    pub calls: usize,
    /// Priorities: measuring (low) and woken (high) APEX processes.
    pub priorities: (i32, i32),
    /// `SCHED_FIFO` priority of designated APEX threads and of the bare threads.
    pub fifo_priority: i32,
}

/// Everything `bench apex` measured.
#[derive(Debug, Clone, Serialize)]
pub struct ApexReport {
    /// Report format.
    pub format: &'static str,
    /// Unix time of the start, s.
    pub started_unix: u64,
    /// Wall time of the whole bench, s.
    pub elapsed_s: f64,
    /// Machine.
    pub machine: Machine,
    /// `git rev-parse HEAD`, or `unknown`.
    pub git_revision: String,
    /// Whether the work tree had uncommitted changes to tracked files.
    pub git_dirty: Option<bool>,
    /// Quick run.
    pub quick: bool,
    /// The set-up.
    pub plan: ApexPlan,
    /// Raw cost of an empty timing pair inside the partition, ns (its median is subtracted
    /// from every partition figure).
    pub timing_pair: Figures,
    /// The same in the bench process (subtracted from the bare figures).
    pub bare_timing_pair: Figures,
    /// Per-call latency of every service.
    pub services: Vec<ServiceFigures>,
    /// Hand-offs: bare first, then semaphore and event.
    pub handoffs: Vec<HandoffFigures>,
    /// Target checks.
    pub checks: Vec<ApexCheck>,
    /// Errors and remarks.
    pub notes: Vec<String>,
}

/// Target texts.
pub(crate) const T_QUERY: &str = "identity and status services under 100 ns median";
pub(crate) const T_HANDOFF: &str =
    "semaphore/event hand-off median and p99 within 1.5x of the bare futex hand-off";

// ---------------------------------------------------------------------------------------------
// Wire format between the partition and the bench
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
struct WireFigures {
    count: u64,
    min: i64,
    median: i64,
    p99: i64,
    p999: i64,
    max: i64,
    mean: i64,
}

impl From<Figures> for WireFigures {
    fn from(f: Figures) -> Self {
        WireFigures {
            count: f.count,
            min: f.min,
            median: f.median,
            p99: f.p99,
            p999: f.p999,
            max: f.max,
            mean: f.mean,
        }
    }
}

impl From<WireFigures> for Figures {
    fn from(f: WireFigures) -> Self {
        Figures {
            count: f.count,
            min: f.min,
            median: f.median,
            p99: f.p99,
            p999: f.p999,
            max: f.max,
            mean: f.mean,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct WireService {
    service: String,
    query: bool,
    condition: String,
    figures: WireFigures,
    dropped: u64,
    errors: u64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct WireResult {
    /// Set-up failure.
    error: Option<String>,
    pair: WireFigures,
    services: Vec<WireService>,
    /// (label, direction, figures, dropped)
    handoffs: Vec<(String, String, WireFigures, u64)>,
    park_lowering: Option<bool>,
    notes: Vec<String>,
}

fn write_result(path: &Path, r: &WireResult) {
    let tmp = path.with_extension("tmp");
    let text = serde_json::to_string(r).unwrap_or_else(|e| {
        format!("{{\"error\":\"encoding the results: {e}\",\"pair\":{{\"count\":0,\"min\":0,\"median\":0,\"p99\":0,\"p999\":0,\"max\":0,\"mean\":0}},\"services\":[],\"handoffs\":[],\"park_lowering\":null,\"notes\":[]}}")
    });
    if std::fs::write(&tmp, text).is_ok() {
        let _ = std::fs::rename(&tmp, path);
    }
}

// ---------------------------------------------------------------------------------------------
// Partition side
// ---------------------------------------------------------------------------------------------

#[inline(always)]
fn now() -> i64 {
    partita_sys::time::monotonic_ns() as i64
}

/// Which samples are kept: both ends inside the same window, away from its edges.
#[derive(Debug, Clone, Copy)]
struct Guard {
    /// `CLOCK_MONOTONIC` instant of APEX time 0 (the first major frame's start).
    epoch: i64,
    frame: i64,
    lo: i64,
    hi: i64,
}

impl Guard {
    fn ok(&self, t0: i64, t1: i64) -> bool {
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
    res: WireResult,
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
        self.res.services.push(WireService {
            service: service.into(),
            query,
            condition: condition.into(),
            figures: figures.into(),
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

fn parg<T: std::str::FromStr>(args: &[String], i: usize, what: &str) -> Result<T, String> {
    args.get(i)
        .ok_or_else(|| format!("missing argument {i} ({what})"))?
        .parse()
        .map_err(|_| format!("argument {i} ({what}) is not valid: {:?}", args[i]))
}

/// Entry point of the benchmark partition, run by the partition manager as
/// `partita __bench-apex-partition RESULT CALLS MAJOR_FRAME_NS WINDOW_NS SPIN_MARGIN_NS
/// GUARD_NS` (`args` are the words after `__bench-apex-partition`).
///
/// The main process creates one object of each kind and two processes: the measuring process
/// (priority 10) and the hand-off partner (priority 20), then enters NORMAL. The partner
/// blocks in WAIT_SEMAPHORE at once; the measuring process times `CALLS` calls of every
/// non-blocking service, then drives `CALLS` semaphore hand-offs and `CALLS` event hand-offs
/// with the partner, and writes the figures as JSON to `RESULT` (a file under `/dev/shm`; a
/// set-up error is written there too). Returns 1 only on bad arguments.
pub fn apex_partition_main(args: &[String]) -> i32 {
    let path: String = match parg(args, 0, "result file") {
        Ok(p) => p,
        Err(e) => {
            eprintln!("partita __bench-apex-partition: {e}");
            return 1;
        }
    };
    let path = PathBuf::from(path);
    if let Err(e) = apex_partition(args, &path) {
        eprintln!("partita __bench-apex-partition: {e}");
        write_result(
            &path,
            &WireResult {
                error: Some(e),
                ..WireResult::default()
            },
        );
    }
    // Once in NORMAL mode the main thread never comes back here.
    0
}

fn apex_partition(args: &[String], path: &Path) -> Result<(), String> {
    let n: usize = parg(args, 1, "calls")?;
    let frame: i64 = parg(args, 2, "major frame")?;
    let window: i64 = parg(args, 3, "window")?;
    let margin: i64 = parg(args, 4, "spin margin")?;
    let guard_ns: i64 = parg(args, 5, "edge guard")?;
    let rt = partita_apex::runtime::get().map_err(|e| {
        format!(
            "runtime: {e:?} ({})",
            partita_apex::runtime::init_error().unwrap_or_default()
        )
    })?;
    fn err(what: &'static str) -> impl Fn(ReturnCode) -> String {
        move |e| format!("{what}: {e:?}")
    }
    let fifo = QueuingDiscipline::Fifo;
    let sem = api::create_semaphore(&api::name("bench-sem"), 0, 1, fifo)
        .map_err(err("CREATE_SEMAPHORE"))?;
    let hsem = api::create_semaphore(&api::name("handoff-sem"), 0, 1, fifo)
        .map_err(err("CREATE_SEMAPHORE"))?;
    let hold = api::create_semaphore(&api::name("hold-sem"), 0, 1, fifo)
        .map_err(err("CREATE_SEMAPHORE"))?;
    let ev = api::create_event(&api::name("bench-event")).map_err(err("CREATE_EVENT"))?;
    let hev = api::create_event(&api::name("handoff-event")).map_err(err("CREATE_EVENT"))?;
    let buf = api::create_buffer(&api::name("bench-buffer"), 64, 4, fifo)
        .map_err(err("CREATE_BUFFER"))?;
    let bb = api::create_blackboard(&api::name("bench-blackboard"), 64)
        .map_err(err("CREATE_BLACKBOARD"))?;
    let mtx = api::create_mutex(&api::name("bench-mutex"), MUTEX_CEILING, fifo)
        .map_err(err("CREATE_MUTEX"))?;
    let park_lowering = match std::env::var("PARTITA_PARK_LOWERING").ok().as_deref() {
        Some("0") => Some(false),
        Some("1") => Some(true),
        _ => rt
            .control()
            .map(|c| c.park_lowering.load(Ordering::Acquire) != 0),
    };
    // APEX time 0 on the monotonic clock.
    let epoch = now() - rt.now();
    let g = Guard {
        epoch,
        frame,
        lo: guard_ns,
        hi: window - margin - guard_ns,
    };
    let sh = Arc::new(Shared {
        phase: AtomicU32::new(PH_SEM),
        t0: AtomicI64::new(0),
        tb: AtomicI64::new(0),
        wake: [Mutex::new(Vec::new()), Mutex::new(Vec::new())],
        kept: [AtomicU64::new(0), AtomicU64::new(0)],
        errors: Mutex::new(Vec::new()),
    });
    let attrs = |name: &str, prio: i32| api::Attributes {
        name: api::name(name),
        entry: 0,
        stack_size: STACK,
        base_priority: prio,
        period: api::INFINITE_TIME_VALUE,
        time_capacity: api::INFINITE_TIME_VALUE,
        deadline: api::DeadlineType::Soft,
    };

    // The partner: woken by the measuring process, records the instant it runs.
    let total = n + WARMUP;
    let h = sh.clone();
    let partner = api::create_process(&attrs("partner", HIGH_PRIORITY), move || {
        let note = |s: String| h.errors.lock().unwrap_or_else(|e| e.into_inner()).push(s);
        for (k, phase) in [PH_SEM, PH_EVT].into_iter().enumerate() {
            let mut wake = h.wake[k].lock().unwrap_or_else(|e| e.into_inner());
            wake.reserve(total * 4);
            loop {
                let r = if phase == PH_SEM {
                    h.tb.store(now(), Ordering::Release);
                    api::wait_semaphore(hsem, api::INFINITE_TIME_VALUE)
                } else {
                    if let Err(e) = api::reset_event(hev) {
                        note(format!("RESET_EVENT (hand-off): {e:?}"));
                    }
                    h.tb.store(now(), Ordering::Release);
                    api::wait_event(hev, api::INFINITE_TIME_VALUE)
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
        let _ = api::wait_semaphore(hold, api::INFINITE_TIME_VALUE);
    })
    .map_err(err("CREATE_PROCESS (partner)"))?;

    let m = sh.clone();
    let path2 = path.to_path_buf();
    let measure = api::create_process(&attrs("measure", LOW_PRIORITY), move || {
        // Let the main thread become the APEX timer thread first (see `partition_main`).
        std::thread::sleep(Duration::from_millis(1));
        let r = measure(n, g, &m, (sem, hsem, ev, hev, buf, bb, mtx));
        let mut r = match r {
            Ok(r) => r,
            Err(e) => WireResult {
                error: Some(e),
                ..WireResult::default()
            },
        };
        r.park_lowering = park_lowering;
        r.notes
            .extend(m.errors.lock().unwrap_or_else(|e| e.into_inner()).drain(..));
        write_result(&path2, &r);
        let _ = api::wait_semaphore(hold, api::INFINITE_TIME_VALUE);
    })
    .map_err(err("CREATE_PROCESS (measure)"))?;
    api::start(partner).map_err(err("START (partner)"))?;
    api::start(measure).map_err(err("START (measure)"))?;
    api::set_partition_mode(OperatingMode::Normal).map_err(err("SET_PARTITION_MODE"))
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

fn empty_pair(n: usize) -> Figures {
    let mut v = Vec::with_capacity(n);
    for _ in 0..WARMUP {
        std::hint::black_box(now());
    }
    for _ in 0..n {
        let t0 = now();
        let t1 = now();
        v.push(t1 - t0);
    }
    Figures::of(&mut v)
}

/// The measuring process.
fn measure(n: usize, g: Guard, sh: &Shared, objs: Objects) -> Result<WireResult, String> {
    let (sem, hsem, ev, hev, buf, bb, mtx) = objs;
    let pair = empty_pair(n);
    let mut o = Out {
        g,
        n,
        pair: pair.median,
        res: WireResult {
            pair: pair.into(),
            ..WireResult::default()
        },
        a: Samples::new(n * 4),
        b: Samples::new(n * 4),
    };
    let me = api::get_my_id().map_err(|e| format!("GET_MY_ID: {e:?}"))?;
    let my_name = api::name("measure");

    // Identity and status services.
    o.one("GET_TIME", true, "", api::get_time, |_| {});
    o.one("GET_MY_ID", true, "", api::get_my_id, |_| {});
    o.one(
        "GET_PARTITION_STATUS",
        true,
        "",
        api::get_partition_status,
        |_| {},
    );
    o.one(
        "GET_PROCESS_ID",
        true,
        "own name, 2 processes",
        || api::get_process_id(&my_name),
        |_| {},
    );
    o.one(
        "GET_PROCESS_STATUS",
        true,
        "own id",
        || api::get_process_status(me),
        |_| {},
    );
    o.one("GET_MY_INDEX", true, "", api::get_my_index, |_| {});
    o.one(
        "GET_MY_PROCESSOR_CORE_ID",
        true,
        "",
        api::get_my_processor_core_id,
        |_| {},
    );
    let names = [
        api::name("bench-sem"),
        api::name("bench-event"),
        api::name("bench-buffer"),
        api::name("bench-blackboard"),
        api::name("bench-mutex"),
    ];
    o.one(
        "GET_SEMAPHORE_ID",
        true,
        "3 semaphores",
        || api::get_semaphore_id(&names[0]),
        |_| {},
    );
    o.one(
        "GET_SEMAPHORE_STATUS",
        true,
        "",
        || api::get_semaphore_status(sem),
        |_| {},
    );
    o.one(
        "GET_EVENT_ID",
        true,
        "2 events",
        || api::get_event_id(&names[1]),
        |_| {},
    );
    o.one(
        "GET_EVENT_STATUS",
        true,
        "",
        || api::get_event_status(ev),
        |_| {},
    );
    o.one(
        "GET_BUFFER_ID",
        true,
        "",
        || api::get_buffer_id(&names[2]),
        |_| {},
    );
    o.one(
        "GET_BUFFER_STATUS",
        true,
        "",
        || api::get_buffer_status(buf),
        |_| {},
    );
    o.one(
        "GET_BLACKBOARD_ID",
        true,
        "",
        || api::get_blackboard_id(&names[3]),
        |_| {},
    );
    o.one(
        "GET_BLACKBOARD_STATUS",
        true,
        "",
        || api::get_blackboard_status(bb),
        |_| {},
    );
    o.one(
        "GET_MUTEX_ID",
        true,
        "",
        || api::get_mutex_id(&names[4]),
        |_| {},
    );
    o.one(
        "GET_MUTEX_STATUS",
        true,
        "",
        || api::get_mutex_status(mtx),
        |_| {},
    );

    // Operations that do not block.
    o.two(
        ("SIGNAL_SEMAPHORE", "WAIT_SEMAPHORE"),
        ("nobody waiting", "available, time-out 0"),
        || api::signal_semaphore(sem),
        || api::wait_semaphore(sem, 0),
    );
    o.two(
        ("SET_EVENT", "RESET_EVENT"),
        ("nobody waiting", ""),
        || api::set_event(ev),
        || api::reset_event(ev),
    );
    let msg = [0x5au8; 16];
    let mut out = [0u8; 64];
    o.two(
        ("DISPLAY_BLACKBOARD", "READ_BLACKBOARD"),
        ("16 bytes", "non-empty, time-out 0"),
        || api::display_blackboard(bb, &msg),
        || api::read_blackboard(bb, 0, &mut out).map(|_| ()),
    );
    let mut out = [0u8; 64];
    o.two(
        ("SEND_BUFFER", "RECEIVE_BUFFER"),
        ("16 bytes, room, time-out 0", "1 message, time-out 0"),
        || api::send_buffer(buf, &msg, 0),
        || api::receive_buffer(buf, 0, &mut out).map(|_| ()),
    );
    o.two(
        ("ACQUIRE_MUTEX", "RELEASE_MUTEX"),
        ("free, time-out 0", ""),
        || api::acquire_mutex(mtx, 0),
        || api::release_mutex(mtx),
    );
    o.two(
        ("LOCK_PREEMPTION", "UNLOCK_PREEMPTION"),
        ("level 0 -> 1", "level 1 -> 0"),
        api::lock_preemption,
        api::unlock_preemption,
    );
    let text = b"partita bench apex";
    o.one(
        "REPORT_APPLICATION_MESSAGE",
        false,
        "18 bytes: one write(2) to the report pipe",
        || api::report_application_message(text),
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
                api::signal_semaphore(hsem)
            } else {
                api::set_event(hev)
            };
            let t2 = now();
            b.add(&g, sh.tb.load(Ordering::Acquire), t2, r);
        }
        // Moves the partner on to the next phase (or to its final sleep).
        sh.phase.store(phase + 1, Ordering::Release);
        let _ = if phase == PH_SEM {
            api::signal_semaphore(hsem)
        } else {
            api::set_event(hev)
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
        o.res
            .handoffs
            .push((labels[k].0.into(), "wake".into(), wf.into(), w.dropped));
        o.res
            .handoffs
            .push((labels[k].1.into(), "block".into(), bf.into(), b.dropped));
    }
    Ok(o.res)
}

// ---------------------------------------------------------------------------------------------
// The bare floor: two plain threads, one futex each way
// ---------------------------------------------------------------------------------------------

struct BareShared {
    /// Bumped by the driver to wake the echo thread.
    ping: AtomicU32,
    /// Bumped by the echo thread to wake the driver.
    pong: AtomicU32,
    t0: AtomicI64,
    tb: AtomicI64,
    stop: AtomicBool,
}

fn rt_thread(core: u32) -> Result<(), String> {
    let tid = partita_sys::sched::gettid();
    partita_sys::sched::set_affinity(tid, &[core]).map_err(|e| e.to_string())?;
    partita_sys::sched::set_fifo(0, partita_manager::PARTITION_RUN_PRIORITY)
        .map_err(|e| e.to_string())
}

/// Wake and block hand-offs between two threads of the bench process pinned to `core` at the
/// partitions' `SCHED_FIFO` priority. Returns (timing pair, wake, block, notes).
fn run_bare(core: u32, n: usize) -> (Figures, Figures, Figures, Vec<String>) {
    let sh = Arc::new(BareShared {
        ping: AtomicU32::new(0),
        pong: AtomicU32::new(0),
        t0: AtomicI64::new(0),
        tb: AtomicI64::new(0),
        stop: AtomicBool::new(false),
    });
    let total = n + WARMUP;
    let mut notes = Vec::new();
    let e = sh.clone();
    let echo = std::thread::Builder::new().name("bench-echo".into()).spawn(
        move || -> (Vec<i64>, Option<String>) {
            let err = rt_thread(core).err();
            let mut wake = Vec::with_capacity(total);
            let mut seen = 0u32;
            loop {
                let mut v = e.ping.load(Ordering::Acquire);
                while v == seen {
                    partita_sys::futex::wait(&e.ping, seen, None, false);
                    v = e.ping.load(Ordering::Acquire);
                }
                let t1 = now();
                if e.stop.load(Ordering::Acquire) {
                    break;
                }
                seen = v;
                wake.push(t1 - e.t0.load(Ordering::Acquire));
                e.tb.store(now(), Ordering::Release);
                e.pong.fetch_add(1, Ordering::Release);
                partita_sys::futex::wake(&e.pong, 1, false);
            }
            (wake, err)
        },
    );
    let echo = match echo {
        Ok(h) => h,
        Err(e) => {
            notes.push(format!("bare hand-off: cannot create a thread: {e}"));
            return (
                Figures::default(),
                Figures::default(),
                Figures::default(),
                notes,
            );
        }
    };
    let d = sh.clone();
    let driver = std::thread::Builder::new()
        .name("bench-driver".into())
        .spawn(move || -> (Figures, Vec<i64>, Option<String>) {
            let err = rt_thread(core).err();
            // Let the echo thread reach its first wait.
            std::thread::sleep(Duration::from_millis(5));
            let pair = empty_pair(n);
            let mut block = Vec::with_capacity(total);
            for i in 0..total {
                if i % BARE_BATCH == 0 {
                    std::thread::sleep(BARE_PAUSE);
                }
                let want = d.pong.load(Ordering::Acquire) + 1;
                d.t0.store(now(), Ordering::Release);
                d.ping.fetch_add(1, Ordering::Release);
                partita_sys::futex::wake(&d.ping, 1, false);
                let mut v = d.pong.load(Ordering::Acquire);
                while v != want {
                    partita_sys::futex::wait(&d.pong, v, None, false);
                    v = d.pong.load(Ordering::Acquire);
                }
                let t2 = now();
                block.push(t2 - d.tb.load(Ordering::Acquire));
            }
            d.stop.store(true, Ordering::Release);
            d.ping.fetch_add(1, Ordering::Release);
            partita_sys::futex::wake(&d.ping, 1, false);
            (pair, block, err)
        });
    let (pair, block, derr) = match driver.map(|h| h.join()) {
        Ok(Ok(r)) => r,
        _ => {
            // The echo thread is left waiting; wake it up for good.
            sh.stop.store(true, Ordering::Release);
            sh.ping.fetch_add(1, Ordering::Release);
            partita_sys::futex::wake(&sh.ping, 1, false);
            let _ = echo.join();
            notes.push("bare hand-off: the driving thread failed".into());
            return (
                Figures::default(),
                Figures::default(),
                Figures::default(),
                notes,
            );
        }
    };
    let (wake, eerr) = echo.join().unwrap_or_default();
    if let Some(e) = derr.or(eerr) {
        notes.push(format!(
            "bare hand-off threads without SCHED_FIFO on core {core}: {e}"
        ));
    }
    let fig = |v: &[i64]| {
        let mut v: Vec<i64> = v.iter().skip(WARMUP).map(|x| x - pair.median).collect();
        Figures::of(&mut v)
    };
    (pair, fig(&wake), fig(&block), notes)
}

// ---------------------------------------------------------------------------------------------
// Bench side
// ---------------------------------------------------------------------------------------------

fn machine() -> Machine {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu_model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    let read = |p: &str| {
        std::fs::read_to_string(p)
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|_| "unknown".into())
    };
    Machine {
        cpu_model,
        cores: partita_sys::sched::online_cpus(),
        kernel: read("/proc/sys/kernel/osrelease"),
        rt_throttle: partita_sys::sched::rt_throttling(),
        clocksource: read("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
    }
}

fn git(args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("git")
        .args(args)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Removes a file on drop.
struct Remove(PathBuf);

impl Drop for Remove {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
        let _ = std::fs::remove_file(self.0.with_extension("tmp"));
    }
}

/// Removes a directory tree on drop.
struct RemoveDir(PathBuf);

impl Drop for RemoveDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the partition; returns its results, the backend used and notes.
fn run_partition(
    core: u32,
    n: usize,
    margin: Duration,
    stop: &Arc<AtomicBool>,
) -> Result<(WireResult, String, Vec<String>), BenchError> {
    let tag = format!(
        "{}-{}",
        partita_sys::sched::getpid(),
        partita_sys::time::monotonic_ns()
    );
    let result = Remove(PathBuf::from(format!(
        "/dev/shm/partita-bench-apex-{tag}.json"
    )));
    let logs = RemoveDir(std::env::temp_dir().join(format!("partita-bench-apex-{tag}")));
    let exe = std::env::current_exe()
        .map_err(|e| BenchError::Unavailable(format!("own executable: {e}")))?;
    let plan = ModulePlan {
        name: "bench-apex".into(),
        frame: FramePlan {
            major_frame: MAJOR_FRAME_NS,
            windows: vec![Window {
                id: 1,
                partition: 0,
                core,
                offset: 0,
                duration: WINDOW_NS,
                period_start: true,
            }],
        },
        partitions: vec![PartitionSpec {
            name: "P".into(),
            id: 1,
            executable: exe,
            args: vec![
                OsString::from("__bench-apex-partition"),
                result.0.as_os_str().to_owned(),
                n.to_string().into(),
                MAJOR_FRAME_NS.to_string().into(),
                WINDOW_NS.to_string().into(),
                (margin.as_nanos() as u64).to_string().into(),
                EDGE_GUARD_NS.to_string().into(),
            ],
            cpus: vec![core],
            memory_limit: None,
            max_processes: 0,
            stack_bytes: 0,
            period: MAJOR_FRAME_NS,
            duration: WINDOW_NS,
            system: false,
            edf: false,
        }],
    };
    let run_stop = Arc::new(AtomicBool::new(false));
    let opts = RunOptions {
        duration: Some(RUN_LIMIT),
        echo: false,
        log_dir: Some(logs.0.clone()),
        stop: Some(run_stop.clone()),
        spin_margin: margin,
        // The runtime's override of the manager's park-lowering choice, passed through.
        env: std::env::var("PARTITA_PARK_LOWERING")
            .map(|v| vec![("PARTITA_PARK_LOWERING".to_string(), v)])
            .unwrap_or_default(),
        ..RunOptions::default()
    };
    let done = AtomicBool::new(false);
    let report = std::thread::scope(|sc| {
        sc.spawn(|| {
            while !done.load(Ordering::Acquire) {
                if stop.load(Ordering::Relaxed) || result.0.exists() {
                    run_stop.store(true, Ordering::Release);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        let r = partita_manager::run(&plan, &opts);
        done.store(true, Ordering::Release);
        r
    })?;
    if stop.load(Ordering::Relaxed) {
        return Err(BenchError::Interrupted);
    }
    let mut notes: Vec<String> = report
        .notes
        .iter()
        .filter(|n| !n.contains("throttling is on"))
        .cloned()
        .collect();
    if !report.realtime {
        notes.push("the manager ran without real-time priorities".into());
    }
    for l in &report.leftovers {
        notes.push(format!("left behind: {l}"));
    }
    for p in &report.partitions {
        if let Some(e) = &p.exec_error {
            notes.push(format!("partition {} could not start: {e}", p.name));
        }
        if let Some(e) = &p.exit {
            notes.push(format!("partition {} ended early: {e}", p.name));
        }
    }
    if let Some(c) = report.cores.iter().find(|c| c.core == core) {
        notes.extend(c.errors.iter().take(10).cloned());
    }
    let text = std::fs::read_to_string(&result.0).map_err(|e| {
        let log = std::fs::read_to_string(logs.0.join("P.log")).unwrap_or_default();
        let tail: Vec<&str> = log
            .lines()
            .filter(|l| l.starts_with("stderr: "))
            .take(10)
            .collect();
        BenchError::Unavailable(format!(
            "the partition wrote no results ({e}){}{}",
            if tail.is_empty() {
                ""
            } else {
                "; its stderr: "
            },
            tail.join(" / ")
        ))
    })?;
    let r: WireResult = serde_json::from_str(&text).map_err(|e| BenchError::Io {
        path: result.0.clone(),
        source: e.into(),
    })?;
    if let Some(e) = &r.error {
        return Err(BenchError::Unavailable(format!(
            "the partition failed: {e}"
        )));
    }
    Ok((r, report.backend.to_string(), notes))
}

/// Runs the benchmark. `progress` receives a line per step as it finishes.
pub fn run_apex(
    opts: &ApexOptions,
    stop: Arc<AtomicBool>,
    mut progress: impl FnMut(&str),
) -> Result<ApexReport, BenchError> {
    if !partita_sys::proc::is_root() {
        return Err(BenchError::Unavailable(
            "the benchmark needs root (cgroups, SCHED_FIFO)".into(),
        ));
    }
    let t0 = std::time::Instant::now();
    let git_revision = git(&["rev-parse", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let git_dirty = git(&["status", "--porcelain", "--untracked-files=no"]).map(|s| !s.is_empty());
    let started_unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let core = if partita_sys::sched::online_cpus() > 1 {
        1
    } else {
        0
    };
    let n = if opts.quick { CALLS_QUICK } else { CALLS_FULL };
    let margin = RunOptions::default().spin_margin;
    let _ = partita_sys::sched::lock_memory();
    progress(&format!(
        "{n} calls per service and {n} hand-offs per kind on core {core}"
    ));
    let (bare_pair, bare_wake, bare_block, mut notes) = run_bare(core, n);
    progress(&format!(
        "bare futex hand-off: wake median {} ns, block median {} ns",
        bare_wake.median, bare_block.median
    ));
    if stop.load(Ordering::Relaxed) {
        return Err(BenchError::Interrupted);
    }
    let (r, backend, run_notes) = run_partition(core, n, margin, &stop)?;
    notes.extend(run_notes);
    notes.extend(r.notes.iter().cloned());
    progress(&format!(
        "partition ({backend}): {} services, {} hand-off figures",
        r.services.len(),
        r.handoffs.len()
    ));
    let services: Vec<ServiceFigures> = r
        .services
        .iter()
        .map(|s| ServiceFigures {
            service: s.service.clone(),
            kind: if s.query { "query" } else { "operation" },
            condition: s.condition.clone(),
            figures: s.figures.into(),
            dropped: s.dropped,
            errors: s.errors,
        })
        .collect();
    let mut handoffs = vec![
        HandoffFigures {
            kind: "bare",
            direction: "wake",
            label: "futex wake -> waiter".into(),
            figures: bare_wake,
            dropped: 0,
        },
        HandoffFigures {
            kind: "bare",
            direction: "block",
            label: "futex wait -> waker".into(),
            figures: bare_block,
            dropped: 0,
        },
    ];
    for (label, dir, f, d) in &r.handoffs {
        handoffs.push(HandoffFigures {
            kind: "partita",
            direction: if dir == "wake" { "wake" } else { "block" },
            label: label.clone(),
            figures: (*f).into(),
            dropped: *d,
        });
    }
    let checks = checks(&services, &handoffs);
    Ok(ApexReport {
        format: "partita-bench-apex/1",
        started_unix,
        elapsed_s: t0.elapsed().as_secs_f64(),
        machine: machine(),
        git_revision,
        git_dirty,
        quick: opts.quick,
        plan: ApexPlan {
            core,
            major_frame_ns: MAJOR_FRAME_NS,
            window_ns: WINDOW_NS,
            spin_margin_ns: margin.as_nanos() as u64,
            edge_guard_ns: EDGE_GUARD_NS,
            backend,
            park_lowering: r.park_lowering,
            calls: n,
            priorities: (LOW_PRIORITY, HIGH_PRIORITY),
            fifo_priority: partita_manager::PARTITION_RUN_PRIORITY,
        },
        timing_pair: r.pair.into(),
        bare_timing_pair: bare_pair,
        services,
        handoffs,
        checks,
        notes,
    })
}

fn checks(services: &[ServiceFigures], handoffs: &[HandoffFigures]) -> Vec<ApexCheck> {
    let mut out = Vec::new();
    for s in services.iter().filter(|s| s.kind == "query") {
        out.push(ApexCheck {
            target: T_QUERY,
            figure: format!("{}.median", s.service),
            value: s.figures.median,
            reference: QUERY_TARGET_NS,
            ratio: None,
            pass: s.figures.count > 0 && s.figures.median < QUERY_TARGET_NS,
        });
    }
    let floor = handoffs
        .iter()
        .find(|h| h.kind == "bare" && h.direction == "wake");
    if let Some(fl) = floor.filter(|f| f.figures.count > 0) {
        for h in handoffs
            .iter()
            .filter(|h| h.kind == "partita" && h.direction == "wake")
        {
            for (stat, v, r) in [
                ("median", h.figures.median, fl.figures.median),
                ("p99", h.figures.p99, fl.figures.p99),
            ] {
                out.push(ApexCheck {
                    target: T_HANDOFF,
                    figure: format!("{}.{stat}", h.label),
                    value: v,
                    reference: r,
                    ratio: (r > 0).then(|| v as f64 / r as f64),
                    pass: h.figures.count > 0 && r > 0 && v as f64 <= HANDOFF_FACTOR * r as f64,
                });
            }
        }
    }
    out
}

/// Renders the report as text.
pub fn render_apex(r: &ApexReport) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let m = &r.machine;
    let _ =
        writeln!(
        s,
        "Partita APEX service benchmark{}: {} ({} cores), Linux {}, clocksource {}, revision {}{}",
        if r.quick { " (quick)" } else { "" },
        m.cpu_model,
        m.cores,
        m.kernel,
        m.clocksource,
        r.git_revision,
        if r.git_dirty == Some(true) { " + local changes" } else { "" }
    );
    let p = &r.plan;
    let _ = writeln!(
        s,
        "plan: one partition on core {}, window [0, {}) ms of a {} ms major frame, backend {}, park lowering {}; calls within {} us of a window edge dropped",
        p.core,
        p.window_ns as f64 / 1e6,
        p.major_frame_ns as f64 / 1e6,
        p.backend,
        match p.park_lowering {
            Some(true) => "on",
            Some(false) => "off",
            None => "unknown",
        },
        p.edge_guard_ns / 1000
    );
    let _ = writeln!(
        s,
        "figures in ns, less the median cost of an empty timing pair (monotonic_ns twice: {} ns in the partition, {} ns in the bench)",
        r.timing_pair.median, r.bare_timing_pair.median
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "  {:<27} {:>7} {:>7} {:>7} {:>7} {:>7} {:>9}  condition",
        "service", "n", "min", "median", "p99", "p99.9", "max"
    );
    for x in &r.services {
        let f = &x.figures;
        let _ = writeln!(
            s,
            "  {:<27} {:>7} {:>7} {:>7} {:>7} {:>7} {:>9}  {}{}",
            x.service,
            f.count,
            f.min,
            f.median,
            f.p99,
            f.p999,
            f.max,
            x.condition,
            if x.errors > 0 {
                format!(" ({} errors)", x.errors)
            } else {
                String::new()
            }
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "  {:<36} {:>7} {:>7} {:>7} {:>7} {:>7} {:>9}  {:<6} {:<6}",
        "hand-off (wake: call -> other runs)",
        "n",
        "min",
        "median",
        "p99",
        "p99.9",
        "max",
        "x bare",
        ""
    );
    let floor = |dir: &str| {
        r.handoffs
            .iter()
            .find(|h| h.kind == "bare" && h.direction == dir)
            .map(|h| h.figures)
    };
    for h in &r.handoffs {
        let f = &h.figures;
        let (a, b) = match floor(h.direction) {
            Some(fl) if h.kind != "bare" && fl.median > 0 && fl.p99 > 0 => (
                format!("{:.2}", f.median as f64 / fl.median as f64),
                format!("{:.2}", f.p99 as f64 / fl.p99 as f64),
            ),
            _ => (String::new(), String::new()),
        };
        let _ = writeln!(
            s,
            "  {:<36} {:>7} {:>7} {:>7} {:>7} {:>7} {:>9}  {:<6} {:<6}",
            format!("{} ({})", h.label, h.direction),
            f.count,
            f.min,
            f.median,
            f.p99,
            f.p999,
            f.max,
            a,
            b
        );
    }
    let dropped: Vec<String> = r
        .services
        .iter()
        .filter(|x| x.dropped > 0)
        .map(|x| format!("{} {}", x.service, x.dropped))
        .chain(
            r.handoffs
                .iter()
                .filter(|h| h.dropped > 0)
                .map(|h| format!("{} ({}) {}", h.label, h.direction, h.dropped)),
        )
        .collect();
    let mut remarks = Vec::new();
    if !dropped.is_empty() {
        remarks.push(format!("dropped at window edges: {}", dropped.join(", ")));
    }
    remarks.extend(r.notes.iter().cloned());
    if !remarks.is_empty() {
        let _ = writeln!(s);
        let _ = writeln!(s, "remarks:");
        for l in remarks {
            let _ = writeln!(s, "  {l}");
        }
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "targets (PASS/MISS; a miss does not fail the command):");
    let mark = |p: bool| if p { "PASS" } else { "MISS" };
    for target in [T_QUERY, T_HANDOFF] {
        let _ = writeln!(s, "  {target}:");
        let cs: Vec<&ApexCheck> = r.checks.iter().filter(|c| c.target == target).collect();
        if cs.is_empty() {
            let _ = writeln!(s, "    (nothing to compare)");
        }
        for c in cs {
            let detail = match c.ratio {
                Some(q) => format!("{} ns = {q:.2}x bare {} ns", c.value, c.reference),
                None => format!("{} ns (limit {} ns)", c.value, c.reference),
            };
            let _ = writeln!(s, "    {} {:<48} {detail}", mark(c.pass), c.figure);
        }
    }
    let passed = r.checks.iter().filter(|c| c.pass).count();
    let _ = writeln!(
        s,
        "  {passed} of {} checks met; bench took {:.1} s",
        r.checks.len(),
        r.elapsed_s
    );
    s
}

/// `bench-results/apex-<UTC timestamp>.json`.
pub fn default_apex_json_path() -> PathBuf {
    let p = crate::default_json_path();
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().replacen("switch-", "apex-", 1))
        .unwrap_or_else(|| "apex.json".into());
    p.with_file_name(name)
}

/// Writes the report as JSON to `path` (creating its directory).
pub fn write_apex_json(r: &ApexReport, path: &Path) -> Result<(), BenchError> {
    let io = |e| BenchError::Io {
        path: path.to_path_buf(),
        source: e,
    };
    if let Some(d) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).map_err(io)?;
    }
    let text = serde_json::to_string_pretty(r).map_err(|e| io(e.into()))?;
    std::fs::write(path, text + "\n").map_err(io)
}

/// `partita bench apex`: runs, prints the table, writes the JSON. Returns the exit code
/// (0, 3 when the JSON could not be written, or 4 when the benchmark could not run; a missed
/// target is not a failure).
pub fn cli_apex(opts: &ApexOptions, json: Option<PathBuf>) -> u8 {
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let signals = [2, 15];
    let watcher = partita_sys::proc::block_signals(&signals).ok().map(|()| {
        let (stop, done) = (stop.clone(), done.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Acquire) {
                if partita_sys::proc::wait_signal(&signals, 100_000_000).is_some() {
                    stop.store(true, Ordering::Release);
                }
            }
        })
    });
    let r = run_apex(opts, stop, |l| eprintln!("bench: {l}"));
    done.store(true, Ordering::Release);
    if let Some(w) = watcher {
        let _ = w.join();
    }
    let report = match r {
        Ok(r) => r,
        Err(e) => {
            eprintln!("partita bench apex: {e}");
            return 4;
        }
    };
    print!("{}", render_apex(&report));
    let path = json.unwrap_or_else(default_apex_json_path);
    if let Err(e) = write_apex_json(&report, &path) {
        eprintln!("partita bench apex: {e}");
        return 3;
    }
    println!("figures written to {}", path.display());
    0
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

    #[test]
    fn json_path_names_the_bench() {
        let p = default_apex_json_path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with("apex-") && name.ends_with(".json"),
            "{name}"
        );
    }
}
