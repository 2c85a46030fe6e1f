// SPDX-License-Identifier: MIT OR Apache-2.0
//! Human summary of a compiled plan (what `partita check` prints on success).

use crate::model::{Endpoint, ModuleSchedule, PortKind, PseudoTransport};
use crate::plan::CompiledPlan;
use crate::time::format_duration;
use partita_schedule::Nanos;
use std::fmt::Write as _;

/// Width of the timeline bars in characters.
pub const BAR_WIDTH: usize = 60;

/// The letter that stands for partition `index` in timeline bars: `A`..`Z`, `a`..`z`,
/// `0`..`9`, then `#`.
pub fn partition_letter(index: usize) -> char {
    const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    LETTERS.get(index).map_or('#', |&b| char::from(b))
}

fn percent(part: u128, whole: u128) -> String {
    if whole == 0 {
        return "-".into();
    }
    let permille = part * 1000 / whole;
    format!("{}.{}%", permille / 10, permille % 10)
}

fn endpoint(plan: &CompiledPlan, e: &Endpoint) -> String {
    match e {
        Endpoint::Partition { partition, port } => {
            let name = plan
                .partitions
                .get(*partition)
                .map_or("?", |p| p.name.as_str());
            format!("{name}:{port}")
        }
        Endpoint::Pseudo {
            name, transport, ..
        } => match transport {
            PseudoTransport::Udp { host, port } => {
                if host.contains(':') {
                    format!("{name}(udp [{host}]:{port})")
                } else {
                    format!("{name}(udp {host}:{port})")
                }
            }
            PseudoTransport::File { path } => format!("{name}(file {})", path.display()),
            PseudoTransport::Fifo { path } => format!("{name}(fifo {})", path.display()),
        },
    }
}

/// The timeline bar of one core: one character per `frame / width` slice, the letter of the
/// partition that owns most of the slice or `.` when it is mostly idle. A window too short to
/// win any slice still marks the slice it starts in.
pub fn timeline_bar(schedule: &ModuleSchedule, core: u32, width: usize) -> String {
    let frame = u128::from(schedule.plan.major_frame);
    if frame == 0 || width == 0 {
        return String::new();
    }
    let wins: Vec<_> = schedule
        .plan
        .windows
        .iter()
        .filter(|w| w.core == core)
        .collect();
    let w = width as u128;
    let mut bar: Vec<char> = (0..width)
        .map(|c| {
            let (lo, hi) = (frame * c as u128 / w, frame * (c as u128 + 1) / w);
            let mut best: Option<(u128, usize)> = None;
            let mut busy = 0u128;
            for win in &wins {
                let s = u128::from(win.offset).max(lo);
                let e = u128::from(win.end()).min(hi);
                if e > s {
                    busy += e - s;
                    if !matches!(best, Some((b, _)) if b >= e - s) {
                        best = Some((e - s, win.partition));
                    }
                }
            }
            match best {
                Some((t, p)) if t > (hi - lo).saturating_sub(busy) => partition_letter(p),
                _ => '.',
            }
        })
        .collect();
    for win in &wins {
        let letter = partition_letter(win.partition);
        let first = (u128::from(win.offset) * w / frame) as usize;
        let last = ((u128::from(win.end()) * w).div_ceil(frame) as usize).min(width);
        let shown = bar
            .get(first..last.max(first))
            .is_some_and(|s| s.contains(&letter));
        if !shown {
            if let Some(c) = bar.get_mut(first.min(width - 1)) {
                *c = letter;
            }
        }
    }
    bar.into_iter().collect()
}

fn fmt_opt(ns: Option<Nanos>) -> String {
    ns.map_or_else(|| "-".to_string(), format_duration)
}

/// The background lines of schedule `s`: per core whose idle time a general-purpose
/// partition gets, how much of each frame that is.
fn render_background(o: &mut String, plan: &CompiledPlan, s: &ModuleSchedule) {
    let mut cores: Vec<u32> = (0..plan.partitions.len())
        .flat_map(|i| plan.background_cores(i).iter().copied())
        .collect();
    cores.sort_unstable();
    cores.dedup();
    if cores.is_empty() {
        return;
    }
    let _ = writeln!(o, "  background");
    let f = u128::from(s.plan.major_frame);
    for core in cores {
        let Some(owner) = plan.background_of(core) else {
            continue;
        };
        let idle = s.plan.core_timeline(core).idle_time();
        let name = plan.partitions.get(owner).map_or("?", |p| p.name.as_str());
        let _ = writeln!(
            o,
            "    core {core:<3} {} {name}  {} per frame ({}): every gap between windows",
            partition_letter(owner),
            format_duration(idle),
            percent(u128::from(idle), f),
        );
    }
}

/// Renders a one-screen summary: module, partitions, per-core timeline of every schedule with
/// its windows and utilisation, and channels.
pub fn render_summary(plan: &CompiledPlan) -> String {
    let mut o = String::new();
    let _ = write!(o, "Module {}", plan.module_name);
    if let Some(v) = &plan.module_version {
        let _ = write!(o, "  version {v}");
    }
    if let Some(id) = &plan.module_id {
        let _ = write!(o, "  id {id}");
    }
    let _ = writeln!(o);
    let short_hash: String = plan.source_sha256.chars().take(12).collect();
    let _ = writeln!(
        o,
        "  source {}  sha256 {short_hash}",
        plan.source_path.display()
    );
    let _ = writeln!(o, "  backend {}", plan.backend);

    // Partitions.
    let _ = writeln!(o, "\nPartitions ({})", plan.partitions.len());
    let name_w = plan
        .partitions
        .iter()
        .map(|p| p.name.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(
        o,
        "     {:>4}  {:name_w$}  {:7}  {:3}  {:>8}  {:>8}  {:5}  executable",
        "id", "name", "crit", "sys", "period", "duration", "cores"
    );
    for p in &plan.partitions {
        let cores: Vec<String> = p.cores.iter().map(u32::to_string).collect();
        let mut exe = p.executable.display().to_string();
        for a in &p.args {
            exe.push(' ');
            exe.push_str(a);
        }
        if let Some(g) = &p.general_purpose {
            exe.push_str(&format!("  [general-purpose, network {}]", g.network));
        }
        let _ = writeln!(
            o,
            "  {}  {:>4}  {:name_w$}  {:7}  {:3}  {:>8}  {:>8}  {:5}  {exe}",
            partition_letter(p.index),
            p.id,
            p.name,
            p.criticality.as_str(),
            if p.system { "yes" } else { "no" },
            fmt_opt(p.period),
            fmt_opt(p.duration),
            cores.join(","),
        );
    }

    // Schedules.
    for s in &plan.schedules {
        let frame = s.plan.major_frame;
        let _ = write!(o, "\nSchedule {}", s.id);
        if let Some(n) = &s.name {
            let _ = write!(o, " \"{n}\"");
        }
        if s.initial {
            let _ = write!(o, " (initial)");
        }
        let _ = writeln!(o, ": major frame {}", format_duration(frame));
        let cores = s.plan.cores();
        for &core in &cores {
            let _ = writeln!(o, "  core {core:<3} |{}|", timeline_bar(s, core, BAR_WIDTH));
        }
        let end = format_duration(frame);
        let _ = writeln!(
            o,
            "            0{}{end}",
            " ".repeat((BAR_WIDTH + 1).saturating_sub(end.len()))
        );
        let _ = writeln!(o, "  windows");
        let mut order: Vec<usize> = (0..s.plan.windows.len()).collect();
        order.sort_by_key(|&i| (s.plan.windows[i].core, s.plan.windows[i].offset, i));
        for i in order {
            let w = &s.plan.windows[i];
            let name = plan
                .partitions
                .get(w.partition)
                .map_or("?", |p| p.name.as_str());
            let _ = writeln!(
                o,
                "    {:>4}  {} {:name_w$}  core {:<3} {:>9} .. {:<9} ({}){}",
                w.id,
                partition_letter(w.partition),
                name,
                w.core,
                format_duration(w.offset),
                format_duration(w.end()),
                format_duration(w.duration),
                if w.period_start { "  period start" } else { "" }
            );
        }
        let _ = writeln!(o, "  utilisation");
        let f = u128::from(frame);
        for p in &plan.partitions {
            let t: u128 = s
                .plan
                .windows
                .iter()
                .filter(|w| w.partition == p.index)
                .map(|w| u128::from(w.duration))
                .sum();
            if t == 0 && s.partition(p.index).is_none() {
                continue;
            }
            let need = s
                .partition(p.index)
                .map(|sp| {
                    format!(
                        "  needs {} every {}",
                        format_duration(sp.duration),
                        format_duration(sp.period)
                    )
                })
                .unwrap_or_default();
            let _ = writeln!(
                o,
                "    {} {:name_w$}  {:>6}  ({} per frame){need}",
                partition_letter(p.index),
                p.name,
                percent(t, f),
                format_duration(u64::try_from(t).unwrap_or(u64::MAX)),
            );
        }
        let per_core: Vec<String> = cores
            .iter()
            .map(|&c| {
                let t: u128 = s
                    .plan
                    .windows
                    .iter()
                    .filter(|w| w.core == c)
                    .map(|w| u128::from(w.duration))
                    .sum();
                format!("core {c} {}", percent(t, f))
            })
            .collect();
        let _ = writeln!(o, "    {}", per_core.join("  "));
        render_background(&mut o, plan, s);
    }

    // Channels.
    let _ = writeln!(o, "\nChannels ({})", plan.channels.len());
    for c in &plan.channels {
        let kind = match c.kind {
            PortKind::Sampling => "sampling",
            PortKind::Queuing => "queuing",
        };
        let size = match c.max_nb_messages {
            Some(n) if c.kind == PortKind::Queuing => format!("{} B x {n}", c.max_message_size),
            _ => format!("{} B", c.max_message_size),
        };
        let dests: Vec<String> = c.destinations.iter().map(|d| endpoint(plan, d)).collect();
        let name = c
            .name
            .as_deref()
            .map(|n| format!(" {n}"))
            .unwrap_or_default();
        let _ = writeln!(
            o,
            "  {:>4}{name}  {kind} {size}  {} -> {}",
            c.id,
            endpoint(plan, &c.source),
            dests.join(", ")
        );
    }
    o
}
