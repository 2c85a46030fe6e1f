// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita-fuzz`: the long fuzz run of the configuration front end and the plan loader
//! (`docs/fuzzing.md`). Exit status: 0 no failure, 1 failures (written to `--failures`),
//! 2 bad command line or unreadable corpus, 3 the watchdog stopped a hanging or
//! runaway-allocating input.

use clap::Parser;
use partita_fuzz::{run, Campaign, Corpus};
use partita_sys::alloc_meter::AllocMeter;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[global_allocator]
static METER: AllocMeter = AllocMeter::new();

/// Mutates the corpus and feeds every input to the configuration front end or the plan
/// loader; reports panics, hangs, allocation past the bound and broken invariants.
#[derive(Parser)]
#[command(name = "partita-fuzz")]
struct Args {
    /// Number of inputs.
    #[arg(long, default_value_t = 100_000)]
    inputs: u64,
    /// Seed of the inputs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Index of the first input (with --inputs 1, reproduces one input).
    #[arg(long, default_value_t = 0)]
    start: u64,
    /// Per-input time limit in milliseconds.
    #[arg(long, default_value_t = 2000)]
    time_limit_ms: u64,
    /// Per-input allocation bound in MiB (peak above what was allocated before the input).
    #[arg(long, default_value_t = 256)]
    alloc_limit_mib: usize,
    /// Where failing inputs are written.
    #[arg(long, default_value = "fuzz-failures")]
    failures: PathBuf,
    /// Corpus directories (their *.xml files); default: the rule fixtures, the good
    /// fixtures and the examples.
    #[arg(long)]
    corpus: Vec<PathBuf>,
    /// Also write the report as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
}

fn main() -> ExitCode {
    let a = Args::parse();
    let dirs = if a.corpus.is_empty() {
        Corpus::default_dirs()
    } else {
        a.corpus.clone()
    };
    let corpus = match Corpus::load(&dirs) {
        Ok(c) if !c.xml.is_empty() => c,
        Ok(_) => {
            eprintln!("partita-fuzz: no *.xml file in {dirs:?}");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("partita-fuzz: reading the corpus: {e}");
            return ExitCode::from(2);
        }
    };
    let campaign = Campaign {
        seed: a.seed,
        start: a.start,
        inputs: a.inputs,
        time_limit: Duration::from_millis(a.time_limit_ms),
        alloc_limit: a.alloc_limit_mib << 20,
        failures_dir: a.failures.clone(),
    };
    eprintln!(
        "partita-fuzz: {} inputs from seed {} over {} configurations and {} plans",
        a.inputs,
        a.seed,
        corpus.xml.len(),
        corpus.plans.len()
    );
    let r = run(&campaign, &corpus, &METER);
    println!(
        "inputs {} ({} configurations, {} plan files; {} accepted) in {:.1} s\n\
         panics {}, hangs {}, allocation failures {}, invariant failures {}\n\
         peak allocation of one input {:.1} MiB, slowest input {:.1} ms, largest input {} bytes",
        r.inputs,
        r.config_inputs,
        r.plan_inputs,
        r.accepted,
        r.seconds,
        r.panics,
        r.hangs,
        r.allocation_failures,
        r.invariant_failures,
        r.peak_allocation as f64 / (1 << 20) as f64,
        r.slowest_ms,
        r.largest_input
    );
    for p in &r.saved {
        println!("failing input: {}", p.display());
    }
    if let Some(path) = &a.json {
        let text = serde_json::to_string_pretty(&r).unwrap_or_default();
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("partita-fuzz: {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    ExitCode::from(if r.failures() == 0 { 0 } else { 1 })
}
