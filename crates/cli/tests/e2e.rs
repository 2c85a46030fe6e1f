// SPDX-License-Identifier: MIT OR Apache-2.0
//! End-to-end tests: real modules run by the `partita` binary, checked from the partitions'
//! own clocks and from the host (processes, cgroups) afterwards.

mod common;

use common::*;
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

const BACKENDS: &[&str] = &["signals", "freezer-v1", "freezer-v2"];
/// A partition seen running this far (ns) outside its windows fails the test. Real overruns
/// are tens of microseconds; an unconfined partition shows tens of milliseconds.
const WORST_ALLOWED_NS: u64 = 3_000_000;

/// Without a spin margin (`--spin-margin 0us`: plain absolute sleeps to each boundary) the
/// partitions still run only in their windows; the report says which margin was used.
#[test]
fn without_a_spin_margin_partitions_stay_in_their_windows() {
    let _g = serial();
    if let Err(r) = capable() {
        return skip("without_a_spin_margin_partitions_stay_in_their_windows", &r);
    }
    let dir = scratch("confined-no-margin");
    let token = format!("tok-confined-no-margin-{}", std::process::id());
    let module = confinement_module(&dir, &token, false);
    let json = dir.join("report.json");
    // Runs the module with `args` before it; its output and report.
    let run = |args: &[&str]| {
        let out = partita()
            .args(["run", "--json"])
            .arg(&json)
            .args(args)
            .arg(&module)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        (out, report)
    };
    let (out, report) = run(&["--duration", "2s", "--spin-margin", "0us"]);
    assert_confined(&out, &[("good", 1), ("other", 1)]);
    assert_eq!(report["spin_margin_ns"], 0, "{report}");
    // The default margin, for comparison: 80 us.
    let (_, report) = run(&["--duration", "300ms"]);
    assert_eq!(report["spin_margin_ns"], 80_000, "{report}");
}

fn confinement_module(dir: &std::path::Path, token: &str, hostile: bool) -> std::path::PathBuf {
    confinement_module_with(dir, token, hostile, &[])
}

/// [`confinement_module`] with more arguments for the hostile partition.
fn confinement_module_with(
    dir: &std::path::Path,
    token: &str,
    hostile: bool,
    hostile_args: &[&str],
) -> std::path::PathBuf {
    let good = partition_exe("window_check");
    let mut parts = vec![
        Part {
            name: "good",
            exe: good.clone(),
            windows: vec![(0, 20), (50, 10)],
            extra: vec![token.into()],
        },
        Part {
            name: "other",
            exe: good,
            windows: vec![(25, 20)],
            extra: vec![token.into()],
        },
    ];
    if hostile {
        parts.push(Part {
            name: "hostile",
            exe: partition_exe("hostile"),
            windows: vec![(65, 25)],
            extra: std::iter::once(token)
                .chain(hostile_args.iter().copied())
                .map(String::from)
                .collect(),
        });
    }
    write_module(
        dir,
        if hostile { "hostile" } else { "confined" },
        100,
        &parts,
    )
}

fn assert_confined(out: &std::process::Output, expect: &[(&str, usize)]) {
    let all = String::from_utf8_lossy(&out.stdout).to_string();
    let checks = checks(&all);
    for &(name, roles) in expect {
        let mine: Vec<_> = checks.iter().filter(|c| c.0 == name).collect();
        assert_eq!(
            mine.len(),
            roles,
            "{name}: expected {roles} reporting roles\n{}",
            text(out)
        );
        for c in mine {
            assert!(
                c.2 > 1000,
                "{name}/{}: too few samples ({})\n{}",
                c.1,
                c.2,
                text(out)
            );
            assert!(
                c.4 < WORST_ALLOWED_NS,
                "{name}/{} ran {} us outside its windows\n{}",
                c.1,
                c.4 / 1000,
                text(out)
            );
        }
    }
}

#[test]
fn partitions_run_only_in_their_windows_with_every_backend() {
    let _g = serial();
    if let Err(r) = capable() {
        return skip(
            "partitions_run_only_in_their_windows_with_every_backend",
            &r,
        );
    }
    for backend in BACKENDS {
        let dir = scratch(&format!("confined-{backend}"));
        let token = format!("tok-confined-{backend}-{}", std::process::id());
        let module = confinement_module(&dir, &token, false);
        let out = partita()
            .args(["run", "--duration", "2s", "--backend", backend])
            .arg(&module)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("backend {backend}")),
            "{}",
            text(&out)
        );
        assert_confined(&out, &[("good", 1), ("other", 1)]);
        assert!(
            processes_with(&token).is_empty(),
            "leftover processes after {backend}"
        );
    }
}

#[test]
fn hostile_partition_is_confined_with_every_backend() {
    let _g = serial();
    if let Err(r) = capable() {
        return skip("hostile_partition_is_confined_with_every_backend", &r);
    }
    for backend in BACKENDS {
        let dir = scratch(&format!("hostile-{backend}"));
        let token = format!("tok-hostile-{backend}-{}", std::process::id());
        let module = confinement_module(&dir, &token, true);
        let out = partita()
            .args(["run", "--duration", "2s", "--backend", backend])
            .arg(&module)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        // main + forked child + 3 threads, all confined; the neighbours too.
        assert_confined(&out, &[("good", 1), ("other", 1), ("hostile", 5)]);
        assert!(
            processes_with(&token).is_empty(),
            "leftover processes after {backend}: {:?}",
            processes_with(&token)
        );
    }
}

/// The signals backend stops a partition through its process group, which the seccomp filter
/// keeps every process in. Without the filter it signals every process of the partition's
/// cgroup instead: a child that left the group is held all the same.
#[test]
fn without_the_filter_a_process_that_left_the_group_is_still_confined() {
    let _g = serial();
    if let Err(r) = capable() {
        return skip(
            "without_the_filter_a_process_that_left_the_group_is_still_confined",
            &r,
        );
    }
    let dir = scratch("hostile-escape");
    let token = format!("tok-hostile-escape-{}", std::process::id());
    let module = confinement_module_with(&dir, &token, true, &["escape-group"]);
    let out = partita()
        .args([
            "run",
            "--duration",
            "2s",
            "--backend",
            "signals",
            "--no-seccomp",
        ])
        .arg(&module)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("HOSTILE left the process group"),
        "{}",
        text(&out)
    );
    assert_confined(&out, &[("good", 1), ("other", 1), ("hostile", 5)]);
    assert!(
        processes_with(&token).is_empty(),
        "leftover processes: {:?}",
        processes_with(&token)
    );
}

/// `--log-dir`: partitions named like the manager's own files (`module`, `hm`) keep their
/// output in `partitions/<name>.log`, apart from the manager's `module.log`.
#[test]
fn partition_logs_never_collide_with_the_module_log() {
    let _g = serial();
    if let Err(r) = capable() {
        return skip("partition_logs_never_collide_with_the_module_log", &r);
    }
    let dir = scratch("log-names");
    let part = |name, start| Part {
        name,
        exe: partition_exe("steady"),
        windows: vec![(start, 20)],
        extra: vec![],
    };
    let module = write_module(&dir, "lognames", 100, &[part("module", 0), part("hm", 50)]);
    let logs = dir.join("logs");
    let out = partita()
        .args(["run", "--duration", "500ms", "--quiet", "--log-dir"])
        .arg(&logs)
        .arg(&module)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let read = |p: std::path::PathBuf| {
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    };
    let manager = read(partita_manager::module_log(&logs));
    assert!(manager.contains("module lognames started"), "{manager}");
    assert!(!manager.contains("STEADY"), "{manager}");
    for name in ["module", "hm"] {
        let log = read(partita_manager::partition_log(&logs, name));
        assert!(log.contains("STEADY seq="), "{name}: {log}");
        assert!(!log.contains("started: backend"), "{name}: {log}");
    }
}

/// The small example, `examples/hello`, built with `partita cc` as its comment says and run
/// from its own module file (the default module is the flagship: tests/flagship.rs).
#[test]
fn hello_runs_and_stops_cleanly() {
    let _g = serial();
    if let Err(r) = capable() {
        return skip("hello_runs_and_stops_cleanly", &r);
    }
    let dir = scratch("hello");
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    let module = dir.join("module.xml");
    std::fs::copy(repo().join("examples/hello/module.xml"), &module).unwrap();
    let cc = partita()
        .args(["cc", "-O2", "-Wall", "-Werror"])
        .arg(repo().join("examples/hello/hello.c"))
        .arg("-o")
        .arg(dir.join("bin/hello"))
        .output()
        .unwrap();
    assert!(cc.status.success(), "{}", text(&cc));
    let child = partita()
        .args(["run", "--duration", "1500ms", "--log-dir"])
        .arg(dir.join("logs"))
        .arg("--json")
        .arg(dir.join("report.json"))
        .arg(&module)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("hello from alpha"), "{}", text(&out));
    assert!(stdout.contains("hello from beta"), "{}", text(&out));
    assert!(stdout.contains("application message"), "{}", text(&out));
    let alpha_log =
        std::fs::read_to_string(partita_manager::partition_log(&dir.join("logs"), "alpha"))
            .unwrap();
    assert!(alpha_log.contains("hello from alpha"));
    assert!(!alpha_log.contains("hello from beta"));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["partitions"][0]["mode"], "NORMAL", "{report}");
    assert!(
        report["partitions"][0]["windows"].as_u64().unwrap() >= 5,
        "{report}"
    );
    assert!(report["leftovers"].as_array().unwrap().is_empty());
    assert!(
        cgroups_of(pid).is_empty(),
        "cgroups left: {:?}",
        cgroups_of(pid)
    );
}

/// Starts a long-running module and waits until every partition has printed a CHECK line.
fn start_long_module(name: &str, token: &str) -> std::process::Child {
    let dir = scratch(name);
    let module = confinement_module(&dir, token, false);
    let mut child = partita()
        .args(["run"])
        .arg(&module)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = std::collections::BTreeSet::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        if let Some(i) = line.find("CHECK ") {
            seen.insert(
                line[i + 6..]
                    .split_whitespace()
                    .next()
                    .unwrap_or("")
                    .to_string(),
            );
        }
        if seen.len() >= 2 || Instant::now() > deadline {
            break;
        }
    }
    assert_eq!(seen.len(), 2, "partitions did not start");
    child
}

#[test]
fn sigint_stops_the_module_and_leaves_nothing() {
    let _g = serial();
    if let Err(r) = capable() {
        return skip("sigint_stops_the_module_and_leaves_nothing", &r);
    }
    let token = format!("tok-sigint-{}", std::process::id());
    let mut child = start_long_module("sigint", &token);
    let pid = child.id();
    assert!(!processes_with(&token).is_empty());
    // SAFETY-free: `kill` from the shell.
    let st = std::process::Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let status = child.wait().unwrap();
    assert!(status.success(), "manager exit status {status:?}");
    assert!(
        wait_gone(&token, pid),
        "processes {:?} cgroups {:?}",
        processes_with(&token),
        cgroups_of(pid)
    );
}

#[test]
fn a_killed_manager_leaves_nothing_running() {
    let _g = serial();
    if let Err(r) = capable() {
        return skip("a_killed_manager_leaves_nothing_running", &r);
    }
    let token = format!("tok-crash-{}", std::process::id());
    let mut child = start_long_module("crash", &token);
    let pid = child.id();
    child.kill().unwrap(); // SIGKILL: no clean-up code of the manager runs
    let _ = child.wait();
    assert!(
        wait_gone(&token, pid),
        "processes {:?} cgroups {:?}",
        processes_with(&token),
        cgroups_of(pid)
    );
}

#[test]
fn a_compiled_plan_runs_and_a_corrupt_one_is_refused() {
    let _g = serial();
    if let Err(r) = capable() {
        return skip("a_compiled_plan_runs_and_a_corrupt_one_is_refused", &r);
    }
    let dir = scratch("plan");
    let token = format!("tok-plan-{}", std::process::id());
    let module = confinement_module(&dir, &token, false);
    let plan = dir.join("module.plan");
    let out = partita()
        .arg("compile")
        .arg(&module)
        .arg("-o")
        .arg(&plan)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let out = partita()
        .args(["run", "--duration", "1s"])
        .arg(&plan)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert_confined(&out, &[("good", 1), ("other", 1)]);
    let mut bytes = std::fs::read(&plan).unwrap();
    let n = bytes.len();
    bytes[n - 3] ^= 0x5a;
    std::fs::write(&plan, &bytes).unwrap();
    let out = partita()
        .args(["run", "--duration", "1s"])
        .arg(&plan)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .to_lowercase()
            .contains("sha-256"),
        "{}",
        text(&out)
    );
}

#[test]
fn a_missing_executable_is_reported_by_check() {
    let dir = scratch("missing-exe");
    let module = write_module(
        &dir,
        "missing",
        100,
        &[Part {
            name: "ghost",
            exe: dir.join("no-such-program"),
            windows: vec![(0, 50)],
            extra: vec![],
        }],
    );
    let out = partita().arg("check").arg(&module).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("entry-point-missing"), "{}", text(&out));
    assert!(
        err.contains("ghost.xml") || err.contains("missing.xml"),
        "{}",
        text(&out)
    );
}

#[test]
fn a_partition_restarts_itself_then_goes_idle() {
    let _g = serial();
    if let Err(r) = capable() {
        return skip("a_partition_restarts_itself_then_goes_idle", &r);
    }
    let dir = scratch("restart");
    let token = format!("tok-restart-{}", std::process::id());
    let module = write_module(
        &dir,
        "restart",
        100,
        &[
            Part {
                name: "phoenix",
                exe: partition_exe("restarter"),
                windows: vec![(0, 30)],
                extra: vec![token.clone()],
            },
            Part {
                name: "steady",
                exe: partition_exe("window_check"),
                windows: vec![(50, 30)],
                extra: vec![token.clone()],
            },
        ],
    );
    let child = partita()
        .args(["run", "--duration", "2s", "--json"])
        .arg(dir.join("report.json"))
        .arg(&module)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("MODE init mode 1 start_condition 0"),
        "{}",
        text(&out)
    );
    assert!(
        stdout.contains("MODE requesting COLD_START"),
        "{}",
        text(&out)
    );
    assert!(
        stdout.contains("MODE init mode 1 start_condition 1"),
        "{}",
        text(&out)
    );
    assert!(stdout.contains("MODE requesting IDLE"), "{}", text(&out));
    assert!(!stdout.contains("unexpected return"), "{}", text(&out));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    let p = &report["partitions"][0];
    assert_eq!(p["restarts"], 1, "{report}");
    assert_eq!(p["mode"], "IDLE", "{report}");
    // The neighbour kept its windows and stayed confined throughout.
    assert_confined(&out, &[("steady", 1)]);
    assert_eq!(report["partitions"][1]["mode"], "NORMAL", "{report}");
    assert!(processes_with(&token).is_empty());
    assert!(cgroups_of(pid).is_empty());
}

/// Cgroup directories left by a run whose manager and clean-up guard were both killed are
/// removed by the next run; those of a run whose manager still lives are left alone.
#[test]
fn a_run_removes_the_cgroups_a_dead_run_left_behind() {
    let _g = serial();
    if let Err(r) = capable() {
        return skip("a_run_removes_the_cgroups_a_dead_run_left_behind", &r);
    }
    let parent = std::path::Path::new("/sys/fs/cgroup/cpuacct/partita");
    if !std::path::Path::new("/sys/fs/cgroup/cpuacct").exists() {
        return skip(
            "a_run_removes_the_cgroups_a_dead_run_left_behind",
            "no v1 cpuacct hierarchy at /sys/fs/cgroup/cpuacct",
        );
    }
    // Another module starting meanwhile (other tests, other users of the host) reclaims the
    // dead run as well, and then this run has nothing to say: the scenario is tried again,
    // a few times, until this run is the one that reclaims it.
    let mut last = String::new();
    for _attempt in 0..3 {
        // A pid nobody holds, and one that holds it since before the "run" (this process).
        let dead_pid = (4_000_000..4_100_000)
            .find(|p| !std::path::Path::new(&format!("/proc/{p}")).exists())
            .unwrap();
        let dead = parent.join(format!("{dead_pid}-1000/00-left"));
        let live = parent.join(format!("{}-{}", std::process::id(), u64::MAX / 2));
        std::fs::create_dir_all(&dead).unwrap();
        std::fs::create_dir_all(live.join("00-kept")).unwrap();
        let out = partita()
            .args(["run", "--duration", "300ms", "--quiet"])
            .output()
            .unwrap();
        let kept = live.join("00-kept").exists();
        let _ = std::fs::remove_dir(live.join("00-kept"));
        let _ = std::fs::remove_dir(&live);
        assert!(out.status.success(), "{}", text(&out));
        assert!(
            !dead.parent().unwrap().exists(),
            "dead run's directory still there\n{}",
            text(&out)
        );
        assert!(kept, "a live run's directory was removed\n{}", text(&out));
        if String::from_utf8_lossy(&out.stderr).contains("earlier run whose manager is gone") {
            return;
        }
        last = text(&out);
    }
    panic!("no run of the three said it reclaimed the dead run\n{last}");
}

/// With freezer-v2, the report says whether cgroup2 has `favordynmods` (as `/proc/mounts`
/// does), and a run without it carries the note that cgroup changes delay its switches
/// (CAVEATS.md); with it, no such note.
#[test]
fn freezer_v2_says_whether_cgroup_changes_will_delay_its_switches() {
    let _g = serial();
    let test = "freezer_v2_says_whether_cgroup_changes_will_delay_its_switches";
    if let Err(r) = capable() {
        return skip(test, &r);
    }
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap();
    let Some(v2) = mounts
        .lines()
        .find(|l| l.split_whitespace().nth(2) == Some("cgroup2"))
    else {
        return skip(test, "no cgroup v2 mount");
    };
    let favordynmods = v2
        .split_whitespace()
        .nth(3)
        .is_some_and(|o| o.split(',').any(|o| o == "favordynmods"));
    let dir = scratch("favordynmods");
    let json = dir.join("report.json");
    let out = partita()
        .args([
            "run",
            "--duration",
            "300ms",
            "--quiet",
            "--backend",
            "freezer-v2",
            "--json",
        ])
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["backend"], "freezer-v2", "{report}");
    assert_eq!(
        report["host"]["cgroup_v2_favordynmods"], favordynmods,
        "{report}"
    );
    let noted = !notes_of(&report, "no-favordynmods").is_empty();
    assert_eq!(noted, !favordynmods, "{report}");
}

/// Runs `module` for `duration` without echo, with the JSON report in `dir/report.json`: the
/// output and the report (`null` if none was written).
fn run_quietly(
    dir: &std::path::Path,
    module: &std::path::Path,
    duration: &str,
) -> (std::process::Output, serde_json::Value) {
    let json = dir.join("report.json");
    let out = partita()
        .args(["run", "--duration", duration, "--quiet", "--json"])
        .arg(&json)
        .arg(module)
        .output()
        .unwrap();
    let report = std::fs::read_to_string(&json)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(serde_json::Value::Null);
    (out, report)
}

/// The texts of the report's notes of `kind`.
fn notes_of<'a>(report: &'a serde_json::Value, kind: &str) -> Vec<&'a str> {
    report["notes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|n| n["kind"] == kind)
        .filter_map(|n| n["text"].as_str())
        .collect()
}

/// An executable its partition's uid may not execute: `partita check` warns
/// (`partition-path-unreachable`) and `partita run` notes it (kind `unreachable-path`) with the
/// same words, and the partition indeed does not start (exit 5, its `exec_error`).
#[test]
fn an_executable_the_partition_uid_cannot_execute_is_warned_noted_and_fails() {
    let _g = serial();
    let test = "an_executable_the_partition_uid_cannot_execute_is_warned_noted_and_fails";
    if let Err(r) = capable() {
        return skip(test, &r);
    }
    let dir = scratch("owner-only-exe");
    let exe = dir.join("owner-only");
    std::fs::copy(partition_exe("steady"), &exe).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o700)).unwrap();
    let module = write_module(
        &dir,
        "ownerexe",
        100,
        &[Part {
            name: "a",
            exe: exe.clone(),
            windows: vec![(0, 20)],
            extra: vec![],
        }],
    );
    let check = partita().arg("check").arg(&module).output().unwrap();
    let checked = text(&check);
    assert!(check.status.success(), "{checked}");
    let words = format!(
        "executable {} is out of reach of uid 61000: {} (mode 0700,",
        exe.display(),
        exe.display()
    );
    assert!(
        checked.contains("warning[partition-path-unreachable]") && checked.contains(&words),
        "{checked}"
    );
    let (out, report) = run_quietly(&dir, &module, "300ms");
    assert_eq!(out.status.code(), Some(5), "{}", text(&out));
    let uid = report["partitions"][0]["uid"].as_u64().unwrap();
    let notes = notes_of(&report, "unreachable-path");
    assert_eq!(notes.len(), 1, "{report}");
    assert!(
        notes[0].contains(&words.replace("uid 61000", &format!("uid {uid}")))
            && notes[0].contains("does not let it execute"),
        "{}",
        notes[0]
    );
    assert!(
        report["partitions"][0]["exec_error"].is_string(),
        "{report}"
    );
}

/// A partition gets a directory of its own on the host, its working directory, kept for the
/// run and removed with it; the report names the run directory and warns about an argument
/// path the partition's uid cannot reach (docs/host-files.md).
#[test]
fn a_partition_gets_its_own_run_directory_and_unreachable_paths_are_reported() {
    let _g = serial();
    let test = "a_partition_gets_its_own_run_directory_and_unreachable_paths_are_reported";
    if let Err(r) = capable() {
        return skip(test, &r);
    }
    let dir = scratch("run-directory");
    let closed = dir.join("closed");
    std::fs::create_dir(&closed).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o700)).unwrap();
    let hidden = closed.join("input.txt");
    let module = write_module(
        &dir,
        "rundir",
        100,
        &[Part {
            name: "a",
            exe: partition_exe("steady"),
            windows: vec![(0, 20)],
            extra: vec![hidden.display().to_string()],
        }],
    );
    let (out, report) = run_quietly(&dir, &module, "300ms");
    assert!(out.status.success(), "{}", text(&out));
    let run_dir = report["run_dir"].as_str().unwrap().to_string();
    assert!(
        run_dir.starts_with(partita_manager::rundir::BASE),
        "{report}"
    );
    assert!(
        !std::path::Path::new(&run_dir).exists(),
        "run directory left behind"
    );
    let notes = notes_of(&report, "unreachable-path");
    assert_eq!(notes.len(), 1, "{report}");
    // The note names the first directory on the way that does not let the partition's uid
    // through: `closed`, or an ancestor when the checkout itself lies in a 0700 directory.
    let blocking = closed
        .ancestors()
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .find(|d| {
            let mode = std::fs::metadata(d).unwrap().permissions().mode();
            mode & 0o001 == 0
        })
        .unwrap()
        .to_path_buf();
    let mode = std::fs::metadata(&blocking).unwrap().permissions().mode() & 0o7777;
    assert!(
        notes[0].contains(&hidden.display().to_string())
            && notes[0].contains(&format!("{} (mode {mode:04o},", blocking.display()))
            && notes[0].contains("does not let it through"),
        "{}",
        notes[0]
    );
}

/// `--rt-budget`: a schedule whose windows fill a core runs under the kernel's default
/// real-time budget with a warning naming the core and the way out; `--rt-budget unlimited`
/// lifts the budget while the run lasts (read from /proc during the run) and writes the value
/// found back at the end, and the run has nothing to warn about.
#[test]
fn the_real_time_budget_is_set_for_the_run_and_restored() {
    let _g = serial();
    if let Err(r) = capable() {
        return skip("the_real_time_budget_is_set_for_the_run_and_restored", &r);
    }
    const BUDGET: &str = "/proc/sys/kernel/sched_rt_runtime_us";
    let read = || std::fs::read_to_string(BUDGET).unwrap().trim().to_string();
    let dir = scratch("rt-budget");
    let token = format!("tok-rt-budget-{}", std::process::id());
    let good = partition_exe("window_check");
    let module = write_module(
        &dir,
        "full",
        20,
        &[
            Part {
                name: "first",
                exe: good.clone(),
                windows: vec![(0, 10)],
                extra: vec![token.clone()],
            },
            Part {
                name: "second",
                exe: good,
                windows: vec![(10, 10)],
                extra: vec![token.clone()],
            },
        ],
    );
    let json = dir.join("report.json");
    let before = read();
    let rt_notes = |report: &serde_json::Value| -> Vec<String> {
        report["notes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["kind"] == "rt-throttling")
            .map(|n| n["text"].as_str().unwrap().to_string())
            .collect()
    };
    // The kernel's default budget for the run: the full core does not fit, and is warned
    // about (on the terminal and in the report).
    let out = partita()
        .args([
            "run",
            "--duration",
            "300ms",
            "--rt-budget",
            "default",
            "--json",
        ])
        .arg(&json)
        .arg(&module)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let warned = rt_notes(&report);
    assert!(
        warned
            .iter()
            .any(|n| n.contains("windows fill 100.0%") && n.contains("--rt-budget unlimited")),
        "{warned:?}"
    );
    assert!(
        text(&out).contains("warning: core"),
        "no warning printed: {}",
        text(&out)
    );
    assert_eq!(read(), before, "the budget found is written back");
    // Unlimited: -1 while it runs, the value found afterwards, no warning.
    let mut child = partita()
        .args([
            "run",
            "--quiet",
            "--duration",
            "1500ms",
            "--rt-budget",
            "unlimited",
            "--json",
        ])
        .arg(&json)
        .arg(&module)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let mut seen = Vec::new();
    while t0.elapsed() < Duration::from_secs(10) {
        let v = read();
        if seen.last() != Some(&v) {
            seen.push(v.clone());
        }
        if v == "-1" || child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(child.wait().unwrap().success());
    assert!(seen.iter().any(|v| v == "-1"), "values seen: {seen:?}");
    assert_eq!(read(), before, "the budget found is written back");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(
        rt_notes(&report)
            .iter()
            .all(|n| !n.contains("windows fill")),
        "{report}"
    );
}
