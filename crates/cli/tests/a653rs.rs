// SPDX-License-Identifier: MIT OR Apache-2.0
//! Partitions written against the `a653rs` traits (crates/a653rs-examples, in the shape of
//! a653rs-linux's examples) run by `partita run` with their modules from examples/a653rs/:
//! messages exchanged over sampling and queuing ports and valid at the reader, round trips
//! timed, a module schedule switch requested by a system partition and seen by another one,
//! and a refused CREATE_PROCESS named by its rule in the run log. Each module runs once per
//! test binary, under the end-to-end lock.

mod common;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

const MS: i64 = 1000; // in µs

struct Run {
    stdout: String,
    report: Value,
    text: String,
}

/// `examples/a653rs/<name>` with its executables taken from the profile directory of the
/// binary under test (the file names `../../target/debug/`), written into `dir`; `edit`
/// changes the text further.
fn module(dir: &Path, name: &str, edit: impl Fn(String) -> String) -> PathBuf {
    build_package("partita-a653rs-examples");
    let path = repo().join("examples/a653rs").join(name);
    let xml = std::fs::read_to_string(&path).unwrap();
    assert!(xml.contains("../../target/debug/"), "{}", path.display());
    let exe_dir = format!("{}/", profile_dir().display());
    let out = dir.join(name);
    std::fs::write(&out, edit(xml.replace("../../target/debug/", &exe_dir))).unwrap();
    out
}

/// Runs `examples/a653rs/<name>` for `duration` (once per test binary).
fn run(cell: &'static OnceLock<Option<Run>>, name: &str, duration: &str) -> Option<&'static Run> {
    once(cell, &format!("a653rs-{name}"), |dir| {
        let m = module(dir, name, |x| x);
        // The path of every example executable starts with this (the test binary's does not:
        // it is in deps/).
        let token = format!("{}/a653rs-", profile_dir().display());
        let (out, report) = run_reported(dir, &m, duration, ("--log-dir", "logs"), &token);
        Run {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            report,
            text: text(&out),
        }
    })
}

fn lines<'a>(r: &'a Run, prefix: &str) -> Vec<Vec<(&'a str, &'a str)>> {
    tagged_fields(&r.stdout, prefix)
}

fn word<'a>(l: &[(&str, &'a str)], k: &str) -> &'a str {
    l.iter()
        .find(|(key, _)| *key == k)
        .unwrap_or_else(|| panic!("no {k} in {l:?}"))
        .1
}

#[test]
fn hello_messages_reach_the_listener_valid_and_in_order() {
    static RUN: OnceLock<Option<Run>> = OnceLock::new();
    let Some(r) = run(&RUN, "hello.xml", "1.5s") else {
        return;
    };
    let sent: Vec<i64> = lines(r, "HELLO sent ")
        .iter()
        .map(|l| field(l, "n"))
        .collect();
    let got = lines(r, "HELLO received ");
    assert!(sent.len() >= 5, "{}", r.text);
    assert!(got.len() >= 5, "{}", r.text);
    let mut last = 0;
    for l in &got {
        let n = field(l, "n");
        assert!(sent.contains(&n), "received {n}, never sent: {}", r.text);
        // One message per period on both sides: each read sees a newer message, well
        // within the port's 250 ms refresh period.
        assert!(n > last, "{l:?} after {last}: {}", r.text);
        assert_eq!(field(l, "valid"), 1, "{l:?}: {}", r.text);
        last = n;
    }
    // The logger writes the level as a word.
    assert!(r.stdout.contains("] INFO "), "{}", r.text);
}

/// The client's round trips: one frame (100 ms) apart from request to echo, each request
/// answered once.
fn check_round_trips(r: &Run, trips: &[Vec<(&str, &str)>]) {
    assert!(trips.len() >= 5, "{}", r.text);
    let mut last = 0;
    for l in trips {
        let seq = field(l, "seq");
        assert!(seq > last, "{l:?}: {}", r.text);
        last = seq;
        // The request leaves in the client's window, the server echoes it 50 ms later, the
        // client sees the echo in its next window: about 100 ms. Wide bounds: never below
        // the server's window offset, never beyond three frames.
        let rtt = field(l, "rtt_us");
        assert!((50 * MS..=300 * MS).contains(&rtt), "{l:?}: {}", r.text);
    }
}

#[test]
fn ping_pong_over_sampling_ports_times_its_round_trips() {
    static RUN: OnceLock<Option<Run>> = OnceLock::new();
    let Some(r) = run(&RUN, "ping-sampling.xml", "1.5s") else {
        return;
    };
    let trips = lines(r, "PING round-trip ");
    check_round_trips(r, &trips);
    for l in &trips {
        assert_eq!(field(l, "valid"), 1, "{l:?}: {}", r.text);
    }
    assert!(lines(r, "PONG echoed ").len() >= trips.len(), "{}", r.text);
}

#[test]
fn ping_pong_over_queuing_ports_times_its_round_trips() {
    static RUN: OnceLock<Option<Run>> = OnceLock::new();
    let Some(r) = run(&RUN, "ping-queuing.xml", "1.5s") else {
        return;
    };
    let trips = lines(r, "PING round-trip ");
    check_round_trips(r, &trips);
    for l in &trips {
        // Every echo answers the request just sent: the receive waited for it.
        assert_eq!(field(l, "seq"), field(l, "expected"), "{l:?}: {}", r.text);
        assert_eq!(field(l, "overflow"), 0, "{l:?}: {}", r.text);
    }
    assert!(!r.stdout.contains("failed"), "{}", r.text);
}

#[test]
fn the_tank_controller_keeps_the_level_in_band_and_switches_the_schedule() {
    static RUN: OnceLock<Option<Run>> = OnceLock::new();
    let Some(r) = run(&RUN, "tank.xml", "3s") else {
        return;
    };
    let sim = lines(r, "SIM step=");
    let ctrl = lines(r, "CTRL cycle=");
    assert!(sim.len() >= 20 && ctrl.len() >= 20, "{}", r.text);
    // The simulator's tank stays inside the band the controller keeps (200..800 per mille,
    // with one period of reaction time).
    for l in &sim {
        let level = field(l, "level");
        assert!((100..=900).contains(&level), "{l:?}: {}", r.text);
    }
    // The controller opened and later closed the valve, and the simulator applied fresh
    // commands.
    let cmds: Vec<&str> = ctrl
        .iter()
        .filter(|l| l.iter().any(|(k, _)| *k == "cmd"))
        .map(|l| word(l, "cmd"))
        .collect();
    let opened = cmds.iter().position(|c| *c == "open");
    assert!(opened.is_some(), "{}", r.text);
    assert!(
        cmds[opened.unwrap()..].contains(&"closed"),
        "never closed after opening: {}",
        r.text
    );
    assert!(
        sim.iter().filter(|l| field(l, "cmd_valid") == 1).count() >= sim.len() / 2,
        "{}",
        r.text
    );
    assert!(
        ctrl.iter()
            .filter(|l| l.iter().any(|(k, v)| *k == "valid" && *v == "1"))
            .count()
            >= ctrl.len() / 2,
        "{}",
        r.text
    );
    // The controller's request switched the module to schedule 2 (degraded) at a frame
    // boundary, and the simulator, another partition, saw it.
    assert!(r.stdout.contains("CTRL switch requested"), "{}", r.text);
    let sw = r.report["schedule_switches"].as_array().unwrap();
    assert_eq!(sw.len(), 1, "{}", r.text);
    assert_eq!(sw[0]["to"], 2);
    assert_eq!(sw[0]["requested_by"], "controller");
    let schedules: Vec<i64> = sim.iter().map(|l| field(l, "schedule")).collect();
    let first_degraded = schedules.iter().position(|&s| s == 2);
    assert!(first_degraded.is_some(), "{}", r.text);
    assert!(schedules[..first_degraded.unwrap()].iter().all(|&s| s == 1));
    assert!(schedules[first_degraded.unwrap()..].iter().all(|&s| s == 2));
    // The controller's configured memory block is reported from the configuration (name,
    // SizeBytes, Access READ_ONLY); a name the configuration lacks is INVALID_CONFIG.
    let blocks = lines(r, "CTRL memory-block ");
    assert_eq!(blocks.len(), 2, "{}", r.text);
    assert_eq!(word(&blocks[0], "name"), "setpoints");
    assert_eq!(field(&blocks[0], "size"), 4096);
    assert_eq!(word(&blocks[0], "mode"), "Read");
    assert_eq!(word(&blocks[1], "error"), "InvalidConfig", "{}", r.text);
}

#[test]
fn a_refused_create_process_names_the_rule_in_the_run_log() {
    static RUN: OnceLock<Option<(String, Value)>> = OnceLock::new();
    // hello's process has a 100 ms period; in a partition whose period is 300 ms,
    // CREATE_PROCESS refuses it (INVALID_CONFIG): the period must be a multiple of the
    // partition period.
    let Some(out) = once(&RUN, "a653rs-refused", |dir| {
        let m = module(dir, "hello.xml", |x| {
            x.replace("MajorFrameSeconds=\"0.1\"", "MajorFrameSeconds=\"0.3\"")
                .replace("PeriodSeconds=\"0.1\"", "PeriodSeconds=\"0.3\"")
        });
        let out = output_within(
            partita()
                .args(["run", "--duration", "1s", "--json"])
                .arg(dir.join("report.json"))
                .arg(&m),
            Duration::from_secs(60),
        );
        let report = std::fs::read_to_string(dir.join("report.json")).unwrap_or_default();
        (
            text(&out),
            serde_json::from_str(&report).unwrap_or(Value::Null),
        )
    }) else {
        return;
    };
    let (out, report) = (&out.0, &out.1);
    assert!(
        out.contains(
            "CREATE_PROCESS \"periodic_hello\" refused with INVALID_CONFIG (rule \
             PROCESS_PERIOD_NOT_MULTIPLE): a periodic process's period must be a positive \
             multiple of the partition period"
        ),
        "{out}"
    );
    // The unwrap that follows panics; the panic hook reports it through the logger.
    assert!(out.contains("ERROR panic:"), "{out}");
    // The run report counts the refusal for the partition.
    let hello = report["partitions"]
        .as_array()
        .and_then(|p| p.iter().find(|p| p["name"] == "hello"))
        .unwrap_or_else(|| panic!("no report for hello: {out}"));
    assert!(hello["refused_calls"].as_u64().unwrap() >= 1, "{hello}");
    assert_eq!(hello["bad_reports"], 0);
}
