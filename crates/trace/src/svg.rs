// SPDX-License-Identifier: MIT OR Apache-2.0
//! An SVG timeline of a span (best for 1–3 major frames): per core a row of planned windows
//! beside a row of actual ones, per process a row of its states (running, ready, waiting) as
//! bars, deadline misses and HM events marked, frame starts as dashed lines, a time axis in
//! ms after the epoch, and a legend. Hand-written SVG text on the pieces of `partita-svg`.

use crate::describe::args_text;
use crate::timeline::{state_name, Trace, ViewError};
use partita_abi::trace::{EventKind, NO_PARTITION};
use partita_abi::ProcessState;
pub use partita_svg::tick_step;
use partita_svg::{escape, PALETTE};
use std::collections::BTreeSet;
use std::fmt::Write;

/// The colour of a process state's bar (`None`: not drawn).
pub fn state_colour(state: u64) -> Option<&'static str> {
    match u32::try_from(state).ok().and_then(ProcessState::from_raw) {
        Some(ProcessState::Running) => Some("#2ca02c"),
        Some(ProcessState::Ready) => Some("#f2c500"),
        Some(ProcessState::Waiting) => Some("#c7c7c7"),
        _ => None,
    }
}

const MISS: &str = "#d62728";
const HM: &str = "#7b2cbf";

fn partition_colour(p: u16) -> &'static str {
    if p == NO_PARTITION {
        "#999999"
    } else {
        PALETTE[usize::from(p) % PALETTE.len()]
    }
}

/// The timeline of `trace` (its bounds are the span drawn).
pub fn render(trace: &Trace) -> Result<String, ViewError> {
    let (lo, hi) = trace.bounds;
    let (left, width, row, top) = (190.0, 1000.0, 22.0, 50.0);
    let x = |t: u64| left + width * (t.clamp(lo, hi) - lo) as f64 / (hi - lo).max(1) as f64;
    let ms = |t: u64| trace.since_epoch(t) as f64 / 1e6;
    let planned = trace.planned_windows()?;
    let actual = trace.actual_windows();
    let states = trace.state_spans();
    let cores: Vec<u32> = trace
        .cores()
        .into_iter()
        .filter(|c| planned.iter().any(|w| w.core == *c) || actual.iter().any(|w| w.core == *c))
        .collect();
    let processes: BTreeSet<(u16, i32)> = states
        .iter()
        .map(|s| (s.partition, s.process))
        .chain(
            trace
                .events
                .iter()
                .filter(|e| e.kind == EventKind::DeadlineMiss)
                .map(|e| (e.partition, e.process)),
        )
        .collect();
    let rows = 1 + 2 * cores.len() + processes.len();
    let axis_y = top + row * rows as f64 + 6.0;
    let height = axis_y + 90.0;
    let title = format!(
        "{}: {:.3} ms to {:.3} ms after the epoch ({} backend)",
        trace.meta.module,
        ms(lo),
        ms(hi),
        trace.meta.backend
    );
    let mut s = partita_svg::begin(left + width + 30.0, height, 11, (10.0, &title));
    if trace.lost() + trace.refused() > 0 || trace.truncated_tail > 0 {
        let _ = writeln!(
            s,
            r#"<text x="10" y="36" fill="{MISS}">incomplete trace: {} events lost, {} refused{}</text>"#,
            trace.lost(),
            trace.refused(),
            if trace.truncated_tail > 0 {
                ", file truncated"
            } else {
                ""
            }
        );
    }
    let label = |s: &mut String, r: usize, text: &str| {
        let y = top + row * r as f64;
        let _ = writeln!(
            s,
            r##"<text x="8" y="{:.1}">{}</text><rect x="{left}" y="{:.1}" width="{width}" height="{:.1}" fill="#f6f6f6"/>"##,
            y + row / 2.0 + 4.0,
            escape(text),
            y + 2.0,
            row - 4.0
        );
        y
    };
    let bar = |s: &mut String,
               y: f64,
               (t0, t1): (u64, u64),
               fill: &str,
               opacity: f64,
               tip: &str| {
        let (x0, x1) = (x(t0), x(t1));
        let _ = writeln!(
            s,
            r#"<rect x="{x0:.2}" y="{:.1}" width="{:.2}" height="{:.1}" fill="{fill}" fill-opacity="{opacity}"><title>{}</title></rect>"#,
            y + 3.0,
            (x1 - x0).max(0.5),
            row - 6.0,
            escape(tip)
        );
    };
    // Row 0: module-wide and partition events (HM events without a process, switches).
    let y0 = label(&mut s, 0, "module events");
    let mut r = 1;
    for &core in &cores {
        let yp = label(&mut s, r, &format!("core {core} planned"));
        for w in planned.iter().filter(|w| w.core == core) {
            let tip = format!(
                "{} planned: frame {} window {}, {:.3} ms + {:.3} ms",
                trace.partition_name(w.partition),
                w.frame,
                w.index,
                ms(w.start),
                (w.end - w.start) as f64 / 1e6
            );
            bar(
                &mut s,
                yp,
                (w.start, w.end),
                partition_colour(w.partition),
                0.45,
                &tip,
            );
        }
        let ya = label(&mut s, r + 1, &format!("core {core} actual"));
        for w in actual.iter().filter(|w| w.core == core) {
            let tip = format!(
                "{}: started {:.1} us late, {}",
                trace.partition_name(w.partition),
                w.lateness() as f64 / 1e3,
                match w.usable_fraction() {
                    Some(f) => format!("{:.2} % of the window usable", f * 100.0),
                    None => "end not recorded".into(),
                }
            );
            bar(
                &mut s,
                ya,
                (w.start, w.until),
                partition_colour(w.partition),
                1.0,
                &tip,
            );
        }
        r += 2;
    }
    let mut process_row = std::collections::BTreeMap::new();
    for &(p, id) in &processes {
        let name = format!("{}/{}", trace.partition_name(p), trace.process_name(p, id));
        let y = label(&mut s, r, &name);
        process_row.insert((p, id), y);
        for st in states
            .iter()
            .filter(|st| (st.partition, st.process) == (p, id))
        {
            if let Some(c) = state_colour(st.state) {
                let tip = format!(
                    "{name} {} ({}) {:.3}..{:.3} ms",
                    state_name(st.state),
                    crate::timeline::reason_name(st.reason),
                    ms(st.start),
                    ms(st.end)
                );
                bar(&mut s, y, (st.start, st.end), c, 1.0, &tip);
            }
        }
        r += 1;
    }
    // Markers: deadline misses (triangles) and HM events (diamonds).
    for e in &trace.events {
        let colour = match e.kind {
            EventKind::DeadlineMiss => MISS,
            EventKind::HealthMonitor => HM,
            EventKind::ScheduleSwitch => "#333333",
            _ => continue,
        };
        let y = process_row
            .get(&(e.partition, e.process))
            .copied()
            .unwrap_or(y0);
        let (cx, cy) = (x(e.time_ns), y + row / 2.0);
        let shape = if e.kind == EventKind::DeadlineMiss {
            Marker::Triangle
        } else {
            Marker::Diamond
        }
        .points(cx, cy);
        let _ = writeln!(
            s,
            r#"<polygon points="{shape}" fill="{colour}" stroke="black" stroke-width="0.5"><title>{} at {:.3} ms: {}</title></polygon>"#,
            e.kind.name(),
            ms(e.time_ns),
            escape(&args_text(trace, e))
        );
    }
    // Frame starts.
    for (t, _) in trace.frame_starts()? {
        if t >= lo && t < hi {
            let xf = x(t);
            let _ = writeln!(
                s,
                r##"<line x1="{xf:.2}" y1="{}" x2="{xf:.2}" y2="{axis_y}" stroke="#555" stroke-dasharray="3,3"/>"##,
                top
            );
        }
    }
    // Time axis.
    let _ = writeln!(
        s,
        r##"<line x1="{left}" y1="{axis_y}" x2="{}" y2="{axis_y}" stroke="#333"/>"##,
        left + width
    );
    let step = tick_step(hi - lo);
    let epoch = trace.meta.epoch_ns as i128;
    let first = (i128::from(lo) - epoch).div_euclid(i128::from(step)) * i128::from(step);
    let mut t = first;
    while t + epoch <= i128::from(hi) {
        let abs = t + epoch;
        if abs >= i128::from(lo) {
            let xt = x(abs as u64);
            let _ = writeln!(
                s,
                r##"<line x1="{xt:.1}" y1="{axis_y}" x2="{xt:.1}" y2="{}" stroke="#333"/><text x="{xt:.1}" y="{}" text-anchor="middle">{}</text>"##,
                axis_y + 5.0,
                axis_y + 17.0,
                partita_svg::trim_number(t as f64 / 1e6, 3)
            );
        }
        t += i128::from(step);
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">ms after the epoch (dashed: major frame starts)</text>"#,
        left + width / 2.0,
        axis_y + 32.0
    );
    legend(trace, &mut s, left, axis_y + 55.0);
    partita_svg::end(&mut s);
    Ok(s)
}

/// The shape of an event marker.
#[derive(Clone, Copy)]
enum Marker {
    /// Pointing down: a deadline miss.
    Triangle,
    /// HM events and schedule switches.
    Diamond,
}

impl Marker {
    /// The polygon's points around (`cx`, `cy`).
    fn points(self, cx: f64, cy: f64) -> String {
        match self {
            Marker::Triangle => format!(
                "{cx:.1},{:.1} {:.1},{:.1} {:.1},{:.1}",
                cy + 7.0,
                cx - 6.0,
                cy - 5.0,
                cx + 6.0,
                cy - 5.0
            ),
            Marker::Diamond => format!(
                "{cx:.1},{:.1} {:.1},{cy:.1} {cx:.1},{:.1} {:.1},{cy:.1}",
                cy - 7.0,
                cx + 6.0,
                cy + 7.0,
                cx - 6.0
            ),
        }
    }
}

fn legend(trace: &Trace, s: &mut String, left: f64, ly: f64) {
    let mut lx = left;
    let mut entry = |s: &mut String, fill: &str, text: &str, marker: Option<Marker>| {
        if let Some(m) = marker {
            let _ = writeln!(
                s,
                r#"<polygon points="{}" fill="{fill}"/>"#,
                m.points(lx + 6.0, ly - 5.0)
            );
        } else {
            let _ = writeln!(
                s,
                r#"<rect x="{lx}" y="{}" width="12" height="12" fill="{fill}"/>"#,
                ly - 10.0
            );
        }
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{ly}">{}</text>"#,
            lx + 16.0,
            escape(text)
        );
        lx += 28.0 + 6.5 * text.len() as f64;
    };
    for p in &trace.meta.partitions {
        entry(s, partition_colour(p.index), &p.name, None);
    }
    for st in [
        ProcessState::Running,
        ProcessState::Ready,
        ProcessState::Waiting,
    ] {
        let raw = u64::from(st.raw());
        entry(s, state_colour(raw).unwrap_or("#000"), st.name(), None);
    }
    entry(s, MISS, "deadline miss", Some(Marker::Triangle));
    entry(s, HM, "HM event", Some(Marker::Diamond));
    entry(s, "#333333", "schedule switch", Some(Marker::Diamond));
}
