// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita bench switch|apex|ports|overheads|sfp|scaling|slots|kvm|interference|all`: runs a benchmark of `partita-bench` (SIGINT/SIGTERM stop
//! it cleanly), prints its table and writes its JSON figures. A missed target is not a failure.

use crate::exit::ExitStatus;
use partita_bench::{BenchError, Report};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Progress lines of a running benchmark.
fn progress(line: &str) {
    eprintln!("bench: {line}");
}

/// Runs `bench` and reports it: success, a file error when the JSON could not be written, or
/// cannot-run when the benchmark could not run.
fn report<R: Report>(
    json: Option<PathBuf>,
    bench: impl FnOnce(Arc<AtomicBool>, fn(&str)) -> Result<R, BenchError>,
) -> ExitStatus {
    let report = match partita_bench::with_stop_signals(|stop| bench(stop, progress)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("partita bench {}: {e}", R::BENCH);
            return ExitStatus::CannotRun;
        }
    };
    print!("{}", report.render());
    let path = json.unwrap_or_else(|| partita_bench::default_json_path(R::BENCH));
    if let Err(e) = partita_bench::write_json(&report, &path) {
        eprintln!("partita bench {}: {e}", R::BENCH);
        return ExitStatus::FileError;
    }
    println!("figures written to {}", path.display());
    ExitStatus::Success
}

/// `partita bench switch`.
pub fn switch(opts: &partita_bench::SwitchOptions, json: Option<PathBuf>) -> ExitStatus {
    report(json, |stop, p| partita_bench::run_switch(opts, stop, p))
}

/// `partita bench apex`.
pub fn apex(opts: &partita_bench::ApexOptions, json: Option<PathBuf>) -> ExitStatus {
    report(json, |stop, p| partita_bench::run_apex(opts, stop, p))
}

/// `partita bench ports`.
pub fn ports(opts: &partita_bench::PortsOptions, json: Option<PathBuf>) -> ExitStatus {
    report(json, |stop, p| partita_bench::run_ports(opts, stop, p))
}

/// Runs `bench`, prints its Markdown tables and writes them, its JSON figures and its plots
/// into `out` (default: bench-results/<bench>-<timestamp>).
fn report_to_dir<R: Report>(
    out: Option<PathBuf>,
    bench: impl FnOnce(Arc<AtomicBool>, fn(&str)) -> Result<R, BenchError>,
) -> ExitStatus {
    let report = match partita_bench::with_stop_signals(|stop| bench(stop, progress)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("partita bench {}: {e}", R::BENCH);
            return ExitStatus::CannotRun;
        }
    };
    print!("{}", report.render());
    let dir = out.unwrap_or_else(|| partita_bench::default_json_path(R::BENCH).with_extension(""));
    match partita_bench::write_report_dir(&report, &dir) {
        Ok(files) => {
            for f in files {
                println!("wrote {}", f.display());
            }
            ExitStatus::Success
        }
        Err(e) => {
            eprintln!("partita bench {}: {e}", R::BENCH);
            ExitStatus::FileError
        }
    }
}

/// `partita bench felt`.
pub fn felt(opts: &partita_bench::FeltOptions, out: Option<PathBuf>) -> ExitStatus {
    report_to_dir(out, |stop, p| partita_bench::run_felt(opts, stop, p))
}

/// `partita bench overheads`.
pub fn overheads(opts: &partita_bench::OverheadsOptions, out: Option<PathBuf>) -> ExitStatus {
    report_to_dir(out, |stop, p| partita_bench::run_overheads(opts, stop, p))
}

/// `partita bench scaling`.
pub fn scaling(opts: &partita_bench::ScalingOptions, out: Option<PathBuf>) -> ExitStatus {
    report_to_dir(out, |stop, p| partita_bench::run_scaling(opts, stop, p))
}

/// `partita bench slots`.
pub fn slots(opts: &partita_bench::SlotsOptions, out: Option<PathBuf>) -> ExitStatus {
    report_to_dir(out, |stop, p| partita_bench::run_slots(opts, stop, p))
}

/// `partita bench interference`.
pub fn interference(opts: &partita_bench::InterferenceOptions, out: Option<PathBuf>) -> ExitStatus {
    report_to_dir(out, |stop, p| {
        partita_bench::run_interference(opts, stop, p)
    })
}

/// `partita bench sfp`.
pub fn sfp(opts: &partita_bench::SfpOptions, out: Option<PathBuf>) -> ExitStatus {
    report_to_dir(out, |stop, p| partita_bench::run_sfp(opts, stop, p))
}

/// `partita bench kvm`.
pub fn kvm(opts: &partita_bench::KvmOptions, out: Option<PathBuf>) -> ExitStatus {
    report_to_dir(out, |stop, p| partita_bench::run_kvm(opts, stop, p))
}

/// `partita bench all`: every benchmark into `out` (default: bench-results/all-<timestamp>)
/// with an index page. On a terminal a status line shows which benchmark runs and how far the
/// run is; otherwise it is quiet until the end. Success only when every benchmark ran.
pub fn all(quick: bool, out: Option<PathBuf>) -> ExitStatus {
    use std::io::{IsTerminal, Write};
    let dir = out.unwrap_or_else(|| partita_bench::default_json_path("all").with_extension(""));
    let live = std::io::stderr().is_terminal();
    let mut status = |k: usize, n: usize, line: &str| {
        if live {
            let width = 20;
            let done = width * k.saturating_sub(1) / n.max(1);
            let bar: String = "#".repeat(done) + &"-".repeat(width - done);
            let text: String = format!("[{bar}] {k}/{n} {line}")
                .chars()
                .take(120)
                .collect();
            let mut e = std::io::stderr();
            let _ = write!(e, "\r\x1b[K{text}");
            let _ = e.flush();
        }
    };
    let r = partita_bench::with_stop_signals(|stop| {
        partita_bench::run_all(quick, &dir, stop, &mut status)
    });
    if live {
        eprintln!();
    }
    match r {
        Ok(index) => {
            print!("{}", partita_bench::index_markdown(&index));
            println!("wrote {}", dir.join("index.{md,html,json}").display());
            if index.complete() {
                ExitStatus::Success
            } else {
                ExitStatus::CannotRun
            }
        }
        Err(partita_bench::BenchError::Io { path, source }) => {
            eprintln!("partita bench all: {}: {source}", path.display());
            ExitStatus::FileError
        }
        Err(e) => {
            eprintln!("partita bench all: {e}");
            ExitStatus::CannotRun
        }
    }
}

/// `partita bench soak`: runs, writes `soak.json` and `soak.md`, prints the summary. The run
/// itself failing (`partita run` ending with another status than 0, or killed) is a partition
/// failure.
pub fn soak(opts: &partita_bench::SoakOptions) -> ExitStatus {
    let r = match partita_bench::run_soak(opts, |l| eprintln!("soak: {l}")) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("partita bench soak: {e}");
            return ExitStatus::CannotRun;
        }
    };
    if let Err(e) = partita_bench::write_soak(opts, &r) {
        eprintln!("partita bench soak: {e}");
        return ExitStatus::FileError;
    }
    print!("{}", partita_bench::render_soak(&r));
    println!("\nwrote {}", opts.out_dir.join("soak.{json,md}").display());
    if r.exit_code == Some(0) {
        ExitStatus::Success
    } else {
        ExitStatus::PartitionFailure
    }
}
