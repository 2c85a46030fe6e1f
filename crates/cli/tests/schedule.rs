// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita schedule`: synthesis of the example module (the result passes `partita check` and
//! the independent checker), the rest of the file kept byte for byte, the error paths and
//! their exit codes, and a tiny experiment.

mod common;

use common::{partita, repo, scratch, text};
use std::path::{Path, PathBuf};

/// The example module, copied into a scratch directory (without its generated schedule, so
/// the synthesis really inserts one).
fn example_without_schedule(dir: &Path) -> (PathBuf, String) {
    let src = std::fs::read_to_string(repo().join("examples/synthesis/module.xml")).unwrap();
    let start = src
        .find("  <Module_Schedule")
        .expect("the example has a schedule");
    let end = src.find("</Module_Schedule>").unwrap() + "</Module_Schedule>\n".len();
    let stripped = format!("{}{}", &src[..start], &src[end..]);
    let path = dir.join("module.xml");
    std::fs::write(&path, &stripped).unwrap();
    (path, stripped)
}

#[test]
fn synthesises_the_example_and_the_result_checks() {
    let dir = scratch("schedule-example");
    let (input, before) = example_without_schedule(&dir);
    let out_path = dir.join("scheduled.xml");
    let gantt = dir.join("gantt.svg");
    let o = partita()
        .args([
            "schedule",
            "--no-executables",
            "--json",
            "--algorithm",
            "all",
        ])
        .arg(&input)
        .arg("-o")
        .arg(&out_path)
        .arg("--gantt")
        .arg(&gantt)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["chosen"], "ours");
    for alg in ["ours", "seed"] {
        let r = &report[alg];
        assert_eq!(r["checked"], true, "{alg}: {r}");
        assert!(r["windows"].as_u64().unwrap() >= 3);
        for p in r["processes"].as_array().unwrap() {
            let (wcrt, deadline) = (p["wcrt"].as_u64().unwrap(), p["deadline"].as_u64().unwrap());
            assert!(wcrt > 0 && wcrt <= deadline, "{alg}: {p}");
        }
    }
    // The written module passes `partita check`, and keeps every byte outside the schedule.
    let written = std::fs::read_to_string(&out_path).unwrap();
    let c = partita()
        .args(["check", "--no-executables"])
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(c.status.code(), Some(0), "{}\n{written}", text(&c));
    let ins = before.rfind("</ARINC_653_Module>").unwrap();
    assert!(written.starts_with(&before[..ins]), "{written}");
    assert!(written.ends_with(&before[ins..]), "{written}");
    let middle = &written[ins..written.len() - (before.len() - ins)];
    assert!(
        middle.starts_with("  <Module_Schedule MajorFrameSeconds=\"0.08\">")
            && middle.ends_with("</Module_Schedule>\n"),
        "{middle}"
    );
    assert!(written.contains("PartitionPeriodStart=\"true\""));
    // The input is untouched without --in-place.
    assert_eq!(std::fs::read_to_string(&input).unwrap(), before);
    let svg = std::fs::read_to_string(&gantt).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("OFP") && svg.contains("VSP"));
    // Re-synthesising the written file in place replaces its schedule, not adds one.
    let again = partita()
        .args([
            "schedule",
            "--no-executables",
            "--in-place",
            "--algorithm",
            "seed",
        ])
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    let twice = std::fs::read_to_string(&out_path).unwrap();
    assert_eq!(twice.matches("<Module_Schedule").count(), 1);
    assert!(twice.contains("algorithm seed"));
}

fn module(dir: &Path, processes: &str) -> PathBuf {
    let p = dir.join("m.xml");
    std::fs::write(
        &p,
        format!(
            "<?xml version=\"1.0\"?>\n<ARINC_653_Module xmlns:partita=\"urn:partita:1\" ModuleName=\"m\">\n  <Partition PartitionIdentifier=\"1\" PartitionName=\"A\" Criticality=\"LEVEL_A\" EntryPoint=\"/bin/true\">\n{processes}  </Partition>\n</ARINC_653_Module>\n"
        ),
    )
    .unwrap();
    p
}

#[test]
fn missing_wcet_names_the_line() {
    let dir = scratch("schedule-missing-wcet");
    let m = module(
        &dir,
        "    <partita:Process name=\"ok\" periodSeconds=\"0.01\" wcetSeconds=\"0.001\"/>\n    <partita:Process name=\"bad\" periodSeconds=\"0.01\"/>\n",
    );
    let o = partita().arg("schedule").arg(&m).output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("m.xml:5:5:"), "{err}");
    assert!(
        err.contains("process bad of partition A has no wcetSeconds"),
        "{err}"
    );
}

#[test]
fn partition_without_processes_is_an_error() {
    let dir = scratch("schedule-no-processes");
    let m = module(&dir, "");
    let o = partita().arg("schedule").arg(&m).output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("m.xml:3:3: partition A lists no <partita:Process>"));
}

#[test]
fn overload_is_unschedulable() {
    let dir = scratch("schedule-overload");
    let m = module(
        &dir,
        "    <partita:Process name=\"a\" periodSeconds=\"0.01\" wcetSeconds=\"0.006\"/>\n    <partita:Process name=\"b\" periodSeconds=\"0.02\" wcetSeconds=\"0.009\"/>\n",
    );
    let out = dir.join("out.xml");
    let o = partita()
        .args(["schedule", "--algorithm", "all"])
        .arg(&m)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(8), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no schedulable table"), "{err}");
    assert!(
        err.contains("ours: not schedulable: partition A: b (released at"),
        "{err}"
    );
    assert!(
        !out.exists(),
        "nothing is written when nothing is schedulable"
    );
}

#[test]
fn bad_command_lines() {
    let dir = scratch("schedule-cmdline");
    let m = module(
        &dir,
        "    <partita:Process name=\"a\" periodSeconds=\"0.01\" wcetSeconds=\"0.001\"/>\n",
    );
    let o = partita()
        .args(["schedule", "--algorithm", "magic"])
        .arg(&m)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let o = partita()
        .args(["schedule", "--in-place", "-o", "x.xml"])
        .arg(&m)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let o = partita()
        .arg("schedule")
        .arg(dir.join("absent.xml"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
}

#[test]
fn tiny_experiment_writes_json_and_plot() {
    let dir = scratch("schedule-experiment");
    let o = partita()
        .args([
            "schedule",
            "--experiment",
            "--sets",
            "2",
            "--seed",
            "7",
            "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("checker: 0 generated schedule(s) rejected"),
        "{out}"
    );
    assert!(out
        .lines()
        .any(|l| l.starts_with("PASS ") || l.starts_with("MISS ")));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("experiment.json")).unwrap())
            .unwrap();
    assert_eq!(json["levels"].as_array().unwrap().len(), 10);
    let svg = std::fs::read_to_string(dir.join("experiment.svg")).unwrap();
    assert!(svg.contains("schedulable ratio") && svg.contains("polyline"));
}

#[test]
fn two_cores_put_windows_on_both() {
    let dir = scratch("schedule-two-cores");
    let (input, _) = example_without_schedule(&dir);
    let out = dir.join("two.xml");
    let o = partita()
        .args(["schedule", "--no-executables", "--cores", "0,1", "--json"])
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let cores = report["ours"]["cores"].as_array().unwrap();
    assert_eq!(cores.len(), 2, "{report}");
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.contains("partita:Core=\"1\""), "{written}");
    let c = partita()
        .args(["check", "--no-executables"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(c.status.code(), Some(0), "{}", text(&c));
}

#[test]
fn edf_partition_is_refused() {
    let dir = scratch("schedule-edf");
    let m = module(
        &dir,
        "    <partita:Process name=\"a\" periodSeconds=\"0.01\" wcetSeconds=\"0.001\"/>\n    <partita:ProcessScheduling policy=\"EDF\"/>\n",
    );
    let o = partita().arg("schedule").arg(&m).output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("m.xml:3:3: partition A schedules its processes by EDF"));
}

#[test]
fn output_in_another_directory_keeps_relative_paths_working() {
    let dir = scratch("schedule-rebase");
    let input_dir = dir.join("in");
    std::fs::create_dir_all(input_dir.join("bin")).unwrap();
    let (input, stripped) = example_without_schedule(&dir);
    let local = stripped.replace("../hello/bin/hello", "bin/hello");
    let input_moved = input_dir.join("module.xml");
    std::fs::write(&input_moved, &local).unwrap();
    std::fs::remove_file(&input).unwrap();
    let exe = input_dir.join("bin/hello");
    std::fs::write(&exe, "#!/bin/sh\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out_dir = dir.join("other/dir");
    std::fs::create_dir_all(&out_dir).unwrap();
    let out_path = out_dir.join("x.xml");
    let schedule_to = |out: &Path| {
        partita()
            .arg("schedule")
            .arg(&input_moved)
            .arg("-o")
            .arg(out)
            .output()
            .unwrap()
    };
    let o = schedule_to(&out_path);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let written = std::fs::read_to_string(&out_path).unwrap();
    assert!(
        written.contains("path=\"../../in/bin/hello\"") && !written.contains("\"bin/hello\""),
        "{written}"
    );
    let c = partita().arg("check").arg(&out_path).output().unwrap();
    assert_eq!(c.status.code(), Some(0), "{}", text(&c));
    // Into the input's own directory: the paths are kept as written.
    let beside = input_dir.join("scheduled.xml");
    let o = schedule_to(&beside);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(std::fs::read_to_string(&beside)
        .unwrap()
        .contains("path=\"bin/hello\""));
}
