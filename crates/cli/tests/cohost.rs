// SPDX-License-Identifier: MIT OR Apache-2.0
//! General-purpose partitions (`partita:GeneralPurpose`): the cohost example runs its Linux
//! programs beside two APEX partitions that meet their deadlines; a general-purpose
//! partition's background never runs inside another partition's window; its program's end is
//! a health-monitor event that restarts it; its binds and system-call profile hold.

mod common;

use common::*;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Builds the plain C program `src` (no APEX runtime) into `exe`.
fn cc(src: &Path, exe: &Path) {
    let out = Command::new("cc")
        .args(["-O2", "-Wall", "-Werror"])
        .arg(src)
        .arg("-o")
        .arg(exe)
        .output()
        .unwrap();
    assert!(out.status.success(), "cc {}: {}", src.display(), text(&out));
}

/// The partition named `name` in a run report.
fn partition<'a>(report: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    report["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no partition {name} in {report}"))
}

/// Runs `module` for `duration` (at most a minute) with its report in `dir/report.json`;
/// checks that the run succeeded and returns its output and report.
fn run_json(
    dir: &Path,
    module: &Path,
    duration: &str,
) -> (std::process::Output, serde_json::Value) {
    let json = dir.join("report.json");
    let out = output_within(
        partita()
            .args(["run", "--duration", duration, "--json"])
            .arg(&json)
            .arg(module),
        Duration::from_secs(60),
    );
    assert!(out.status.success(), "{}", text(&out));
    let report = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (out, report)
}

/// The example in `dir`: its module and its three programs built into `dir/bin`.
fn build_example(dir: &Path) -> PathBuf {
    let src = repo().join("examples/cohost");
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    for p in ["control", "monitor"] {
        partita_cc(
            &src.join(format!("{p}.c")),
            &dir.join("bin").join(p),
            &["-O2", "-Wall", "-Werror"],
        );
    }
    cc(&src.join("gpserve.c"), &dir.join("bin/gpserve"));
    let module = dir.join("module.xml");
    std::fs::copy(src.join("module.xml"), &module).unwrap();
    module
}

/// Fetches the compressed block the example's general-purpose partition serves on its link
/// and decompresses it; `None` while nothing is served yet.
fn fetch_block() -> Option<String> {
    let addr = "10.77.0.2:7070".parse().unwrap();
    let mut s = std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(200)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let mut gz = Vec::new();
    s.read_to_end(&mut gz).ok()?;
    if gz.len() < 2 {
        return None;
    }
    assert_eq!(&gz[..2], &[0x1f, 0x8b], "not gzip data");
    let mut gunzip = Command::new("gzip")
        .arg("-dc")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        gunzip.stdin.take().unwrap().write_all(&gz).unwrap();
    }
    let out = gunzip.wait_with_output().unwrap();
    assert!(out.status.success(), "gzip -dc: {}", text(&out));
    Some(String::from_utf8(out.stdout).unwrap())
}

#[test]
fn cohost_example_checks_and_shows_its_background() {
    let dir = scratch("cohost-check");
    let module = build_example(&dir);
    let out = partita().arg("check").arg(&module).output().unwrap();
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(!all.to_lowercase().contains("warning"), "{all}");
    // Core 1: linux 0-6 ms, monitor 10-16 ms; the background is the other 8 ms.
    assert!(
        all.lines()
            .any(|l| l.contains("core 1") && l.contains("linux") && l.contains("8ms per frame")),
        "{all}"
    );
}

/// The example runs: the general-purpose partition compresses and serves blocks (fetched
/// over its link while the module runs) and gets CPU time against its promise; the APEX
/// partitions reach NORMAL and miss no deadline.
#[test]
fn cohost_example_serves_compressed_blocks_beside_apex_partitions() {
    let _g = serial();
    if let Err(r) = capable() {
        return skip(
            "cohost_example_serves_compressed_blocks_beside_apex_partitions",
            &r,
        );
    }
    let dir = scratch("cohost-run");
    let module = build_example(&dir);
    let json = dir.join("report.json");
    let child = partita()
        .args(["run", "--duration", "5s", "--json"])
        .arg(&json)
        .arg(&module)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Fetch blocks while it runs: from the host, over the partition's own link.
    let start = Instant::now();
    let mut blocks = Vec::new();
    while start.elapsed() < Duration::from_millis(4200) && blocks.len() < 3 {
        match fetch_block() {
            Some(b) => blocks.push(b),
            None => std::thread::sleep(Duration::from_millis(100)),
        }
    }
    let out = child.wait_with_output().unwrap();
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(!blocks.is_empty(), "no block served over the link\n{all}");
    for b in &blocks {
        let lines: Vec<&str> = b.lines().collect();
        assert_eq!(lines.len(), 20_000, "a whole block");
        assert!(
            lines[0].starts_with("block ") && lines[0].ends_with(" record 1"),
            "{}",
            lines[0]
        );
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("compressor: 10 blocks compressed"),
        "{stdout}"
    );
    assert!(stdout.contains("gpserve: connection 1 served"), "{stdout}");
    assert!(
        stdout.contains("linux: general-purpose: cpu "),
        "the run log gives its CPU share\n{stdout}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let linux = partition(&report, "linux");
    assert_eq!(linux["general_purpose"], true);
    assert_eq!(linux["restarts"], 0, "{linux}");
    let cpu = linux["cpu_time_ns"].as_u64().unwrap();
    let promised = linux["promised_ns"].as_u64().unwrap();
    let ran = report["ran_ns"].as_u64().unwrap();
    // Core 1 gives it 14 of every 20 ms (its window and the background).
    assert!(
        promised > ran * 6 / 10 && promised <= ran * 75 / 100,
        "promised {promised} of {ran}"
    );
    assert!(cpu > promised / 10, "cpu {cpu} of {promised} promised");
    for apex in ["control", "monitor"] {
        let p = partition(&report, apex);
        assert_eq!(p["general_purpose"], false);
        assert_eq!(p["reached_normal"], true, "{p}");
        assert_eq!(p["deadline_misses"], 0, "{p}");
        assert!(p["windows"].as_u64().unwrap() > 100, "{p}");
    }
    // The monitor on core 1 reads what the control loop on core 0 writes (the first reads
    // may come before the first write).
    let valid = stdout
        .lines()
        .find_map(|l| l.split_once("monitor: 100 reads, "))
        .and_then(|(_, rest)| rest.split_whitespace().next()?.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no monitor line\n{stdout}"));
    assert!(valid >= 90, "{valid} of 100 reads valid\n{stdout}");
}

/// Window `(offset_ms, duration_ms)` of the APEX partition on the spinner's core.
const APEX_WINDOWS: [(u64, u64); 2] = [(0, 6), (10, 6)];
const FRAME_MS: u64 = 20;
/// A stretch of the spinner this far (ns) inside another partition's window fails the test:
/// a hold takes microseconds.
const INSIDE_ALLOWED_NS: u64 = 1_000_000;

/// A spinner in the background of core 1 (every gap between the APEX partition's windows
/// there) runs only in those gaps: every stretch of time it ran, by its own clock, is
/// compared with the windows of the other partition computed from the module epoch.
#[test]
fn background_is_held_at_every_window_start() {
    let _g = serial();
    if let Err(r) = capable() {
        return skip("background_is_held_at_every_window_start", &r);
    }
    let dir = scratch("cohost-background");
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    cc(
        &repo().join("tests/general/gp_spinner.c"),
        &dir.join("bin/gp_spinner"),
    );
    partita_cc(
        &repo().join("examples/hello/hello.c"),
        &dir.join("bin/hello"),
        &["-O2"],
    );
    let windows: String = APEX_WINDOWS
        .iter()
        .enumerate()
        .map(|(i, (o, d))| {
            format!(
                "<Window_Schedule WindowIdentifier=\"{}\" WindowStartSeconds=\"{}\" WindowDurationSeconds=\"{}\" partita:Core=\"1\"/>",
                i + 1,
                *o as f64 / 1000.0,
                *d as f64 / 1000.0
            )
        })
        .collect();
    let module = dir.join("module.xml");
    std::fs::write(
        &module,
        format!(
            r#"<ARINC_653_Module xmlns:partita="urn:partita:1" ModuleName="background">
  <Partition PartitionIdentifier="1" PartitionName="apex" Criticality="LEVEL_A" EntryPoint="main">
    <partita:Executable path="bin/hello"><partita:Arg>apex</partita:Arg></partita:Executable>
  </Partition>
  <Partition PartitionIdentifier="2" PartitionName="spinner" Criticality="LEVEL_E">
    <partita:Executable path="bin/gp_spinner"><partita:Arg>20000</partita:Arg></partita:Executable>
    <partita:GeneralPurpose background="1"/>
  </Partition>
  <Module_Schedule MajorFrameSeconds="{}">
    <Partition_Schedule PartitionIdentifier="1" PeriodSeconds="{}" PeriodDurationSeconds="0.012">
      {windows}
    </Partition_Schedule>
  </Module_Schedule>
</ARINC_653_Module>
"#,
            FRAME_MS as f64 / 1000.0,
            FRAME_MS as f64 / 1000.0
        ),
    )
    .unwrap();
    let (out, report) = run_json(&dir, &module, "3s");
    let epoch = report["epoch_ns"].as_u64().unwrap();
    let ran = report["ran_ns"].as_u64().unwrap();
    let frame = FRAME_MS * 1_000_000;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let runs: Vec<(u64, u64)> = stdout
        .lines()
        .filter_map(|l| l.split_once("RUN "))
        .filter_map(|(_, r)| {
            let mut w = r.split_whitespace().map(|v| v.parse::<u64>());
            Some((w.next()?.ok()?, w.next()?.ok()?))
        })
        .collect();
    let mut ran_total = 0;
    for &(a, b) in &runs {
        assert!(
            a >= epoch,
            "the spinner ran before the epoch: {a} < {epoch}"
        );
        ran_total += b - a;
        // Every window of the APEX partition the stretch meets: it may touch the window's
        // edges by the hold's own latency, not its inside.
        let first_frame = (a - epoch) / frame;
        let last_frame = (b - epoch) / frame;
        for k in first_frame..=last_frame {
            for &(o, d) in &APEX_WINDOWS {
                let ws = epoch + k * frame + o * 1_000_000;
                let we = ws + d * 1_000_000;
                let (lo, hi) = (a.max(ws + INSIDE_ALLOWED_NS), b.min(we - INSIDE_ALLOWED_NS));
                assert!(
                    lo >= hi,
                    "the spinner ran {a}..{b} inside the window {ws}..{we} (frame {k}) of partition apex"
                );
            }
        }
    }
    let spinner = partition(&report, "spinner");
    let promised = spinner["promised_ns"].as_u64().unwrap();
    // 8 of every 20 ms.
    assert!(
        promised > ran * 35 / 100 && promised <= ran * 41 / 100,
        "promised {promised} of {ran}"
    );
    assert_eq!(spinner["windows"], 0, "background only: {spinner}");
    // It did run (not a test that passes by the spinner never running).
    assert!(
        runs.len() >= 20 && ran_total > promised / 10,
        "{} stretches, {ran_total} ns of {promised} promised",
        runs.len()
    );
    let apex = partition(&report, "apex");
    assert!(apex["windows"].as_u64().unwrap() > 200, "{apex}");
}

/// A general-purpose partition: its program's end is an APPLICATION_ERROR of the partition
/// that its HM table answers with a restart (the script runs again); it runs in SCHED_OTHER
/// with calls the APEX profile refuses (signals to its own children, job control, file
/// modes, symbolic links); its read-only bind is read-only.
#[test]
fn general_purpose_partition_restarts_and_keeps_its_profile_and_binds() {
    let _g = serial();
    if let Err(r) = capable() {
        return skip(
            "general_purpose_partition_restarts_and_keeps_its_profile_and_binds",
            &r,
        );
    }
    let dir = scratch("cohost-hm");
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    partita_cc(
        &repo().join("examples/hello/hello.c"),
        &dir.join("bin/hello"),
        &["-O2"],
    );
    // What the bind shows, and where: outside the checkout, which may lie in a directory
    // only root can enter (a fresh clone in `mktemp -d`), where the partition's uid could not
    // reach the bind's target.
    let outside = std::env::temp_dir().join(format!("partita-cohost-hm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&outside);
    let shared = outside.join("shared");
    let view = outside.join("view");
    std::fs::create_dir_all(&shared).unwrap();
    std::fs::create_dir_all(&view).unwrap();
    std::fs::write(shared.join("note.txt"), "through the bind\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&outside, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&view, std::fs::Permissions::from_mode(0o777)).unwrap();
    let script = format!(
        "echo started; \
         chrt -p $$ | grep -q SCHED_OTHER &amp;&amp; echo policy-other; \
         sleep 10 &amp; kill $!; wait; \
         touch f; chmod 600 f; ln -sf f g; echo general-profile-ok; \
         cat {view}/note.txt; \
         if echo x > {view}/written 2>/dev/null; then echo bind-writable; else echo bind-read-only; fi; \
         sleep 0.3; exit 3",
        view = view.display()
    );
    let module = dir.join("module.xml");
    std::fs::write(
        &module,
        format!(
            r#"<ARINC_653_Module xmlns:partita="urn:partita:1" ModuleName="gp-hm">
  <Partition PartitionIdentifier="1" PartitionName="apex" Criticality="LEVEL_A" EntryPoint="main">
    <partita:Executable path="bin/hello"><partita:Arg>apex</partita:Arg></partita:Executable>
  </Partition>
  <Partition PartitionIdentifier="2" PartitionName="gp" Criticality="LEVEL_E">
    <partita:Executable path="/bin/sh"><partita:Arg>-c</partita:Arg><partita:Arg>{script}</partita:Arg></partita:Executable>
    <partita:GeneralPurpose background="0">
      <partita:Bind source="{shared}" target="{view}" access="READ_ONLY"/>
    </partita:GeneralPurpose>
  </Partition>
  <Module_Schedule MajorFrameSeconds="0.02">
    <Partition_Schedule PartitionIdentifier="1" PeriodSeconds="0.02" PeriodDurationSeconds="0.005">
      <Window_Schedule WindowIdentifier="1" WindowStartSeconds="0" WindowDurationSeconds="0.005"/>
    </Partition_Schedule>
  </Module_Schedule>
  <System_HM_Table>
    <System_State_Entry SystemState="3">
      <Error_ID_Level ErrorIdentifier="1" ErrorLevel="PARTITION" ErrorCode="APPLICATION_ERROR"/>
    </System_State_Entry>
  </System_HM_Table>
  <Partition_HM_Table PartitionIdentifier="2">
    <System_State_Entry SystemState="3">
      <Error_ID_Action ErrorIdentifier="1" Action="COLD_START"/>
    </System_State_Entry>
  </Partition_HM_Table>
</ARINC_653_Module>
"#,
            shared = shared.display(),
            view = view.display()
        ),
    )
    .unwrap();
    let (out, report) = run_json(&dir, &module, "3s");
    let _ = std::fs::remove_dir_all(&outside);
    let all = text(&out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    // Lines of partition gp (the run log gives `<name> | <line>`).
    let count = |w: &str| {
        stdout
            .lines()
            .filter_map(|l| l.split_once(" | "))
            .filter(|(name, line)| name.trim() == "gp" && *line == w)
            .count()
    };
    assert!(count("started") >= 2, "restarted after its end\n{all}");
    assert!(count("policy-other") >= 1, "{all}");
    assert!(count("general-profile-ok") >= 1, "{all}");
    assert!(count("through the bind") >= 1, "{all}");
    assert!(count("bind-read-only") >= 1, "{all}");
    assert_eq!(count("bind-writable"), 0, "{all}");
    assert!(!view.join("written").exists());
    let gp = partition(&report, "gp");
    assert!(gp["restarts"].as_u64().unwrap() >= 1, "{gp}");
    assert!(gp["hm_events"].as_u64().unwrap() >= 1, "{gp}");
    assert_eq!(gp["reached_normal"], true, "{gp}");
    let apex = partition(&report, "apex");
    assert_eq!(apex["restarts"], 0, "{apex}");
}
