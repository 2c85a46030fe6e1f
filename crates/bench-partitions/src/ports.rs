// SPDX-License-Identifier: MIT OR Apache-2.0
//! The partition side of `partita bench ports`: partition `P` times the port services in its
//! initialisation (main process, non-blocking calls, loop-back channels) and then sends one
//! time-stamped message near the end of each of its windows; partition `L`, whose window
//! follows at once, receives them and measures the end-to-end latency.

use crate::PartitionError;
use partita_apex::apex;
use partita_apex::apex::inter::PortDirection;
use partita_apex::core::{OperatingMode, QueuingDiscipline};
use partita_bench_protocol::args::{PortsPartitionArgs, PortsRole};
use partita_bench_protocol::ports::{
    queuing_port, sampling_port, End, PortRow, PortsResult, LATENCY_DEPTH, LATENCY_DESTINATION,
    LATENCY_MESSAGE_SIZE, LATENCY_SOURCE, OPS, QUEUE_DEPTH, SIZES, WARMUP,
};
use partita_bench_protocol::Figures;
use std::path::Path;

/// Calls per timed batch (the batched figure is the median over batches of the mean per
/// call; [`QUEUE_DEPTH`] holds a batch of sends).
const BATCH: usize = 16;

fn now() -> i64 {
    apex::time::get_time().unwrap_or(0)
}

/// Keeps samples whose two ends lie in the same window of the partition, away from its edges.
struct Guard {
    frame: i64,
    lo: i64,
    hi: i64,
}

impl Guard {
    fn ok(&self, t0: i64, t1: i64) -> bool {
        t0 >= 0
            && t0 / self.frame == t1 / self.frame
            && t0 % self.frame >= self.lo
            && t1 % self.frame <= self.hi
    }
}

/// What GET_TIME reads now.
fn time_source() -> String {
    let c = &partita_sys::time::COUNTER_CLOCK;
    if c.calibrated() {
        "counter clock".into()
    } else if c.enabled() {
        "counter clock (not calibrated yet: CLOCK_MONOTONIC)".into()
    } else {
        "CLOCK_MONOTONIC".into()
    }
}

fn write(path: &Path, r: &PortsResult) {
    partita_bench_protocol::write_result_or_say(path, r);
}

/// A partition of `bench ports` ([`PortsPartitionArgs`]), run by the partition manager: `P`
/// ([`PortsRole::Services`]) or `L` ([`PortsRole::Latency`]). A set-up error is written to the
/// result file too.
pub fn partition_main(words: &[String]) -> Result<(), PartitionError> {
    let args = PortsPartitionArgs::parse(words)?;
    let r = match args.role {
        PortsRole::Services => services(&args),
        PortsRole::Latency => latency(&args),
    };
    let e = match r {
        Ok(never) => match never {},
        Err(e) => e,
    };
    write(
        &args.result,
        &PortsResult {
            error: Some(e.to_string()),
            ..PortsResult::default()
        },
    );
    Err(e)
}

fn process(
    name: &str,
    period: i64,
    body: impl Fn() + Send + Sync + 'static,
) -> Result<(), PartitionError> {
    let attrs = apex::process::ProcessAttributes {
        name: apex::name(name),
        entry: 0,
        stack_size: 256 * 1024,
        base_priority: 10,
        period,
        time_capacity: apex::INFINITE_TIME_VALUE,
        deadline: apex::process::DeadlineType::Soft,
    };
    let pid = apex::process::create_process(&attrs, body)
        .map_err(PartitionError::apex("CREATE_PROCESS"))?;
    apex::process::start(pid).map_err(PartitionError::apex("START"))
}

fn services(args: &PortsPartitionArgs) -> Result<std::convert::Infallible, PartitionError> {
    let n = args.calls;
    let (frame, window) = (args.major_frame_ns, args.window_ns);
    let g = Guard {
        frame,
        lo: args.edge_guard_ns,
        hi: window - args.edge_guard_ns,
    };
    let e = PartitionError::apex;
    let mut res = PortsResult::default();
    crate::settle_clock();
    // The timing pair.
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let t0 = now();
        let t1 = now();
        if g.ok(t0, t1) {
            v.push(t1 - t0);
        }
    }
    let pair = Figures::of(&mut v);
    res.pair = Some(pair);
    res.time_source = Some(time_source());
    let mut out = vec![0u8; SIZES[SIZES.len() - 1]];
    for &size in SIZES {
        let msg: Vec<u8> = (0..size).map(|i| i as u8).collect();
        let s_out = apex::inter::sampling::create_sampling_port(
            &apex::name(&sampling_port(size, End::Out)),
            size,
            PortDirection::Source,
            0,
        )
        .map_err(e("CREATE_SAMPLING_PORT source"))?;
        let s_in = apex::inter::sampling::create_sampling_port(
            &apex::name(&sampling_port(size, End::In)),
            size,
            PortDirection::Destination,
            0,
        )
        .map_err(e("CREATE_SAMPLING_PORT destination"))?;
        let q_out = apex::inter::queuing::create_queuing_port(
            &apex::name(&queuing_port(size, End::Out)),
            size,
            QUEUE_DEPTH,
            PortDirection::Source,
            QueuingDiscipline::Fifo,
        )
        .map_err(e("CREATE_QUEUING_PORT source"))?;
        let q_in = apex::inter::queuing::create_queuing_port(
            &apex::name(&queuing_port(size, End::In)),
            size,
            QUEUE_DEPTH,
            PortDirection::Destination,
            QueuingDiscipline::Fifo,
        )
        .map_err(e("CREATE_QUEUING_PORT destination"))?;
        let floor = partita_sys::port::RawArea::create(size)?;
        // The sampling slot protocol alone, on a private memfd: what the services add is the
        // identifier check, the time stamp and the partition-private lock.
        let slots = partita_sys::port::create_memfd(
            "partita-bench-slots",
            partita_sys::port::sampling_len(size),
            None,
        )
        .and_then(|m| partita_sys::port::Sampling::new(m, size))?;
        slots.init();
        // The slot protocol with the cheapest clock at all (one timer tick of resolution): what
        // the sampling services could cost with tick-resolution time stamps, which Partita
        // does not offer (the figures for that decision: docs/benchmarks.md).
        let coarse_write = |m: &[u8]| slots.write(m, partita_sys::time::coarse_ns() as i64);
        let coarse_read = |o: &mut [u8]| {
            slots
                .read(o)
                .map(|m| partita_sys::time::coarse_ns() as i64 - m.time <= 1_000_000_000)
        };
        // And with a time word another thread would keep current (e.g. the window start the
        // manager publishes): one load, no clock at all; window resolution.
        let word = std::sync::atomic::AtomicI64::new(now());
        let word_write = |m: &[u8]| slots.write(m, word.load(std::sync::atomic::Ordering::Relaxed));
        let word_read = |o: &mut [u8]| {
            slots
                .read(o)
                .map(|m| word.load(std::sync::atomic::Ordering::Relaxed) - m.time <= 1_000_000_000)
        };
        let mut rows: Vec<(&str, Vec<i64>, u64, u64)> =
            OPS.iter().map(|&o| (o, Vec::new(), 0, 0)).collect();
        let time = |row: &mut (&str, Vec<i64>, u64, u64), f: &mut dyn FnMut() -> bool| {
            let t0 = now();
            let ok = f();
            let t1 = now();
            if !ok {
                row.3 += 1;
            }
            if g.ok(t0, t1) {
                row.1.push(t1 - t0 - pair.median);
            } else {
                row.2 += 1;
            }
        };
        let total = n + WARMUP;
        for i in 0..total {
            let [fp, ff, rw, rr, sw, sr, qs, qr, ts, tsc, coarse, cw, cr, ww, wr] = &mut rows[..]
            else {
                unreachable!()
            };
            time(fp, &mut || {
                floor.publish(&msg);
                true
            });
            time(ff, &mut || {
                std::hint::black_box(floor.fetch(&mut out[..size])) > 0
            });
            time(rw, &mut || slots.write(&msg, 1) > 0);
            time(rr, &mut || slots.read(&mut out).is_some());
            time(sw, &mut || {
                apex::inter::sampling::write_sampling_message(s_out, &msg).is_ok()
            });
            time(sr, &mut || {
                apex::inter::sampling::read_sampling_message(s_in, &mut out).is_ok()
            });
            time(qs, &mut || {
                apex::inter::queuing::send_queuing_message(q_out, &msg, 0).is_ok()
            });
            time(qr, &mut || {
                apex::inter::queuing::receive_queuing_message(q_in, 0, &mut out).is_ok()
            });
            time(ts, &mut || {
                std::hint::black_box(apex::time::get_time()).is_ok()
            });
            time(tsc, &mut || {
                std::hint::black_box(partita_sys::time::tsc()) > 0
            });
            time(coarse, &mut || {
                std::hint::black_box(partita_sys::time::coarse_ns()) > 0
            });
            time(cw, &mut || coarse_write(&msg) > 0);
            time(cr, &mut || coarse_read(&mut out).is_some());
            time(ww, &mut || word_write(&msg) > 0);
            time(wr, &mut || word_read(&mut out).is_some());
            if i + 1 == WARMUP {
                for r in rows.iter_mut() {
                    r.1.clear();
                    r.2 = 0;
                    r.3 = 0;
                }
            }
        }
        // Batches of BATCH calls of the same operation, timed together: the mean per call is
        // not limited by the clock's resolution.
        let mut batched: Vec<Vec<i64>> = OPS.iter().map(|_| Vec::new()).collect();
        for _ in 0..(n / BATCH).max(100) {
            for (k, b) in batched.iter_mut().enumerate() {
                let t0 = now();
                for _ in 0..BATCH {
                    match k {
                        0 => floor.publish(&msg),
                        1 => {
                            std::hint::black_box(floor.fetch(&mut out[..size]));
                        }
                        2 => {
                            slots.write(&msg, 1);
                        }
                        3 => {
                            std::hint::black_box(slots.read(&mut out));
                        }
                        4 => {
                            let _ = apex::inter::sampling::write_sampling_message(s_out, &msg);
                        }
                        5 => {
                            let _ = apex::inter::sampling::read_sampling_message(s_in, &mut out);
                        }
                        6 => {
                            let _ = apex::inter::queuing::send_queuing_message(q_out, &msg, 0);
                        }
                        7 => {
                            let _ =
                                apex::inter::queuing::receive_queuing_message(q_in, 0, &mut out);
                        }
                        8 => {
                            let _ = std::hint::black_box(apex::time::get_time());
                        }
                        9 => {
                            std::hint::black_box(partita_sys::time::tsc());
                        }
                        10 => {
                            std::hint::black_box(partita_sys::time::coarse_ns());
                        }
                        11 => {
                            coarse_write(&msg);
                        }
                        12 => {
                            std::hint::black_box(coarse_read(&mut out));
                        }
                        13 => {
                            word_write(&msg);
                        }
                        _ => {
                            std::hint::black_box(word_read(&mut out));
                        }
                    }
                }
                let t1 = now();
                if g.ok(t0, t1) {
                    // Per call, in tenths of a ns.
                    b.push((t1 - t0 - pair.median) * 10 / BATCH as i64);
                }
            }
        }
        for ((op, mut v, dropped, errors), mut b) in rows.into_iter().zip(batched) {
            res.rows.push(PortRow {
                op: op.to_string(),
                size,
                figures: Figures::of(&mut v),
                batched_ns: Figures::of(&mut b).median as f64 / 10.0,
                dropped,
                errors,
            });
        }
    }
    let lat_out = apex::inter::queuing::create_queuing_port(
        &apex::name(LATENCY_SOURCE),
        LATENCY_MESSAGE_SIZE,
        LATENCY_DEPTH,
        PortDirection::Source,
        QueuingDiscipline::Fifo,
    )
    .map_err(e("CREATE_QUEUING_PORT (latency source)"))?;
    write(&args.result, &res);
    // Latency: one message 150 us before the end of each window.
    let lead: i64 = 150_000;
    process("sender", frame, move || loop {
        let _ = apex::time::periodic_wait();
        let start = now() / frame * frame;
        while now() < start + window - lead {
            std::hint::spin_loop();
        }
        let t = now();
        let _ = apex::inter::queuing::send_queuing_message(lat_out, &t.to_le_bytes()[..], 0);
    })?;
    apex::partition::set_partition_mode(OperatingMode::Normal).map_err(e("SET_PARTITION_MODE"))?;
    Err(PartitionError::NormalReturned)
}

fn latency(args: &PortsPartitionArgs) -> Result<std::convert::Infallible, PartitionError> {
    let path = args.result.clone();
    let frame = args.major_frame_ns;
    // `L`'s window follows `P`'s.
    let offset = args.window_ns;
    let samples = args.latency_samples;
    let e = PartitionError::apex;
    let lat_in = apex::inter::queuing::create_queuing_port(
        &apex::name(LATENCY_DESTINATION),
        LATENCY_MESSAGE_SIZE,
        LATENCY_DEPTH,
        PortDirection::Destination,
        QueuingDiscipline::Fifo,
    )
    .map_err(e("CREATE_QUEUING_PORT (latency destination)"))?;
    process("receiver", apex::INFINITE_TIME_VALUE, move || {
        let mut e2e = Vec::with_capacity(samples);
        let mut after = Vec::with_capacity(samples);
        let mut buf = [0u8; LATENCY_MESSAGE_SIZE];
        while e2e.len() < samples {
            if apex::inter::queuing::receive_queuing_message(
                lat_in,
                apex::INFINITE_TIME_VALUE,
                &mut buf,
            )
            .is_err()
            {
                continue;
            }
            let t = now();
            let sent = i64::from_le_bytes(buf[..8].try_into().unwrap_or([0; 8]));
            e2e.push(t - sent);
            after.push(t - (t / frame * frame + offset));
        }
        let r = PortsResult {
            latency: Some((Figures::of(&mut e2e), Figures::of(&mut after))),
            ..PortsResult::default()
        };
        write(&path, &r);
        let _ = apex::process::stop_self();
    })?;
    apex::partition::set_partition_mode(OperatingMode::Normal).map_err(e("SET_PARTITION_MODE"))?;
    Err(PartitionError::NormalReturned)
}
