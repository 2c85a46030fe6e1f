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

/// `bench overheads --quick` with one backend: the seed's tables with the published values
/// beside ours, every figure measured from both partitions' jobs, the JSON and the CDF plots
/// in the output directory.
#[test]
fn bench_overheads_writes_the_seed_tables() {
    let _s = serial();
    if let Err(r) = capable() {
        skip("bench_overheads_writes_the_seed_tables", &r);
        return;
    }
    build_bench_partitions();
    let dir = scratch("bench-smoke-overheads").join("out");
    let o = partita()
        .args([
            "bench",
            "overheads",
            "--quick",
            "--backends",
            "signals",
            "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let r = read_json(&dir.join("overheads.json"));
    let two_cores = partita_sys::sched::online_cpus() > 1;
    let sections = r["sections"].as_array().expect("sections");
    assert_eq!(sections.len(), 2, "{r}");
    let hyperperiods = r["plan"]["hyperperiods"].as_u64().unwrap();
    for x in sections {
        if !two_cores && x["placement"] == "own-core" {
            assert!(x["skipped"].is_string(), "{x}");
            continue;
        }
        assert!(x["skipped"].is_null(), "{x}");
        let count = |f: &str| x[f]["count"].as_u64().unwrap();
        // 8 window starts per hyperperiod (the recorded span covers all but about one);
        // every OFP window and every fourth VSP window releases jobs, each giving a PtswO and a
        // RelO(first) sample.
        assert!(count("timer") >= 8 * (hyperperiods - 1), "{x}");
        assert!(count("partition_switch") > 0, "{x}");
        assert_eq!(count("partition_switch"), count("release_first"), "{x}");
        assert!(count("context_switch") > 0, "{x}");
        let tasks = x["tasks"].as_array().unwrap();
        assert_eq!(tasks.len(), 5);
        for t in tasks {
            let per = if t["task"] == "GnC" || t["task"] == "NavReader" {
                4
            } else {
                1
            };
            assert_eq!(
                t["execution"]["count"].as_u64(),
                Some(per * hyperperiods),
                "{t}"
            );
            // The busy work uses its CPU time to the end, and a job takes at least that long.
            let target = t["cpu_target_ns"].as_i64().unwrap();
            assert!(t["cpu"]["min_ns"].as_i64().unwrap() >= target, "{t}");
            assert!(t["execution"]["min_ns"].as_i64().unwrap() >= target, "{t}");
            assert!(
                t["response"]["min_ns"].as_i64() >= t["execution"]["min_ns"].as_i64(),
                "{t}"
            );
        }
    }
    assert_eq!(r["published"].as_array().map(Vec::len), Some(18));
    let md = std::fs::read_to_string(dir.join("overheads.md")).unwrap();
    assert!(md.contains("## Table V"), "{md}");
    assert!(
        md.contains("| seed, user-level | 50 | 10 | 58 | 15 | 20 | 4 |"),
        "{md}"
    );
    assert!(md.contains("| Partita signals, shared core |"), "{md}");
    let svg = std::fs::read_to_string(dir.join("overheads-cdf.svg")).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("<polyline"),
        "{svg}"
    );
    assert_eq!(
        dir.join("overheads-cdf-own-core.svg").exists(),
        two_cores,
        "{}",
        dir.display()
    ); // The first run with figures is traced, and one hyperperiod of it drawn.
    let timeline = std::fs::read_to_string(dir.join("overheads-timeline.svg")).unwrap();
    assert!(
        timeline.starts_with("<svg")
            && (timeline.contains("core 1 actual") || timeline.contains("core 0 actual")),
        "{timeline}"
    );
    assert!(
        timeline.contains("OFP") && timeline.contains("VSP"),
        "{timeline}"
    );
}

#[path = "../../kvm/tests/common/guest_build.rs"]
mod kvm_guest_build;

/// `bench kvm --quick` with the guests of crates/kvm-guest: every figure has samples, the JSON
/// and the Markdown are written, the targets get a verdict.
#[test]
fn bench_kvm_runs() {
    if let Err(e) = partita_kvm::Hypervisor::open() {
        skip("bench_kvm_runs", &format!("no usable /dev/kvm ({e})"));
        return;
    }
    let dir = scratch("bench-smoke-kvm");
    let o = partita()
        .current_dir(&dir)
        .env("PARTITA_KVM_GUESTS_DIR", kvm_guest_build::guests_dir())
        .args(["bench", "kvm", "--quick", "--out"])
        .arg(dir.join("out"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let figures = read_json(&dir.join("out/kvm.json"));
    for figure in [
        "create",
        "first_hypercall",
        "round_trip",
        "kick_stop",
        "resume",
        "switch",
        "pause_resume",
    ] {
        assert!(
            figures[figure]["count"].as_u64().unwrap_or(0) > 0,
            "{figure}: {figures}"
        );
    }
    let md = std::fs::read_to_string(dir.join("out/kvm.md")).expect("kvm.md");
    assert!(md.contains("PASS") || md.contains("MISS"), "{md}");
}

/// `bench felt --quick` with one backend: the bare mechanism, Partita's defaults and its fixed
/// spin margin each measured from the partitions' own readings (dead time at every switch,
/// usable windows, release and TIMED_WAIT lateness inside the partitions), the targets'
/// verdicts and the peers' published figures in the Markdown.
#[test]
fn bench_felt_measures_what_an_application_feels() {
    let _s = serial();
    if let Err(r) = capable() {
        skip("bench_felt_measures_what_an_application_feels", &r);
        return;
    }
    build_bench_partitions();
    let dir = scratch("bench-smoke-felt").join("out");
    let o = partita()
        .args([
            "bench",
            "felt",
            "--quick",
            "--backends",
            "freezer-v1",
            "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let r = read_json(&dir.join("felt.json"));
    let sections = r["sections"].as_array().expect("sections");
    let kinds: Vec<&str> = sections
        .iter()
        .map(|x| x["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["bare", "partita", "partita-fixed-margin"], "{r}");
    let frames = r["plan"]["frames"].as_u64().unwrap();
    for x in sections {
        let count = |f: &str| x[f]["count"].as_u64().unwrap();
        let holes = &x["holes"];
        // Two switches a frame; those a throttling hole touched are counted apart.
        let switches = count("dead_time") + holes["switches_hit"].as_u64().unwrap();
        assert!(switches >= frames, "{x}");
        assert!(x["dead_time"]["min"].as_i64().unwrap() > 0, "{x}");
        assert!(x["usable"]["windows"].as_u64().unwrap() > 0, "{x}");
        assert!(x["usable"]["p50_ppm"].as_i64().unwrap() <= 1_000_000, "{x}");
        // One release and one TIMED_WAIT per window.
        assert!(count("release_lateness") > frames / 2, "{x}");
        assert!(count("timed_wait_lateness") > frames / 2, "{x}");
        assert!(x["release_lateness"]["min"].as_i64().unwrap() >= 0, "{x}");
        assert!(
            x["timed_wait_lateness"]["min"].as_i64().unwrap() >= 0,
            "{x}"
        );
        assert_eq!(x["counts"]["dropped_gaps"], 0, "{x}");
        assert_eq!(x["planned_wake"].is_object(), x["kind"] != "bare", "{x}");
    }
    // The fixed margin plans the whole margin at every boundary; the default never more.
    let margin = sections[2]["spin_margin_ns"].as_i64().unwrap();
    assert!(margin > 0, "{r}");
    for (x, least) in [(&sections[1], 0), (&sections[2], margin)] {
        let planned = &x["planned_wake"];
        assert!(planned["min"].as_i64().unwrap() >= least, "{x}");
        assert!(planned["max"].as_i64().unwrap() <= margin, "{x}");
    }
    assert!(!r["checks"].as_array().unwrap().is_empty(), "{r}");
    let md = std::fs::read_to_string(dir.join("felt.md")).unwrap();
    assert!(md.contains("a653lib 25-35 us"), "{md}");
    assert!(md.contains("| freezer-v1 | bare |"), "{md}");
    assert!(md.contains("PASS") || md.contains("MISS"), "{md}");
}
