// SPDX-License-Identifier: MIT OR Apache-2.0
//! Multiple module schedules (ARINC 653 Part 2): which schedule runs, the switch at the end of
//! a major frame, and what the partitions are told.
//!
//! Every scheduler thread reaches every frame start of the running schedule (a core without a
//! window in it walks an idle timeline). At a frame start `T` the first thread to arrive
//! *decides* under the lock: it consumes the SET_MODULE_SCHEDULE requests the partitions
//! posted in their control blocks, validates them (the requester must be a live system
//! partition the running schedule lets switch, the identifier must exist), keeps the latest,
//! and, if it names another schedule, records a switch at `T`. Every other thread reaching `T`
//! finds that decision, so all cores change timelines at the same instant, and the new
//! schedule's frames are counted from `T`. A thread that oversleeps still processes each frame
//! start in order (the scheduler never jumps over one), so it meets the decision for every
//! frame start it passes.
//!
//! At a switch the decider rewrites each partition's period, duration, period origin, major
//! frame and schedule status in its control block (a seqlock the runtime reads), and marks the
//! partitions whose `ScheduleChangeAction` in the new schedule is COLD_START or WARM_START for
//! a restart, which the supervisor carries out.

use crate::lifecycle::Life;
use crate::partition::Partition;
use partita_abi::OperatingMode;
use partita_config::model::{ModuleSchedule, ScheduleChangeAction};
use partita_config::CompiledPlan;
use partita_schedule::{CoreTimeline, FrameClock};
use partita_sys::control::schedule::Timing;
use serde::Serialize;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// A schedule's `ScheduleIdentifier` as the control block and the report carry it (the
/// validator keeps identifiers within `i32`).
pub(crate) fn schedule_id(s: &ModuleSchedule) -> i32 {
    i32::try_from(s.id).unwrap_or(i32::MAX)
}

/// One module schedule switch, as reported.
#[derive(Debug, Clone, Serialize)]
pub struct ScheduleSwitch {
    /// Instant of the switch, ns since the module epoch (a frame start of both schedules).
    pub at_ns: u64,
    /// Identifier of the schedule that ended.
    pub from: i32,
    /// Its name.
    pub from_name: Option<String>,
    /// Complete major frames the ended schedule ran since it took over (the switch is the
    /// start of its frame with this index).
    pub from_frames: u64,
    /// Start of the ended schedule's frame 0, ns since the module epoch.
    pub from_start_ns: u64,
    /// Major frame of the ended schedule, ns.
    pub from_major_frame_ns: u64,
    /// Identifier of the schedule that starts.
    pub to: i32,
    /// Its name.
    pub to_name: Option<String>,
    /// Major frame of the new schedule, ns.
    pub to_major_frame_ns: u64,
    /// The partition whose request was carried out.
    pub requested_by: String,
    /// When it made the request (APEX time, ns since the epoch).
    pub requested_at_ns: i64,
    /// Partitions restarted by their schedule-change action.
    pub restarted: Vec<String>,
}

/// A window start handled by a scheduler thread.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct WindowStart {
    /// Core.
    pub core: u32,
    /// Identifier of the module schedule the window belongs to.
    pub schedule: i32,
    /// Frame index in that schedule (counted from the schedule's own start).
    pub frame: u64,
    /// `WindowIdentifier`.
    pub window: u32,
    /// Partition index.
    pub partition: usize,
    /// Planned start, ns since the module epoch.
    pub planned_ns: u64,
    /// When the scheduler acted, ns since the module epoch.
    pub actual_ns: u64,
}

struct State {
    current: usize,
    clock: FrameClock,
    epoch: u64,
    /// The latest frame start a decision was taken for.
    decided: Option<u64>,
    /// Switches, oldest first, with absolute instants and schedule indices.
    switches: Vec<(u64, usize, usize, ScheduleSwitch)>,
    /// Per partition: the sequence number of the last request consumed.
    seen: Vec<u32>,
    rejected: u64,
    logged: usize,
    /// The pending change published as NEXT_SCHEDULE (see [`Schedules::publish_pending`]).
    next: Option<usize>,
}

/// The module schedules of a run and the switch state shared by the scheduler threads.
pub(crate) struct Schedules {
    /// The plan whose module schedules these are.
    pub plan: Arc<CompiledPlan>,
    /// Cores with a window in any schedule or a partition's background, ascending: one
    /// scheduler thread each.
    pub cores: Vec<u32>,
    system: Vec<bool>,
    names: Vec<String>,
    /// Per partition: the request sequence number [`Schedules::poll_pending`] last saw.
    peeked: Vec<AtomicU32>,
    state: Mutex<State>,
}

impl Schedules {
    pub fn new(plan: &Arc<CompiledPlan>) -> Schedules {
        let background = (0..plan.partitions.len()).flat_map(|i| plan.background_cores(i).to_vec());
        let mut cores: Vec<u32> = plan
            .schedules
            .iter()
            .flat_map(|s| s.plan.cores())
            .chain(background)
            .collect();
        cores.sort_unstable();
        cores.dedup();
        let initial = plan.initial_schedule;
        let n = plan.partitions.len();
        Schedules {
            cores,
            system: plan.partitions.iter().map(|p| p.system).collect(),
            names: plan.partitions.iter().map(|p| p.name.clone()).collect(),
            peeked: (0..n).map(|_| AtomicU32::new(0)).collect(),
            state: Mutex::new(State {
                current: initial,
                clock: FrameClock {
                    start: 0,
                    major_frame: plan.schedules[initial].plan.major_frame,
                },
                epoch: 0,
                decided: None,
                switches: Vec::new(),
                seen: vec![0; n],
                rejected: 0,
                logged: 0,
                next: None,
            }),
            plan: plan.clone(),
        }
    }

    /// Module schedule `index`.
    pub fn get(&self, index: usize) -> &ModuleSchedule {
        &self.plan.schedules[index]
    }

    /// The identifiers of every schedule, by index.
    fn ids(&self) -> Vec<i32> {
        self.plan.schedules.iter().map(schedule_id).collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The initial schedule's index.
    pub fn current(&self) -> usize {
        self.lock().current
    }

    /// The timelines of `core`, one per schedule (idle where the schedule has no window there).
    /// A general-purpose partition with background time on `core` gets every gap between
    /// windows there (and the whole frame of a schedule without a window on it).
    pub fn timelines(&self, core: u32) -> Vec<CoreTimeline> {
        let background = self.plan.background_of(core);
        self.plan
            .schedules
            .iter()
            .map(|s| {
                let tl = if s.plan.cores().contains(&core) {
                    s.plan.core_timeline(core)
                } else {
                    CoreTimeline::idle(core, s.plan.major_frame)
                };
                match background {
                    Some(p) => tl.with_background(p),
                    None => tl,
                }
            })
            .collect()
    }

    /// Sets the module epoch (frame 0 of the initial schedule starts there).
    pub fn start(&self, epoch: u64) {
        let mut st = self.lock();
        st.epoch = epoch;
        st.clock.start = epoch;
    }

    /// Fills the schedule part of a new incarnation's control block: the table of schedules,
    /// the timing under the current schedule, and no pending request.
    pub fn publish_to(&self, p: &Partition) {
        let mut st = self.lock();
        let c = p.control();
        let table: Vec<(i32, &str)> = self
            .plan
            .schedules
            .iter()
            .map(|s| (schedule_id(s), s.name.as_deref().unwrap_or("")))
            .collect();
        c.set_schedule_table(&table);
        c.schedule_request.store(0, Ordering::Relaxed);
        c.schedule_request_ns.store(0, Ordering::Relaxed);
        c.schedule_ack.store(0, Ordering::Relaxed);
        st.seen[p.index] = 0;
        let last = st.switches.last().map_or(0, |s| s.3.at_ns as i64);
        c.write_schedule(&self.timing(&st, p.index, last, c));
    }

    fn timing(
        &self,
        st: &State,
        index: usize,
        last_switch: i64,
        c: &partita_sys::control::ControlBlock,
    ) -> Timing {
        let spec = self.get(st.current);
        let current = schedule_id(spec);
        let next = st.next.map_or(current, |n| schedule_id(self.get(n)));
        let rel = st.clock.start.saturating_sub(st.epoch) as i64;
        match spec.partition(index) {
            Some(t) => Timing {
                period: t.period as i64,
                duration: t.duration as i64,
                period_origin: rel + t.period_origin as i64,
                major_frame: spec.plan.major_frame as i64,
                current,
                next,
                last_switch,
                may_set: t.set_module_schedule && self.system[index],
            },
            // Not scheduled: it keeps its timing but gets no window.
            None => Timing {
                period: c.period_ns.load(Ordering::Relaxed),
                duration: c.duration_ns.load(Ordering::Relaxed),
                period_origin: c.period_origin_ns.load(Ordering::Relaxed),
                major_frame: spec.plan.major_frame as i64,
                current,
                next,
                last_switch,
                may_set: false,
            },
        }
    }

    /// Called by the scheduler thread of a core at frame start `t` (absolute) of schedule
    /// `mine`: returns the schedule to continue with from `t` when the module switches there.
    /// The thread that decides a switch calls `on_switch(to, from)` (once per switch).
    pub fn at_frame_start(
        &self,
        parts: &[Arc<Partition>],
        work: &AtomicU32,
        mine: usize,
        t: u64,
        on_switch: impl FnOnce(usize, usize),
    ) -> Option<usize> {
        let mut st = self.lock();
        if let Some(s) = st.switches.iter().rev().find(|s| s.0 == t) {
            return (s.1 == mine).then_some(s.2);
        }
        if st.decided.is_some_and(|d| d >= t) || mine != st.current {
            return None;
        }
        st.decided = Some(t);
        let mut consumed = Vec::new();
        // Only requests made before this frame start count for it: a scheduler thread that
        // wakes late must not apply, at the frame start it is handling, a request made after
        // that instant (it takes effect at the end of the frame it was made in).
        let frame_start = t.saturating_sub(st.epoch) as i64;
        let best = self.consume_requests(parts, &mut st, &mut consumed, frame_start);
        // Acknowledged only after the control blocks show the outcome, so that a runtime
        // never reports the old schedule as the next one once its request is consumed.
        let ack = |consumed: &[(usize, u32)]| {
            for &(i, seq) in consumed {
                parts[i]
                    .control()
                    .schedule_ack
                    .store(seq, Ordering::Release);
            }
        };
        let Some((to, by, req_at)) = best.filter(|b| b.0 != st.current) else {
            if st.next.take().is_some() {
                // A published pending change did not happen (refused, or back to current).
                let last = st.switches.last().map_or(0, |s| s.3.at_ns as i64);
                for p in parts {
                    let c = p.control();
                    c.write_schedule(&self.timing(&st, p.index, last, c));
                }
            }
            ack(&consumed);
            return None;
        };
        let from = st.current;
        let at_ns = t - st.epoch;
        let mut record = ScheduleSwitch {
            at_ns,
            from: schedule_id(self.get(from)),
            from_name: self.get(from).name.clone(),
            from_frames: st.clock.frame_of(t),
            from_start_ns: st.clock.start - st.epoch,
            from_major_frame_ns: st.clock.major_frame,
            to: schedule_id(self.get(to)),
            to_name: self.get(to).name.clone(),
            to_major_frame_ns: self.get(to).plan.major_frame,
            requested_by: self.names[by].clone(),
            requested_at_ns: req_at,
            restarted: Vec::new(),
        };
        st.current = to;
        st.next = None;
        st.clock = FrameClock::switched(t, self.get(to).plan.major_frame);
        for p in parts {
            let c = p.control();
            c.write_schedule(&self.timing(&st, p.index, at_ns as i64, c));
            let action = self
                .get(to)
                .partition(p.index)
                .map_or(ScheduleChangeAction::Ignore, |t| t.change_action);
            let m = match action {
                ScheduleChangeAction::Ignore => continue,
                ScheduleChangeAction::ColdStart => OperatingMode::ColdStart,
                ScheduleChangeAction::WarmStart => OperatingMode::WarmStart,
            };
            let mut d = p.state.lock().expect("partition state");
            if matches!(d.life, Life::Live | Life::Idle) {
                d.life = Life::RestartPending(m);
                record.restarted.push(p.spec().name.clone());
            }
        }
        st.switches.push((t, from, to, record));
        on_switch(to, from);
        ack(&consumed);
        work.fetch_add(1, Ordering::AcqRel);
        Some(to)
    }

    /// Called by the scheduler threads at every boundary: when a partition posted a new
    /// request, publishes the change it would make (see [`Schedules::publish_pending`]).
    /// Without a new request it costs one load per partition and takes no lock.
    pub fn poll_pending(&self, parts: &[Arc<Partition>]) {
        let mut new = false;
        for p in parts {
            let seq = (p.control().schedule_request.load(Ordering::Acquire) >> 32) as u32;
            if self.peeked[p.index].swap(seq, Ordering::Relaxed) != seq {
                new = true;
            }
        }
        if new {
            self.publish_pending(parts);
        }
    }

    /// Publishes the change the module will make at the next frame start, if the requests
    /// posted so far stand, as NEXT_SCHEDULE of every partition (the requesting partition's
    /// runtime reports its own request at once; the others see it from the next boundary on
    /// any core, at the latest when the requester's window ends).
    fn publish_pending(&self, parts: &[Arc<Partition>]) {
        let mut st = self.lock();
        let mut requests = Vec::new();
        for p in parts {
            let c = p.control();
            let w = c.schedule_request.load(Ordering::Acquire);
            let seq = (w >> 32) as u32;
            if seq == 0 || seq == st.seen[p.index] {
                continue;
            }
            requests.push(Request {
                partition: p.index,
                at: c.schedule_request_ns.load(Ordering::Relaxed),
                schedule: w as u32 as i32,
                allowed: self.may_switch(&st, p),
            });
        }
        let ids = self.ids();
        let next = pick(&requests, &ids)
            .0
            .map(|b| b.0)
            .filter(|&n| n != st.current);
        if next == st.next {
            return;
        }
        st.next = next;
        let last = st.switches.last().map_or(0, |s| s.3.at_ns as i64);
        for p in parts {
            let c = p.control();
            c.write_schedule(&self.timing(&st, p.index, last, c));
        }
    }

    /// Whether partition `p` may switch schedules now.
    fn may_switch(&self, st: &State, p: &Partition) -> bool {
        self.system[p.index]
            && self
                .get(st.current)
                .partition(p.index)
                .is_some_and(|t| t.set_module_schedule)
            && p.state.lock().expect("partition state").life == Life::Live
    }

    /// Consumes the new requests made before `frame_start` (APEX time); returns the latest
    /// valid one: (schedule index, requesting partition, request time). A request made at or
    /// after `frame_start` stays for the next frame start.
    fn consume_requests(
        &self,
        parts: &[Arc<Partition>],
        st: &mut State,
        consumed: &mut Vec<(usize, u32)>,
        frame_start: i64,
    ) -> Option<(usize, usize, i64)> {
        let mut requests = Vec::new();
        for p in parts {
            let c = p.control();
            let w = c.schedule_request.load(Ordering::Acquire);
            let seq = (w >> 32) as u32;
            if seq == 0 || seq == st.seen[p.index] {
                continue;
            }
            let at = c.schedule_request_ns.load(Ordering::Relaxed);
            if at >= frame_start {
                continue;
            }
            st.seen[p.index] = seq;
            consumed.push((p.index, seq));
            let allowed = self.may_switch(st, p);
            requests.push(Request {
                partition: p.index,
                at,
                schedule: w as u32 as i32,
                allowed,
            });
        }
        let ids = self.ids();
        let (best, rejected) = pick(&requests, &ids);
        st.rejected += rejected;
        best
    }

    /// Switches not yet handed to [`Schedules::take_unlogged`].
    pub fn take_unlogged(&self) -> Vec<ScheduleSwitch> {
        let mut st = self.lock();
        let from = st.logged;
        st.logged = st.switches.len();
        st.switches[from..].iter().map(|s| s.3.clone()).collect()
    }

    /// Every switch, and the number of rejected requests.
    pub fn summary(&self) -> (Vec<ScheduleSwitch>, u64, i32) {
        let st = self.lock();
        (
            st.switches.iter().map(|s| s.3.clone()).collect(),
            st.rejected,
            schedule_id(self.get(st.current)),
        )
    }

    /// A line for the module log.
    pub fn describe(s: &ScheduleSwitch) -> String {
        let name = |n: &Option<String>| n.as_ref().map(|n| format!(" ({n})")).unwrap_or_default();
        format!(
            "module schedule switch at t={}.{:09} s: schedule {}{} ended after {} major frames of {} ns (started at t={}.{:09} s); schedule {}{} starts (major frame {} ns); requested by {} at t={}.{:09} s{}",
            s.at_ns / 1_000_000_000,
            s.at_ns % 1_000_000_000,
            s.from,
            name(&s.from_name),
            s.from_frames,
            s.from_major_frame_ns,
            s.from_start_ns / 1_000_000_000,
            s.from_start_ns % 1_000_000_000,
            s.to,
            name(&s.to_name),
            s.to_major_frame_ns,
            s.requested_by,
            s.requested_at_ns.max(0) / 1_000_000_000,
            s.requested_at_ns.max(0) % 1_000_000_000,
            if s.restarted.is_empty() {
                String::new()
            } else {
                format!("; restarting {}", s.restarted.join(", "))
            }
        )
    }
}

/// A SET_MODULE_SCHEDULE request read from a control block.
#[derive(Debug, Clone, Copy)]
struct Request {
    partition: usize,
    /// APEX time of the request.
    at: i64,
    /// Requested schedule identifier.
    schedule: i32,
    /// The partition may switch schedules now.
    allowed: bool,
}

/// The request to carry out among `requests` (the latest valid one; on equal times, the
/// partition listed last): (schedule index in `ids`, partition, request time), and the number
/// of refused requests (not allowed, or an identifier not in `ids`).
fn pick(requests: &[Request], ids: &[i32]) -> (Option<(usize, usize, i64)>, u64) {
    let mut best: Option<(usize, usize, i64)> = None;
    let mut rejected = 0;
    for r in requests {
        match (r.allowed, ids.iter().position(|&i| i == r.schedule)) {
            (true, Some(to)) => {
                if best.is_none_or(|b| r.at >= b.2) {
                    best = Some((to, r.partition, r.at));
                }
            }
            _ => rejected += 1,
        }
    }
    (best, rejected)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(partition: usize, at: i64, schedule: i32, allowed: bool) -> Request {
        Request {
            partition,
            at,
            schedule,
            allowed,
        }
    }

    #[test]
    fn latest_valid_request_wins() {
        let ids = [1, 2, 3];
        let (best, rejected) = pick(&[req(0, 50, 3, true), req(4, 70, 2, true)], &ids);
        assert_eq!(best, Some((1, 4, 70)));
        assert_eq!(rejected, 0);
        // Order in the partition list does not matter, time does.
        let (best, _) = pick(&[req(4, 70, 2, true), req(0, 50, 3, true)], &ids);
        assert_eq!(best, Some((1, 4, 70)));
    }

    #[test]
    fn refused_requests_are_counted_and_ignored() {
        let ids = [1, 2];
        let (best, rejected) = pick(
            &[
                req(0, 90, 2, false), // not allowed (bypassed its runtime)
                req(1, 95, 7, true),  // unknown identifier
                req(2, 10, 1, true),
            ],
            &ids,
        );
        assert_eq!(best, Some((0, 2, 10)));
        assert_eq!(rejected, 2);
        assert_eq!(pick(&[], &ids), (None, 0));
    }
}
