// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita bench soak`: runs a module (by default the flagship) for a long time as a real
//! `partita run` child process and checks that nothing degrades: it samples the resident
//! memory and open file descriptors of the manager and of every process under it (the
//! partitions) at the start, periodically and at the end, and reads the run report for missed
//! boundaries and for the drift of window starts (the last window start of each core against
//! its planned instant, which is counted from the module epoch, so any accumulated drift shows
//! there). Writes `soak.json` and `soak.md` into the output directory (`docs/soak.md`).

use crate::BenchError;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What to soak.
#[derive(Debug, Clone)]
pub struct SoakOptions {
    /// The `partita` executable (the running one).
    pub partita: PathBuf,
    /// Module XML or plan file.
    pub module: PathBuf,
    /// How long the module runs.
    pub duration: Duration,
    /// Time between two samples.
    pub interval: Duration,
    /// Time after the start before the first sample (partitions start and initialise).
    pub warm_up: Duration,
    /// Where `soak.json`, `soak.md`, `run.json` and `run.log` are written.
    pub out_dir: PathBuf,
}

/// Resident memory and descriptors of one process at one instant.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ProcSample {
    /// Process id.
    pub pid: u32,
    /// Command name (`comm`).
    pub name: String,
    /// Resident set size, KiB.
    pub rss_kib: u64,
    /// Open file descriptors.
    pub fds: u64,
}

/// Every process of the run at one instant.
#[derive(Debug, Clone, Serialize)]
pub struct Sample {
    /// Seconds since the run started.
    pub t_s: f64,
    /// The manager (`partita run`).
    pub manager: ProcSample,
    /// Every process under the manager (partitions, the guard, helpers).
    pub others: Vec<ProcSample>,
}

/// First and last sample of one process name.
#[derive(Debug, Clone, Serialize)]
pub struct Growth {
    /// `manager`, or a process name.
    pub name: String,
    /// RSS at the first sample, KiB.
    pub rss_start_kib: u64,
    /// RSS at the last sample, KiB.
    pub rss_end_kib: u64,
    /// Descriptors at the first sample.
    pub fds_start: u64,
    /// Descriptors at the last sample.
    pub fds_end: u64,
    /// Distinct process ids seen under this name (more than one: it was restarted).
    pub pids: usize,
}

/// One core's schedule figures from the run report.
#[derive(Debug, Clone, Serialize)]
pub struct CoreFigures {
    /// Core.
    pub core: u64,
    /// Boundaries handled.
    pub boundaries: u64,
    /// Boundaries missed.
    pub missed_boundaries: u64,
    /// Largest lateness of a boundary over the whole run, ns.
    pub lateness_max_ns: u64,
    /// Last window start: planned instant since the module epoch, ns.
    pub last_planned_ns: Option<u64>,
    /// Last window start minus its planned instant, ns: the cumulative drift.
    pub drift_ns: Option<i64>,
}

/// The soak's result.
#[derive(Debug, Clone, Serialize)]
pub struct SoakReport {
    /// Module run.
    pub module: PathBuf,
    /// Requested duration, s.
    pub duration_s: f64,
    /// Exit status of `partita run`.
    pub exit_code: Option<i32>,
    /// Per core.
    pub cores: Vec<CoreFigures>,
    /// Per process name (the manager first).
    pub growth: Vec<Growth>,
    /// Every sample.
    pub samples: Vec<Sample>,
}

impl SoakReport {
    /// Missed boundaries over all cores.
    pub fn missed_boundaries(&self) -> u64 {
        self.cores.iter().map(|c| c.missed_boundaries).sum()
    }
}

fn proc_sample(pid: u32) -> Option<ProcSample> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .map(|v| v.trim().to_string())
    };
    let rss_kib = field("VmRSS:")
        .and_then(|v| v.split_whitespace().next().and_then(|n| n.parse().ok()))
        .unwrap_or(0);
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count() as u64;
    Some(ProcSample {
        pid,
        name: field("Name:").unwrap_or_default(),
        rss_kib,
        fds,
    })
}

/// Parent of every process (`/proc/<pid>/stat`, field 4).
fn parents() -> BTreeMap<u32, u32> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // The command name is in parentheses and may hold spaces: the fields follow the last `)`.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse().ok());
        if let Some(ppid) = ppid {
            out.insert(pid, ppid);
        }
    }
    out
}

/// Every process under `root` (children, grandchildren, ...).
fn descendants(root: u32) -> Vec<u32> {
    let parents = parents();
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        found.extend(parents.iter().filter(|(_, &pp)| pp == p).map(|(&c, _)| c));
        i += 1;
    }
    found.split_off(1)
}

fn sample(manager: u32, t: Duration) -> Option<Sample> {
    Some(Sample {
        t_s: t.as_secs_f64(),
        manager: proc_sample(manager)?,
        others: descendants(manager)
            .into_iter()
            .filter_map(proc_sample)
            .collect(),
    })
}

fn growth(samples: &[Sample]) -> Vec<Growth> {
    let mut by_name: BTreeMap<String, Vec<&ProcSample>> = BTreeMap::new();
    for s in samples {
        by_name
            .entry("manager".into())
            .or_default()
            .push(&s.manager);
        for p in &s.others {
            by_name.entry(p.name.clone()).or_default().push(p);
        }
    }
    let mut out: Vec<Growth> = by_name
        .into_iter()
        .filter_map(|(name, seen)| {
            let (first, last) = (seen.first()?, seen.last()?);
            let mut pids: Vec<u32> = seen.iter().map(|p| p.pid).collect();
            pids.sort_unstable();
            pids.dedup();
            Some(Growth {
                name,
                rss_start_kib: first.rss_kib,
                rss_end_kib: last.rss_kib,
                fds_start: first.fds,
                fds_end: last.fds,
                pids: pids.len(),
            })
        })
        .collect();
    out.sort_by_key(|g| g.name != "manager");
    out
}

fn core_figures(report: &serde_json::Value) -> Vec<CoreFigures> {
    let n = |v: &serde_json::Value, k: &str| v.get(k).and_then(|x| x.as_u64()).unwrap_or(0);
    report
        .get("cores")
        .and_then(|c| c.as_array())
        .into_iter()
        .flatten()
        .map(|c| {
            let last = c.get("last_window").filter(|l| !l.is_null());
            let planned = last.map(|l| n(l, "planned_ns"));
            let actual = last.map(|l| n(l, "actual_ns"));
            CoreFigures {
                core: n(c, "core"),
                boundaries: n(c, "boundaries"),
                missed_boundaries: n(c, "missed_boundaries"),
                lateness_max_ns: c.get("timer_lateness").map_or(0, |l| n(l, "max")),
                last_planned_ns: planned,
                drift_ns: planned.zip(actual).map(|(p, a)| {
                    i64::try_from(a).unwrap_or(i64::MAX) - i64::try_from(p).unwrap_or(i64::MAX)
                }),
            }
        })
        .collect()
}

/// Runs the soak. `progress` receives one line per sample. A soak that could not start or
/// watch its run, or took no sample (the run ended before the warm-up), is an error.
pub fn run_soak(o: &SoakOptions, progress: impl Fn(&str)) -> Result<SoakReport, BenchError> {
    let r = soak(o, progress).map_err(BenchError::Soak)?;
    if r.samples.is_empty() {
        return Err(BenchError::NoSample);
    }
    Ok(r)
}

fn soak(o: &SoakOptions, progress: impl Fn(&str)) -> std::io::Result<SoakReport> {
    std::fs::create_dir_all(&o.out_dir)?;
    let run_json = o.out_dir.join("run.json");
    let log = std::fs::File::create(o.out_dir.join("run.log"))?;
    let mut child = Command::new(&o.partita)
        .arg("run")
        .arg(&o.module)
        .arg("--duration")
        .arg(format!("{}ms", o.duration.as_millis()))
        .arg("--quiet")
        .arg("--json")
        .arg(&run_json)
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log)
        .spawn()?;
    let pid = child.id();
    let start = Instant::now();
    let mut samples = Vec::new();
    let mut next = o.warm_up;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if start.elapsed() >= next {
            if let Some(s) = sample(pid, start.elapsed()) {
                progress(&format!(
                    "t={:.0}s manager {} KiB {} fds; {} processes under it",
                    s.t_s,
                    s.manager.rss_kib,
                    s.manager.fds,
                    s.others.len()
                ));
                samples.push(s);
            }
            next += o.interval;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let report: serde_json::Value = std::fs::read(&run_json)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(serde_json::Value::Null);
    Ok(SoakReport {
        module: o.module.clone(),
        duration_s: o.duration.as_secs_f64(),
        exit_code: status.code(),
        cores: core_figures(&report),
        growth: growth(&samples),
        samples,
    })
}

/// The Markdown summary.
pub fn render_soak(r: &SoakReport) -> String {
    let mut s = format!(
        "# Soak of {}\n\n{} s requested, `partita run` exit status {}, {} samples.\n\n",
        r.module.display(),
        r.duration_s,
        r.exit_code
            .map_or("none (killed)".into(), |c| c.to_string()),
        r.samples.len()
    );
    s.push_str("| core | boundaries | missed | max lateness (us) | last planned start (s) | drift of the last start (us) |\n|---:|---:|---:|---:|---:|---:|\n");
    for c in &r.cores {
        s.push_str(&format!(
            "| {} | {} | {} | {:.1} | {} | {} |\n",
            c.core,
            c.boundaries,
            c.missed_boundaries,
            c.lateness_max_ns as f64 / 1e3,
            c.last_planned_ns
                .map_or("-".into(), |p| format!("{:.3}", p as f64 / 1e9)),
            c.drift_ns
                .map_or("-".into(), |d| format!("{:.1}", d as f64 / 1e3)),
        ));
    }
    s.push_str("\n| process | RSS start (KiB) | RSS end (KiB) | fds start | fds end | pids |\n|---|---:|---:|---:|---:|---:|\n");
    for g in &r.growth {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            g.name, g.rss_start_kib, g.rss_end_kib, g.fds_start, g.fds_end, g.pids
        ));
    }
    s
}

/// Writes `soak.json` and `soak.md` into the output directory.
pub fn write_soak(o: &SoakOptions, r: &SoakReport) -> Result<(), BenchError> {
    let json = serde_json::to_string_pretty(r).map_err(std::io::Error::from);
    for (name, text) in [("soak.json", json), ("soak.md", Ok(render_soak(r)))] {
        let path = o.out_dir.join(name);
        text.and_then(|t| std::fs::write(&path, t))
            .map_err(|source| BenchError::Io { path, source })?;
    }
    Ok(())
}
