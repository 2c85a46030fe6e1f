// SPDX-License-Identifier: MIT OR Apache-2.0
//! Window-table generators for one core: the seed's criticality-ordered micro-period
//! algorithm and our supply-aware EDF packing. (The periodic-resource baseline is in
//! [`crate::prm`].)

use crate::model::PartitionTasks;
use crate::sim::PartSim;
use partita_schedule::Nanos;
use serde::Serialize;

/// A window of a core table: `[start, end)`, switch cost included at its start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Win {
    /// Module index of the partition.
    pub partition: usize,
    /// Start in the frame.
    pub start: Nanos,
    /// End in the frame.
    pub end: Nanos,
}

/// Parameters shared by the generators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Params {
    /// Time lost at the start of every window (partition switch), charged inside the window.
    pub switch_cost: Nanos,
    /// Idle time reserved for the host in every micro-period; `None`: 5 % of it.
    pub host_reserve: Option<Nanos>,
}

/// Default switch cost: about what a window loses on this platform (docs/benchmarks.md): the
/// manager's scheduler thread spins the last 80 µs of a window, and the entering partition
/// starts 15–30 µs (median) after its window start.
impl Default for Params {
    fn default() -> Self {
        Params {
            switch_cost: 100_000,
            host_reserve: None,
        }
    }
}

impl Params {
    /// Host reserve for a micro-period `m`.
    pub fn reserve(&self, m: Nanos) -> Nanos {
        self.host_reserve.unwrap_or(m / 20)
    }
}

/// Why a core table could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fail {
    /// A process of the partition (module index) would miss its deadline; which one, when
    /// known.
    Deadline(usize, Option<String>),
    /// The partition (module index) cannot be served, for the reason given.
    Infeasible(usize, &'static str),
    /// The host reserve and the switch cost do not fit in a micro-period.
    NoRoom,
    /// The backlog at frame boundaries did not settle.
    NoSteadyState,
    /// A window of the partition cannot start at its period start (anchor) in every frame.
    Anchor(usize),
}

/// Smallest process period of the partitions: the micro-period.
pub fn micro_period(parts: &[&PartitionTasks]) -> Nanos {
    parts.iter().map(|p| p.min_period()).min().unwrap_or(0)
}

/// A core table: windows of one frame and, per partition, the offset of the window that
/// starts its periods (its anchor).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Table {
    /// Windows in `[0, frame)`, sorted.
    pub windows: Vec<Win>,
    /// (module partition index, anchor offset).
    pub anchors: Vec<(usize, Nanos)>,
    /// Which construction made it.
    pub variant: &'static str,
}

/// Frames simulated at most while looking for a steady state.
pub const MAX_BUILD_FRAMES: u64 = 8;

type State = (Vec<Vec<(usize, Nanos, Nanos)>>, Vec<bool>, Nanos, u64);

/// Tracks frame boundaries: the backlog there, and when it repeats, the table.
struct Frames {
    frame: Nanos,
    states: Vec<State>,
    all_started_at: Option<u64>,
}

impl Frames {
    /// Called at the boundary starting frame `k`; returns the table when the state repeats.
    fn boundary(
        &mut self,
        k: u64,
        sims: &[PartSim<'_>],
        host: (Nanos, u64),
        windows: &[Win],
    ) -> Option<Table> {
        let t = k * self.frame;
        let state: State = (
            sims.iter().map(|s| s.state(t)).collect(),
            sims.iter().map(|s| s.started()).collect(),
            host.0,
            host.1,
        );
        if self.all_started_at.is_none() && sims.iter().all(|s| s.started()) {
            self.all_started_at = Some(k);
        }
        let repeat = k >= 1
            && self.all_started_at.is_some_and(|a| a < k)
            && self.states.last() == Some(&state);
        self.states.push(state);
        if !repeat {
            return None;
        }
        let lo = t - self.frame;
        let mut ws: Vec<Win> = windows
            .iter()
            .filter(|w| w.start >= lo && w.start < t)
            .map(|w| Win {
                partition: w.partition,
                start: w.start - lo,
                end: w.end - lo,
            })
            .collect();
        ws.sort_by_key(|w| w.start);
        Some(Table {
            windows: ws,
            anchors: sims
                .iter()
                .filter_map(|s| s.anchor().map(|a| (s.index, a)))
                .collect(),
            variant: "",
        })
    }
}

/// The seed's algorithm (Jin and Han 2011 as described by Han and Jin): the frame is cut into
/// micro-periods (the smallest process period); in each, the partitions run in criticality
/// order (LEVEL_A first), each for as long as it has released work (a variable execution time
/// per micro-period), so a lower-criticality partition never runs before, or preempts, a
/// higher-criticality one in the same micro-period; the last `host_reserve` of each
/// micro-period is left to the host. A partition whose next job comes later in the
/// micro-period waits for it at its turn.
pub fn seed(parts: &[&PartitionTasks], frame: Nanos, params: &Params) -> Result<Table, Fail> {
    let m = micro_period(parts);
    let h = params.reserve(m);
    let s = params.switch_cost;
    if m == 0 || h + s >= m {
        return Err(Fail::NoRoom);
    }
    let mut order: Vec<usize> = (0..parts.len()).collect();
    order.sort_by_key(|&i| (parts[i].rank(), parts[i].index));
    let mut sims: Vec<PartSim> = parts.iter().map(|p| PartSim::new(p, frame)).collect();
    let mut due: Vec<Nanos> = vec![Nanos::MAX; parts.len()];
    let mut windows: Vec<Win> = Vec::new();
    let mut frames = Frames {
        frame,
        states: Vec::new(),
        all_started_at: None,
    };
    let fail = |sims: &[PartSim], i: usize| Err(sims[i].fail());
    for k in 0..MAX_BUILD_FRAMES {
        if let Some(t) = frames.boundary(k, &sims, (0, 0), &windows) {
            return Ok(Table {
                variant: "seed micro-period",
                ..t
            });
        }
        for mp in 0..frame / m {
            let mut t = k * frame + mp * m;
            let cap = t + m - h;
            for (i, sim) in sims.iter_mut().enumerate() {
                sim.release_to(t);
                sim.check_late(t);
                if sim.failed || due[i] < t {
                    return fail(&sims, i);
                }
            }
            for &i in &order {
                if cap <= t + s {
                    break;
                }
                if !sims[i].started() {
                    sims[i].start(t);
                    due[i] = t;
                } else {
                    sims[i].release_to(t);
                    if !sims[i].busy() {
                        match sims[i].next_release() {
                            Some(r) if r + s < cap => {
                                t = r;
                                sims[i].release_to(t);
                            }
                            _ => continue,
                        }
                    }
                }
                loop {
                    if due[i] < t {
                        return fail(&sims, i);
                    }
                    if t == due[i] {
                        due[i] += frame;
                    }
                    let anchor_here = due[i] > t && due[i] < cap;
                    if anchor_here && due[i] <= t + s {
                        t = due[i];
                        continue;
                    }
                    if t + s >= cap {
                        // Its period start falls where no window fits any more.
                        return Err(Fail::Anchor(sims[i].index));
                    }
                    let until = if anchor_here { due[i] } else { cap };
                    let end = sims[i].run(t + s, until);
                    windows.push(Win {
                        partition: sims[i].index,
                        start: t,
                        end,
                    });
                    t = end;
                    if sims[i].failed {
                        return fail(&sims, i);
                    }
                    if !(t == due[i] && t + s < cap) {
                        break;
                    }
                }
            }
        }
    }
    Err(Fail::NoSteadyState)
}

/// How [`packing`] picks the partition that runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Earliest pending deadline; a partition keeps the core until it is idle (fewest
    /// switches).
    NonPreemptiveEdf,
    /// Earliest pending deadline, decided again at every release of another partition (a
    /// partition chosen again continues its window without a new switch).
    PreemptiveEdf,
    /// Fixed priority by criticality (LEVEL_A first), preemptive: a higher-criticality
    /// partition takes the core at its releases; a lower one never preempts a higher one (a
    /// table that would need it is rejected). The host reserve is taken as late as possible
    /// in each micro-period.
    Criticality,
}

impl Policy {
    /// Short name.
    pub fn name(self) -> &'static str {
        match self {
            Policy::NonPreemptiveEdf => "non-preemptive EDF packing",
            Policy::PreemptiveEdf => "preemptive EDF packing",
            Policy::Criticality => "criticality fixed priority",
        }
    }
}

/// Table construction by simulating a partition-level scheduler over the frame with the exact
/// process schedulers inside (so a window ends exactly when its partition runs out of work or
/// is preempted), the host reserve as a pseudo partition with a job of `host_reserve` every
/// micro-period. See [`Policy`].
pub fn packing(
    parts: &[&PartitionTasks],
    frame: Nanos,
    params: &Params,
    policy: Policy,
) -> Result<Table, Fail> {
    let preemptive = policy == Policy::PreemptiveEdf;
    let by_criticality = policy == Policy::Criticality;
    let m = micro_period(parts);
    let h = params.reserve(m);
    let s = params.switch_cost;
    if m == 0 || h + s >= m {
        return Err(Fail::NoRoom);
    }
    let mpf = frame / m;
    let mut sims: Vec<PartSim> = parts.iter().map(|p| PartSim::new(p, frame)).collect();
    let mut due: Vec<Nanos> = vec![Nanos::MAX; parts.len()];
    let mut windows: Vec<Win> = Vec::new();
    let mut frames = Frames {
        frame,
        states: Vec::new(),
        all_started_at: None,
    };
    // Host pseudo partition: job k released at k·m, due (k+1)·m, needs h.
    let mut host_k: u64 = 0;
    let mut host_left: Nanos = 0;
    let mut t: Nanos = 0;
    let mut next_boundary: u64 = 0;
    while next_boundary < MAX_BUILD_FRAMES {
        if t == next_boundary * frame {
            if let Some(tab) = frames.boundary(
                next_boundary,
                &sims,
                (host_left, host_k - next_boundary * mpf),
                &windows,
            ) {
                return Ok(Table {
                    variant: policy.name(),
                    ..tab
                });
            }
            next_boundary += 1;
        }
        let boundary = next_boundary * frame;
        for (i, sim) in sims.iter_mut().enumerate() {
            sim.release_to(t);
            sim.check_late(t);
            if sim.failed || due[i] < t {
                return Err(sim.fail());
            }
        }
        if host_k * m <= t {
            if host_left > 0 {
                return Err(Fail::NoRoom);
            }
            host_left = h;
            host_k += 1;
        }
        let host_due = host_k * m;
        let host_latest = if host_left > 0 {
            host_due - host_left
        } else {
            (host_k + 1) * m - h
        };
        // Anchors: a partition whose anchor is now must start a window now; nobody runs
        // across another partition's anchor.
        let forced = (0..sims.len()).find(|&i| due[i] == t);
        let next_anchor = due
            .iter()
            .copied()
            .filter(|&d| d > t)
            .min()
            .unwrap_or(Nanos::MAX);
        let mut best: Option<(Nanos, usize, usize, usize)> = None;
        if host_left > 0 && !by_criticality {
            best = Some((host_due, 0, 0, usize::MAX));
        }
        for (i, sim) in sims.iter().enumerate() {
            let d = if !sim.started() {
                sim.tasks_min_period() + t
            } else if let Some(d) = sim.earliest_deadline() {
                d
            } else {
                continue;
            };
            let key = if by_criticality {
                (sim.rank as Nanos, 1, i, i)
            } else {
                (d, 1, sim.rank, i)
            };
            if best.is_none_or(|b| key < b) {
                best = Some(key);
            }
        }
        if let Some(i) = forced {
            if by_criticality
                && sims
                    .iter()
                    .enumerate()
                    .any(|(j, o)| (o.rank, j) < (sims[i].rank, i) && o.busy())
            {
                // Its period start would preempt a more critical partition.
                return Err(Fail::Anchor(sims[i].index));
            }
            best = Some((0, 1, sims[i].rank, i));
        }
        if best.is_none() && host_left > 0 {
            best = Some((host_due, 0, 0, usize::MAX));
        }
        let Some((mut d, mut tier, _, mut i)) = best else {
            t = sims
                .iter()
                .filter_map(|s| s.next_release())
                .chain([host_k * m, boundary, next_anchor])
                .filter(|&n| n > t)
                .min()
                .unwrap_or(boundary);
            continue;
        };
        if forced.is_none() && tier == 1 && host_left > 0 && host_latest <= t + s {
            (d, tier, i) = (host_due, 0, usize::MAX);
        }
        if forced.is_some() && host_left > 0 && host_latest < t + s {
            return Err(Fail::NoRoom);
        }
        let others_urgent = |exclude: usize, sims: &[PartSim], bound: Nanos| {
            let mut u = sims
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != exclude)
                .filter_map(|(_, s)| s.next_urgent_release(bound))
                .min()
                .unwrap_or(Nanos::MAX);
            if (host_k + 1) * m < bound {
                u = u.min(host_k * m);
            }
            u
        };
        if tier == 0 {
            let mut until = (t + host_left).min(boundary).min(next_anchor);
            if preemptive {
                until = until.min(others_urgent(usize::MAX, &sims, d).max(t + 1));
            }
            host_left -= until - t;
            t = until;
            continue;
        }
        if !sims[i].started() {
            sims[i].start(t);
            due[i] = t;
        }
        // The partition that was cut here (not idle) and is chosen again continues its window
        // without a new switch, except at a frame boundary or its period start, where a window
        // must start (and pays the switch cost, as the checker charges it).
        let at_anchor = due[i] == t;
        let continues = !at_anchor
            && !t.is_multiple_of(frame)
            && windows
                .last()
                .is_some_and(|w| w.partition == sims[i].index && w.end == t);
        if at_anchor {
            due[i] += frame;
        }
        let from = if continues { t } else { t + s };
        let own_anchor = due[i];
        let mut until = boundary.min(host_latest).min(next_anchor).min(own_anchor);
        if preemptive {
            // Decide again at every release of another partition (or of the host).
            let others = sims
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .filter_map(|(_, o)| o.next_release())
                .min()
                .unwrap_or(Nanos::MAX);
            until = until.min(others.max(from + 1)).min(host_k * m);
        }
        if by_criticality {
            let me = (sims[i].rank, i);
            let higher = sims
                .iter()
                .enumerate()
                .filter(|(j, o)| (o.rank, *j) < me)
                .filter_map(|(_, o)| o.next_release())
                .min()
                .unwrap_or(Nanos::MAX);
            until = until.min(higher);
        }
        if until <= from && forced == Some(i) {
            // The window at its period start would hold no useful time.
            return Err(Fail::Anchor(sims[i].index));
        }
        if until <= from {
            // No useful window fits before the next fixed instant: idle up to it.
            t = until.max(t + 1).min(boundary);
            continue;
        }
        let end = sims[i].run(from, until);
        match windows.last_mut() {
            Some(w) if continues => w.end = end,
            _ => windows.push(Win {
                partition: sims[i].index,
                start: t,
                end,
            }),
        }
        if sims[i].failed {
            return Err(sims[i].fail());
        }
        t = end;
    }
    Err(Fail::NoSteadyState)
}

/// Checks that every anchor of `table` has a window starting at it (so the flagged window,
/// and the runtime's period origin, are the simulated ones).
pub fn anchored(table: Table) -> Result<Table, Fail> {
    for &(p, a) in &table.anchors {
        if !table
            .windows
            .iter()
            .any(|w| w.partition == p && w.start == a)
        {
            return Err(Fail::Anchor(p));
        }
    }
    Ok(table)
}

/// Merges windows of the same partition that touch (the switch between them disappears),
/// except into a window that starts at the partition's anchor.
pub fn merge(mut table: Table) -> Table {
    table.windows.sort_by_key(|w| w.start);
    let mut out: Vec<Win> = Vec::with_capacity(table.windows.len());
    for w in table.windows {
        let anchored = table.anchors.contains(&(w.partition, w.start));
        match out.last_mut() {
            Some(last) if last.partition == w.partition && last.end == w.start && !anchored => {
                last.end = w.end
            }
            _ => out.push(w),
        }
    }
    table.windows = out;
    table
}

/// Partition switches per frame on one core: windows whose predecessor (cyclically) is not the
/// same partition ending exactly where they start.
pub fn switches(windows: &[Win], frame: Nanos) -> usize {
    let mut ws: Vec<&Win> = windows.iter().collect();
    ws.sort_by_key(|w| w.start);
    let n = ws.len();
    (0..n)
        .filter(|&k| {
            let prev = ws[(k + n - 1) % n];
            let w = ws[k];
            let prev_end = if k == 0 {
                prev.end.checked_sub(frame)
            } else {
                Some(prev.end)
            };
            !(prev.partition == w.partition && prev_end == Some(w.start) && n > 1)
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Task;
    use partita_config::model::Criticality;

    const MS: Nanos = 1_000_000;

    fn part(index: usize, c: Criticality, tasks: &[(u64, u64)]) -> PartitionTasks {
        PartitionTasks {
            index,
            id: index as u32 + 1,
            name: format!("P{index}"),
            criticality: c,
            cores: vec![],
            tasks: tasks
                .iter()
                .enumerate()
                .map(|(i, &(p, c))| Task {
                    name: format!("t{i}"),
                    period: p * MS,
                    wcet: c * 100_000,
                    deadline: p * MS,
                    priority: 10 - i as u32,
                })
                .collect(),
        }
    }

    #[test]
    fn seed_runs_partitions_in_criticality_order_in_every_micro_period() {
        // Declared least critical first; both have work in every 10 ms micro-period.
        let d = part(0, Criticality::LevelD, &[(10, 20), (20, 10)]);
        let a = part(1, Criticality::LevelA, &[(10, 15)]);
        let params = Params {
            switch_cost: 50_000,
            host_reserve: Some(MS),
        };
        let t = seed(&[&d, &a], 20 * MS, &params).unwrap();
        assert_eq!(t.variant, "seed micro-period");
        for k in 0..2 {
            let (lo, hi) = (k * 10 * MS, (k + 1) * 10 * MS);
            let ws: Vec<&Win> = t
                .windows
                .iter()
                .filter(|w| w.start >= lo && w.start < hi)
                .collect();
            assert!(!ws.is_empty());
            let first_d = ws.iter().position(|w| w.partition == 0);
            let last_a = ws.iter().rposition(|w| w.partition == 1);
            if let (Some(fd), Some(la)) = (first_d, last_a) {
                assert!(la < fd, "micro-period {k}: {ws:?}");
            }
            // The host reserve is left at the end of each micro-period.
            assert!(ws.iter().all(|w| w.end <= hi - MS), "{ws:?}");
        }
    }

    #[test]
    fn criticality_policy_never_lets_a_lower_partition_preempt() {
        let d = part(0, Criticality::LevelD, &[(10, 30)]);
        let a = part(1, Criticality::LevelA, &[(10, 20)]);
        let params = Params {
            switch_cost: 0,
            host_reserve: Some(0),
        };
        let t = packing(&[&d, &a], 10 * MS, &params, Policy::Criticality).unwrap();
        // A (2 ms) runs at its period start, D after it: A's window is never cut by D.
        let a_time: Nanos = t
            .windows
            .iter()
            .filter(|w| w.partition == 1)
            .map(|w| w.end - w.start)
            .sum();
        assert_eq!(a_time, 2 * MS, "{t:?}");
        assert_eq!(
            t.windows.iter().filter(|w| w.partition == 1).count(),
            1,
            "{t:?}"
        );
    }

    #[test]
    fn merge_and_switches() {
        let w = |p, s, e| Win {
            partition: p,
            start: s,
            end: e,
        };
        let t = Table {
            windows: vec![w(0, 0, 2), w(0, 2, 4), w(1, 4, 6), w(1, 6, 8), w(0, 8, 10)],
            anchors: vec![(0, 0), (1, 6)],
            variant: "",
        };
        let m = merge(t);
        // (1, 6) starts partition 1's periods: not merged into its predecessor.
        assert_eq!(
            m.windows,
            vec![w(0, 0, 4), w(1, 4, 6), w(1, 6, 8), w(0, 8, 10)]
        );
        // Cyclically, partition 0 at 8..10 continues into 0..4: not a switch; 1 at 6 neither.
        assert_eq!(switches(&m.windows, 10), 2);
        assert!(anchored(m.clone()).is_ok());
        let bad = Table {
            anchors: vec![(1, 5)],
            ..m
        };
        assert_eq!(anchored(bad), Err(Fail::Anchor(1)));
    }
}
