// SPDX-License-Identifier: MIT OR Apache-2.0
//! Reclaiming what dead runs left behind.
//!
//! Each run keeps its cgroups under `partita/<manager pid>-<start µs>` in every hierarchy it
//! uses, and removes them when it ends; if the manager dies, its clean-up guard does. If the
//! manager and the guard were both killed (`kill -9` of a whole process group, a test
//! harness's time-out), the run's partitions stay, frozen (state D, parent 1) or running, in
//! cgroups nobody removes. A run is dead when its manager no longer exists: the pid is gone,
//! or now belongs to a process started after that run (a reused pid). Only dead runs'
//! objects are touched, so a module running at the same time is never disturbed.
//!
//! Reclaiming a dead run thaws every one of its cgroups (v1 `freezer.state`, v2
//! `cgroup.freeze`), kills every process listed in them until none is left, and removes the
//! directories, deepest first. Nothing else of a run outlives its processes: control blocks
//! and channels are memfds (freed with their last holder), and the CPU and partition-id
//! locks are `flock`s (released by the kernel when their holder dies; the lock files are
//! shared by every run and stay).
//!
//! `partita run` reclaims dead runs before it starts ([`reclaim_except`]); `partita cleanup`
//! does it on demand ([`reclaim_dead_runs`], with a dry run that only lists).

use crate::host::HostInfo;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// How long reclaiming waits for a dead run's processes to die after SIGKILL.
const KILL_ROUNDS: u32 = 250;
/// Pause between two rounds of thaw and kill.
const ROUND_PAUSE: std::time::Duration = std::time::Duration::from_millis(20);

/// What was reclaimed (or, in a dry run, would be) from one dead run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Reclaimed {
    /// The run: `<manager pid>-<start µs>`.
    pub run: String,
    /// Processes of the run that were still alive (killed, unless a dry run).
    pub processes: Vec<i32>,
    /// Directories removed (or to remove), deepest first.
    pub directories: Vec<PathBuf>,
    /// What could not be reclaimed, and why.
    pub failures: Vec<String>,
}

impl Reclaimed {
    /// One line for a report: what was done (or would be, with `dry_run`).
    pub fn summary(&self, dry_run: bool) -> String {
        let (kill, remove) = if dry_run {
            ("would kill", "would remove")
        } else {
            ("killed", "removed")
        };
        let mut s = format!(
            "run {} of a manager that is gone: {kill} {} process{}, {remove} {} director{}",
            self.run,
            self.processes.len(),
            if self.processes.len() == 1 { "" } else { "es" },
            self.directories.len(),
            if self.directories.len() == 1 {
                "y"
            } else {
                "ies"
            },
        );
        for f in &self.failures {
            s.push_str(&format!("; NOT reclaimed: {f}"));
        }
        s
    }
}

/// One dead run: its directory in each place a run keeps one.
struct DeadRun {
    name: String,
    trees: Vec<Tree>,
    /// Its run directory (crate::rundir), if left.
    host_dir: Option<PathBuf>,
}

/// A run's directory in one cgroup hierarchy.
struct Tree {
    dir: PathBuf,
    freezer: Option<Freeze>,
}

/// How a hierarchy thaws a cgroup: the control file and the value that thaws.
#[derive(Clone, Copy)]
struct Freeze {
    file: &'static str,
    thawed: &'static str,
}

const FREEZER_V1: Freeze = Freeze {
    file: "freezer.state",
    thawed: "THAWED",
};
const FREEZER_V2: Freeze = Freeze {
    file: "cgroup.freeze",
    thawed: "0",
};

/// The manager pid and start time (µs of `CLOCK_MONOTONIC`) a run directory is named after.
pub(crate) fn parse_run(name: &str) -> Option<(i32, u64)> {
    let (pid, start) = name.split_once('-')?;
    Some((pid.parse().ok()?, start.parse().ok()?))
}

/// Whether the manager of a run started at `run_start_us` (monotonic) with pid `pid` may still
/// be running, given the start time of the process now holding that pid (`proc_start_us`,
/// boot-time clock; `None`: no such process) and the boot-time clock's lead over the
/// monotonic one. A process that started after the run did not start it. One second of
/// slack: the manager names its run directory after it started.
pub(crate) fn owner_alive(
    run_start_us: u64,
    proc_start_us: Option<u64>,
    boot_lead_us: u64,
) -> bool {
    match proc_start_us {
        None => false,
        Some(s) => s <= run_start_us + boot_lead_us + 1_000_000,
    }
}

/// Start time of process `pid` on the boot-time clock, µs (`None` if it does not exist).
fn process_start_us(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Field 22; the command name (field 2) may hold spaces and parentheses: count after the
    // last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let ticks: u64 = rest.split_whitespace().nth(19)?.parse().ok()?;
    Some(ticks * 1_000_000 / partita_sys::time::clock_ticks_per_second())
}

/// The hierarchies a run keeps a directory in, each with how it thaws a cgroup.
fn hierarchies(m: &partita_sys::cgroup::Mounts) -> Vec<(PathBuf, Option<Freeze>)> {
    let mut v: Vec<(PathBuf, Option<Freeze>)> = Vec::new();
    let plain = [&m.cpuacct, &m.cpuset, &m.memory, &m.pids]
        .into_iter()
        .flatten();
    let all = plain
        .map(|r| (r.clone(), None))
        .chain(m.freezer.iter().map(|r| (r.clone(), Some(FREEZER_V1))))
        .chain(m.v2.iter().map(|r| (r.clone(), Some(FREEZER_V2))));
    for (root, freeze) in all {
        // Controllers mounted together share one directory.
        match v.iter_mut().find(|(r, _)| *r == root) {
            Some(slot) => slot.1 = slot.1.or(freeze),
            None => v.push((root, freeze)),
        }
    }
    v
}

/// Whether run `name` (manager `pid` started at `start`) is dead and not the caller's `own`.
fn is_dead(name: &str, pid: i32, start: u64, own: Option<&str>, boot_lead_us: u64) -> bool {
    own != Some(name) && !owner_alive(start, process_start_us(pid), boot_lead_us)
}

/// The runs whose manager is gone, except `own` (`<pid>-<start>`, the caller's run).
fn dead_runs(host: &HostInfo, own: Option<&str>) -> Vec<DeadRun> {
    let boot_lead_us = partita_sys::time::boottime_offset_ns() / 1000;
    let mut runs: Vec<DeadRun> = Vec::new();
    for (root, freezer) in hierarchies(&host.mounts) {
        let Ok(entries) = std::fs::read_dir(root.join("partita")) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            let Some((pid, start)) = parse_run(&name) else {
                continue;
            };
            if !is_dead(&name, pid, start, own, boot_lead_us) {
                continue;
            }
            let tree = Tree {
                dir: e.path(),
                freezer,
            };
            match runs.iter_mut().find(|r| r.name == name) {
                Some(r) => r.trees.push(tree),
                None => runs.push(DeadRun {
                    name,
                    trees: vec![tree],
                    host_dir: None,
                }),
            }
        }
    }
    for e in std::fs::read_dir(crate::rundir::base())
        .into_iter()
        .flatten()
        .flatten()
    {
        let name = e.file_name().to_string_lossy().to_string();
        let Some((pid, start)) = parse_run(&name) else {
            continue;
        };
        if !is_dead(&name, pid, start, own, boot_lead_us) {
            continue;
        }
        match runs.iter_mut().find(|r| r.name == name) {
            Some(r) => r.host_dir = Some(e.path()),
            None => runs.push(DeadRun {
                name,
                trees: Vec::new(),
                host_dir: Some(e.path()),
            }),
        }
    }
    runs.sort_by(|a, b| a.name.cmp(&b.name));
    runs
}

/// Reclaims every run whose manager is gone (see the module documentation); with `dry_run`,
/// only says what it would do. A run whose manager lives is never touched.
pub fn reclaim_dead_runs(dry_run: bool) -> Vec<Reclaimed> {
    reclaim_except(&HostInfo::detect(), None, dry_run)
}

/// [`reclaim_dead_runs`], leaving the caller's own run `own` alone.
pub(crate) fn reclaim_except(host: &HostInfo, own: Option<&str>, dry_run: bool) -> Vec<Reclaimed> {
    dead_runs(host, own)
        .into_iter()
        .map(|r| reclaim(r, dry_run))
        .collect()
}

/// Thaws, kills and removes one dead run (or lists what that would touch).
fn reclaim(run: DeadRun, dry_run: bool) -> Reclaimed {
    // Every directory of the run, deepest first, with how its hierarchy thaws.
    let mut dirs: Vec<(PathBuf, Option<Freeze>)> = Vec::new();
    for t in &run.trees {
        collect_deepest_first(&t.dir, t.freezer, &mut dirs);
    }
    let mut done = Reclaimed {
        run: run.name,
        processes: processes_in(&dirs),
        directories: dirs
            .iter()
            .map(|(d, _)| d.clone())
            .chain(run.host_dir.clone())
            .collect(),
        failures: Vec::new(),
    };
    if dry_run {
        return done;
    }
    // A frozen process only dies once thawed: thaw, kill, and again until none is left.
    for _ in 0..KILL_ROUNDS {
        for (dir, freeze) in &dirs {
            if let Some(f) = freeze {
                // A v2 group without the file (the root of a tree) has nothing to thaw.
                let _ = std::fs::write(dir.join(f.file), f.thawed);
            }
        }
        let alive = processes_in(&dirs);
        if alive.is_empty() {
            break;
        }
        for pid in alive {
            if let Err(e) = partita_sys::proc::kill(pid, crate::run::signal::SIGKILL) {
                done.failures.push(format!("process {pid}: {e}"));
                return done;
            }
        }
        std::thread::sleep(ROUND_PAUSE);
    }
    let alive = processes_in(&dirs);
    if !alive.is_empty() {
        done.failures.push(format!(
            "processes {alive:?} did not die within {} ms of SIGKILL",
            KILL_ROUNDS * ROUND_PAUSE.as_millis() as u32
        ));
        return done;
    }
    let mut removed = Vec::new();
    for (dir, _) in &dirs {
        match std::fs::remove_dir(dir) {
            Ok(()) => removed.push(dir.clone()),
            // Removed meanwhile (a clean-up guard that was still at work).
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => done.failures.push(format!("{}: {e}", dir.display())),
        }
    }
    if let Some(d) = &run.host_dir {
        match std::fs::remove_dir_all(d) {
            Ok(()) => removed.push(d.clone()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => done.failures.push(format!("{}: {e}", d.display())),
        }
    }
    done.directories = removed;
    done
}

/// Appends `dir` and its sub-directories to `out`, deepest first.
fn collect_deepest_first(
    dir: &Path,
    freeze: Option<Freeze>,
    out: &mut Vec<(PathBuf, Option<Freeze>)>,
) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                collect_deepest_first(&e.path(), freeze, out);
            }
        }
    }
    out.push((dir.to_path_buf(), freeze));
}

/// The processes listed in the `cgroup.procs` of `dirs`, sorted, each once.
fn processes_in(dirs: &[(PathBuf, Option<Freeze>)]) -> Vec<i32> {
    let mut pids: Vec<i32> = dirs
        .iter()
        .filter_map(|(d, _)| std::fs::read_to_string(d.join("cgroup.procs")).ok())
        .flat_map(|t| {
            t.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<i32>>()
        })
        .collect();
    pids.sort_unstable();
    pids.dedup();
    pids
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_directories_are_recognised() {
        assert_eq!(parse_run("17495-12312420639"), Some((17495, 12312420639)));
        assert_eq!(parse_run("sentinel"), None);
        assert_eq!(parse_run("00-far"), None);
        assert_eq!(parse_run("12-"), None);
    }

    #[test]
    fn only_a_process_started_before_the_run_can_be_its_manager() {
        // Gone.
        assert!(!owner_alive(5_000_000, None, 0));
        // Started before the run: its manager (or the slack).
        assert!(owner_alive(5_000_000, Some(4_900_000), 0));
        assert!(owner_alive(5_000_000, Some(5_900_000), 0));
        // Started well after it: the pid was reused.
        assert!(!owner_alive(5_000_000, Some(9_000_000), 0));
        // The boot-time clock ran ahead during a suspend: still the manager.
        assert!(owner_alive(5_000_000, Some(9_000_000), 5_000_000));
    }

    #[test]
    fn this_process_is_alive_by_its_own_start_time() {
        let me = partita_sys::sched::getpid();
        let start = process_start_us(me).expect("own /proc/<pid>/stat");
        let now_us = partita_sys::time::monotonic_ns() / 1000;
        let lead = partita_sys::time::boottime_offset_ns() / 1000;
        assert!(owner_alive(now_us, Some(start), lead));
        assert!(start <= now_us + lead + 1_000_000);
    }

    #[test]
    fn co_mounted_controllers_are_one_hierarchy_and_keep_their_freezer() {
        let m = partita_sys::cgroup::Mounts::parse(
            "cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,cpu,cpuacct 0 0\n\
             cgroup /sys/fs/cgroup/freezer cgroup rw,freezer 0 0\n\
             cgroup /sys/fs/cgroup/pids cgroup rw,pids 0 0\n\
             cgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0\n",
        );
        let h = hierarchies(&m);
        let names: Vec<(String, Option<&str>)> = h
            .iter()
            .map(|(p, f)| (p.display().to_string(), f.map(|f| f.file)))
            .collect();
        assert_eq!(
            names,
            vec![
                ("/sys/fs/cgroup/cpu,cpuacct".to_string(), None),
                ("/sys/fs/cgroup/pids".to_string(), None),
                ("/sys/fs/cgroup/freezer".to_string(), Some("freezer.state")),
                ("/sys/fs/cgroup/unified".to_string(), Some("cgroup.freeze")),
            ]
        );
    }

    #[test]
    fn directories_are_listed_deepest_first() {
        let d = std::env::temp_dir().join(format!("partita-reclaim-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("a/b")).unwrap();
        std::fs::create_dir_all(d.join("c")).unwrap();
        let mut out = Vec::new();
        collect_deepest_first(&d, None, &mut out);
        let pos = |p: &Path| out.iter().position(|(x, _)| x == p).unwrap();
        assert_eq!(out.len(), 4);
        assert!(pos(&d.join("a/b")) < pos(&d.join("a")));
        assert_eq!(pos(&d), 3);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
