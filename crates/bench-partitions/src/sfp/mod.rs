// SPDX-License-Identifier: MIT OR Apache-2.0
//! The partition of `partita bench sfp`: our own implementations, from the descriptions in
//! the SFPBench paper, of its grey-box tests that `bench apex` does not already measure and of
//! its applications. Every test runs `calls` times after a warm-up; a run whose two instants
//! are not inside the same window, away from its edges, is dropped and counted.

pub mod exchange;
pub mod kernels;

use crate::apex::Guard;
use crate::PartitionError;
use kernels::Lcg;
use partita_apex::apex;
use partita_apex::apex::intra::event::EventId;
use partita_apex::apex::intra::semaphore::SemaphoreId;
use partita_apex::core::{OperatingMode, QueuingDiscipline};
use partita_bench_protocol::apex::{empty_timing_pair, now};
use partita_bench_protocol::args::ApexPartitionArgs;
use partita_bench_protocol::sfp::{SfpResult, SfpRow, APEX_CALL, APPLICATION, GREY_BOX};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Stack of every process.
const STACK: u64 = 256 * 1024;
/// Priority of the driving process (the lowest).
const DRIVER_PRIORITY: i32 = 10;
/// Priority of the helpers it wakes.
const HELPER_PRIORITY: i32 = 30;
/// Priority semaphore waiters, highest first.
const WAITER_PRIORITIES: [i32; 3] = [30, 25, 20];
/// Processes of the process-switch ring and of each chain.
const RING: usize = 4;
/// Calls per amortised batch ("Mutex Acquire 2" and the like).
const BATCH: usize = 100;
/// Runs left out before each test.
pub(crate) const WARMUP_RUNS: usize = 20;
/// Ceiling of the mutex (above every process that takes it).
const MUTEX_PRIORITY: i32 = 50;
/// Application sizes.
const ADPCM_SAMPLES: usize = 1024;
const GRAPH_NODES: usize = 64;
const IMAGE_SIDE: usize = 64;
/// Words of the critical-section work of the workloads.
const WORK_WORDS: usize = 256;
/// Objects of each kind created (and timed) in COLD_START for Table 3's creation rows.
const CREATED: usize = 4;

/// State the processes share.
struct Shared {
    /// An instant one process stamps and another reads.
    t: AtomicI64,
    /// Which priority waiter woke last (its index), and how many woke.
    woke: AtomicU64,
    /// Process-switch samples of the ring (they are taken by the ring's processes).
    ring: Mutex<Vec<(i64, i64)>>,
    /// Passes left in the ring.
    ring_left: AtomicI64,
    /// Chain ends (stamped by the last process of a chain).
    chain_end: AtomicI64,
    /// Data the workloads update inside their critical sections.
    data: Mutex<Vec<u64>>,
    errors: Mutex<Vec<String>>,
}

impl Shared {
    fn error(&self, e: String) {
        let mut v = self.errors.lock().unwrap_or_else(|p| p.into_inner());
        if v.len() < 10 {
            v.push(e);
        }
    }
}

/// The work inside a critical section: one pass over the shared words.
fn work(words: &mut [u64]) {
    let mut acc = 0x9e37_79b9_7f4a_7c15u64;
    for w in words.iter_mut() {
        acc = acc.rotate_left(7) ^ *w;
        *w = w.wrapping_add(acc);
    }
}

/// The objects and processes of the tests.
struct Objects {
    mutex: apex::intra::mutex::MutexId,
    /// Wakes the mutex helper.
    go_mutex: SemaphoreId,
    /// Wakes the semaphore-workload helper.
    go_sem: SemaphoreId,
    /// The semaphore the priority waiters compete for.
    contested: SemaphoreId,
    /// Batches of "Sem Signal 2" / "Sem Wait 2".
    batch: SemaphoreId,
    /// The ring's semaphores, and the driver's.
    ring: Vec<SemaphoreId>,
    ring_done: SemaphoreId,
    /// The semaphore chain (APEX APP 1) and the event chain (APEX APP 2).
    chain: Vec<SemaphoreId>,
    events: Vec<EventId>,
}

/// The partition of `bench sfp` ([`ApexPartitionArgs`]), run by the partition manager. A
/// set-up error is written to the result file.
pub fn partition_main(words: &[String]) -> Result<(), PartitionError> {
    let args = ApexPartitionArgs::parse(words)?;
    set_up(&args).inspect_err(|e| {
        let r = SfpResult {
            error: Some(e.to_string()),
            ..SfpResult::default()
        };
        partita_bench_protocol::write_result_or_say(&args.result, &r);
    })
}

fn sem(
    name: &str,
    value: i32,
    max: i32,
    q: QueuingDiscipline,
) -> Result<SemaphoreId, PartitionError> {
    apex::intra::semaphore::create_semaphore(&apex::name(name), value, max, q)
        .map_err(PartitionError::apex("CREATE_SEMAPHORE"))
}

fn attrs(name: &str, priority: i32) -> apex::process::ProcessAttributes {
    apex::process::ProcessAttributes {
        name: apex::name(name),
        entry: 0,
        stack_size: STACK,
        base_priority: priority,
        period: apex::INFINITE_TIME_VALUE,
        time_capacity: apex::INFINITE_TIME_VALUE,
        deadline: apex::process::DeadlineType::Soft,
    }
}

fn spawn(
    name: &str,
    priority: i32,
    body: impl Fn() + Send + Sync + 'static,
) -> Result<apex::process::ProcessId, PartitionError> {
    apex::process::create_process(&attrs(name, priority), body)
        .map_err(PartitionError::apex("CREATE_PROCESS"))
}

const INF: i64 = apex::INFINITE_TIME_VALUE;

/// Times the creation services in COLD_START: [`CREATED`] objects of each kind.
fn creation_rows(g: Guard, pair: i64) -> Vec<SfpRow> {
    let fifo = QueuingDiscipline::Fifo;
    let mut rows = Vec::new();
    let mut time = |name: &str, what: &str, f: &dyn Fn(&str) -> bool| {
        let mut r = Runs::new(g, pair, name, APEX_CALL, what);
        for i in 0..CREATED {
            let object = format!("{name}-{i}");
            let t0 = now();
            let ok = f(&object);
            let t1 = now();
            r.add(WARMUP_RUNS + i, t0, t1, 1, ok);
        }
        rows.push(r.row);
    };
    time("SEMAPHORE_CREATE", "CREATE_SEMAPHORE in COLD_START", &|n| {
        apex::intra::semaphore::create_semaphore(&apex::name(n), 0, 1, fifo).is_ok()
    });
    time(
        "BUFFER_CREATE",
        "CREATE_BUFFER (4 x 64 bytes) in COLD_START",
        &|n| apex::intra::buffer::create_buffer(&apex::name(n), 64, 4, fifo).is_ok(),
    );
    time(
        "BB_CREATE",
        "CREATE_BLACKBOARD (64 bytes) in COLD_START",
        &|n| apex::intra::blackboard::create_blackboard(&apex::name(n), 64).is_ok(),
    );
    time("CREATE_EVENT", "CREATE_EVENT in COLD_START", &|n| {
        apex::intra::event::create_event(&apex::name(n)).is_ok()
    });
    rows
}

fn set_up(args: &ApexPartitionArgs) -> Result<(), PartitionError> {
    let rt = crate::runtime()?;
    let fifo = QueuingDiscipline::Fifo;
    let created = creation_rows(Guard::of(args, rt), empty_timing_pair(1000).median);
    let o = Arc::new(Objects {
        mutex: apex::intra::mutex::create_mutex(
            &apex::name("sfp-mutex"),
            MUTEX_PRIORITY,
            QueuingDiscipline::Priority,
        )
        .map_err(PartitionError::apex("CREATE_MUTEX"))?,
        go_mutex: sem("go-mutex", 0, 1, fifo)?,
        go_sem: sem("go-sem", 0, 1, fifo)?,
        contested: sem("contested", 0, 3, QueuingDiscipline::Priority)?,
        batch: sem("batch", 0, BATCH as i32, fifo)?,
        ring: (0..RING)
            .map(|i| sem(&format!("ring-{i}"), 0, 1, fifo))
            .collect::<Result<_, _>>()?,
        ring_done: sem("ring-done", 0, 1, fifo)?,
        chain: (0..RING)
            .map(|i| sem(&format!("chain-{i}"), 0, 1, fifo))
            .collect::<Result<_, _>>()?,
        events: (0..RING)
            .map(|i| {
                apex::intra::event::create_event(&apex::name(&format!("event-{i}")))
                    .map_err(PartitionError::apex("CREATE_EVENT"))
            })
            .collect::<Result<_, _>>()?,
    });
    let sh = Arc::new(Shared {
        t: AtomicI64::new(0),
        woke: AtomicU64::new(0),
        ring: Mutex::new(Vec::new()),
        ring_left: AtomicI64::new(0),
        chain_end: AtomicI64::new(0),
        data: Mutex::new(vec![1; WORK_WORDS]),
        errors: Mutex::new(Vec::new()),
    });
    let mut pids = Vec::new();

    // Mutex workload helper: takes the mutex and works whenever the driver wakes it.
    let (s, ob) = (sh.clone(), o.clone());
    pids.push(spawn("mutex-helper", HELPER_PRIORITY, move || loop {
        if let Err(e) = apex::intra::semaphore::wait_semaphore(ob.go_mutex, INF) {
            return s.error(format!("mutex helper WAIT_SEMAPHORE: {e:?}"));
        }
        critical_section(&s, ob.mutex);
    })?);
    // Semaphore workload helper: works whenever the driver signals.
    let (s, ob) = (sh.clone(), o.clone());
    pids.push(spawn("sem-helper", HELPER_PRIORITY, move || loop {
        if let Err(e) = apex::intra::semaphore::wait_semaphore(ob.go_sem, INF) {
            return s.error(format!("semaphore helper WAIT_SEMAPHORE: {e:?}"));
        }
        work(&mut s.data.lock().unwrap_or_else(|p| p.into_inner()));
    })?);
    // Priority waiters: the highest wakes at every signal; each stamps its first instant.
    for (k, &prio) in WAITER_PRIORITIES.iter().enumerate() {
        let (s, ob) = (sh.clone(), o.clone());
        pids.push(spawn(&format!("waiter-{k}"), prio, move || loop {
            if let Err(e) = apex::intra::semaphore::wait_semaphore(ob.contested, INF) {
                return s.error(format!("waiter WAIT_SEMAPHORE: {e:?}"));
            }
            s.t.store(now(), Ordering::Release);
            s.woke.store(k as u64, Ordering::Release);
        })?);
    }
    // The ring: each passes to the next; the time from the last instruction of one (before
    // it blocks) to the first of the next is a process switch.
    for k in 0..RING {
        let (s, ob) = (sh.clone(), o.clone());
        pids.push(spawn(
            &format!("ring-{k}"),
            HELPER_PRIORITY,
            move || loop {
                if let Err(e) = apex::intra::semaphore::wait_semaphore(ob.ring[k], INF) {
                    return s.error(format!("ring WAIT_SEMAPHORE: {e:?}"));
                }
                let t1 = now();
                let t0 = s.t.load(Ordering::Acquire);
                s.ring
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push((t0, t1));
                let next = if s.ring_left.fetch_sub(1, Ordering::AcqRel) > 1 {
                    ob.ring[(k + 1) % RING]
                } else {
                    ob.ring_done
                };
                let _ = apex::intra::semaphore::signal_semaphore(next);
                s.t.store(now(), Ordering::Release);
            },
        )?);
    }
    // APEX APP 1 and 2: four processes, each waits for the one before it (a semaphore, then
    // an event), does its part and passes on; the last stamps the end.
    for k in 0..RING {
        for events in [false, true] {
            let (s, ob) = (sh.clone(), o.clone());
            let name = format!("{}-{k}", if events { "event-chain" } else { "sem-chain" });
            pids.push(spawn(&name, HELPER_PRIORITY, move || loop {
                let r = if events {
                    apex::intra::event::wait_event(ob.events[k], INF)
                        .and_then(|()| apex::intra::event::reset_event(ob.events[k]))
                } else {
                    apex::intra::semaphore::wait_semaphore(ob.chain[k], INF)
                };
                if let Err(e) = r {
                    return s.error(format!(
                        "{} wait: {e:?}",
                        if events { "event" } else { "semaphore" }
                    ));
                }
                chain_part(k);
                if k + 1 < RING {
                    let r = if events {
                        apex::intra::event::set_event(ob.events[k + 1])
                    } else {
                        apex::intra::semaphore::signal_semaphore(ob.chain[k + 1])
                    };
                    if let Err(e) = r {
                        s.error(format!("chain pass: {e:?}"));
                    }
                } else {
                    s.chain_end.store(now(), Ordering::Release);
                }
            })?);
        }
    }
    let (s, ob) = (sh.clone(), o.clone());
    let args2 = args.clone();
    let driver = spawn("driver", DRIVER_PRIORITY, move || {
        // Let the main thread become the APEX timer thread first.
        std::thread::sleep(std::time::Duration::from_millis(1));
        crate::settle_clock();
        let g = Guard::of(&args2, rt);
        let mut r = drive(args2.calls, g, &s, &ob);
        r.rows.extend(created.iter().cloned());
        r.notes
            .extend(s.errors.lock().unwrap_or_else(|p| p.into_inner()).drain(..));
        partita_bench_protocol::write_result_or_say(&args2.result, &r);
        // Done: stay blocked.
        let _ = apex::intra::semaphore::wait_semaphore(ob.ring_done, INF);
        let _ = apex::intra::semaphore::wait_semaphore(ob.ring_done, INF);
    })?;
    pids.push(driver);
    for pid in pids {
        apex::process::start(pid).map_err(PartitionError::apex("START"))?;
    }
    apex::partition::set_partition_mode(OperatingMode::Normal)
        .map_err(PartitionError::apex("SET_PARTITION_MODE"))
}

/// Takes the mutex, works on the shared words, gives it back.
fn critical_section(s: &Shared, m: apex::intra::mutex::MutexId) {
    if let Err(e) = apex::intra::mutex::acquire_mutex(m, INF) {
        return s.error(format!("ACQUIRE_MUTEX: {e:?}"));
    }
    work(&mut s.data.lock().unwrap_or_else(|p| p.into_inner()));
    if let Err(e) = apex::intra::mutex::release_mutex(m) {
        s.error(format!("RELEASE_MUTEX: {e:?}"));
    }
}

/// The part of process `k` of a chain: a checksum, APEX queries, a small sort, nothing.
fn chain_part(k: usize) {
    match k {
        0 => {
            std::hint::black_box(kernels::crc32(&[0x5a; 256]));
        }
        1 => {
            let _ = std::hint::black_box(apex::process::get_my_id());
            let _ = std::hint::black_box(apex::time::get_time());
            let _ = std::hint::black_box(apex::partition::get_partition_status());
        }
        2 => {
            let mut rng = Lcg(k as u64);
            let mut v: Vec<u32> = (0..64).map(|_| rng.next_u32()).collect();
            v.sort_unstable();
            std::hint::black_box(v);
        }
        _ => {}
    }
}

/// Collects the runs of one test.
pub(crate) struct Runs {
    g: Guard,
    pair: i64,
    row: SfpRow,
}

impl Runs {
    pub(crate) fn new(g: Guard, pair: i64, name: &str, group: &str, what: &str) -> Runs {
        Runs {
            g,
            pair,
            row: SfpRow {
                name: name.into(),
                group: group.into(),
                what: what.into(),
                ..SfpRow::default()
            },
        }
    }

    /// A run from `t0` to `t1` (`per`: calls it spans, the sample is per call); `ok` false
    /// for a wrong result or a failed call.
    pub(crate) fn add(&mut self, i: usize, t0: i64, t1: i64, per: i64, ok: bool) {
        if i < WARMUP_RUNS {
            return;
        }
        if !ok {
            self.row.errors += 1;
        }
        if self.g.ok(t0, t1) {
            self.row.samples.push((t1 - t0 - self.pair) / per);
        } else {
            self.row.dropped += 1;
        }
    }
}

/// Runs every test `n` times (after the warm-up) and gives the samples.
fn drive(n: usize, g: Guard, s: &Shared, o: &Objects) -> SfpResult {
    use apex::intra::semaphore::{signal_semaphore, wait_semaphore};
    let pair = empty_timing_pair(1000).median;
    let total = n + WARMUP_RUNS;
    let mut res = SfpResult::default();
    let mut push = |r: Runs| res.rows.push(r.row);

    // Process Switch: the ring, `total` passes.
    s.ring.lock().unwrap_or_else(|p| p.into_inner()).clear();
    s.ring_left.store(total as i64 + 1, Ordering::Release);
    s.t.store(now(), Ordering::Release);
    let mut ok = signal_semaphore(o.ring[0]).is_ok();
    ok &= wait_semaphore(o.ring_done, INF).is_ok();
    let mut r = Runs::new(g, pair, "Process Switch", GREY_BOX, "last instruction of a process before WAIT_SEMAPHORE to the first of the next (4 equal-priority processes in a ring)");
    let passes = std::mem::take(&mut *s.ring.lock().unwrap_or_else(|p| p.into_inner()));
    // The first pass starts from the driver, not from a ring process.
    for (i, &(t0, t1)) in passes.iter().enumerate().skip(1) {
        r.add(i - 1, t0, t1, 1, ok);
    }
    push(r);

    // Mutex Acquire 2 + Release 2: amortised over batches of pairs (a mutex's lock count is
    // bounded, so acquisitions cannot be batched alone).
    let mut r = Runs::new(
        g,
        pair,
        "Mutex Acquire 2 + Release 2",
        GREY_BOX,
        "ACQUIRE_MUTEX of a free mutex and RELEASE_MUTEX, one timing pair per 100 pairs",
    );
    for i in 0..total {
        let mut ok = true;
        let t0 = now();
        for _ in 0..BATCH {
            ok &= apex::intra::mutex::acquire_mutex(o.mutex, 0).is_ok();
            ok &= apex::intra::mutex::release_mutex(o.mutex).is_ok();
        }
        let t1 = now();
        r.add(i, t0, t1, BATCH as i64, ok);
    }
    push(r);

    // Sem Signal 2 / Sem Wait 2: the same with a semaphore nobody waits on.
    let mut sig = Runs::new(
        g,
        pair,
        "Sem Signal 2",
        GREY_BOX,
        "SIGNAL_SEMAPHORE with nobody waiting, one timing pair per 100 calls",
    );
    let mut wai = Runs::new(
        g,
        pair,
        "Sem Wait 2",
        GREY_BOX,
        "WAIT_SEMAPHORE of an available semaphore, one timing pair per 100 calls",
    );
    for i in 0..total {
        let t0 = now();
        let mut ok = true;
        for _ in 0..BATCH {
            ok &= signal_semaphore(o.batch).is_ok();
        }
        let t1 = now();
        for _ in 0..BATCH {
            ok &= wait_semaphore(o.batch, 0).is_ok();
        }
        let t2 = now();
        sig.add(i, t0, t1, BATCH as i64, ok);
        wai.add(i, t1, t2, BATCH as i64, ok);
    }
    push(sig);
    push(wai);

    // Priority Sem: three waiters of different priorities; a signal must wake the highest.
    let mut r = Runs::new(g, pair, "Priority Sem", GREY_BOX, "SIGNAL_SEMAPHORE to the first instruction of the highest of 3 waiters of different priorities");
    for i in 0..total {
        s.woke.store(u64::MAX, Ordering::Release);
        let t0 = now();
        let ok = signal_semaphore(o.contested).is_ok();
        let t1 = s.t.load(Ordering::Acquire);
        r.add(i, t0, t1, 1, ok && s.woke.load(Ordering::Acquire) == 0);
    }
    push(r);

    // Mutex Workload: the helper's critical section, then the driver's.
    let mut r = Runs::new(
        g,
        pair,
        "Mutex Workload",
        GREY_BOX,
        "two processes in turn take the mutex, update 256 shared words, release it",
    );
    for i in 0..total {
        let t0 = now();
        let mut ok = signal_semaphore(o.go_mutex).is_ok();
        let e0 = s.errors.lock().map(|v| v.len()).unwrap_or(0);
        critical_section(s, o.mutex);
        ok &= s.errors.lock().map(|v| v.len()).unwrap_or(0) == e0;
        let t1 = now();
        r.add(i, t0, t1, 1, ok);
    }
    push(r);

    // Sem Workload: the signal wakes the helper, which works and waits again.
    let mut r = Runs::new(
        g,
        pair,
        "Sem Workload",
        GREY_BOX,
        "SIGNAL_SEMAPHORE wakes a process that updates 256 shared words and waits again",
    );
    for i in 0..total {
        let t0 = now();
        let ok = signal_semaphore(o.go_sem).is_ok();
        let t1 = now();
        r.add(i, t0, t1, 1, ok);
    }
    push(r);

    // Applications.
    let mut rng = Lcg(0x5fb);
    let signal = kernels::adpcm_signal(ADPCM_SAMPLES, &mut rng);
    let (mut codes, mut back) = (Vec::new(), Vec::new());
    let mut r = Runs::new(
        g,
        pair,
        "ADPCM",
        APPLICATION,
        "IMA ADPCM encoding and decoding of 1024 samples",
    );
    for i in 0..total {
        let t0 = now();
        kernels::adpcm_encode(&signal, &mut codes);
        kernels::adpcm_decode(&codes, &mut back);
        let t1 = now();
        r.add(i, t0, t1, 1, back.len() == signal.len());
    }
    push(r);
    let graph = kernels::random_graph(GRAPH_NODES, &mut rng);
    let (mut dist, mut done) = (Vec::new(), Vec::new());
    let mut r = Runs::new(
        g,
        pair,
        "DIJKSTRA",
        APPLICATION,
        "shortest distances from one node of a dense 64-node graph",
    );
    for i in 0..total {
        let t0 = now();
        kernels::dijkstra(&graph, GRAPH_NODES, i % GRAPH_NODES, &mut dist, &mut done);
        let t1 = now();
        r.add(i, t0, t1, 1, dist[i % GRAPH_NODES] == 0);
    }
    push(r);
    let (mut tmp, mut out) = (Vec::new(), Vec::new());
    let mut image = vec![0u8; IMAGE_SIDE * IMAGE_SIDE];
    let mut r = Runs::new(
        g,
        pair,
        "SOBEL",
        APPLICATION,
        "3x3 Gaussian blur and Sobel gradient of a random 64x64 image",
    );
    for i in 0..total {
        for p in image.iter_mut() {
            *p = rng.next_u32() as u8;
        }
        let t0 = now();
        kernels::gaussian_sobel(&image, IMAGE_SIDE, IMAGE_SIDE, &mut tmp, &mut out);
        let t1 = now();
        r.add(i, t0, t1, 1, out.len() == image.len());
    }
    push(r);
    for (name, events) in [("APEX APP 1", false), ("APEX APP 2", true)] {
        let what = if events {
            "four processes pass an event on, each doing its part (checksum, APEX queries, sort, end)"
        } else {
            "four processes pass a semaphore on, each doing its part (checksum, APEX queries, sort, end)"
        };
        let mut r = Runs::new(g, pair, name, APPLICATION, what);
        for i in 0..total {
            s.chain_end.store(0, Ordering::Release);
            let t0 = now();
            let ok = if events {
                apex::intra::event::set_event(o.events[0]).is_ok()
            } else {
                signal_semaphore(o.chain[0]).is_ok()
            };
            // The chain runs above the driver: when the driver runs again it has ended.
            let t1 = s.chain_end.load(Ordering::Acquire);
            r.add(i, t0, t1, 1, ok && t1 != 0);
        }
        push(r);
    }
    res
}
