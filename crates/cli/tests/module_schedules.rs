// SPDX-License-Identifier: MIT OR Apache-2.0
//! Multiple module schedules (ARINC 653 Part 2) end to end: an initialisation schedule in
//! which the system partition runs long windows, a running schedule, and a spare one. The
//! system partition (tests/partitions/msched.c) checks the error cases, requests the spare
//! schedule and then the running one in the same major frame, and reports the schedule status
//! at every activation; two normal partitions are refused. One run serves every test here.

mod common;
use common::*;
use serde_json::Value;
use std::sync::OnceLock;

const MS: u64 = 1_000_000;
/// Major frames of the three schedules.
const INIT_MF: u64 = 100 * MS;
const RUN_MF: u64 = 50 * MS;

struct Run {
    stdout: String,
    report: Value,
    log: String,
    text: String,
}

/// `<Partition>` of the msched test partition with `args` and the run's token.
fn part(token: &str, id: u32, name: &str, system: bool, args: &[&str]) -> String {
    let exe = partition_exe("msched");
    {
        let mut x = format!(
            "  <Partition PartitionIdentifier=\"{id}\" PartitionName=\"{name}\" Criticality=\"LEVEL_A\" SystemPartition=\"{system}\">\n    <partita:Executable path=\"{}\">\n",
            exe.display()
        );
        for a in args {
            x += &format!("      <partita:Arg>{a}</partita:Arg>\n");
        }
        x += &format!(
            "      <partita:Arg>{token}</partita:Arg>\n    </partita:Executable>\n  </Partition>\n"
        );
        x
    }
}

fn module(dir: &std::path::Path, token: &str) -> std::path::PathBuf {
    let part = |id, name, system, args: &[&str]| part(token, id, name, system, args);
    let mut x = String::from(
        "<?xml version=\"1.0\"?>\n<ARINC_653_Module xmlns:partita=\"urn:partita:1\" ModuleName=\"msched\">\n",
    );
    x += &part(1, "sys", true, &["sys", "sys", "running", "spare", "-"]);
    x += &part(2, "app", false, &["app", "app", "running"]);
    x += &part(3, "boot", false, &["boot", "app", "running"]);
    x += r#"  <Module_Schedule ScheduleIdentifier="1" ScheduleName="init" MajorFrameSeconds="0.1" InitialModuleSchedule="true">
    <Partition_Schedule PartitionIdentifier="1" PartitionName="sys" PeriodSeconds="0.1" PeriodDurationSeconds="0.08">
      <Window_Schedule WindowIdentifier="1" WindowStartSeconds="0" WindowDurationSeconds="0.08" PartitionPeriodStart="true"/>
    </Partition_Schedule>
    <Partition_Schedule PartitionIdentifier="3" PartitionName="boot" PeriodSeconds="0.1" PeriodDurationSeconds="0.08">
      <Window_Schedule WindowIdentifier="2" WindowStartSeconds="0.01" WindowDurationSeconds="0.08" PartitionPeriodStart="true" partita:Core="1"/>
    </Partition_Schedule>
  </Module_Schedule>
  <Module_Schedule ScheduleIdentifier="2" ScheduleName="running" MajorFrameSeconds="0.05">
    <Partition_Schedule PartitionIdentifier="1" PartitionName="sys" PeriodSeconds="0.05" PeriodDurationSeconds="0.01">
      <Window_Schedule WindowIdentifier="1" WindowStartSeconds="0" WindowDurationSeconds="0.01" PartitionPeriodStart="true"/>
    </Partition_Schedule>
    <Partition_Schedule PartitionIdentifier="2" PartitionName="app" PeriodSeconds="0.05" PeriodDurationSeconds="0.02" ScheduleChangeAction="COLD_START">
      <Window_Schedule WindowIdentifier="2" WindowStartSeconds="0" WindowDurationSeconds="0.02" PartitionPeriodStart="true" partita:Core="1"/>
    </Partition_Schedule>
  </Module_Schedule>
  <Module_Schedule ScheduleIdentifier="3" ScheduleName="spare" MajorFrameSeconds="0.1">
    <Partition_Schedule PartitionIdentifier="1" PartitionName="sys" PeriodSeconds="0.1" PeriodDurationSeconds="0.02">
      <Window_Schedule WindowIdentifier="1" WindowStartSeconds="0" WindowDurationSeconds="0.02"/>
    </Partition_Schedule>
  </Module_Schedule>
</ARINC_653_Module>
"#;
    let path = dir.join("msched.xml");
    std::fs::write(&path, x).unwrap();
    path
}

/// Runs the module once (under the end-to-end lock); `None` when the host cannot.
fn run() -> Option<&'static Run> {
    static RUN: OnceLock<Option<Run>> = OnceLock::new();
    once(&RUN, "module-schedules", |dir| {
        let token = format!("msched-token-{}", std::process::id());
        let m = module(dir, &token);
        let (out, report) = run_reported(dir, &m, "1.5s", ("--log-dir", "logs"), &token);
        Run {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            report,
            log: std::fs::read_to_string(dir.join("logs/module.log")).unwrap(),
            text: text(&out),
        }
    })
}

/// `key=value` fields of the `MS <who> <what>` lines.
fn lines<'a>(r: &'a Run, who: &str, what: &str) -> Vec<Vec<(&'a str, &'a str)>> {
    tagged_fields(&r.stdout, &format!("MS {who} {what} "))
}

fn the_switch(r: &Run) -> &Value {
    let sw = r.report["schedule_switches"].as_array().unwrap();
    assert_eq!(sw.len(), 1, "exactly one switch: {}", r.text);
    &sw[0]
}

#[test]
fn switch_happens_exactly_at_a_major_frame_boundary() {
    let Some(r) = run() else { return };
    let sw = the_switch(r);
    let at = sw["at_ns"].as_u64().unwrap();
    assert_eq!(sw["from"], 1);
    assert_eq!(sw["to"], 2, "the second request of the frame wins: {sw}");
    assert_eq!(sw["requested_by"], "sys");
    assert_eq!(sw["from_start_ns"], 0);
    // The switch instant is a frame start of the initialisation schedule...
    assert_eq!(at % INIT_MF, 0, "{sw}");
    assert_eq!(at, sw["from_frames"].as_u64().unwrap() * INIT_MF);
    // ... the end of the frame in which the request was made.
    let req = &lines(r, "sys", "second-request")[0];
    let (before, after) = (field(req, "before") as u64, field(req, "after") as u64);
    let end_of = |t: u64| (t / INIT_MF + 1) * INIT_MF;
    assert!(
        at == end_of(before) || at == end_of(after),
        "switch at {at}, request between {before} and {after}"
    );
    // The window trace: every window of the old schedule planned before the switch, every
    // window of the new one counted from it, on both cores, none lost.
    assert_eq!(r.report["window_trace_dropped"], 0);
    let trace = r.report["window_trace"].as_array().unwrap();
    let mut last_old_frame = 0;
    let mut new_cores = std::collections::BTreeSet::new();
    for w in trace {
        let planned = w["planned_ns"].as_u64().unwrap();
        let frame = w["frame"].as_u64().unwrap();
        assert!(w["actual_ns"].as_u64().unwrap() >= planned, "{w}");
        match w["schedule"].as_i64().unwrap() {
            1 => {
                assert!(planned < at, "old-schedule window at/after the switch: {w}");
                assert_eq!(planned / INIT_MF, frame, "{w}");
                last_old_frame = last_old_frame.max(frame);
            }
            2 => {
                assert!(planned >= at, "new-schedule window before the switch: {w}");
                // Both windows of the running schedule start at offset 0 of its frame.
                assert_eq!(planned, at + frame * RUN_MF, "{w}");
                if frame == 0 {
                    new_cores.insert(w["core"].as_u64().unwrap());
                }
            }
            s => panic!("schedule {s} never ran: {w}"),
        }
    }
    assert_eq!(last_old_frame + 1, sw["from_frames"].as_u64().unwrap());
    assert_eq!(
        new_cores.into_iter().collect::<Vec<_>>(),
        vec![0, 1],
        "both cores start the new schedule at the switch instant"
    );
    assert_eq!(r.report["final_schedule"], 2);
    // The module log records it with its exact time.
    let secs = format!("t={}.{:09} s", at / 1_000_000_000, at % 1_000_000_000);
    assert!(
        r.log
            .lines()
            .any(|l| l.contains("module schedule switch at") && l.contains(&secs)),
        "{}",
        r.log
    );
}

#[test]
fn error_cases_return_part2_codes() {
    let Some(r) = run() else { return };
    // INVALID_CONFIG (4) for an unknown name, INVALID_PARAM (3) for an unknown identifier,
    // NO_ACTION (1) for the current schedule, NO_ERROR for both real requests.
    assert_eq!(
        field(&lines(r, "sys", "unknown-name")[0], "rc"),
        4,
        "{}",
        r.text
    );
    assert_eq!(
        field(&lines(r, "sys", "invalid-id")[0], "rc"),
        3,
        "{}",
        r.text
    );
    assert_eq!(field(&lines(r, "sys", "current")[0], "rc"), 1, "{}", r.text);
    assert_eq!(field(&lines(r, "sys", "first-request")[0], "rc"), 0);
    assert_eq!(field(&lines(r, "sys", "second-request")[0], "rc"), 0);
    assert!(r.stdout.contains("MS sys id running=2 rc=0"), "{}", r.text);
    assert!(r.stdout.contains("MS sys id spare=3 rc=0"), "{}", r.text);
}

#[test]
fn normal_partitions_are_refused() {
    let Some(r) = run() else { return };
    // boot runs in the initialisation schedule, app (after its restart) in the running one.
    for who in ["boot", "app"] {
        let l = lines(r, who, "refused");
        assert!(!l.is_empty(), "{who} never tried: {}", r.text);
        assert_eq!(field(&l[0], "rc"), 4, "{who}: INVALID_CONFIG");
    }
    // GET_MODULE_SCHEDULE_STATUS is open to them.
    for l in lines(r, "app", "tick") {
        assert_eq!(field(&l, "rc"), 0);
        assert_eq!(field(&l, "cur"), 2);
    }
    assert_eq!(r.report["schedule_requests_rejected"], 0);
}

#[test]
fn status_is_pending_until_the_switch_then_current() {
    let Some(r) = run() else { return };
    let at = the_switch(r)["at_ns"].as_i64().unwrap();
    let first = &lines(r, "sys", "pending-first")[0];
    assert_eq!((field(first, "cur"), field(first, "next")), (1, 3));
    let pending = &lines(r, "sys", "pending")[0];
    assert_eq!(
        (
            field(pending, "cur"),
            field(pending, "next"),
            field(pending, "last")
        ),
        (1, 2, 0),
        "the second request replaced the first"
    );
    // Another partition sees the pending change too, before the switch.
    let after_req = field(&lines(r, "sys", "second-request")[0], "after");
    let seen: Vec<_> = lines(r, "boot", "mid")
        .into_iter()
        .filter(|l| field(l, "t") > after_req && field(l, "t") < at)
        .collect();
    assert!(!seen.is_empty(), "{}", r.text);
    for l in &seen {
        assert_eq!((field(l, "cur"), field(l, "next")), (1, 2), "{l:?}");
    }
    // ... and nothing pending before the requests.
    let before_req = field(&lines(r, "sys", "second-request")[0], "before");
    for l in lines(r, "boot", "mid")
        .iter()
        .chain(&lines(r, "boot", "tick"))
    {
        if field(l, "t") < before_req {
            assert_eq!((field(l, "cur"), field(l, "next")), (1, 1), "{l:?}");
        }
    }
    let ticks = lines(r, "sys", "tick");
    let (mut before, mut after) = (0, 0);
    for l in &ticks {
        let t = field(l, "t");
        if t < at {
            before += 1;
            assert_eq!(field(l, "cur"), 1);
            assert_eq!(field(l, "period"), INIT_MF as i64);
            assert_eq!(field(l, "last"), 0);
        } else {
            after += 1;
            assert_eq!((field(l, "cur"), field(l, "next")), (2, 2), "{l:?}");
            assert_eq!(field(l, "last"), at);
            // GET_PARTITION_STATUS reports the running schedule's period and duration.
            assert_eq!(field(l, "period"), RUN_MF as i64);
            assert_eq!(field(l, "duration"), 10 * MS as i64);
        }
    }
    assert!(
        before >= 3 && after >= 3,
        "{before} ticks before, {after} after: {}",
        r.text
    );
}

#[test]
fn cold_start_action_is_carried_out() {
    let Some(r) = run() else { return };
    let sw = the_switch(r);
    assert_eq!(sw["restarted"], serde_json::json!(["app"]));
    let app = &r.report["partitions"][1];
    assert_eq!(app["name"], "app");
    assert_eq!(app["restarts"], 1, "{app}");
    // Its first incarnation never had a window; the restarted one starts with
    // PARTITION_RESTART and the running schedule's period.
    let init = lines(r, "app", "init");
    assert_eq!(init.len(), 1, "{}", r.text);
    assert_eq!(field(&init[0], "start_condition"), 1);
    assert_eq!(field(&init[0], "period"), RUN_MF as i64);
    assert!(field(&init[0], "t") >= sw["at_ns"].as_i64().unwrap());
    assert!(lines(r, "app", "tick").len() >= 3, "{}", r.text);
    assert!(
        r.log.contains("partition app restarts in COLD_START"),
        "{}",
        r.log
    );
}

#[test]
fn partition_absent_from_new_schedule_gets_no_windows() {
    let Some(r) = run() else { return };
    let at = the_switch(r)["at_ns"].as_u64().unwrap();
    let boot = 2;
    let trace = r.report["window_trace"].as_array().unwrap();
    let windows: Vec<u64> = trace
        .iter()
        .filter(|w| w["partition"] == boot)
        .map(|w| w["planned_ns"].as_u64().unwrap())
        .collect();
    assert!(
        windows.len() >= 2,
        "boot ran in the initialisation schedule"
    );
    assert!(windows.iter().all(|&p| p < at), "{windows:?} vs {at}");
    let ticks = lines(r, "boot", "tick");
    assert!(!ticks.is_empty());
    assert!(
        ticks.iter().all(|l| (field(l, "t") as u64) < at),
        "{}",
        r.text
    );
    // It stays alive (held), in NORMAL mode.
    assert_eq!(r.report["partitions"][2]["mode"], "NORMAL");
    assert!(r.report["partitions"][2]["exit"].is_null());
}

/// The example (examples/module-schedules): the startup manager alone in the initialisation
/// schedule, then the running schedule once its work is done; the applications start only
/// then.
#[test]
fn example_switches_after_the_startup_work() {
    let _serial = serial();
    if let Err(r) = capable() {
        return skip("example_switches_after_the_startup_work", &r);
    }
    let src = repo().join("examples/module-schedules");
    let dir = scratch("module-schedules-example");
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    for name in ["startup", "app"] {
        let out = partita()
            .args(["cc", "-O2", "-Wall", "-Werror"])
            .arg(src.join(format!("{name}.c")))
            .arg("-o")
            .arg(dir.join("bin").join(name))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
    }
    std::fs::copy(src.join("module.xml"), dir.join("module.xml")).unwrap();
    let out = partita()
        .args(["run", "--duration", "1.5s", "--json"])
        .arg(dir.join("report.json"))
        .arg(dir.join("module.xml"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    let sw = report["schedule_switches"].as_array().unwrap();
    assert_eq!(sw.len(), 1, "{}", text(&out));
    assert_eq!(sw[0]["from_name"], "initialisation");
    assert_eq!(sw[0]["to_name"], "running");
    assert_eq!(sw[0]["requested_by"], "startup");
    let at = sw[0]["at_ns"].as_u64().unwrap();
    assert_eq!(at % INIT_MF, 0);
    let ms_of = |l: &str, key: &str| -> f64 {
        let rest = &l[l.find(key).unwrap() + key.len()..];
        rest.split_whitespace().next().unwrap().parse().unwrap()
    };
    let done = stdout
        .lines()
        .find(|l| l.contains("startup: initialisation done at"))
        .unwrap_or_else(|| panic!("{}", text(&out)));
    assert!(done.contains("SET_MODULE_SCHEDULE(2) -> 0"), "{done}");
    let done_ms = ms_of(done, "done at ");
    assert_eq!(
        at,
        ((done_ms * 1e6) as u64 / INIT_MF + 1) * INIT_MF,
        "{done}"
    );
    for app in ["nav", "display"] {
        let init = stdout
            .lines()
            .find(|l| l.contains(&format!("{app}: initialisation at")))
            .unwrap_or_else(|| panic!("{app} never started: {}", text(&out)));
        assert!(
            ms_of(init, "initialisation at ") * 1e6 >= at as f64,
            "{init}"
        );
        assert!(
            stdout.contains(&format!("{app}: activation 3 ")),
            "{}",
            text(&out)
        );
    }
}

/// A schedule that withdraws the right to switch (`SetModuleSchedule="false"`), and a
/// WARM_START schedule-change action for a partition that runs in both schedules.
#[test]
fn set_module_schedule_false_and_warm_start() {
    let _serial = serial();
    if let Err(r) = capable() {
        return skip("set_module_schedule_false_and_warm_start", &r);
    }
    let dir = scratch("module-schedules-warm");
    let token = format!("msched-warm-{}", std::process::id());
    let mut x = String::from(
        "<?xml version=\"1.0\"?>\n<ARINC_653_Module xmlns:partita=\"urn:partita:1\" ModuleName=\"warm\">\n",
    );
    x += &part(&token, 1, "sys", true, &["sys", "sys", "B", "B", "A"]);
    x += &part(&token, 2, "app", false, &["app", "app", "B"]);
    x += r#"  <Module_Schedule ScheduleIdentifier="10" ScheduleName="A" MajorFrameSeconds="0.1" InitialModuleSchedule="true">
    <Partition_Schedule PartitionIdentifier="1" PeriodSeconds="0.1" PeriodDurationSeconds="0.04">
      <Window_Schedule WindowIdentifier="1" WindowStartSeconds="0" WindowDurationSeconds="0.04"/>
    </Partition_Schedule>
    <Partition_Schedule PartitionIdentifier="2" PeriodSeconds="0.1" PeriodDurationSeconds="0.03">
      <Window_Schedule WindowIdentifier="2" WindowStartSeconds="0.05" WindowDurationSeconds="0.03"/>
    </Partition_Schedule>
  </Module_Schedule>
  <Module_Schedule ScheduleIdentifier="20" ScheduleName="B" MajorFrameSeconds="0.1">
    <Partition_Schedule PartitionIdentifier="1" PeriodSeconds="0.1" PeriodDurationSeconds="0.02" SetModuleSchedule="false">
      <Window_Schedule WindowIdentifier="1" WindowStartSeconds="0" WindowDurationSeconds="0.02"/>
    </Partition_Schedule>
    <Partition_Schedule PartitionIdentifier="2" PeriodSeconds="0.05" PeriodDurationSeconds="0.01" ScheduleChangeAction="WARM_START">
      <Window_Schedule WindowIdentifier="2" WindowStartSeconds="0.03" WindowDurationSeconds="0.02"/>
      <Window_Schedule WindowIdentifier="3" WindowStartSeconds="0.06" WindowDurationSeconds="0.02"/>
    </Partition_Schedule>
  </Module_Schedule>
</ARINC_653_Module>
"#;
    let m = dir.join("warm.xml");
    std::fs::write(&m, x).unwrap();
    let out = partita()
        .args(["run", "--duration", "2s", "--json"])
        .arg(dir.join("report.json"))
        .arg(&m)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(processes_with(&token).is_empty());
    let r = Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        report: serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap())
            .unwrap(),
        log: String::new(),
        text: text(&out),
    };
    let sw = the_switch(&r);
    assert_eq!(
        (sw["from"].as_i64(), sw["to"].as_i64()),
        (Some(10), Some(20))
    );
    let at = sw["at_ns"].as_i64().unwrap();
    assert_eq!(at % 100_000_000, 0);
    // In B the system partition may not switch any more.
    let late = lines(&r, "sys", "late-request");
    assert_eq!(late.len(), 1, "{}", r.text);
    assert_eq!(field(&late[0], "id"), 10);
    assert_eq!(field(&late[0], "rc"), 4, "INVALID_CONFIG");
    assert_eq!(r.report["final_schedule"], 20);
    // app was restarted in WARM_START at the switch, with B's period.
    let inits = lines(&r, "app", "init");
    assert_eq!(inits.len(), 2, "{}", r.text);
    assert_eq!(
        (
            field(&inits[0], "start_condition"),
            field(&inits[0], "mode")
        ),
        (0, 1),
        "first start: NORMAL_START in COLD_START"
    );
    assert_eq!(
        (
            field(&inits[1], "start_condition"),
            field(&inits[1], "mode")
        ),
        (1, 2),
        "restart: PARTITION_RESTART in WARM_START"
    );
    assert_eq!(field(&inits[1], "period"), 50_000_000);
    assert!(field(&inits[1], "t") >= at);
    assert_eq!(r.report["partitions"][1]["restarts"], 1);
    assert_eq!(sw["restarted"], serde_json::json!(["app"]));
}
