// SPDX-License-Identifier: MIT OR Apache-2.0
//! A synthetic but realistic trace for the converters' tests (feature `synthetic`): two cores,
//! three partitions, two schedules with a switch, periodic processes going READY → RUNNING →
//! WAITING, a deadline miss with its HM event, port writes and reads, lost and refused counts,
//! kernel task switches, APEX calls and an application record. Deterministic.

use crate::{HostMeta, PartitionMeta, ScheduleMeta, TraceMeta, WindowMeta, META_VERSION};
use partita_abi::trace::{Event, EventKind, StateReason};
use partita_abi::{ErrorCode, ErrorLevel, HmAction, OperatingMode, ProcessState, MAIN_PROCESS_ID};

/// The epoch of the synthetic run (`CLOCK_MONOTONIC` ns).
pub const EPOCH: u64 = 5_000_000_000;
/// Major frame of both schedules, ns.
pub const FRAME: u64 = 20_000_000;
/// Frames the run lasts.
pub const FRAMES: u64 = 6;
/// The frame at whose start the module switches to schedule 1.
pub const SWITCH_FRAME: u64 = 3;
/// Events the synthetic LOST record counts.
pub const LOST: u64 = 3;
/// Records the synthetic REFUSED record counts.
pub const REFUSED: u64 = 1;

const MS: u64 = 1_000_000;

/// The header: partitions `FlightControl` and `Navigation` on core 0, `Telemetry` on core 1.
pub fn meta() -> TraceMeta {
    let w = |core, index, partition, offset_ns, duration_ns| WindowMeta {
        core,
        index,
        partition,
        offset_ns,
        duration_ns,
    };
    let part = |index: u16, name: &str, core| PartitionMeta {
        index,
        identifier: i64::from(index) + 1,
        name: name.into(),
        cores: vec![core],
    };
    TraceMeta {
        version: META_VERSION,
        event_version: partita_abi::trace::VERSION,
        module: "synthetic".into(),
        config: Some("synthetic.xml".into()),
        backend: "freezer-v2".into(),
        epoch_ns: EPOCH,
        epoch_unix_ns: 1_764_000_000_000_000_000,
        host: HostMeta {
            kernel: "6.8.0".into(),
            cpu: "Synthetic CPU".into(),
            cores: 2,
            revision: Some("v0-test".into()),
        },
        partitions: vec![
            part(0, "FlightControl", 0),
            part(1, "Navigation", 0),
            part(2, "Telemetry", 1),
        ],
        schedules: vec![
            ScheduleMeta {
                index: 0,
                name: "nominal".into(),
                major_frame_ns: FRAME,
                windows: vec![
                    w(0, 0, 0, 0, 10 * MS),
                    w(0, 1, 1, 10 * MS, 10 * MS),
                    w(1, 0, 2, 0, 15 * MS),
                ],
            },
            ScheduleMeta {
                index: 1,
                name: "degraded".into(),
                major_frame_ns: FRAME,
                windows: vec![
                    w(0, 0, 0, 0, 15 * MS),
                    w(0, 1, 1, 15 * MS, 5 * MS),
                    w(1, 0, 2, 0, 20 * MS),
                ],
            },
        ],
        initial_schedule: 0,
        apex_calls: true,
        kernel_events: true,
    }
}

/// A process of the synthetic module: (partition, id, name, busy ns per activation).
const PROCESSES: [(u16, i32, &str, u64); 4] = [
    (0, 1, "GnC", 2 * MS),
    (1, 1, "NavReader", 3 * MS),
    (2, 1, "Downlink", 4 * MS),
    (2, 2, "Logger", MS),
];

/// The events, manager rings first then each partition's (the file order of a real trace:
/// per ring in time order, not globally).
pub fn events() -> Vec<Event> {
    let mut manager = Vec::new();
    let mut parts = Vec::new();
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut jitter = |max: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % max
    };
    let state = |t, p: u16, id, st: ProcessState, why: StateReason| {
        Event::new(
            t,
            EventKind::ProcessState,
            u64::from(st.raw()),
            [u64::from(why.raw()), 0, 0, 0],
        )
        .of_partition(p)
        .of_process(id)
    };
    // Start-up, before the epoch.
    for p in 0..3u16 {
        let t = EPOCH - 50 * MS + u64::from(p) * MS;
        manager.push(
            Event::new(t, EventKind::PartitionSpawned, 4000 + u64::from(p), [0; 4]).of_partition(p),
        );
        let mode = |t, m: OperatingMode| {
            Event::new(t, EventKind::PartitionMode, u64::from(m.raw()), [0; 4]).of_partition(p)
        };
        manager.push(mode(t + 100_000, OperatingMode::ColdStart));
        manager.push(mode(
            EPOCH - 10 * MS + u64::from(p) * 100_000,
            OperatingMode::Normal,
        ));
        parts.push(
            Event::named(t + 200_000, EventKind::ProcessCreated, 5000, b"main")
                .expect("short name")
                .of_partition(p)
                .of_process(MAIN_PROCESS_ID),
        );
    }
    for (i, &(p, id, name, _)) in PROCESSES.iter().enumerate() {
        let t = EPOCH - 40 * MS + i as u64 * MS;
        parts.push(
            Event::named(
                t,
                EventKind::ProcessCreated,
                5001 + i as u64,
                name.as_bytes(),
            )
            .expect("short name")
            .of_partition(p)
            .of_process(id),
        );
        parts.push(state(
            t + 10,
            p,
            id,
            ProcessState::Waiting,
            StateReason::Started,
        ));
    }
    let port = |t, p: u16, id: u64, name: &[u8]| {
        Event::named(t, EventKind::PortCreated, id, name)
            .expect("short name")
            .of_partition(p)
            .of_process(MAIN_PROCESS_ID)
    };
    parts.push(port(EPOCH - 30 * MS, 0, 1, b"attitude"));
    parts.push(port(
        EPOCH - 30 * MS,
        2,
        1 | partita_abi::trace::PORT_CREATED_QUEUING,
        b"attitude_in",
    ));

    for frame in 0..FRAMES {
        let sched = usize::from(frame >= SWITCH_FRAME);
        let start = EPOCH + frame * FRAME;
        if frame == SWITCH_FRAME {
            manager.push(Event::new(
                start + 3_000,
                EventKind::ScheduleSwitch,
                1,
                [0; 4],
            ));
        }
        for w in &meta().schedules[sched].windows {
            let planned = start + w.offset_ns;
            let released = planned + 5_000 + jitter(40_000);
            let held = planned + w.duration_ns - 80_000 + jitter(10_000);
            let args = [sched as u64, w.index as u64, 0, 0];
            manager.push(
                Event::new(released, EventKind::WindowStart, planned, args)
                    .on_core(w.core as u8)
                    .of_partition(w.partition),
            );
            manager.push(
                Event::new(held, EventKind::WindowEnd, planned + w.duration_ns, args)
                    .on_core(w.core as u8)
                    .of_partition(w.partition),
            );
            manager.push(
                Event::new(
                    released - 2_000,
                    EventKind::KernelSwitch,
                    100,
                    [
                        4000 + u64::from(w.partition),
                        u64::from_le_bytes(*b"R+\0\0\0\0\0\0"),
                        0,
                        0,
                    ],
                )
                .on_core(w.core as u8),
            );
            // The window's processes, one after the other.
            let mut t = released + 20_000;
            for &(p, id, _, busy) in PROCESSES.iter().filter(|x| x.0 == w.partition) {
                let late_miss = p == 1 && frame == 4;
                let busy = if late_miss { busy + 4 * MS } else { busy };
                parts.push(state(
                    t,
                    p,
                    id,
                    ProcessState::Ready,
                    StateReason::PeriodicRelease,
                ));
                parts.push(state(
                    t + 15_000,
                    p,
                    id,
                    ProcessState::Running,
                    StateReason::Scheduled,
                ));
                let call = t + 30_000;
                parts.push(
                    Event::new(call, EventKind::ApexEnter, 7, [0; 4])
                        .of_partition(p)
                        .of_process(id),
                );
                parts.push(
                    Event::new(call + 4_000, EventKind::ApexExit, 7, [0; 4])
                        .of_partition(p)
                        .of_process(id),
                );
                if (p, id) == (0, 1) {
                    parts.push(
                        Event::new(t + busy / 2, EventKind::PortWrite, 1, [64, 0, 0, 0])
                            .of_partition(p)
                            .of_process(id),
                    );
                }
                if (p, id) == (2, 1) {
                    let code = if frame == 0 { 2 } else { 0 }; // NOT_AVAILABLE before the first write
                    parts.push(
                        Event::new(t + busy / 2, EventKind::PortRead, 1, [64, code, 1, 0])
                            .of_partition(p)
                            .of_process(id),
                    );
                }
                if (p, id) == (2, 2) {
                    parts.push(
                        Event::new(
                            t + busy / 2,
                            EventKind::Application,
                            1,
                            [frame * 10, 0, 0, 0],
                        )
                        .of_partition(p)
                        .of_process(id),
                    );
                }
                let end = (t + 15_000 + busy).min(held);
                if late_miss {
                    let deadline = (start + w.offset_ns + 4 * MS) - EPOCH;
                    parts.push(
                        Event::new(
                            start + w.offset_ns + 4 * MS + 1_000,
                            EventKind::DeadlineMiss,
                            deadline,
                            [0; 4],
                        )
                        .of_partition(p)
                        .of_process(id),
                    );
                    manager.push(
                        Event::new(
                            start + w.offset_ns + 4 * MS + 30_000,
                            EventKind::HealthMonitor,
                            u64::from(ErrorCode::DeadlineMissed.raw()),
                            [
                                u64::from(ErrorLevel::Process.raw()),
                                u64::from(HmAction::ErrorHandler.raw()),
                                0,
                                0,
                            ],
                        )
                        .of_partition(p)
                        .of_process(id),
                    );
                }
                parts.push(state(
                    end,
                    p,
                    id,
                    ProcessState::Waiting,
                    StateReason::WaitTime,
                ));
                t = end + 10_000;
            }
        }
        if frame == 2 {
            manager
                .push(Event::new(start + 12 * MS, EventKind::Lost, LOST, [0; 4]).of_partition(2));
            manager.push(
                Event::new(start + 12 * MS, EventKind::Refused, REFUSED, [0; 4]).of_partition(1),
            );
        }
    }
    manager.extend(parts);
    manager
}
