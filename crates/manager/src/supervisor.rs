// SPDX-License-Identifier: MIT OR Apache-2.0
//! [`run`]: a module run from start to report: set-up ([`crate::run::Run`], whose drop tears
//! everything down), supervision (the loop that watches the partitions and carries out what
//! they and the health monitor ask for), and the report.

use crate::hm::logbook::Detection;
use crate::hm::table::{Origin, SystemState};
use crate::hm::{self, Detected, Hm};
use crate::isolation::PriorityWatch;
use crate::lifecycle::Life;
use crate::msched::Schedules;
use crate::output::{hm_line, Output};
use crate::partition::Partition;
use crate::report::{CoreReport, Note, NoteKind, PartitionReport, RunReport};
use crate::run::{signal, Run};
use crate::scheduler::CoreStats;
use crate::{ManagerError, RunOptions};
use partita_abi::{OperatingMode, StartCondition};
use partita_config::CompiledPlan;
use partita_sys::time::monotonic_ns;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Runs `plan` until `opts.duration` elapses, a handled signal arrives, or `opts.stop` is set.
/// Every process, cgroup and shared-memory object it creates is gone when it returns (and a
/// guard process removes them if the manager itself dies).
pub fn run(plan: &CompiledPlan, opts: &RunOptions) -> Result<RunReport, ManagerError> {
    plan.check_consistency()?;
    let mut run = Run::set_up(Arc::new(plan.clone()), opts)?;
    let epoch = run.start()?;
    let mut supervision = Supervision::new(&run, epoch);
    supervision.supervise(&mut run);

    let (stats, spin_margin_ns) = run.stop_scheduler();
    let ran_ns = monotonic_ns().saturating_sub(epoch);
    supervision.log_switches(&run);
    supervision.reap(&run);
    note_normal_modes(&run.parts);
    let died_late = run.kill_partitions();
    run.notes.extend(died_late);
    let trace = run.finish_trace();
    if let Some(e) = trace.as_ref().and_then(|t| t.error.as_ref()) {
        run.notes
            .push(Note::new(NoteKind::Trace, format!("trace: {e}")));
    }
    for p in &run.parts {
        for e in p.limit_events() {
            run.output().event(&e);
        }
    }
    run.output().event(&format!(
        "module {} stopped after {:.3} s{}",
        run.plan.module_name,
        ran_ns as f64 / 1e9,
        if supervision.interrupted {
            " (interrupted)"
        } else {
            ""
        }
    ));
    // CPU time against the promise, before the resource groups and the output go.
    let cpu = cpu_times(&run.parts, &stats);
    for (p, t) in run.parts.iter().zip(&cpu) {
        if let Some(line) = t.line(p.spec().general_purpose.is_some()) {
            run.output()
                .event(&format!("partition {}: {line}", p.spec().name));
        }
    }
    let leftovers = run.release();
    Ok(report(
        &mut run,
        stats,
        Ended {
            ran_ns,
            spin_margin_ns,
            interrupted: supervision.interrupted,
            module_resets: supervision.module_resets,
            leftovers,
            trace,
            epoch,
            cpu,
        },
    ))
}

/// The supervisor's state while the module runs.
struct Supervision {
    epoch: u64,
    /// When the run ends (`RunOptions::duration`).
    end: Option<u64>,
    /// When to simulate a power failure (`RunOptions::power_fail_at`), until it happened.
    power_fail_at: Option<u64>,
    /// Stopped by a signal or `RunOptions::stop`.
    interrupted: bool,
    /// Health-monitor module resets carried out.
    module_resets: u32,
    priorities: PriorityWatch,
    /// The scheduler's and the health monitor's work counters last handled.
    seen_work: (u32, u32),
    oom: Vec<Option<OomSeen>>,
    task_hits: Vec<TaskHits>,
}

impl Supervision {
    fn new(run: &Run, epoch: u64) -> Supervision {
        let n = run.parts.len();
        let at = |d: std::time::Duration| epoch + d.as_nanos() as u64;
        Supervision {
            epoch,
            end: run.opts.duration.map(at),
            power_fail_at: run.opts.power_fail_at.map(at),
            interrupted: false,
            module_resets: 0,
            priorities: PriorityWatch::new(n, run.rt),
            seen_work: (0, 0),
            oom: vec![None; n],
            task_hits: vec![TaskHits::default(); n],
        }
    }

    /// Watches the module every 10 ms until it is to stop.
    fn supervise(&mut self, run: &mut Run) {
        loop {
            if run
                .opts
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Acquire))
            {
                self.interrupted = true;
                return;
            }
            if self.end.is_some_and(|e| monotonic_ns() >= e) || run.schedulers_finished() {
                return;
            }
            let power_fail = self.wait(run.opts);
            if self.interrupted {
                return;
            }
            if power_fail {
                self.power_fail(run);
            }
            self.reap(run);
            note_normal_modes(&run.parts);
            run.trace_modes();
            watch_memory(&run.parts, run.output(), &run.hm, &mut self.oom);
            watch_tasks(&run.parts, run.output(), &run.hm, &mut self.task_hits);
            for p in &run.parts {
                let name = &p.spec().name;
                if let Some(e) = self.priorities.check(p.index, name, p.membership.as_ref()) {
                    run.output().event(&e);
                }
            }
            if run.hm.shutdown_requested() {
                run.output().event(&format!(
                    "module {}: health monitor SHUTDOWN",
                    run.plan.module_name
                ));
                return;
            }
            if run.hm.take_reset() {
                self.module_reset(run);
            }
            self.carry_out_work(run);
            if let Some(p) = &run.opts.progress {
                let misses = (0..run.parts.len())
                    .map(|i| run.hm.deadline_misses_of(i))
                    .sum();
                p.health(run.hm.raised(), misses);
            }
        }
    }

    /// Waits 10 ms, for a handled signal when signals are handled; returns whether a power
    /// failure is due (SIGPWR or `power_fail_at`). SIGINT and SIGTERM interrupt the run.
    fn wait(&mut self, opts: &RunOptions) -> bool {
        let mut power_fail = self.power_fail_at.is_some_and(|t| monotonic_ns() >= t);
        if !opts.handle_signals {
            std::thread::sleep(std::time::Duration::from_millis(10));
            return power_fail;
        }
        match partita_sys::proc::wait_signal(
            &[signal::SIGINT, signal::SIGTERM, signal::SIGPWR],
            10_000_000,
        ) {
            Some(signal::SIGPWR) => power_fail = true,
            Some(_) => self.interrupted = true,
            None => {}
        }
        power_fail
    }

    /// A (simulated) power failure: POWER_FAIL to the health monitor.
    fn power_fail(&mut self, run: &Run) {
        self.power_fail_at = None;
        let rec = run.hm.raise(
            &run.parts,
            Detected {
                partition: None,
                process: None,
                state: SystemState::Os,
                code: partita_config::model::ErrorCode::PowerFail,
                origin: Origin::Module,
                detection: Detection::PowerFail,
                message: "simulated power failure".into(),
            },
        );
        if let Some(rec) = rec {
            run.output().event(&hm_line(&rec));
        }
    }

    /// A health-monitor module RESET: every partition restarts at its next window.
    fn module_reset(&mut self, run: &Run) {
        self.module_resets += 1;
        run.output().event(&format!(
            "module {}: health monitor RESET: every partition restarts (COLD_START) at its next window",
            run.plan.module_name
        ));
        for p in &run.parts {
            let mut d = p.state.lock().expect("partition state");
            d.life = Life::RestartPending(OperatingMode::ColdStart);
            d.hm_restart = Some(StartCondition::HmModuleRestart);
        }
        run.hm.work.fetch_add(1, Ordering::AcqRel);
    }

    /// When the scheduler or the health monitor has new work: logs schedule switches and
    /// carries out the restarts and IDLE modes they asked for.
    fn carry_out_work(&mut self, run: &mut Run) {
        let work = (
            run.scheduler().work.load(Ordering::Acquire),
            run.hm.work.load(Ordering::Acquire),
        );
        if work == self.seen_work {
            return;
        }
        self.seen_work = work;
        self.log_switches(run);
        carry_out_mode_changes(run, self.epoch);
    }

    /// Logs the schedule switches not logged yet.
    fn log_switches(&self, run: &Run) {
        for s in run.schedules.take_unlogged() {
            run.output().event(&Schedules::describe(&s));
        }
    }

    /// Reaps the partitions that ended on their own ([`reap`]).
    fn reap(&mut self, run: &Run) {
        reap(&run.parts, run.output(), &run.hm, &mut self.oom);
    }
}

/// How the run ended, for the report.
struct Ended {
    ran_ns: u64,
    spin_margin_ns: u64,
    interrupted: bool,
    module_resets: u32,
    leftovers: Vec<String>,
    trace: Option<crate::trace::TraceReport>,
    /// The module epoch.
    epoch: u64,
    /// Per partition: its CPU time (cgroup accounting, read before the groups went) and
    /// its promise.
    cpu: Vec<CpuTime>,
}

/// The run report of an ended run.
fn report(run: &mut Run, stats: Vec<CoreStats>, ended: Ended) -> RunReport {
    let summary = core_reports(stats, &mut run.notes);
    let partitions = run
        .parts
        .iter()
        .map(|p| {
            let ahead = summary.ahead.get(p.index).copied().unwrap_or_default();
            let time = ended.cpu.get(p.index).copied().unwrap_or_default();
            partition_report(p, &run.hm, ahead, time, run.host.root)
        })
        .collect();
    let hm = run
        .hm
        .report(run.opts.hm_log.as_deref(), ended.module_resets);
    let (schedule_switches, schedule_requests_rejected, final_schedule) = run.schedules.summary();
    // Per-channel traffic, read after every partition has stopped.
    let names: Vec<String> = run.parts.iter().map(|p| p.spec().name.clone()).collect();
    let channels = run
        .channels
        .as_ref()
        .map(|c| crate::traffic::collect(c, &names))
        .unwrap_or_default();
    RunReport {
        module: run.plan.module_name.clone(),
        backend: run.backend,
        host: run.host.clone(),
        namespaces: run.namespaces.describe(),
        realtime: run.rt,
        notes: std::mem::take(&mut run.notes),
        run_dir: run.host_dir().map(|d| d.display().to_string()),
        major_frame_ns: run.plan.major_frame(),
        epoch_ns: ended.epoch,
        spin_margin_ns: ended.spin_margin_ns,
        ran_ns: ended.ran_ns,
        interrupted: ended.interrupted,
        cores: summary.cores,
        partitions,
        leftovers: ended.leftovers,
        hm,
        schedule_switches,
        schedule_requests_rejected,
        final_schedule,
        window_trace: summary.window_trace,
        window_trace_dropped: summary.window_trace_dropped,
        channels,
        trace: ended.trace,
    }
}

/// What the scheduler threads measured, for the report.
struct CoreSummary {
    /// Per core.
    cores: Vec<CoreReport>,
    /// The window starts of every core, in time order.
    window_trace: Vec<crate::msched::WindowStart>,
    /// Window starts left out of it.
    window_trace_dropped: u64,
    /// Per partition: the largest freeze lead and the number of boundaries frozen ahead.
    ahead: Vec<(u64, u64)>,
}

/// Sums up the scheduler threads' measurements; a thread without SCHED_FIFO adds a note.
fn core_reports(mut stats: Vec<CoreStats>, notes: &mut Vec<Note>) -> CoreSummary {
    let mut window_trace = Vec::new();
    let mut window_trace_dropped = 0;
    let parts = stats.first().map_or(0, |s| s.freeze_ahead.len());
    let mut ahead = vec![(0u64, 0u64); parts];
    for s in &mut stats {
        window_trace.append(&mut s.trace);
        window_trace_dropped += s.trace_dropped;
        for (a, f) in ahead.iter_mut().zip(&s.freeze_ahead) {
            *a = (a.0.max(f.0), a.1 + f.1);
        }
    }
    window_trace.sort_by_key(|w| (w.planned_ns, w.core));
    let mut cores = Vec::new();
    for s in stats {
        if let Some(e) = &s.realtime {
            notes.push(Note::new(
                NoteKind::NoRealtime,
                format!("core {}: scheduler thread without SCHED_FIFO: {e}", s.core),
            ));
        }
        cores.push(CoreReport {
            core: s.core,
            boundaries: s.boundaries,
            missed_boundaries: s.missed,
            windows: s.windows,
            timer_lateness: s.lateness.summary(),
            wake_lateness: s.wake_lateness.summary(),
            planned_wake: s.planned_wake.summary(),
            switch_cost: s.switch_cost.summary(),
            errors: s.errors,
            last_window: s.last_window,
        });
    }
    CoreSummary {
        cores,
        window_trace,
        window_trace_dropped,
        ahead,
    }
}

/// A partition's CPU time against what the schedule promised it.
#[derive(Debug, Clone, Copy, Default)]
struct CpuTime {
    /// Used (cgroup CPU accounting), ns; `None` without it.
    used: Option<u64>,
    /// Its windows and background, summed over its cores, ns.
    promised: u64,
}

impl CpuTime {
    /// `used / promised`, if both are known.
    fn share(&self) -> Option<f64> {
        self.used
            .filter(|_| self.promised > 0)
            .map(|u| u as f64 / self.promised as f64)
    }

    /// The run log's line: `None` without accounting.
    fn line(&self, general_purpose: bool) -> Option<String> {
        let used = self.used?;
        Some(crate::report::cpu_line(
            general_purpose,
            used,
            self.promised,
            self.share(),
        ))
    }
}

/// Each partition's CPU time (cgroup accounting, all incarnations) and the time the
/// scheduler threads gave it (`granted` of every core).
fn cpu_times(parts: &[Arc<Partition>], stats: &[CoreStats]) -> Vec<CpuTime> {
    parts
        .iter()
        .map(|p| CpuTime {
            used: p.usage.as_ref().map(|u| u.read_ns()),
            promised: stats.iter().filter_map(|s| s.granted.get(p.index)).sum(),
        })
        .collect()
}

/// One partition's part of the report; `ahead` is (largest freeze lead, boundaries frozen
/// ahead); `time` its CPU time and promise; `root`: partitions ran under their own uids.
fn partition_report(
    p: &Partition,
    hm: &Hm,
    ahead: (u64, u64),
    time: CpuTime,
    root: bool,
) -> PartitionReport {
    let d = p.state.lock().expect("partition state");
    let o = *p.output.lock().expect("counters");
    let m = match d.life {
        Life::Idle | Life::Dead => Ok(OperatingMode::Idle),
        _ => p.control().operating_mode(),
    };
    PartitionReport {
        name: p.spec().name.clone(),
        id: p.id(),
        uid: root.then(|| partita_sys::isolation::partition_uid(p.index)),
        windows: d.windows,
        overruns: d.overruns,
        overrun: d.overrun.summary(),
        frozen_ahead_windows: ahead.1,
        frozen_ahead_max_ns: ahead.0,
        mode: m.map_or("INVALID", OperatingMode::name).into(),
        restarts: d.restarts,
        process_ends: d.process_ends,
        reached_normal: d.reached_normal || m == Ok(OperatingMode::Normal),
        deadline_misses: hm.deadline_misses_of(p.index),
        exit: d.exit.clone(),
        exec_error: d.exec_error.clone(),
        output_lines: o.lines,
        output_bytes: o.bytes,
        split_lines: o.split_lines,
        application_messages: o.application_messages,
        refused_calls: o.refused_calls,
        bad_reports: o.bad_reports,
        hm_events: hm.events_of(p.index),
        general_purpose: p.spec().general_purpose.is_some(),
        cpu_time_ns: time.used,
        promised_ns: time.promised,
        cpu_share: time.share(),
    }
}

/// Reaps partitions that ended on their own and hands each death to the health monitor: an
/// OOM kill in its memory cgroup is MEMORY_VIOLATION (memory limit), otherwise the exit is
/// classified by [`hm::classify_exit`].
fn reap(parts: &[Arc<Partition>], output: &Output, hm: &Hm, oom: &mut [Option<OomSeen>]) {
    while let Some((pid, how)) = partita_sys::proc::try_wait(-1) {
        for p in parts {
            let mut d = p.state.lock().expect("partition state");
            if d.pid == pid {
                d.pid = 0;
                if let Some(sw) = &d.switch {
                    sw.leader_reaped();
                }
                if d.life == Life::Live {
                    d.life = Life::Dead;
                    d.process_ends += 1;
                    d.exit = Some(how.to_string());
                    drop(d);
                    let error = hm::death_note(how, p.oom_kills())
                        .map(|e| format!(": {e}"))
                        .unwrap_or_default();
                    output.event(&format!("partition {} {how}{error}", p.spec().name));
                    // Its other processes (if any) go with it.
                    p.signal_kill();
                    let state = hm::state_of(hm, &**p, None);
                    let mut kills = p.memory_kills().and_then(|k| hm.new_oom_kills(p.index, k));
                    if let Some(seen) = oom[p.index].take() {
                        let (n, f) = kills.unwrap_or((0, seen.failcnt));
                        kills = Some((n + seen.kills, f));
                    }
                    let (code, detection, message) = match kills {
                        Some((n, failcnt)) => (
                            partita_config::model::ErrorCode::MemoryViolation,
                            Detection::MemoryLimit,
                            format!(
                                "memory limit {} bytes exceeded ({n} OOM kill(s), failcnt {failcnt}); process {how}",
                                p.spec().memory_limit.unwrap_or(0)
                            ),
                        ),
                        None => (
                            hm::classify_exit(how),
                            Detection::ProcessDied,
                            format!("partition process {how}"),
                        ),
                    };
                    let rec = hm.raise(
                        parts,
                        Detected {
                            partition: Some(p.index),
                            process: None,
                            state,
                            code,
                            origin: Origin::PartitionDied,
                            detection,
                            message,
                        },
                    );
                    if let Some(rec) = rec {
                        output.event(&hm_line(&rec));
                    }
                }
                break;
            }
        }
    }
}

/// OOM kills seen in a partition's memory cgroup and not yet attributed.
#[derive(Debug, Clone, Copy)]
struct OomSeen {
    kills: u64,
    failcnt: u64,
    since: u64,
}

/// How long an OOM kill may wait for the death of the partition's main process before it is
/// reported as the kill of another process of a partition that lives on.
const OOM_ATTRIBUTION_NS: u64 = 100_000_000;

/// OOM kills of a partition that is still alive (a forked child of the partition was killed
/// by the memory cgroup): MEMORY_VIOLATION at partition level. A kill is first held for
/// [`OOM_ATTRIBUTION_NS`]: if the main process dies meanwhile, [`reap`] reports the death as
/// the memory-limit error.
fn watch_memory(parts: &[Arc<Partition>], output: &Output, hm: &Hm, oom: &mut [Option<OomSeen>]) {
    let now = monotonic_ns();
    for p in parts {
        if p.memory_group.is_none() || p.state.lock().expect("partition state").life != Life::Live {
            continue;
        }
        if let Some((n, failcnt)) = p.memory_kills().and_then(|k| hm.new_oom_kills(p.index, k)) {
            let e = oom[p.index].get_or_insert(OomSeen {
                kills: 0,
                failcnt,
                since: now,
            });
            e.kills += n;
            e.failcnt = failcnt;
        }
        let due = oom[p.index].is_some_and(|e| now.saturating_sub(e.since) >= OOM_ATTRIBUTION_NS);
        if let Some(OomSeen {
            kills: n, failcnt, ..
        }) = oom[p.index].take_if(|_| due)
        {
            let rec = hm.raise(
                parts,
                Detected {
                    partition: Some(p.index),
                    process: None,
                    state: hm::state_of(hm, &**p, None),
                    code: partita_config::model::ErrorCode::MemoryViolation,
                    origin: Origin::PartitionRuntime,
                    detection: Detection::MemoryLimit,
                    message: format!(
                        "memory limit {} bytes exceeded ({n} OOM kill(s) in the partition, failcnt {failcnt})",
                        p.spec().memory_limit.unwrap_or(0)
                    ),
                },
            );
            if let Some(rec) = rec {
                output.event(&hm_line(&rec));
            }
        }
    }
}

/// What [`watch_tasks`] last saw of a partition's task limit.
#[derive(Debug, Clone, Copy, Default)]
struct TaskHits {
    /// `pids.events` `max` counter at the last record.
    recorded: u64,
    /// When that record was made (monotonic ns; 0: never).
    at: u64,
}

/// Refused forks and thread creations (the partition reached its task limit, `pids.events`):
/// an ILLEGAL_REQUEST record (detection `task-limit`, PROCESS level by default: the creation
/// failed with EAGAIN inside the partition, which carries on). A fork or thread bomb retries
/// without end: at most one record per partition per second, carrying the count since the last.
fn watch_tasks(parts: &[Arc<Partition>], output: &Output, hm: &Hm, seen: &mut [TaskHits]) {
    const EVERY_NS: u64 = 1_000_000_000;
    let now = monotonic_ns();
    for p in parts {
        let Some(hits) = p.task_limit_hits() else {
            continue;
        };
        let s = &mut seen[p.index];
        if hits < s.recorded {
            // A new incarnation in the same cgroup does not reset the counter; a new cgroup
            // (module RESET re-creating groups) would.
            s.recorded = 0;
        }
        if hits == s.recorded || (s.at != 0 && now.saturating_sub(s.at) < EVERY_NS) {
            continue;
        }
        let refused = hits - s.recorded;
        *s = TaskHits {
            recorded: hits,
            at: now,
        };
        let rec = hm.raise(
            parts,
            Detected {
                partition: Some(p.index),
                process: None,
                state: hm::state_of(hm, &**p, None),
                code: partita_config::model::ErrorCode::IllegalRequest,
                origin: Origin::Refused,
                detection: Detection::TaskLimit,
                message: format!(
                    "task limit ({}) reached: {refused} fork(s) or thread creation(s) refused",
                    p.task_limit()
                ),
            },
        );
        if let Some(rec) = rec {
            output.event(&hm_line(&rec));
        }
    }
}

/// Carries out what partitions asked for: IDLE (the process is killed) and restarts (a new
/// incarnation, released at once when inside its window unless the health monitor decided
/// the restart, which waits for its next window).
fn carry_out_mode_changes(run: &mut Run, epoch: u64) {
    for p in run.parts.clone() {
        let (life, pid) = {
            let d = p.state.lock().expect("partition state");
            (d.life, d.pid)
        };
        match life {
            Life::Idle if pid > 0 => {
                run.output()
                    .event(&format!("partition {} goes IDLE", p.spec().name));
                p.kill();
            }
            Life::RestartPending(m) => restart(run, &p, m, epoch),
            _ => {}
        }
    }
}

/// Notes every partition now in NORMAL mode (the report flags one that never was).
fn note_normal_modes(parts: &[Arc<Partition>]) {
    for p in parts {
        if p.control().operating_mode() == Ok(OperatingMode::Normal) {
            p.state.lock().expect("partition state").reached_normal = true;
        }
    }
}

/// Restarts `p` in mode `m`.
fn restart(run: &mut Run, p: &Arc<Partition>, m: OperatingMode, epoch: u64) {
    // The mode of the incarnation that ends, before the restart overwrites it.
    note_normal_modes(std::slice::from_ref(p));
    p.kill();
    let (restarts, hm_restart) = {
        let mut d = p.state.lock().expect("partition state");
        d.restarts += 1;
        d.exit = None;
        (d.restarts, d.hm_restart.take())
    };
    run.output().event(&format!(
        "partition {} restarts in {} (restart {restarts}{})",
        p.spec().name,
        m.name(),
        if hm_restart.is_some() {
            ", released at its next window"
        } else {
            ""
        }
    ));
    let condition = hm_restart.unwrap_or(StartCondition::PartitionRestart);
    p.fill_control(epoch, condition, restarts, run.rt, run.backend);
    run.schedules.publish_to(p);
    p.control()
        .mode
        .store(p.start_mode(m).raw(), Ordering::Release);
    if let Err(e) = run.spawn(p) {
        run.output().event(&format!(
            "partition {} could not restart: {e}",
            p.spec().name
        ));
        let mut d = p.state.lock().expect("partition state");
        d.life = Life::Dead;
        d.exit = Some(format!("restart failed: {e}"));
    }
    // It will be released at the start of its next window (the scheduler sees
    // `running == false`); if it is inside a window right now, release it at once.
    let mut d = p.state.lock().expect("partition state");
    if hm_restart.is_none() && d.active > 0 && d.life == Life::Live {
        if let Some(sw) = &d.switch {
            let _ = sw.resume();
        }
        d.running = true;
    }
}
