// SPDX-License-Identifier: MIT OR Apache-2.0
//! Small hand-written SVG output (a Gantt chart of one major frame, the experiment's line
//! plots, cumulative distributions), on the pieces of `partita-svg`.

use partita_config::time::format_duration;
use partita_schedule::{FramePlan, Nanos};
use partita_svg::{escape, nice_ceiling, PALETTE};
use std::fmt::Write;

/// A Gantt chart of one major frame: a row per core, a coloured bar per window (the switch
/// cost at its start hatched darker), a legend with the partition names.
pub fn gantt(
    plan: &FramePlan,
    names: &[(usize, String)],
    switch_cost: Nanos,
    title: &str,
) -> String {
    let cores = plan.cores();
    let (left, width, row, top) = (70.0, 1000.0, 36.0, 40.0);
    let height = top + row * cores.len().max(1) as f64 + 80.0;
    let f = plan.major_frame.max(1) as f64;
    let x = |t: Nanos| left + width * t as f64 / f;
    let mut s = partita_svg::begin(left + width + 30.0, height, 12, (left, title));
    let color = |p: usize| {
        let k = names.iter().position(|(i, _)| *i == p).unwrap_or(p);
        PALETTE[k % PALETTE.len()]
    };
    for (r, &core) in cores.iter().enumerate() {
        let y = top + row * r as f64;
        let _ = writeln!(
            s,
            r##"<text x="8" y="{}">core {core}</text><rect x="{left}" y="{}" width="{width}" height="{}" fill="#f4f4f4"/>"##,
            y + row / 2.0 + 4.0,
            y + 4.0,
            row - 8.0
        );
        for w in plan.windows.iter().filter(|w| w.core == core) {
            let (x0, x1) = (x(w.offset), x(w.end()));
            let name = names
                .iter()
                .find(|(i, _)| *i == w.partition)
                .map_or(String::new(), |(_, n)| n.clone());
            let _ = writeln!(
                s,
                r#"<rect x="{x0:.2}" y="{}" width="{:.2}" height="{}" fill="{}"><title>{} window {}: {} + {}</title></rect>"#,
                y + 4.0,
                (x1 - x0).max(0.5),
                row - 8.0,
                color(w.partition),
                escape(&name),
                w.id,
                format_duration(w.offset),
                format_duration(w.duration)
            );
            let sc = x(w.offset + switch_cost.min(w.duration)) - x0;
            if sc > 0.3 {
                let _ = writeln!(
                    s,
                    r#"<rect x="{x0:.2}" y="{}" width="{sc:.2}" height="{}" fill="black" opacity="0.45"/>"#,
                    y + 4.0,
                    row - 8.0
                );
            }
        }
    }
    // Time axis.
    let ya = top + row * cores.len().max(1) as f64 + 4.0;
    let _ = writeln!(
        s,
        r##"<line x1="{left}" y1="{ya}" x2="{}" y2="{ya}" stroke="#333"/>"##,
        left + width
    );
    for k in 0..=10u64 {
        let t = plan.major_frame * k / 10;
        let xt = x(t);
        let _ = writeln!(
            s,
            r##"<line x1="{xt:.1}" y1="{ya}" x2="{xt:.1}" y2="{}" stroke="#333"/><text x="{xt:.1}" y="{}" text-anchor="middle">{}</text>"##,
            ya + 5.0,
            ya + 18.0,
            format_duration(t)
        );
    }
    // Legend.
    let mut lx = left;
    let ly = ya + 40.0;
    for (i, n) in names {
        let _ = writeln!(
            s,
            r#"<rect x="{lx}" y="{}" width="12" height="12" fill="{}"/><text x="{}" y="{ly}">{}</text>"#,
            ly - 10.0,
            color(*i),
            lx + 16.0,
            escape(n)
        );
        lx += 24.0 + 8.0 * n.len() as f64;
    }
    let _ = writeln!(s, r#"<text x="{lx}" y="{ly}">(dark: switch cost)</text>"#);
    partita_svg::end(&mut s);
    s
}

/// One line of a plot: a name and y values for the shared x values.
pub struct Series {
    /// Legend label.
    pub name: String,
    /// Values (NaN: no point).
    pub values: Vec<f64>,
}

/// Two side-by-side line plots over the same x values.
pub fn two_panels(
    title: &str,
    xs: &[f64],
    x_label: &str,
    left: (&str, &[Series]),
    right: (&str, &[Series]),
) -> String {
    let (pw, ph, pad) = (440.0, 300.0, 60.0);
    let mut s = partita_svg::begin(
        2.0 * (pw + pad) + pad,
        ph + 2.0 * pad + 50.0,
        12,
        (pad, title),
    );
    for (k, (label, series)) in [left, right].into_iter().enumerate() {
        let ox = pad + k as f64 * (pw + pad);
        let oy = pad;
        let ymax = series
            .iter()
            .flat_map(|s| s.values.iter().copied())
            .filter(|v| v.is_finite())
            .fold(0.0f64, f64::max);
        let ymax = if ymax <= 1.0 { 1.0 } else { nice_ceiling(ymax) };
        let (xmin, xmax) = (
            xs.first().copied().unwrap_or(0.0),
            xs.last().copied().unwrap_or(1.0),
        );
        let px = |x: f64| ox + pw * (x - xmin) / (xmax - xmin).max(1e-9);
        let py = |y: f64| oy + ph - ph * y / ymax;
        let _ = writeln!(
            s,
            r##"<rect x="{ox}" y="{oy}" width="{pw}" height="{ph}" fill="none" stroke="#333"/><text x="{}" y="{}" text-anchor="middle">{}</text><text x="{}" y="{}" text-anchor="middle">{}</text>"##,
            ox + pw / 2.0,
            oy - 8.0,
            escape(label),
            ox + pw / 2.0,
            oy + ph + 36.0,
            escape(x_label)
        );
        for t in 0..=4 {
            let y = ymax * t as f64 / 4.0;
            let _ = writeln!(
                s,
                r##"<line x1="{ox}" y1="{0:.1}" x2="{1}" y2="{0:.1}" stroke="#ddd"/><text x="{2}" y="{3:.1}" text-anchor="end">{4}</text>"##,
                py(y),
                ox + pw,
                ox - 4.0,
                py(y) + 4.0,
                trim(y)
            );
        }
        for &x in xs {
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{}" text-anchor="middle">{}</text>"#,
                px(x),
                oy + ph + 16.0,
                trim(x)
            );
        }
        for (i, se) in series.iter().enumerate() {
            let c = PALETTE[i % PALETTE.len()];
            let pts: Vec<String> = xs
                .iter()
                .zip(&se.values)
                .filter(|(_, v)| v.is_finite())
                .map(|(&x, &v)| format!("{:.1},{:.1}", px(x), py(v)))
                .collect();
            let _ = writeln!(
                s,
                r#"<polyline points="{}" fill="none" stroke="{c}" stroke-width="2"/>"#,
                pts.join(" ")
            );
            for p in &pts {
                let (a, b) = p.split_once(',').unwrap_or(("0", "0"));
                let _ = writeln!(s, r#"<circle cx="{a}" cy="{b}" r="3" fill="{c}"/>"#);
            }
            // Legend below the axis label, one entry per series.
            legend_entry(&mut s, (ox + 100.0 * i as f64, oy + ph + 56.0), c, &se.name);
        }
    }
    partita_svg::end(&mut s);
    s
}

/// Cumulative distributions side by side (as the seed study's Figure 15): one panel per
/// entry, in each a step line per series whose `values[q]` is its q-th percentile (x: the
/// value, y: q / 100; a series that stops before the 100th stops below 1). Each panel has
/// its own x range.
pub fn cdf_panels(title: &str, x_label: &str, panels: &[(String, Vec<Series>)]) -> String {
    let (pw, ph, pad) = (320.0, 240.0, 60.0);
    let n = panels.len().max(1) as f64;
    let mut s = partita_svg::begin(
        n * (pw + pad) + pad,
        ph + 2.0 * pad + 50.0,
        12,
        (pad, title),
    );
    for (k, (label, series)) in panels.iter().enumerate() {
        let ox = pad + k as f64 * (pw + pad);
        let oy = pad;
        let xmax = series
            .iter()
            .flat_map(|s| s.values.iter().copied())
            .filter(|v| v.is_finite())
            .fold(0.0f64, f64::max);
        let xmax = if xmax <= 1.0 { 1.0 } else { nice_ceiling(xmax) };
        let px = |x: f64| ox + pw * x.max(0.0) / xmax;
        let py = |y: f64| oy + ph - ph * y;
        let _ = writeln!(
            s,
            r##"<rect x="{ox}" y="{oy}" width="{pw}" height="{ph}" fill="none" stroke="#333"/><text x="{}" y="{}" text-anchor="middle">{}</text><text x="{}" y="{}" text-anchor="middle">{}</text>"##,
            ox + pw / 2.0,
            oy - 8.0,
            escape(label),
            ox + pw / 2.0,
            oy + ph + 32.0,
            escape(x_label)
        );
        for t in 0..=4 {
            let (y, x) = (t as f64 / 4.0, xmax * t as f64 / 4.0);
            let _ = writeln!(
                s,
                r##"<line x1="{ox}" y1="{0:.1}" x2="{1}" y2="{0:.1}" stroke="#ddd"/><text x="{2}" y="{3:.1}" text-anchor="end">{4}</text><text x="{5:.1}" y="{6}" text-anchor="middle">{7}</text>"##,
                py(y),
                ox + pw,
                ox - 4.0,
                py(y) + 4.0,
                trim(y),
                px(x),
                oy + ph + 16.0,
                trim(x)
            );
        }
        for (i, se) in series.iter().enumerate() {
            let c = PALETTE[i % PALETTE.len()];
            let mut pts = Vec::new();
            let mut prev_y = 0.0;
            for (q, &v) in se.values.iter().enumerate().filter(|(_, v)| v.is_finite()) {
                let y = (q as f64 / 100.0).min(1.0);
                pts.push(format!("{:.1},{:.1}", px(v), py(prev_y)));
                pts.push(format!("{:.1},{:.1}", px(v), py(y)));
                prev_y = y;
            }
            let _ = writeln!(
                s,
                r#"<polyline points="{}" fill="none" stroke="{c}" stroke-width="2"/>"#,
                pts.join(" ")
            );
            legend_entry(&mut s, (ox + 90.0 * i as f64, oy + ph + 52.0), c, &se.name);
        }
    }
    partita_svg::end(&mut s);
    s
}

/// A legend entry at `(lx, ly)`: a short line in colour `c`, then `name`.
fn legend_entry(s: &mut String, (lx, ly): (f64, f64), c: &str, name: &str) {
    let _ = writeln!(
        s,
        r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{c}" stroke-width="2"/><text x="{}" y="{}">{}</text>"#,
        lx + 20.0,
        lx + 25.0,
        ly + 4.0,
        escape(name)
    );
}

fn trim(v: f64) -> String {
    partita_svg::trim_number(v, 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cdf_panels_draw_a_rising_step_line_per_series() {
        let series = |name: &str, scale: f64| Series {
            name: name.into(),
            values: (0..=100).map(|p| p as f64 * scale).collect(),
        };
        let svg = cdf_panels(
            "overheads <us>",
            "us",
            &[
                (
                    "signals".into(),
                    vec![series("TmrO", 1.0), series("PtswO", 2.0)],
                ),
                ("freezer-v2".into(), vec![series("TmrO", 0.5)]),
            ],
        );
        let doc = roxmltree::Document::parse(&svg).expect("well-formed SVG");
        let lines: Vec<_> = doc
            .descendants()
            .filter(|n| n.has_tag_name("polyline"))
            .collect();
        assert_eq!(lines.len(), 3);
        // y falls (the probability rises) along every line; x never goes back.
        for l in lines {
            let pts: Vec<(f64, f64)> = l
                .attribute("points")
                .unwrap()
                .split(' ')
                .map(|p| {
                    let (x, y) = p.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect();
            assert_eq!(pts.len(), 202);
            assert!(pts.windows(2).all(|w| w[1].0 >= w[0].0 && w[1].1 <= w[0].1));
            assert!(pts.last().unwrap().1 < pts[0].1);
        }
        assert!(svg.contains("overheads &lt;us&gt;"));
    }
}
