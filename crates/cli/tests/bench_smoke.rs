// SPDX-License-Identifier: MIT OR Apache-2.0
//! Smoke tests of the benchmark commands: each `--quick` benchmark runs to the end under the
//! partition manager (partitions under their own uids, with the seccomp filter) and writes
//! JSON figures that parse. The figures themselves are not checked here (benchmarks print
//! PASS/MISS; timing is never a test criterion); what is checked is that the command works.
//! The measuring processes are the executables of `partita-bench-partitions`, which `partita
//! bench` finds next to itself; the tests build them first.

mod common;

use common::{build_bench_partitions, capable, partita, scratch, serial, skip, text};
use std::path::Path;

fn bench(name: &str, args: &[&str]) -> Option<serde_json::Value> {
    let _s = serial();
    if let Err(r) = capable() {
        skip(&format!("bench_{name}_runs"), &r);
        return None;
    }
    build_bench_partitions();
    let dir = scratch(&format!("bench-smoke-{name}"));
    let json = dir.join(format!("{name}.json"));
    let o = partita()
        .current_dir(&dir)
        .args(["bench", name, "--quick", "--json"])
        .arg(&json)
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let figures = read_json(&json);
    assert!(figures.is_object(), "{figures}");
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("checks met")
            || String::from_utf8_lossy(&o.stdout).contains("PASS")
            || String::from_utf8_lossy(&o.stdout).contains("MISS"),
        "no target verdicts printed\n{}",
        text(&o)
    );
    Some(figures)
}

fn read_json(p: &Path) -> serde_json::Value {
    let t = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&t).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn bench_apex_runs() {
    let _ = bench("apex", &[]);
}

/// Also: the partition's GET_TIME (the sampling stamps) read the counter clock where the host
/// allows it — the manager's choice reached the runtime through the control block, and the
/// clock calibrated from the manager's pair.
#[test]
fn bench_ports_runs() {
    let Some(figures) = bench("ports", &[]) else {
        return;
    };
    let source = figures["time_source"].as_str().unwrap_or("missing");
    let declined = std::env::var("PARTITA_COUNTER_CLOCK")
        .is_ok_and(|v| v == "0")
        .then(|| "PARTITA_COUNTER_CLOCK=0".to_string());
    match declined.or_else(partita_sys::time::counter_clock_unsupported) {
        None => assert_eq!(source, "counter clock", "{figures}"),
        Some(why) => {
            eprintln!("no counter clock on this host ({why})");
            assert_eq!(source, "CLOCK_MONOTONIC", "{figures}");
        }
    }
}

#[test]
fn bench_switch_runs() {
    let _ = bench("switch", &["--backends", "freezer-v1"]);
}
