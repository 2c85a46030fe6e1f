// SPDX-License-Identifier: MIT OR Apache-2.0
//! Hostile input on the command line and in the configuration: every case is a clean refusal
//! with a documented exit status and a message naming the file, the line and the rule, never
//! a crash (issue 13, section 2). None of them runs a module.

mod common;

use common::{partita, repo, scratch, text};

const PARTITION: &str = "<Partition PartitionIdentifier=\"1\" PartitionName=\"{name}\" Criticality=\"LEVEL_A\" EntryPoint=\"/bin/true\"/>";

fn module(dir: &std::path::Path, partition_name: &str) -> std::path::PathBuf {
    let path = dir.join("module.xml");
    let partition = PARTITION.replace("{name}", partition_name);
    std::fs::write(
        &path,
        format!(
            "<ARINC_653_Module ModuleName=\"m\">\n  {partition}\n  <Module_Schedule MajorFrameSeconds=\"0.1\">\n    <Partition_Schedule PartitionIdentifier=\"1\" PeriodSeconds=\"0.1\" PeriodDurationSeconds=\"0.02\">\n      <Window_Schedule WindowIdentifier=\"1\" WindowStartSeconds=\"0\" WindowDurationSeconds=\"0.02\"/>\n    </Partition_Schedule>\n  </Module_Schedule>\n</ARINC_653_Module>\n"
        ),
    )
    .unwrap();
    path
}

#[test]
fn deeply_nested_xml_is_a_diagnostic_for_check_and_run() {
    let dir = scratch("bad-input-deep");
    let path = dir.join("deep.xml");
    let n = 200_000;
    std::fs::write(
        &path,
        format!(
            "<ARINC_653_Module ModuleName=\"m\">\n{}{}</ARINC_653_Module>\n",
            "<a>".repeat(n),
            "</a>".repeat(n)
        ),
    )
    .unwrap();
    for args in [vec!["check"], vec!["run", "--duration", "1s"]] {
        let o = partita().args(&args).arg(&path).output().unwrap();
        let all = text(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {all}");
        let at = format!("{}:2:94: error[xml-too-deep]", path.display());
        assert!(all.contains(&at), "{args:?}: {all}");
    }
}

#[test]
fn out_of_range_durations_are_refused_on_the_command_line() {
    let example = repo().join("examples/hello/module.xml");
    for d in [
        "18446744073709551616s",
        "18446744073s",
        "8761h",
        "1.5ns",
        "-1s",
        "5d",
    ] {
        let o = partita()
            .arg("run")
            .arg(format!("--duration={d}"))
            .arg(&example)
            .output()
            .unwrap();
        let all = text(&o);
        assert_eq!(o.status.code(), Some(2), "{d}: {all}");
        assert!(all.contains("is not a duration"), "{d}: {all}");
    }
}

#[test]
fn a_name_that_would_leave_the_log_directory_is_refused() {
    let dir = scratch("bad-input-name");
    let logs = dir.join("logs");
    let path = module(&dir, "../escaped");
    let o = partita()
        .args(["run", "--duration", "1s", "--log-dir"])
        .arg(&logs)
        .arg(&path)
        .output()
        .unwrap();
    let all = text(&o);
    assert_eq!(o.status.code(), Some(1), "{all}");
    assert!(
        all.contains(&format!("{}:2:", path.display())) && all.contains("error[unsafe-name]"),
        "{all}"
    );
    assert!(!dir.join("escaped.log").exists());
}

#[test]
fn port_sizes_past_the_system_limits_are_refused_by_check() {
    let fixture = repo().join("crates/config/tests/fixtures/system-limit.xml");
    let o = partita()
        .args(["check", "--no-executables"])
        .arg(&fixture)
        .output()
        .unwrap();
    let all = text(&o);
    assert_eq!(o.status.code(), Some(1), "{all}");
    assert!(
        all.contains(&format!("{}:6:30: error[system-limit]", fixture.display())),
        "{all}"
    );
    let rules = partita().arg("rules").output().unwrap();
    assert!(String::from_utf8_lossy(&rules.stdout).contains("SYSTEM_LIMIT_MESSAGE_SIZE (8192)"));
}

#[test]
fn an_endless_logbook_is_a_file_error() {
    let o = partita().args(["hm-log", "/dev/zero"]).output().unwrap();
    let all = text(&o);
    assert_eq!(o.status.code(), Some(3), "{all}");
    assert!(all.contains("/dev/zero:1:"), "{all}");
}

#[test]
fn an_endless_configuration_is_read_no_further_than_the_bound() {
    for args in [
        vec!["check", "/dev/zero"],
        vec!["run", "--duration", "1s", "/dev/zero"],
        vec!["schedule", "/dev/zero"],
    ] {
        let o = partita().args(&args).output().unwrap();
        let all = text(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {all}");
        assert!(
            all.contains("/dev/zero:1:1: error[xml-too-large]"),
            "{args:?}: {all}"
        );
    }
}

/// A reader that goes away before `partita rules` has written everything: the command ends
/// quietly by SIGPIPE, as Unix tools do, never with a panic (exit 101).
#[test]
fn a_closed_output_pipe_ends_a_printing_command_quietly() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    // The pipe's read end is closed before the command starts: its first write fails.
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_partita"))
        .arg("rules")
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("partita rules");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked"),
        "partita rules panicked: {stderr}"
    );
    assert_eq!(
        out.status.signal(),
        Some(libc_sigpipe()),
        "partita rules should end by SIGPIPE: {:?}",
        out.status
    );
}

/// SIGPIPE's number on Linux.
fn libc_sigpipe() -> i32 {
    13
}
