// SPDX-License-Identifier: MIT OR Apache-2.0
//! The Markdown tables of `bench overheads`: the seed's Tables V and VIII with the published
//! values beside ours, and every figure of every run in detail.

use super::published::{published, Published, DESIGNS};
use super::{Distribution, OverheadsReport, OverheadsSection};
use std::fmt::Write;

fn us(ns: f64) -> String {
    format!("{:.1}", ns / 1e3)
}

fn opt(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.0}"))
}

/// The figures Tables V and VIII show, by the paper's names.
const SEED_FIGURES: [&str; 6] = ["TmrO", "PtswO", "CtswO", "RelO first", "e GnC", "R GnC"];

/// A section's figures in the order of [`SEED_FIGURES`] (`None`: not measured).
fn seed_figures(x: &OverheadsSection) -> [Option<&Distribution>; 6] {
    let gnc = x.tasks.iter().find(|t| t.task == "GnC");
    [
        Some(&x.timer),
        Some(&x.partition_switch),
        Some(&x.context_switch),
        Some(&x.release_first),
        gnc.map(|t| &t.execution),
        gnc.map(|t| &t.response),
    ]
}

/// Two cells: `f` of `d` for each of the two statistics, `-` when not measured.
fn cells(d: Option<&Distribution>, f: impl Fn(&Distribution) -> (f64, f64)) -> String {
    match d.filter(|d| d.count > 0) {
        Some(d) => {
            let (a, b) = f(d);
            format!(" {} | {} |", us(a), us(b))
        }
        None => " - | - |".into(),
    }
}

fn label(x: &OverheadsSection) -> String {
    format!(
        "Partita {}, {}",
        x.backend,
        match x.placement {
            super::Placement::SharedCore => "shared core",
            super::Placement::OwnCore => "own core",
        }
    )
}

/// The rows of a seed table: ours (two statistics of each of the first `n` figures, in us),
/// then the paper's three designs.
fn seed_rows(
    s: &mut String,
    ran: &[&OverheadsSection],
    n: usize,
    ours: fn(&Distribution) -> (f64, f64),
    theirs: fn(&Published) -> (Option<f64>, Option<f64>),
) {
    for x in ran {
        let mut line = format!("| {} |", label(x));
        for d in &seed_figures(x)[..n] {
            line.push_str(&cells(*d, ours));
        }
        let _ = writeln!(s, "{line}");
    }
    for d in DESIGNS {
        let mut line = format!("| seed, {d} |");
        for f in &SEED_FIGURES[..n] {
            let (a, b) = published(d, f).map_or((None, None), theirs);
            let _ = write!(line, " {} | {} |", opt(a), opt(b));
        }
        let _ = writeln!(s, "{line}");
    }
}

/// Renders the report as Markdown.
pub fn render_overheads(r: &OverheadsReport) -> String {
    let mut s = r.head.provenance.heading(
        "Release overheads: the seed study's workload",
        r.head.quick,
        &r.head.configuration_hash,
    );
    let p = &r.plan;
    let _ = writeln!(
        s,
        "Table III's tasks (execution times x {:.2}) in OFP [0, 11) ms and VSP [11, 19) ms of a {} ms major frame on core {}; {} hyperperiods (80 ms) per run; spin margin {} us. Shared core: the scheduler thread on core {}; own core: on core {}. Figures in us; the seed's are from Han and Jin 2013 (Tables V and VIII), whose execution time is the real flight program's GnC, not a 2 ms budget: its `e` and `R` do not compare with ours.\n",
        f64::from(p.scale_permille) / 1000.0,
        p.major_frame_ns / 1_000_000,
        p.core,
        p.hyperperiods,
        p.spin_margin_ns / 1000,
        p.core,
        p.scheduler_core.map_or_else(|| "-".into(), |c| c.to_string())
    );
    let ran: Vec<&OverheadsSection> = r.sections.iter().filter(|x| x.skipped.is_none()).collect();

    let _ = writeln!(
        s,
        "## Table V: jitter and deviation of the system overheads (us)\n"
    );
    let _ = writeln!(
        s,
        "| | TmrO jitter | TmrO dev. | PtswO jitter | PtswO dev. | CtswO jitter | CtswO dev. |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|");
    seed_rows(
        &mut s,
        &ran,
        3,
        |d| (d.jitter_ns as f64, d.stddev_ns),
        |p| (p.jitter_us, p.deviation_us),
    );

    let _ = writeln!(s, "\n## Table VIII: averages and jitters (us)\n");
    let mut head = String::from("|");
    let mut rule = String::from("|---|");
    for n in SEED_FIGURES {
        let _ = write!(head, " | {n} ave. | {n} jitter");
        rule.push_str("---:|---:|");
    }
    let _ = writeln!(s, "{head} |\n{rule}");
    seed_rows(
        &mut s,
        &ran,
        SEED_FIGURES.len(),
        |d| (d.mean_ns, d.jitter_ns as f64),
        |p| (p.average_us, p.jitter_us),
    );

    for x in &r.sections {
        let _ = writeln!(s, "\n## {}\n", label(x));
        if let Some(why) = &x.skipped {
            let _ = writeln!(s, "No figures: {why}");
            continue;
        }
        let _ = writeln!(
            s,
            "| figure | n | ave. | dev. | min | median | p99 | max | jitter |"
        );
        let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        let mut rows: Vec<(String, &Distribution)> = vec![
            ("TmrO".into(), &x.timer),
            ("PtswO".into(), &x.partition_switch),
            ("CtswO".into(), &x.context_switch),
            ("RelO first".into(), &x.release_first),
            ("RelO other".into(), &x.release_other),
        ];
        for t in &x.tasks {
            rows.push((format!("e {}", t.task), &t.execution));
            rows.push((format!("R {}", t.task), &t.response));
            rows.push((
                format!("CPU {} (target {})", t.task, us(t.cpu_target_ns as f64)),
                &t.cpu,
            ));
        }
        for (name, d) in rows {
            let _ = writeln!(
                s,
                "| {name} | {} | {} | {} | {} | {} | {} | {} | {} |",
                d.count,
                us(d.mean_ns),
                us(d.stddev_ns),
                us(d.min_ns as f64),
                us(d.median_ns as f64),
                us(d.p99_ns as f64),
                us(d.max_ns as f64),
                us(d.jitter_ns as f64)
            );
        }
        let c = &x.counts;
        let _ = writeln!(
            s,
            "\n{} window starts ({} with a release); left out: {} window starts and jobs released while not every task of the partition recorded, {} first jobs started before the switch, {} jobs without an earlier one, {} gaps across another window, {} jobs released while idle that waited for a window; {} window starts untraced, {} boundaries missed; deadline misses: {}.",
            c.windows,
            c.windows_with_release,
            c.outside_recording,
            c.started_before_switch,
            c.no_previous_job,
            c.across_a_switch,
            c.released_outside_windows,
            x.windows_untraced,
            x.missed_boundaries,
            x.deadline_misses
                .iter()
                .map(|(p, n)| format!("{p} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        for n in &x.notes {
            let _ = writeln!(s, "- {n}");
        }
    }
    let _ = writeln!(s, "\nbench took {:.0} s", r.head.elapsed_s);
    s
}

#[cfg(test)]
mod tests {
    use super::super::*;

    fn dist(v: &[i64]) -> Distribution {
        Distribution::of(&mut v.to_vec())
    }

    #[test]
    fn the_tables_put_the_published_values_beside_ours() {
        let mut x = skipped(Backend::FreezerV2, Placement::OwnCore, String::new());
        x.skipped = None;
        x.timer = dist(&[2_000, 4_000]);
        x.partition_switch = dist(&[10_000, 30_000]);
        x.context_switch = dist(&[1_000]);
        x.release_first = dist(&[12_000, 34_000]);
        let off = skipped(Backend::Signals, Placement::SharedCore, "not here".into());
        let r = OverheadsReport {
            head: crate::ReportHead {
                format: "partita-bench-overheads/1",
                provenance: crate::switch::Provenance {
                    started_unix: 0,
                    machine: crate::Machine {
                        cpu_model: "cpu".into(),
                        cores: 2,
                        kernel: "6".into(),
                        rt_throttle: None,
                        clocksource: "tsc".into(),
                    },
                    git_revision: "abc".into(),
                    git_dirty: None,
                    build: "debug",
                },
                elapsed_s: 1.0,
                configuration_hash: fnv1a_hex(b"x"),
                quick: true,
            },
            plan: plan_info(1, Some(0), &OverheadsOptions::default()),
            sections: vec![x, off],
            published: PUBLISHED.to_vec(),
        };
        let md = render_overheads(&r);
        // Table V: our jitter and deviation (us), then the paper's rows.
        assert!(
            md.contains("| Partita freezer-v2, own core | 2.0 | 1.0 | 20.0 | 10.0 | 0.0 | 0.0 |"),
            "{md}"
        );
        assert!(
            md.contains("| seed, kernel-level | 7 | 3 | 6 | 1 | 20 | 4 |"),
            "{md}"
        );
        // Table VIII: averages and jitters; no GnC jobs: dashes, not zeros.
        assert!(
            md.contains("| Partita freezer-v2, own core | 3.0 | 2.0 | 20.0 | 20.0 | 1.0 | 0.0 | 23.0 | 22.0 | - | - | - | - |"),
            "{md}"
        );
        assert!(
            md.contains(
                "| seed, VMM-level | 6 | 7 | 5 | 6 | 68 | 46 | 79 | 59 | 38 | 216 | 117 | 275 |"
            ),
            "{md}"
        );
        // A run without figures says why and is left out of the tables.
        assert!(md.contains("No figures: not here"), "{md}");
        assert!(!md.contains("| Partita signals, shared core |"), "{md}");
        let svgs = overheads_figures(&r);
        assert_eq!(svgs.len(), 1);
        assert_eq!(svgs[0].0, "overheads-cdf-own-core.svg");
        assert_eq!(svgs[0].1.matches("<polyline").count(), 3);
    }
}
