// SPDX-License-Identifier: MIT OR Apache-2.0
//! SFPBench's two-partition application (SAMPLE APEX APP A and B), our own implementation of
//! its description: in each partition a periodic process and a sporadic one, synchronised by
//! a semaphore; the CRC partition makes random data, the sporadic process computes its CRC-32
//! and writes data and CRC to a sampling port; the matrix partition's periodic process reads
//! the port and, for every new message, its sporadic process checks the CRC and multiplies two
//! matrices made of the data. One sample is one iteration of a partition: from its periodic
//! process's start to the end of its sporadic process's work.

use super::kernels::{crc32, matrix_product, Lcg};
use super::Runs;
use crate::apex::Guard;
use crate::PartitionError;
use partita_apex::apex;
use partita_apex::apex::inter::PortDirection;
use partita_apex::core::{OperatingMode, QueuingDiscipline};
use partita_bench_protocol::apex::{empty_timing_pair, now};
use partita_bench_protocol::args::{ExchangePartitionArgs, ExchangeRole};
use partita_bench_protocol::sfp::{
    SfpResult, APPLICATION, EXCHANGE_DATA, EXCHANGE_DESTINATION, EXCHANGE_MESSAGE, EXCHANGE_SOURCE,
};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

const INF: i64 = apex::INFINITE_TIME_VALUE;
/// Matrix side: the 256 data bytes are 64 words, an 8 x 8 matrix.
const SIDE: usize = 8;

/// What the two processes of a partition share.
struct Shared {
    /// The message (CRC partition: data to send; matrix partition: the message received).
    msg: Mutex<Vec<u8>>,
    /// The periodic process's start of the current iteration.
    t0: AtomicI64,
    /// Iterations done (the sporadic process counts).
    done: AtomicU64,
    runs: Mutex<Option<Runs>>,
    result: std::path::PathBuf,
    want: u64,
}

impl Shared {
    /// Records an iteration ending now; writes the result once `want` are done.
    fn finish(&self, ok: bool) {
        let t1 = now();
        let i = self.done.fetch_add(1, Ordering::AcqRel);
        let mut guard = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(r) = guard.as_mut() {
            r.add(i as usize, self.t0.load(Ordering::Acquire), t1, 1, ok);
        }
        if i + 1 == self.want {
            if let Some(r) = guard.take() {
                let res = SfpResult {
                    rows: vec![r.row],
                    ..SfpResult::default()
                };
                partita_bench_protocol::write_result_or_say(&self.result, &res);
            }
        }
    }
}

/// A partition of the application ([`ExchangePartitionArgs`]), run by the partition manager.
/// A set-up error is written to the result file.
pub fn partition_main(words: &[String]) -> Result<(), PartitionError> {
    let args = ExchangePartitionArgs::parse(words)?;
    set_up(&args).inspect_err(|e| {
        let r = SfpResult {
            error: Some(e.to_string()),
            ..SfpResult::default()
        };
        partita_bench_protocol::write_result_or_say(&args.result, &r);
    })
}

fn set_up(args: &ExchangePartitionArgs) -> Result<(), PartitionError> {
    let rt = crate::runtime()?;
    let g = Guard {
        epoch: now() - rt.now() + args.offset_ns,
        frame: args.major_frame_ns,
        lo: args.edge_guard_ns,
        hi: args.window_ns - args.spin_margin_ns - args.edge_guard_ns,
    };
    let (name, what) = match args.role {
        ExchangeRole::Crc => (
            "SAMPLE APEX APP A",
            "periodic process makes 256 random bytes, sporadic process computes their CRC-32 and writes both to a sampling port",
        ),
        ExchangeRole::Matrix => (
            "SAMPLE APEX APP B",
            "periodic process reads the sampling port, sporadic process checks the CRC and multiplies two 8x8 matrices made of the data",
        ),
    };
    let sh = Arc::new(Shared {
        msg: Mutex::new(vec![0; EXCHANGE_MESSAGE]),
        t0: AtomicI64::new(0),
        done: AtomicU64::new(0),
        runs: Mutex::new(Some(Runs::new(
            g,
            empty_timing_pair(1000).median,
            name,
            APPLICATION,
            what,
        ))),
        result: args.result.clone(),
        want: (args.runs + super::WARMUP_RUNS) as u64,
    });
    let go =
        apex::intra::semaphore::create_semaphore(&apex::name("go"), 0, 1, QueuingDiscipline::Fifo)
            .map_err(PartitionError::apex("CREATE_SEMAPHORE"))?;
    let port = match args.role {
        ExchangeRole::Crc => apex::inter::sampling::create_sampling_port(
            &apex::name(EXCHANGE_SOURCE),
            EXCHANGE_MESSAGE,
            PortDirection::Source,
            0,
        ),
        ExchangeRole::Matrix => apex::inter::sampling::create_sampling_port(
            &apex::name(EXCHANGE_DESTINATION),
            EXCHANGE_MESSAGE,
            PortDirection::Destination,
            0,
        ),
    }
    .map_err(PartitionError::apex("CREATE_SAMPLING_PORT"))?;
    let period = apex::partition::get_partition_status()
        .map_err(PartitionError::apex("GET_PARTITION_STATUS"))?
        .period;
    let attrs = |name: &str, priority: i32, period: i64| apex::process::ProcessAttributes {
        name: apex::name(name),
        entry: 0,
        stack_size: 128 * 1024,
        base_priority: priority,
        period,
        time_capacity: if period == INF { INF } else { period },
        deadline: apex::process::DeadlineType::Soft,
    };
    let role = args.role;
    let s = sh.clone();
    let periodic = apex::process::create_process(&attrs("periodic", 20, period), move || {
        let mut rng = Lcg(0x5fb_c0de);
        let mut seq = 0u64;
        let mut buf = vec![0u8; EXCHANGE_MESSAGE];
        loop {
            s.t0.store(now(), Ordering::Release);
            let go_on = match role {
                ExchangeRole::Crc => {
                    let mut m = s.msg.lock().unwrap_or_else(|p| p.into_inner());
                    for b in m[12..].iter_mut() {
                        *b = rng.next_u32() as u8;
                    }
                    true
                }
                ExchangeRole::Matrix => {
                    match apex::inter::sampling::read_sampling_message(port, &mut buf) {
                        Ok((n, _)) if n == EXCHANGE_MESSAGE => {
                            let got = u64::from_le_bytes(buf[..8].try_into().unwrap_or([0; 8]));
                            let new = got != seq;
                            if new {
                                seq = got;
                                s.msg
                                    .lock()
                                    .unwrap_or_else(|p| p.into_inner())
                                    .copy_from_slice(&buf);
                            }
                            new
                        }
                        _ => false,
                    }
                }
            };
            if go_on {
                let _ = apex::intra::semaphore::signal_semaphore(go);
            }
            if apex::time::periodic_wait().is_err() {
                return;
            }
        }
    })
    .map_err(PartitionError::apex("CREATE_PROCESS (periodic)"))?;
    let s = sh.clone();
    let sporadic = apex::process::create_process(&attrs("sporadic", 30, INF), move || {
        let mut seq = 0u64;
        let mut c = Vec::new();
        loop {
            if apex::intra::semaphore::wait_semaphore(go, INF).is_err() {
                return;
            }
            let ok = match role {
                ExchangeRole::Crc => {
                    seq += 1;
                    let mut m = s.msg.lock().unwrap_or_else(|p| p.into_inner());
                    let crc = crc32(&m[12..]);
                    m[..8].copy_from_slice(&seq.to_le_bytes());
                    m[8..12].copy_from_slice(&crc.to_le_bytes());
                    apex::inter::sampling::write_sampling_message(port, &m).is_ok()
                }
                ExchangeRole::Matrix => {
                    let m = s.msg.lock().unwrap_or_else(|p| p.into_inner());
                    let crc = u32::from_le_bytes(m[8..12].try_into().unwrap_or([0; 4]));
                    let words: Vec<u32> = m[12..12 + EXCHANGE_DATA]
                        .chunks_exact(4)
                        .map(|w| u32::from_le_bytes(w.try_into().unwrap_or([0; 4])))
                        .collect();
                    let t: Vec<u32> = (0..SIDE * SIDE)
                        .map(|k| words[(k % SIDE) * SIDE + k / SIDE])
                        .collect();
                    matrix_product(&words, &t, SIDE, &mut c);
                    std::hint::black_box(&c);
                    crc32(&m[12..]) == crc
                }
            };
            s.finish(ok);
        }
    })
    .map_err(PartitionError::apex("CREATE_PROCESS (sporadic)"))?;
    apex::process::start(periodic).map_err(PartitionError::apex("START"))?;
    apex::process::start(sporadic).map_err(PartitionError::apex("START"))?;
    apex::partition::set_partition_mode(OperatingMode::Normal)
        .map_err(PartitionError::apex("SET_PARTITION_MODE"))
}
