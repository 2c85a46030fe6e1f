// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita run --trace`: a small module on two cores is recorded, and the file, read back
//! with `partita_trace::TraceReader`, shows what the plan and the partitions did: window
//! starts at their planned instants in order on every core, the states of a known periodic
//! process, a port write followed by the reader's read, the application's own records, and
//! the counts of lost and refused events, the APEX calls' entries and exits (`--trace-apex`);
//! with `--trace-kernel` (where tracefs is), the
//! kernel's scheduling events of the module's cores, and tracefs left as it was.

mod common;

use common::*;
use partita_abi::trace::{ApexService, Event, EventKind, StateReason, PORT_CREATED_QUEUING};
use partita_abi::{ProcessState, MAIN_PROCESS_ID};
use partita_trace::TraceReader;
use std::path::Path;
use std::sync::OnceLock;

const FRAME_NS: u64 = 100_000_000;

/// writer (index 0, core 0, [0, 20) ms) writes sampling port T_OUT, reader (index 1, core 0,
/// [40, 60) ms) reads T_IN, side (index 2, core 1, [10, 25) and [25, 40) ms) has no port.
fn module(dir: &Path) -> std::path::PathBuf {
    let exe = partition_exe("traced");
    let part = |id: u32, name: &str, ports: &str| {
        format!(
            r#"  <Partition PartitionIdentifier="{id}" PartitionName="{name}" Criticality="LEVEL_C" SystemPartition="false" EntryPoint="main">
    <partita:Executable path="{}"><partita:Arg>{name}</partita:Arg></partita:Executable>
{ports}  </Partition>
"#,
            exe.display()
        )
    };
    let sched = |id: u32, name: &str, start: &str, dur: &str, core: u32| {
        format!(
            r#"    <Partition_Schedule PartitionIdentifier="{id}" PartitionName="{name}" PeriodSeconds="0.1" PeriodDurationSeconds="{dur}">
      <Window_Schedule WindowIdentifier="{id}" WindowStartSeconds="{start}" WindowDurationSeconds="{dur}" PartitionPeriodStart="true" partita:Core="{core}"/>
    </Partition_Schedule>
"#
        )
    };
    let mut x = String::from(
        "<?xml version=\"1.0\"?>\n<ARINC_653_Module xmlns:partita=\"urn:partita:1\" ModuleName=\"traced\">\n",
    );
    x += &part(
        1,
        "writer",
        "    <Sampling_Port Name=\"T_OUT\" MaxMessageSize=\"16\" Direction=\"SOURCE\"/>\n",
    );
    x += &part(
        2,
        "reader",
        "    <Sampling_Port Name=\"T_IN\" MaxMessageSize=\"16\" Direction=\"DESTINATION\" RefreshRateSeconds=\"1\"/>\n",
    );
    x += &part(3, "side", "");
    x += "  <Module_Schedule MajorFrameSeconds=\"0.1\">\n";
    x += &sched(1, "writer", "0", "0.02", 0);
    x += &sched(2, "reader", "0.04", "0.02", 0);
    // Two adjacent windows, [10, 25) and [25, 40) ms.
    x += r#"    <Partition_Schedule PartitionIdentifier="3" PartitionName="side" PeriodSeconds="0.1" PeriodDurationSeconds="0.03">
      <Window_Schedule WindowIdentifier="3" WindowStartSeconds="0.01" WindowDurationSeconds="0.015" PartitionPeriodStart="true" partita:Core="1"/>
      <Window_Schedule WindowIdentifier="4" WindowStartSeconds="0.025" WindowDurationSeconds="0.015" PartitionPeriodStart="false" partita:Core="1"/>
    </Partition_Schedule>
"#;
    x += r#"  </Module_Schedule>
  <Connection_Table>
    <Channel ChannelIdentifier="1" ChannelName="traced">
      <Source><Standard_Partition PartitionIdentifier="1" PartitionName="writer" PortName="T_OUT"/></Source>
      <Destination><Standard_Partition PartitionIdentifier="2" PartitionName="reader" PortName="T_IN"/></Destination>
    </Channel>
  </Connection_Table>
</ARINC_653_Module>
"#;
    let path = dir.join("traced.xml");
    std::fs::write(&path, x).unwrap();
    path
}

/// Whether the kernel offers tracefs (mounted or not).
fn tracefs_available() -> bool {
    std::fs::read_to_string("/proc/filesystems").is_ok_and(|s| s.contains("tracefs"))
}

/// Whether tracefs is mounted at /sys/kernel/tracing.
fn tracefs_mounted() -> bool {
    std::fs::read_to_string("/proc/mounts").is_ok_and(|s| {
        s.lines()
            .any(|l| l.split_whitespace().nth(1) == Some("/sys/kernel/tracing"))
    })
}

struct Traced {
    out: std::process::Output,
    report: serde_json::Value,
    meta: partita_trace::TraceMeta,
    events: Vec<Event>,
    kernel: bool,
    mounted_before: bool,
}

/// One traced run of [`module`] for 1 s with `--trace-apex` (and `--trace-kernel` where
/// tracefs is), shared by
/// the tests of this file.
fn traced() -> Option<&'static Traced> {
    static RUN: OnceLock<Option<Traced>> = OnceLock::new();
    once(&RUN, "trace", |dir| {
        let module = module(dir);
        let file = dir.join("run.trace");
        let json = dir.join("report.json");
        let kernel = tracefs_available();
        if !kernel {
            skip("trace: kernel events", "the kernel has no tracefs");
        }
        let mounted_before = tracefs_mounted();
        let mut cmd = partita();
        cmd.args(["run", "--duration", "1s", "--trace-apex", "--trace"])
            .arg(&file)
            .arg("--json")
            .arg(&json);
        if kernel {
            cmd.arg("--trace-kernel");
        }
        cmd.arg(&module);
        let out = output_within(&mut cmd, std::time::Duration::from_secs(60));
        assert!(out.status.success(), "{}", text(&out));
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let mut r = TraceReader::open(&file).unwrap();
        let events = r.read_all().unwrap();
        assert_eq!(r.truncated_tail(), 0);
        Traced {
            out,
            report,
            meta: r.meta().clone(),
            events,
            kernel,
            mounted_before,
        }
    })
}

fn of(t: &Traced, kind: EventKind) -> impl Iterator<Item = &Event> {
    t.events.iter().filter(move |e| e.kind == kind)
}

#[test]
fn the_report_counts_what_the_file_holds() {
    let Some(t) = traced() else { return };
    let tr = &t.report["trace"];
    assert_eq!(
        tr["events"],
        t.events.len() as u64,
        "{tr}\n{}",
        text(&t.out)
    );
    // A 1 s run of three partitions fits the default rings: nothing lost or refused, and the
    // file says so (no LOST or REFUSED events).
    assert_eq!(tr["lost"], 0, "{tr}");
    assert_eq!(tr["refused"], 0, "{tr}");
    assert_eq!(of(t, EventKind::Lost).count(), 0);
    assert_eq!(of(t, EventKind::Refused).count(), 0);
    assert_eq!(t.meta.module, "traced");
    let names: Vec<&str> = t.meta.partitions.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["writer", "reader", "side"]);
    assert_eq!(t.meta.schedules[0].major_frame_ns, FRAME_NS);
    assert_eq!(t.meta.schedules[0].windows.len(), 4);
    for p in 0..3u16 {
        assert!(
            of(t, EventKind::PartitionSpawned).any(|e| e.partition == p),
            "partition {p} spawned"
        );
        // It started in COLD_START (the first mode recorded), then reached NORMAL.
        assert_eq!(
            of(t, EventKind::PartitionMode)
                .find(|e| e.partition == p)
                .map(|e| e.a),
            Some(u64::from(partita_abi::OperatingMode::ColdStart.raw())),
            "partition {p}"
        );
        assert!(
            of(t, EventKind::PartitionMode)
                .any(|e| e.partition == p
                    && e.a == u64::from(partita_abi::OperatingMode::Normal.raw())),
            "partition {p} reached NORMAL"
        );
    }
}

#[test]
fn windows_start_at_their_planned_instants_in_order_on_every_core() {
    let Some(t) = traced() else { return };
    let epoch = t.meta.epoch_ns;
    let windows = &t.meta.schedules[0].windows;
    for core in [0u8, 1] {
        let starts: Vec<&Event> = of(t, EventKind::WindowStart)
            .filter(|e| e.core == core)
            .collect();
        assert!(
            starts.len() >= 5,
            "core {core}: {} window starts",
            starts.len()
        );
        let mut last = 0;
        for s in &starts {
            let w = windows
                .iter()
                .find(|w| w.core == u32::from(core) && w.index as u64 == s.c())
                .unwrap_or_else(|| panic!("core {core}: no window {} in the header", s.c()));
            assert_eq!(s.partition, w.partition, "{s:?}");
            assert_eq!(s.b(), 0, "schedule index");
            // Planned at epoch + k * frame + offset, in order; released at or after it.
            assert_eq!((s.a - epoch) % FRAME_NS, w.offset_ns, "{s:?}");
            assert!(s.a > last, "core {core}: starts out of order: {s:?}");
            assert!(
                s.time_ns >= s.a,
                "released before its planned instant: {s:?}"
            );
            last = s.a;
        }
        // Each end closes the window that started before it on the core: same window,
        // planned at its start plus its length. A boundary the scheduler missed (woke after
        // the next one was due, under load) is skipped without events, so the window lasts
        // until the next boundary it handled: that is allowed only where the report counts
        // missed boundaries on this core.
        let missed = t.report["cores"]
            .as_array()
            .and_then(|cs| cs.iter().find(|c| c["core"] == u64::from(core)))
            .and_then(|c| c["missed_boundaries"].as_u64())
            .unwrap_or(0);
        let mut open: Option<&Event> = None;
        for e in t.events.iter().filter(|e| e.core == core) {
            match e.kind {
                EventKind::WindowStart => open = Some(e),
                EventKind::WindowEnd => {
                    let s = open.take().expect("an end without a start");
                    assert_eq!((e.c(), e.partition), (s.c(), s.partition), "{e:?}");
                    let w = windows
                        .iter()
                        .find(|w| w.core == u32::from(core) && w.index as u64 == s.c())
                        .unwrap();
                    if missed == 0 {
                        assert_eq!(e.a - s.a, w.duration_ns, "{e:?}");
                    } else {
                        assert!(e.a - s.a >= w.duration_ns, "{e:?}");
                    }
                }
                _ => {}
            }
        }
    }
}

#[test]
fn a_periodic_process_goes_through_its_states() {
    let Some(t) = traced() else { return };
    // The writer's only process.
    let created: Vec<&Event> = of(t, EventKind::ProcessCreated)
        .filter(|e| e.partition == 0)
        .collect();
    assert_eq!(created.len(), 1, "{created:?}");
    assert_eq!(created[0].name(), b"worker");
    assert!(created[0].a > 0, "host thread id");
    let pid = created[0].process;
    let states: Vec<(u64, StateReason)> = of(t, EventKind::ProcessState)
        .filter(|e| e.partition == 0 && e.process == pid)
        .map(|e| (e.a, StateReason::from_raw(e.b() as u32).unwrap()))
        .collect();
    let st = |s: ProcessState| u64::from(s.raw());
    assert_eq!(
        states.first(),
        Some(&(st(ProcessState::Waiting), StateReason::Started)),
        "{states:?}"
    );
    // Released at each period, back to waiting for the next: alternating.
    let cycle: Vec<StateReason> = states
        .iter()
        .filter(|(_, r)| matches!(r, StateReason::PeriodicRelease | StateReason::WaitTime))
        .map(|&(_, r)| r)
        .collect();
    assert!(cycle.len() >= 8, "{states:?}");
    for pair in cycle.windows(2) {
        assert_ne!(pair[0], pair[1], "{states:?}");
    }
    for (s, r) in &states {
        match r {
            StateReason::WaitTime => assert_eq!(*s, st(ProcessState::Waiting)),
            StateReason::PeriodicRelease => assert!(
                *s == st(ProcessState::Ready) || *s == st(ProcessState::Running),
                "{states:?}"
            ),
            _ => {}
        }
    }
    // Its application records: stream 7, its sequence numbers in order.
    let values: Vec<u64> = of(t, EventKind::Application)
        .filter(|e| e.partition == 0 && e.process == pid && e.a == 7)
        .map(|e| e.b())
        .collect();
    assert!(values.len() >= 4, "{values:?}");
    assert!(values.windows(2).all(|v| v[1] == v[0] + 1), "{values:?}");
}

#[test]
fn a_port_write_is_followed_by_the_readers_read() {
    let Some(t) = traced() else { return };
    let created = of(t, EventKind::PortCreated)
        .find(|e| e.partition == 0)
        .expect("the writer's port");
    assert_eq!(created.name(), b"T_OUT");
    assert_eq!(created.a & PORT_CREATED_QUEUING, 0, "a sampling port");
    let port = created.a & 0xffff_ffff;
    let first_write = of(t, EventKind::PortWrite)
        .filter(|e| e.partition == 0 && e.a == port && e.c() == 0)
        .map(|e| e.time_ns)
        .min()
        .expect("a successful write");
    // A read of the reader, successful and valid, after the first write.
    assert!(
        of(t, EventKind::PortRead).any(|e| e.partition == 1
            && e.time_ns > first_write
            && e.c() == 0
            && e.d() == 1
            && e.b() >= 2),
        "no valid read after the write at {first_write}"
    );
}

#[test]
fn kernel_events_of_the_module_cores_are_merged() {
    let Some(t) = traced() else { return };
    if !t.kernel {
        return skip("kernel_events_of_the_module_cores_are_merged", "no tracefs");
    }
    assert!(t.meta.kernel_events, "{}", text(&t.out));
    let switches: Vec<&Event> = of(t, EventKind::KernelSwitch).collect();
    assert!(!switches.is_empty(), "{}", text(&t.out));
    assert!(switches.iter().all(|e| e.core <= 1));
    assert_eq!(
        t.report["trace"]["kernel_events"],
        (switches.len() + of(t, EventKind::KernelWakeup).count()) as u64
    );
    // The writer's process, by the host thread id its creation record carries, is switched
    // in and out by the kernel.
    let tid = of(t, EventKind::ProcessCreated)
        .find(|e| e.partition == 0)
        .map(|e| e.a)
        .unwrap();
    assert!(
        switches.iter().any(|e| e.b() == tid) && switches.iter().any(|e| e.a == tid),
        "thread {tid} never switched"
    );
    // Within the run (CLOCK_MONOTONIC like Partita's own events).
    let first = t
        .events
        .iter()
        .filter(|e| e.kind == EventKind::WindowStart)
        .map(|e| e.time_ns)
        .min()
        .unwrap();
    assert!(switches.iter().any(|e| e.time_ns > first));
    // tracefs as it was: the run's instance gone, mounted only if it was.
    assert_eq!(tracefs_mounted(), t.mounted_before);
    if t.mounted_before {
        let left: Vec<_> = std::fs::read_dir("/sys/kernel/tracing/instances")
            .unwrap()
            .filter_map(|d| d.ok())
            .filter(|d| d.file_name().to_string_lossy().starts_with("partita-"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
}

/// The APEX calls of the writer: its main process's calls return in order with their codes
/// until SET_PARTITION_MODE(NORMAL), which does not return to it; its periodic process's
/// calls alternate entry and exit, and each successful WRITE_SAMPLING_MESSAGE holds the
/// port write it made.
#[test]
fn apex_calls_enter_and_exit_in_pairs() {
    let Some(t) = traced() else { return };
    assert!(t.meta.apex_calls);
    let calls = |process: i32| -> Vec<&Event> {
        t.events
            .iter()
            .filter(|e| {
                e.partition == 0
                    && e.process == process
                    && matches!(e.kind, EventKind::ApexEnter | EventKind::ApexExit)
            })
            .collect()
    };
    let service = |e: &Event| ApexService::from_raw(e.a as u32).expect("a service number");
    let main = calls(MAIN_PROCESS_ID);
    let main_services: Vec<(EventKind, ApexService)> =
        main.iter().map(|e| (e.kind, service(e))).collect();
    let pair = |s| [(EventKind::ApexEnter, s), (EventKind::ApexExit, s)];
    let mut expected = Vec::new();
    for s in [
        ApexService::CreateSamplingPort,
        ApexService::GetPartitionStatus,
        ApexService::CreateProcess,
        ApexService::Start,
    ] {
        expected.extend(pair(s));
    }
    expected.push((EventKind::ApexEnter, ApexService::SetPartitionMode));
    assert_eq!(main_services, expected);
    for e in main.iter().filter(|e| e.kind == EventKind::ApexExit) {
        assert_eq!(e.b(), 0, "{} returned {}", service(e), e.b());
    }

    let worker = of(t, EventKind::ProcessCreated)
        .find(|e| e.partition == 0 && e.name() == b"worker")
        .expect("the writer's worker")
        .process;
    let calls = calls(worker);
    assert!(
        calls.len() >= 12,
        "{} APEX events of the worker",
        calls.len()
    );
    let mut writes = 0;
    for (i, exit) in calls
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind == EventKind::ApexExit)
    {
        assert!(i > 0, "the worker's first APEX event is an exit");
        let enter = calls[i - 1];
        assert_eq!(
            enter.kind,
            EventKind::ApexEnter,
            "an exit without its entry"
        );
        assert_eq!(
            enter.a,
            exit.a,
            "{} exits {}",
            service(exit),
            service(enter)
        );
        assert!(enter.time_ns <= exit.time_ns);
        if service(exit) == ApexService::WriteSamplingMessage && exit.b() == 0 {
            writes += 1;
            assert!(
                of(t, EventKind::PortWrite).any(|w| w.partition == 0
                    && w.process == worker
                    && (enter.time_ns..=exit.time_ns).contains(&w.time_ns)),
                "no port write within the call at {}",
                enter.time_ns
            );
        }
    }
    // Entries and exits alternate: neither two entries (a call without its exit) nor two
    // exits in a row.
    for (a, b) in calls.iter().zip(calls.iter().skip(1)) {
        assert_ne!(a.kind, b.kind, "at {} and {}", a.time_ns, b.time_ns);
    }
    assert!(writes >= 3, "{writes} successful writes");
}

/// The header names the Partita revision: `git describe` of this checkout at build time, a
/// revision git resolves here (the crate version when not built from git).
#[test]
fn the_header_names_the_revision() {
    let Some(t) = traced() else { return };
    let revision = t.meta.host.revision.as_deref().expect("a revision");
    assert!(!revision.is_empty());
    if !repo().join(".git").exists() {
        // Not a git checkout (a source archive): the crate version.
        assert_eq!(revision, env!("CARGO_PKG_VERSION"));
        return;
    }
    let commit = revision.strip_suffix("-dirty").unwrap_or(revision);
    let resolved = std::process::Command::new("git")
        .arg("-C")
        .arg(repo())
        .args(["rev-parse", "--verify", "--quiet"])
        .arg(format!("{commit}^{{commit}}"))
        .output()
        .expect("git runs");
    assert!(
        resolved.status.success(),
        "revision {revision:?} is not a commit of {}",
        repo().display()
    );
}

/// Two adjacent windows of the same partition stay two windows: the first ends and the
/// second starts at the same instant, when the scheduler passed the boundary (the partition
/// is neither held nor released there).
#[test]
fn adjacent_windows_of_a_partition_end_and_start_at_the_boundary() {
    let Some(t) = traced() else { return };
    let core1: Vec<&Event> = t
        .events
        .iter()
        .filter(|e| e.core == 1 && matches!(e.kind, EventKind::WindowStart | EventKind::WindowEnd))
        .collect();
    let mut seen = 0;
    for pair in core1.windows(2) {
        let (end, start) = (pair[0], pair[1]);
        if end.kind == EventKind::WindowEnd && end.c() == 0 {
            assert_eq!(start.kind, EventKind::WindowStart, "{start:?}");
            assert_eq!((start.c(), start.partition), (1, 2), "{start:?}");
            assert_eq!(start.a, end.a, "planned at the same boundary");
            assert_eq!(start.time_ns, end.time_ns, "{end:?} {start:?}");
            assert!(start.time_ns >= start.a, "{start:?}");
            seen += 1;
        }
    }
    assert!(seen >= 5, "{seen} boundaries between the adjacent windows");
}
