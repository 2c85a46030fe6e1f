// SPDX-License-Identifier: MIT OR Apache-2.0
//! The readable table of `bench switch`.

use crate::switch::{Pick, Section, SwitchReport, METRICS, T_BARE, T_OVERRUN, T_SCALE};
use partita_manager::Backend;
use std::fmt::Write;

fn us(v: i64) -> String {
    format!("{:.2}", v as f64 / 1e3)
}

fn vs(value: i64, reference: i64) -> String {
    if value >= 0 && reference > 0 {
        format!("{:.2}", value as f64 / reference as f64)
    } else {
        format!("{:+.1}us", (value - reference) as f64 / 1e3)
    }
}

/// Renders the report as text.
pub fn render(r: &SwitchReport) -> String {
    let mut s = String::new();
    let m = &r.machine;
    let _ = writeln!(
        s,
        "Partita partition-switch benchmark{}: {} ({} cores), Linux {}, clocksource {}, revision {}{}",
        if r.quick { " (quick)" } else { "" },
        m.cpu_model,
        m.cores,
        m.kernel,
        m.clocksource,
        r.git_revision,
        if r.git_dirty == Some(true) { " + local changes" } else { "" }
    );
    let _ = writeln!(
        s,
        "plan: windows A [0, 1) ms and B [1, 2) ms of a {:.2} ms major frame on core {}; {} windows per partition per run; periodic processes released {} us into their window",
        r.plan.major_frame_ns as f64 / 1e6,
        r.plan.core,
        r.plan.windows_per_partition,
        r.plan.release_delay_ns / 1000
    );
    let _ = writeln!(
        s,
        "figures in us; `x bare`: median and p99 as ratios to the bare mechanism (a difference in us when a figure is not positive)"
    );
    let rows: [(&str, Pick); 5] = [
        ("timer lateness", |x| &x.timer_lateness),
        ("start latency", |x| &x.start_latency),
        ("overrun", |x| &x.overrun),
        ("raw wake-up", |x| &x.wake_lateness),
        ("switch cost", |x| &x.switch_cost),
    ];
    let mut groups: Vec<(u64, Backend)> = Vec::new();
    for x in &r.sections {
        if !groups.contains(&(x.spin_margin_ns, x.backend)) {
            groups.push((x.spin_margin_ns, x.backend));
        }
    }
    for (margin, backend) in groups {
        let secs: Vec<&Section> = r
            .sections
            .iter()
            .filter(|x| x.spin_margin_ns == margin && x.backend == backend)
            .collect();
        let floor = secs.iter().find(|x| x.kind == "bare");
        let _ = writeln!(s);
        let _ = writeln!(s, "{backend}, spin margin {} us", margin / 1000);
        let _ = writeln!(
            s,
            "  {:<15} {:<5} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9}   {:<8} {:<8}",
            "metric", "run", "n", "min", "median", "p99", "p99.9", "max", "x bare", ""
        );
        for (name, f) in rows {
            for (i, x) in secs.iter().enumerate() {
                let v = f(x);
                let (rm, rp) = match floor {
                    Some(fl) if x.kind != "bare" && f(fl).count > 0 && v.count > 0 => {
                        (vs(v.median, f(fl).median), vs(v.p99, f(fl).p99))
                    }
                    _ => (String::new(), String::new()),
                };
                let _ = writeln!(
                    s,
                    "  {:<15} {:<5} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9}   {:<8} {:<8}",
                    if i == 0 { name } else { "" },
                    x.label(),
                    v.count,
                    us(v.min),
                    us(v.median),
                    us(v.p99),
                    us(v.p999),
                    us(v.max),
                    rm,
                    rp
                );
            }
        }
    }
    let mut remarks = Vec::new();
    for x in &r.sections {
        let c = &x.counts;
        let who = format!(
            "{} {} (margin {} us)",
            x.backend,
            x.label(),
            x.spin_margin_ns / 1000
        );
        if c.ran_outside + c.not_running_at_end + c.no_start + c.dropped_gaps + x.missed_boundaries
            > 0
        {
            remarks.push(format!(
                "{who}: {} off-window periods with the spinner running, {} window ends with the spinner preempted earlier (left out), {} windows without a start (left out), {} gaps dropped, {} boundaries missed",
                c.ran_outside, c.not_running_at_end, c.no_start, c.dropped_gaps, x.missed_boundaries
            ));
        }
        for n in &x.notes {
            remarks.push(format!("{who}: {n}"));
        }
    }
    if !remarks.is_empty() {
        let _ = writeln!(s);
        let _ = writeln!(s, "remarks:");
        for l in remarks {
            let _ = writeln!(s, "  {l}");
        }
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "targets (PASS/MISS; a miss does not fail the command):");
    let mark = |p: bool| if p { "PASS" } else { "MISS" };
    for target in [T_BARE, T_SCALE] {
        let _ = writeln!(s, "  {target}:");
        let mut keys: Vec<(u64, Backend, u32)> = Vec::new();
        for c in r.checks.iter().filter(|c| c.target == target) {
            let k = (c.spin_margin_ns, c.backend, c.processes);
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        if keys.is_empty() {
            let _ = writeln!(s, "    (nothing to compare)");
        }
        for (margin, backend, n) in keys {
            let mut line = format!(
                "    {:<10} N={:<3} margin {:>2} us:",
                backend.to_string(),
                n,
                margin / 1000
            );
            for (name, _) in METRICS {
                let cs: Vec<_> = r
                    .checks
                    .iter()
                    .filter(|c| {
                        c.target == target
                            && c.spin_margin_ns == margin
                            && c.backend == backend
                            && c.processes == n
                            && c.figure.starts_with(name)
                    })
                    .collect();
                let _ = write!(line, "  {}", name.replace('_', " "));
                for c in cs {
                    let _ = write!(
                        line,
                        " {}{}",
                        mark(c.pass),
                        if c.pass {
                            String::new()
                        } else {
                            format!("({})", vs(c.value, c.reference))
                        }
                    );
                }
            }
            let _ = writeln!(s, "{line}");
        }
    }
    let _ = writeln!(s, "  {T_OVERRUN}:");
    for c in r.checks.iter().filter(|c| c.target == T_OVERRUN) {
        let _ = writeln!(
            s,
            "    {:<10} N={:<3} margin {:>2} us: {} (p99.9 {} us)",
            c.backend.to_string(),
            c.processes,
            c.spin_margin_ns / 1000,
            mark(c.pass),
            us(c.value)
        );
    }
    let passed = r.checks.iter().filter(|c| c.pass).count();
    let _ = writeln!(
        s,
        "  {passed} of {} checks met; bench took {:.0} s",
        r.checks.len(),
        r.elapsed_s
    );
    s
}
