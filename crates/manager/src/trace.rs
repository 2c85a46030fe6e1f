// SPDX-License-Identifier: MIT OR Apache-2.0
//! Recording a run for `partita run --trace FILE` (see `docs/tracing.md`).
//!
//! Every producer owns a shared-memory ring ([`partita_sys::trace::RingMapping`]): one per
//! scheduler thread (window starts and ends, schedule switches), one for the manager's other
//! threads (partition spawns and modes, the health monitor), one per partition (passed to it
//! like the control block: its runtime records process, port and application events), and
//! one for the kernel's scheduling events when `--trace-kernel` asks for them
//! (crate::ktrace). A record is a push of a 64-byte event: no allocation, no formatting, no
//! lock. Without `--trace` nothing is created and each place that records tests one
//! `Option`.
//!
//! A drain thread at normal priority ([`Tracing`]) empties every ring each
//! [`DRAIN_EVERY`] into the trace file ([`partita_trace::TraceWriter`]). Partition rings are
//! untrusted ([`admit`]): the partition field is overwritten with the ring's owner, kinds
//! only the manager may record and undecodable records are refused and counted (REFUSED),
//! and every ring's lost counter becomes LOST events.

use crate::host::HostInfo;
use crate::partition::Partition;
use partita_abi::trace::{Event, EventKind, Source, NO_CORE, NO_PARTITION};
use partita_abi::{DecodeError, OperatingMode};
use partita_config::CompiledPlan;
use partita_schedule::FramePlan;
use partita_sys::time::monotonic_ns;
use partita_sys::trace::RingMapping;
use partita_trace::{
    HostMeta, PartitionMeta, ScheduleMeta, TraceError, TraceMeta, TraceWriter, WindowMeta,
};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Events each ring holds by default (`--trace-buffer`): 16384 events, 1 MiB of shared
/// memory per ring, over 1.6 s of a producer recording 10 000 events per second between two
/// drains ten ms apart.
pub const DEFAULT_TRACE_BUFFER: u32 = 16384;

/// How often the drain thread empties the rings.
pub const DRAIN_EVERY: Duration = Duration::from_millis(10);

/// What `partita run --trace` asks for.
#[derive(Debug, Clone)]
pub struct TraceOptions {
    /// The trace file (created, truncated).
    pub file: PathBuf,
    /// Events per ring: a power of two up to `partita_abi::trace::MAX_CAPACITY`.
    pub buffer: u32,
    /// Merge the kernel's `sched_switch` / `sched_wakeup` events of the module's cores
    /// (tracefs; needs root).
    pub kernel: bool,
    /// Have the partitions' runtimes record every APEX call (`APEX_ENTER` / `APEX_EXIT`).
    pub apex_calls: bool,
}

impl TraceOptions {
    /// Tracing into `file` with the default buffer, without kernel events.
    pub fn new(file: PathBuf) -> TraceOptions {
        TraceOptions {
            file,
            buffer: DEFAULT_TRACE_BUFFER,
            kernel: false,
            apex_calls: false,
        }
    }
}

/// What the trace of a run holds, for the run report.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TraceReport {
    /// The trace file.
    pub file: String,
    /// Events written (LOST and REFUSED included).
    pub events: u64,
    /// Events lost because a ring was full (the LOST events add up to this).
    pub lost: u64,
    /// Records of partition rings refused (the REFUSED events add up to this).
    pub refused: u64,
    /// Kernel scheduling events merged in.
    pub kernel_events: u64,
    /// Why the file is incomplete, if it is (a write error, a failure of the kernel events).
    pub error: Option<String>,
}

/// A handle that records into one ring: events without a core get the handle's.
#[derive(Clone)]
pub(crate) struct Recorder {
    ring: Arc<RingMapping>,
    core: u8,
}

impl Recorder {
    /// Records `event` (dropped and counted when the ring is full).
    pub fn record(&self, mut event: Event) {
        if event.core == NO_CORE {
            event.core = self.core;
        }
        self.ring.ring().push(&event);
    }
}

/// A logical CPU as the event's core field carries it ([`NO_CORE`] past 254).
pub(crate) fn core_field(core: u32) -> u8 {
    u8::try_from(core)
        .ok()
        .filter(|&c| c != NO_CORE)
        .unwrap_or(NO_CORE)
}

/// A partition index as the event's partition field carries it.
pub(crate) fn partition_field(index: usize) -> u16 {
    u16::try_from(index)
        .ok()
        .filter(|&p| p != NO_PARTITION)
        .unwrap_or(NO_PARTITION)
}

/// Every ring of a traced run.
pub(crate) struct Rings {
    module: Arc<RingMapping>,
    cores: Vec<(u32, Arc<RingMapping>)>,
    partitions: Vec<Arc<RingMapping>>,
    kernel: Arc<RingMapping>,
}

impl Rings {
    /// Creates the rings of a run on `cores` with `partitions` partitions, `capacity` events
    /// each.
    pub fn create(
        cores: &[u32],
        partitions: usize,
        capacity: u32,
    ) -> Result<Rings, partita_sys::SysError> {
        let ring = |name: String| RingMapping::create(&name, capacity).map(Arc::new);
        Ok(Rings {
            module: ring("partita-trace-module".into())?,
            cores: cores
                .iter()
                .map(|&c| Ok((c, ring(format!("partita-trace-core{c}"))?)))
                .collect::<Result<_, partita_sys::SysError>>()?,
            partitions: (0..partitions)
                .map(|i| ring(format!("partita-trace-p{i}")))
                .collect::<Result<_, _>>()?,
            kernel: ring("partita-trace-kernel".into())?,
        })
    }

    /// The recorder of the manager's threads other than the scheduler's.
    pub fn module(&self) -> Recorder {
        Recorder {
            ring: self.module.clone(),
            core: NO_CORE,
        }
    }

    /// The recorder of `core`'s scheduler thread.
    pub fn core(&self, core: u32) -> Option<Recorder> {
        self.cores
            .iter()
            .find(|(c, _)| *c == core)
            .map(|(c, r)| Recorder {
                ring: r.clone(),
                core: core_field(*c),
            })
    }

    /// The recorder of the kernel's events (each carries its core).
    pub fn kernel(&self) -> Recorder {
        Recorder {
            ring: self.kernel.clone(),
            core: NO_CORE,
        }
    }

    /// Partition `index`'s ring.
    pub fn partition(&self, index: usize) -> Option<Arc<RingMapping>> {
        self.partitions.get(index).cloned()
    }
}

/// A record taken from a ring, as it goes into the file: `None` when refused. `owner` is the
/// partition owning the ring (`None`: a manager ring, trusted): a partition's record gets
/// its owner's index whatever it says, and a kind only the manager may record is refused.
pub(crate) fn admit(record: Result<Event, DecodeError>, owner: Option<u16>) -> Option<Event> {
    let e = record.ok()?;
    match owner {
        None => Some(e),
        Some(_) if e.kind.source() == Source::Manager => None,
        Some(p) => Some(e.of_partition(p)),
    }
}

/// One ring as the drain thread sees it.
struct Drained {
    ring: Arc<RingMapping>,
    /// The partition owning it (`None`: a manager ring).
    owner: Option<u16>,
    /// Its core (manager rings of scheduler threads), for its LOST events.
    core: u8,
    /// Its lost counter when last read.
    lost_seen: u64,
    /// Whether it carries the kernel's events.
    kernel: bool,
    /// The partition owning it, to translate its thread ids (its PID namespace's) to the
    /// host's.
    partition: Option<Arc<Partition>>,
}

/// The totals of a drain.
#[derive(Debug, Default, Clone, Copy)]
struct Totals {
    events: u64,
    lost: u64,
    refused: u64,
    kernel: u64,
}

impl Drained {
    /// The host thread id of thread `tid` of the owning partition (its PID namespace's
    /// number), from `NSpid` in `/proc/<partition>/task/*/status`; 0 when it cannot be found
    /// (the partition ended before the record was drained).
    fn host_tid(&self, tid: u64) -> u64 {
        let Some(p) = &self.partition else {
            return 0;
        };
        let pid = p.host_pid.load(Ordering::Acquire);
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            return 0;
        };
        for t in tasks.flatten() {
            let Ok(status) = std::fs::read_to_string(t.path().join("status")) else {
                continue;
            };
            let ids: Vec<u64> = status
                .lines()
                .find_map(|l| l.strip_prefix("NSpid:"))
                .map(|v| {
                    v.split_whitespace()
                        .filter_map(|n| n.parse().ok())
                        .collect()
                })
                .unwrap_or_default();
            if ids.last() == Some(&tid) {
                return ids.first().copied().unwrap_or(0);
            }
        }
        0
    }

    /// Moves what the ring holds into `out` (at most one ring's worth per call, so that a
    /// producer as fast as the drain cannot hold it), then its LOST and REFUSED counts.
    fn drain(&mut self, out: &mut TraceWriter, t: &mut Totals) -> Result<(), TraceError> {
        let ring = self.ring.ring();
        let mut refused = 0;
        for _ in 0..ring.capacity() {
            let Some(record) = ring.pop() else {
                break;
            };
            match admit(record, self.owner) {
                Some(mut e) => {
                    if e.kind == EventKind::ProcessCreated {
                        e.a = self.host_tid(e.a);
                    }
                    out.write(&e)?;
                    t.events += 1;
                    if self.kernel {
                        t.kernel += 1;
                    }
                }
                None => refused += 1,
            }
        }
        let now = monotonic_ns();
        let owner = self.owner.unwrap_or(NO_PARTITION);
        // The partition can write its counter: only an increase counts.
        let lost = ring.lost();
        if lost > self.lost_seen {
            let n = lost - self.lost_seen;
            let e = Event::new(now, EventKind::Lost, n, [0; 4])
                .on_core(self.core)
                .of_partition(owner);
            out.write(&e)?;
            t.events += 1;
            t.lost += n;
        }
        self.lost_seen = lost;
        if refused > 0 {
            let e = Event::new(now, EventKind::Refused, refused, [0; 4]).of_partition(owner);
            out.write(&e)?;
            t.events += 1;
            t.refused += refused;
        }
        Ok(())
    }
}

/// The drain thread of a traced run and what it writes to.
pub(crate) struct Tracing {
    pub rings: Arc<Rings>,
    file: PathBuf,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<(Totals, Option<TraceError>)>>,
    kernel: Option<crate::ktrace::KernelTrace>,
    kernel_error: Option<String>,
    /// Per partition: the mode last recorded (PARTITION_MODE).
    modes: Vec<Option<OperatingMode>>,
    /// The partitions, by index.
    parts: Vec<Arc<Partition>>,
}

impl Tracing {
    /// Creates the rings of a traced run (before the partitions are spawned: each gets its
    /// ring with its control block).
    pub fn new(
        opts: &TraceOptions,
        cores: &[u32],
        parts: &[Arc<Partition>],
    ) -> Result<Tracing, partita_sys::SysError> {
        let rings = Arc::new(Rings::create(cores, parts.len(), opts.buffer)?);
        for p in parts {
            if let Some(r) = rings.partition(p.index) {
                let _ = p.trace_ring.set(r);
                p.trace_apex_calls
                    .store(opts.apex_calls, std::sync::atomic::Ordering::Relaxed);
            }
        }
        Ok(Tracing {
            rings,
            file: opts.file.clone(),
            stop: Arc::new(AtomicBool::new(false)),
            thread: None,
            kernel: None,
            kernel_error: None,
            modes: vec![None; parts.len()],
            parts: parts.to_vec(),
        })
    }

    /// Creates the trace file with `meta` and starts the drain thread (and, with
    /// `opts.kernel`, the kernel's events on `cores`); the thread reports its totals to
    /// `progress` after every round.
    pub fn start(
        &mut self,
        mut meta: TraceMeta,
        opts: &TraceOptions,
        cores: &[u32],
        progress: Option<Arc<crate::Progress>>,
    ) -> Result<(), TraceError> {
        if opts.kernel {
            match crate::ktrace::KernelTrace::start(cores, self.rings.kernel()) {
                Ok(k) => self.kernel = Some(k),
                Err(e) => self.kernel_error = Some(e.to_string()),
            }
        }
        meta.kernel_events = self.kernel.is_some();
        meta.apex_calls = opts.apex_calls;
        let out = TraceWriter::create(&self.file, &meta)?;
        let mut rings: Vec<Drained> = Vec::new();
        let mut add = |ring: &Arc<RingMapping>, owner: Option<usize>, core, kernel| {
            rings.push(Drained {
                ring: ring.clone(),
                owner: owner.map(partition_field),
                core,
                lost_seen: 0,
                kernel,
                partition: owner.and_then(|i| self.parts.get(i).cloned()),
            })
        };
        add(&self.rings.module, None, NO_CORE, false);
        for (c, r) in &self.rings.cores {
            add(r, None, core_field(*c), false);
        }
        for (i, r) in self.rings.partitions.iter().enumerate() {
            add(r, Some(i), NO_CORE, false);
        }
        add(&self.rings.kernel, None, NO_CORE, true);
        let stop = self.stop.clone();
        let thread = std::thread::Builder::new()
            .name("partita-trace".into())
            .spawn(move || drain_loop(&mut rings, out, &stop, progress.as_deref()))
            .map_err(|source| TraceError::Io {
                path: self.file.clone(),
                source,
            })?;
        self.thread = Some(thread);
        Ok(())
    }

    /// Why the kernel's events are missing, when they were asked for and could not be had.
    pub fn kernel_error(&self) -> Option<&str> {
        self.kernel_error.as_deref()
    }

    /// Records the operating mode of every partition that changed since the last call
    /// (PARTITION_MODE; called by the supervisor every 10 ms, the instant is when it saw the
    /// change).
    pub fn note_modes(&mut self, parts: &[Arc<Partition>]) {
        let rec = self.rings.module();
        for p in parts {
            let mode = {
                let d = p.state.lock().expect("partition state");
                d.life.reported_mode(|| p.control().operating_mode())
            };
            let Ok(mode) = mode else {
                continue;
            };
            let Some(seen) = self.modes.get_mut(p.index) else {
                continue;
            };
            if *seen == Some(mode) {
                continue;
            }
            *seen = Some(mode);
            let condition = p.control().start_condition.load(Ordering::Acquire);
            let e = Event::new(
                monotonic_ns(),
                EventKind::PartitionMode,
                u64::from(mode.raw()),
                [u64::from(condition), 0, 0, 0],
            )
            .of_partition(partition_field(p.index));
            rec.record(e);
        }
    }

    /// Stops the kernel's events and the drain thread after a last drain; what the file
    /// holds.
    pub fn finish(mut self) -> TraceReport {
        let mut error = self.kernel_error.take();
        if let Some(k) = self.kernel.take() {
            if let Err(e) = k.stop() {
                error.get_or_insert(e.to_string());
            }
        }
        self.stop.store(true, Ordering::Release);
        let (totals, write_error) = match self.thread.take().map(|t| t.join()) {
            Some(Ok(r)) => r,
            Some(Err(_)) => (Totals::default(), None),
            None => (Totals::default(), None),
        };
        if let Some(e) = write_error {
            error = Some(e.to_string());
        }
        TraceReport {
            file: self.file.display().to_string(),
            events: totals.events,
            lost: totals.lost,
            refused: totals.refused,
            kernel_events: totals.kernel,
            error,
        }
    }
}

impl Drop for Tracing {
    /// A run torn down before [`Tracing::finish`] (a failed start): the drain thread ends
    /// after a last drain, the kernel's events stop.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        if let Some(k) = self.kernel.take() {
            let _ = k.stop();
        }
    }
}

/// Drains every ring each [`DRAIN_EVERY`] until `stop`, then once more; the totals and the
/// first write error (after which nothing more is written).
fn drain_loop(
    rings: &mut [Drained],
    mut out: TraceWriter,
    stop: &AtomicBool,
    progress: Option<&crate::Progress>,
) -> (Totals, Option<TraceError>) {
    let mut t = Totals::default();
    loop {
        let last = stop.load(Ordering::Acquire);
        for r in rings.iter_mut() {
            if let Err(e) = r.drain(&mut out, &mut t) {
                return (t, Some(e));
            }
        }
        if let Some(p) = progress {
            p.note_trace(t.events, t.lost);
        }
        if last {
            break;
        }
        std::thread::sleep(DRAIN_EVERY);
    }
    match out.finish() {
        Ok(_) => (t, None),
        Err(e) => (t, Some(e)),
    }
}

/// Position of each window of `plan` among the windows of its core in offset order (the
/// window argument of WINDOW_START and WINDOW_END, and [`WindowMeta::index`]); by index in
/// `plan.windows`.
pub(crate) fn core_window_index(plan: &FramePlan) -> Vec<usize> {
    let mut order: Vec<usize> = (0..plan.windows.len()).collect();
    order.sort_by_key(|&i| (plan.windows[i].core, plan.windows[i].offset, i));
    let mut index = vec![0; plan.windows.len()];
    let mut prev_core = None;
    let mut k = 0;
    for i in order {
        let c = plan.windows[i].core;
        if prev_core != Some(c) {
            prev_core = Some(c);
            k = 0;
        }
        index[i] = k;
        k += 1;
    }
    index
}

/// The file header of a run of `plan` from `epoch` on `host` with `backend` (without kernel
/// events: [`Tracing::start`] says whether they are there).
pub(crate) fn meta(plan: &CompiledPlan, host: &HostInfo, backend: &str, epoch: u64) -> TraceMeta {
    let now_mono = monotonic_ns();
    let now_unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let epoch_unix_ns = (now_unix as i128 + epoch as i128 - now_mono as i128).max(0) as u64;
    TraceMeta {
        version: partita_trace::META_VERSION,
        event_version: partita_abi::trace::VERSION,
        module: plan.module_name.clone(),
        config: Some(plan.source_path.display().to_string()).filter(|p| !p.is_empty()),
        backend: backend.to_string(),
        epoch_ns: epoch,
        epoch_unix_ns,
        host: HostMeta {
            kernel: host.kernel.clone(),
            cpu: cpu_model(),
            cores: host.cpus,
            revision: Some(env!("PARTITA_REVISION").to_string()),
        },
        partitions: plan
            .partitions
            .iter()
            .enumerate()
            .map(|(i, p)| PartitionMeta {
                index: partition_field(i),
                identifier: i64::from(p.id),
                name: p.name.clone(),
                cores: plan.cores_of(i),
            })
            .collect(),
        schedules: plan
            .schedules
            .iter()
            .enumerate()
            .map(|(index, s)| {
                let at = core_window_index(&s.plan);
                let mut windows: Vec<WindowMeta> = s
                    .plan
                    .windows
                    .iter()
                    .zip(&at)
                    .map(|(w, &k)| WindowMeta {
                        core: w.core,
                        index: k,
                        partition: partition_field(w.partition),
                        offset_ns: w.offset,
                        duration_ns: w.duration,
                    })
                    .collect();
                windows.sort_by_key(|w| (w.core, w.index));
                ScheduleMeta {
                    index,
                    name: s.name.clone().unwrap_or_default(),
                    major_frame_ns: s.plan.major_frame,
                    windows,
                }
            })
            .collect(),
        initial_schedule: plan.initial_schedule,
        apex_calls: false,
        kernel_events: false,
    }
}

/// The CPU model name from `/proc/cpuinfo` (empty when unknown).
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use partita_trace::TraceReader;

    fn meta() -> TraceMeta {
        TraceMeta {
            version: partita_trace::META_VERSION,
            event_version: partita_abi::trace::VERSION,
            module: "m".into(),
            config: None,
            backend: "signals".into(),
            epoch_ns: 0,
            epoch_unix_ns: 0,
            host: HostMeta::default(),
            partitions: Vec::new(),
            schedules: Vec::new(),
            initial_schedule: 0,
            apex_calls: false,
            kernel_events: false,
        }
    }

    /// The drain thread moves every ring into the file, a full manager ring's losses
    /// become a LOST event of its core, and the report counts what the file holds.
    #[test]
    fn the_drain_thread_writes_every_ring_and_counts_losses() {
        let dir = std::env::temp_dir().join(format!("partita-drain-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let opts = TraceOptions {
            buffer: 64,
            ..TraceOptions::new(dir.join("t.trace"))
        };
        let mut t = Tracing::new(&opts, &[3], &[]).unwrap();
        let core = t.rings.core(3).unwrap();
        let module = t.rings.module();
        // Before the drain starts: 68 events into a 64-event ring, 4 lost.
        for i in 0..68 {
            core.record(Event::new(i, EventKind::WindowStart, i, [0; 4]));
        }
        module.record(Event::new(1, EventKind::PartitionSpawned, 42, [0; 4]));
        let progress = Arc::new(crate::Progress::new());
        t.start(meta(), &opts, &[3], Some(progress.clone()))
            .unwrap();
        // While it runs (fewer than the ring holds: however late the drain, none is lost).
        for i in 0..40 {
            module.record(Event::new(100 + i, EventKind::PartitionMode, 1, [0; 4]));
            if i % 8 == 7 {
                std::thread::sleep(DRAIN_EVERY);
            }
        }
        let report = t.finish();
        let events = partita_trace::TraceReader::open(&dir.join("t.trace"))
            .unwrap()
            .read_all()
            .unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(report.events, events.len() as u64, "{report:?}");
        assert_eq!((report.lost, report.refused), (4, 0), "{report:?}");
        // The status line's counters saw the same totals.
        assert_eq!(
            progress.snapshot().trace,
            Some(crate::TraceProgress {
                written: report.events,
                lost: 4
            })
        );
        let count = |k: EventKind| events.iter().filter(|e| e.kind == k).count();
        assert_eq!(count(EventKind::WindowStart), 64);
        assert_eq!(count(EventKind::PartitionSpawned), 1);
        assert_eq!(count(EventKind::PartitionMode), 40);
        let lost: Vec<&Event> = events
            .iter()
            .filter(|e| e.kind == EventKind::Lost)
            .collect();
        assert_eq!(lost.len(), 1);
        assert_eq!(
            (lost[0].a, lost[0].core, lost[0].partition),
            (4, 3, NO_PARTITION)
        );
        // Each core-ring event carries the ring's core.
        assert!(events
            .iter()
            .filter(|e| e.kind == EventKind::WindowStart)
            .all(|e| e.core == 3));
    }

    #[test]
    fn windows_are_numbered_per_core_in_offset_order() {
        let w = |core, offset| partita_schedule::Window {
            id: 0,
            partition: 0,
            core,
            offset,
            duration: 1,
            period_start: false,
        };
        let plan = FramePlan {
            major_frame: 100,
            windows: vec![w(0, 50), w(1, 10), w(0, 0), w(1, 5), w(0, 20)],
        };
        assert_eq!(core_window_index(&plan), [2, 1, 0, 0, 1]);
    }

    /// A partition ring full of forged records, drained as the drain thread does.
    #[test]
    fn forged_partition_records_are_refused_and_counted() {
        let ring = Arc::new(RingMapping::create("forged", 8).unwrap());
        let r = ring.ring();
        // Its own record, claiming to be partition 5's: kept, rewritten to its owner (2).
        let own = Event::new(10, EventKind::Application, 7, [1, 0, 0, 0]).of_partition(5);
        assert!(r.push(&own));
        // Manager kinds: refused.
        assert!(r.push(&Event::new(11, EventKind::WindowStart, 0, [0; 4]).of_partition(2)));
        assert!(r.push(&Event::new(12, EventKind::Lost, 99, [0; 4])));
        // Garbage in a slot: pushed as a valid event, then scribbled over (unknown kind).
        assert!(r.push(&Event::new(13, EventKind::PortWrite, 1, [0; 4])));
        let dir = std::env::temp_dir().join(format!("partita-forged-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.trace");
        let mut out = TraceWriter::create(&path, &meta()).unwrap();
        // Scribble over the last slot's kind through a second mapping, as another process.
        let other = RingMapping::map(ring.fd().try_clone().unwrap(), 8).unwrap();
        // Word 1 holds the kind (bytes 8..10): one no build knows.
        other.slots()[3].words[1].store(0xEEEE, std::sync::atomic::Ordering::Relaxed);
        // Fill to overflow: 4 more fit, 2 are lost.
        for i in 0..6 {
            r.push(&Event::new(20 + i, EventKind::Application, 0, [0; 4]));
        }
        let mut d = Drained {
            ring: ring.clone(),
            owner: Some(2),
            core: NO_CORE,
            lost_seen: 0,
            kernel: false,
            partition: None,
        };
        let mut t = Totals::default();
        d.drain(&mut out, &mut t).unwrap();
        out.finish().unwrap();
        let events = TraceReader::open(&path).unwrap().read_all().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let kinds: Vec<EventKind> = events.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            [
                EventKind::Application,
                EventKind::Application,
                EventKind::Application,
                EventKind::Application,
                EventKind::Application,
                EventKind::Lost,
                EventKind::Refused,
            ]
        );
        assert!(events[..5].iter().all(|e| e.partition == 2), "{events:?}");
        assert_eq!((events[5].a, events[5].partition), (2, 2));
        assert_eq!((events[6].a, events[6].partition), (3, 2));
        assert_eq!((t.events, t.lost, t.refused), (7, 2, 3));
    }
}
