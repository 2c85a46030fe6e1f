// SPDX-License-Identifier: MIT OR Apache-2.0
//! Nothing outlives a dead run: when a manager and its clean-up guard are both killed
//! (SIGKILL to their process group), the frozen partitions and cgroups they leave are
//! reclaimed by `partita cleanup` or by the next `partita run`, and a run whose manager lives
//! is never touched.

mod common;

use common::*;
use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// The backend that keeps partitions frozen outside their windows.
fn freezer_backend() -> &'static str {
    if std::path::Path::new("/sys/fs/cgroup/freezer").exists() {
        "freezer-v1"
    } else {
        "freezer-v2"
    }
}

/// A running module of two periodic partitions that print a line in each window (their
/// command lines hold `token`; they never spin, so two such modules do not starve each
/// other's windows), in its own process group, once both partitions printed; its stdout is drained by a
/// thread (returned) so the manager never blocks on it.
fn start(
    name: &str,
    token: &str,
    duration: Option<&str>,
) -> (KillOnDrop, std::thread::JoinHandle<String>) {
    let dir = scratch(name);
    let exe = partition_exe("steady");
    let parts = [("a", vec![(0, 20)]), ("b", vec![(50, 20)])].map(|(n, windows)| Part {
        name: n,
        exe: exe.clone(),
        windows,
        extra: vec![token.to_string()],
    });
    let module = write_module(&dir, name, 100, &parts);
    let mut cmd = partita();
    cmd.args(["run", "--backend", freezer_backend()]);
    if let Some(d) = duration {
        cmd.args(["--duration", d]);
    }
    let err = dir.join("stderr");
    let mut child = KillOnDrop(
        cmd.arg(&module)
            .process_group(0)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&err).unwrap())
            .spawn()
            .unwrap(),
    );
    let mut lines = BufReader::new(child.0.stdout.take().unwrap());
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = std::collections::BTreeSet::new();
    let mut line = String::new();
    let mut read = String::new();
    while seen.len() < 2 && Instant::now() < deadline {
        line.clear();
        if lines.read_line(&mut line).unwrap() == 0 {
            break;
        }
        read.push_str(&line);
        if line.contains("| STEADY ") {
            seen.insert(line.split('|').next().unwrap_or("").trim().to_string());
        }
    }
    assert_eq!(
        seen.len(),
        2,
        "partitions of {name} did not start; stdout:\n{read}\nstderr:\n{}",
        std::fs::read_to_string(&err).unwrap_or_default()
    );
    let drain = std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = lines.read_to_string(&mut rest);
        rest
    });
    (child, drain)
}

/// Kills the manager of `child` and its guard (its whole process group) with SIGKILL; returns
/// once the manager is reaped and the guard is gone.
fn kill_group(child: &mut Child) {
    let pgid = child.id();
    let st = std::process::Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .status()
        .unwrap();
    assert!(st.success());
    child.wait().unwrap();
    // The guard (same group) is not our child: wait until no process is left in the group.
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline && !group_members(pgid).is_empty() {
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A module started by a test: if it still runs when the test ends (passed or failed), its
/// process group is killed and `partita cleanup` reclaims what it left.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            kill_group(&mut self.0);
            let _ = partita().arg("cleanup").output();
        }
    }
}

/// The processes of process group `pgid` (frozen ones included), zombies excepted.
fn group_members(pgid: u32) -> Vec<i32> {
    let mut v = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        // Fields after the name: state, ppid, pgrp.
        if f.len() > 2 && f[0] != "Z" && f[2] == pgid.to_string() {
            v.push(pid);
        }
    }
    v
}

/// The run directories of manager `pid` (crates/manager/src/rundir.rs).
fn run_dirs(pid: u32) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(partita_manager::rundir::BASE)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!("{pid}-"))
        })
        .map(|e| e.path())
        .collect()
}

/// A run killed with its guard leaves partitions and cgroups; both tests start from there,
/// with a second module running meanwhile. Returns (dead manager pid, its token, the live
/// module, its drain thread, its token).
struct Scene {
    dead: u32,
    dead_token: String,
    live: KillOnDrop,
    live_out: std::thread::JoinHandle<String>,
    live_token: String,
}

fn scene(test: &str) -> Scene {
    let me = std::process::id();
    let dead_token = format!("tok-{test}-dead-{me}");
    let live_token = format!("tok-{test}-live-{me}");
    let (mut victim, _) = start(&format!("{test}-dead"), &dead_token, None);
    let dead = victim.0.id();
    let (live, live_out) = start(&format!("{test}-live"), &live_token, Some("6s"));
    kill_group(&mut victim.0);
    // What the killed run left: partitions (those frozen at the kill cannot die) and cgroups.
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !cgroups_of(dead).is_empty(),
        "the killed run left no cgroup: nothing to test"
    );
    assert!(
        !processes_with(&dead_token).is_empty(),
        "the killed run left no partition process: nothing to test"
    );
    assert_eq!(
        run_dirs(dead).len(),
        1,
        "the killed run left no run directory"
    );
    Scene {
        dead,
        dead_token,
        live,
        live_out,
        live_token,
    }
}

/// Nothing of the killed run is left; the live module's objects are intact, and it ends
/// normally.
fn dead_run_gone_live_run_untouched(mut s: Scene) {
    assert!(
        wait_gone(&s.dead_token, s.dead),
        "left: processes {:?} cgroups {:?}",
        processes_with(&s.dead_token),
        cgroups_of(s.dead)
    );
    assert_eq!(run_dirs(s.dead), Vec::<std::path::PathBuf>::new());
    let live = s.live.0.id();
    assert_eq!(
        run_dirs(live).len(),
        1,
        "the live run lost its run directory"
    );
    assert_eq!(
        processes_with(&s.live_token).len(),
        2,
        "the live run lost a partition"
    );
    assert!(
        !cgroups_of(live).is_empty(),
        "the live run lost its cgroups"
    );
    let status = s.live.0.wait().unwrap();
    let out = s.live_out.join().unwrap();
    assert!(status.success(), "live run: {status:?}\n{out}");
    assert!(wait_gone(&s.live_token, live));
}

#[test]
fn cleanup_reclaims_a_killed_run_and_leaves_a_live_one_alone() {
    let _g = serial();
    let test = "cleanup_reclaims_a_killed_run_and_leaves_a_live_one_alone";
    if let Err(r) = capable() {
        return skip(test, &r);
    }
    let s = scene("cleanup");
    let run = format!("run {}-", s.dead);
    // A dry run lists and touches nothing.
    let out = partita().args(["cleanup", "--dry-run"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with(&run) && l.contains("would kill")),
        "{}",
        text(&out)
    );
    assert!(!cgroups_of(s.dead).is_empty() && !processes_with(&s.dead_token).is_empty());
    // The real thing.
    let out = partita().arg("cleanup").output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find(|l| l.starts_with(&run))
        .unwrap_or_else(|| panic!("no line for the dead run\n{}", text(&out)));
    assert!(line.contains("killed") && !line.contains("NOT"), "{line}");
    assert!(
        !stdout.contains(&format!("run {}-", s.live.0.id())),
        "{}",
        text(&out)
    );
    dead_run_gone_live_run_untouched(s);
}

#[test]
fn the_next_run_reclaims_a_killed_run() {
    let _g = serial();
    let test = "the_next_run_reclaims_a_killed_run";
    if let Err(r) = capable() {
        return skip(test, &r);
    }
    let s = scene("next-run");
    let out = partita()
        .args(["run", "--duration", "300ms", "--quiet"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .lines()
            .any(|l| l.contains("earlier run whose manager is gone")
                && l.contains(&format!("run {}-", s.dead))),
        "{}",
        text(&out)
    );
    dead_run_gone_live_run_untouched(s);
}
