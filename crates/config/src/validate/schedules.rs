// SPDX-License-Identifier: MIT OR Apache-2.0
//! Module schedule rules: major frames, partition periods, windows and cores.

use crate::diag::{Pos, Rule};
use crate::limits::MAX_PERIODS_PER_FRAME;
use crate::raw::val;
use crate::time::format_duration;
use partita_schedule::{FramePlan, Nanos, Window};
use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::{ScheduleFacts, Validator, BOUNDARY_RT_COST_NS, RT_BUDGET_PERCENT};

impl Validator<'_, '_, '_> {
    fn allowed_cores(&self, idx: usize) -> Option<&Vec<u32>> {
        self.raw
            .partitions
            .get(idx)
            .and_then(|p| p.resources.as_ref())
            .and_then(|r| r.cores.as_ref())
            .map(|c| &c.value)
    }

    pub(super) fn schedules(&mut self) -> ScheduleFacts {
        let raw = self.raw;
        let n = raw.partitions.len();
        let mut facts = ScheduleFacts {
            initial: 0,
            window_cores: vec![BTreeSet::new(); n],
        };
        if raw.schedules.is_empty() {
            self.sink
                .emit(Rule::MissingElement, raw.pos, "the module has no `Module_Schedule`")
                .with_hint("add <Module_Schedule MajorFrameSeconds=\"...\"> with a Partition_Schedule per partition");
            return facts;
        }
        if raw.schedules.len() > 1 {
            let trues: Vec<usize> = (0..raw.schedules.len())
                .filter(|&i| val(&raw.schedules[i].initial) == Some(true))
                .collect();
            match trues.as_slice() {
                [one] => facts.initial = *one,
                [] => {
                    self.sink
                        .emit(
                            Rule::InitialSchedule,
                            raw.schedules[0].pos,
                            format!(
                                "there are {} Module_Schedule elements but none has InitialModuleSchedule=\"true\"",
                                raw.schedules.len()
                            ),
                        )
                        .with_hint("mark the schedule the module starts with by InitialModuleSchedule=\"true\"");
                }
                [first, second, ..] => {
                    let at = |i: usize| {
                        raw.schedules[i]
                            .initial
                            .as_ref()
                            .map_or(raw.schedules[i].pos, |s| s.pos)
                    };
                    self.sink
                        .emit(
                            Rule::InitialSchedule,
                            at(*second),
                            format!(
                                "{} Module_Schedule elements have InitialModuleSchedule=\"true\"; exactly one may",
                                trues.len()
                            ),
                        )
                        .with_hint("keep InitialModuleSchedule=\"true\" on one schedule only")
                        .with_related(at(*first), "first initial schedule here");
                }
            }
        }
        self.schedule_identities();
        self.schedule_rights();
        let mut has_window = vec![false; n];
        for s in &raw.schedules {
            self.schedule(s, &mut has_window, &mut facts);
        }
        for (i, p) in raw.partitions.iter().enumerate() {
            // A partition without a usable identifier cannot be scheduled; its error is out.
            let referable = val(&p.id).and_then(|id| self.by_id.get(&id)) == Some(&i);
            if referable && !has_window[i] && !self.has_background(i) {
                self.sink
                    .emit(
                        Rule::PartitionWithoutWindow,
                        p.pos,
                        format!(
                            "partition {} has no window in any Module_Schedule, so it never runs",
                            self.partition_label(i)
                        ),
                    )
                    .with_hint("add a <Partition_Schedule> with at least one <Window_Schedule> for it, or remove the partition");
            }
        }
        facts
    }

    fn schedule(
        &mut self,
        s: &crate::raw::RawSchedule,
        has_window: &mut [bool],
        facts: &mut ScheduleFacts,
    ) {
        let frame = match &s.major_frame {
            Some(f) if f.value == 0 => {
                self.sink
                    .emit(Rule::ZeroDuration, f.pos, "MajorFrameSeconds is zero")
                    .with_hint("the major frame is the length of the repeating window table; give it in seconds, e.g. 0.1");
                None
            }
            Some(f) => Some(f.clone()),
            None => None,
        };
        let mut window_ids: HashMap<u32, Pos> = HashMap::new();
        let mut scheduled: HashMap<usize, Pos> = HashMap::new();
        let mut windows: Vec<CheckedWindow> = Vec::new();
        // (partition index, raw partition schedule) of resolved, non-duplicate entries.
        let mut resolved: Vec<(usize, &crate::raw::RawPartitionSchedule)> = Vec::new();
        for ps in &s.partitions {
            let idx = self.resolve(
                &ps.target,
                Rule::ScheduleUnknownPartition,
                "Partition_Schedule",
            );
            if let Some(idx) = idx {
                if let Some(&first) = scheduled.get(&idx) {
                    self.sink
                        .emit(
                            Rule::DuplicateElement,
                            ps.target.pos,
                            format!(
                                "second `Partition_Schedule` for partition {} in this Module_Schedule",
                                self.partition_label(idx)
                            ),
                        )
                        .with_hint("put all windows of a partition in one Partition_Schedule")
                        .with_related(first, "first one here");
                } else {
                    scheduled.insert(idx, ps.target.pos);
                    resolved.push((idx, ps));
                }
            }
            let mut period_ok = false;
            if let Some(period) = &ps.period {
                if period.value == 0 {
                    self.sink
                        .emit(Rule::ZeroDuration, period.pos, "PeriodSeconds is zero")
                        .with_hint("give the partition's period in seconds");
                } else {
                    period_ok = true;
                    if let Some(f) = &frame {
                        if f.value % period.value != 0 {
                            self.sink
                                .emit(
                                    Rule::FrameNotMultipleOfPeriod,
                                    period.pos,
                                    format!(
                                        "the major frame ({}) is not a multiple of the period {} of partition {}",
                                        format_duration(f.value),
                                        format_duration(period.value),
                                        idx.map(|i| self.partition_label(i)).unwrap_or_else(|| "?".into())
                                    ),
                                )
                                .with_hint("choose the major frame as a common multiple of all partition periods (e.g. their least common multiple)")
                                .with_related(f.pos, "major frame defined here");
                        }
                        let periods = f.value / period.value;
                        if periods > MAX_PERIODS_PER_FRAME {
                            self.sink
                                .emit(
                                    Rule::TooManyPeriods,
                                    period.pos,
                                    format!(
                                        "the major frame ({}) holds {periods} periods of {} of partition {}; at most {MAX_PERIODS_PER_FRAME} are checked",
                                        format_duration(f.value),
                                        format_duration(period.value),
                                        idx.map(|i| self.partition_label(i)).unwrap_or_else(|| "?".into())
                                    ),
                                )
                                .with_hint("a major frame repeats: give it the length of one cycle of the periods (their least common multiple), not of the whole mission")
                                .with_related(f.pos, "major frame defined here");
                        }
                    }
                }
            }
            if let (Some(period), Some(duration)) = (&ps.period, &ps.duration) {
                if period_ok && duration.value > period.value {
                    self.sink
                        .emit(
                            Rule::DurationExceedsPeriod,
                            duration.pos,
                            format!(
                                "PeriodDurationSeconds ({}) is longer than PeriodSeconds ({})",
                                format_duration(duration.value),
                                format_duration(period.value)
                            ),
                        )
                        .with_hint(
                            "a partition cannot need more time per period than the period itself",
                        );
                }
            }
            for w in &ps.windows {
                if let Some(id) = &w.id {
                    if let Some(&first) = window_ids.get(&id.value) {
                        self.sink
                            .emit(
                                Rule::DuplicateWindowId,
                                id.pos,
                                format!(
                                    "window identifier {} is used twice in this Module_Schedule",
                                    id.value
                                ),
                            )
                            .with_hint("number the windows of a module schedule uniquely")
                            .with_related(first, "first defined here");
                    } else {
                        window_ids.insert(id.value, id.pos);
                    }
                }
                if let Some(d) = &w.duration {
                    if d.value == 0 {
                        self.sink
                            .emit(Rule::ZeroDuration, d.pos, "WindowDurationSeconds is zero")
                            .with_hint("remove the window or give it a length");
                    }
                }
                let core = val(&w.core).unwrap_or(0);
                if let Some(idx) = idx {
                    if let Some(slot) = has_window.get_mut(idx) {
                        *slot = true;
                    }
                    if let Some(set) = facts.window_cores.get_mut(idx) {
                        set.insert(core);
                    }
                    if let Some(allowed) = self.allowed_cores(idx) {
                        if !allowed.contains(&core) {
                            let list: Vec<String> = allowed.iter().map(u32::to_string).collect();
                            let at = w.core.as_ref().map_or(w.pos, |c| c.pos);
                            self.sink
                                .emit(
                                    Rule::WindowCoreNotAllowed,
                                    at,
                                    format!(
                                        "window{} of partition {} runs on core {core}, which is not in its cores list ({})",
                                        w.id.as_ref().map(|i| format!(" {}", i.value)).unwrap_or_default(),
                                        self.partition_label(idx),
                                        list.join(",")
                                    ),
                                )
                                .with_hint("move the window to an allowed core (partita:Core) or extend partita:Resources cores");
                        }
                    }
                }
                if let (Some(start), Some(d)) = (&w.start, &w.duration) {
                    if d.value > 0 {
                        windows.push(CheckedWindow {
                            pos: w.pos,
                            window: Window {
                                id: val(&w.id).unwrap_or(u32::MAX),
                                partition: idx.unwrap_or(usize::MAX),
                                core,
                                offset: start.value,
                                duration: d.value,
                                period_start: val(&w.period_start).unwrap_or(false),
                            },
                        });
                    }
                }
            }
        }
        let Some(frame) = frame else { return };
        let plan = FramePlan {
            major_frame: frame.value,
            windows: windows.iter().map(|w| w.window.clone()).collect(),
        };
        for i in plan.windows_outside_frame() {
            let w = &windows[i];
            self.sink
                .emit(
                    Rule::WindowOutsideFrame,
                    w.pos,
                    format!(
                        "window {} {} leaves the major frame of {}",
                        w.window.id,
                        fmt_window(w.window.offset, w.window.duration),
                        format_duration(frame.value)
                    ),
                )
                .with_hint("windows must start and end inside [0, MajorFrameSeconds]")
                .with_related(frame.pos, "major frame defined here");
        }
        for (a, b) in plan.overlapping_windows() {
            let (wa, wb) = (&windows[a], &windows[b]);
            self.sink
                .emit(
                    Rule::WindowOverlap,
                    wb.pos,
                    format!(
                        "window {} {} overlaps window {} {} on core {}",
                        wb.window.id,
                        fmt_window(wb.window.offset, wb.window.duration),
                        wa.window.id,
                        fmt_window(wa.window.offset, wa.window.duration),
                        wb.window.core
                    ),
                )
                .with_hint("windows on one core must not overlap: move or shorten one, or put it on another core (partita:Core)")
                .with_related(wa.pos, "the other window");
        }
        // Period supply.
        for (idx, ps) in &resolved {
            let (Some(period), Some(duration)) = (&ps.period, &ps.duration) else {
                continue;
            };
            if period.value == 0
                || frame.value % period.value != 0
                || duration.value > period.value
                || frame.value / period.value > MAX_PERIODS_PER_FRAME
            {
                continue;
            }
            let total: u128 = plan
                .windows
                .iter()
                .filter(|w| w.partition == *idx)
                .map(|w| u128::from(w.duration))
                .sum();
            if total > u128::from(u64::MAX) {
                continue;
            }
            let supply = plan.supply_per_period(*idx, period.value);
            let short: Vec<(usize, Nanos)> = supply
                .iter()
                .copied()
                .enumerate()
                .filter(|&(_, got)| got < duration.value)
                .collect();
            if let Some(&(k, got)) = short.first() {
                let start = (k as u64).saturating_mul(period.value);
                let more = if short.len() > 1 {
                    format!(
                        " (and {} more of its {} periods)",
                        short.len() - 1,
                        supply.len()
                    )
                } else {
                    String::new()
                };
                self.sink
                    .emit(
                        Rule::PeriodDurationNotMet,
                        ps.target.pos,
                        format!(
                            "partition {} gets {} in its period {k} {} but needs {} (PeriodDurationSeconds){more}",
                            self.partition_label(*idx),
                            if got == 0 { "no time".to_string() } else { format_duration(got) },
                            fmt_window(start, period.value),
                            format_duration(duration.value)
                        ),
                    )
                    .with_hint("periods are counted from the start of the major frame; add or lengthen windows in that period, or lower PeriodDurationSeconds")
                    .with_related(duration.pos, "PeriodDurationSeconds given here");
            }
        }
        // Multi-core partitions: held and released as a whole, so their windows must coincide
        // on all their cores (CAVEATS.md, "Multi-core partitions are frozen and thawed as a
        // whole").
        for (idx, _) in &resolved {
            let mut per_core: BTreeMap<u32, Vec<(Nanos, Nanos)>> = BTreeMap::new();
            for w in plan.windows.iter().filter(|w| w.partition == *idx) {
                per_core
                    .entry(w.core)
                    .or_default()
                    .push((w.offset, w.end()));
            }
            for spans in per_core.values_mut() {
                *spans = merged(std::mem::take(spans));
            }
            let mut cores = per_core.iter();
            let Some((&first_core, first)) = cores.next() else {
                continue;
            };
            let Some((&core, spans)) = cores.find(|(_, s)| *s != first) else {
                continue;
            };
            let Some(w) = windows
                .iter()
                .find(|w| w.window.partition == *idx && w.window.core == core)
            else {
                continue;
            };
            let show = |s: &[(Nanos, Nanos)]| {
                s.iter()
                    .map(|&(a, b)| fmt_window(a, b - a))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            self.sink
                .emit(
                    Rule::MulticoreWindowsDiffer,
                    w.pos,
                    format!(
                        "partition {} has windows {} on core {first_core} but {} on core {core}: it is held and released as a whole, so while any of its windows is open its processes of every core may run, also on a core where another partition's window is open",
                        self.partition_label(*idx),
                        show(first),
                        show(spans)
                    ),
                )
                .with_hint("give a multi-core partition the same windows on each of its cores (CAVEATS.md: multi-core partitions are frozen and thawed as a whole)");
        }
        // RT throttling budget, per core: the windows, and the manager's real-time work at each
        // boundary (a distinct window start or end instant of the core).
        for core in plan.cores() {
            let mine: Vec<_> = plan
                .windows
                .iter()
                .filter(|w| w.core == core && w.offset < frame.value)
                .collect();
            let windows: u128 = mine
                .iter()
                .map(|w| u128::from(w.end().min(frame.value) - w.offset))
                .sum();
            let instants: BTreeSet<Nanos> = mine
                .iter()
                .flat_map(|w| [w.offset, w.end().min(frame.value) % frame.value])
                .collect();
            let boundaries = instants.len() as u128;
            let busy = windows + boundaries * u128::from(BOUNDARY_RT_COST_NS);
            let f = u128::from(frame.value);
            if busy * 100 > f * u128::from(RT_BUDGET_PERCENT) {
                let permille = busy * 1000 / f;
                let wpermille = windows * 1000 / f;
                self.sink
                    .emit(
                        Rule::RtBudget,
                        s.pos,
                        format!(
                            "real-time work fills {}.{}% of core {core} in each {} major frame: windows {}.{}%, and {boundaries} boundaries at {} each (the manager's spin margin and switch work)",
                            permille / 10,
                            permille % 10,
                            format_duration(frame.value),
                            wpermille / 10,
                            wpermille % 10,
                            format_duration(BOUNDARY_RT_COST_NS)
                        ),
                    )
                    .with_hint("Linux throttles real-time tasks to 95% of each period by default (kernel.sched_rt_runtime_us=950000), which may cut windows short.\nleave at least 5% of every core idle, or lift the budget on a dedicated machine for the run (partita run --rt-budget unlimited) or for good (sysctl kernel.sched_rt_runtime_us=-1)")
                    .with_related(frame.pos, "major frame defined here");
            }
        }
    }
}

/// `spans` sorted and with touching or overlapping spans joined.
fn merged(mut spans: Vec<(Nanos, Nanos)>) -> Vec<(Nanos, Nanos)> {
    spans.sort_unstable();
    let mut out: Vec<(Nanos, Nanos)> = Vec::new();
    for (a, b) in spans {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

fn fmt_window(offset: Nanos, duration: Nanos) -> String {
    format!(
        "[{}, {})",
        format_duration(offset),
        format_duration(offset.saturating_add(duration))
    )
}

/// A window of the checked plan with the data needed for diagnostics.
struct CheckedWindow {
    pos: Pos,
    window: Window,
}
