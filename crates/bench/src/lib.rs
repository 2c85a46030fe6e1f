// SPDX-License-Identifier: MIT OR Apache-2.0
//! Benchmarks of Partita against the bare kernel mechanisms.
//!
//! `partita bench switch` ([`run_switch`]) measures, for every partition-switch backend, the
//! timer lateness at window boundaries, the delay from a window start to the first instruction
//! of the entering partition, and the time the leaving partition runs past its window end,
//! with 1 to 64 APEX processes per partition, and the same figures of a minimal switching loop
//! that drives the kernel mechanism alone. See `docs/benchmarks.md`.
//!
//! The measuring processes are the `partita` binary itself, started through hidden
//! subcommands: [`partition_main`] (`partita __bench-partition`, an APEX partition run by the
//! manager) and [`spinner_main`] (`partita __bench-spinner`, a plain process for the bare
//! mechanism).

mod analysis;
mod apex;
mod bare;
mod log;
mod partition;
mod ports;
mod render;
mod run;
mod soak;
mod stats;
mod switch;

pub use analysis::Counts;
pub use apex::{
    apex_partition_main, cli_apex, render_apex, run_apex, ApexCheck, ApexOptions, ApexPlan,
    ApexReport, HandoffFigures, ServiceFigures,
};
pub use bare::Mechanism;
pub use partition::{partition_main, spinner_main};
pub use ports::{
    cli_ports, ports_partition_main, render_ports, run_ports, PortRow, PortsCheck, PortsOptions,
    PortsReport,
};
pub use render::render;
pub use soak::{cli_soak, render_soak, run_soak, SoakOptions, SoakReport};
pub use stats::Figures;
pub use switch::{run_switch, Check, Machine, PlanInfo, Section, SwitchOptions, SwitchReport};

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Why a benchmark could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A system call failed.
    #[error(transparent)]
    Sys(#[from] partita_sys::SysError),
    /// The partition manager failed.
    #[error(transparent)]
    Manager(#[from] partita_manager::ManagerError),
    /// The module a benchmark built is not a valid plan.
    #[error("benchmark module: {0}")]
    Plan(#[from] partita_config::Inconsistency),
    /// Something the benchmark needs is missing.
    #[error("{0}")]
    Unavailable(String),
    /// A file could not be written or created.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// Stopped by SIGINT/SIGTERM.
    #[error("interrupted")]
    Interrupted,
}

/// Partition side: waits (at most 200 ms) until the runtime's counter clock is calibrated
/// (10 ms after the manager's seed pair), so that GET_TIME is measured in its steady state.
pub(crate) fn settle_clock() {
    let c = &partita_sys::time::COUNTER_CLOCK;
    let until = partita_sys::time::monotonic_ns() + 200_000_000;
    while c.enabled() && !c.calibrated() && partita_sys::time::monotonic_ns() < until {
        // Readings are what calibrate it.
        std::hint::black_box(partita_apex::apex::time::get_time().ok());
        std::hint::spin_loop();
    }
}

/// Parses a backend name (`signals`, `freezer-v1`, `freezer-v2`).
pub fn parse_backend(s: &str) -> Result<Mechanism, String> {
    match s.trim() {
        "signals" => Ok(Mechanism::Signals),
        "freezer-v1" => Ok(Mechanism::FreezerV1),
        "freezer-v2" => Ok(Mechanism::FreezerV2),
        o => Err(format!(
            "unknown backend `{o}` (signals, freezer-v1, freezer-v2)"
        )),
    }
}

/// Writes the report as JSON to `path` (creating its directory).
pub fn write_json(r: &SwitchReport, path: &Path) -> Result<(), BenchError> {
    let io = |e| BenchError::Io {
        path: path.to_path_buf(),
        source: e,
    };
    if let Some(d) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).map_err(io)?;
    }
    let text = serde_json::to_string_pretty(r).map_err(|e| io(e.into()))?;
    std::fs::write(path, text + "\n").map_err(io)
}

/// `bench-results/switch-<UTC timestamp>.json`.
pub fn default_json_path() -> PathBuf {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    PathBuf::from(format!(
        "bench-results/switch-{y:04}{m:02}{d:02}T{:02}{:02}{:02}Z.json",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    ))
}

/// Runs `f` with SIGINT/SIGTERM turned into a stop flag, so that a bench interrupted by the
/// user still removes every process, cgroup and file it created.
pub(crate) fn with_stop_signals<T>(f: impl FnOnce(Arc<AtomicBool>) -> T) -> T {
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let signals = [2, 15];
    let watcher = partita_sys::proc::block_signals(&signals).ok().map(|()| {
        let (stop, done) = (stop.clone(), done.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Acquire) {
                if partita_sys::proc::wait_signal(&signals, 100_000_000).is_some() {
                    stop.store(true, Ordering::Release);
                }
            }
        })
    });
    let r = f(stop);
    done.store(true, Ordering::Release);
    if let Some(w) = watcher {
        let _ = w.join();
    }
    r
}

/// `partita bench switch`: runs, prints the table, writes the JSON. Returns the exit code
/// (0, or 4 when the benchmark could not run; a missed target is not a failure).
pub fn cli_switch(opts: &SwitchOptions, json: Option<PathBuf>) -> u8 {
    let r = with_stop_signals(|stop| run_switch(opts, stop, |l| eprintln!("bench: {l}")));
    let report = match r {
        Ok(r) => r,
        Err(e) => {
            eprintln!("partita bench switch: {e}");
            return 4;
        }
    };
    print!("{}", render(&report));
    let path = json.unwrap_or_else(default_json_path);
    if let Err(e) = write_json(&report, &path) {
        eprintln!("partita bench switch: {e}");
        return 3;
    }
    println!("figures written to {}", path.display());
    0
}
