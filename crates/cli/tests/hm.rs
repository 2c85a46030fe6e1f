// SPDX-License-Identifier: MIT OR Apache-2.0
//! End-to-end tests of the module health monitor: detected errors, logbook, partition and
//! module actions, system-partition services. Partitions: tests/partitions/hm_faults.c.

mod common;

use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

/// One partition of an HM test module: `hm_faults MODE NAME ARGS...` in one window per frame.
struct P<'a> {
    name: &'a str,
    mode: &'a str,
    args: Vec<String>,
    /// (start_ms, duration_ms)
    window: (u64, u64),
    system: bool,
    memory: Option<u64>,
}

fn p<'a>(name: &'a str, mode: &'a str, window: (u64, u64)) -> P<'a> {
    P {
        name,
        mode,
        args: Vec::new(),
        window,
        system: false,
        memory: None,
    }
}

/// Writes a module (partition ids from 1 in order) with `hm` (raw HM-table XML) appended.
fn module(dir: &Path, name: &str, frame_ms: u64, parts: &[P], hm: &str) -> PathBuf {
    let exe = partition_exe("hm_faults");
    let secs = |ms: u64| format!("{}", ms as f64 / 1000.0);
    let mut x = format!(
        "<?xml version=\"1.0\"?>\n<ARINC_653_Module xmlns:partita=\"urn:partita:1\" ModuleName=\"{name}\">\n"
    );
    for (i, q) in parts.iter().enumerate() {
        x += &format!(
            "  <Partition PartitionIdentifier=\"{}\" PartitionName=\"{}\" Criticality=\"LEVEL_C\" SystemPartition=\"{}\" EntryPoint=\"main\">\n",
            i + 1,
            q.name,
            q.system
        );
        if let Some(m) = q.memory {
            x += &format!("    <partita:Resources memoryBytes=\"{m}\"/>\n");
        }
        x += &format!(
            "    <partita:Executable path=\"{}\"><partita:Arg>{}</partita:Arg><partita:Arg>{}</partita:Arg>",
            exe.display(),
            q.mode,
            q.name
        );
        for a in &q.args {
            x += &format!("<partita:Arg>{a}</partita:Arg>");
        }
        x += "</partita:Executable>\n  </Partition>\n";
    }
    x += &format!(
        "  <Module_Schedule MajorFrameSeconds=\"{}\">\n",
        secs(frame_ms)
    );
    for (i, q) in parts.iter().enumerate() {
        x += &format!(
            "    <Partition_Schedule PartitionIdentifier=\"{}\" PartitionName=\"{}\" PeriodSeconds=\"{}\" PeriodDurationSeconds=\"{}\">\n      <Window_Schedule WindowIdentifier=\"{}\" WindowStartSeconds=\"{}\" WindowDurationSeconds=\"{}\" PartitionPeriodStart=\"true\"/>\n    </Partition_Schedule>\n",
            i + 1,
            q.name,
            secs(frame_ms),
            secs(q.window.1),
            i + 1,
            secs(q.window.0),
            secs(q.window.1)
        );
    }
    x += "  </Module_Schedule>\n";
    x += hm;
    x += "</ARINC_653_Module>\n";
    let path = dir.join(format!("{name}.xml"));
    std::fs::write(&path, x).unwrap();
    path
}

/// Runs `partita run` with the logbook in `dir/hm.log` and the report in `dir/report.json`.
fn run(dir: &Path, module: &Path, extra: &[&str]) -> (Output, Value) {
    run_with(dir, module, extra, || {})
}

/// [`run`], calling `meanwhile` while the module runs.
fn run_with(
    dir: &Path,
    module: &Path,
    extra: &[&str],
    meanwhile: impl FnOnce(),
) -> (Output, Value) {
    let child = partita()
        .args(["run", "--hm-log"])
        .arg(dir.join("hm.log"))
        .arg("--json")
        .arg(dir.join("report.json"))
        .args(extra)
        .arg(module)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    meanwhile();
    let out = child.wait_with_output().unwrap();
    let report = std::fs::read_to_string(dir.join("report.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    (out, report)
}

/// The logbook read back with `partita hm-log --json`.
fn logbook(dir: &Path) -> Vec<Value> {
    let out = partita()
        .args(["hm-log", "--json"])
        .arg(dir.join("hm.log"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    serde_json::from_slice::<Vec<Value>>(&out.stdout).unwrap()
}

/// Records about partition `name`.
fn of<'a>(log: &'a [Value], name: &str) -> Vec<&'a Value> {
    log.iter().filter(|r| r["partition"] == name).collect()
}

fn partition<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap()
}

/// The last `LATE name n=.. max_ns=..` line: (activations, worst lateness ns).
fn lateness(stdout: &str, name: &str) -> (u64, u64) {
    let mut last = (0, 0);
    for l in stdout.lines() {
        if let Some(rest) = l.split(&format!("LATE {name} ")).nth(1) {
            let v: Vec<u64> = rest
                .split_whitespace()
                .filter_map(|f| f.split('=').nth(1)?.parse().ok())
                .collect();
            if v.len() == 2 {
                last = (v[0], v[1]);
            }
        }
    }
    last
}

fn guard(test: &str) -> Option<Serial> {
    let g = serial();
    match capable() {
        Ok(()) => Some(g),
        Err(r) => {
            skip(test, &r);
            None
        }
    }
}

const PARTITION_TABLES: &str = r#"  <System_HM_Table>
    <System_State_Entry SystemState="3" Description="process execution">
      <Error_ID_Level ErrorIdentifier="20" ErrorLevel="PARTITION" ErrorCode="APPLICATION_ERROR"/>
      <Error_ID_Level ErrorIdentifier="21" ErrorLevel="PARTITION" ErrorCode="NUMERIC_ERROR"/>
    </System_State_Entry>
  </System_HM_Table>
  <Partition_HM_Table PartitionIdentifier="5" PartitionName="apperr">
    <System_State_Entry SystemState="3">
      <Error_ID_Action ErrorIdentifier="20" Action="IDLE"/>
    </System_State_Entry>
  </Partition_HM_Table>
"#;

#[test]
fn every_detected_error_is_logged_with_its_code_level_and_action() {
    let Some(_g) = guard("every_detected_error_is_logged_with_its_code_level_and_action") else {
        return;
    };
    let dir = scratch("hm-errors");
    let mut oom = p("oom", "oom", (180, 15));
    let handled = p("handled", "handled", (195, 15));
    oom.memory = Some(48 << 20);
    let parts = [
        p("fpe", "fpe", (0, 15)),
        p("segv", "segv", (15, 15)),
        p("ill", "ill", (30, 15)),
        p("stack", "stack", (45, 15)),
        p("apperr", "apperr", (60, 15)),
        p("deadline", "deadline", (75, 30)),
        p("exit", "exit", (105, 15)),
        p("segvmain", "segv-main", (120, 15)),
        p("sigsys", "sigsys", (135, 15)),
        p("steady", "steady", (150, 30)),
        oom,
        handled,
        p("killme", "steady", (210, 15)),
    ];
    let mut parts = parts;
    parts[9].args = vec!["150000000".into(), "250000000".into()];
    parts[12].args = vec!["210000000".into(), "250000000".into()];
    let m = module(&dir, "errors", 250, &parts, PARTITION_TABLES);
    // `killme` is killed from outside (SIGKILL) after a while.
    let (out, report) = run_with(&dir, &m, &["--duration", "4s"], || {
        std::thread::sleep(std::time::Duration::from_millis(1500));
        let victims = processes_with("killme");
        assert!(!victims.is_empty(), "killme is not running");
        for pid in victims {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
    });
    assert!(out.status.success(), "{}", text(&out));
    let log = logbook(&dir);
    // (partition, code, detection, level, action)
    let expect = [
        (
            "handled",
            "NUMERIC_ERROR",
            "process-error",
            "PROCESS",
            "ERROR_HANDLER",
        ),
        (
            "fpe",
            "NUMERIC_ERROR",
            "runtime-error",
            "PARTITION",
            "IGNORE",
        ),
        (
            "segv",
            "MEMORY_VIOLATION",
            "runtime-error",
            "PARTITION",
            "IGNORE",
        ),
        (
            "ill",
            "HARDWARE_FAULT",
            "runtime-error",
            "PARTITION",
            "IGNORE",
        ),
        (
            "stack",
            "STACK_OVERFLOW",
            "runtime-error",
            "PARTITION",
            "IGNORE",
        ),
        (
            "apperr",
            "APPLICATION_ERROR",
            "runtime-error",
            "PARTITION",
            "IDLE",
        ),
        (
            "deadline",
            "DEADLINE_MISSED",
            "deadline-record",
            "PROCESS",
            "ERROR_HANDLER",
        ),
        (
            "exit",
            "APPLICATION_ERROR",
            "process-died",
            "PARTITION",
            "IDLE",
        ),
        (
            "segvmain",
            "MEMORY_VIOLATION",
            "process-died",
            "PARTITION",
            "IDLE",
        ),
        (
            "sigsys",
            "ILLEGAL_REQUEST",
            "process-died",
            "PARTITION",
            "IDLE",
        ),
        (
            "killme",
            "HARDWARE_FAULT",
            "process-died",
            "PARTITION",
            "IDLE",
        ),
        (
            "oom",
            "MEMORY_VIOLATION",
            "memory-limit",
            "PARTITION",
            "IDLE",
        ),
    ];
    for (name, code, detection, level, action) in expect {
        let found = of(&log, name).into_iter().any(|r| {
            r["code"] == code
                && r["detection"] == detection
                && r["level"] == level
                && r["action"] == action
        });
        assert!(
            found,
            "no record {name} {code} {detection} {level} {action} in\n{}\n{}",
            serde_json::to_string_pretty(&log).unwrap(),
            text(&out)
        );
    }
    for r in &log {
        assert_eq!(r["v"], 1);
        assert!(r["time_ns"].as_i64().unwrap() > 0, "{r}");
        assert!(r["state"].is_string() && r["state_number"].is_u64(), "{r}");
    }
    // States: a runtime error of a process in NORMAL; the main process before NORMAL.
    // (Its first NUMERIC_ERROR: on a loaded host a deadline miss may be logged before it.)
    let fpe = *of(&log, "fpe")
        .iter()
        .find(|r| r["code"] == "NUMERIC_ERROR")
        .expect("a NUMERIC_ERROR record of fpe");
    assert_eq!(fpe["state"], "PROCESS_EXECUTION");
    assert!(fpe["process"].is_i64(), "{fpe}");
    let segvmain = of(&log, "segvmain")[0];
    assert_eq!(segvmain["state"], "PARTITION_INIT", "{segvmain}");
    // The configured level/identifier for NUMERIC_ERROR (identifier 21).
    assert_eq!(fpe["identifier"], 21);
    assert_eq!(fpe["configured"], true);
    // The OOM record names the limit.
    let oom = of(&log, "oom")
        .into_iter()
        .find(|r| r["detection"] == "memory-limit")
        .unwrap();
    assert!(
        oom["message"].as_str().unwrap().contains("memory limit"),
        "{oom}"
    );
    // Report: events listed, modes follow the actions, the steady neighbour is untouched.
    assert_eq!(
        report["hm"]["status"]["total"].as_u64().unwrap(),
        log.len() as u64
    );
    assert_eq!(report["hm"]["records"].as_array().unwrap().len(), log.len());
    for name in ["apperr", "exit", "segvmain", "sigsys", "oom"] {
        assert_eq!(partition(&report, name)["mode"], "IDLE", "{name}");
        assert_eq!(partition(&report, name)["restarts"], 0, "{name}");
    }
    assert_eq!(partition(&report, "fpe")["mode"], "NORMAL");
    // IDLE keeps the partition out of its windows.
    let idle = partition(&report, "apperr")["windows"].as_u64().unwrap();
    let busy = partition(&report, "fpe")["windows"].as_u64().unwrap();
    assert!(
        idle + 5 < busy,
        "IDLE partition ran {idle} windows, fpe {busy}"
    );
    // The neighbour has no partition-level event (a late printf on a loaded host may cost it a
    // soft deadline, recorded at process level).
    assert!(
        of(&log, "steady").iter().all(|r| r["level"] == "PROCESS"),
        "{log:?}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("HANDLED handled code=2"), "{}", text(&out));
    assert_eq!(partition(&report, "handled")["mode"], "NORMAL");
    let (n, worst) = lateness(&stdout, "steady");
    assert!(n >= 5, "steady ran {n} activations\n{}", text(&out));
    assert!(
        worst < 20_000_000,
        "steady started {worst} ns late\n{}",
        text(&out)
    );
    // The text form reads back too.
    let t = partita()
        .arg("hm-log")
        .arg(dir.join("hm.log"))
        .output()
        .unwrap();
    assert!(t.status.success());
    assert!(String::from_utf8_lossy(&t.stdout).contains("NUMERIC_ERROR"));
    assert!(processes_with("hm_faults").is_empty());
}

/// Partition 1 `crasher` restarts (COLD_START) on a MEMORY_VIOLATION in PARTITION_INIT,
/// partition 2 `killed` (WARM_START) on an ILLEGAL_REQUEST in PROCESS_EXECUTION.
const RESTARTING_TABLES: &str = r#"  <System_HM_Table>
    <System_State_Entry SystemState="2">
      <Error_ID_Level ErrorIdentifier="5" ErrorLevel="PARTITION" ErrorCode="MEMORY_VIOLATION"/>
    </System_State_Entry>
    <System_State_Entry SystemState="3">
      <Error_ID_Level ErrorIdentifier="3" ErrorLevel="PARTITION" ErrorCode="ILLEGAL_REQUEST"/>
    </System_State_Entry>
  </System_HM_Table>
  <Partition_HM_Table PartitionIdentifier="1" PartitionName="crasher">
    <System_State_Entry SystemState="2">
      <Error_ID_Action ErrorIdentifier="5" Action="COLD_START"/>
    </System_State_Entry>
  </Partition_HM_Table>
  <Partition_HM_Table PartitionIdentifier="2" PartitionName="killed">
    <System_State_Entry SystemState="3">
      <Error_ID_Action ErrorIdentifier="3" Action="WARM_START"/>
    </System_State_Entry>
  </Partition_HM_Table>
"#;

#[test]
fn cold_start_respawns_a_crashed_partition_at_its_next_window_without_disturbing_its_neighbour() {
    let Some(_g) = guard("cold_start_respawns_a_crashed_partition") else {
        return;
    };
    let dir = scratch("hm-coldstart");
    // crasher faults in its main process (the runtime reports it, then the process dies);
    // killed dies by SIGSYS (seccomp) in its second activation, without a word.
    let tables = RESTARTING_TABLES;
    let mut steady = p("steady", "steady", (50, 30));
    steady.args = vec!["50000000".into(), "100000000".into()];
    let parts = [
        p("crasher", "segv-main", (0, 20)),
        p("killed", "sigsys", (25, 20)),
        steady,
    ];
    let m = module(&dir, "coldstart", 100, &parts, tables);
    let (out, report) = run(&dir, &m, &["--duration", "2s"]);
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let log = logbook(&dir);
    let crashes = of(&log, "crasher");
    assert!(crashes.len() >= 5, "{}", text(&out));
    for r in &crashes {
        assert_eq!(r["code"], "MEMORY_VIOLATION");
        assert_eq!(r["state"], "PARTITION_INIT");
        assert_eq!(r["action"], "COLD_START");
        assert_eq!(r["configured"], true);
    }
    let deaths = of(&log, "killed");
    assert!(deaths.len() >= 3, "{}", text(&out));
    for r in &deaths {
        assert_eq!(r["code"], "ILLEGAL_REQUEST");
        assert_eq!(r["detection"], "process-died");
        assert_eq!(r["state"], "PROCESS_EXECUTION");
        assert_eq!(r["action"], "WARM_START");
    }
    let k = partition(&report, "killed");
    assert_eq!(
        k["restarts"].as_u64().unwrap(),
        deaths.len() as u64,
        "{report}"
    );
    assert_ne!(k["mode"], "IDLE", "{report}");
    assert!(
        stdout.contains("BOOT killed start_condition=3"),
        "{}",
        text(&out)
    );
    let c = partition(&report, "crasher");
    let restarts = c["restarts"].as_u64().unwrap();
    // A restart per crash, at most one per window of the crasher (20 in 2 s): no hot loop.
    assert!(
        (4..=21).contains(&restarts),
        "{restarts} restarts\n{report}"
    );
    assert!(
        stdout.contains("BOOT crasher start_condition=3"),
        "restarted with HM_PARTITION_RESTART\n{}",
        text(&out)
    );
    let (n, worst) = lateness(&stdout, "steady");
    assert!(n >= 15, "steady ran {n} activations\n{}", text(&out));
    assert!(
        worst < 20_000_000,
        "steady started {worst} ns late\n{}",
        text(&out)
    );
    assert_eq!(partition(&report, "steady")["restarts"], 0);
    assert!(processes_with("hm_faults").is_empty());
}

#[test]
fn power_fail_shuts_the_module_down_with_exit_code_7() {
    let Some(_g) = guard("power_fail_shuts_the_module_down_with_exit_code_7") else {
        return;
    };
    let dir = scratch("hm-powerfail");
    let mut steady = p("steady", "steady", (0, 30));
    steady.args = vec!["0".into(), "100000000".into()];
    let m = module(&dir, "powerfail", 100, &[steady], "");
    let t0 = std::time::Instant::now();
    let (out, report) = run(&dir, &m, &["--duration", "20s", "--power-fail-at", "500ms"]);
    assert_eq!(out.status.code(), Some(7), "{}", text(&out));
    assert!(t0.elapsed() < std::time::Duration::from_secs(15));
    assert_eq!(report["hm"]["shutdown"], true);
    let log = logbook(&dir);
    let pf: Vec<_> = log.iter().filter(|r| r["code"] == "POWER_FAIL").collect();
    assert_eq!(pf.len(), 1, "{log:?}");
    let r = pf[0];
    assert_eq!(
        log.last().unwrap(),
        r,
        "nothing after the shutdown: {log:?}"
    );
    assert_eq!(r["code"], "POWER_FAIL");
    assert_eq!(r["state"], "OS");
    assert_eq!(r["level"], "MODULE");
    assert_eq!(r["action"], "SHUTDOWN");
    assert!(r["partition"].is_null());
    assert!(processes_with("hm_faults").is_empty());
}

#[test]
fn sigpwr_with_a_reset_action_restarts_every_partition() {
    let Some(_g) = guard("sigpwr_with_a_reset_action_restarts_every_partition") else {
        return;
    };
    let dir = scratch("hm-reset");
    let tables = r#"  <System_HM_Table>
    <System_State_Entry SystemState="5" Description="OS">
      <Error_ID_Level ErrorIdentifier="7" ErrorLevel="MODULE" ErrorCode="POWER_FAIL"/>
    </System_State_Entry>
  </System_HM_Table>
  <Module_HM_Table>
    <System_State_Entry SystemState="5">
      <Error_ID_Action ErrorIdentifier="7" Action="RESET"/>
    </System_State_Entry>
  </Module_HM_Table>
"#;
    let mut a = p("alpha", "steady", (0, 30));
    a.args = vec!["0".into(), "100000000".into()];
    let mut b = p("beta", "steady", (50, 30));
    b.args = vec!["50000000".into(), "100000000".into()];
    let m = module(&dir, "reset", 100, &[a, b], tables);
    let child = partita()
        .args(["run", "--duration", "2500ms", "--hm-log"])
        .arg(dir.join("hm.log"))
        .arg("--json")
        .arg(dir.join("report.json"))
        .arg(&m)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1000));
    // SAFETY-free: `kill` from the shell.
    let k = std::process::Command::new("kill")
        .args(["-PWR", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(k.success());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["hm"]["module_resets"], 1, "{report}");
    let log = logbook(&dir);
    assert!(
        log.iter()
            .any(|r| r["code"] == "POWER_FAIL" && r["action"] == "RESET"),
        "{log:?}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    for name in ["alpha", "beta"] {
        assert_eq!(partition(&report, name)["restarts"], 1, "{report}");
        assert_eq!(partition(&report, name)["mode"], "NORMAL", "{report}");
        assert!(
            stdout.contains(&format!("BOOT {name} start_condition=2")),
            "HM_MODULE_RESTART\n{}",
            text(&out)
        );
    }
}

#[test]
fn a_system_partition_reads_status_sets_modes_and_reads_the_log_and_a_normal_one_is_refused() {
    let Some(_g) = guard("system_partition_services") else {
        return;
    };
    let dir = scratch("hm-system");
    let mut sys = p("super", "system", (0, 20));
    sys.system = true;
    sys.args = vec!["2".into()];
    let mut intruder = p("intruder", "intruder", (60, 20));
    intruder.args = vec!["2".into()];
    let parts = [
        sys,
        p("victim", "fpe", (30, 20)),
        intruder,
        p("flood", "flood", (85, 10)),
    ];
    let m = module(&dir, "system", 100, &parts, "");
    let (out, report) = run(&dir, &m, &["--duration", "1500ms"]);
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = |prefix: &str| -> String {
        stdout
            .lines()
            .find(|l| l.contains(prefix))
            .unwrap_or_else(|| panic!("no `{prefix}` line\n{}", text(&out)))
            .to_string()
    };
    // The victim's NUMERIC_ERROR (activation 2) and the intruder's ILLEGAL_REQUESTs
    // (activation 3) are in the log the system partition reads at its activation 4.
    assert!(line("LOGSTATUS").contains("rc=0"), "{}", text(&out));
    assert!(
        stdout.lines().any(|l| l.contains("LOGENTRY rc=0")
            && l.contains("partition=2")
            && l.contains("code=2")
            && l.contains("level=1")),
        "{}",
        text(&out)
    );
    assert!(line("LOGBEYOND").contains("rc=3"));
    assert!(
        line("STATUS before").contains("id=2 mode=3"),
        "{}",
        text(&out)
    );
    assert!(line("STATUS unknown").contains("rc=3"));
    assert!(line("SETMODE IDLE").contains("rc=0"));
    assert!(line("STATUS idle").contains("mode=0"), "{}", text(&out));
    assert!(
        line("STATUS idle").contains("has_process=0"),
        "{}",
        text(&out)
    );
    assert!(line("SETMODE NORMAL").contains("rc=5"));
    assert!(line("SETMODE COLD_START").contains("rc=0"));
    assert!(
        line("STATUS after").contains("restarts=1"),
        "{}",
        text(&out)
    );
    assert!(
        stdout.contains("BOOT victim start_condition=1"),
        "restarted with PARTITION_RESTART\n{}",
        text(&out)
    );
    // The intruder is refused (INVALID_CONFIG = 4) and recorded.
    for s in [
        "GET_A_PARTITION_STATUS",
        "SET_A_PARTITION_MODE",
        "GET_HM_LOG_STATUS",
    ] {
        assert!(
            line(&format!("INTRUDER {s}")).contains("rc=4"),
            "{}",
            text(&out)
        );
    }
    let log = logbook(&dir);
    let refused: Vec<_> = of(&log, "intruder")
        .into_iter()
        .filter(|r| r["code"] == "ILLEGAL_REQUEST" && r["detection"] == "illegal-call")
        .collect();
    assert_eq!(refused.len(), 3, "{log:?}");
    assert_eq!(refused[0]["level"], "PROCESS");
    assert_eq!(partition(&report, "intruder")["mode"], "NORMAL");
    assert_eq!(partition(&report, "victim")["restarts"], 1);
    // Nothing about the system partition: its requests are answered by its own service
    // thread in the manager, whatever the flooding partition below makes the output thread do.
    assert!(of(&log, "super").is_empty(), "{log:?}");
    // A partition forging 5000 error records cannot flood the logbook: at most 200 per second
    // are recorded, the rest counted.
    assert!(line("FLOODED").contains("FLOODED 5000"), "{}", text(&out));
    let flood = of(&log, "flood").len() as u64;
    let suppressed = report["hm"]["suppressed"].as_u64().unwrap();
    assert!(flood <= 2 * 200, "{flood} records");
    // (plus, maybe, a deadline the flooding process missed meanwhile)
    assert!(
        (5000..5010).contains(&(flood + suppressed)),
        "{flood} + {suppressed}"
    );
    assert!(suppressed >= 5000 - 2 * 200, "{suppressed}");
    let events = partition(&report, "flood")["hm_events"].as_u64().unwrap();
    assert!((5000..5010).contains(&events), "{events}");
    // The record of an unknown version after them is refused, counted and noted.
    assert_eq!(partition(&report, "flood")["bad_reports"], 1);
    assert!(
        stdout.contains("partition flood: report record refused (record version 9, expected 1)"),
        "{}",
        text(&out)
    );
}

#[test]
fn an_unwritable_logbook_is_refused_with_exit_code_3() {
    let Some(_g) = guard("an_unwritable_logbook_is_refused_with_exit_code_3") else {
        return;
    };
    let dir = scratch("hm-unwritable");
    let mut steady = p("steady", "steady", (0, 30));
    steady.args = vec!["0".into(), "100000000".into()];
    let m = module(&dir, "unwritable", 100, &[steady], "");
    let out = partita()
        .args(["run", "--duration", "300ms", "--hm-log"])
        .arg(dir.join("no/such/dir/hm.log"))
        .arg(&m)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("hm.log"),
        "{}",
        text(&out)
    );
    assert!(processes_with("hm_faults").is_empty());
}

#[test]
fn a_corrupt_logbook_is_a_typed_error_with_exit_code_3() {
    let dir = scratch("hm-corrupt");
    let f = dir.join("bad.log");
    std::fs::write(&f, "{\"v\":1,\"seq\":0}\nnot json\n").unwrap();
    let out = partita().arg("hm-log").arg(&f).output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("bad.log:1"),
        "{}",
        text(&out)
    );
    let out = partita()
        .arg("hm-log")
        .arg(dir.join("missing.log"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
}

/// `--fail-on overrun` on a real window overrun: a partition held at the end of its window
/// while in a system call that cannot stop halfway (`hm_faults overrun`: a 128 MiB
/// MAP_POPULATE, tens of ms of kernel work) uses the CPU until the call returns, longer than
/// any freeze lead, and the manager counts that CPU time after the hold as its overrun. The
/// run exits 6 with the finding on stderr and the overruns in the report; without the flag
/// it exits 0.
#[test]
fn a_partition_that_cannot_be_held_in_time_fails_the_run_on_overrun() {
    let Some(_g) = guard("a_partition_that_cannot_be_held_in_time_fails_the_run_on_overrun") else {
        return;
    };
    let dir = scratch("hm-overrun");
    let m = module(&dir, "overrun", 100, &[p("hog", "overrun", (0, 20))], "");
    let logs = dir.join("logs");
    let logs = logs.to_str().unwrap();
    let (out, report) = run(
        &dir,
        &m,
        &[
            "--duration",
            "1s",
            "--quiet",
            "--log-dir",
            logs,
            "--fail-on",
            "overrun",
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(6), "{}\n{report}", text(&out));
    let hog = &report["partitions"][0];
    let overruns = hog["overruns"].as_u64().unwrap_or(0);
    let max_ns = hog["overrun"]["max"].as_u64().unwrap_or(0);
    // Over the tolerance (100 us), by far: the rest of a call of tens of ms.
    assert!(overruns >= 1 && max_ns > 1_000_000, "{report}");
    let failing: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("partita: failing (exit 6): "))
        .collect();
    assert_eq!(failing.len(), 1, "{err}");
    assert!(
        failing[0].contains(&format!("partition hog: {overruns} window overrun(s)")),
        "{err}"
    );
    // The summary's line of the partition (on stderr) says so too.
    let line = err
        .lines()
        .find(|l| l.trim_start().starts_with("partition hog (id 1): "))
        .unwrap_or_else(|| panic!("no summary line for hog\n{err}"));
    assert!(
        line.contains(&format!(" {overruns} overruns (max ")),
        "{line}"
    );
    // It did spend its time in those calls (and none failed).
    let log = std::fs::read_to_string(partita_manager::partition_log(&dir.join("logs"), "hog"))
        .unwrap_or_default();
    assert!(log.contains("OVERRUN hog populating"), "{log}");
    assert!(!log.contains("ERROR"), "{log}");
    // The same run without the flag: the module did what its tables say.
    let (out, report) = run(&dir, &m, &["--duration", "1s", "--quiet"]);
    assert_eq!(out.status.code(), Some(0), "{}\n{report}", text(&out));
    assert!(
        report["partitions"][0]["overruns"].as_u64().unwrap_or(0) >= 1,
        "{report}"
    );
}

/// `partita run --fail-on`: a run whose partitions die, restart, miss deadlines or never
/// reach NORMAL exits 0 by default (the module did what its HM tables say) and with the
/// status of each concern asked for; the lowest status wins when several apply; a healthy
/// run exits 0 even with `--fail-on all`; the summary flags a partition that never reached
/// NORMAL.
#[test]
fn fail_on_turns_each_concern_into_its_exit_status() {
    let Some(_g) = guard("fail_on_turns_each_concern_into_its_exit_status") else {
        return;
    };
    let dir = scratch("hm-fail-on");
    let steady = || {
        let mut s = p("steady", "steady", (50, 30));
        s.args = vec!["50000000".into(), "100000000".into()];
        s
    };
    // Runs `parts` with `--fail-on` `what` (none: no flag); the exit status and stderr.
    let status = |name: &str, parts: &[P], tables: &str, what: Option<&str>| {
        let m = module(&dir, name, 100, parts, tables);
        let mut extra = vec!["--duration", "1s", "--quiet"];
        if let Some(w) = what {
            extra.extend(["--fail-on", w]);
        }
        let (out, _) = run(&dir, &m, &extra);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // A healthy module fails on nothing; the old flag is still accepted.
    let healthy = [steady()];
    assert_eq!(status("healthy", &healthy, "", Some("all")).0, Some(0));
    let m = module(&dir, "healthy", 100, &healthy, "");
    let (out, _) = run(&dir, &m, &["--duration", "500ms", "--fail-on-overrun"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));

    // A partition that exits after reaching NORMAL (default action: IDLE, no restart).
    let exits = [p("dies", "exit", (0, 20)), steady()];
    for (what, code) in [
        (None, 0),
        (Some("restart,start,deadline"), 0),
        (Some("exit"), 10),
        (Some("hm"), 13),
        (Some("hm,exit"), 10),
    ] {
        let (c, err) = status("exits", &exits, "", what);
        assert_eq!(c, Some(code), "--fail-on {what:?}\n{err}");
        if code == 10 {
            assert!(
                err.contains("partition dies: its process ended 1 time(s)"),
                "{err}"
            );
        }
    }

    // A process missing its deadline (recorded, handled at PROCESS level).
    let misses = [p("late", "deadline", (0, 30)), steady()];
    for (what, code) in [(None, 0), (Some("exit,restart"), 0), (Some("deadline"), 12)] {
        let (c, err) = status("misses", &misses, "", what);
        assert_eq!(c, Some(code), "--fail-on {what:?}\n{err}");
    }

    // A partition crashing in its main process, restarted (COLD_START) each time: it never
    // reaches NORMAL; one dying in NORMAL, restarted too (WARM_START), did reach it.
    let crashes = [
        p("crasher", "segv-main", (0, 20)),
        p("killed", "sigsys", (25, 20)),
        steady(),
    ];
    for (what, code) in [
        (None, 0),
        (Some("restart"), 11),
        (Some("start"), 14),
        (Some("start,restart"), 11),
        (Some("deadline"), 0),
    ] {
        let (c, err) = status("crashes", &crashes, RESTARTING_TABLES, what);
        assert_eq!(c, Some(code), "--fail-on {what:?}\n{err}");
        let flagged: Vec<&str> = err
            .lines()
            .filter(|l| l.contains("NEVER REACHED NORMAL"))
            .collect();
        assert_eq!(flagged.len(), 1, "{err}");
        assert!(flagged[0].contains("partition crasher "), "{err}");
    }
}
