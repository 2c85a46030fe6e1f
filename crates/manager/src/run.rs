// SPDX-License-Identifier: MIT OR Apache-2.0
//! A module run as one value: [`Run::set_up`] creates everything a run needs (cgroups, control
//! blocks, channels, the clean-up guard, the health monitor, the output thread, the partition
//! processes), [`Run::start`] fixes the epoch and starts the scheduler threads, and dropping
//! the value tears down whatever exists (threads stopped, processes killed and reaped, cgroups
//! removed, guard dismissed), so that no early return needs a hand-written clean-up. The
//! supervisor's normal end takes the same steps one by one ([`Run::stop_scheduler`],
//! [`Run::kill_partitions`], [`Run::release`]) to keep what the report needs.

use crate::backend::Backend;
use crate::bridge::{self, Bridge};
use crate::corelock::{CoreLocks, UidBlock};
use crate::hm::Hm;
use crate::host::HostInfo;
use crate::lifecycle::LifeCycle;
use crate::msched::Schedules;
use crate::output::{Output, Partitions, Sinks, Target};
use crate::partition::Partition;
use crate::ports::Channels;
use crate::report::{Note, NoteKind};
use crate::scheduler::{run_core, CoreStats, Shared};
use crate::{ManagerError, RunOptions};
use partita_abi::StartCondition;
use partita_config::CompiledPlan;
use partita_sys::cgroup::{Cgroup, Freezer, FreezerKind};
use partita_sys::guard::{Guard, GuardPlan};
use partita_sys::spawn::Namespaces;
use partita_sys::time::monotonic_ns;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Signal numbers (kept here so the manager needs no libc dependency).
pub(crate) mod signal {
    pub const SIGINT: i32 = 2;
    pub const SIGTERM: i32 = 15;
    pub const SIGKILL: i32 = 9;
    /// Simulated power failure.
    pub const SIGPWR: i32 = 30;
}

/// How long the tear-down waits for the partitions to die after SIGKILL.
const KILL_WAIT_NS: u64 = 5_000_000_000;

/// Everything a running module owns. See the module documentation.
pub(crate) struct Run<'a> {
    pub plan: Arc<CompiledPlan>,
    pub opts: &'a RunOptions,
    pub host: HostInfo,
    pub backend: Backend,
    /// Real-time priorities are used.
    pub rt: bool,
    /// Remarks for the report.
    pub notes: Vec<Note>,
    /// `partita/<pid>-<time>`: this run's directory in every cgroup hierarchy.
    run_dir: String,
    /// The partitions' directories on the host (crate::rundir).
    host_dir: Option<crate::rundir::RunDir>,
    pub parts: Vec<Arc<Partition>>,
    /// v1 freezer: a cgroup kept frozen for the whole run (see [`Run::freeze_sentinel`]).
    sentinel: Option<(Cgroup, Freezer)>,
    pub channels: Option<Arc<Channels>>,
    /// The pseudo-partition bridge, opened and not yet started.
    bridge: Option<Bridge>,
    running_bridge: Option<bridge::Running>,
    guard: Option<Guard>,
    pub epoch_cell: Arc<AtomicU64>,
    pub hm: Arc<Hm>,
    output: Option<Output>,
    pub namespaces: Namespaces,
    pub schedules: Arc<Schedules>,
    scheduler: Option<Scheduler>,
    /// The rings and drain thread of a traced run (crate::trace).
    trace: Option<crate::trace::Tracing>,
    /// Everything is torn down already ([`Run::release`]).
    torn_down: bool,
    /// Cores whose schedule does not fit in the real-time budget (crate::rtbudget), warned
    /// about when the run starts.
    rt_warnings: Vec<String>,
    /// The real-time budget set for the run (`--rt-budget`), written back when dropped:
    /// after the partitions are gone.
    rt_budget: Option<crate::rtbudget::RtBudgetRestore>,
    /// Released after everything else (fields drop after [`Drop::drop`]).
    _uid_block: UidBlock,
}

/// The scheduler threads of a started run.
struct Scheduler {
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<CoreStats>>,
    _core_locks: CoreLocks,
}

impl<'a> Run<'a> {
    /// Sets up a run of `plan` (a checked plan): everything up to the partitions spawned and
    /// held before their first window. On error, what was created is torn down.
    pub fn set_up(plan: Arc<CompiledPlan>, opts: &'a RunOptions) -> Result<Run<'a>, ManagerError> {
        let host = HostInfo::detect();
        let backend = Backend::resolve(opts.backend, &host)?;
        let rt = opts.realtime && host.fifo;
        let mut notes = host_notes(&host, backend, opts);
        // The real-time budget asked for, set before anything real-time runs; what the
        // schedule leaves idle is then checked against the budget in force.
        let rt_budget = crate::rtbudget::apply(opts.rt_budget)?;
        if let Some(r) = &rt_budget {
            notes.push(Note::new(
                NoteKind::RtThrottling,
                format!(
                    "real-time budget set to {} us for the run (was {} us), restored at the end",
                    opts.rt_budget.runtime_us().unwrap_or_default(),
                    r.previous()
                ),
            ));
        }
        let frames: Vec<&partita_schedule::FramePlan> =
            plan.schedules.iter().map(|s| &s.plan).collect();
        let throttle = partita_sys::sched::rt_throttling();
        let rt_warnings: Vec<String> = crate::rtbudget::short_cores(&frames, throttle)
            .iter()
            .map(|c| c.to_string())
            .collect();
        if rt_warnings.is_empty() {
            notes.extend(throttling_note(throttle));
        } else {
            notes.extend(Note::all(NoteKind::RtThrottling, rt_warnings.clone()));
        }
        if opts.handle_signals {
            partita_sys::proc::block_signals(&[signal::SIGINT, signal::SIGTERM, signal::SIGPWR])?;
        }
        if rt {
            if let Err(e) = partita_sys::sched::lock_memory() {
                notes.push(Note::new(
                    NoteKind::MemoryNotLocked,
                    format!("could not lock the manager's memory: {e}"),
                ));
            }
        }
        let run_dir = format!(
            "partita/{}-{}",
            partita_sys::sched::getpid(),
            monotonic_ns() / 1000
        );
        if host.root {
            let own = run_dir.rsplit('/').next();
            for r in crate::reclaim::reclaim_except(&host, own, false) {
                notes.push(Note::new(
                    NoteKind::Reclaimed,
                    format!(
                        "reclaimed what an earlier run whose manager is gone left: {}",
                        r.summary(false)
                    ),
                ));
            }
        }
        // Partition uids of this run, distinct from those of any other module running now.
        let (uid_block, uid_note) = crate::corelock::acquire_uid_block();
        notes.extend(uid_note.map(|n| Note::new(NoteKind::UidBlock, n)));
        if uid_block.block != 0 {
            notes.push(Note::new(
                NoteKind::UidBlock,
                format!(
                    "another module holds partition id block 0: this run's partitions use uids from {} (block {})",
                    partita_sys::isolation::partition_uid(0),
                    uid_block.block
                ),
            ));
        }
        let epoch_cell = Arc::new(AtomicU64::new(monotonic_ns()));
        let hm = Hm::new(
            plan.hm.clone(),
            &plan.module_name,
            run_dir.rsplit('/').next().unwrap_or_default(),
            plan.partitions.len(),
            epoch_cell.clone(),
            opts.hm_log.as_deref(),
        )
        .map_err(|source| ManagerError::Log {
            path: opts.hm_log.clone().unwrap_or_default(),
            source,
        })?;
        let namespaces = namespaces(opts, &host, &mut notes);
        let mut run = Run {
            schedules: Arc::new(Schedules::new(&plan)),
            plan,
            opts,
            host,
            backend,
            rt,
            notes,
            run_dir,
            host_dir: None,
            parts: Vec::new(),
            sentinel: None,
            channels: None,
            bridge: None,
            running_bridge: None,
            guard: None,
            epoch_cell,
            hm: Arc::new(hm),
            output: None,
            namespaces,
            scheduler: None,
            trace: None,
            torn_down: false,
            rt_warnings,
            rt_budget,
            _uid_block: uid_block,
        };
        run.prepare_partitions()?;
        run.prepare_trace()?;
        run.start_guard();
        run.start_output()?;
        run.spawn_partitions()?;
        Ok(run)
    }

    /// Cgroups and control blocks of every partition, the scheduler wake-up words, the
    /// channels and the pseudo-partition bridge.
    fn prepare_partitions(&mut self) -> Result<(), ManagerError> {
        for i in 0..self.plan.partitions.len() {
            let p = Partition::prepare(&self.plan, i, &self.host, self.backend, &self.run_dir)?;
            self.parts.push(Arc::new(p));
        }
        self.create_host_dir()?;
        if self.host.root {
            // Partitions run under their own uids: say which configured paths they cannot reach.
            let notes = crate::rundir::unreachable_paths(&self.plan);
            self.notes.extend(notes);
        }
        // One scheduler wake-up word per CPU, for the creation threads' hints.
        let cpus = self
            .parts
            .iter()
            .flat_map(|p| p.cpus.iter().copied())
            .chain(0..self.host.cpus)
            .max()
            .map_or(0, |c| c as usize + 1);
        let words: Arc<[AtomicU32]> = (0..cpus).map(|_| AtomicU32::new(0)).collect();
        for p in &self.parts {
            let _ = p.nudge.set(words.clone());
        }
        if let Some(ch) = crate::ports::create(&self.plan)? {
            for p in &self.parts {
                let _ = p.channels.set(ch.clone());
            }
            self.bridge = Bridge::open(&ch)?;
            self.channels = Some(ch);
        }
        if self.backend == Backend::FreezerV1 {
            self.freeze_sentinel()?;
        }
        Ok(())
    }

    /// The trace rings of a traced run, before the partitions are spawned (each gets its
    /// own).
    fn prepare_trace(&mut self) -> Result<(), ManagerError> {
        let Some(t) = &self.opts.trace else {
            return Ok(());
        };
        if t.buffer < 16
            || !t.buffer.is_power_of_two()
            || t.buffer > partita_abi::trace::MAX_CAPACITY
        {
            return Err(ManagerError::TraceBuffer(t.buffer));
        }
        let tracing = crate::trace::Tracing::new(t, &self.schedules.cores, &self.parts)?;
        self.hm.set_trace(tracing.rings.module());
        self.trace = Some(tracing);
        Ok(())
    }

    /// Records the partitions' operating modes that changed (a traced run).
    pub fn trace_modes(&mut self) {
        if let Some(t) = &mut self.trace {
            t.note_modes(&self.parts);
        }
    }

    /// Ends the trace (after the partitions are dead): what the file holds.
    pub fn finish_trace(&mut self) -> Option<crate::trace::TraceReport> {
        let parts = self.parts.clone();
        let mut t = self.trace.take()?;
        t.note_modes(&parts);
        Some(t.finish())
    }

    /// The run directory and each partition's own directory in it (crate::rundir).
    fn create_host_dir(&mut self) -> Result<(), ManagerError> {
        let run = self.run_dir.rsplit('/').next().unwrap_or_default();
        let leaves: Vec<String> = self
            .plan
            .partitions
            .iter()
            .enumerate()
            .map(|(i, p)| format!("{i:02}-{}", crate::partition::sanitize(&p.name)))
            .collect();
        let dir = crate::rundir::RunDir::create(run, &leaves, self.host.root).map_err(|e| {
            partita_sys::SysError::io(
                format!(
                    "run directory {}",
                    crate::rundir::base().join(run).display()
                ),
                e,
            )
        })?;
        for (i, p) in self.parts.iter().enumerate() {
            if let Some(d) = dir.of(i) {
                let _ = p.work_dir.set(d.to_path_buf());
            }
        }
        self.host_dir = Some(dir);
        Ok(())
    }

    /// The run directory (removed by [`Run::release`]).
    pub fn host_dir(&self) -> Option<&std::path::Path> {
        self.host_dir.as_ref().map(|d| d.root())
    }

    /// Keeps one cgroup frozen for the whole run: the kernel then leaves its freezer static
    /// key enabled, and each freeze/thaw of a partition costs ~18 us instead of ~90 us of code
    /// patching.
    fn freeze_sentinel(&mut self) -> Result<(), ManagerError> {
        let root = self.host.mounts.freezer.as_ref().expect("v1 freezer");
        let g = Cgroup::create(root.join(&self.run_dir).join("sentinel"))?;
        let f = Freezer::open(&g, FreezerKind::V1)?;
        // Kept before freezing, so that the tear-down removes it whatever happens next.
        let (_, f) = self.sentinel.insert((g, f));
        f.freeze()?;
        Ok(())
    }

    /// The guard process that removes this run's cgroups if the manager dies.
    fn start_guard(&mut self) {
        let mut plan = guard_plan(&self.host, &self.parts, &self.run_dir, self.backend);
        // The real-time budget found, written back if the manager dies.
        if let Some(r) = &self.rt_budget {
            plan.thaw.push((
                cstr(r.path()),
                CString::new(r.previous().to_string()).expect("no NUL"),
            ));
        }
        match Guard::start(&plan) {
            Ok(g) => self.guard = Some(g),
            Err(e) => self.notes.push(Note::new(
                NoteKind::NoGuard,
                format!("no clean-up guard: {e}"),
            )),
        }
    }

    /// The partitions as the output thread sees them.
    fn output_partitions(&self) -> Partitions {
        let targets = self.parts.iter().map(|p| Target {
            name: p.spec().name.clone(),
            executable: p.spec().executable.clone(),
            counters: p.output.clone(),
        });
        let life = self.parts.iter().cloned();
        Partitions {
            targets: targets.collect(),
            life: life
                .map(|p| p as Arc<dyn LifeCycle + Send + Sync>)
                .collect(),
        }
    }

    /// The output thread and each partition's service thread.
    fn start_output(&mut self) -> Result<(), ManagerError> {
        let sinks = make_sinks(&self.plan, self.opts)?;
        let output = Output::start(
            self.output_partitions(),
            sinks,
            self.epoch_cell.clone(),
            self.hm.clone(),
        )?;
        // Each partition's service thread (extension mailbox, raise broker).
        crate::service::start(&self.parts, &self.hm, &output.events(), self.rt);
        self.output = Some(output);
        Ok(())
    }

    /// Spawns every partition, held before `execve`.
    fn spawn_partitions(&mut self) -> Result<(), ManagerError> {
        for i in 0..self.parts.len() {
            let p = self.parts[i].clone();
            p.fill_control(0, StartCondition::NormalStart, 0, self.rt, self.backend);
            self.schedules.publish_to(&p);
            self.spawn(&p)?;
        }
        Ok(())
    }

    /// Spawns a new incarnation of `p` (its control block filled) and hands its pipes to the
    /// output thread.
    pub fn spawn(&mut self, p: &Arc<Partition>) -> Result<(), ManagerError> {
        let pipes = p.spawn(
            self.backend,
            &mut self.namespaces,
            &mut self.notes,
            &self.opts.env,
            self.opts.seccomp,
        )?;
        self.output().add(p.index, pipes);
        crate::creation::start(p, self.rt);
        if let Some(t) = &self.trace {
            let (pid, incarnation) = {
                let d = p.state.lock().expect("partition state");
                (d.pid, d.restarts)
            };
            let e = partita_abi::trace::Event::new(
                monotonic_ns(),
                partita_abi::trace::EventKind::PartitionSpawned,
                pid.max(0) as u64,
                [u64::from(incarnation), 0, 0, 0],
            )
            .of_partition(crate::trace::partition_field(p.index));
            t.rings.module().record(e);
        }
        Ok(())
    }

    /// The output thread (running from set-up to [`Run::stop`]).
    pub fn output(&self) -> &Output {
        self.output
            .as_ref()
            .expect("the output thread runs from set-up on")
    }

    /// Fixes the epoch (far enough ahead for every scheduler thread to be asleep before it),
    /// starts the bridge and one scheduler thread per core. Returns the epoch.
    pub fn start(&mut self) -> Result<u64, ManagerError> {
        let epoch = (monotonic_ns() + 20_000_000).div_ceil(1_000_000) * 1_000_000;
        self.epoch_cell.store(epoch, Ordering::Relaxed);
        for p in &self.parts {
            p.control().epoch_ns.store(epoch, Ordering::Release);
        }
        self.hm.set_started();
        self.schedules.start(epoch);
        if let Some(p) = &self.opts.progress {
            p.start(epoch);
        }
        if let Some(b) = self.bridge.take() {
            match b.start(epoch) {
                Ok(r) => self.running_bridge = Some(r),
                Err(e) => self.notes.push(Note::new(
                    NoteKind::Bridge,
                    format!("pseudo-partitions not bridged: {e}"),
                )),
            }
        }
        if let (Some(t), Some(o)) = (&mut self.trace, &self.opts.trace) {
            let meta = crate::trace::meta(&self.plan, &self.host, &self.backend.to_string(), epoch);
            t.start(meta, o, &self.schedules.cores, self.opts.progress.clone())?;
            // The modes they start in, before any of them runs.
            t.note_modes(&self.parts);
            if let Some(e) = t.kernel_error() {
                let e = e.to_string();
                self.output
                    .as_ref()
                    .expect("the output thread runs from set-up on")
                    .event(&format!("warning: {e}"));
                self.notes.push(Note::new(NoteKind::Trace, e));
            }
        }
        let shared = Arc::new(self.shared(epoch));
        // Another module on one of these CPUs breaks time partitioning (crate::corelock).
        let (core_locks, busy) = crate::corelock::acquire(&self.schedules.cores);
        for n in busy.iter().chain(&self.rt_warnings) {
            self.output().event(&format!("warning: {n}"));
        }
        self.notes.extend(Note::all(NoteKind::CpuShared, busy));
        self.output().event(&format!(
            "module {} started: backend {}, {} partitions, major frame {} ms",
            self.plan.module_name,
            self.backend,
            self.parts.len(),
            self.plan.major_frame() as f64 / 1e6
        ));
        let scheduler = self.scheduler.insert(Scheduler {
            shared: shared.clone(),
            threads: Vec::new(),
            _core_locks: core_locks,
        });
        let initial = self.schedules.current();
        for &core in &self.schedules.cores {
            let tls = self.schedules.timelines(core);
            let sh = shared.clone();
            let rt = self.rt;
            let t = std::thread::Builder::new()
                .name(format!("partita-core{core}"))
                .spawn(move || run_core(&sh, core, tls, initial, rt))
                .map_err(|e| partita_sys::SysError::io("spawn scheduler thread", e))?;
            scheduler.threads.push(t);
        }
        Ok(epoch)
    }

    /// What the scheduler threads share.
    fn shared(&self, epoch: u64) -> Shared {
        let opts = self.opts;
        Shared {
            parts: self.parts.clone(),
            nudge: self
                .parts
                .first()
                .and_then(|p| p.nudge.get().cloned())
                .unwrap_or_else(|| Arc::from(Vec::new())),
            stop: AtomicU32::new(0),
            work: AtomicU32::new(0),
            epoch,
            end: opts.duration.map(|d| epoch + d.as_nanos() as u64),
            tolerance: opts.overrun_tolerance.as_nanos() as u64,
            cpu_accounting: true,
            spin_margin: if self.rt {
                opts.spin_margin.as_nanos() as u64
            } else {
                0
            },
            learn_wake: opts.learn_wake_latency,
            schedules: self.schedules.clone(),
            trace_limit: opts.window_trace,
            trace: self.trace.as_ref().map(|t| t.rings.clone()),
            scheduler_core: opts.scheduler_core,
            progress: opts.progress.clone(),
        }
    }

    /// What the scheduler threads share (a started run).
    pub fn scheduler(&self) -> &Shared {
        &self
            .scheduler
            .as_ref()
            .expect("the scheduler threads run from start on")
            .shared
    }

    /// Whether every scheduler thread has ended.
    pub fn schedulers_finished(&self) -> bool {
        self.scheduler
            .as_ref()
            .is_none_or(|s| s.threads.iter().all(|t| t.is_finished()))
    }

    /// Stops the scheduler threads; returns what they measured and the spin margin they
    /// used.
    pub fn stop_scheduler(&mut self) -> (Vec<CoreStats>, u64) {
        let Some(s) = self.scheduler.take() else {
            return (Vec::new(), 0);
        };
        s.shared.stop.store(1, Ordering::Release);
        partita_sys::futex::wake(&s.shared.stop, u32::MAX, false);
        let stats = s
            .threads
            .into_iter()
            .filter_map(|t| t.join().ok())
            .collect();
        (stats, s.shared.spin_margin)
    }

    /// Kills every partition, then waits for them (kill all first: see
    /// `Partition::signal_kill`); returns a note per partition that did not die in time.
    pub fn kill_partitions(&self) -> Vec<Note> {
        for p in &self.parts {
            p.signal_kill();
        }
        let deadline = monotonic_ns() + KILL_WAIT_NS;
        self.parts
            .iter()
            .filter(|p| !p.reap(deadline))
            .map(|p| {
                Note::new(
                    NoteKind::LateDeath,
                    format!(
                        "partition {} did not die within 5 s of SIGKILL",
                        p.spec().name
                    ),
                )
            })
            .collect()
    }

    /// Ends the output thread and the bridge, removes the cgroups and dismisses the guard
    /// (the partitions are dead: [`Run::kill_partitions`]); returns what could not be removed.
    pub fn release(&mut self) -> Vec<String> {
        if let Some(o) = self.output.take() {
            o.finish();
        }
        if let Some(b) = self.running_bridge.take() {
            let notes = b.stop();
            self.notes.extend(Note::all(NoteKind::Bridge, notes));
        }
        let mut leftovers = self.remove_groups();
        if let Some(d) = &self.host_dir {
            if let Err(e) = d.remove() {
                leftovers.push(format!("run directory {}: {e}", d.root().display()));
            }
        }
        if let Some(g) = self.guard.take() {
            g.finish();
        }
        self.torn_down = true;
        leftovers
    }

    /// Removes every cgroup of the run; returns what could not be removed.
    fn remove_groups(&self) -> Vec<String> {
        let mut left = Vec::new();
        for p in &self.parts {
            left.extend(p.remove_groups());
        }
        if let Some((g, f)) = &self.sentinel {
            let _ = f.thaw();
            if let Err(e) = g.remove() {
                left.push(e.to_string());
            }
        }
        let own = self.run_dir.rsplit('/').next().unwrap_or_default();
        for d in run_dirs(&self.host, &self.run_dir) {
            // Another run may share the `partita` parent: only our own run dir matters.
            if std::fs::remove_dir(&d).is_err() && d.exists() && d.ends_with(own) {
                left.push(format!("could not remove {}", d.display()));
            }
        }
        left
    }
}

impl Drop for Run<'_> {
    fn drop(&mut self) {
        if self.torn_down {
            return;
        }
        self.stop_scheduler();
        self.kill_partitions();
        self.release();
    }
}

/// The report's remarks on the host: what it cannot give the run.
fn host_notes(host: &HostInfo, backend: Backend, opts: &RunOptions) -> Vec<Note> {
    let mut notes = Vec::new();
    if opts.realtime && !host.fifo {
        notes.push(Note::new(NoteKind::NoRealtime, format!(
            "real-time priorities unavailable ({}); windows are still enforced but timing is best effort",
            host.fifo_error.as_deref().unwrap_or("unknown")
        )));
    }
    if !host.root {
        notes.push(Note::new(NoteKind::NotRoot, "not root: no cgroups (no memory limit, no cpuset, no CPU accounting); the signals backend stops only the partition's main process"));
    }
    if backend == Backend::FreezerV2 && !host.cgroup_v2_favordynmods {
        notes.push(Note::new(NoteKind::NoFavordynmods, format!(
            "freezer-v2: cgroup2 ({}) is mounted without favordynmods: while any cgroup change on the host (a partition restart moving its new process into its cgroups, another run starting) waits for an RCU grace period under the kernel's cgroup lock, every freeze and thaw waits too, and boundaries start that late (~5 ms measured); `mount -o remount,favordynmods` on it removes the wait, or use freezer-v1 (CAVEATS.md)",
            host.mounts
                .v2
                .as_ref()
                .map_or_else(|| "?".into(), |p| p.display().to_string())
        )));
    }
    notes
}

/// The report's remark that real-time throttling is on (`throttle`: runtime and period, us)
/// for a schedule that fits in its budget.
fn throttling_note(throttle: Option<(i64, i64)>) -> Option<Note> {
    let (runtime, period) = throttle?;
    (runtime >= 0 && runtime < period).then(|| Note::new(NoteKind::RtThrottling, format!(
        "real-time throttling is on ({runtime}/{period} us) and left unchanged; keep at least {:.0}% of every core idle (partita check warns; `partita run --rt-budget unlimited` lifts it on a dedicated machine)",
        100.0 * (period - runtime) as f64 / period as f64
    )))
}

/// The namespaces partitions get: every one when asked for and root.
fn namespaces(opts: &RunOptions, host: &HostInfo, notes: &mut Vec<Note>) -> Namespaces {
    if opts.namespaces && host.root {
        return Namespaces::all();
    }
    if opts.namespaces {
        notes.push(Note::new(
            NoteKind::NoNamespaces,
            "namespaces need root; partitions share the host's",
        ));
    }
    Namespaces::default()
}

fn make_sinks(plan: &CompiledPlan, opts: &RunOptions) -> Result<Sinks, ManagerError> {
    let width = plan
        .partitions
        .iter()
        .map(|p| p.name.len())
        .max()
        .unwrap_or(0)
        .max("partita".len());
    let mut files = Vec::new();
    let mut module_log = None;
    if let Some(dir) = &opts.log_dir {
        let err = |path: PathBuf, e| ManagerError::Log { path, source: e };
        let partitions = crate::partition_logs(dir);
        std::fs::create_dir_all(&partitions).map_err(|e| err(partitions.clone(), e))?;
        for p in &plan.partitions {
            let path = crate::partition_log(dir, &p.name);
            let f = std::fs::File::create(&path).map_err(|e| err(path.clone(), e))?;
            files.push(Some(Mutex::new(f)));
        }
        let path = crate::module_log(dir);
        module_log = Some(Mutex::new(
            std::fs::File::create(&path).map_err(|e| err(path.clone(), e))?,
        ));
    } else {
        files.resize_with(plan.partitions.len(), || None);
    }
    Ok(Sinks {
        echo: opts.echo,
        files,
        module_log,
        width,
        progress: opts.progress.clone(),
    })
}

fn run_dirs(host: &HostInfo, run_dir: &str) -> Vec<PathBuf> {
    let m = &host.mounts;
    let mut v = Vec::new();
    for root in [&m.cpuacct, &m.cpuset, &m.memory, &m.pids, &m.freezer, &m.v2]
        .into_iter()
        .flatten()
    {
        v.push(root.join(run_dir));
        v.push(root.join("partita"));
    }
    v
}

fn cstr(p: &std::path::Path) -> CString {
    CString::new(p.as_os_str().as_bytes()).unwrap_or_default()
}

/// What the guard removes if the manager dies: every directory that may exist, deepest
/// first, after thawing and emptying the groups.
fn guard_plan(
    host: &HostInfo,
    parts: &[Arc<Partition>],
    run_dir: &str,
    backend: Backend,
) -> GuardPlan {
    let mut g = GuardPlan::default();
    for p in parts {
        if let Some(f) = &p.freezer_group {
            let (file, value) = match backend {
                Backend::FreezerV2 => ("cgroup.freeze", "0"),
                _ => ("freezer.state", "THAWED"),
            };
            g.thaw.push((
                cstr(&f.dir().join(file)),
                CString::new(value).expect("no NUL"),
            ));
        }
        for grp in &p.groups {
            g.procs.push(cstr(&grp.dir().join("cgroup.procs")));
        }
    }
    for p in parts {
        for grp in &p.groups {
            g.dirs.push(cstr(grp.dir()));
        }
    }
    if let Some(root) = &host.mounts.freezer {
        let s = root.join(run_dir).join("sentinel");
        g.thaw.push((
            cstr(&s.join("freezer.state")),
            CString::new("THAWED").expect("no NUL"),
        ));
        g.dirs.push(cstr(&s));
    }
    for d in run_dirs(host, run_dir) {
        g.dirs.push(cstr(&d));
    }
    g
}
