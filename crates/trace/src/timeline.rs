// SPDX-License-Identifier: MIT OR Apache-2.0
//! A trace read whole and put in time order, with what every converter needs from it: the
//! names of partitions, processes and ports, the planned and actual windows, the spans of
//! process states and partition modes, and a selection (time span or frames, core,
//! partition).

use crate::{TraceError, TraceMeta, TraceReader};
use partita_abi::trace::{Event, EventKind, StateReason, NO_CORE, NO_PARTITION, NO_PROCESS};
use partita_abi::{OperatingMode, ProcessState, ERROR_HANDLER_PROCESS_ID, MAIN_PROCESS_ID};
use std::collections::BTreeMap;
use std::path::Path;

/// Why a selection or a view of a trace cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// The file could not be read.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// `--partition` names no partition of the trace.
    #[error("no partition `{name}` in the trace (its partitions: {known})")]
    UnknownPartition {
        /// The name asked for.
        name: String,
        /// The partitions the trace has, comma separated.
        known: String,
    },
    /// `--core` names a core no window of the trace uses.
    #[error("core {core} has no window in the trace (its cores: {known})")]
    UnknownCore {
        /// The core asked for.
        core: u32,
        /// The cores the plan uses, comma separated.
        known: String,
    },
    /// The span is empty or reversed.
    #[error("empty span: from {from_ns} ns to {to_ns} ns after the epoch")]
    EmptySpan {
        /// Start, ns after the epoch.
        from_ns: i64,
        /// End, ns after the epoch.
        to_ns: i64,
    },
    /// A frame range that is not `N..M` with N < M.
    #[error("`{text}` is not a frame range N..M with N < M (frames count from 0, M excluded)")]
    BadFrames {
        /// The text given.
        text: String,
    },
    /// The trace's header names no schedule the events can be placed in.
    #[error("the trace header's initial schedule {index} is not one of its {count} schedules")]
    NoSchedule {
        /// The initial schedule index.
        index: usize,
        /// Schedules in the header.
        count: usize,
    },
    /// The header's major frames are so short against the trace's length that listing its
    /// frames would not end (a corrupt header).
    #[error("the trace spans more than {max} major frames (a major frame of {frame_ns} ns over {span_ns} ns)")]
    TooManyFrames {
        /// The limit.
        max: u64,
        /// The major frame that exceeded it.
        frame_ns: u64,
        /// Time from the epoch to the last event.
        span_ns: u64,
    },
    /// Writing the output failed.
    #[error("writing the output: {0}")]
    Write(#[from] std::io::Error),
}

/// Which part of a trace to convert.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// The time span.
    pub span: Span,
    /// Only this core (its windows, and the events of partitions that run on it).
    pub core: Option<u32>,
    /// Only this partition (by name).
    pub partition: Option<String>,
}

/// A time span of a trace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Span {
    /// Everything.
    #[default]
    All,
    /// From and to, ns after the epoch (either end open).
    Time {
        /// Start (inclusive).
        from_ns: Option<i64>,
        /// End (exclusive).
        to_ns: Option<i64>,
    },
    /// Major frames `first..end` (frame 0 starts at the epoch).
    Frames {
        /// First frame.
        first: u64,
        /// First frame not included.
        end: u64,
    },
}

impl Span {
    /// Parses a frame range `N..M` (M excluded).
    pub fn parse_frames(text: &str) -> Result<Span, ViewError> {
        let bad = || ViewError::BadFrames {
            text: text.to_string(),
        };
        let (a, b) = text.trim().split_once("..").ok_or_else(bad)?;
        let first: u64 = a.trim().parse().map_err(|_| bad())?;
        let end: u64 = b.trim().parse().map_err(|_| bad())?;
        if first >= end {
            return Err(bad());
        }
        Ok(Span::Frames { first, end })
    }
}

/// One planned window occurrence (from the plan and the frames).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlannedWindow {
    /// Logical CPU.
    pub core: u32,
    /// Partition index.
    pub partition: u16,
    /// Schedule index.
    pub schedule: usize,
    /// Window index in the core's plan.
    pub index: usize,
    /// Major frame number.
    pub frame: u64,
    /// Start, `CLOCK_MONOTONIC` ns.
    pub start: u64,
    /// End, `CLOCK_MONOTONIC` ns.
    pub end: u64,
}

/// One window as it happened (a `WINDOW_START`, and its `WINDOW_END` when recorded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActualWindow {
    /// Logical CPU.
    pub core: u32,
    /// Partition index, from the plan ([`NO_PARTITION`] when the plan has no such window).
    pub partition: u16,
    /// Schedule index.
    pub schedule: usize,
    /// Window index in the core's plan.
    pub index: usize,
    /// Planned start.
    pub planned_start: u64,
    /// Planned end (planned start + the window's length in the plan).
    pub planned_end: u64,
    /// When the partition was released.
    pub start: u64,
    /// When it was held, if recorded.
    pub end: Option<u64>,
    /// Where a drawing ends it: its end, else the next window start on its core, else the
    /// end of the span.
    pub until: u64,
}

impl ActualWindow {
    /// Start lateness, ns (negative: early).
    pub fn lateness(&self) -> i64 {
        self.start as i64 - self.planned_start as i64
    }

    /// The fraction of the planned length the partition really had, when the end is known.
    pub fn usable_fraction(&self) -> Option<f64> {
        let planned = self.planned_end.saturating_sub(self.planned_start);
        let end = self.end?;
        (planned > 0).then(|| end.saturating_sub(self.start) as f64 / planned as f64)
    }
}

/// A span of time a process spent in one state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateSpan {
    /// Partition index.
    pub partition: u16,
    /// APEX process identifier.
    pub process: i32,
    /// The state (raw `PROCESS_STATE_TYPE` when unknown).
    pub state: u64,
    /// Why it entered it (raw [`StateReason`]).
    pub reason: u64,
    /// Start.
    pub start: u64,
    /// End (the next change, or the end of the trace or span).
    pub end: u64,
}

/// A span of time a partition spent in one operating mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModeSpan {
    /// Partition index.
    pub partition: u16,
    /// The mode (raw `OPERATING_MODE_TYPE`).
    pub mode: u64,
    /// Start.
    pub start: u64,
    /// End.
    pub end: u64,
}

/// Most major frames a trace may span (a 20 ms frame for 55 hours).
pub const MAX_FRAMES: u64 = 10_000_000;

/// A trace in time order, with its names.
#[derive(Debug, Clone)]
pub struct Trace {
    /// The header.
    pub meta: TraceMeta,
    /// The events in the span, in time order (ties keep file order).
    pub events: Vec<Event>,
    /// State in force at the start of a selected span: the last process state and partition
    /// mode before it, and a window started before it (empty for a whole trace).
    pub carried: Vec<Event>,
    /// Bytes of a partial event at the end of the file.
    pub truncated_tail: usize,
    /// The span covered, `CLOCK_MONOTONIC` ns: start inclusive, end exclusive.
    pub bounds: (u64, u64),
    /// Process names by (partition, process), from `PROCESS_CREATED` of the whole trace.
    pub process_names: BTreeMap<(u16, i32), String>,
    /// Port names by (partition, port identifier), from `PORT_CREATED` of the whole trace.
    pub port_names: BTreeMap<(u16, u64), String>,
    /// APEX processes by host thread id (`PROCESS_CREATED`), and partitions by the host
    /// process id of their main thread (`PARTITION_SPAWNED`, process [`NO_PROCESS`]): the
    /// kernel's task switches name them.
    pub host_tasks: BTreeMap<u64, (u16, i32)>,
    /// The module schedule switches of the whole trace (time, new schedule): a span's frames
    /// follow them even when the switch lies before the span.
    pub schedule_switches: Vec<(u64, usize)>,
}

impl Trace {
    /// Reads a trace file whole.
    pub fn read(path: &Path) -> Result<Trace, TraceError> {
        let mut r = TraceReader::open(path)?;
        let events = r.read_all()?;
        Ok(Trace::new(r.meta().clone(), events, r.truncated_tail()))
    }

    /// A trace from its header and events (in any order).
    pub fn new(meta: TraceMeta, mut events: Vec<Event>, truncated_tail: usize) -> Trace {
        events.sort_by_key(|e| e.time_ns);
        let mut process_names = BTreeMap::new();
        let mut port_names = BTreeMap::new();
        let mut host_tasks = BTreeMap::new();
        for e in &events {
            let name = String::from_utf8_lossy(e.name()).into_owned();
            match e.kind {
                EventKind::ProcessCreated => {
                    process_names.insert((e.partition, e.process), name);
                    host_tasks.insert(e.a, (e.partition, e.process));
                }
                EventKind::PartitionSpawned => {
                    host_tasks.insert(e.a, (e.partition, NO_PROCESS));
                }
                EventKind::PortCreated => {
                    port_names.insert((e.partition, port_id(e.a)), name);
                }
                _ => {}
            }
        }
        let schedule_switches = events
            .iter()
            .filter(|e| e.kind == EventKind::ScheduleSwitch)
            .filter_map(|e| Some((e.time_ns, usize::try_from(e.a).ok()?)))
            .collect();
        let first = events.first().map_or(meta.epoch_ns, |e| e.time_ns);
        let last = events.last().map_or(meta.epoch_ns, |e| e.time_ns);
        Trace {
            bounds: (first.min(meta.epoch_ns), last.max(meta.epoch_ns) + 1),
            meta,
            events,
            carried: Vec::new(),
            truncated_tail,
            process_names,
            port_names,
            host_tasks,
            schedule_switches,
        }
    }

    /// ns after the epoch.
    pub fn since_epoch(&self, t: u64) -> i64 {
        t as i64 - self.meta.epoch_ns as i64
    }

    /// The partition's name, or `#N` when the header has no partition N.
    pub fn partition_name(&self, index: u16) -> String {
        if index == NO_PARTITION {
            return String::new();
        }
        self.meta
            .partitions
            .iter()
            .find(|p| p.index == index)
            .map_or_else(|| format!("#{index}"), |p| p.name.clone())
    }

    /// The process's name: its `PROCESS_CREATED` name, `main`, `error handler`, or `process N`.
    pub fn process_name(&self, partition: u16, process: i32) -> String {
        if let Some(n) = self.process_names.get(&(partition, process)) {
            return n.clone();
        }
        match process {
            NO_PROCESS => String::new(),
            MAIN_PROCESS_ID => "main".into(),
            ERROR_HANDLER_PROCESS_ID => "error handler".into(),
            p => format!("process {p}"),
        }
    }

    /// What a host task is: `PARTITION/PROCESS` for an APEX process's thread, `PARTITION`
    /// for a partition's main thread, `tid N` otherwise.
    pub fn task_name(&self, tid: u64) -> String {
        match self.host_tasks.get(&tid) {
            Some(&(p, NO_PROCESS)) => self.partition_name(p),
            Some(&(p, id)) => format!("{}/{}", self.partition_name(p), self.process_name(p, id)),
            None => format!("tid {tid}"),
        }
    }

    /// The port's name, or `port N`.
    pub fn port_name(&self, partition: u16, port: u64) -> String {
        self.port_names
            .get(&(partition, port))
            .cloned()
            .unwrap_or_else(|| format!("port {port}"))
    }

    /// The cores the plan uses, in order.
    pub fn cores(&self) -> Vec<u32> {
        let mut c: Vec<u32> = self
            .meta
            .schedules
            .iter()
            .flat_map(|s| s.windows.iter().map(|w| w.core))
            .collect();
        c.sort_unstable();
        c.dedup();
        c
    }

    /// Events lost (sum of `LOST` events).
    pub fn lost(&self) -> u64 {
        self.count_of(EventKind::Lost)
    }

    /// Records refused (sum of `REFUSED` events).
    pub fn refused(&self) -> u64 {
        self.count_of(EventKind::Refused)
    }

    fn count_of(&self, kind: EventKind) -> u64 {
        self.events
            .iter()
            .filter(|e| e.kind == kind)
            .map(|e| e.a)
            .sum()
    }

    /// The start of every major frame from the epoch to the end of the events: schedule
    /// switches (at frame boundaries) change the frame length, and the new schedule's frames
    /// count from the switch.
    pub fn frame_starts(&self) -> Result<Vec<(u64, usize)>, ViewError> {
        let count = self.meta.schedules.len();
        let mf = |s: usize| self.meta.schedules.get(s).map(|s| s.major_frame_ns.max(1));
        let initial = self.meta.initial_schedule;
        let mut frame = mf(initial).ok_or(ViewError::NoSchedule {
            index: initial,
            count,
        })?;
        let mut sched = initial;
        let mut anchor = self.meta.epoch_ns;
        let end = self
            .events
            .last()
            .map_or(anchor, |e| e.time_ns)
            .max(self.bounds.1.saturating_sub(1))
            .max(anchor);
        let mut switches = self
            .schedule_switches
            .iter()
            .copied()
            .filter(|(_, s)| mf(*s).is_some())
            .peekable();
        let mut out = Vec::new();
        let mut t = anchor;
        let too_many = |frame: u64| ViewError::TooManyFrames {
            max: MAX_FRAMES,
            frame_ns: frame,
            span_ns: end - self.meta.epoch_ns,
        };
        while t <= end {
            if out.len() as u64 >= MAX_FRAMES {
                return Err(too_many(frame));
            }
            if let Some(&(s, to)) = switches.peek() {
                // The switch happened at the frame boundary nearest its event.
                let k = (s.saturating_sub(anchor) + frame / 2) / frame;
                let at = anchor + k * frame;
                if at <= t {
                    switches.next();
                    sched = to;
                    frame = mf(to).unwrap_or(frame);
                    anchor = at;
                    t = at;
                    out.retain(|&(f, _)| f < at);
                }
            }
            out.push((t, sched));
            t += frame;
        }
        Ok(out)
    }

    /// The planned windows of every frame overlapping the trace's bounds.
    pub fn planned_windows(&self) -> Result<Vec<PlannedWindow>, ViewError> {
        let frames = self.frame_starts()?;
        let mut out = Vec::new();
        for (n, &(start, s)) in frames.iter().enumerate() {
            let Some(sched) = self.meta.schedules.get(s) else {
                continue;
            };
            for w in &sched.windows {
                let (ws, we) = (start + w.offset_ns, start + w.offset_ns + w.duration_ns);
                if we > self.bounds.0 && ws < self.bounds.1 {
                    out.push(PlannedWindow {
                        core: w.core,
                        partition: w.partition,
                        schedule: s,
                        index: w.index,
                        frame: n as u64,
                        start: ws,
                        end: we,
                    });
                }
            }
        }
        Ok(out)
    }

    /// The windows as they happened: every `WINDOW_START` (carried ones included) with the
    /// `WINDOW_END` that follows it on its core.
    pub fn actual_windows(&self) -> Vec<ActualWindow> {
        let mut open: BTreeMap<u8, ActualWindow> = BTreeMap::new();
        let mut out = Vec::new();
        for e in self.carried.iter().chain(&self.events) {
            match e.kind {
                EventKind::WindowStart => {
                    if let Some(mut w) = open.remove(&e.core) {
                        w.until = e.time_ns;
                        out.push(w);
                    }
                    let (schedule, index) = (e.b() as usize, e.c() as usize);
                    let planned = self.meta.schedules.get(schedule).and_then(|s| {
                        s.windows
                            .iter()
                            .find(|w| w.core == u32::from(e.core) && w.index == index)
                    });
                    open.insert(
                        e.core,
                        ActualWindow {
                            core: u32::from(e.core),
                            partition: planned.map_or(NO_PARTITION, |w| w.partition),
                            schedule,
                            index,
                            planned_start: e.a,
                            planned_end: e.a + planned.map_or(0, |w| w.duration_ns),
                            start: e.time_ns,
                            end: None,
                            until: self.bounds.1,
                        },
                    );
                }
                EventKind::WindowEnd => {
                    if let Some(mut w) = open.remove(&e.core) {
                        w.end = Some(e.time_ns);
                        w.until = e.time_ns;
                        out.push(w);
                    }
                }
                _ => {}
            }
        }
        out.extend(open.into_values());
        out.sort_by_key(|w| (w.start, w.core));
        out
    }

    /// The spans of process states: from each `PROCESS_STATE` to the process's next one, the
    /// last open until the end of the bounds.
    pub fn state_spans(&self) -> Vec<StateSpan> {
        let mut open: BTreeMap<(u16, i32), StateSpan> = BTreeMap::new();
        let mut out = Vec::new();
        for e in self.carried.iter().chain(&self.events) {
            if e.kind != EventKind::ProcessState {
                continue;
            }
            let start = e.time_ns.max(self.bounds.0);
            if let Some(mut s) = open.remove(&(e.partition, e.process)) {
                s.end = start;
                out.push(s);
            }
            open.insert(
                (e.partition, e.process),
                StateSpan {
                    partition: e.partition,
                    process: e.process,
                    state: e.a,
                    reason: e.b(),
                    start,
                    end: start,
                },
            );
        }
        for mut s in open.into_values() {
            s.end = self.bounds.1.max(s.start);
            out.push(s);
        }
        out.sort_by_key(|s| (s.start, s.partition, s.process));
        out
    }

    /// The spans of partition modes.
    pub fn mode_spans(&self) -> Vec<ModeSpan> {
        let mut open: BTreeMap<u16, ModeSpan> = BTreeMap::new();
        let mut out = Vec::new();
        for e in self.carried.iter().chain(&self.events) {
            if e.kind != EventKind::PartitionMode {
                continue;
            }
            let start = e.time_ns.max(self.bounds.0);
            if let Some(mut m) = open.remove(&e.partition) {
                m.end = start;
                out.push(m);
            }
            open.insert(
                e.partition,
                ModeSpan {
                    partition: e.partition,
                    mode: e.a,
                    start,
                    end: start,
                },
            );
        }
        for mut m in open.into_values() {
            m.end = self.bounds.1.max(m.start);
            out.push(m);
        }
        out.sort_by_key(|m| (m.start, m.partition));
        out
    }

    /// The part of the trace `sel` asks for.
    pub fn select(&self, sel: &Selection) -> Result<Trace, ViewError> {
        let partition = match &sel.partition {
            None => None,
            Some(name) => Some(
                self.meta
                    .partitions
                    .iter()
                    .find(|p| &p.name == name)
                    .map(|p| p.index)
                    .ok_or_else(|| ViewError::UnknownPartition {
                        name: name.clone(),
                        known: self
                            .meta
                            .partitions
                            .iter()
                            .map(|p| p.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                    })?,
            ),
        };
        if let Some(core) = sel.core {
            let cores = self.cores();
            if !cores.contains(&core) {
                return Err(ViewError::UnknownCore {
                    core,
                    known: cores
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
        }
        let (from, to) = self.span_bounds(sel.span)?;
        let keep = |e: &Event| self.belongs(e, sel.core, partition);
        let mut carried: BTreeMap<(u16, u8, i32, u16), Event> = BTreeMap::new();
        for e in self.events.iter().take_while(|e| e.time_ns < from) {
            if e.kind == EventKind::WindowEnd {
                // That core's window ended before the span.
                carried.remove(&(NO_PARTITION, e.core, NO_PROCESS, 2));
                continue;
            }
            let key = match e.kind {
                EventKind::ProcessState => (e.partition, NO_CORE, e.process, 0),
                EventKind::PartitionMode => (e.partition, NO_CORE, NO_PROCESS, 1),
                EventKind::WindowStart => (NO_PARTITION, e.core, NO_PROCESS, 2),
                _ => continue,
            };
            if keep(e) {
                carried.insert(key, *e);
            }
        }
        Ok(Trace {
            meta: self.meta.clone(),
            events: self
                .events
                .iter()
                .filter(|e| e.time_ns >= from && e.time_ns < to && keep(e))
                .copied()
                .collect(),
            carried: carried.into_values().collect(),
            truncated_tail: self.truncated_tail,
            bounds: (from, to),
            process_names: self.process_names.clone(),
            port_names: self.port_names.clone(),
            host_tasks: self.host_tasks.clone(),
            schedule_switches: self.schedule_switches.clone(),
        })
    }

    /// Absolute bounds of a span.
    fn span_bounds(&self, span: Span) -> Result<(u64, u64), ViewError> {
        let abs = |rel: i64| (self.meta.epoch_ns as i64).saturating_add(rel).max(0) as u64;
        let (from, to) = match span {
            Span::All => self.bounds,
            Span::Time { from_ns, to_ns } => (
                from_ns.map_or(self.bounds.0, abs),
                to_ns.map_or(self.bounds.1, abs),
            ),
            Span::Frames { first, end } => {
                let frames = self.frame_starts()?;
                let at = |n: u64| {
                    frames.get(n as usize).map(|f| f.0).unwrap_or_else(|| {
                        // Past the events: continue the last frame's length.
                        let (last, s) = frames.last().copied().unwrap_or((self.meta.epoch_ns, 0));
                        let mf = self
                            .meta
                            .schedules
                            .get(s)
                            .map_or(1, |s| s.major_frame_ns.max(1));
                        last + (n - (frames.len() as u64 - 1)) * mf
                    })
                };
                (at(first), at(end))
            }
        };
        if from >= to {
            return Err(ViewError::EmptySpan {
                from_ns: self.since_epoch(from),
                to_ns: self.since_epoch(to),
            });
        }
        Ok((from, to))
    }

    /// Whether `e` belongs to the core and partition selected.
    fn belongs(&self, e: &Event, core: Option<u32>, partition: Option<u16>) -> bool {
        let window_partition = || {
            self.meta
                .schedules
                .get(e.b() as usize)
                .and_then(|s| {
                    s.windows
                        .iter()
                        .find(|w| w.core == u32::from(e.core) && w.index == e.c() as usize)
                })
                .map(|w| w.partition)
        };
        let global = e.core == NO_CORE && e.partition == NO_PARTITION;
        let part_of = match e.kind {
            EventKind::WindowStart | EventKind::WindowEnd => window_partition(),
            _ if e.partition != NO_PARTITION => Some(e.partition),
            _ => None,
        };
        let core_ok = match core {
            None => true,
            Some(c) => {
                global
                    || (e.core != NO_CORE && u32::from(e.core) == c)
                    || (e.core == NO_CORE
                        && part_of.is_some_and(|p| {
                            self.meta
                                .partitions
                                .iter()
                                .any(|m| m.index == p && m.cores.contains(&c))
                        }))
            }
        };
        let partition_ok = match partition {
            None => true,
            Some(p) => global || part_of == Some(p),
        };
        core_ok && partition_ok
    }
}

/// The port identifier in argument `a` of `PORT_CREATED` (without the queuing bit).
pub fn port_id(a: u64) -> u64 {
    a & (partita_abi::trace::PORT_CREATED_QUEUING - 1)
}

/// The name of a process state (`RUNNING`), or its number.
pub fn state_name(raw: u64) -> String {
    u32::try_from(raw)
        .ok()
        .and_then(ProcessState::from_raw)
        .map_or_else(|| format!("state {raw}"), |s| s.name().to_string())
}

/// The name of a state reason (`PERIODIC_RELEASE`), or its number.
pub fn reason_name(raw: u64) -> String {
    u32::try_from(raw)
        .ok()
        .and_then(StateReason::from_raw)
        .map_or_else(|| format!("reason {raw}"), |s| s.name().to_string())
}

/// The name of an operating mode (`NORMAL`), or its number.
pub fn mode_name(raw: u64) -> String {
    u32::try_from(raw)
        .ok()
        .and_then(OperatingMode::from_raw)
        .map_or_else(|| format!("mode {raw}"), |s| s.name().to_string())
}
