// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita bench all`: every benchmark, one after the other, each into a folder of its own
//! under one output folder, with an index page (`index.md`, and `index.html` showing the
//! plots) linking every table, JSON file and figure.

use crate::{
    write_report_dir, ApexOptions, BenchError, FeltOptions, InterferenceOptions, OverheadsOptions,
    PortsOptions, Report, ScalingOptions, SfpOptions, SlotsOptions, SwitchOptions,
};
use serde::Serialize;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// What one benchmark of `bench all` gave.
#[derive(Debug, Clone, Serialize)]
pub struct AllEntry {
    /// The benchmark.
    pub bench: String,
    /// Its folder, relative to the output folder.
    pub folder: String,
    /// Files written, relative to the output folder.
    pub files: Vec<String>,
    /// Why it gave nothing, if so.
    pub error: Option<String>,
    /// How long it took, s.
    pub elapsed_s: f64,
}

/// The index of a `bench all` run.
#[derive(Debug, Clone, Serialize)]
pub struct AllIndex {
    /// Quick forms.
    pub quick: bool,
    /// One per benchmark, in the order run.
    pub entries: Vec<AllEntry>,
    /// Wall time, s.
    pub elapsed_s: f64,
}

impl AllIndex {
    /// Whether every benchmark gave its figures.
    pub fn complete(&self) -> bool {
        self.entries.iter().all(|e| e.error.is_none())
    }
}

/// Benchmarks `bench all` runs.
pub const ALL_COUNT: usize = 9;

/// Runs one benchmark (number `k` of [`ALL_COUNT`]) into `dir/<bench>`; `progress` gets
/// `(k, ALL_COUNT, line)` for each of its progress lines.
fn one<R: Report>(
    dir: &Path,
    k: usize,
    stop: &Arc<AtomicBool>,
    progress: &mut dyn FnMut(usize, usize, &str),
    run: impl FnOnce(Arc<AtomicBool>, &mut dyn FnMut(&str)) -> Result<R, BenchError>,
) -> Result<AllEntry, BenchError> {
    let t0 = std::time::Instant::now();
    let folder = R::BENCH.to_string();
    progress(k, ALL_COUNT, &format!("{folder}: starting"));
    let mut lines = |l: &str| progress(k, ALL_COUNT, &format!("{folder}: {l}"));
    let r = run(stop.clone(), &mut lines);
    let (files, error) = match r {
        Ok(report) => match write_report_dir(&report, &dir.join(&folder)) {
            Ok(files) => (
                files
                    .iter()
                    .filter_map(|f| f.strip_prefix(dir).ok())
                    .map(|f| f.display().to_string())
                    .collect(),
                None,
            ),
            Err(e) => (Vec::new(), Some(e.to_string())),
        },
        Err(BenchError::Interrupted) => return Err(BenchError::Interrupted),
        Err(e) => (Vec::new(), Some(e.to_string())),
    };
    Ok(AllEntry {
        bench: R::BENCH.to_string(),
        folder,
        files,
        error,
        elapsed_s: t0.elapsed().as_secs_f64(),
    })
}

/// Runs every benchmark (their quick forms with `quick`) into `dir`, then writes `index.md`,
/// `index.html` and `index.json` there. A benchmark that cannot run is listed with its error
/// and the others go on; SIGINT/SIGTERM (`stop`) end the whole run.
pub fn run_all(
    quick: bool,
    dir: &Path,
    stop: Arc<AtomicBool>,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<AllIndex, BenchError> {
    let t0 = std::time::Instant::now();
    let io = |path: PathBuf| move |source| BenchError::Io { path, source };
    std::fs::create_dir_all(dir).map_err(io(dir.to_path_buf()))?;
    let mut entries = Vec::new();
    entries.push(one(dir, 1, &stop, progress, |s, p| {
        crate::run_overheads(
            &OverheadsOptions {
                quick,
                ..OverheadsOptions::default()
            },
            s,
            p,
        )
    })?);
    entries.push(one(dir, 2, &stop, progress, |s, p| {
        crate::run_sfp(&SfpOptions { quick }, s, p)
    })?);
    entries.push(one(dir, 3, &stop, progress, |s, p| {
        crate::run_scaling(
            &ScalingOptions {
                quick,
                ..ScalingOptions::default()
            },
            s,
            p,
        )
    })?);
    entries.push(one(dir, 4, &stop, progress, |s, p| {
        crate::run_slots(&SlotsOptions { quick }, s, p)
    })?);
    entries.push(one(dir, 5, &stop, progress, |s, p| {
        crate::run_switch(
            &SwitchOptions {
                quick,
                ..SwitchOptions::default()
            },
            s,
            p,
        )
    })?);
    entries.push(one(dir, 6, &stop, progress, |s, p| {
        crate::run_apex(&ApexOptions { quick }, s, p)
    })?);
    entries.push(one(dir, 7, &stop, progress, |s, p| {
        crate::run_ports(&PortsOptions { quick }, s, p)
    })?);
    entries.push(one(dir, 8, &stop, progress, |s, p| {
        crate::run_felt(
            &FeltOptions {
                quick,
                ..FeltOptions::default()
            },
            s,
            p,
        )
    })?);
    entries.push(one(dir, 9, &stop, progress, |s, p| {
        crate::run_interference(&InterferenceOptions { quick }, s, p)
    })?);
    if stop.load(Ordering::Relaxed) {
        return Err(BenchError::Interrupted);
    }
    let index = AllIndex {
        quick,
        entries,
        elapsed_s: t0.elapsed().as_secs_f64(),
    };
    for (name, text) in [
        ("index.md", index_markdown(&index)),
        ("index.html", index_html(&index)),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(io(path.clone()))?;
    }
    crate::write_json(&index, &dir.join("index.json"))?;
    Ok(index)
}

/// The index as Markdown: a row per benchmark, links to its files.
pub fn index_markdown(x: &AllIndex) -> String {
    let mut s = format!(
        "# Partita benchmarks{}\n\n{} benchmarks in {:.0} s.\n\n| benchmark | took (s) | files |\n|---|---:|---|\n",
        if x.quick { " (quick)" } else { "" },
        x.entries.len(),
        x.elapsed_s
    );
    for e in &x.entries {
        let files = match &e.error {
            Some(err) => format!("not run: {err}"),
            None => e
                .files
                .iter()
                .map(|f| format!("[{}]({f})", f.rsplit('/').next().unwrap_or(f)))
                .collect::<Vec<_>>()
                .join(", "),
        };
        let _ = writeln!(s, "| {} | {:.0} | {files} |", e.bench, e.elapsed_s);
    }
    s
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The index as HTML: a section per benchmark with links and its plots shown.
pub fn index_html(x: &AllIndex) -> String {
    let mut s = format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Partita benchmarks</title></head><body>\n<h1>Partita benchmarks{}</h1>\n<p>{} benchmarks in {:.0} s.</p>\n",
        if x.quick { " (quick)" } else { "" },
        x.entries.len(),
        x.elapsed_s
    );
    for e in &x.entries {
        let _ = writeln!(s, "<h2>{}</h2>\n<p>{:.0} s</p>", esc(&e.bench), e.elapsed_s);
        if let Some(err) = &e.error {
            let _ = writeln!(s, "<p>not run: {}</p>", esc(err));
            continue;
        }
        let _ = writeln!(s, "<ul>");
        for f in &e.files {
            let _ = writeln!(s, "<li><a href=\"{0}\">{0}</a></li>", esc(f));
        }
        let _ = writeln!(s, "</ul>");
        for f in e.files.iter().filter(|f| f.ends_with(".svg")) {
            let _ = writeln!(s, "<p><img src=\"{}\" alt=\"{}\"></p>", esc(f), esc(f));
        }
    }
    s.push_str("</body></html>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_links_every_file_and_says_what_did_not_run() {
        let x = AllIndex {
            quick: true,
            entries: vec![
                AllEntry {
                    bench: "overheads".into(),
                    folder: "overheads".into(),
                    files: vec![
                        "overheads/overheads.json".into(),
                        "overheads/overheads-cdf.svg".into(),
                    ],
                    error: None,
                    elapsed_s: 30.0,
                },
                AllEntry {
                    bench: "switch".into(),
                    folder: "switch".into(),
                    files: Vec::new(),
                    error: Some("freezer-v1 is not available: <none>".into()),
                    elapsed_s: 0.0,
                },
            ],
            elapsed_s: 31.0,
        };
        assert!(!x.complete());
        let md = index_markdown(&x);
        assert!(
            md.contains("[overheads.json](overheads/overheads.json)"),
            "{md}"
        );
        assert!(md.contains("| switch | 0 | not run: freezer-v1"), "{md}");
        let html = index_html(&x);
        assert!(
            html.contains("<img src=\"overheads/overheads-cdf.svg\""),
            "{html}"
        );
        assert!(
            html.contains("not run: freezer-v1 is not available: &lt;none&gt;"),
            "{html}"
        );
    }
}
