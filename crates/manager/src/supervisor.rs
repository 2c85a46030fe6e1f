// SPDX-License-Identifier: MIT OR Apache-2.0
//! [`run`]: set-up, supervision and clean shutdown of a module.

use crate::backend::Backend;
use crate::hm::logbook::Detection;
use crate::hm::table::{Origin, SystemState};
use crate::hm::{self, start_condition, Detected, Hm};
use crate::host::HostInfo;
use crate::msched::Schedules;
use crate::output::{hm_line, Output, Sinks};
use crate::partition::{Life, Partition};
use crate::report::{CoreReport, PartitionReport, RunReport};
use crate::scheduler::{run_core, CoreStats, Shared};
use crate::{ManagerError, RunOptions};
use partita_config::CompiledPlan;
use partita_sys::cgroup::{Cgroup, Freezer, FreezerKind};
use partita_sys::control::mode;
use partita_sys::guard::{Guard, GuardPlan};
use partita_sys::spawn::Namespaces;
use partita_sys::time::monotonic_ns;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use start_condition::{NORMAL_START, PARTITION_RESTART};

/// Runs `plan` until `opts.duration` elapses, a handled signal arrives, or `opts.stop` is set.
/// Every process, cgroup and shared-memory object it creates is gone when it returns (and a
/// guard process removes them if the manager itself dies).
pub fn run(plan: &CompiledPlan, opts: &RunOptions) -> Result<RunReport, ManagerError> {
    plan.check_consistency()?;
    let plan = &Arc::new(plan.clone());
    let host = HostInfo::detect();
    let backend = Backend::resolve(opts.backend, &host)?;
    let mut notes = Vec::new();
    let rt = opts.realtime && host.fifo;
    if opts.realtime && !host.fifo {
        notes.push(format!(
            "real-time priorities unavailable ({}); windows are still enforced but timing is best effort",
            host.fifo_error.as_deref().unwrap_or("unknown")
        ));
    }
    if !host.root {
        notes.push("not root: no cgroups (no memory limit, no cpuset, no CPU accounting); the signals backend stops only the partition's main process".into());
    }
    if backend == Backend::FreezerV2 && !host.cgroup_v2_favordynmods {
        notes.push(format!(
            "freezer-v2: cgroup2 ({}) is mounted without favordynmods: while any cgroup change on the host (a partition restart moving its new process into its cgroups, another run starting) waits for an RCU grace period under the kernel's cgroup lock, every freeze and thaw waits too, and boundaries start that late (~5 ms measured); `mount -o remount,favordynmods` on it removes the wait, or use freezer-v1 (CAVEATS.md)",
            host.mounts
                .v2
                .as_ref()
                .map_or_else(|| "?".into(), |p| p.display().to_string())
        ));
    }
    if let Some((runtime, period)) = host.rt_throttle {
        if runtime >= 0 && runtime < period {
            notes.push(format!(
                "real-time throttling is on ({runtime}/{period} us) and left unchanged; keep at least {:.0}% of every core idle (partita check warns)",
                100.0 * (period - runtime) as f64 / period as f64
            ));
        }
    }
    if opts.handle_signals {
        partita_sys::proc::block_signals(&[libc_sig::SIGINT, libc_sig::SIGTERM, libc_sig::SIGPWR])?;
    }
    if rt {
        if let Err(e) = partita_sys::sched::lock_memory() {
            notes.push(format!("could not lock the manager's memory: {e}"));
        }
    }

    let run_dir = format!(
        "partita/{}-{}",
        partita_sys::sched::getpid(),
        monotonic_ns() / 1000
    );
    if host.root {
        notes.extend(crate::stale::sweep(&host, &run_dir));
    }
    // Partition uids of this run, distinct from those of any other module running now.
    let (uid_block, uid_note) = crate::corelock::acquire_uid_block();
    notes.extend(uid_note);
    if uid_block.block != 0 {
        notes.push(format!(
            "another module holds partition id block 0: this run's partitions use uids from {}",
            partita_sys::isolation::partition_uid(0)
        ));
    }
    let mut parts: Vec<Arc<Partition>> = Vec::new();
    let mut sentinel: Option<(Cgroup, Freezer)> = None;
    // Channel memory for the whole run, and the pseudo-partition bridge.
    let mut bridge = None;
    let mut channels = None;
    let setup = (|| -> Result<(), ManagerError> {
        for i in 0..plan.partitions.len() {
            parts.push(Arc::new(Partition::prepare(
                plan, i, &host, backend, &run_dir,
            )?));
        }
        // One scheduler wake-up word per CPU, for the creation threads' hints.
        let cpus = parts
            .iter()
            .flat_map(|p| p.cpus.iter().copied())
            .chain(0..host.cpus)
            .max()
            .map_or(0, |c| c as usize + 1);
        let words: Arc<[AtomicU32]> = (0..cpus).map(|_| AtomicU32::new(0)).collect();
        for p in &parts {
            let _ = p.nudge.set(words.clone());
        }
        if let Some(ch) = crate::ports::create(plan)? {
            for p in &parts {
                let _ = p.channels.set(ch.clone());
            }
            bridge = crate::bridge::Bridge::open(&ch)?;
            channels = Some(ch);
        }
        if backend == Backend::FreezerV1 {
            // Keep one cgroup frozen for the whole run: the kernel then leaves its freezer
            // static key enabled, and each freeze/thaw of a partition costs ~18 us instead of
            // ~90 us of code patching.
            let root = host.mounts.freezer.as_ref().expect("v1 freezer");
            let g = Cgroup::create(root.join(&run_dir).join("sentinel"))?;
            let f = Freezer::open(&g, FreezerKind::V1)?;
            f.freeze()?;
            sentinel = Some((g, f));
        }
        Ok(())
    })();
    // The guard knows every directory that may exist, deepest first.
    let guard_plan = guard_plan(&host, &parts, &run_dir, backend);
    let cleanup_dirs = |parts: &[Arc<Partition>], sentinel: &Option<(Cgroup, Freezer)>| {
        let mut left = Vec::new();
        for p in parts {
            left.extend(p.remove_groups());
        }
        if let Some((g, f)) = sentinel {
            let _ = f.thaw();
            if let Err(e) = g.remove() {
                left.push(e.to_string());
            }
        }
        for d in run_dirs(&host, &run_dir) {
            if std::fs::remove_dir(&d).is_err() && d.exists() {
                // Another run may share the `partita` parent: only our own run dir matters.
                if d.ends_with(run_dir.rsplit('/').next().unwrap_or_default()) {
                    left.push(format!("could not remove {}", d.display()));
                }
            }
        }
        left
    };
    if let Err(e) = setup {
        cleanup_dirs(&parts, &sentinel);
        return Err(e);
    }
    let guard = match Guard::start(&guard_plan) {
        Ok(g) => Some(g),
        Err(e) => {
            notes.push(format!("no clean-up guard: {e}"));
            None
        }
    };

    let sinks = make_sinks(plan, opts)?;
    let epoch_cell = Arc::new(AtomicU64::new(monotonic_ns()));
    let hm = match Hm::new(
        plan.hm.clone(),
        &plan.module_name,
        run_dir.rsplit('/').next().unwrap_or_default(),
        parts.len(),
        epoch_cell.clone(),
        opts.hm_log.as_deref(),
    ) {
        Ok(h) => Arc::new(h),
        Err(e) => {
            cleanup_dirs(&parts, &sentinel);
            if let Some(g) = guard {
                g.finish();
            }
            return Err(ManagerError::Log {
                path: opts.hm_log.clone().unwrap_or_default(),
                source: e,
            });
        }
    };
    let output = Output::start(parts.clone(), sinks, epoch_cell.clone(), hm.clone())?;
    // Each partition's service thread (extension mailbox, raise broker).
    crate::service::start(&parts, &hm, &output.events(), rt);

    // Spawn every partition, held before execve.
    let mut namespaces = if opts.namespaces && host.root {
        Namespaces::all()
    } else {
        if opts.namespaces {
            notes.push("namespaces need root; partitions share the host's".into());
        }
        Namespaces::default()
    };
    let schedules = Arc::new(Schedules::new(plan));
    let mut spawn_err = None;
    for p in &parts {
        p.fill_control(0, NORMAL_START, 0, rt, backend);
        schedules.publish_to(p);
        match p.spawn(
            backend,
            &mut namespaces,
            &mut notes,
            &opts.env,
            opts.seccomp,
        ) {
            Ok(pipes) => {
                output.add(p.index, pipes);
                crate::creation::start(p, rt);
            }
            Err(e) => {
                spawn_err = Some(e);
                break;
            }
        }
    }
    if let Some(e) = spawn_err {
        for p in &parts {
            p.signal_kill();
        }
        let deadline = monotonic_ns() + 5_000_000_000;
        for p in &parts {
            p.reap(deadline);
        }
        output.finish();
        cleanup_dirs(&parts, &sentinel);
        if let Some(g) = guard {
            g.finish();
        }
        return Err(e);
    }

    // The epoch: far enough ahead for every scheduler thread to be asleep before it.
    let epoch = (monotonic_ns() + 20_000_000).div_ceil(1_000_000) * 1_000_000;
    epoch_cell.store(epoch, Ordering::Relaxed);
    for p in &parts {
        p.control().epoch_ns.store(epoch, Ordering::Release);
    }
    hm.set_started();
    schedules.start(epoch);
    let end = opts.duration.map(|d| epoch + d.as_nanos() as u64);
    let mut power_fail_at = opts.power_fail_at.map(|d| epoch + d.as_nanos() as u64);
    let mut module_resets = 0u32;
    let bridge = match bridge.map(|b| b.start(epoch)).transpose() {
        Ok(b) => b,
        Err(e) => {
            notes.push(format!("pseudo-partitions not bridged: {e}"));
            None
        }
    };
    let nudge = parts
        .first()
        .and_then(|p| p.nudge.get().cloned())
        .unwrap_or_else(|| Arc::from(Vec::new()));
    let shared = Arc::new(Shared {
        parts: parts.clone(),
        nudge,
        stop: AtomicU32::new(0),
        work: AtomicU32::new(0),
        epoch,
        end,
        tolerance: opts.overrun_tolerance.as_nanos() as u64,
        cpu_accounting: true,
        spin_margin: if rt {
            opts.spin_margin.as_nanos() as u64
        } else {
            0
        },
        schedules: schedules.clone(),
        trace_limit: opts.window_trace,
    });
    // rtfix: another module on one of these CPUs breaks time partitioning (crate::corelock).
    let (_core_locks, busy) = crate::corelock::acquire(&schedules.cores);
    for n in &busy {
        output.event(&format!("warning: {n}"));
    }
    notes.extend(busy);
    output.event(&format!(
        "module {} started: backend {backend}, {} partitions, major frame {} ms",
        plan.module_name,
        parts.len(),
        plan.major_frame() as f64 / 1e6
    ));
    let mut threads = Vec::new();
    let initial = schedules.current();
    for &core in &schedules.cores {
        let tls = schedules.timelines(core);
        let sh = shared.clone();
        let t = std::thread::Builder::new()
            .name(format!("partita-core{core}"))
            .spawn(move || run_core(&sh, core, tls, initial, rt))
            .map_err(|e| partita_sys::SysError::io("spawn scheduler thread", e))?;
        threads.push(t);
    }

    // Supervise.
    let mut interrupted = false;
    let mut watch = crate::isolation::PriorityWatch::new(&parts, rt);
    let mut seen_work = 0;
    let mut seen_hm_work = 0;
    let mut oom: Vec<Option<OomSeen>> = vec![None; parts.len()];
    let mut task_hits: Vec<TaskHits> = vec![TaskHits::default(); parts.len()];
    loop {
        if let Some(s) = &opts.stop {
            if s.load(Ordering::Acquire) {
                interrupted = true;
                break;
            }
        }
        if end.is_some_and(|e| monotonic_ns() >= e) || threads.iter().all(|t| t.is_finished()) {
            break;
        }
        let mut power_fail = power_fail_at.is_some_and(|t| monotonic_ns() >= t);
        if opts.handle_signals {
            match partita_sys::proc::wait_signal(
                &[libc_sig::SIGINT, libc_sig::SIGTERM, libc_sig::SIGPWR],
                10_000_000,
            ) {
                Some(libc_sig::SIGPWR) => power_fail = true,
                Some(_) => {
                    interrupted = true;
                    break;
                }
                None => {}
            }
        } else {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        if power_fail {
            power_fail_at = None;
            let rec = hm.raise(
                &parts,
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
                output.event(&hm_line(&rec));
            }
        }
        reap(&parts, &output, &hm, &mut oom);
        watch_memory(&parts, &output, &hm, &mut oom);
        watch_tasks(&parts, &output, &hm, &mut task_hits);
        watch.check(&parts, &output);
        if hm.shutdown_requested() {
            output.event(&format!(
                "module {}: health monitor SHUTDOWN",
                plan.module_name
            ));
            break;
        }
        if hm.take_reset() {
            module_resets += 1;
            output.event(&format!(
                "module {}: health monitor RESET: every partition restarts (COLD_START) at its next window",
                plan.module_name
            ));
            for p in &parts {
                let mut d = p.state.lock().expect("partition state");
                d.life = Life::RestartPending(mode::COLD_START);
                d.hm_restart = Some(start_condition::HM_MODULE_RESTART);
            }
            hm.work.fetch_add(1, Ordering::AcqRel);
        }
        let w = shared.work.load(Ordering::Acquire);
        let hw = hm.work.load(Ordering::Acquire);
        if w != seen_work || hw != seen_hm_work {
            seen_work = w;
            seen_hm_work = hw;
            for s in schedules.take_unlogged() {
                output.event(&Schedules::describe(&s));
            }
            carry_out_mode_changes(
                &parts,
                backend,
                &mut namespaces,
                &mut notes,
                opts,
                &output,
                epoch,
                rt,
                &schedules,
            );
        }
    }
    shared.stop.store(1, Ordering::Release);
    partita_sys::futex::wake(&shared.stop, u32::MAX, false);
    let stats: Vec<CoreStats> = threads.into_iter().filter_map(|t| t.join().ok()).collect();
    let ran_ns = monotonic_ns().saturating_sub(epoch);
    for s in schedules.take_unlogged() {
        output.event(&Schedules::describe(&s));
    }
    reap(&parts, &output, &hm, &mut oom);
    // Kill everything first, then wait: see `Partition::signal_kill`.
    for p in &parts {
        p.signal_kill();
    }
    let deadline = monotonic_ns() + 5_000_000_000;
    for p in &parts {
        if !p.reap(deadline) {
            notes.push(format!(
                "partition {} did not die within 5 s of SIGKILL",
                p.spec().name
            ));
        }
    }
    crate::isolation::log_limit_events(&parts, &output);
    output.event(&format!(
        "module {} stopped after {:.3} s{}",
        plan.module_name,
        ran_ns as f64 / 1e9,
        if interrupted { " (interrupted)" } else { "" }
    ));
    output.finish();
    if let Some(b) = bridge {
        notes.extend(b.stop());
    }
    let leftovers = cleanup_dirs(&parts, &sentinel);
    if let Some(g) = guard {
        g.finish();
    }

    let mut cores = Vec::new();
    let mut window_trace = Vec::new();
    let mut window_trace_dropped = 0;
    let mut stats = stats;
    let mut ahead = vec![(0u64, 0u64); parts.len()];
    for s in &mut stats {
        window_trace.append(&mut s.trace);
        window_trace_dropped += s.trace_dropped;
        for (a, f) in ahead.iter_mut().zip(&s.freeze_ahead) {
            *a = (a.0.max(f.0), a.1 + f.1);
        }
    }
    window_trace.sort_by_key(|w| (w.planned_ns, w.core));
    let (schedule_switches, schedule_requests_rejected, final_schedule) = schedules.summary();
    for s in stats {
        if let Some(e) = &s.realtime {
            notes.push(format!(
                "core {}: scheduler thread without SCHED_FIFO: {e}",
                s.core
            ));
        }
        cores.push(CoreReport {
            core: s.core,
            boundaries: s.boundaries,
            missed_boundaries: s.missed,
            windows: s.windows,
            timer_lateness: s.lateness.summary(),
            wake_lateness: s.wake_lateness.summary(),
            switch_cost: s.switch_cost.summary(),
            errors: s.errors,
        });
    }
    let partitions = parts
        .iter()
        .map(|p| {
            let d = p.state.lock().expect("partition state");
            let o = *p.output.lock().expect("counters");
            let m = match d.life {
                Life::Idle | Life::Dead => mode::IDLE,
                _ => p.control().mode.load(Ordering::Acquire),
            };
            let hm_events = hm.events_of(p.index);
            PartitionReport {
                name: p.spec().name.clone(),
                id: p.id(),
                windows: d.windows,
                overruns: d.overruns,
                overrun: d.overrun.summary(),
                frozen_ahead_windows: ahead[p.index].1,
                frozen_ahead_max_ns: ahead[p.index].0,
                mode: mode_name(m).into(),
                restarts: d.restarts,
                exit: d.exit.clone(),
                exec_error: d.exec_error.clone(),
                output_lines: o.lines,
                output_bytes: o.bytes,
                split_lines: o.split_lines,
                application_messages: o.reports,
                bad_reports: o.bad_reports,
                hm_events,
            }
        })
        .collect();
    let hm_report = hm.report(opts.hm_log.as_deref(), module_resets);
    // Per-channel traffic, read after every partition has stopped.
    let names: Vec<String> = parts.iter().map(|p| p.spec().name.clone()).collect();
    let channels = channels
        .map(|c| crate::traffic::collect(&c, &names))
        .unwrap_or_default();
    Ok(RunReport {
        module: plan.module_name.clone(),
        backend,
        host,
        namespaces: namespaces.describe(),
        realtime: rt,
        notes,
        major_frame_ns: plan.major_frame(),
        spin_margin_ns: shared.spin_margin,
        ran_ns,
        interrupted,
        cores,
        partitions,
        leftovers,
        hm: hm_report,
        schedule_switches,
        schedule_requests_rejected,
        final_schedule,
        window_trace,
        window_trace_dropped,
        channels,
    })
}

/// Signal numbers (kept here so the manager needs no libc dependency).
mod libc_sig {
    pub const SIGINT: i32 = 2;
    pub const SIGTERM: i32 = 15;
    /// Simulated power failure.
    pub const SIGPWR: i32 = 30;
}

fn mode_name(m: u32) -> &'static str {
    match m {
        mode::IDLE => "IDLE",
        mode::COLD_START => "COLD_START",
        mode::WARM_START => "WARM_START",
        mode::NORMAL => "NORMAL",
        _ => "INVALID",
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
                    d.exit = Some(how.to_string());
                    drop(d);
                    let error = crate::isolation::death_error(how, crate::isolation::oom_kills(p))
                        .map(|e| format!(": {e}"))
                        .unwrap_or_default();
                    output.event(&format!("partition {} {how}{error}", p.spec().name));
                    // Its other processes (if any) go with it.
                    p.signal_kill();
                    let state = hm::state_of(hm, p, None);
                    let mut kills = hm.new_oom_kills(p.index, p);
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
        if let Some((n, failcnt)) = hm.new_oom_kills(p.index, p) {
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
                    state: hm::state_of(hm, p, None),
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
        let Some(hits) = crate::isolation::task_limit_hits(p) else {
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
                state: hm::state_of(hm, p, None),
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

#[allow(clippy::too_many_arguments)]
fn carry_out_mode_changes(
    parts: &[Arc<Partition>],
    backend: Backend,
    namespaces: &mut Namespaces,
    notes: &mut Vec<String>,
    opts: &RunOptions,
    output: &Output,
    epoch: u64,
    rt: bool,
    schedules: &Schedules,
) {
    for p in parts {
        let life = p.state.lock().expect("partition state").life;
        match life {
            Life::Idle if p.state.lock().expect("partition state").pid > 0 => {
                output.event(&format!("partition {} goes IDLE", p.spec().name));
                p.kill();
            }
            Life::RestartPending(m) => {
                p.kill();
                let (restarts, hm_restart) = {
                    let mut d = p.state.lock().expect("partition state");
                    d.restarts += 1;
                    d.exit = None;
                    (d.restarts, d.hm_restart.take())
                };
                output.event(&format!(
                    "partition {} restarts in {} (restart {restarts}{})",
                    p.spec().name,
                    mode_name(m),
                    if hm_restart.is_some() {
                        ", released at its next window"
                    } else {
                        ""
                    }
                ));
                let condition = hm_restart.unwrap_or(PARTITION_RESTART);
                p.fill_control(epoch, condition, restarts, rt, backend);
                schedules.publish_to(p);
                p.control().mode.store(m, Ordering::Release);
                match p.spawn(backend, namespaces, notes, &opts.env, opts.seccomp) {
                    Ok(pipes) => {
                        output.add(p.index, pipes);
                        crate::creation::start(p, rt);
                    }
                    Err(e) => {
                        output.event(&format!(
                            "partition {} could not restart: {e}",
                            p.spec().name
                        ));
                        let mut d = p.state.lock().expect("partition state");
                        d.life = Life::Dead;
                        d.exit = Some(format!("restart failed: {e}"));
                    }
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
            _ => {}
        }
    }
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
        std::fs::create_dir_all(dir).map_err(|e| err(dir.clone(), e))?;
        for p in &plan.partitions {
            let path = dir.join(format!("{}.log", p.name));
            let f = std::fs::File::create(&path).map_err(|e| err(path.clone(), e))?;
            files.push(Some(Mutex::new(f)));
        }
        let path = dir.join("module.log");
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
