// SPDX-License-Identifier: MIT OR Apache-2.0
//! APEX conformance suite (in the style of ARINC 653 Part 3): every
//! `tests/conformance/<group>/<scenario>.c` is a C partition printing an event trace (lines
//! starting `T `). It is built with `partita cc`, run under the partition manager in a
//! generated module, and its trace is compared with `<scenario>.expected`.
//!
//! Per-scenario files next to the source:
//! - `<scenario>.expected`: the expected trace (the `T ` lines, in order);
//! - `<scenario>.output` (optional): substrings that must each appear in some other line the
//!   manager printed for the partition (e.g. a deadline-missed record), or, prefixed `!`,
//!   must appear in none;
//! - `<scenario>.bug` (optional): the description of a known runtime bug the scenario exposes;
//!   a mismatch is then reported but does not fail the suite (a match is reported too, so the
//!   file can be removed once the bug is fixed).
//!
//! The module is described by a line `@module key=value...` in the source (defaults:
//! `frame=100 windows=0:90 duration=1000`, all in ms). `filler=S:D,...` adds a second
//! partition (`tests/conformance/filler.c`) with those windows, so the scenario's partition is
//! frozen outside its own windows. A window `S:D@C` is on processor core `C` (`partita:Core`;
//! default 0): a partition with windows on two cores has two APEX processor cores.
//!
//! Ports scenarios add XML to the module: each `@port <element>` line puts `<element>` (a
//! `Sampling_Port` or `Queuing_Port`) into the scenario's partition, each `@channel <element>`
//! line puts a `Channel` into the `Connection_Table`.
//!
//! `CONFORMANCE_ONLY=<substring>` runs only the matching scenarios; `CONFORMANCE_BLESS=1`
//! overwrites the `.expected` files with the actual traces (a development aid: review every
//! line against the standard before keeping it).

mod common;

use common::*;
use std::path::{Path, PathBuf};

/// One scenario: `<group>/<name>`.
struct Scenario {
    group: String,
    name: String,
    src: PathBuf,
}

impl Scenario {
    fn id(&self) -> String {
        format!("{}/{}", self.group, self.name)
    }
    fn sibling(&self, ext: &str) -> PathBuf {
        self.src.with_extension(ext)
    }
}

fn root() -> PathBuf {
    repo().join("tests/conformance")
}

/// Every scenario, sorted by group then name.
fn scenarios() -> Vec<Scenario> {
    let mut v = Vec::new();
    let mut groups: Vec<PathBuf> = std::fs::read_dir(root())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    groups.sort();
    for g in groups {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&g)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "c"))
            .collect();
        files.sort();
        for src in files {
            v.push(Scenario {
                group: g.file_name().unwrap().to_string_lossy().into(),
                name: src.file_stem().unwrap().to_string_lossy().into(),
                src,
            });
        }
    }
    let only = std::env::var("CONFORMANCE_ONLY").unwrap_or_default();
    v.retain(|s| s.id().contains(&only));
    v
}

/// Compiles `src` with `partita cc` into `<tmp>/conformance/<out>`.
fn build(src: &Path, out: &str) -> Result<PathBuf, String> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("conformance");
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join(out);
    let o = partita()
        .args(["cc", "-O2", "-Wall", "-Werror"])
        .arg(src)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    if o.status.success() {
        Ok(exe)
    } else {
        Err(format!(
            "partita cc {}:\n{}{}",
            src.display(),
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ))
    }
}

/// One window: start, duration (ms), core.
type Window = (u64, u64, u32);

/// The `@module` line of a scenario.
struct ModuleSpec {
    frame: u64,
    windows: Vec<Window>,
    filler: Vec<Window>,
    duration: u64,
    /// `@port` elements of the scenario's partition.
    ports: Vec<String>,
    /// `@channel` elements.
    channels: Vec<String>,
}

fn parse_windows(v: &str) -> Vec<Window> {
    v.split(',')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let (w, core) = match w.split_once('@') {
                Some((w, c)) => (w, c.parse().expect("window core")),
                None => (w, 0),
            };
            let (s, d) = w.split_once(':').expect("window START:DURATION[@CORE]");
            (s.parse().unwrap(), d.parse().unwrap(), core)
        })
        .collect()
}

fn module_spec(src: &str) -> ModuleSpec {
    let mut m = ModuleSpec {
        frame: 100,
        windows: vec![(0, 90, 0)],
        filler: vec![],
        duration: 1000,
        ports: vec![],
        channels: vec![],
    };
    for line in src.lines() {
        if let Some(x) = line.split_once("@port ").map(|(_, x)| x.trim()) {
            m.ports.push(x.to_string());
        }
        if let Some(x) = line.split_once("@channel ").map(|(_, x)| x.trim()) {
            m.channels.push(x.to_string());
        }
    }
    if let Some(line) = src.lines().find(|l| l.contains("@module")) {
        let rest = &line[line.find("@module").unwrap() + 7..];
        for kv in rest.split_whitespace() {
            let Some((k, v)) = kv.split_once('=') else {
                continue;
            };
            match k {
                "frame" => m.frame = v.parse().unwrap(),
                "windows" => m.windows = parse_windows(v),
                "filler" => m.filler = parse_windows(v),
                "duration" => m.duration = v.parse().unwrap(),
                _ => panic!("unknown @module key {k}"),
            }
        }
    }
    m
}

/// Writes the module: partition `conf` (the scenario), and `filler` when asked.
fn write_conf_module(dir: &Path, spec: &ModuleSpec, exe: &Path, filler: &Path) -> PathBuf {
    let secs = |ms: u64| format!("{}", ms as f64 / 1000.0);
    type Windows = Vec<Window>;
    let mut parts: Vec<(&str, &Path, &Windows)> = vec![("conf", exe, &spec.windows)];
    if !spec.filler.is_empty() {
        parts.push(("filler", filler, &spec.filler));
    }
    let mut x = String::from(
        "<?xml version=\"1.0\"?>\n<ARINC_653_Module xmlns:partita=\"urn:partita:1\" ModuleName=\"conformance\">\n",
    );
    for (i, (name, exe, _)) in parts.iter().enumerate() {
        let ports: String = if i == 0 {
            spec.ports.iter().map(|p| format!("    {p}\n")).collect()
        } else {
            String::new()
        };
        x += &format!(
            "  <Partition PartitionIdentifier=\"{}\" PartitionName=\"{name}\" Criticality=\"LEVEL_C\" SystemPartition=\"false\" EntryPoint=\"main\">\n    <partita:Executable path=\"{}\"/>\n{ports}  </Partition>\n",
            i + 1,
            exe.display()
        );
    }
    x += &format!(
        "  <Module_Schedule MajorFrameSeconds=\"{}\">\n",
        secs(spec.frame)
    );
    let mut wid = 1;
    for (i, (name, _, wins)) in parts.iter().enumerate() {
        // The partition's duration per period: its windows on its first core.
        let first = wins.iter().map(|w| w.2).min().unwrap_or(0);
        let dur: u64 = wins.iter().filter(|w| w.2 == first).map(|w| w.1).sum();
        x += &format!(
            "    <Partition_Schedule PartitionIdentifier=\"{}\" PartitionName=\"{name}\" PeriodSeconds=\"{}\" PeriodDurationSeconds=\"{}\">\n",
            i + 1,
            secs(spec.frame),
            secs(dur)
        );
        for (j, &(s, d, core)) in wins.iter().enumerate() {
            let core = if core == 0 {
                String::new()
            } else {
                format!(" partita:Core=\"{core}\"")
            };
            x += &format!(
                "      <Window_Schedule WindowIdentifier=\"{wid}\" WindowStartSeconds=\"{}\" WindowDurationSeconds=\"{}\" PartitionPeriodStart=\"{}\"{core}/>\n",
                secs(s),
                secs(d),
                j == 0
            );
            wid += 1;
        }
        x += "    </Partition_Schedule>\n";
    }
    x += "  </Module_Schedule>\n";
    if !spec.channels.is_empty() {
        x += "  <Connection_Table>\n";
        for c in &spec.channels {
            x += &format!("    {c}\n");
        }
        x += "  </Connection_Table>\n";
    }
    x += "</ARINC_653_Module>\n";
    let path = dir.join("module.xml");
    std::fs::write(&path, x).unwrap();
    path
}

/// The lines the manager echoed for partition `name` from its stdout (`name | text`).
fn partition_lines<'a>(stdout: &'a str, name: &str) -> Vec<&'a str> {
    stdout
        .lines()
        .filter_map(|l| {
            l.trim_start()
                .strip_prefix(name)
                .and_then(|r| r.strip_prefix(" | "))
        })
        .collect()
}

/// A unified-diff-like rendering of `expected` vs `actual` (LCS based; traces are short).
fn diff(expected: &[String], actual: &[String]) -> String {
    let (n, m) = (expected.len(), actual.len());
    let mut l = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            l[i][j] = if expected[i] == actual[j] {
                l[i + 1][j + 1] + 1
            } else {
                l[i + 1][j].max(l[i][j + 1])
            };
        }
    }
    let mut out = String::from("--- expected\n+++ actual\n");
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && expected[i] == actual[j] {
            out += &format!(" {}\n", expected[i]);
            i += 1;
            j += 1;
        } else if j < m && (i == n || l[i][j + 1] >= l[i + 1][j]) {
            out += &format!("+{}\n", actual[j]);
            j += 1;
        } else {
            out += &format!("-{}\n", expected[i]);
            i += 1;
        }
    }
    out
}

/// Runs one scenario; `Err` holds the failure report.
fn run_scenario(s: &Scenario, filler: &Path) -> Result<(), String> {
    let src = std::fs::read_to_string(&s.src).unwrap();
    let spec = module_spec(&src);
    let exe = build(&s.src, &format!("{}-{}", s.group, s.name))?;
    let dir = scratch(&format!("conformance-{}-{}", s.group, s.name));
    let module = write_conf_module(&dir, &spec, &exe, filler);
    let out = partita()
        .args(["run", "--duration", &format!("{}ms", spec.duration)])
        .arg(&module)
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(format!("partita run failed\n{}", text(&out)));
    }
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let lines = partition_lines(&stdout, "conf");
    let actual: Vec<String> = lines
        .iter()
        .filter(|l| l.starts_with("T "))
        .map(|l| l.to_string())
        .collect();
    if std::env::var("CONFORMANCE_BLESS").as_deref() == Ok("1") {
        // Development aid: record the actual trace (review it against the standard!).
        let mut t = actual.join("\n");
        t.push('\n');
        std::fs::write(s.sibling("expected"), t).unwrap();
    }
    let expected: Vec<String> = std::fs::read_to_string(s.sibling("expected"))
        .map_err(|e| format!("{}: {e}", s.sibling("expected").display()))?
        .lines()
        .filter(|l| l.starts_with("T "))
        .map(str::to_string)
        .collect();
    let mut problems = String::new();
    if actual != expected {
        problems += &format!("trace mismatch:\n{}", diff(&expected, &actual));
    }
    if let Ok(wanted) = std::fs::read_to_string(s.sibling("output")) {
        for w in wanted.lines().filter(|w| !w.trim().is_empty()) {
            let (absent, w) = match w.strip_prefix('!') {
                Some(rest) => (true, rest),
                None => (false, w),
            };
            let found = lines.iter().any(|l| !l.starts_with("T ") && l.contains(w));
            if found == absent {
                problems += &format!(
                    "{} output line of the partition contains `{w}`\n",
                    if absent { "an" } else { "no" }
                );
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{problems}--- manager stdout\n{stdout}--- manager stderr\n{}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

#[test]
fn every_scenario_builds_and_has_an_expected_trace() {
    let all = scenarios();
    let mut failures = Vec::new();
    for s in &all {
        if !s.sibling("expected").exists() {
            failures.push(format!(
                "{}: no {}",
                s.id(),
                s.sibling("expected").display()
            ));
        }
        // Its own output names: the other test of this binary runs concurrently and executes
        // the binaries it builds under the plain names (rewriting one while it is started
        // made `partita run` see a file without execute permission).
        if let Err(e) = build(&s.src, &format!("check-{}-{}", s.group, s.name)) {
            failures.push(format!("{}: {e}", s.id()));
        }
    }
    if let Err(e) = build(&root().join("filler.c"), "check-filler") {
        failures.push(e);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn apex_conformance_scenarios() {
    let _g = serial();
    if let Err(r) = capable() {
        return skip("apex_conformance_scenarios", &r);
    }
    let filler = build(&root().join("filler.c"), "filler").unwrap();
    let all = scenarios();
    assert!(!all.is_empty(), "no scenario found");
    let (mut passed, mut known) = (0, 0);
    let mut failures = Vec::new();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    for s in &all {
        // A scenario on more processor cores than the host has cannot run here.
        let spec = module_spec(&std::fs::read_to_string(&s.src).unwrap());
        let cores = spec
            .windows
            .iter()
            .chain(&spec.filler)
            .map(|w| w.2 as usize + 1)
            .max();
        if cores.unwrap_or(1) > cpus {
            println!(
                "SKIPPED {}: needs {} CPUs, the host has {cpus}",
                s.id(),
                cores.unwrap_or(1)
            );
            continue;
        }
        let bug = std::fs::read_to_string(s.sibling("bug")).ok();
        match (run_scenario(s, &filler), bug) {
            (Ok(()), None) => {
                passed += 1;
                println!("PASS {}", s.id());
            }
            (Ok(()), Some(_)) => {
                passed += 1;
                println!(
                    "PASS {} (it has a .bug file: the bug looks fixed, remove the file)",
                    s.id()
                );
            }
            (Err(e), Some(bug)) => {
                known += 1;
                println!("KNOWN BUG {}: {}\n{e}", s.id(), bug.trim());
            }
            (Err(e), None) => {
                println!("FAIL {}\n{e}", s.id());
                failures.push(format!("FAIL {}\n{e}", s.id()));
            }
        }
    }
    println!(
        "conformance: {} scenarios, {passed} passed, {known} known bugs, {} failed",
        all.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
