//! Smoke tests of the benchmark commands: each `--quick` benchmark runs to the end under the
//! partition manager (partitions under their own uids, with the seccomp filter) and writes
//! JSON figures that parse. The figures themselves are not checked here (benchmarks print
//! PASS/MISS; timing is never a test criterion); what is checked is that the command works.

mod common;

use common::{capable, partita, scratch, serial, skip, text};
use std::path::Path;

fn bench(name: &str, args: &[&str]) {
    let _s = serial();
    if let Err(r) = capable() {
        return skip(&format!("bench_{name}_runs"), &r);
    }
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
}

fn read_json(p: &Path) -> serde_json::Value {
    let t = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&t).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn bench_apex_runs() {
    bench("apex", &[]);
}

#[test]
fn bench_ports_runs() {
    bench("ports", &[]);
}

#[test]
fn bench_switch_runs() {
    bench("switch", &["--backends", "freezer-v1"]);
}
