// SPDX-License-Identifier: MIT OR Apache-2.0
//! The per-core scheduler threads.
//!
//! Each thread owns the boundary timeline of one core. It sleeps on an absolute
//! `CLOCK_MONOTONIC` deadline (a futex wait with an absolute time-out, so a shutdown can wake
//! it), and at each boundary holds the partition that leaves the core and releases the one that
//! enters. The deadline of boundary `i` of frame `k` is always `epoch + k * major_frame +
//! offset_i`: lateness never accumulates. A thread that wakes after one or more later
//! boundaries have already passed jumps to the boundary in force and counts the skipped ones,
//! but never past a frame start: there the module may switch to another module schedule (see
//! [`crate::msched`]), and the thread then continues on the new schedule's timeline, whose
//! frames are counted from the switch instant.

use crate::lead::{FreezeLead, Outcome, WakePredictor};
use crate::lifecycle::Life;
use crate::msched::{Schedules, WindowStart};
use crate::partition::Partition;
use crate::stats::Histogram;
use partita_abi::OperatingMode;
use partita_schedule::{BoundaryCursor, CoreTimeline};
use partita_sys::control::NO_MODE_REQUEST;
use partita_sys::time::monotonic_ns;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// State shared by the scheduler threads and the supervisor.
pub(crate) struct Shared {
    pub parts: Vec<Arc<Partition>>,
    /// Per CPU: bumped (and woken) by a partition's creation thread when its task count
    /// crosses a multiple of crate::lead::HINT_TASKS; the CPU's scheduler thread then looks
    /// at the partition's `tasks_hint` before the boundary it sleeps for.
    pub nudge: Arc<[AtomicU32]>,
    /// 0 while running; 1 asks the scheduler threads to stop.
    pub stop: AtomicU32,
    /// Bumped when a partition asks for a mode change the supervisor must carry out.
    pub work: AtomicU32,
    pub epoch: u64,
    pub end: Option<u64>,
    pub tolerance: u64,
    pub cpu_accounting: bool,
    /// Wake at most this long before each boundary and spin until it (0: plain absolute
    /// sleep).
    pub spin_margin: u64,
    /// Wake before each boundary by the wake-up latency learnt online (crate::lead::
    /// WakePredictor, at most `spin_margin`) rather than the whole spin margin, and let the
    /// wake guard react only to lateness while the partition had the CPU.
    pub learn_wake: bool,
    /// Module schedules and the switch between them.
    pub schedules: Arc<Schedules>,
    /// Window starts each core keeps for the report.
    pub trace_limit: usize,
    /// The rings of a traced run (crate::trace).
    pub trace: Option<Arc<crate::trace::Rings>>,
    /// The core every scheduler thread runs on (`None`: the core it switches).
    pub scheduler_core: Option<u32>,
    /// Live counters for the caller (crate::progress).
    pub progress: Option<Arc<crate::Progress>>,
}

/// What one scheduler thread measured.
pub(crate) struct CoreStats {
    pub core: u32,
    pub boundaries: u64,
    pub missed: u64,
    /// Major frames started.
    pub frames: u64,
    pub windows: u64,
    pub lateness: Histogram,
    pub wake_lateness: Histogram,
    /// The wake-up latency planned for at each boundary (the spin left before it).
    pub planned_wake: Histogram,
    pub switch_cost: Histogram,
    pub errors: Vec<String>,
    pub realtime: Option<String>,
    pub trace: Vec<WindowStart>,
    pub trace_dropped: u64,
    /// The last window start (kept whatever the trace limit, for the drift over a long run).
    pub last_window: Option<WindowStart>,
    /// Per partition: (largest freeze lead + wake guard used, boundaries frozen with one).
    pub freeze_ahead: Vec<(u64, u64)>,
    /// Per partition: the time it owned this core as planned (its windows and background,
    /// from boundary to boundary), ns: the CPU time the schedule promised it here.
    pub granted: Vec<u64>,
}

/// Runs the schedule of one core until the end time or a stop request. `tls` holds the core's
/// timeline in every module schedule; the thread starts on `initial`.
pub(crate) fn run_core(
    shared: &Shared,
    core: u32,
    tls: Vec<CoreTimeline>,
    initial: usize,
    rt: bool,
) -> CoreStats {
    let mut st = CoreStats::new(core, shared);
    let on = shared.scheduler_core.unwrap_or(core);
    if let Err(e) = partita_sys::sched::set_affinity(0, &[on]) {
        st.errors.push(format!(
            "pinning the scheduler of core {core} to core {on}: {e}"
        ));
    }
    if rt {
        if let Err(e) = partita_sys::sched::set_fifo(0, crate::SCHEDULER_PRIORITY) {
            st.realtime = Some(e.to_string());
        }
    }
    // Wake-ups exactly when asked (see partita_sys::sched::set_timer_slack).
    let _ = partita_sys::sched::set_timer_slack(1);
    if tls.iter().any(|tl| tl.boundaries.is_empty()) {
        return st;
    }
    let trace = shared
        .trace
        .as_ref()
        .and_then(|r| r.core(core))
        .map(|rec| CoreTrace {
            rec,
            windows: (0..tls.len())
                .map(|s| crate::trace::core_window_index(&shared.schedules.get(s).plan))
                .collect(),
            open: None,
        });
    let mut walk = CoreWalk {
        shared,
        core,
        trace,
        cur: tls[initial].cursor(),
        tls,
        sched: initial,
        start: shared.epoch,
        current: None,
        entered_at: shared.epoch,
        leads: vec![FreezeLead::default(); shared.parts.len()],
        wake: WakePredictor::default(),
        st,
    };
    while walk.boundary() {}
    if let Some(p) = walk.current {
        // It owned the core until the end of the run (or the stop request).
        let now = monotonic_ns();
        let until = shared.end.map_or(now, |e| e.min(now));
        walk.st.granted[p] += until.saturating_sub(walk.entered_at);
        leave(shared, &shared.parts[p], &mut walk.st);
    }
    walk.st
}

impl CoreStats {
    fn new(core: u32, shared: &Shared) -> CoreStats {
        CoreStats {
            core,
            boundaries: 0,
            missed: 0,
            frames: 0,
            windows: 0,
            lateness: Histogram::new(),
            wake_lateness: Histogram::new(),
            planned_wake: Histogram::new(),
            switch_cost: Histogram::new(),
            errors: Vec::new(),
            realtime: None,
            trace: Vec::with_capacity(shared.trace_limit),
            trace_dropped: 0,
            last_window: None,
            freeze_ahead: vec![(0, 0); shared.parts.len()],
            granted: vec![0; shared.parts.len()],
        }
    }
}

/// One scheduler thread walking its core's boundaries.
struct CoreWalk<'a> {
    shared: &'a Shared,
    core: u32,
    /// The core's timeline in every module schedule.
    tls: Vec<CoreTimeline>,
    /// The running schedule.
    sched: usize,
    /// The absolute start of its frame 0.
    start: u64,
    /// The next boundary.
    cur: BoundaryCursor,
    /// The partition on the core.
    current: Option<usize>,
    /// When `current` entered this core.
    entered_at: u64,
    /// Each partition's freeze lead (crate::lead).
    leads: Vec<FreezeLead>,
    /// The wake-up latency to plan for (crate::lead).
    wake: WakePredictor,
    st: CoreStats,
    /// What a traced run records with (`None`: not traced, one test per boundary).
    trace: Option<CoreTrace>,
}

/// A scheduler thread's recording of window starts and ends (a traced run).
struct CoreTrace {
    rec: crate::trace::Recorder,
    /// Per schedule: each window's position on its core (crate::trace::core_window_index).
    windows: Vec<Vec<usize>>,
    /// The window on the core: (schedule, window index in its plan, partition).
    open: Option<(usize, usize, usize)>,
}

impl CoreTrace {
    /// Boundary `b` of schedule `sched`, due at `deadline`: the window on the core ended
    /// (its partition held at `held`) and the next one started (its partition released at
    /// `released`).
    fn boundary(
        &mut self,
        sched: usize,
        b: &partita_schedule::Boundary,
        deadline: u64,
        held: u64,
        released: u64,
    ) {
        use partita_abi::trace::EventKind;
        if let Some((s, w, p)) = self.open.take() {
            self.window(EventKind::WindowEnd, held, deadline, (s, w, p));
        }
        if let (Some(n), Some(w)) = (b.next, b.window) {
            self.window(EventKind::WindowStart, released, deadline, (sched, w, n));
            self.open = Some((sched, w, n));
        }
    }

    /// Records a window's start or end at `time`, planned at `planned`, of window `w` of
    /// schedule `s` given to partition `p`.
    fn window(
        &self,
        kind: partita_abi::trace::EventKind,
        time: u64,
        planned: u64,
        (s, w, p): (usize, usize, usize),
    ) {
        let index = self
            .windows
            .get(s)
            .and_then(|v| v.get(w))
            .map_or(u64::MAX, |&k| k as u64);
        let e = partita_abi::trace::Event::new(time, kind, planned, [s as u64, index, 0, 0]);
        self.rec
            .record(e.of_partition(crate::trace::partition_field(p)));
    }
}

/// How the scheduler thread woke for a boundary.
struct Wake {
    /// The boundary (absolute ns).
    deadline: u64,
    /// The partition it takes off the core, and how it is probed for an early freeze.
    leaving: Option<usize>,
    probe: Probe,
    /// The freeze lead and wake guard used for `leaving`.
    lead: u64,
    guard: u64,
    /// The wake-up latency planned for: where the spin before the boundary starts is
    /// `deadline - planned`.
    planned: u64,
    /// Where the spin before the boundary starts.
    spin_from: u64,
    /// When the sleep was to end, and when it did.
    wake_at: u64,
    first_wake: u64,
}

impl CoreWalk<'_> {
    fn tl(&self) -> &CoreTimeline {
        &self.tls[self.sched]
    }

    /// Handles the next boundary; `false` when the run ends.
    fn boundary(&mut self) -> bool {
        let Some(wake) = self.sleep() else {
            return false;
        };
        let mut early = self.freeze_early(&wake);
        if let Some(e) = early.as_mut() {
            if e.lead > 0 && wake.probe == Probe::Freezer {
                let p = &self.shared.parts[e.part];
                let checks = (wake.first_wake + e.lead / 2, wake.first_wake + e.lead);
                match watch_freeze(self.shared, p, checks, wake.spin_from) {
                    Some(o) => e.outcome = o,
                    None => return false,
                }
            } else if !sleep_until(self.shared, wake.spin_from) {
                return false;
            }
        }
        // The last stretch is spun: timer and wake-up latency are absorbed by the margin.
        let deadline = wake.deadline;
        let mut woke = monotonic_ns();
        while woke < deadline {
            std::hint::spin_loop();
            woke = monotonic_ns();
        }
        self.st.lateness.record(woke.saturating_sub(deadline));
        if self.cur.index == 0 {
            self.frame_start(deadline);
            self.st.frames += 1;
            if let Some(p) = &self.shared.progress {
                p.frame(self.st.frames);
            }
        }
        let b = *self.cur.boundary(self.tl());
        // The instants the leaving partition was held and the entering one released (a
        // traced run; the boundary's when the partition stays).
        let (mut held, mut released) = (woke, woke);
        let tracing = self.trace.is_some();
        if self.current != b.next {
            if let Some(p) = self.current {
                self.st.granted[p] += deadline.saturating_sub(self.entered_at);
                leave(self.shared, &self.shared.parts[p], &mut self.st);
                if tracing {
                    held = match early.as_ref() {
                        Some(e) if e.held_at > 0 => e.held_at,
                        _ => monotonic_ns(),
                    };
                }
            }
            if let Some(n) = b.next {
                enter(self.shared, &self.shared.parts[n], &mut self.st);
                if tracing {
                    released = monotonic_ns();
                }
            }
            self.current = b.next;
            self.entered_at = deadline;
        } else if let Some(e) = early.take() {
            // A module schedule switch kept the partition on the core after all.
            thaw_early(&self.shared.parts[e.part], &mut self.st);
        } else if let Some(n) = b.next {
            // The partition keeps the core (a background of a core without windows has only
            // this boundary): a new incarnation started meanwhile is let in here.
            rejoin(&self.shared.parts[n], &mut self.st);
        }
        // Learn from this freeze for the partition's next window (after the successor was let
        // in: a check costs it nothing then).
        if let Some(e) = early {
            self.learn(&wake, e);
        }
        if let Some(t) = &mut self.trace {
            t.boundary(self.sched, &b, deadline, held, released);
        }
        if let (Some(n), Some(w)) = (b.next, b.window) {
            self.count_window(n, w, deadline, woke);
        }
        // A request posted since the last boundary: publish the pending change.
        self.shared.schedules.poll_pending(&self.shared.parts);
        let done = monotonic_ns();
        self.st.switch_cost.record(done.saturating_sub(woke));
        self.st.boundaries += 1;
        self.advance(done);
        true
    }

    /// Sleeps until the next boundary less the spin margin, the freeze lead and the wake guard
    /// of the partition leaving there; `None` at the end of the run or on a stop request.
    fn sleep(&mut self) -> Option<Wake> {
        let shared = self.shared;
        let deadline = self.cur.at(self.tl(), self.start);
        if shared.end.is_some_and(|end| deadline >= end) {
            return None;
        }
        // The partition this boundary takes off the core (as planned: a module schedule
        // switch at a frame start may still keep it), and how early to freeze it.
        let leaving = self
            .current
            .filter(|&p| Some(p) != self.cur.boundary(self.tl()).next);
        let window = deadline.saturating_sub(self.entered_at);
        let probe = leaving.map_or(Probe::Nothing, |p| probe_of(shared, &shared.parts[p]));
        // A hint of many new tasks not taken yet (given while it did not leave).
        let take_hint = |leads: &mut [FreezeLead]| {
            if let Some(p) = leaving.filter(|_| probe != Probe::Nothing) {
                let tasks = shared.parts[p].tasks_hint.swap(0, Ordering::AcqRel);
                if tasks > 0 {
                    leads[p].hint(tasks);
                }
            }
        };
        take_hint(&mut self.leads);
        let leads = &self.leads;
        let (mut lead, mut guard) =
            leaving.map_or((0, 0), |p| (leads[p].lead(window), leads[p].guard(window)));
        // Sleep until the deadline less the planned wake-up latency (learnt, at most the spin
        // margin), the lead and the wake guard, or a stop request; a partition that meanwhile
        // creates many tasks gets a lead at once (its creation thread nudges this thread).
        let planned = if shared.learn_wake {
            self.wake.planned(shared.spin_margin)
        } else {
            shared.spin_margin
        };
        self.st.planned_wake.record(planned);
        let spin_from = deadline.saturating_sub(planned);
        let mut wake_at = spin_from.saturating_sub(lead + guard);
        let slept_from = monotonic_ns();
        loop {
            match sleep_until_nudged(shared, self.core, wake_at) {
                Woke::Stop => return None,
                Woke::Due => break,
                Woke::Nudged => {
                    take_hint(&mut self.leads);
                    if let Some(p) = leaving {
                        let l = &self.leads[p];
                        (lead, guard) = (l.lead(window), l.guard(window));
                        wake_at = spin_from.saturating_sub(lead + guard);
                    }
                }
            }
        }
        let first_wake = monotonic_ns();
        let late = first_wake.saturating_sub(wake_at);
        self.st.wake_lateness.record(late);
        // A timer's latency only when there was a sleep (not a wake-up instant already past).
        if slept_from < wake_at {
            self.wake.note(late);
        }
        Some(Wake {
            deadline,
            leaving,
            probe,
            lead,
            guard,
            planned,
            spin_from,
            wake_at,
            first_wake,
        })
    }

    /// Freezes the leaving partition now, before the boundary: its tasks reach the freezer in
    /// its own time (with a lead or a guard, the scheduler sleeps meanwhile, and with a lead it
    /// checks when the partition is frozen).
    fn freeze_early(&self, wake: &Wake) -> Option<Early> {
        let p = wake.leaving?;
        // Only if the partition does not go on running on another core at the boundary.
        let frame = &self.shared.schedules.get(self.sched).plan;
        let t = wake.deadline.saturating_sub(self.start) % frame.major_frame.max(1);
        if frame.runs_elsewhere_at(p, self.core, t) {
            return None;
        }
        let measure = (wake.probe == Probe::CpuTime).then_some(wake.lead);
        let request_ns = freeze_early(&self.shared.parts[p], measure)?;
        Some(Early {
            held_at: if self.trace.is_some() {
                monotonic_ns()
            } else {
                0
            },
            part: p,
            lead: wake.lead,
            request_ns,
            wake_late: wake.first_wake.saturating_sub(wake.wake_at),
            outcome: Outcome::Late,
        })
    }

    /// A frame start: the module may switch schedules here (every core alike).
    fn frame_start(&mut self, deadline: u64) {
        let shared = self.shared;
        let rec = self.trace.as_ref().map(|t| &t.rec);
        let on_switch = |to: usize, from: usize| {
            if let Some(r) = rec {
                let e = partita_abi::trace::Event::new(
                    deadline,
                    partita_abi::trace::EventKind::ScheduleSwitch,
                    to as u64,
                    [from as u64, 0, 0, 0],
                );
                r.record(e);
            }
        };
        if let Some(to) = shared.schedules.at_frame_start(
            &shared.parts,
            &shared.work,
            self.sched,
            deadline,
            on_switch,
        ) {
            self.sched = to;
            self.start = deadline;
            self.cur = self.tl().cursor();
        }
    }

    /// Adjusts the freeze lead of a partition frozen early from what the freeze showed.
    fn learn(&mut self, wake: &Wake, e: Early) {
        if wake.lead + wake.guard > 0 {
            let fa = &mut self.st.freeze_ahead[e.part];
            *fa = (fa.0.max(wake.lead + wake.guard), fa.1 + 1);
        }
        let p = &self.shared.parts[e.part];
        // The part of its window up to the scheduler's wake-up in which the partition did not
        // have the CPU (see lead::FreezeLead::note_wake).
        let window_cpu = p.state.lock().expect("partition state").window_cpu.take();
        let foreign =
            window_cpu.map(|(t0, cpu)| wake.first_wake.saturating_sub(t0).saturating_sub(cpu));
        let l = &mut self.leads[e.part];
        l.note_wake(
            e.wake_late,
            wake.planned,
            foreign.filter(|_| self.shared.learn_wake),
        );
        if wake.probe == Probe::CpuTime {
            // What its previous early stop cost (measured when it entered since).
            let cost = p.state.lock().expect("partition state").stop_cost.take();
            if let Some(c) = cost {
                l.after_stop(c);
            }
        } else if e.lead > 0 {
            l.after_lead(e.outcome);
        } else {
            let checked = l.check_due(e.request_ns).then(|| is_frozen(p));
            l.after_lazy(checked, e.request_ns);
        }
    }

    /// Counts window `w` of partition `n` starting at `deadline` (handled at `woke`).
    fn count_window(&mut self, n: usize, w: usize, deadline: u64, woke: u64) {
        let shared = self.shared;
        let mut d = shared.parts[n].state.lock().expect("partition state");
        if d.life == Life::Live {
            d.windows += 1;
        }
        drop(d);
        self.st.windows += 1;
        let spec = shared.schedules.get(self.sched);
        let start = WindowStart {
            core: self.core,
            schedule: crate::msched::schedule_id(spec),
            frame: self.cur.frame,
            window: spec.plan.windows[w].id,
            partition: n,
            planned_ns: deadline - shared.epoch,
            actual_ns: woke.saturating_sub(shared.epoch),
        };
        if self.st.trace.len() < shared.trace_limit {
            self.st.trace.push(start);
        } else {
            self.st.trace_dropped += 1;
        }
        self.st.last_window = Some(start);
    }

    /// Moves to the boundary after the one handled at `done`, or to the one in force when
    /// later ones have passed meanwhile (never past a frame start: a possible schedule
    /// switch), counting those skipped.
    fn advance(&mut self, done: u64) {
        let tl = &self.tls[self.sched];
        let next = self.cur.next(tl);
        if next.at(tl, self.start) <= done {
            let inf = self.cur.catch_up(tl, self.start, done);
            let len = tl.boundaries.len() as u64;
            let pos = |c: BoundaryCursor| c.frame * len + c.index as u64;
            let skipped = pos(inf).saturating_sub(pos(self.cur));
            self.st.missed += skipped;
            if let Some(p) = &self.shared.progress {
                p.missed(skipped);
            }
            self.cur = inf;
        } else {
            self.cur = next;
        }
    }
}

fn leave(shared: &Shared, p: &Partition, st: &mut CoreStats) {
    let mut d = p.state.lock().expect("partition state");
    d.active = d.active.saturating_sub(1);
    if d.active > 0 || !d.running {
        return;
    }
    if d.stopped_early {
        // Frozen before the boundary already (freeze_early).
        d.stopped_early = false;
    } else if let Some(sw) = &d.switch {
        if let Err(e) = sw.stop() {
            st.errors.push(format!("holding {}: {e}", p.spec().name));
        }
    }
    d.running = false;
    if shared.cpu_accounting {
        d.usage_at_stop = p.usage.as_ref().map(|u| u.read_ns());
        // When its window began and the CPU time it used since (crate::lead::note_wake).
        d.window_cpu = match (d.window_start.take(), d.usage_at_stop) {
            (Some((t0, u0)), Some(u)) => Some((t0, u.saturating_sub(u0))),
            _ => None,
        };
    }
    // A mode change requested by the partition: IDLE, or a restart the supervisor performs.
    let c = p.control();
    let req = c.mode_request.load(Ordering::Acquire);
    if d.life == Life::Live && req != NO_MODE_REQUEST {
        match OperatingMode::from_raw(req) {
            Some(OperatingMode::Idle) => d.life = Life::Idle,
            Some(m @ (OperatingMode::ColdStart | OperatingMode::WarmStart)) => {
                d.life = Life::RestartPending(m)
            }
            // NORMAL is entered by the partition itself, never requested; anything else is
            // not a mode. Counted with the other refused boundary records.
            Some(OperatingMode::Normal) | None => {
                p.output.lock().expect("counters").bad_reports += 1;
            }
        }
        c.mode_request.store(NO_MODE_REQUEST, Ordering::Release);
        shared.work.fetch_add(1, Ordering::AcqRel);
    }
}

fn enter(shared: &Shared, p: &Partition, st: &mut CoreStats) {
    let mut d = p.state.lock().expect("partition state");
    d.active += 1;
    if d.stopped_early {
        // Frozen ahead of a boundary of another core, and entering here meanwhile.
        d.stopped_early = false;
        if let Some(sw) = &d.switch {
            if let Err(e) = sw.resume() {
                st.errors.push(format!("releasing {}: {e}", p.spec().name));
            }
        }
    }
    if d.running || d.life != Life::Live {
        return;
    }
    let stop_request = d.stop_request.take();
    if let (Some(u0), Some(u)) = (d.usage_at_stop.take(), p.usage.as_ref()) {
        let now = u.read_ns();
        let over = now.saturating_sub(u0);
        d.window_start = Some((monotonic_ns(), now));
        d.overrun.record(over);
        // Stopped early by signals: the request, what it used until the boundary, and after.
        if let Some((request_ns, u_req, lead)) = stop_request {
            d.stop_cost = Some(crate::lead::StopCost {
                took: request_ns + u0.saturating_sub(u_req) + over,
                spill: over,
                lead,
            });
        }
        if over > shared.tolerance {
            d.overruns += 1;
        }
    }
    release(p, &mut d, st);
}

/// Lets partition `p` (its state `d`) run: its first window releases a new incarnation
/// ("go"), any other thaws or continues it.
fn release(p: &Partition, d: &mut crate::partition::Dyn, st: &mut CoreStats) {
    if let Some(go) = d.pending_go.take() {
        if let Err(e) = partita_sys::spawn::release(go) {
            st.errors.push(format!("releasing {}: {e}", p.spec().name));
        }
    } else if let Some(sw) = &d.switch {
        if let Err(e) = sw.resume() {
            st.errors.push(format!("releasing {}: {e}", p.spec().name));
        }
    }
    d.running = true;
}

/// At a boundary that keeps partition `p` on the core: releases it if it is held though
/// inside its time (a new incarnation, restarted while it owned the core).
fn rejoin(p: &Partition, st: &mut CoreStats) {
    let mut d = p.state.lock().expect("partition state");
    if d.active > 0 && !d.running && !d.stopped_early && d.life == Life::Live {
        release(p, &mut d, st);
    }
}

/// A partition frozen ahead of its boundary.
struct Early {
    part: usize,
    /// When the freeze request returned (a traced run; 0 otherwise).
    held_at: u64,
    /// The lead it was frozen with (0: at the scheduler's wake-up for the boundary).
    lead: u64,
    /// How long the freeze request took.
    request_ns: u64,
    /// How late the scheduler woke for it.
    wake_late: u64,
    /// When it was found frozen (with a lead).
    outcome: Outcome,
}

/// Why [`sleep_until_nudged`] returned.
enum Woke {
    /// The run is stopping.
    Stop,
    /// `at` has come.
    Due,
    /// A creation thread nudged this CPU's scheduler thread before `at`.
    Nudged,
}

/// Sleeps until `at` (monotonic ns), a stop request, or a nudge for `core`.
fn sleep_until_nudged(shared: &Shared, core: u32, at: u64) -> Woke {
    let Some(word) = shared.nudge.get(core as usize) else {
        return if sleep_until(shared, at) {
            Woke::Due
        } else {
            Woke::Stop
        };
    };
    let seen = word.load(Ordering::Acquire);
    while shared.stop.load(Ordering::Acquire) == 0 && monotonic_ns() < at {
        if word.load(Ordering::Acquire) != seen {
            return Woke::Nudged;
        }
        let _ = partita_sys::futex::wait_either(
            (&shared.stop, 0, false),
            (word, seen, false),
            Some(at),
        );
    }
    if shared.stop.load(Ordering::Acquire) != 0 {
        Woke::Stop
    } else {
        Woke::Due
    }
}

/// Sleeps until `at` (monotonic ns); false if the run is stopping.
fn sleep_until(shared: &Shared, at: u64) -> bool {
    // Already there (no lead, no guard): no system call.
    while shared.stop.load(Ordering::Acquire) == 0 && monotonic_ns() < at {
        if !partita_sys::futex::wait(&shared.stop, 0, Some(at), false) {
            break;
        }
    }
    shared.stop.load(Ordering::Acquire) == 0
}

/// Freezes partition `p` ahead of the boundary that takes it off this core (the caller
/// checked that it runs on no other core then: every core it is active on leaves it at that
/// boundary). Returns how long the request took; `None` if another core froze it already.
/// With `measure` (signals backend: the lead it is frozen with), keeps the request time, the
/// CPU time after it and the lead, to measure what the stop cost (see [`enter`],
/// crate::lead::FreezeLead::after_stop).
fn freeze_early(p: &Partition, measure: Option<u64>) -> Option<u64> {
    let mut d = p.state.lock().expect("partition state");
    if !d.running || d.stopped_early || d.pending_go.is_some() {
        return None;
    }
    let sw = d.switch.as_ref()?;
    let t0 = monotonic_ns();
    // A failure shows again (and is reported) when leave() stops it at the boundary.
    sw.stop().ok()?;
    let took = monotonic_ns().saturating_sub(t0);
    d.stopped_early = true;
    if let Some(lead) = measure {
        d.stop_request = p.usage.as_ref().map(|u| (took, u.read_ns(), lead));
    }
    Some(took)
}

/// How the scheduler learns what holding a partition ahead of its boundary takes
/// (crate::lead).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Probe {
    /// Its freezer says when it is frozen.
    Freezer,
    /// Its CPU time says what its stop cost (signals backend with CPU accounting).
    CpuTime,
    /// Neither (signals backend without CPU accounting): no lead.
    Nothing,
}

/// Which [`Probe`] applies to `p` (without reading its freezer state: this runs in the
/// entering partition's time, just after a boundary).
fn probe_of(shared: &Shared, p: &Partition) -> Probe {
    let d = p.state.lock().expect("partition state");
    match d.switch.as_ref().map(|s| s.tells_frozen()) {
        Some(true) => Probe::Freezer,
        Some(false) if shared.cpu_accounting && p.usage.is_some() => Probe::CpuTime,
        _ => Probe::Nothing,
    }
}

/// Lets partition `p`, frozen ahead of a boundary that did not take it off the core after all,
/// run again.
fn thaw_early(p: &Partition, st: &mut CoreStats) {
    let mut d = p.state.lock().expect("partition state");
    if !d.stopped_early {
        return;
    }
    d.stopped_early = false;
    if let Some(sw) = &d.switch {
        if let Err(e) = sw.resume() {
            st.errors.push(format!("releasing {}: {e}", p.spec().name));
        }
    }
}

/// Whether partition `p` is entirely frozen (true when its backend cannot tell).
fn is_frozen(p: &Partition) -> bool {
    let d = p.state.lock().expect("partition state");
    d.switch
        .as_ref()
        .and_then(|s| s.is_frozen())
        .unwrap_or(true)
}

/// Watches partition `p`, frozen with a lead, checking at `checks` (half-way through the lead
/// and at its end, never after `until`) whether it is frozen, sleeping in between so that its
/// tasks can reach the freezer; returns at `until` with when it was found frozen, or `None` if
/// the run is stopping.
fn watch_freeze(shared: &Shared, p: &Partition, checks: (u64, u64), until: u64) -> Option<Outcome> {
    if !sleep_until(shared, checks.0.min(until)) {
        return None;
    }
    let outcome = if is_frozen(p) {
        Outcome::Half
    } else {
        if !sleep_until(shared, checks.1.min(until)) {
            return None;
        }
        if is_frozen(p) {
            Outcome::Full
        } else {
            Outcome::Late
        }
    };
    sleep_until(shared, until).then_some(outcome)
}
