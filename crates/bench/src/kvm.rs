// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita bench kvm`: the costs of the KVM monitor (`partita-kvm`, issue 15's first stage),
//! each from one host thread:
//!
//! - **create**: `Vm::new` (VM, memory, system area, image, vCPU, time page);
//! - **first hypercall**: from the first `Vm::run` to the guest's first hypercall (the guest
//!   starts, sets up its heap, formats a line);
//! - **hypercall round trip**: one `Vm::run` answering an echo hypercall of a guest that makes
//!   nothing else;
//! - **kick stop**: from a kick on another thread to `Vm::run` returning `Kicked`;
//! - **resume**: from `Vm::run` being called to the guest's first instruction (guest TSC);
//! - **switch**: one thread runs VM A until a kick, then VM B: from A's last instruction to B's
//!   first (guest TSCs, which the monitor sets to the host's);
//! - **pause/resume**: the same loop with one VM: from its last instruction to its next.
//!
//! The guests are the `clock_spinner`, `flood` and `hello` executables of `crates/kvm-guest`,
//! found in [`KVM_GUESTS_DIR_ENV`] or next to the workspace's `target/` (where its tests build
//! them).

use crate::{BenchError, Figures};
use partita_kvm::{Exit, Hypercall, Hypervisor, Image, Kicker, Vm, VmConfig, VmError};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread;

/// Environment variable naming the directory of the guest executables (default:
/// `target/kvm-guest/x86_64-unknown-linux-gnu/release` beside the running executable's
/// `target/<profile>` directory).
pub const KVM_GUESTS_DIR_ENV: &str = "PARTITA_KVM_GUESTS_DIR";

/// What `partita bench kvm` measures.
#[derive(Debug, Clone, Default)]
pub struct KvmOptions {
    /// 200 samples per figure instead of 2,000.
    pub quick: bool,
}

/// The figures of `partita bench kvm`, in ns.
#[derive(Debug, Clone, Serialize)]
pub struct KvmReport {
    /// Samples per figure.
    pub samples: usize,
    /// Whether KVM exchanges registers through the run page (`KVM_CAP_SYNC_REGS`).
    pub sync_regs: bool,
    /// Whether the measuring thread ran at a real-time priority (as the scheduler threads
    /// will), its kick timer above it; without root both run at normal priority.
    pub realtime: bool,
    /// `Vm::new`.
    pub create: Figures,
    /// First `Vm::run` to the first hypercall.
    pub first_hypercall: Figures,
    /// One echo hypercall.
    pub round_trip: Figures,
    /// Kick to `Vm::run` returning.
    pub kick_stop: Figures,
    /// `Vm::run` called to the guest's first instruction.
    pub resume: Figures,
    /// Last instruction of VM A to the first of VM B, one thread.
    pub switch: Figures,
    /// Last instruction of a VM to its next, one thread, one VM.
    pub pause_resume: Figures,
}

fn guests_dir() -> Result<PathBuf, BenchError> {
    if let Some(d) = std::env::var_os(KVM_GUESTS_DIR_ENV) {
        return Ok(PathBuf::from(d));
    }
    let exe = std::env::current_exe().map_err(BenchError::OwnExecutable)?;
    // target/<profile>/partita -> target/kvm-guest/...
    let target = exe
        .parent()
        .and_then(Path::parent)
        .unwrap_or_else(|| Path::new("/"));
    Ok(target.join("kvm-guest/x86_64-unknown-linux-gnu/release"))
}

fn image(name: &str) -> Result<Image, BenchError> {
    let path = guests_dir()?.join(name);
    let bytes =
        std::fs::read(&path).map_err(|_| BenchError::MissingKvmGuest { path: path.clone() })?;
    Image::parse(&bytes).map_err(|source| BenchError::KvmImage { path, source })
}

fn kvm_err(e: VmError) -> BenchError {
    BenchError::Kvm(Box::new(e))
}

fn unexpected(guest: &'static str, exit: &Exit) -> BenchError {
    BenchError::KvmExit {
        guest,
        exit: format!("{exit:?}"),
    }
}

fn now() -> i64 {
    partita_sys::time::monotonic_ns() as i64
}

fn config() -> VmConfig {
    VmConfig {
        memory_size: 8 << 20,
        time_base_ns: 0,
    }
}

/// Runs the benchmark.
pub fn run_kvm(
    o: &KvmOptions,
    stop: Arc<AtomicBool>,
    progress: impl Fn(&str),
) -> Result<KvmReport, BenchError> {
    let n = if o.quick { 200 } else { 2000 };
    let hv = Hypervisor::open()?;
    // The scheduler's threads run at real-time priority; so does the measuring thread where
    // it may (the kick timer thread one above).
    let realtime = partita_sys::sched::set_fifo(0, MEASURE_PRIORITY).is_ok();
    let hello = image("hello")?;
    let flood = image("flood")?;
    let spinner = image("clock_spinner")?;
    let stopped = || stop.load(Ordering::Relaxed);
    progress("creating VMs");
    let (create, first_hypercall) = startup(&hv, &hello, n, &stopped)?;
    progress("hypercall round trips");
    let round_trip = round_trips(&hv, &flood, n * 10, &stopped)?;
    progress("kicks, resumes and switches");
    let timer = KickTimer::start();
    let mut a = Spinner::new(&hv, &spinner)?;
    let mut b = Spinner::new(&hv, &spinner)?;
    let (mut kick_stop, mut resume, mut pause) = (Vec::new(), Vec::new(), Vec::new());
    let mut last = a.window(&timer, &mut kick_stop, &mut resume)?.0;
    for _ in 0..n {
        if stopped() {
            break;
        }
        let (next, first) = a.window(&timer, &mut kick_stop, &mut resume)?;
        pause.extend(first.and_then(|f| a.since(last, f)));
        last = next;
    }
    let mut switch = Vec::new();
    let mut last_a = last;
    for _ in 0..n {
        if stopped() {
            break;
        }
        let (last_b, first_b) = b.window(&timer, &mut kick_stop, &mut resume)?;
        switch.extend(first_b.and_then(|f| b.since(last_a, f)));
        let (next_a, first_a) = a.window(&timer, &mut kick_stop, &mut resume)?;
        switch.extend(first_a.and_then(|f| a.since(last_b, f)));
        last_a = next_a;
    }
    if round_trip.count == 0 || pause.is_empty() || switch.is_empty() {
        return Err(BenchError::NoSample);
    }
    Ok(KvmReport {
        samples: n,
        sync_regs: hv.has_sync_regs(),
        realtime,
        create,
        first_hypercall,
        round_trip,
        kick_stop: Figures::of(&mut kick_stop),
        resume: Figures::of(&mut resume),
        switch: Figures::of(&mut switch),
        pause_resume: Figures::of(&mut pause),
    })
}

fn startup(
    hv: &Hypervisor,
    hello: &Image,
    n: usize,
    stopped: &impl Fn() -> bool,
) -> Result<(Figures, Figures), BenchError> {
    let (mut create, mut first) = (Vec::new(), Vec::new());
    for _ in 0..n {
        if stopped() {
            break;
        }
        let t0 = now();
        let mut vm = Vm::new(hv, hello, &config()).map_err(kvm_err)?;
        let t1 = now();
        let exit = vm.run().map_err(kvm_err)?;
        let t2 = now();
        if !matches!(exit, Exit::Hypercall(Hypercall::Write(_))) {
            return Err(unexpected("hello", &exit));
        }
        create.push(t1 - t0);
        first.push(t2 - t1);
    }
    Ok((Figures::of(&mut create), Figures::of(&mut first)))
}

fn round_trips(
    hv: &Hypervisor,
    flood: &Image,
    n: usize,
    stopped: &impl Fn() -> bool,
) -> Result<Figures, BenchError> {
    let mut vm = Vm::new(hv, flood, &config()).map_err(kvm_err)?;
    let mut samples = Vec::with_capacity(n);
    for i in 0..n + 100 {
        if stopped() {
            break;
        }
        let t0 = now();
        let exit = vm.run().map_err(kvm_err)?;
        let t1 = now();
        if !matches!(exit, Exit::Hypercall(Hypercall::Echo(_))) {
            return Err(unexpected("flood", &exit));
        }
        // The first hundred warm the path up.
        if i >= 100 {
            samples.push(t1 - t0);
        }
    }
    Ok(Figures::of(&mut samples))
}

/// A thread that kicks a VM at a deadline and sends back the instant it kicked.
struct KickTimer {
    requests: mpsc::Sender<(Kicker, i64)>,
    kicked: mpsc::Receiver<i64>,
}

impl KickTimer {
    fn start() -> KickTimer {
        let (requests, rx) = mpsc::channel::<(Kicker, i64)>();
        let (tx, kicked) = mpsc::channel();
        thread::spawn(move || {
            // Without root this fails like the measuring thread's, and both stay normal.
            let _ = partita_sys::sched::set_fifo(0, MEASURE_PRIORITY + 1);
            for (kicker, deadline) in rx {
                partita_sys::time::sleep_until(deadline as u64);
                let at = now();
                if kicker.kick().is_err() || tx.send(at).is_err() {
                    return;
                }
            }
        });
        KickTimer { requests, kicked }
    }
}

/// A `clock_spinner` guest and the address of its marks.
struct Spinner {
    vm: Vm,
    marks: u64,
}

impl Spinner {
    fn new(hv: &Hypervisor, image: &Image) -> Result<Spinner, BenchError> {
        let mut vm = Vm::new(hv, image, &config()).map_err(kvm_err)?;
        match vm.run().map_err(kvm_err)? {
            Exit::Hypercall(Hypercall::Echo(marks)) => Ok(Spinner { vm, marks }),
            other => Err(unexpected("clock_spinner", &other)),
        }
    }

    fn word(&self, i: u64) -> Result<u64, BenchError> {
        let mut b = [0u8; 8];
        self.vm
            .read_memory(self.marks + 8 * i, &mut b)
            .map_err(kvm_err)?;
        Ok(u64::from_le_bytes(b))
    }

    /// Nanoseconds from TSC reading `from` to `to` (none if `to` is earlier).
    fn since(&self, from: u64, to: u64) -> Option<i64> {
        let ticks = to.checked_sub(from)?;
        let page = self.vm.time_page();
        i64::try_from(page.ns_at(page.tsc_base.saturating_add(ticks)) - page.ns_base).ok()
    }

    /// Arms the resume mark, runs the guest for about 1 ms until a kick, records the kick's
    /// stop latency and the resume latency; returns the guest's last TSC reading before the
    /// stop and its first after the resume (none if it saw no stop).
    fn window(
        &mut self,
        timer: &KickTimer,
        kick_stop: &mut Vec<i64>,
        resume: &mut Vec<i64>,
    ) -> Result<(u64, Option<u64>), BenchError> {
        self.vm
            .write_memory(self.marks + 16, &1u64.to_le_bytes())
            .map_err(kvm_err)?;
        timer
            .requests
            .send((self.vm.kicker(), now() + 1_000_000))
            .map_err(|_| BenchError::KvmTimer)?;
        let called = partita_sys::time::tsc();
        let exit = self.vm.run().map_err(kvm_err)?;
        let returned = now();
        if exit != Exit::Kicked {
            return Err(unexpected("clock_spinner", &exit));
        }
        let kicked = timer.kicked.recv().map_err(|_| BenchError::KvmTimer)?;
        kick_stop.push(returned - kicked);
        let first = if self.word(2)? == 0 {
            Some(self.word(1)?)
        } else {
            None
        };
        resume.extend(first.and_then(|f| self.since(called, f)));
        Ok((self.word(0)?, first))
    }
}

/// The Markdown table of the figures (µs).
pub fn render_kvm(r: &KvmReport) -> String {
    let us = |ns: i64| format!("{:.1}", ns as f64 / 1000.0);
    let mut s = format!(
        "# KVM monitor (issue 15, first stage)\n\n{} samples per figure; registers through the run page: {}; measuring thread: {}.\n\n",
        r.samples,
        if r.sync_regs { "yes" } else { "no (ioctls)" },
        if r.realtime { "SCHED_FIFO 80" } else { "normal priority (not root)" }
    );
    s.push_str(
        "| figure | median (us) | p99 (us) | max (us) | count |\n|---|---:|---:|---:|---:|\n",
    );
    for (name, f) in [
        ("VM creation", &r.create),
        ("first run to first hypercall", &r.first_hypercall),
        ("hypercall round trip", &r.round_trip),
        ("kick to stop", &r.kick_stop),
        ("resume (run called to first guest instruction)", &r.resume),
        ("switch between two VMs, one thread", &r.switch),
        ("pause/resume of one VM, one thread", &r.pause_resume),
    ] {
        s.push_str(&format!(
            "| {name} | {} | {} | {} | {} |\n",
            us(f.median),
            us(f.p99),
            us(f.max),
            f.count
        ));
    }
    let verdict = |met: bool| if met { "PASS" } else { "MISS" };
    let startup = r.create.median + r.first_hypercall.median;
    s.push_str(&format!(
        "\nTargets of issue 15 (medians; figures, not tests):\n\n\
         - {} partition start-up (VM creation to first hypercall) under {} ms: {:.2} ms\n",
        verdict(startup < STARTUP_TARGET_NS),
        STARTUP_TARGET_NS / 1_000_000,
        startup as f64 / 1e6
    ));
    if r.pause_resume.median > 0 {
        let ratio = r.switch.median as f64 / r.pause_resume.median as f64;
        s.push_str(&format!(
            "- {} switch between two VMs within {SWITCH_TARGET_RATIO}x of pause/resume: {ratio:.2}x\n",
            verdict(ratio <= SWITCH_TARGET_RATIO)
        ));
    }
    s
}

/// The measuring thread's `SCHED_FIFO` priority: below the manager's scheduler threads (90).
const MEASURE_PRIORITY: i32 = 80;

/// Issue 15's target for a partition's start-up (VM creation to first hypercall).
const STARTUP_TARGET_NS: i64 = 5_000_000;
/// Issue 15's target for a switch between two VMs against pause/resume.
const SWITCH_TARGET_RATIO: f64 = 1.3;
