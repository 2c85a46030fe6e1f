// SPDX-License-Identifier: MIT OR Apache-2.0
//! The bare kernel mechanism: a minimal switching loop with nothing of Partita around it.
//!
//! One `SCHED_FIFO` 90 thread pinned to the partitions' core walks the same boundary timeline
//! as the manager (absolute `clock_nanosleep` to the boundary less the spin margin, then a
//! spin to the boundary) and stops / continues two plain spinner processes with one of the
//! kernel mechanisms: `SIGSTOP`/`SIGCONT`, the cgroup v1 freezer (with a frozen sentinel
//! cgroup, as the manager keeps one), or cgroup v2 `cgroup.freeze`.

use crate::BenchError;
use partita_bench_protocol::args::SpinnerArgs;
use partita_manager::stats::Histogram;
use partita_manager::Backend;
use partita_schedule::{BoundaryCursor, CoreTimeline};
use partita_sys::cgroup::{Cgroup, Freezer, FreezerKind, Mounts};
use partita_sys::spawn::{Namespaces, SpawnSpec};
use partita_sys::time::{monotonic_ns, sleep_until};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

const SIGSTOP: i32 = 19;
const SIGCONT: i32 = 18;
const SIGKILL: i32 = 9;

/// How one spinner is held.
enum Hold {
    Signal(i32),
    Freezer(Freezer),
}

impl Hold {
    fn stop(&self) -> partita_sys::Result<()> {
        match self {
            Hold::Signal(pid) => partita_sys::proc::kill(*pid, SIGSTOP),
            Hold::Freezer(f) => f.freeze(),
        }
    }

    fn resume(&self) -> partita_sys::Result<()> {
        match self {
            Hold::Signal(pid) => partita_sys::proc::kill(*pid, SIGCONT),
            Hold::Freezer(f) => f.thaw(),
        }
    }
}

/// The spinners, their cgroups and the sentinel; everything is removed on drop.
pub(crate) struct Rig {
    children: Vec<i32>,
    holds: Vec<Hold>,
    groups: Vec<Cgroup>,
    sentinel: Option<(Cgroup, Freezer)>,
    /// Directories to remove last, deepest first.
    dirs: Vec<PathBuf>,
}

impl Rig {
    /// Spawns `slots` spinners (held before `execve`) pinned to `core`, logging into `log`.
    pub(crate) fn start(
        mech: Backend,
        slots: usize,
        core: u32,
        log: &Path,
        threshold: i64,
        tag: &str,
    ) -> Result<Rig, BenchError> {
        let mut rig = Rig {
            children: Vec::new(),
            holds: Vec::new(),
            groups: Vec::new(),
            sentinel: None,
            dirs: Vec::new(),
        };
        let mounts = Mounts::detect();
        let base = match mech {
            Backend::Signals => None,
            Backend::FreezerV1 => Some(mounts.freezer.clone().ok_or(
                BenchError::BackendUnavailable {
                    backend: mech,
                    why: "no cgroup v1 freezer mounted",
                },
            )?),
            Backend::FreezerV2 => {
                Some(mounts.v2.clone().ok_or(BenchError::BackendUnavailable {
                    backend: mech,
                    why: "no cgroup v2 hierarchy mounted",
                })?)
            }
        };
        let run_dir = base.as_ref().map(|b| {
            let top = b.join("partita-bench");
            let run = top.join(tag);
            rig.dirs.push(run.clone());
            rig.dirs.push(top);
            run
        });
        if mech == Backend::FreezerV1 {
            let g = Cgroup::create(run_dir.as_ref().expect("v1 dir").join("sentinel"))?;
            rig.groups.push(g.clone());
            let f = Freezer::open(&g, FreezerKind::V1)?;
            f.freeze()?;
            rig.sentinel = Some((g, f));
        }
        let exe = crate::partition_executable(partita_bench_protocol::SPINNER)?;
        let devnull = std::fs::File::open("/dev/null").map_err(|e| BenchError::Io {
            path: "/dev/null".into(),
            source: e,
        })?;
        let path = partita_sys::spawn::cstring(exe.as_os_str())?;
        for slot in 0..slots {
            let args = SpinnerArgs {
                log: log.to_path_buf(),
                slot,
                gap_threshold_ns: threshold,
                priority: partita_manager::PARTITION_RUN_PRIORITY,
            };
            let mut argv = vec![path.clone()];
            for a in args.to_args() {
                argv.push(partita_sys::spawn::cstring(a.as_ref())?);
            }
            let spec = SpawnSpec {
                path: path.clone(),
                cwd: None,
                argv,
                envp: Vec::new(),
                fds: vec![(devnull.as_raw_fd(), 0), (devnull.as_raw_fd(), 1), (2, 2)],
                namespaces: Namespaces::default(),
                cpus: vec![core],
                rtprio_limit: None,
                creation_notify: None,
                confinement: Default::default(),
                binds: Vec::new(),
            };
            let mut child = partita_sys::spawn::spawn(&spec)?;
            rig.children.push(child.pid);
            let hold = match (mech, &run_dir) {
                (Backend::FreezerV1 | Backend::FreezerV2, Some(d)) => {
                    let g = Cgroup::create(d.join(format!("s{slot}")))?;
                    rig.groups.push(g.clone());
                    g.add_process(child.pid)?;
                    let kind = if mech == Backend::FreezerV1 {
                        FreezerKind::V1
                    } else {
                        FreezerKind::V2
                    };
                    Hold::Freezer(Freezer::open(&g, kind)?)
                }
                _ => Hold::Signal(child.pid),
            };
            hold.stop()?;
            rig.holds.push(hold);
            child.go()?;
        }
        Ok(rig)
    }
}

impl Drop for Rig {
    fn drop(&mut self) {
        for &pid in &self.children {
            let _ = partita_sys::proc::kill(pid, SIGKILL);
        }
        // A frozen task dies only once thawed.
        for h in &self.holds {
            let _ = h.resume();
        }
        for &pid in &self.children {
            let _ = partita_sys::proc::wait(pid);
        }
        if let Some((_, f)) = &self.sentinel {
            let _ = f.thaw();
        }
        // Groups of the children, then the sentinel (pushed first), then the parents.
        for g in self.groups.iter().rev() {
            for _ in 0..100 {
                if g.remove().is_ok() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        }
        for d in &self.dirs {
            let _ = std::fs::remove_dir(d);
        }
    }
}

/// What the switching loop measured.
pub(crate) struct LoopStats {
    pub boundaries: u64,
    pub missed: u64,
    pub lateness: Histogram,
    pub wake_lateness: Histogram,
    pub switch_cost: Histogram,
    pub errors: Vec<String>,
    pub realtime: Option<String>,
}

/// Runs the switching loop for the spinners of `rig` (spinner `i` is partition `i` of the
/// timeline) from `epoch` until `end`, or until `stop` is set.
pub(crate) fn run_loop(
    rig: &Rig,
    tl: &CoreTimeline,
    epoch: u64,
    end: u64,
    margin: u64,
    stop: &AtomicBool,
) -> LoopStats {
    std::thread::scope(|s| {
        s.spawn(|| switch_loop(&rig.holds, tl, epoch, end, margin, stop))
            .join()
            .unwrap_or_else(|_| LoopStats {
                boundaries: 0,
                missed: 0,
                lateness: Histogram::new(),
                wake_lateness: Histogram::new(),
                switch_cost: Histogram::new(),
                errors: vec!["switching thread panicked".into()],
                realtime: None,
            })
    })
}

fn switch_loop(
    holds: &[Hold],
    tl: &CoreTimeline,
    epoch: u64,
    end: u64,
    margin: u64,
    stop: &AtomicBool,
) -> LoopStats {
    let mut st = LoopStats {
        boundaries: 0,
        missed: 0,
        lateness: Histogram::new(),
        wake_lateness: Histogram::new(),
        switch_cost: Histogram::new(),
        errors: Vec::new(),
        realtime: None,
    };
    if let Err(e) = partita_sys::sched::set_affinity(0, &[tl.core]) {
        st.errors.push(format!("pinning to core {}: {e}", tl.core));
    }
    if let Err(e) = partita_sys::sched::set_fifo(0, partita_manager::SCHEDULER_PRIORITY) {
        st.realtime = Some(e.to_string());
    }
    if tl.boundaries.is_empty() {
        return st;
    }
    let len = tl.boundaries.len() as u64;
    let mut cur = tl.cursor();
    let mut current: Option<usize> = None;
    loop {
        let deadline = cur.at(tl, epoch);
        if deadline >= end || stop.load(Ordering::Relaxed) {
            break;
        }
        let wake_at = deadline.saturating_sub(margin);
        sleep_until(wake_at);
        let mut woke = monotonic_ns();
        st.wake_lateness.record(woke.saturating_sub(wake_at));
        while woke < deadline {
            std::hint::spin_loop();
            woke = monotonic_ns();
        }
        st.lateness.record(woke - deadline);
        let b = *cur.boundary(tl);
        if current != b.next {
            if let Some(h) = current.and_then(|p| holds.get(p)) {
                note(&mut st, h.stop());
            }
            if let Some(h) = b.next.and_then(|n| holds.get(n)) {
                note(&mut st, h.resume());
            }
            current = b.next;
        }
        let done = monotonic_ns();
        st.switch_cost.record(done.saturating_sub(woke));
        st.boundaries += 1;
        let next = cur.next(tl);
        if next.at(tl, epoch) <= done {
            let inf = BoundaryCursor::in_force(tl, epoch, done).unwrap_or(next);
            let pos = |c: BoundaryCursor| c.frame * len + c.index as u64;
            st.missed += pos(inf).saturating_sub(pos(cur));
            cur = inf;
        } else {
            cur = next;
        }
    }
    if let Some(h) = current.and_then(|p| holds.get(p)) {
        note(&mut st, h.stop());
    }
    st
}

fn note(st: &mut LoopStats, r: partita_sys::Result<()>) {
    if let Err(e) = r {
        if st.errors.len() < 10 {
            st.errors.push(e.to_string());
        }
    }
}
