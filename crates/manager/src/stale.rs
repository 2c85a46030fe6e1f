// SPDX-License-Identifier: MIT OR Apache-2.0
//! Directories left by earlier runs whose manager is gone.
//!
//! Each run keeps its cgroups under `partita/<manager pid>-<start µs>` in every hierarchy it
//! uses, and removes them when it ends; if the manager and its clean-up guard were both killed
//! (`kill -9` of a whole process group, a test harness's time-out), empty directories stay
//! behind. A new run removes those of runs whose manager no longer exists: the pid is gone,
//! or now belongs to a process started after that run (a reused pid). A directory that still
//! holds processes cannot be removed (the kernel refuses) and is reported instead: processes
//! of a dead run that outlived their manager.

use crate::host::HostInfo;
use std::path::{Path, PathBuf};

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

/// Removes the directories of dead runs in every hierarchy `host` has; returns notes for the
/// report (what was removed, and what could not be).
pub(crate) fn sweep(host: &HostInfo, own_run: &str) -> Vec<String> {
    let m = &host.mounts;
    let boot_lead_us = partita_sys::time::boottime_offset_ns() / 1000;
    let mut removed = 0;
    let mut notes = Vec::new();
    for root in [&m.cpuacct, &m.cpuset, &m.memory, &m.pids, &m.freezer, &m.v2]
        .into_iter()
        .flatten()
    {
        let Ok(entries) = std::fs::read_dir(root.join("partita")) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            let Some((pid, start)) = parse_run(&name) else {
                continue;
            };
            if own_run.ends_with(&name) || owner_alive(start, process_start_us(pid), boot_lead_us) {
                continue;
            }
            match remove_tree(&e.path()) {
                Ok(()) => removed += 1,
                Err(busy) => notes.push(format!(
                    "a run that ended without cleaning up left {} (holding processes: {})",
                    e.path().display(),
                    busy.display()
                )),
            }
        }
    }
    if removed > 0 {
        notes.push(format!(
            "removed {removed} empty cgroup director{} of earlier runs whose manager is gone",
            if removed == 1 { "y" } else { "ies" }
        ));
    }
    notes
}

/// Removes the cgroup directory `dir` and its sub-groups, deepest first; on failure, the
/// first directory that could not be removed.
fn remove_tree(dir: &Path) -> Result<(), PathBuf> {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                remove_tree(&e.path())?;
            }
        }
    }
    std::fs::remove_dir(dir).map_err(|_| dir.to_path_buf())
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
}
