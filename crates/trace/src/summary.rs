// SPDX-License-Identifier: MIT OR Apache-2.0
//! The text summary: what the trace is missing first (a truncated file, lost or refused
//! events), then per core its windows' start lateness and usable fraction, per partition its
//! mode changes, per process its activations and deadline misses, the HM events, the port
//! traffic and the schedule switches.

use crate::describe::args_text;
use crate::timeline::{mode_name, Trace, ViewError};
use partita_abi::trace::{EventKind, StateReason, NO_PARTITION};
use partita_abi::ProcessState;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Most HM events listed one by one (the rest are counted).
pub const HM_LISTED: usize = 20;

/// The value at quantile `q` of sorted `v` (nearest rank).
pub fn quantile<T: Copy>(sorted: &[T], q: f64) -> Option<T> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((q.clamp(0.0, 1.0) * sorted.len() as f64).ceil() as usize).max(1);
    Some(sorted[rank - 1])
}

fn us(ns: i64) -> String {
    format!("{:.1} us", ns as f64 / 1e3)
}

fn ms(ns: i64) -> String {
    format!("{:.3} ms", ns as f64 / 1e6)
}

/// Port traffic of one (partition, port).
#[derive(Default)]
struct Traffic {
    writes: u64,
    write_bytes: u64,
    reads: u64,
    read_bytes: u64,
    failed: u64,
}

/// The summary of `trace`.
pub fn render(trace: &Trace) -> Result<String, ViewError> {
    let mut s = String::new();
    let m = &trace.meta;
    let (lo, hi) = trace.bounds;
    let _ = writeln!(
        s,
        "module {} ({} backend) on {} ({} cores, Linux {}){}",
        m.module,
        m.backend,
        if m.host.cpu.is_empty() {
            "an unnamed CPU"
        } else {
            &m.host.cpu
        },
        m.host.cores,
        m.host.kernel,
        m.host
            .revision
            .as_ref()
            .map_or(String::new(), |r| format!(", Partita {r}"))
    );
    // What is missing, first.
    let mut warnings = Vec::new();
    if trace.truncated_tail > 0 {
        warnings.push(format!(
            "the file is truncated: it ends {} bytes into an event (the run was cut short)",
            trace.truncated_tail
        ));
    }
    let mut lost: BTreeMap<String, u64> = BTreeMap::new();
    let mut refused: BTreeMap<String, u64> = BTreeMap::new();
    for e in &trace.events {
        let who = if e.partition == NO_PARTITION {
            format!("manager core {}", e.core)
        } else {
            trace.partition_name(e.partition)
        };
        match e.kind {
            EventKind::Lost => *lost.entry(who).or_default() += e.a,
            EventKind::Refused => *refused.entry(who).or_default() += e.a,
            _ => {}
        }
    }
    let list = |m: &BTreeMap<String, u64>| {
        m.iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !lost.is_empty() {
        warnings.push(format!(
            "{} events were lost (rings full): {}",
            lost.values().sum::<u64>(),
            list(&lost)
        ));
    }
    if !refused.is_empty() {
        warnings.push(format!(
            "{} partition records were refused (undecodable or forged): {}",
            refused.values().sum::<u64>(),
            list(&refused)
        ));
    }
    for w in &warnings {
        let _ = writeln!(s, "WARNING: {w}");
    }
    if warnings.is_empty() {
        let _ = writeln!(s, "complete: no event lost or refused, file not truncated");
    }
    let frames = trace.frame_starts()?;
    let in_span = frames.iter().filter(|f| f.0 >= lo && f.0 < hi).count();
    let _ = writeln!(
        s,
        "span {} to {} after the epoch ({} events, {} major frame starts)",
        ms(trace.since_epoch(lo)),
        ms(trace.since_epoch(hi)),
        trace.events.len(),
        in_span
    );

    cores(trace, &mut s)?;
    partitions(trace, &mut s);
    processes(trace, &mut s);
    hm_and_switches(trace, &mut s);
    ports(trace, &mut s);
    Ok(s)
}

fn cores(trace: &Trace, s: &mut String) -> Result<(), ViewError> {
    let _ = writeln!(s, "\ncores (start lateness = actual - planned start):");
    let planned = trace.planned_windows()?;
    let actual = trace.actual_windows();
    let (lo, hi) = trace.bounds;
    for core in trace.cores() {
        let n_planned = planned
            .iter()
            .filter(|w| w.core == core && w.start >= lo && w.start < hi)
            .count();
        let started: Vec<_> = actual
            .iter()
            .filter(|w| w.core == core && w.start >= lo)
            .collect();
        if n_planned == 0 && started.is_empty() {
            continue;
        }
        let mut late: Vec<i64> = started.iter().map(|w| w.lateness()).collect();
        late.sort_unstable();
        let mut usable: Vec<f64> = started.iter().filter_map(|w| w.usable_fraction()).collect();
        usable.sort_by(f64::total_cmp);
        let _ = write!(
            s,
            "  core {core}: {} windows started of {n_planned} planned",
            started.len()
        );
        if let (Some(p50), Some(p99), Some(max)) = (
            quantile(&late, 0.5),
            quantile(&late, 0.99),
            late.last().copied(),
        ) {
            let _ = write!(
                s,
                "; lateness p50 {} p99 {} max {}",
                us(p50),
                us(p99),
                us(max)
            );
        }
        if let (Some(p50), Some(p1)) = (quantile(&usable, 0.5), quantile(&usable, 0.01)) {
            let _ = write!(
                s,
                "; usable fraction p50 {:.2} % p1 {:.2} % ({} windows with an end)",
                p50 * 100.0,
                p1 * 100.0,
                usable.len()
            );
        }
        let _ = writeln!(s);
    }
    Ok(())
}

fn partitions(trace: &Trace, s: &mut String) {
    let _ = writeln!(s, "\npartitions:");
    let windows = trace.actual_windows();
    for p in &trace.meta.partitions {
        let modes: Vec<String> = trace
            .events
            .iter()
            .filter(|e| e.kind == EventKind::PartitionMode && e.partition == p.index)
            .map(|e| format!("{} at {}", mode_name(e.a), ms(trace.since_epoch(e.time_ns))))
            .collect();
        let spawns = trace
            .events
            .iter()
            .filter(|e| e.kind == EventKind::PartitionSpawned && e.partition == p.index)
            .count();
        let windows = windows
            .iter()
            .filter(|w| w.partition == p.index && w.start >= trace.bounds.0)
            .count();
        let _ = writeln!(
            s,
            "  {}: {windows} windows, {spawns} starts, modes: {}",
            p.name,
            if modes.is_empty() {
                "no change".to_string()
            } else {
                modes.join(", ")
            }
        );
    }
}

fn processes(trace: &Trace, s: &mut String) {
    let _ = writeln!(
        s,
        "\nprocesses (activations: made ready or running other than by the scheduler):"
    );
    let mut per: BTreeMap<(u16, i32), (u64, u64, u64)> = BTreeMap::new();
    for e in &trace.events {
        let entry = || (e.partition, e.process);
        match e.kind {
            // Made ready (or running at once) by anything but the scheduler: a release, a
            // start, a wake-up. Scheduled in by the scheduler: counted as a run.
            EventKind::ProcessState => {
                let (ready, running) = (
                    u64::from(ProcessState::Ready.raw()),
                    u64::from(ProcessState::Running.raw()),
                );
                let by_scheduler = e.b() == u64::from(StateReason::Scheduled.raw());
                let p = per.entry(entry()).or_default();
                if (e.a == ready || e.a == running) && !by_scheduler {
                    p.0 += 1;
                }
                if e.a == running {
                    p.1 += 1;
                }
            }
            EventKind::DeadlineMiss => per.entry(entry()).or_default().2 += 1,
            _ => {}
        }
    }
    if per.is_empty() {
        let _ = writeln!(s, "  (no process events)");
    }
    for ((p, id), (act, runs, misses)) in per {
        let _ = writeln!(
            s,
            "  {}/{}: {act} activations, {runs} times scheduled, {misses} deadline misses",
            trace.partition_name(p),
            trace.process_name(p, id)
        );
    }
}

fn hm_and_switches(trace: &Trace, s: &mut String) {
    let hm: Vec<_> = trace
        .events
        .iter()
        .filter(|e| e.kind == EventKind::HealthMonitor)
        .collect();
    let _ = writeln!(s, "\nhealth monitor: {} events", hm.len());
    for e in hm.iter().take(HM_LISTED) {
        let who = match (trace.partition_name(e.partition), e.process) {
            (p, _) if p.is_empty() => "module".to_string(),
            (p, 0) => p,
            (p, id) => format!("{p}/{}", trace.process_name(e.partition, id)),
        };
        let _ = writeln!(
            s,
            "  {} {who}: {}",
            ms(trace.since_epoch(e.time_ns)),
            args_text(trace, e)
        );
    }
    if hm.len() > HM_LISTED {
        let _ = writeln!(s, "  ... and {} more", hm.len() - HM_LISTED);
    }
    for e in trace
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ScheduleSwitch)
    {
        let _ = writeln!(
            s,
            "schedule switch at {}: {}",
            ms(trace.since_epoch(e.time_ns)),
            args_text(trace, e)
        );
    }
}

fn ports(trace: &Trace, s: &mut String) {
    let ok = u64::from(partita_abi::ReturnCode::NoError.raw());
    let mut traffic: BTreeMap<(u16, u64), Traffic> = BTreeMap::new();
    for e in &trace.events {
        let t = match e.kind {
            EventKind::PortWrite | EventKind::PortRead => {
                traffic.entry((e.partition, e.a)).or_default()
            }
            _ => continue,
        };
        if e.kind == EventKind::PortWrite {
            t.writes += 1;
            t.write_bytes += e.b();
        } else {
            t.reads += 1;
            t.read_bytes += e.b();
        }
        if e.c() != ok {
            t.failed += 1;
        }
    }
    let _ = writeln!(s, "\nport traffic:");
    if traffic.is_empty() {
        let _ = writeln!(s, "  (no port events)");
    }
    for ((p, port), t) in traffic {
        let _ = writeln!(
            s,
            "  {}/{}: {} writes ({} bytes), {} reads ({} bytes), {} not NO_ERROR",
            trace.partition_name(p),
            trace.port_name(p, port),
            t.writes,
            t.write_bytes,
            t.reads,
            t.read_bytes,
            t.failed
        );
    }
    let _ = writeln!(
        s,
        "\nlost events: {}, refused records: {}",
        trace.lost(),
        trace.refused()
    );
}
