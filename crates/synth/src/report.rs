// SPDX-License-Identifier: MIT OR Apache-2.0
//! The synthesis report: per-process worst-case response times (from the checker), per
//! partition supply and utilisation, windows and partition switches per major frame.

use crate::checker::{Verdict, Violation};
use crate::{Synthesis, TaskSet};
use partita_config::time::format_duration;
use partita_schedule::Nanos;
use serde::Serialize;
use std::fmt::Write;

/// One partition in the report.
#[derive(Debug, Clone, Serialize)]
pub struct PartitionReport {
    /// Name.
    pub name: String,
    /// `PartitionIdentifier`.
    pub id: u32,
    /// Criticality.
    pub criticality: String,
    /// Core it runs on.
    pub core: u32,
    /// Process utilisation `sum(C/T)`.
    pub utilisation: f64,
    /// Window time per major frame (switch costs included).
    pub window_time: Nanos,
    /// Time left to the processes per major frame (window time minus switch costs).
    pub supply: Nanos,
    /// `supply / major frame`.
    pub supply_share: f64,
    /// Windows per major frame.
    pub windows: usize,
    /// `PeriodSeconds` written.
    pub period: Nanos,
    /// `PeriodDurationSeconds` written.
    pub duration: Nanos,
}

/// One core in the report.
#[derive(Debug, Clone, Serialize)]
pub struct CoreReport {
    /// Core.
    pub core: u32,
    /// Micro-period (smallest process period on it).
    pub micro_period: Nanos,
    /// Host reserve per micro-period.
    pub host_reserve: Nanos,
    /// Windows per major frame.
    pub windows: usize,
    /// Partition switches per major frame.
    pub switches: usize,
    /// Share of the frame covered by windows.
    pub busy_share: f64,
    /// Process utilisation of its partitions.
    pub utilisation: f64,
}

/// One process in the report.
#[derive(Debug, Clone, Serialize)]
pub struct ProcessReport {
    /// Partition name.
    pub partition: String,
    /// Process name.
    pub process: String,
    /// Period.
    pub period: Nanos,
    /// WCET.
    pub wcet: Nanos,
    /// Relative deadline.
    pub deadline: Nanos,
    /// Priority used.
    pub priority: u32,
    /// Worst-case response time found by the checker.
    pub wcrt: Option<Nanos>,
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Generator.
    pub algorithm: String,
    /// Per core: the construction that made its table.
    pub variants: Vec<(u32, String)>,
    /// Major frame.
    pub major_frame: Nanos,
    /// Switch cost charged per window.
    pub switch_cost: Nanos,
    /// Total process utilisation.
    pub utilisation: f64,
    /// Windows per major frame (all cores).
    pub windows: usize,
    /// Partition switches per major frame (all cores).
    pub switches: usize,
    /// Cores.
    pub cores: Vec<CoreReport>,
    /// Partitions.
    pub partitions: Vec<PartitionReport>,
    /// Processes.
    pub processes: Vec<ProcessReport>,
    /// The checker accepted the plan.
    pub checked: bool,
    /// Frames the checker simulated.
    pub checker_frames: u64,
    /// What the checker found wrong.
    pub violations: Vec<Violation>,
}

/// Partition switches per frame on `core` of a plan (see [`crate::gen::switches`]).
pub fn plan_switches(syn: &Synthesis, core: u32) -> usize {
    let wins: Vec<crate::Win> = syn
        .plan
        .windows
        .iter()
        .filter(|w| w.core == core)
        .map(|w| crate::Win {
            partition: w.partition,
            start: w.offset,
            end: w.end(),
        })
        .collect();
    crate::gen::switches(&wins, syn.plan.major_frame)
}

/// Builds the report of `syn` with the checker's `verdict`.
pub fn build(set: &TaskSet, syn: &Synthesis, verdict: &Verdict) -> Report {
    let f = syn.plan.major_frame;
    let s = syn.switch_cost;
    let mut partitions = Vec::new();
    for p in &set.partitions {
        let mine: Vec<_> = syn
            .plan
            .windows
            .iter()
            .filter(|w| w.partition == p.index)
            .collect();
        let window_time: Nanos = mine.iter().map(|w| w.duration).sum();
        let supply: Nanos = mine.iter().map(|w| w.duration.saturating_sub(s)).sum();
        let (period, duration) = syn
            .timing
            .iter()
            .find(|t| t.0 == p.index)
            .map_or((0, 0), |t| (t.1, t.2));
        partitions.push(PartitionReport {
            name: p.name.clone(),
            id: p.id,
            criticality: p.criticality.to_string(),
            core: mine.first().map_or(0, |w| w.core),
            utilisation: p.utilisation(),
            window_time,
            supply,
            supply_share: supply as f64 / f as f64,
            windows: mine.len(),
            period,
            duration,
        });
    }
    let cores: Vec<CoreReport> = syn
        .cores
        .iter()
        .map(|&(core, m, h)| CoreReport {
            core,
            micro_period: m,
            host_reserve: h,
            windows: syn.plan.windows.iter().filter(|w| w.core == core).count(),
            switches: plan_switches(syn, core),
            busy_share: syn.plan.core_time(core) as f64 / f as f64,
            utilisation: partitions
                .iter()
                .filter(|p| p.core == core)
                .map(|p| p.utilisation)
                .sum(),
        })
        .collect();
    let mut processes = Vec::new();
    for p in &set.partitions {
        for t in &p.tasks {
            let wcrt = verdict
                .processes
                .iter()
                .find(|r| r.partition == p.name && r.process == t.name)
                .and_then(|r| r.wcrt);
            processes.push(ProcessReport {
                partition: p.name.clone(),
                process: t.name.clone(),
                period: t.period,
                wcet: t.wcet,
                deadline: t.deadline,
                priority: t.priority,
                wcrt,
            });
        }
    }
    Report {
        algorithm: syn.algorithm.to_string(),
        variants: syn.variants.clone(),
        major_frame: f,
        switch_cost: s,
        utilisation: set.utilisation(),
        windows: syn.plan.windows.len(),
        switches: cores.iter().map(|c| c.switches).sum(),
        cores,
        partitions,
        processes,
        checked: verdict.ok(),
        checker_frames: verdict.frames,
        violations: verdict.violations.clone(),
    }
}

fn d(ns: Nanos) -> String {
    format_duration(ns)
}

/// Text rendering of a report.
pub fn render(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "algorithm {}: major frame {}, {} windows, {} partition switches per frame, utilisation {:.3}, switch cost {}",
        r.algorithm,
        d(r.major_frame),
        r.windows,
        r.switches,
        r.utilisation,
        d(r.switch_cost)
    );
    for c in &r.cores {
        let variant = r
            .variants
            .iter()
            .find(|v| v.0 == c.core)
            .map_or("", |v| v.1.as_str());
        let _ = writeln!(
            s,
            "  core {} ({variant}): micro-period {}, host reserve {}, {} windows, {} switches, windows fill {:.1}%, utilisation {:.3}",
            c.core,
            d(c.micro_period),
            d(c.host_reserve),
            c.windows,
            c.switches,
            c.busy_share * 100.0,
            c.utilisation
        );
    }
    let _ = writeln!(
        s,
        "  {:<16} {:>4} {:<8} {:>6} {:>7} {:>12} {:>12} {:>10} {:>12}",
        "partition",
        "core",
        "crit",
        "util",
        "supply",
        "supply/frame",
        "windows",
        "period",
        "duration"
    );
    for p in &r.partitions {
        let _ = writeln!(
            s,
            "  {:<16} {:>4} {:<8} {:>6.3} {:>6.1}% {:>12} {:>12} {:>10} {:>12}",
            p.name,
            p.core,
            p.criticality,
            p.utilisation,
            p.supply_share * 100.0,
            d(p.supply),
            p.windows,
            d(p.period),
            d(p.duration)
        );
    }
    let _ = writeln!(
        s,
        "  {:<16} {:<16} {:>10} {:>10} {:>10} {:>5} {:>10}",
        "partition", "process", "period", "wcet", "deadline", "prio", "wcrt"
    );
    for p in &r.processes {
        let _ = writeln!(
            s,
            "  {:<16} {:<16} {:>10} {:>10} {:>10} {:>5} {:>10}",
            p.partition,
            p.process,
            d(p.period),
            d(p.wcet),
            d(p.deadline),
            p.priority,
            p.wcrt.map_or("-".to_string(), d)
        );
    }
    if r.checked {
        let _ = writeln!(
            s,
            "  checker: every deadline met, no overlap, host reserve kept ({} frame(s) simulated)",
            r.checker_frames
        );
    } else {
        let _ = writeln!(s, "  checker: REJECTED: {:?}", r.violations);
    }
    s
}
