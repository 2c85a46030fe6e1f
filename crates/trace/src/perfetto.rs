// SPDX-License-Identifier: MIT OR Apache-2.0
//! Chrome trace-event JSON (the "JSON object format" that <https://ui.perfetto.dev> and
//! `chrome://tracing` open): `{"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}`.
//!
//! Tracks (a trace-event "process" groups "threads"; each thread is a track):
//!
//! | process (pid) | threads (tid) |
//! |---|---|
//! | `module` (1) | `module` (0): schedule switches, module-level HM events, lost and refused records; per core `C`: `core C planned` (4C+1) and `core C actual` (4C+2) windows, `core C kernel` (4C+3) kernel task switches when merged in |
//! | `partitions` (2) | per partition `P`: `NAME mode` (1024P) operating modes, spawns, partition HM events; `NAME windows core C` (1024P+1+C) its windows on core C as they happened |
//! | `NAME processes` (100+P) | per process: its states as slices (reason in `args`), deadline misses, HM events and port traffic as instant events; `… APEX` tracks for APEX calls (B/E) |
//!
//! Times are µs after the module epoch (major frame 0), negative before it.

use crate::describe::{args, Value};
use crate::timeline::{mode_name, reason_name, state_name, Trace, ViewError};
use partita_abi::trace::{Event, EventKind, NO_PARTITION, NO_PROCESS};
use serde::Serialize;
use serde_json::{Map, Value as Json};
use std::collections::BTreeMap;
use std::io::Write;

/// pid of the module's tracks (cores and module-wide events).
pub const PID_MODULE: u32 = 1;
/// pid of the partitions' mode and window tracks.
pub const PID_PARTITIONS: u32 = 2;
/// pid of partition 0's processes (partition P: this + P).
pub const PID_PROCESSES: u32 = 100;
/// Tracks per partition in [`PID_PARTITIONS`]: partition P's mode track is
/// `P * PARTITION_TRACKS`, its windows on core C `P * PARTITION_TRACKS + 1 + C`.
pub const PARTITION_TRACKS: u32 = 1024;
/// tid offset of a process's APEX-call track.
pub const TID_APEX: u32 = 1 << 16;

/// One trace event.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TraceEvent {
    /// Name shown on the slice or marker.
    pub name: String,
    /// Category.
    pub cat: &'static str,
    /// Phase: `X` complete, `B`/`E` begin/end, `i` instant, `C` counter, `M` metadata.
    pub ph: &'static str,
    /// µs after the epoch.
    pub ts: f64,
    /// Duration, µs (`X` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dur: Option<f64>,
    /// Process (track group).
    pub pid: u32,
    /// Thread (track).
    pub tid: u32,
    /// Scope of an instant event: `g` global, `p` process, `t` thread.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub s: Option<&'static str>,
    /// Arguments.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub args: Map<String, Json>,
}

/// The tid of an APEX process's state track.
pub fn process_tid(process: i32) -> u32 {
    // main (-1) and the error handler (-2) first, then processes by identifier.
    (i64::from(process) + 2).clamp(0, i64::from(TID_APEX - 1)) as u32
}

/// A partition's mode track.
fn mode_track(partition: u16) -> (u32, u32) {
    (PID_PARTITIONS, u32::from(partition) * PARTITION_TRACKS)
}

/// A partition's window track on `core`.
fn window_track(partition: u16, core: u32) -> (u32, u32) {
    let core = core.min(PARTITION_TRACKS - 2);
    (
        PID_PARTITIONS,
        u32::from(partition) * PARTITION_TRACKS + 1 + core,
    )
}

fn json(v: &Value) -> Json {
    match v {
        Value::Int(i) => Json::from(*i),
        Value::Text(t) => Json::from(t.as_str()),
    }
}

struct Builder<'a> {
    trace: &'a Trace,
    out: Vec<TraceEvent>,
    meta: Vec<TraceEvent>,
    named: BTreeMap<(u32, u32), ()>,
}

impl Builder<'_> {
    fn us(&self, t: u64) -> f64 {
        self.trace.since_epoch(t) as f64 / 1e3
    }

    fn push(
        &mut self,
        ph: &'static str,
        (pid, tid): (u32, u32),
        name: String,
        (start, end): (u64, Option<u64>),
        args: Map<String, Json>,
    ) {
        self.name_track(pid, tid);
        let cat = if pid == PID_MODULE {
            "module"
        } else if pid == PID_PARTITIONS {
            "partition"
        } else {
            "process"
        };
        self.out.push(TraceEvent {
            name,
            cat,
            ph,
            ts: self.us(start),
            dur: end.map(|e| (e.saturating_sub(start)) as f64 / 1e3),
            pid,
            tid,
            s: (ph == "i").then_some("t"),
            args,
        });
    }

    fn meta(&mut self, pid: u32, tid: Option<u32>, name: &str, value: Json) {
        let mut args = Map::new();
        let key = if name.ends_with("sort_index") {
            "sort_index"
        } else {
            "name"
        };
        args.insert(key.into(), value);
        self.meta.push(TraceEvent {
            name: name.into(),
            cat: "__metadata",
            ph: "M",
            ts: 0.0,
            dur: None,
            pid,
            tid: tid.unwrap_or(0),
            s: None,
            args,
        });
    }

    /// Names a track (and its process) the first time it is used.
    fn name_track(&mut self, pid: u32, tid: u32) {
        if self.named.insert((pid, tid), ()).is_some() {
            return;
        }
        if self.named.insert((pid, u32::MAX), ()).is_none() {
            let name = match pid {
                PID_MODULE => format!("module {}", self.trace.meta.module),
                PID_PARTITIONS => "partitions".into(),
                p => format!(
                    "{} processes",
                    self.trace.partition_name((p - PID_PROCESSES) as u16)
                ),
            };
            self.meta(pid, None, "process_name", name.into());
            self.meta(pid, None, "process_sort_index", pid.into());
        }
        let name = match pid {
            PID_MODULE if tid == 0 => "module".to_string(),
            PID_MODULE => {
                let core = (tid - 1) / 4;
                let what = ["planned", "actual", "kernel"][((tid - 1) % 4).min(2) as usize];
                format!("core {core} {what}")
            }
            PID_PARTITIONS => {
                let p = self.trace.partition_name((tid / PARTITION_TRACKS) as u16);
                match tid % PARTITION_TRACKS {
                    0 => format!("{p} mode"),
                    c => format!("{p} windows core {}", c - 1),
                }
            }
            p => {
                let part = (p - PID_PROCESSES) as u16;
                let proc_tid = tid % TID_APEX;
                let name = self.trace.process_name(part, proc_tid as i32 - 2);
                if tid >= TID_APEX {
                    format!("{name} APEX")
                } else {
                    name
                }
            }
        };
        self.meta(pid, Some(tid), "thread_name", name.into());
        self.meta(pid, Some(tid), "thread_sort_index", tid.into());
    }

    fn event_args(&self, e: &Event) -> Map<String, Json> {
        args(self.trace, e)
            .iter()
            .map(|(k, v)| (k.to_string(), json(v)))
            .collect()
    }

    /// The track an event of a partition (or process) goes on.
    fn owner_track(e: &Event) -> Option<(u32, u32)> {
        if e.partition == NO_PARTITION {
            return None;
        }
        Some(if e.process == NO_PROCESS {
            mode_track(e.partition)
        } else {
            (
                PID_PROCESSES + u32::from(e.partition),
                process_tid(e.process),
            )
        })
    }

    fn windows(&mut self) -> Result<(), ViewError> {
        let (lo, hi) = self.trace.bounds;
        for w in self.trace.planned_windows()? {
            let mut a = Map::new();
            a.insert("frame".into(), w.frame.into());
            a.insert("schedule".into(), self.schedule_name(w.schedule).into());
            a.insert("window".into(), w.index.into());
            let (s, e) = (w.start.max(lo), w.end.min(hi));
            let name = self.trace.partition_name(w.partition);
            self.push("X", (PID_MODULE, 4 * w.core + 1), name, (s, Some(e)), a);
        }
        for w in self.trace.actual_windows() {
            let mut a = Map::new();
            a.insert("lateness_ns".into(), w.lateness().into());
            a.insert(
                "planned_start_ns".into(),
                self.trace.since_epoch(w.planned_start).into(),
            );
            a.insert("schedule".into(), self.schedule_name(w.schedule).into());
            a.insert("window".into(), w.index.into());
            match w.end {
                Some(end) => {
                    a.insert(
                        "overrun_ns".into(),
                        (end as i64 - w.planned_end as i64).into(),
                    );
                }
                None => {
                    a.insert("end".into(), "not recorded".into());
                }
            }
            if let Some(f) = w.usable_fraction() {
                a.insert("usable_fraction".into(), f.into());
            }
            let span = (w.start.max(lo), Some(w.until.min(hi)));
            let name = self.trace.partition_name(w.partition);
            self.push("X", (PID_MODULE, 4 * w.core + 2), name, span, a.clone());
            if w.partition != NO_PARTITION {
                let name = format!("window {} ({})", w.index, self.schedule_name(w.schedule));
                // One track per core: a partition's windows on two cores overlap in time.
                let track = window_track(w.partition, w.core);
                self.push("X", track, name, span, a);
            }
        }
        Ok(())
    }

    fn schedule_name(&self, s: usize) -> String {
        self.trace
            .meta
            .schedules
            .get(s)
            .map_or_else(|| format!("schedule {s}"), |s| s.name.clone())
    }

    fn spans(&mut self) {
        for s in self.trace.state_spans() {
            let mut a = Map::new();
            a.insert("reason".into(), reason_name(s.reason).into());
            let track = (
                PID_PROCESSES + u32::from(s.partition),
                process_tid(s.process),
            );
            self.push("X", track, state_name(s.state), (s.start, Some(s.end)), a);
        }
        for m in self.trace.mode_spans() {
            let track = mode_track(m.partition);
            let name = mode_name(m.mode);
            self.push("X", track, name, (m.start, Some(m.end)), Map::new());
        }
    }

    fn instants(&mut self) {
        let trace = self.trace;
        let mut last_switch: BTreeMap<u8, (u64, u64)> = BTreeMap::new();
        let mut apex_open: BTreeMap<(u16, i32), Vec<u64>> = BTreeMap::new();
        for e in &trace.events {
            let a = self.event_args(e);
            let owner = Self::owner_track(e);
            let global = (PID_MODULE, 0);
            match e.kind {
                EventKind::WindowStart
                | EventKind::WindowEnd
                | EventKind::ProcessState
                | EventKind::PartitionMode
                | EventKind::ProcessCreated
                | EventKind::PortCreated => {}
                EventKind::KernelSwitch => {
                    let track = (PID_MODULE, 4 * u32::from(e.core) + 3);
                    if let Some((t, tid)) = last_switch.insert(e.core, (e.time_ns, e.b())) {
                        let name = trace.task_name(tid);
                        self.push("X", track, name, (t, Some(e.time_ns)), a);
                    }
                }
                EventKind::KernelWakeup => {
                    let track = (PID_MODULE, 4 * u32::from(e.core) + 3);
                    self.push(
                        "i",
                        track,
                        format!("wake {}", trace.task_name(e.a)),
                        (e.time_ns, None),
                        a,
                    );
                }
                EventKind::ApexEnter | EventKind::ApexExit => {
                    let Some((pid, tid)) = owner else { continue };
                    let track = (pid, tid + TID_APEX);
                    let open = apex_open.entry((e.partition, e.process)).or_default();
                    let name = format!("APEX service {}", e.a);
                    if e.kind == EventKind::ApexEnter {
                        open.push(e.a);
                        self.push("B", track, name, (e.time_ns, None), a);
                    } else if open.pop().is_some() {
                        self.push("E", track, name, (e.time_ns, None), a);
                    } else {
                        // The call began before the span (or its entry was lost).
                        let name = format!("APEX service {} returned", e.a);
                        self.push("i", track, name, (e.time_ns, None), a);
                    }
                }
                EventKind::Application => {
                    let Some((pid, _)) = owner else { continue };
                    let mut v = Map::new();
                    v.insert("value".into(), e.b().into());
                    let tid = process_tid(e.process);
                    let name = format!("stream {}", e.a);
                    self.push("C", (pid, tid), name, (e.time_ns, None), v);
                }
                _ => {
                    let name = match e.kind {
                        EventKind::PortWrite => {
                            format!("write {}", trace.port_name(e.partition, e.a))
                        }
                        EventKind::PortRead => {
                            format!("read {}", trace.port_name(e.partition, e.a))
                        }
                        EventKind::DeadlineMiss => "deadline miss".into(),
                        EventKind::HealthMonitor => "HM".into(),
                        k => k.name().to_string(),
                    };
                    let track = owner.unwrap_or(global);
                    self.push("i", track, name, (e.time_ns, None), a);
                    if track == global {
                        if let Some(last) = self.out.last_mut() {
                            last.s = Some("g");
                        }
                    }
                }
            }
        }
        // Calls still open at the end of the span end there.
        for ((partition, process), open) in apex_open {
            let track = (
                PID_PROCESSES + u32::from(partition),
                process_tid(process) + TID_APEX,
            );
            for service in open.into_iter().rev() {
                let name = format!("APEX service {service}");
                let end = self.trace.bounds.1;
                self.push("E", track, name, (end, None), Map::new());
            }
        }
    }
}

/// The trace events of `trace`: metadata first, then everything in time order.
pub fn events(trace: &Trace) -> Result<Vec<TraceEvent>, ViewError> {
    let mut b = Builder {
        trace,
        out: Vec::new(),
        meta: Vec::new(),
        named: BTreeMap::new(),
    };
    b.windows()?;
    b.spans();
    b.instants();
    // Stable: a B and the E after it at the same time keep their order.
    b.out.sort_by(|x, y| x.ts.total_cmp(&y.ts));
    let mut all = b.meta;
    all.extend(b.out);
    Ok(all)
}

/// The `otherData` object: the run, and how complete the trace is.
fn other_data(trace: &Trace) -> Json {
    let mut other = Map::new();
    other.insert("module".into(), trace.meta.module.clone().into());
    other.insert("backend".into(), trace.meta.backend.clone().into());
    other.insert("epoch_unix_ns".into(), trace.meta.epoch_unix_ns.into());
    other.insert("kernel".into(), trace.meta.host.kernel.clone().into());
    other.insert("cpu".into(), trace.meta.host.cpu.clone().into());
    other.insert("events_lost".into(), trace.lost().into());
    other.insert("records_refused".into(), trace.refused().into());
    other.insert("truncated_tail_bytes".into(), trace.truncated_tail.into());
    Json::Object(other)
}

/// Writes `trace` as a trace-event JSON object, one event at a time (no document in memory).
pub fn write(trace: &Trace, out: &mut impl Write) -> Result<(), ViewError> {
    let json_err = std::io::Error::from;
    out.write_all(b"{\"traceEvents\":[\n")?;
    for (i, e) in events(trace)?.iter().enumerate() {
        if i > 0 {
            out.write_all(b",\n")?;
        }
        serde_json::to_writer(&mut *out, e).map_err(json_err)?;
    }
    out.write_all(b"\n],\"displayTimeUnit\":\"ns\",\"otherData\":")?;
    serde_json::to_writer(&mut *out, &other_data(trace)).map_err(json_err)?;
    out.write_all(b"}\n")?;
    Ok(())
}
