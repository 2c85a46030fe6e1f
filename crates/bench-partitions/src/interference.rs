// SPDX-License-Identifier: MIT OR Apache-2.0
//! The processes of `partita bench interference`: the real-time partition (a periodic APEX
//! process with a fixed amount of memory-bound work per job, recording each job's release,
//! start and finish) and the general-purpose load (an ordinary program: CPU, memory or I/O
//! and network load, reporting the work it did).

use crate::PartitionError;
use partita_apex::apex;
use partita_apex::core::OperatingMode;
use partita_bench_protocol::args::{InterferencePartitionArgs, LoadArgs};
use partita_bench_protocol::interference::{
    InterferenceResult, Job, LoadKind, LoadProgress, PROGRESS_EVERY_MS, WARMUP_JOBS,
};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Bytes of a cache line: the stride of the memory work.
const LINE: usize = 64;

/// One job's work: `passes` read-modify-write passes over `set`, one word per cache line (a
/// fixed amount of work whose time shows what the caches and the memory bus cost).
pub fn touch(set: &mut [u64], passes: usize) -> u64 {
    let step = LINE / std::mem::size_of::<u64>();
    let mut sum = 0u64;
    for p in 0..passes as u64 {
        for i in (0..set.len()).step_by(step) {
            let v = set[i].wrapping_mul(31).wrapping_add(p);
            set[i] = v;
            sum = sum.wrapping_add(v);
        }
    }
    std::hint::black_box(sum)
}

/// The real-time partition ([`InterferencePartitionArgs`]), run by the partition manager: one
/// periodic process (the partition's period, released at each period start: the partition's
/// window starts the frame) records `jobs` jobs after [`WARMUP_JOBS`] and writes the result
/// file; it goes on without recording until the manager stops the module. A set-up error is
/// written to the result file too.
pub fn partition_main(words: &[String]) -> Result<(), PartitionError> {
    let args = InterferencePartitionArgs::parse(words)?;
    set_up(&args).inspect_err(|e| {
        let r = InterferenceResult {
            error: Some(e.to_string()),
            ..InterferenceResult::default()
        };
        partita_bench_protocol::write_result_or_say(&args.result, &r);
    })
}

fn set_up(args: &InterferencePartitionArgs) -> Result<(), PartitionError> {
    let rt = crate::runtime()?;
    let period = apex::partition::get_partition_status()
        .map_err(PartitionError::apex("GET_PARTITION_STATUS"))?
        .period;
    let attrs = apex::process::ProcessAttributes {
        name: apex::name("periodic"),
        entry: 0,
        stack_size: 64 * 1024,
        base_priority: 10,
        period,
        time_capacity: period,
        deadline: apex::process::DeadlineType::Soft,
    };
    let a = args.clone();
    let pid = apex::process::create_process(&attrs, move || {
        // The working set, touched once so that its pages exist before the first job (the
        // warm-up jobs are not recorded).
        let mut set = vec![1u64; a.work_kib * 1024 / std::mem::size_of::<u64>()];
        touch(&mut set, 1);
        let mut jobs = Vec::with_capacity(a.jobs);
        let (mut seen, mut done) = (0usize, false);
        loop {
            let start = rt.now();
            touch(&mut set, a.passes);
            let finish = rt.now();
            seen += 1;
            if !done && seen > WARMUP_JOBS {
                jobs.push(Job {
                    release: start - start.rem_euclid(period),
                    start,
                    finish,
                });
                if jobs.len() >= a.jobs {
                    let r = InterferenceResult {
                        error: None,
                        jobs: std::mem::take(&mut jobs),
                    };
                    partita_bench_protocol::write_result_or_say(&a.result, &r);
                    done = true;
                }
            }
            if apex::time::periodic_wait().is_err() {
                return;
            }
        }
    })
    .map_err(PartitionError::apex("CREATE_PROCESS"))?;
    apex::process::start(pid).map_err(PartitionError::apex("START"))?;
    apex::partition::set_partition_mode(OperatingMode::Normal)
        .map_err(PartitionError::apex("SET_PARTITION_MODE"))?;
    Err(PartitionError::NormalReturned)
}

/// Work done by the load, in units of its kind.
#[derive(Clone, Default)]
struct Units(Arc<AtomicU64>);

impl Units {
    fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }

    fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// The general-purpose load ([`LoadArgs`]): an ordinary program, no APEX. It loads the CPU,
/// the memory or the file system and the network without end, rewriting its progress file
/// every [`PROGRESS_EVERY_MS`]; the manager stops it with the module.
pub fn load_main(words: &[String]) -> Result<(), PartitionError> {
    let args = LoadArgs::parse(words)?;
    let units = Units::default();
    let worker = units.clone();
    let io_error = std::sync::Mutex::new(None::<String>);
    let kind = args.kind;
    std::thread::scope(|s| -> Result<(), PartitionError> {
        let io_error = &io_error;
        s.spawn(move || match kind {
            LoadKind::Cpu => cpu(&worker),
            LoadKind::Memory => memory(&worker),
            LoadKind::Io => {
                if let Err(e) = io(&worker) {
                    *io_error.lock().unwrap_or_else(|e| e.into_inner()) = Some(e.to_string());
                }
            }
        });
        let first = partita_sys::time::monotonic_ns();
        loop {
            std::thread::sleep(std::time::Duration::from_millis(PROGRESS_EVERY_MS));
            let p = LoadProgress {
                error: io_error.lock().unwrap_or_else(|e| e.into_inner()).clone(),
                units: units.get(),
                first_ns: first,
                last_ns: partita_sys::time::monotonic_ns(),
            };
            partita_bench_protocol::write_result_or_say(&args.progress, &p);
        }
    })
}

/// A million iterations of register arithmetic per unit.
fn cpu(units: &Units) -> ! {
    let mut x = 1u64;
    loop {
        for k in 0..1_000_000u64 {
            x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(k));
        }
        units.add(1);
    }
}

/// Read-modify-write of every cache line of a 64 MiB buffer; a unit per MiB.
fn memory(units: &Units) -> ! {
    const MIB: usize = 1 << 20;
    let mut buf = vec![1u64; 64 * MIB / std::mem::size_of::<u64>()];
    let per_mib = MIB / std::mem::size_of::<u64>();
    loop {
        for chunk in buf.chunks_mut(per_mib) {
            touch(chunk, 1);
            units.add(1);
        }
    }
}

/// Files written and synced in the working directory (the partition's own), and data sent
/// through a TCP connection over its loopback interface; a unit per MiB of either.
fn io(units: &Units) -> std::io::Result<()> {
    use std::io::{Read, Write};
    const MIB: usize = 1 << 20;
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    let net = units.clone();
    let _receiver = std::thread::spawn(move || -> std::io::Result<()> {
        let (mut conn, _) = listener.accept()?;
        let mut buf = vec![0u8; MIB];
        let mut got = 0usize;
        loop {
            let n = conn.read(&mut buf)?;
            if n == 0 {
                return Ok(());
            }
            got += n;
            if got >= MIB {
                got -= MIB;
                net.add(1);
            }
        }
    });
    let mut out = std::net::TcpStream::connect(addr)?;
    let block = vec![0x5au8; MIB];
    let sender = std::thread::spawn(move || -> std::io::Result<()> {
        loop {
            out.write_all(&block)?;
        }
    });
    let data = vec![0xa5u8; MIB];
    let mut k = 0u64;
    loop {
        if sender.is_finished() {
            return Err(std::io::Error::other("the TCP sender ended"));
        }
        let mut f = std::fs::File::create(format!("load-{}.dat", k % 4))?;
        for _ in 0..4 {
            f.write_all(&data)?;
            units.add(1);
        }
        f.sync_all()?;
        k += 1;
    }
}
