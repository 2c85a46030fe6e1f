// SPDX-License-Identifier: MIT OR Apache-2.0
//! What Partita's hand-written SVG pictures share: the schedule Gantt chart and the experiment
//! plots (`partita-synth`), the trace timeline (`partita-trace`). A few rectangles, lines and
//! labels are not worth a plotting dependency; these are the pieces every picture repeats.

use std::fmt::Write;

/// Ten distinguishable colours (Tableau 10), for partitions and series.
pub const PALETTE: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];

/// Escapes text for SVG content and attribute values.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Starts a document: the `<svg>` element (sans-serif text of `font_size`), a white
/// background, and `title` at (`x`, 20) in 14-point text. Close it with [`end`].
pub fn begin(width: f64, height: f64, font_size: u32, title: (f64, &str)) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="{font_size}">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="20" font-size="14">{}</text>"#,
        title.0,
        escape(title.1)
    );
    s
}

/// Ends a document begun with [`begin`].
pub fn end(s: &mut String) {
    s.push_str("</svg>\n");
}

/// The smallest of 1, 2, 2.5, 5 or 10 times a power of ten that is at least `v` (> 0): the
/// top of an axis.
pub fn nice_ceiling(v: f64) -> f64 {
    let mag = 10f64.powf(v.log10().floor());
    for m in [1.0, 2.0, 2.5, 5.0, 10.0] {
        if v <= m * mag {
            return m * mag;
        }
    }
    10.0 * mag
}

/// A tick step of about a tenth of `span`: 1, 2 or 5 times a power of ten.
pub fn tick_step(span: u64) -> u64 {
    let target = (span / 10).max(1);
    let mut step = 1u64;
    loop {
        for m in [1, 2, 5] {
            if step.saturating_mul(m) >= target {
                return step.saturating_mul(m);
            }
        }
        step = step.saturating_mul(10);
    }
}

/// `v` with at most `decimals` decimals, trailing zeros dropped (`2.50` → `2.5`, `3.000` → `3`).
pub fn trim_number(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_covers_markup_and_quotes() {
        assert_eq!(escape(r#"a<b>&"c""#), "a&lt;b&gt;&amp;&quot;c&quot;");
    }

    #[test]
    fn a_document_is_framed() {
        let mut s = begin(100.0, 50.0, 12, (10.0, "t<1>"));
        end(&mut s);
        assert!(s.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50""#));
        assert!(s.contains(">t&lt;1&gt;</text>"));
        assert!(s.ends_with("</svg>\n"));
    }

    #[test]
    fn axis_figures_are_round() {
        assert_eq!(nice_ceiling(7.3), 10.0);
        assert_eq!(nice_ceiling(2.2), 2.5);
        assert_eq!(nice_ceiling(120.0), 200.0);
        assert_eq!(tick_step(60_000_000), 10_000_000);
        assert_eq!(tick_step(20_000_000), 2_000_000);
        assert_eq!(tick_step(35_000), 5_000);
        assert_eq!(tick_step(0), 1);
        assert_eq!(trim_number(2.50, 2), "2.5");
        assert_eq!(trim_number(3.0, 3), "3");
        assert_eq!(trim_number(-1.25, 3), "-1.25");
        assert_eq!(trim_number(40.0, 0), "40");
    }
}
