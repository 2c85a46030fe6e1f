// SPDX-License-Identifier: MIT OR Apache-2.0
//! `EntryPoint` as the partition's entry function (with `partita:Executable`): a JetOS-style
//! partition whose entry is `main_process` and that has no `main`, one that has both (the
//! configuration picks `main_process`), `partita check` refusing a function the executable
//! does not export, and the runtime refusing one at run time. Partition:
//! tests/partitions/entry_point.c.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Builds tests/partitions/entry_point.c with `partita cc` and the extra flags into `dir/name`.
fn build(dir: &Path, name: &str, flags: &[&str]) -> PathBuf {
    let exe = dir.join(name);
    let flags = [&["-O2", "-Wall", "-Wextra", "-Werror"], flags].concat();
    partita_cc(&repo().join("tests/partitions/entry_point.c"), &exe, &flags);
    exe
}

/// A one-partition module starting `exe` at `entry` (the `EntryPoint` attribute).
fn module(dir: &Path, exe: &Path, entry: &str) -> PathBuf {
    let x = format!(
        r#"<?xml version="1.0"?>
<ARINC_653_Module xmlns:partita="urn:partita:1" ModuleName="entry">
  <Partition PartitionIdentifier="1" PartitionName="jetos" Criticality="LEVEL_C" EntryPoint="{entry}">
    <partita:Executable path="{}"/>
  </Partition>
  <Module_Schedule MajorFrameSeconds="0.05">
    <Partition_Schedule PartitionIdentifier="1" PeriodSeconds="0.05" PeriodDurationSeconds="0.02">
      <Window_Schedule WindowIdentifier="1" WindowStartSeconds="0" WindowDurationSeconds="0.02"/>
    </Partition_Schedule>
  </Module_Schedule>
</ARINC_653_Module>
"#,
        exe.display()
    );
    let path = dir.join(format!("{entry}.xml"));
    std::fs::write(&path, x).unwrap();
    path
}

/// Runs the module for a few major frames; returns the partitions' output and the whole text.
fn run(module: &Path) -> (String, String) {
    let out = output_within(
        partita().args(["run", "--duration", "400ms"]).arg(module),
        Duration::from_secs(60),
    );
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        text(&out),
    )
}

#[test]
fn a_partition_without_main_starts_at_its_entry_point() {
    if let Err(r) = capable() {
        return skip("a_partition_without_main_starts_at_its_entry_point", &r);
    }
    let _serial = serial();
    let dir = scratch("entry-point-no-main");
    let exe = build(&dir, "jetos", &[]);
    let (stdout, all) = run(&module(&dir, &exe, "main_process"));
    assert!(stdout.contains("ENTRY main_process"), "{all}");
    // The process it created ran in NORMAL mode, with the runtime working (rc 0 = NO_ERROR).
    assert!(stdout.contains("WORKER 1 0"), "{all}");
}

#[test]
fn entry_point_picks_its_function_over_main() {
    if let Err(r) = capable() {
        return skip("entry_point_picks_its_function_over_main", &r);
    }
    let _serial = serial();
    let dir = scratch("entry-point-with-main");
    let exe = build(&dir, "jetos-with-main", &["-DWITH_MAIN"]);
    let (stdout, all) = run(&module(&dir, &exe, "main_process"));
    assert!(stdout.contains("ENTRY main_process"), "{all}");
    assert!(stdout.contains("WORKER 1 0"), "{all}");
    assert!(!stdout.contains("ENTRY main\n"), "main ran: {all}");
    // EntryPoint="main" keeps the program's main.
    let (stdout, all) = run(&module(&dir, &exe, "main"));
    assert!(stdout.contains("ENTRY main\n"), "{all}");
    assert!(stdout.contains("WORKER 1 0"), "{all}");
}

#[test]
fn check_refuses_a_function_the_executable_does_not_export() {
    let dir = scratch("entry-point-check");
    let exe = build(&dir, "jetos", &[]);
    let good = partita()
        .arg("check")
        .arg(module(&dir, &exe, "main_process"))
        .output()
        .unwrap();
    assert!(good.status.success(), "{}", text(&good));
    let bad = partita()
        .arg("check")
        .arg(module(&dir, &exe, "partition_main"))
        .output()
        .unwrap();
    assert!(!bad.status.success(), "{}", text(&bad));
    let all = text(&bad);
    assert!(all.contains("entry-point-function"), "{all}");
    assert!(all.contains("partition_main"), "{all}");
}

#[test]
fn the_runtime_refuses_a_missing_entry_function_with_a_report() {
    let dir = scratch("entry-point-runtime");
    let exe = build(&dir, "jetos", &[]);
    let run = |entry: Option<&str>| {
        let mut cmd = std::process::Command::new(&exe);
        cmd.env_remove("PARTITA_CONTROL_FD")
            .env_remove("PARTITA_ENTRY_FUNCTION");
        if let Some(e) = entry {
            cmd.env("PARTITA_ENTRY_FUNCTION", e);
        }
        output_within(&mut cmd, Duration::from_secs(30))
    };
    // A function the executable does not have: a partition error (ILLEGAL_REQUEST) and exit 127.
    let out = run(Some("partition_main"));
    let all = text(&out);
    assert_eq!(out.status.code(), Some(127), "{all}");
    assert!(all.contains("ILLEGAL_REQUEST"), "{all}");
    assert!(all.contains("\"partition_main\""), "{all}");
    assert!(!all.contains("ENTRY"), "{all}");
    // No main and no entry function configured: the runtime's main says so.
    let out = run(None);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(127), "{all}");
    assert!(all.contains("no main function"), "{all}");
}
