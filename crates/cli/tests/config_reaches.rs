// SPDX-License-Identifier: MIT OR Apache-2.0
//! Every value the configuration can set reaches the process that uses it.
//!
//! One module sets each configurable value to a distinctive, non-default value; the C
//! partition tests/partitions/config_probe.c prints what it sees through APEX calls, and the
//! run report (`--json`) shows what the manager did. Each test below checks one group of
//! values where it is used. One run serves every test.
//!
//! | configured                                   | observed                                        |
//! |----------------------------------------------|-------------------------------------------------|
//! | `PartitionIdentifier`                        | GET_PARTITION_STATUS.IDENTIFIER; report `id`    |
//! | `PartitionName`                              | report `partitions[].name`, logbook `partition` |
//! | `SystemPartition`                            | GET_A_PARTITION_STATUS.SYSTEM_PARTITION; refused for a normal partition |
//! | `partita:Executable` path and `partita:Arg`s | the probe runs and sees its arguments           |
//! | `partita:Resources cores`, `partita:Core`    | NUM_ASSIGNED_CORES, GET_MY_PROCESSOR_CORE_ID, the CPU a pinned process runs on, report window trace |
//! | `partita:Resources memoryBytes`              | the partition's memory cgroup limit             |
//! | `Partition_Memory` sizes                     | the partition's memory cgroup limit (their sum) |
//! | `Memory_Requirements` `RegionName`, with `SizeBytes`, `Access` | GET_MEMORY_BLOCK_STATUS (size, mode; a READ_WRITE block is writable) |
//! | `partita:Resources maxProcesses`             | CREATE_PROCESS refused past that number         |
//! | `partita:Resources stackBytes`               | CREATE_PROCESS refused past that stack total    |
//! | `partita:ProcessScheduling policy="EDF"`     | the earlier deadline runs before the higher priority |
//! | `PeriodSeconds`, `PeriodDurationSeconds`     | GET_PARTITION_STATUS.PERIOD / DURATION, in both schedules |
//! | `PartitionPeriodStart` (period origin)       | release times of a periodic process             |
//! | sampling ports (size, direction, refresh)    | CREATE refused with another size; GET_SAMPLING_PORT_STATUS; a message crosses |
//! | queuing ports (size, messages, direction)    | CREATE refused with another size or count; GET_QUEUING_PORT_STATUS; a message crosses |
//! | `Channel`                                    | the messages arrive at the configured peer; report `channels` |
//! | `System_HM_Table`, `Partition_HM_Table`      | the error's identifier, level and action in the logbook; the partition restarts as configured |
//! | `Module_HM_Table`                            | a MODULE-level error is ignored (the default is SHUTDOWN): logbook; the run goes on |
//! | `Module_Schedule` ids, names, frames, windows | GET_MODULE_SCHEDULE_ID, GET_MODULE_SCHEDULE_STATUS, report switches and window trace |
//! | `SetModuleSchedule`                          | the system partition's request is accepted      |
//! | `ScheduleChangeAction`                       | START_CONDITION and OPERATING_MODE after the switch |
//! | `ModuleName`                                 | report `module`                                 |
//! | `partita:Backend`                            | report `backend`                                |
//!
//! Not observable from a partition or the report, and why:
//! - `Criticality`, `EntryPoint`, `partita:Process` (period, WCET, deadline, priority),
//!   `Memory_Requirements` `Type`/`PhysicalAddress` (and `Access` of an unnamed one): inputs of schedule synthesis
//!   (`partita schedule`) and documentation; nothing at run time uses them (a Linux process
//!   has no physical placement).
//! - `ModuleVersion`, `ModuleId`, `Description`s, `ChannelName`, `WindowIdentifier`: names
//!   for people and diagnostics; nothing at run time uses them.
//! - The queuing discipline is not part of the configuration: it is an argument of
//!   CREATE_QUEUING_PORT.
//! - `Module_HM_Table` RESET and SHUTDOWN act on the whole module, which would erase the
//!   other observations of this run: hm.rs checks them in runs of their own; here the module
//!   table turns the default SHUTDOWN into IGNORE.
//! - Pseudo-partition endpoints (UDP, file, named pipe): ports_pseudo.rs.
//! - `partita:GeneralPurpose` (background, network link, binds) of a general-purpose
//!   partition, which has no APEX to probe with: cohost.rs.

mod common;
use common::*;
use serde_json::Value;
use std::sync::OnceLock;

const MS: i64 = 1_000_000;
/// `partita:Resources memoryBytes` of the probe (a page multiple: the kernel keeps it as is).
const PROBE_MEMORY: i64 = 50_360_320;
/// The peer's two `Memory_Requirements`.
const PEER_MEMORY: [i64; 2] = [20 << 20, (12 << 20) + 3 * 4096];
/// `partita:Resources stackBytes` of the probe.
const PROBE_STACK: i64 = 800_000;
/// `partita:Resources maxProcesses` of the peer.
const PEER_PROCESSES: i64 = 4;
/// Sampling and queuing port sizes, queue length and refresh period.
const SAMPLING_SIZE: i64 = 37;
const QUEUING_SIZE: i64 = 53;
const QUEUING_MESSAGES: i64 = 7;
const REFRESH: i64 = 250 * MS;
/// Return codes and enumerations of the C API.
const NO_ERROR: i64 = 0;
const INVALID_CONFIG: i64 = 4;
const SOURCE: i64 = 0;
const DESTINATION: i64 = 1;
const COLD_START: i64 = 1;
const WARM_START: i64 = 2;
const NORMAL_START: i64 = 0;
const PARTITION_RESTART: i64 = 1;
const HM_PARTITION_RESTART: i64 = 3;

struct Run {
    stdout: String,
    report: Value,
    logbook: Vec<Value>,
    text: String,
}

fn partition(
    id: u32,
    name: &str,
    criticality: &str,
    system: bool,
    inner: &str,
    ports: &[&str],
) -> String {
    let exe = partition_exe("config_probe");
    let mut x = format!(
        "  <Partition PartitionIdentifier=\"{id}\" PartitionName=\"{name}\" Criticality=\"{criticality}\" SystemPartition=\"{system}\" EntryPoint=\"main\">\n    <partita:Executable path=\"{}\">\n      <partita:Arg>{name}</partita:Arg>\n      <partita:Arg>{}</partita:Arg>\n",
        exe.display(),
        token()
    );
    for p in ports {
        x += &format!("      <partita:Arg>{p}</partita:Arg>\n");
    }
    x += "    </partita:Executable>\n";
    x += inner;
    x += "  </Partition>\n";
    x
}

/// Marks the processes of this run.
fn token() -> String {
    format!("config-reaches-{}", std::process::id())
}

fn module(dir: &std::path::Path) -> std::path::PathBuf {
    let mut x = String::from(
        "<?xml version=\"1.0\"?>\n<ARINC_653_Module xmlns:partita=\"urn:partita:1\" ModuleName=\"config_reaches\" ModuleVersion=\"3.1\">\n",
    );
    let s_out = format!("S:s_out:{SAMPLING_SIZE}:SOURCE:0");
    let q_out = format!("Q:q_out:{QUEUING_SIZE}:{QUEUING_MESSAGES}:SOURCE");
    let s_in = format!("S:s_in:{SAMPLING_SIZE}:DESTINATION:{REFRESH}");
    let q_in = format!("Q:q_in:{QUEUING_SIZE}:{QUEUING_MESSAGES}:DESTINATION");
    x += "  <partita:Backend name=\"signals\"/>\n";
    x += &partition(
        11,
        "probe",
        "LEVEL_B",
        false,
        &format!(
            "    <Sampling_Port Name=\"s_out\" MaxMessageSize=\"{SAMPLING_SIZE}\" Direction=\"SOURCE\"/>
    <Queuing_Port Name=\"q_out\" MaxMessageSize=\"{QUEUING_SIZE}\" Direction=\"SOURCE\" MaxNbMessages=\"{QUEUING_MESSAGES}\"/>
    <partita:Resources cores=\"0,1\" memoryBytes=\"{PROBE_MEMORY}\" maxProcesses=\"9\" stackBytes=\"{PROBE_STACK}\"/>\n"
        ),
        &[&s_out, &q_out],
    );
    x += &partition(
        12,
        "peer",
        "LEVEL_C",
        false,
        &format!(
            "    <Sampling_Port Name=\"s_in\" MaxMessageSize=\"{SAMPLING_SIZE}\" Direction=\"DESTINATION\" RefreshRateSeconds=\"0.25\"/>
    <Queuing_Port Name=\"q_in\" MaxMessageSize=\"{QUEUING_SIZE}\" Direction=\"DESTINATION\" MaxNbMessages=\"{QUEUING_MESSAGES}\"/>
    <partita:Resources maxProcesses=\"{PEER_PROCESSES}\"/>
    <partita:ProcessScheduling policy=\"EDF\"/>\n"
        ),
        &[&s_in, &q_in],
    );
    x += &partition(13, "sys", "LEVEL_A", true, "", &[]);
    x += &partition(14, "hm", "LEVEL_D", false, "", &[]);
    x += &format!(
        r#"  <Partition_Memory PartitionIdentifier="12" PartitionName="peer">
    <Memory_Requirements RegionName="peer_table" Type="DATA" SizeBytes="{}" Access="READ_WRITE"/>
    <Memory_Requirements RegionName="peer_calibration" Type="CODE" SizeBytes="{}" Access="READ_ONLY"/>
  </Partition_Memory>
"#,
        PEER_MEMORY[0], PEER_MEMORY[1]
    );
    x += r#"  <Module_Schedule ScheduleIdentifier="7" ScheduleName="boot" MajorFrameSeconds="0.1" InitialModuleSchedule="true">
    <Partition_Schedule PartitionIdentifier="11" PartitionName="probe" PeriodSeconds="0.1" PeriodDurationSeconds="0.02">
      <Window_Schedule WindowIdentifier="1" WindowStartSeconds="0" WindowDurationSeconds="0.02" PartitionPeriodStart="true" partita:Core="0"/>
      <Window_Schedule WindowIdentifier="2" WindowStartSeconds="0" WindowDurationSeconds="0.02" PartitionPeriodStart="true" partita:Core="1"/>
    </Partition_Schedule>
    <Partition_Schedule PartitionIdentifier="12" PartitionName="peer" PeriodSeconds="0.05" PeriodDurationSeconds="0.015">
      <Window_Schedule WindowIdentifier="3" WindowStartSeconds="0.025" WindowDurationSeconds="0.015" PartitionPeriodStart="true" partita:Core="0"/>
      <Window_Schedule WindowIdentifier="4" WindowStartSeconds="0.075" WindowDurationSeconds="0.015" PartitionPeriodStart="true" partita:Core="0"/>
    </Partition_Schedule>
    <Partition_Schedule PartitionIdentifier="13" PartitionName="sys" PeriodSeconds="0.1" PeriodDurationSeconds="0.015" SetModuleSchedule="true">
      <Window_Schedule WindowIdentifier="5" WindowStartSeconds="0.03" WindowDurationSeconds="0.015" PartitionPeriodStart="true" partita:Core="1"/>
    </Partition_Schedule>
    <Partition_Schedule PartitionIdentifier="14" PartitionName="hm" PeriodSeconds="0.1" PeriodDurationSeconds="0.01">
      <Window_Schedule WindowIdentifier="6" WindowStartSeconds="0.06" WindowDurationSeconds="0.01" PartitionPeriodStart="true" partita:Core="1"/>
    </Partition_Schedule>
  </Module_Schedule>
  <Module_Schedule ScheduleIdentifier="42" ScheduleName="flight" MajorFrameSeconds="0.2">
    <Partition_Schedule PartitionIdentifier="11" PartitionName="probe" PeriodSeconds="0.2" PeriodDurationSeconds="0.03" ScheduleChangeAction="COLD_START">
      <Window_Schedule WindowIdentifier="1" WindowStartSeconds="0" WindowDurationSeconds="0.03" PartitionPeriodStart="true" partita:Core="0"/>
      <Window_Schedule WindowIdentifier="2" WindowStartSeconds="0" WindowDurationSeconds="0.03" PartitionPeriodStart="true" partita:Core="1"/>
    </Partition_Schedule>
    <Partition_Schedule PartitionIdentifier="12" PartitionName="peer" PeriodSeconds="0.2" PeriodDurationSeconds="0.02" ScheduleChangeAction="WARM_START">
      <Window_Schedule WindowIdentifier="3" WindowStartSeconds="0.1" WindowDurationSeconds="0.02" PartitionPeriodStart="true" partita:Core="0"/>
    </Partition_Schedule>
    <Partition_Schedule PartitionIdentifier="13" PartitionName="sys" PeriodSeconds="0.2" PeriodDurationSeconds="0.02" SetModuleSchedule="true">
      <Window_Schedule WindowIdentifier="5" WindowStartSeconds="0.05" WindowDurationSeconds="0.02" PartitionPeriodStart="true" partita:Core="1"/>
    </Partition_Schedule>
    <Partition_Schedule PartitionIdentifier="14" PartitionName="hm" PeriodSeconds="0.2" PeriodDurationSeconds="0.01">
      <Window_Schedule WindowIdentifier="6" WindowStartSeconds="0.15" WindowDurationSeconds="0.01" PartitionPeriodStart="true" partita:Core="1"/>
    </Partition_Schedule>
  </Module_Schedule>
  <Connection_Table>
    <Channel ChannelIdentifier="71" ChannelName="sampled">
      <Source><Standard_Partition PartitionIdentifier="11" PartitionName="probe" PortName="s_out"/></Source>
      <Destination><Standard_Partition PartitionIdentifier="12" PartitionName="peer" PortName="s_in"/></Destination>
    </Channel>
    <Channel ChannelIdentifier="72" ChannelName="queued">
      <Source><Standard_Partition PartitionIdentifier="11" PartitionName="probe" PortName="q_out"/></Source>
      <Destination><Standard_Partition PartitionIdentifier="12" PartitionName="peer" PortName="q_in"/></Destination>
    </Channel>
  </Connection_Table>
  <System_HM_Table>
    <System_State_Entry SystemState="2" Description="partition initialisation">
      <Error_ID_Level ErrorIdentifier="33" ErrorLevel="PARTITION" ErrorCode="APPLICATION_ERROR"/>
    </System_State_Entry>
    <System_State_Entry SystemState="3" Description="process execution">
      <Error_ID_Level ErrorIdentifier="34" ErrorLevel="MODULE" ErrorCode="APPLICATION_ERROR"/>
    </System_State_Entry>
  </System_HM_Table>
  <Module_HM_Table>
    <System_State_Entry SystemState="3">
      <Error_ID_Action ErrorIdentifier="34" Action="IGNORE"/>
    </System_State_Entry>
  </Module_HM_Table>
  <Partition_HM_Table PartitionIdentifier="14" PartitionName="hm">
    <System_State_Entry SystemState="2">
      <Error_ID_Action ErrorIdentifier="33" Action="WARM_START"/>
    </System_State_Entry>
  </Partition_HM_Table>
</ARINC_653_Module>
"#;
    let path = dir.join("config_reaches.xml");
    std::fs::write(&path, x).unwrap();
    path
}

/// Runs the module once (under the end-to-end lock); `None` when the host cannot.
fn run() -> Option<&'static Run> {
    static RUN: OnceLock<Option<Run>> = OnceLock::new();
    once(&RUN, "config-reaches", |dir| {
        let m = module(dir);
        let check = partita().arg("check").arg(&m).output().unwrap();
        assert!(check.status.success(), "{}", text(&check));
        let (out, report) = run_reported(dir, &m, "2s", ("--hm-log", "hm.log"), &token());
        let log = partita()
            .args(["hm-log", "--json"])
            .arg(dir.join("hm.log"))
            .output()
            .unwrap();
        assert!(log.status.success(), "{}", text(&log));
        Run {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            report,
            logbook: serde_json::from_slice(&log.stdout).unwrap(),
            text: text(&out),
        }
    })
}

/// `key=value` fields of the `CP <role> <what>` lines, in output order.
fn lines<'a>(r: &'a Run, role: &str, what: &str) -> Vec<Vec<(&'a str, &'a str)>> {
    tagged_fields(&r.stdout, &format!("CP {role} {what} "))
}

/// The first `CP <role> <what>` line.
fn first<'a>(r: &'a Run, role: &str, what: &str) -> Vec<(&'a str, &'a str)> {
    lines(r, role, what)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no `CP {role} {what}` line:\n{}", r.text))
}

/// The text field `k` of a line.
fn get<'a>(l: &[(&'a str, &'a str)], k: &str) -> &'a str {
    l.iter()
        .find(|(key, _)| *key == k)
        .unwrap_or_else(|| panic!("no {k} in {l:?}"))
        .1
}

/// Partition names by index (the order of the `Partition` elements).
const PARTITIONS: [&str; 4] = ["probe", "peer", "sys", "hm"];

/// The index of partition `name` (what the window trace names partitions by).
fn index(name: &str) -> usize {
    PARTITIONS.iter().position(|p| *p == name).unwrap()
}

fn partition_report<'a>(r: &'a Run, name: &str) -> &'a Value {
    r.report["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no partition {name} in the report"))
}

#[test]
fn identity_arguments_and_system_flag_arrive() {
    let Some(r) = run() else { return };
    assert_eq!(r.report["module"], "config_reaches");
    assert_eq!(r.report["backend"], "signals");
    for (name, id) in [("probe", 11), ("peer", 12), ("sys", 13), ("hm", 14)] {
        let init = first(r, name, "init");
        assert_eq!(field(&init, "id"), id, "{name}");
        // argv[0], the role, the token, and the ports.
        let ports = if matches!(name, "probe" | "peer") {
            2
        } else {
            0
        };
        assert_eq!(field(&init, "argc"), 3 + ports, "{name}");
        assert_eq!(partition_report(r, name)["id"], id, "{name}");
    }
    let sys = first(r, "sys", "system-status");
    assert_eq!(field(&sys, "rc"), NO_ERROR);
    assert_eq!(field(&sys, "system"), 1, "SystemPartition=\"true\"");
    assert_eq!(field(&sys, "probe_rc"), NO_ERROR);
    assert_eq!(field(&sys, "probe_system"), 0, "SystemPartition=\"false\"");
    let peer = first(r, "peer", "system-status");
    assert_eq!(
        field(&peer, "rc"),
        INVALID_CONFIG,
        "a normal partition is refused the system services"
    );
}

#[test]
fn periods_and_durations_of_the_initial_schedule_arrive() {
    let Some(r) = run() else { return };
    for (name, period, duration) in [
        ("probe", 100 * MS, 20 * MS),
        ("peer", 50 * MS, 15 * MS),
        ("sys", 100 * MS, 15 * MS),
        ("hm", 100 * MS, 10 * MS),
    ] {
        let init = first(r, name, "init");
        assert_eq!(field(&init, "period"), period, "{name}");
        assert_eq!(field(&init, "duration"), duration, "{name}");
    }
}

#[test]
fn the_period_origin_sets_the_release_times() {
    let Some(r) = run() else { return };
    let switch = r.report["schedule_switches"][0]["at_ns"]
        .as_i64()
        .unwrap_or_else(|| panic!("no schedule switch: {}", r.text));
    let releases = lines(r, "peer", "release");
    // In boot the peer's periods (50 ms) start at 25 ms of the frame; in flight (200 ms, counted
    // from the switch) at 100 ms.
    let boot: Vec<_> = releases
        .iter()
        .filter(|l| field(l, "capacity") == 50 * MS)
        .collect();
    let flight: Vec<_> = releases
        .iter()
        .filter(|l| field(l, "capacity") == 200 * MS)
        .collect();
    assert!(!boot.is_empty() && !flight.is_empty(), "{releases:?}");
    assert_eq!(boot.len() + flight.len(), releases.len(), "{releases:?}");
    for l in boot {
        assert_eq!(field(l, "at") % (50 * MS), 25 * MS, "{l:?}");
    }
    for l in flight {
        assert_eq!((field(l, "at") - switch) % (200 * MS), 100 * MS, "{l:?}");
    }
}

#[test]
fn cores_arrive_where_processes_run() {
    let Some(r) = run() else { return };
    let init = first(r, "probe", "init");
    assert_eq!(field(&init, "cores"), 2);
    assert_eq!(field(&first(r, "sys", "system-status"), "probe_cores"), 2);
    for core in 0..2 {
        let affinity = lines(r, "probe", "affinity");
        let a = affinity
            .iter()
            .find(|l| field(l, "core") == core)
            .unwrap_or_else(|| panic!("no affinity line for core {core}: {}", r.text));
        assert_eq!(field(a, "rc"), NO_ERROR);
        let process = get(a, "process").to_string();
        let seen = lines(r, "probe", "core");
        let c = seen
            .iter()
            .find(|l| get(l, "process") == process)
            .unwrap_or_else(|| panic!("{process} never ran: {}", r.text));
        assert_eq!(field(c, "core"), core, "{c:?}");
        assert_eq!(field(c, "cpu"), core, "the CPU of core {core}: {c:?}");
    }
    // Windows of the probe on both cores, of the others on their `partita:Core`.
    let trace = r.report["window_trace"].as_array().unwrap();
    let cores_of = |name: &str| {
        let mut c: Vec<u64> = trace
            .iter()
            .filter(|w| w["partition"] == index(name))
            .map(|w| w["core"].as_u64().unwrap())
            .collect();
        c.sort_unstable();
        c.dedup();
        c
    };
    assert_eq!(cores_of("probe"), vec![0, 1]);
    assert_eq!(cores_of("peer"), vec![0]);
    assert_eq!(cores_of("sys"), vec![1]);
    assert_eq!(cores_of("hm"), vec![1]);
}

#[test]
fn memory_limits_arrive_in_the_memory_cgroup() {
    let Some(r) = run() else { return };
    assert_eq!(field(&first(r, "probe", "memory"), "limit"), PROBE_MEMORY);
    assert_eq!(
        field(&first(r, "peer", "memory"), "limit"),
        PEER_MEMORY.iter().sum::<i64>(),
        "the sum of the Memory_Requirements"
    );
}

#[test]
fn named_memory_requirements_are_memory_blocks() {
    let Some(r) = run() else { return };
    // Three lines at every start of the peer (a restart maps fresh blocks).
    let blocks = lines(r, "peer", "memblock");
    assert!(
        !blocks.is_empty() && blocks.chunks_exact(3).remainder().is_empty(),
        "{}",
        r.text
    );
    for start in blocks.chunks(3) {
        let (table, calibration, missing) = (&start[0], &start[1], &start[2]);
        assert_eq!(get(table, "name"), "peer_table");
        assert_eq!(field(table, "rc"), 0, "{}", r.text);
        assert_eq!(field(table, "size"), PEER_MEMORY[0]);
        assert_eq!(field(table, "mode"), 1, "MB_READ_WRITE");
        assert_eq!(field(table, "zero"), 1);
        assert_eq!(field(table, "wrote"), 1);
        assert_eq!(get(calibration, "name"), "peer_calibration");
        assert_eq!(field(calibration, "rc"), 0, "{}", r.text);
        assert_eq!(field(calibration, "size"), PEER_MEMORY[1]);
        assert_eq!(field(calibration, "mode"), 0, "MB_READ");
        // INVALID_CONFIG: no such block in the peer's configuration.
        assert_eq!(get(missing, "name"), "missing");
        assert_eq!(field(missing, "rc"), 4);
    }
    // The probe has no named requirement: INVALID_CONFIG for every name.
    let probe = lines(r, "probe", "memblock");
    assert!(!probe.is_empty(), "{}", r.text);
    assert!(probe.iter().all(|l| field(l, "rc") == 4), "{}", r.text);
}

#[test]
fn the_stack_total_bounds_process_creation() {
    let Some(r) = run() else { return };
    // 300000 + 300000 fit, a third 300000 does not (900000 > 800000), 200000 fills the
    // total exactly, and one more byte does not fit: the total is exactly 800000.
    let s = first(r, "probe", "stack");
    assert_eq!(
        [
            field(&s, "rc1"),
            field(&s, "rc2"),
            field(&s, "rc3"),
            field(&s, "rc4"),
            field(&s, "rc5")
        ],
        [NO_ERROR, NO_ERROR, INVALID_CONFIG, NO_ERROR, INVALID_CONFIG],
        "stackBytes={PROBE_STACK}: {s:?}"
    );
}

#[test]
fn max_processes_bounds_process_creation() {
    let Some(r) = run() else { return };
    let p = first(r, "peer", "processes");
    assert_eq!(field(&p, "created"), PEER_PROCESSES, "{p:?}");
    assert_eq!(field(&p, "refused_rc"), INVALID_CONFIG, "{p:?}");
}

#[test]
fn edf_runs_the_earlier_deadline_first() {
    let Some(r) = run() else { return };
    // `hi` has the higher priority and the later deadline: under ARINC 653 priorities it
    // would run first.
    assert_eq!(get(&first(r, "peer", "first"), "process"), "lo");
}

#[test]
fn ports_have_their_configured_sizes_directions_and_refresh() {
    let Some(r) = run() else { return };
    for (role, name, direction, refresh) in [
        ("probe", "s_out", SOURCE, None),
        ("peer", "s_in", DESTINATION, Some(REFRESH)),
    ] {
        let s = first(r, role, "sampling");
        assert_eq!(get(&s, "name"), name);
        assert_eq!(field(&s, "wrong_size_rc"), INVALID_CONFIG, "{s:?}");
        assert_eq!(field(&s, "rc"), NO_ERROR, "{s:?}");
        assert_eq!(field(&s, "size"), SAMPLING_SIZE, "{s:?}");
        assert_eq!(field(&s, "direction"), direction, "{s:?}");
        if let Some(refresh) = refresh {
            assert_eq!(field(&s, "refresh"), refresh, "{s:?}");
        }
    }
    for (role, name, direction) in [("probe", "q_out", SOURCE), ("peer", "q_in", DESTINATION)] {
        let q = first(r, role, "queuing");
        assert_eq!(get(&q, "name"), name);
        assert_eq!(field(&q, "wrong_size_rc"), INVALID_CONFIG, "{q:?}");
        assert_eq!(field(&q, "wrong_nb_rc"), INVALID_CONFIG, "{q:?}");
        assert_eq!(field(&q, "rc"), NO_ERROR, "{q:?}");
        assert_eq!(field(&q, "size"), QUEUING_SIZE, "{q:?}");
        assert_eq!(field(&q, "nb"), QUEUING_MESSAGES, "{q:?}");
        assert_eq!(field(&q, "direction"), direction, "{q:?}");
    }
}

#[test]
fn channels_carry_messages_to_the_configured_peer() {
    let Some(r) = run() else { return };
    assert_eq!(field(&first(r, "probe", "wrote"), "rc"), NO_ERROR);
    assert_eq!(field(&first(r, "probe", "sent"), "rc"), NO_ERROR);
    assert_eq!(
        field(&first(r, "peer", "received sampling"), "len"),
        SAMPLING_SIZE
    );
    assert_eq!(
        field(&first(r, "peer", "received queuing"), "len"),
        QUEUING_SIZE
    );
    let channels = r.report["channels"].as_array().unwrap();
    for (id, kind, source, destination, count) in [
        (71, "sampling", "probe:s_out", "peer:s_in", "written"),
        (72, "queuing", "probe:q_out", "peer:q_in", "received"),
    ] {
        let c = channels
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("no channel {id} in the report: {channels:?}"));
        assert_eq!(c["kind"], kind, "{c}");
        assert_eq!(c["source"], source, "{c}");
        assert_eq!(c["destinations"], serde_json::json!([destination]), "{c}");
        assert!(c[count].as_u64().unwrap() >= 1, "{c}");
    }
}

#[test]
fn the_hm_tables_decide_level_and_action() {
    let Some(r) = run() else { return };
    let records: Vec<&Value> = r
        .logbook
        .iter()
        .filter(|e| e["partition"] == "hm" && e["code"] == "APPLICATION_ERROR")
        .collect();
    let by_id = |id: u32| {
        let v: Vec<&&Value> = records.iter().filter(|e| e["identifier"] == id).collect();
        assert_eq!(v.len(), 1, "one record with identifier {id}: {records:?}");
        v[0]
    };
    // In the initialisation (state 2): PARTITION level, the partition table's WARM_START.
    let init = by_id(33);
    assert_eq!(init["state_number"], 2, "{init}");
    assert_eq!(init["level"], "PARTITION", "{init}");
    assert_eq!(init["action"], "WARM_START", "{init}");
    // From a process (state 3): MODULE level, the module table's IGNORE instead of SHUTDOWN.
    let process = by_id(34);
    assert_eq!(process["state_number"], 3, "{process}");
    assert_eq!(process["level"], "MODULE", "{process}");
    assert_eq!(process["action"], "IGNORE", "{process}");
    assert_eq!(r.report["hm"]["shutdown"], false);
    // The partition restarted as the partition table says, once.
    let inits = lines(r, "hm", "init");
    assert!(inits.len() >= 2, "{}", r.text);
    assert_eq!(field(&inits[0], "start"), NORMAL_START);
    assert_eq!(field(&inits[1], "mode"), WARM_START);
    assert_eq!(field(&inits[1], "start"), HM_PARTITION_RESTART);
    assert_eq!(partition_report(r, "hm")["restarts"], 1);
    assert_eq!(field(&first(r, "hm", "raised-in-process"), "rc"), NO_ERROR);
}

#[test]
fn module_schedules_and_change_actions_arrive() {
    let Some(r) = run() else { return };
    let ids = first(r, "sys", "schedule-ids");
    assert_eq!((field(&ids, "boot"), field(&ids, "flight")), (7, 42));
    assert_eq!(field(&first(r, "sys", "request"), "rc"), NO_ERROR);
    let status = lines(r, "sys", "schedule");
    assert_eq!(field(&status[0], "current"), 7, "{:?}", status[0]);
    assert!(
        status.iter().any(|l| field(l, "current") == 42),
        "the system partition sees the new schedule: {status:?}"
    );
    let sw = r.report["schedule_switches"].as_array().unwrap();
    assert_eq!(sw.len(), 1, "{}", r.text);
    assert_eq!(
        (sw[0]["from"].as_i64(), sw[0]["to"].as_i64()),
        (Some(7), Some(42))
    );
    assert_eq!(sw[0]["requested_by"], "sys");
    assert_eq!(r.report["final_schedule"], 42);
    // The switch is at a frame start of the 100 ms schedule, and the flight windows follow
    // its 200 ms frame.
    let at = sw[0]["at_ns"].as_i64().unwrap();
    assert_eq!(at % (100 * MS), 0);
    for w in r.report["window_trace"].as_array().unwrap() {
        if w["schedule"] == 42 {
            let planned = w["planned_ns"].as_i64().unwrap();
            let offset = (planned - at) % (200 * MS);
            let expected = match PARTITIONS[w["partition"].as_u64().unwrap() as usize] {
                "probe" => 0,
                "sys" => 50 * MS,
                "peer" => 100 * MS,
                _ => 150 * MS, // hm
            };
            assert_eq!(offset, expected, "{w}");
        }
    }
    // COLD_START for the probe, WARM_START for the peer, with the flight periods; the
    // system partition (IGNORE) keeps running.
    for (name, mode, period, duration) in [
        ("probe", COLD_START, 200 * MS, 30 * MS),
        ("peer", WARM_START, 200 * MS, 20 * MS),
    ] {
        let inits = lines(r, name, "init");
        assert_eq!(inits.len(), 2, "{name} starts twice: {}", r.text);
        assert_eq!(field(&inits[0], "mode"), COLD_START, "{name}");
        assert_eq!(field(&inits[0], "start"), NORMAL_START, "{name}");
        assert_eq!(field(&inits[1], "mode"), mode, "{name}");
        assert_eq!(field(&inits[1], "start"), PARTITION_RESTART, "{name}");
        assert_eq!(field(&inits[1], "period"), period, "{name}");
        assert_eq!(field(&inits[1], "duration"), duration, "{name}");
    }
    assert_eq!(
        lines(r, "sys", "init").len(),
        1,
        "IGNORE: sys is not restarted"
    );
}
