// SPDX-License-Identifier: MIT OR Apache-2.0
//! Multiple module schedules (ARINC 653 Part 2) in the configuration: the schedule-change
//! action and SetModuleSchedule reach the compiled plan; bad values and clashing implicit
//! identifiers are reported with their positions.

use partita_config::check_file;
use partita_config::model::ScheduleChangeAction;
use std::path::PathBuf;

fn write(name: &str, body: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("msched-config");
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("true.sh");
    std::fs::write(&exe, "#!/bin/sh\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    path
}

const PARTS: &str = r#"  <Partition PartitionIdentifier="1" PartitionName="SYS" Criticality="LEVEL_A" SystemPartition="true" EntryPoint="true.sh"/>
  <Partition PartitionIdentifier="2" PartitionName="APP" Criticality="LEVEL_C" EntryPoint="true.sh"/>
"#;

fn module(schedules: &str) -> String {
    format!("<?xml version=\"1.0\"?>\n<ARINC_653_Module ModuleName=\"m\">\n{PARTS}{schedules}</ARINC_653_Module>\n")
}

const TWO: &str = r#"  <Module_Schedule ScheduleIdentifier="1" ScheduleName="init" MajorFrameSeconds="0.1" InitialModuleSchedule="true">
    <Partition_Schedule PartitionIdentifier="1" PeriodSeconds="0.1" PeriodDurationSeconds="0.08" SetModuleSchedule="true">
      <Window_Schedule WindowIdentifier="1" WindowStartSeconds="0" WindowDurationSeconds="0.08"/>
    </Partition_Schedule>
  </Module_Schedule>
  <Module_Schedule ScheduleIdentifier="2" ScheduleName="running" MajorFrameSeconds="0.05">
    <Partition_Schedule PartitionIdentifier="1" PeriodSeconds="0.05" PeriodDurationSeconds="0.01" SetModuleSchedule="false">
      <Window_Schedule WindowIdentifier="1" WindowStartSeconds="0" WindowDurationSeconds="0.01"/>
    </Partition_Schedule>
    <Partition_Schedule PartitionIdentifier="2" PeriodSeconds="0.05" PeriodDurationSeconds="0.02" ScheduleChangeAction="COLD_START">
      <Window_Schedule WindowIdentifier="2" WindowStartSeconds="0.02" WindowDurationSeconds="0.02"/>
    </Partition_Schedule>
  </Module_Schedule>
"#;

#[test]
fn actions_and_rights_reach_the_plan() {
    let path = write("two.xml", &module(TWO));
    let out = check_file(&path).unwrap();
    let plan = out.plan.unwrap_or_else(|| panic!("{:?}", out.diagnostics));
    assert_eq!(plan.schedules.len(), 2);
    assert_eq!(plan.initial_schedule, 0);
    let init = &plan.schedules[0];
    assert_eq!(init.name.as_deref(), Some("init"));
    let sys = init.partition(0).unwrap();
    assert!(sys.set_module_schedule);
    assert_eq!(sys.change_action, ScheduleChangeAction::Ignore);
    // APP is absent from the initialisation schedule.
    assert!(init.partition(1).is_none());
    let run = &plan.schedules[1];
    assert_eq!(run.id, 2);
    assert!(!run.partition(0).unwrap().set_module_schedule);
    let app = run.partition(1).unwrap();
    assert_eq!(app.change_action, ScheduleChangeAction::ColdStart);
    assert_eq!(app.period_origin, 20_000_000);
}

#[test]
fn bad_action_is_a_bad_enum_at_its_value() {
    let body = module(&TWO.replace("COLD_START", "IDLE"));
    let path = write("bad-action.xml", &body);
    let out = check_file(&path).unwrap();
    let d: Vec<_> = out
        .diagnostics
        .iter()
        .map(|d| (d.rule.name(), d.line, d.message.clone()))
        .collect();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].0, "bad-enum");
    assert_eq!(d[0].1, 14);
    assert!(d[0].2.contains("IDLE"), "{d:?}");
}

#[test]
fn implicit_identifier_clash_is_reported() {
    // The second schedule has no identifier: it is numbered 1 (its position), like the first.
    let body = module(&TWO.replace("ScheduleIdentifier=\"2\" ", ""));
    let path = write("implicit.xml", &body);
    let out = check_file(&path).unwrap();
    let d: Vec<_> = out
        .diagnostics
        .iter()
        .map(|d| (d.rule.name(), d.line, d.column))
        .collect();
    assert_eq!(d, vec![("duplicate-schedule-id", 10, 3)]);
}

#[test]
fn identifier_must_fit_schedule_id_type() {
    let body = module(&TWO.replace(
        "ScheduleIdentifier=\"2\"",
        "ScheduleIdentifier=\"2147483648\"",
    ));
    let path = write("big-id.xml", &body);
    let out = check_file(&path).unwrap();
    let rules: Vec<_> = out.diagnostics.iter().map(|d| d.rule.name()).collect();
    assert_eq!(rules, vec!["bad-number"]);
}
