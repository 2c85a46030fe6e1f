// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita`: check, compile and run ARINC 653 modules on Linux.
//!
//! Exit codes: [`exit::ExitStatus`] (also printed by `partita --help`).

mod bench;
mod cc;
mod embedded;
mod exit;
mod schedule;
mod status;
mod trace;

use clap::{Parser, Subcommand};
use exit::ExitStatus;
use partita_manager::{Backend, BackendChoice, RunOptions};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
#[command(name = "partita", version, about = "ARINC 653 partitioning on Linux", after_help = ExitStatus::help())]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Check a module configuration: a one-screen summary, or every diagnostic.
    Check {
        /// The ARINC 653 XML module file.
        file: PathBuf,
        /// Do not read the host's files: partition executables (exist, executable, entry
        /// function) and the paths a partition's uid must reach.
        #[arg(long)]
        no_executables: bool,
    },
    /// Compile a module configuration into a plan file.
    Compile {
        /// The ARINC 653 XML module file.
        file: PathBuf,
        /// Output plan file.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Run a module (XML or compiled plan); without a file, the embedded example module.
    Run {
        /// Module XML or plan file.
        file: Option<PathBuf>,
        /// Stop after this long (e.g. 5s, 500ms, 2m); default: until SIGINT/SIGTERM.
        #[arg(long, value_parser = parse_duration)]
        duration: Option<Duration>,
        /// Partition-switch backend: auto, signals, freezer, freezer-v1, freezer-v2.
        #[arg(long)]
        backend: Option<BackendChoice>,
        /// Keep the manager's events in module.log and each partition's output in
        /// partitions/<name>.log here.
        #[arg(long)]
        log_dir: Option<PathBuf>,
        /// Write the run report as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Do not echo partition output on stdout.
        #[arg(long)]
        quiet: bool,
        /// Run partitions without their own namespaces.
        #[arg(long)]
        no_namespaces: bool,
        /// Do not use real-time priorities.
        #[arg(long)]
        no_realtime: bool,
        /// Do not load the seccomp filter into partitions (debugging; see docs/seccomp.md).
        #[arg(long)]
        no_seccomp: bool,
        /// Fail (exit status in `partita --help`) when the run shows any of these, comma
        /// separated: exit (a partition process ended), restart (a partition was restarted),
        /// deadline (a deadline was missed), hm (the health monitor recorded an error), start
        /// (a partition never reached NORMAL), overrun (a window overrun), all. By default a
        /// run that did what its health-monitor tables say exits 0.
        #[arg(long, value_delimiter = ',', value_parser = parse_fail_on)]
        fail_on: Vec<FailOn>,
        /// The same as `--fail-on overrun`.
        #[arg(long)]
        fail_on_overrun: bool,
        /// Overrun tolerance (default 100us).
        #[arg(long, value_parser = parse_duration)]
        overrun_tolerance: Option<Duration>,
        /// Append the health monitor's logbook to this file (JSON lines; `partita hm-log`).
        #[arg(long)]
        hm_log: Option<PathBuf>,
        /// Simulate a power failure (POWER_FAIL) this long after the start (SIGPWR to the
        /// manager does the same).
        #[arg(long, value_parser = parse_duration)]
        power_fail_at: Option<Duration>,
        /// At most how long before each boundary the scheduler threads wake and spin (default
        /// 80us; 0: plain absolute sleeps). Within it they plan for their own recent wake-up
        /// latency (docs/window-start-timing.md); the leaving partition loses the spin at the
        /// end of its window.
        #[arg(long, value_parser = parse_duration)]
        spin_margin: Option<Duration>,
        /// Wake the whole spin margin before every boundary, and let every late wake-up feed
        /// the wake guard (the scheduler before it learnt its wake-up latency).
        #[arg(long)]
        fixed_spin_margin: bool,
        /// The kernel's real-time throttling budget during the run: keep (as found; a
        /// warning when a core's windows leave less idle time than it needs), unlimited (no
        /// throttling: a dedicated machine), default (the kernel's 950000 us of each second).
        /// Set when the run starts, the value found is written back at its end.
        #[arg(long, value_name = "BUDGET")]
        rt_budget: Option<partita_manager::RtBudget>,
        /// Record the run into this trace file: window starts and ends, partition modes,
        /// process states, deadline misses, ports, health-monitor events (docs/tracing.md).
        #[arg(long, value_name = "FILE")]
        trace: Option<PathBuf>,
        /// Events each trace ring holds (a power of two from 16 to 1048576; default 16384):
        /// the manager drains them every 10 ms, more is lost (and counted).
        #[arg(long, requires = "trace", value_parser = parse_trace_buffer)]
        trace_buffer: Option<u32>,
        /// Merge the kernel's sched_switch and sched_wakeup events of the module's cores into
        /// the trace (tracefs, root).
        #[arg(long, requires = "trace")]
        trace_kernel: bool,
        /// Also record every APEX call of the partitions' C binding (APEX_ENTER / APEX_EXIT,
        /// with the return code).
        #[arg(long, requires = "trace")]
        trace_apex: bool,
    },
    /// Reclaim what runs whose manager is gone left behind (thaw and kill their partitions,
    /// remove their cgroups) and say what was removed; runs whose manager lives are left alone.
    Cleanup {
        /// Only list what would be reclaimed.
        #[arg(long)]
        dry_run: bool,
    },
    /// Read back a health-monitor logbook written by `partita run --hm-log`.
    HmLog {
        /// The logbook file.
        file: PathBuf,
        /// Print the records as a JSON array.
        #[arg(long)]
        json: bool,
    },
    /// Compile and link a C partition against the APEX runtime (arguments go to the C
    /// compiler), e.g. `partita cc part.c -o part`.
    Cc {
        /// Print the compile and link flags instead of compiling.
        #[arg(long)]
        print_flags: bool,
        /// Print a pkg-config file for the runtime instead of compiling.
        #[arg(long)]
        pkg_config: bool,
        /// Arguments for the C compiler.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Synthesise a Module_Schedule from the partitions' processes (partita:Process), check it
    /// and write it back; or compare the algorithms (--experiment).
    Schedule(ScheduleArgs),
    /// List the configuration validation rules.
    Rules,
    /// Convert a trace written by `partita run --trace` (see docs/tracing.md): a text summary
    /// (default), Perfetto JSON for ui.perfetto.dev, CSV, or an SVG timeline; of the whole
    /// run, a span (--from/--to, or --frames) and/or one core or partition.
    Trace(TraceArgs),
    /// Benchmarks (figures, not tests): `partita bench switch`, `partita bench apex`,
    /// `partita bench ports`, `partita bench overheads`, `partita bench sfp`, `partita bench
    /// scaling`, `partita bench slots`, `partita bench kvm`, `partita bench interference`,
    /// `partita bench all`.
    ///
    /// The measuring processes are the `partita-bench-*` executables of a workspace build,
    /// looked for next to `partita` (or in PARTITA_BENCH_PARTITIONS_DIR).
    Bench {
        #[command(subcommand)]
        what: BenchCmd,
    },
}

#[derive(clap::Args)]
struct ScheduleArgs {
    /// The ARINC 653 XML module file (its partitions list partita:Process elements).
    #[arg(required_unless_present = "experiment")]
    file: Option<PathBuf>,
    /// seed (criticality micro-periods), prm (periodic resource model), ours, or all.
    #[arg(long, default_value = "ours")]
    algorithm: String,
    /// Idle time left to the host in every micro-period (default: 5% of it).
    #[arg(long, value_parser = parse_duration)]
    host_reserve: Option<Duration>,
    /// Partition switch cost charged at the start of every window (default 100us: spin margin
    /// plus start latency; measure yours with `partita bench switch`).
    #[arg(long, value_parser = parse_duration)]
    switch_cost: Option<Duration>,
    /// Cores to schedule on, e.g. 0,1 (default: 0 and the partitions' partita:Resources cores).
    #[arg(long, value_delimiter = ',')]
    cores: Option<Vec<u32>>,
    /// Write the module with the synthesised schedule to this file.
    #[arg(short, long, conflicts_with = "in_place")]
    output: Option<PathBuf>,
    /// Replace the schedule in the module file itself.
    #[arg(long)]
    in_place: bool,
    /// Write a Gantt chart of one major frame (SVG).
    #[arg(long)]
    gantt: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Do not read the host's files: partition executables (exist, executable, entry
    /// function) and the paths a partition's uid must reach.
    #[arg(long)]
    no_executables: bool,
    /// Compare the algorithms on random process sets instead.
    #[arg(long)]
    experiment: bool,
    /// Experiment: process sets per utilisation level.
    #[arg(long, default_value_t = 100)]
    sets: usize,
    /// Experiment: random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Experiment: output directory for experiment.json and experiment.svg.
    #[arg(long, default_value = "bench-results/schedule")]
    out: PathBuf,
}

#[derive(clap::Args)]
struct TraceArgs {
    /// The trace file.
    file: PathBuf,
    /// summary, perfetto (Chrome trace-event JSON), csv or svg.
    #[arg(long, default_value = "summary")]
    format: partita_trace::Format,
    /// Write here instead of stdout.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Start of the span, after the epoch (e.g. 20ms; negative before it).
    #[arg(long, value_parser = trace::parse_offset, allow_hyphen_values = true, conflicts_with = "frames")]
    from: Option<i64>,
    /// End of the span (excluded), after the epoch.
    #[arg(long, value_parser = trace::parse_offset, allow_hyphen_values = true, conflicts_with = "frames")]
    to: Option<i64>,
    /// Major frames N..M (frame 0 starts at the epoch; M excluded), e.g. 10..13.
    #[arg(long, value_parser = partita_trace::Span::parse_frames)]
    frames: Option<partita_trace::Span>,
    /// Only this core's windows and the partitions running on it.
    #[arg(long)]
    core: Option<u32>,
    /// Only this partition (by name).
    #[arg(long)]
    partition: Option<String>,
}

#[derive(Subcommand)]
enum BenchCmd {
    /// Partition-switch figures of every backend against the bare kernel mechanism (root;
    /// about 4 minutes, `--quick` about 30 s).
    Switch {
        /// Short run: 1,000 windows per configuration instead of 10,000.
        #[arg(long)]
        quick: bool,
        /// Write the JSON figures here (default: bench-results/switch-<timestamp>.json).
        #[arg(long)]
        json: Option<PathBuf>,
        /// Comma-separated backends: signals, freezer-v1, freezer-v2 (default: all three).
        #[arg(long, value_delimiter = ',', value_parser = parse_backend)]
        backends: Option<Vec<Backend>>,
        /// The manager's spin margin for the runs (default: the manager's own default).
        #[arg(long, value_parser = parse_duration)]
        spin_margin: Option<Duration>,
    },
    /// What an application inside a partition feels of a switch: dead time per switch,
    /// usable part of each window, release and TIMED_WAIT lateness, time lost to real-time
    /// throttling, beside the bare kernel mechanism and the peers' published figures (root;
    /// about 5 minutes, `--quick` about 1 minute).
    Felt {
        /// Short run: 250 frames (5 s) per run instead of 1,500.
        #[arg(long)]
        quick: bool,
        /// Output directory for felt.json and felt.md (default: bench-results/felt-<timestamp>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Comma-separated backends: signals, freezer-v1, freezer-v2 (default: all three).
        #[arg(long, value_delimiter = ',', value_parser = parse_backend)]
        backends: Option<Vec<Backend>>,
    },
    /// Per-call latency of the non-blocking APEX services and the process-switch cost inside
    /// a partition, against a bare futex hand-off (root; about 5 s, `--quick` under 1 s).
    Apex {
        /// Short run: 10,000 calls per service instead of 100,000.
        #[arg(long)]
        quick: bool,
        /// Write the JSON figures here (default: bench-results/apex-<timestamp>.json).
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Sampling and queuing port costs at 16..4096 bytes against a bare shared-memory copy,
    /// and the end-to-end latency between two partitions (root; `--quick` a few seconds).
    Ports {
        /// Short run: 10,000 calls per operation instead of 100,000.
        #[arg(long)]
        quick: bool,
        /// Write the JSON figures here (default: bench-results/ports-<timestamp>.json).
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// The seed study's release overheads (TmrO, PtswO, CtswO, RelO, execution and response
    /// times) with its Table III workload, per backend, the scheduler on the partitions' core
    /// and on a core of its own, beside the published values (root; about 2 minutes,
    /// `--quick` about 10 s).
    Overheads {
        /// Short run: 12 hyperperiods (80 ms) per configuration instead of 250.
        #[arg(long)]
        quick: bool,
        /// Output directory for overheads.json, overheads.md and the CDF plots (default:
        /// bench-results/overheads-<timestamp>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Comma-separated backends: signals, freezer-v1, freezer-v2 (default: all three).
        #[arg(long, value_delimiter = ',', value_parser = parse_backend)]
        backends: Option<Vec<Backend>>,
        /// Table III's execution times are scaled by this (0.05 to 0.9; the full task set
        /// needs 100 % of a core).
        #[arg(long, default_value_t = 0.8, value_parser = parse_scale)]
        scale: f64,
    },
    /// SFPBench's grey-box tests, APEX calls and applications (its Tables 2 to 4, our own
    /// implementations), beside its published values (root; includes a `bench apex` run;
    /// about 30 s, `--quick` a few seconds).
    Sfp {
        /// Short run: 1,000 runs per test instead of 10,000 (and `bench apex --quick`).
        #[arg(long)]
        quick: bool,
        /// Output directory for sfp.json and sfp.md (default: bench-results/sfp-<timestamp>).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// The partition-switch overhead against processes per partition and the start-up time
    /// against the number of partitions, per backend (the seed study's Figures 6, 7 and 20;
    /// root; about 3 minutes, `--quick` about 20 s).
    Scaling {
        /// Fewer points and samples.
        #[arg(long)]
        quick: bool,
        /// Output directory for scaling.json, scaling.md and the curves (default:
        /// bench-results/scaling-<timestamp>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Comma-separated backends: signals, freezer-v1, freezer-v2 (default: all three).
        #[arg(long, value_delimiter = ',', value_parser = parse_backend)]
        backends: Option<Vec<Backend>>,
    },
    /// A compute partition's performance loss against its window length (1000 ... 1 ms),
    /// measured and modelled, beside XtratuM's Table 4 (root; about 2 minutes, `--quick`
    /// about 30 s).
    Slots {
        /// Window lengths 200, 50, 10, 5, 1 ms, 1 s counted per length.
        #[arg(long)]
        quick: bool,
        /// Output directory for slots.json, slots.md and the curve (default:
        /// bench-results/slots-<timestamp>).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// The KVM monitor (issue 15, first stage): VM creation, first hypercall, hypercall round
    /// trip, kick stop and resume, a one-thread switch between two VMs against pause/resume of
    /// one (root or /dev/kvm access; the guests of crates/kvm-guest, built by the kvm tests;
    /// about 20 s, `--quick` a few seconds).
    Kvm {
        /// 200 samples per figure instead of 2,000.
        #[arg(long)]
        quick: bool,
        /// Output directory for kvm.json and kvm.md (default: bench-results/kvm-<timestamp>).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// What a general-purpose partition (CPU, memory or I/O load) on the other core, on the
    /// other core with aligned windows, or in the background of the same core costs a
    /// real-time partition's release lateness and execution time, with its own CPU share
    /// and the targets (root; about 3 minutes, `--quick` under a minute).
    Interference {
        /// 250 jobs per run instead of 1500.
        #[arg(long)]
        quick: bool,
        /// Output directory for interference.json, interference.md and the plots (default:
        /// bench-results/interference-<timestamp>).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Every benchmark (overheads, sfp, scaling, slots, switch, apex, ports, felt, interference) into one folder
    /// with an index page (index.md, index.html with the plots, index.json); root; `--quick`
    /// runs their quick forms, in under 5 minutes on 2 cores.
    All {
        /// The quick form of every benchmark.
        #[arg(long)]
        quick: bool,
        /// Output folder (default: bench-results/all-<timestamp>).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Long run of a module (default: the flagship) sampling memory and descriptors of the
    /// manager and its partitions, with missed boundaries and window-start drift
    /// (docs/soak.md; root).
    Soak {
        /// Module XML or plan file (default: the embedded flagship).
        file: Option<PathBuf>,
        /// How long the module runs.
        #[arg(long, value_parser = parse_duration, default_value = "1h")]
        duration: Duration,
        /// Time between two samples.
        #[arg(long, value_parser = parse_duration, default_value = "10s")]
        interval: Duration,
        /// Output directory (default: bench-results/soak-<timestamp>).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

/// Why `partita bench switch --backends` refused a name.
#[derive(Debug, thiserror::Error)]
enum BenchBackendError {
    /// Not a backend at all.
    #[error(transparent)]
    Unknown(#[from] partita_manager::UnknownBackend),
    /// `auto` or `freezer`: which one depends on the host.
    #[error("`{0}` is not one backend: name it (signals, freezer-v1, freezer-v2)")]
    NotOne(String),
}

/// A backend the benchmark can measure itself.
fn parse_backend(s: &str) -> Result<Backend, BenchBackendError> {
    match s.trim().parse::<BackendChoice>() {
        Ok(BackendChoice::Signals) => Ok(Backend::Signals),
        Ok(BackendChoice::FreezerV1) => Ok(Backend::FreezerV1),
        Ok(BackendChoice::FreezerV2) => Ok(Backend::FreezerV2),
        Ok(BackendChoice::Auto | BackendChoice::Freezer) => {
            Err(BenchBackendError::NotOne(s.to_string()))
        }
        Err(e) => Err(BenchBackendError::Unknown(e)),
    }
}

/// A `bench overheads --scale` outside the range the schedule can carry.
#[derive(Debug, thiserror::Error)]
#[error("`{0}` is not a scale from 0.05 to 0.9 (Table III needs 100 % of a core; the windows give 95 %)")]
struct ScaleError(String);

fn parse_scale(s: &str) -> Result<f64, ScaleError> {
    match s.trim().parse::<f64>() {
        Ok(v) if (0.05..=0.9).contains(&v) => Ok(v),
        _ => Err(ScaleError(s.to_string())),
    }
}

/// One `--fail-on` word: a concern (see [`partita_manager::Concern`]) or `all`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FailOn {
    One(partita_manager::Concern),
    All,
}

impl FailOn {
    /// Whether this choice covers `c`.
    fn covers(self, c: partita_manager::Concern) -> bool {
        self == FailOn::All || self == FailOn::One(c)
    }
}

/// A `--fail-on` word that names no concern.
#[derive(Debug, thiserror::Error)]
#[error("`{0}` is not one of exit, restart, deadline, hm, start, overrun, all")]
struct UnknownConcern(String);

fn parse_fail_on(s: &str) -> Result<FailOn, UnknownConcern> {
    match s.trim() {
        "all" => Ok(FailOn::All),
        w => partita_manager::Concern::from_name(w)
            .map(FailOn::One)
            .ok_or_else(|| UnknownConcern(w.to_string())),
    }
}

/// Why a command-line duration was refused.
#[derive(Debug, thiserror::Error)]
#[error("`{text}` is not a duration: {source} (examples: 5s, 500ms, 2m)")]
struct DurationError {
    text: String,
    source: partita_config::time::TimeError,
}

/// A command-line duration (`5s`, `500ms`, `2m`, `1.5h`; no unit means seconds), exact to the
/// nanosecond and at most 365 days (`partita_config::time::parse_duration`).
fn parse_duration(s: &str) -> Result<Duration, DurationError> {
    partita_config::time::parse_duration(s)
        .map(Duration::from_nanos)
        .map_err(|source| DurationError {
            text: s.trim().to_string(),
            source,
        })
}

/// Why a `--trace-buffer` was refused.
#[derive(Debug, thiserror::Error)]
#[error("`{0}` is not a power of two between 16 and {max}", max = partita_sys::trace::MAX_CAPACITY)]
struct TraceBufferError(String);

/// `--trace-buffer`: events per ring, a power of two the ring accepts.
fn parse_trace_buffer(s: &str) -> Result<u32, TraceBufferError> {
    s.trim()
        .parse::<u32>()
        .ok()
        .filter(|&n| (16..=partita_sys::trace::MAX_CAPACITY).contains(&n) && n.is_power_of_two())
        .ok_or_else(|| TraceBufferError(s.trim().to_string()))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Commands that only print end quietly when their reader goes away (`partita rules |
    // head`); `run` and `bench` keep SIGPIPE ignored: they own partitions and sockets, and a
    // closed output pipe must not end them before they clean up.
    if !matches!(cli.cmd, Cmd::Run { .. } | Cmd::Bench { .. }) {
        partita_sys::proc::default_sigpipe();
    }
    let status = match cli.cmd {
        Cmd::Check {
            file,
            no_executables,
        } => check(&file, no_executables),
        Cmd::Compile { file, output } => compile(&file, &output),
        Cmd::Run {
            file,
            duration,
            backend,
            log_dir,
            json,
            quiet,
            no_namespaces,
            no_realtime,
            no_seccomp,
            mut fail_on,
            fail_on_overrun,
            overrun_tolerance,
            hm_log,
            power_fail_at,
            spin_margin,
            fixed_spin_margin,
            rt_budget,
            trace,
            trace_buffer,
            trace_kernel,
            trace_apex,
        } => {
            let file = match file {
                Some(f) => f,
                None => match embedded::materialise() {
                    Ok(f) => f,
                    Err(e) => {
                        eprintln!("partita: preparing the embedded module: {e}");
                        return ExitStatus::CannotRun.into();
                    }
                },
            };
            let mut opts = RunOptions {
                duration,
                log_dir,
                echo: !quiet,
                namespaces: !no_namespaces,
                realtime: !no_realtime,
                seccomp: !no_seccomp,
                handle_signals: true,
                hm_log,
                power_fail_at,
                trace: trace.map(|file| partita_manager::TraceOptions {
                    buffer: trace_buffer.unwrap_or(partita_manager::DEFAULT_TRACE_BUFFER),
                    kernel: trace_kernel,
                    apex_calls: trace_apex,
                    ..partita_manager::TraceOptions::new(file)
                }),
                ..RunOptions::default()
            };
            if let Some(t) = overrun_tolerance {
                opts.overrun_tolerance = t;
            }
            if let Some(m) = spin_margin {
                opts.spin_margin = m;
            }
            opts.learn_wake_latency = !fixed_spin_margin;
            if let Some(b) = rt_budget {
                opts.rt_budget = b;
            }
            if fail_on_overrun {
                fail_on.push(FailOn::One(partita_manager::Concern::Overrun));
            }
            run(&file, backend, opts, json, &fail_on)
        }
        Cmd::Cc {
            print_flags,
            pkg_config,
            args,
        } => return cc_cmd(print_flags, pkg_config, &args),
        Cmd::Bench {
            what:
                BenchCmd::Switch {
                    quick,
                    json,
                    backends,
                    spin_margin,
                },
        } => {
            let mut o = partita_bench::SwitchOptions {
                quick,
                ..Default::default()
            };
            if let Some(b) = backends {
                o.backends = b;
            }
            if let Some(m) = spin_margin {
                o.spin_margin = m;
            }
            bench::switch(&o, json)
        }
        Cmd::Bench {
            what: BenchCmd::Apex { quick, json },
        } => bench::apex(&partita_bench::ApexOptions { quick }, json),
        Cmd::Bench {
            what:
                BenchCmd::Felt {
                    quick,
                    out,
                    backends,
                },
        } => {
            let mut o = partita_bench::FeltOptions {
                quick,
                ..Default::default()
            };
            if let Some(b) = backends {
                o.backends = b;
            }
            bench::felt(&o, out)
        }
        Cmd::HmLog { file, json } => hm_log(&file, json),
        Cmd::Cleanup { dry_run } => cleanup(dry_run),
        Cmd::Schedule(a) => schedule::main(&schedule::Options {
            file: a.file,
            algorithm: a.algorithm,
            host_reserve: a.host_reserve,
            switch_cost: a.switch_cost,
            cores: a.cores,
            output: a.output,
            in_place: a.in_place,
            gantt: a.gantt,
            json: a.json,
            no_executables: a.no_executables,
            experiment: a.experiment,
            sets: a.sets,
            seed: a.seed,
            out: a.out,
        }),
        Cmd::Bench {
            what: BenchCmd::Ports { quick, json },
        } => bench::ports(&partita_bench::PortsOptions { quick }, json),
        Cmd::Bench {
            what:
                BenchCmd::Overheads {
                    quick,
                    out,
                    backends,
                    scale,
                },
        } => {
            let mut o = partita_bench::OverheadsOptions {
                quick,
                scale_permille: (scale * 1000.0).round() as u32,
                ..Default::default()
            };
            if let Some(b) = backends {
                o.backends = b;
            }
            bench::overheads(&o, out)
        }
        Cmd::Bench {
            what: BenchCmd::Sfp { quick, out },
        } => bench::sfp(&partita_bench::SfpOptions { quick }, out),
        Cmd::Bench {
            what: BenchCmd::Slots { quick, out },
        } => bench::slots(&partita_bench::SlotsOptions { quick }, out),
        Cmd::Bench {
            what: BenchCmd::Interference { quick, out },
        } => bench::interference(&partita_bench::InterferenceOptions { quick }, out),
        Cmd::Bench {
            what: BenchCmd::All { quick, out },
        } => bench::all(quick, out),
        Cmd::Bench {
            what: BenchCmd::Kvm { quick, out },
        } => bench::kvm(&partita_bench::KvmOptions { quick }, out),
        Cmd::Bench {
            what:
                BenchCmd::Scaling {
                    quick,
                    out,
                    backends,
                },
        } => {
            let mut o = partita_bench::ScalingOptions {
                quick,
                ..Default::default()
            };
            if let Some(b) = backends {
                o.backends = b;
            }
            bench::scaling(&o, out)
        }
        Cmd::Bench {
            what:
                BenchCmd::Soak {
                    file,
                    duration,
                    interval,
                    out,
                },
        } => soak(file, duration, interval, out),
        Cmd::Trace(a) => trace::main(&trace::Options {
            file: a.file,
            format: a.format,
            output: a.output,
            selection: partita_trace::Selection {
                span: trace::span(a.from, a.to, a.frames),
                core: a.core,
                partition: a.partition,
            },
        }),
        Cmd::Rules => {
            for r in partita_config::rules() {
                println!(
                    "{:<32} {:<8} {}",
                    r.name,
                    format!("{:?}", r.severity).to_lowercase(),
                    r.description
                );
            }
            ExitStatus::Success
        }
    };
    status.into()
}

fn check(file: &PathBuf, no_executables: bool) -> ExitStatus {
    let opts = partita_config::CheckOptions {
        check_executables: !no_executables,
    };
    let outcome = match partita_config::check_file_with(file, &opts) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("partita: {}: {e}", file.display());
            return ExitStatus::FileError;
        }
    };
    if !outcome.diagnostics.is_empty() {
        eprint!(
            "{}",
            partita_config::render_diagnostics(&outcome.diagnostics)
        );
        eprintln!("{}", partita_config::count_line(&outcome.diagnostics));
    }
    match &outcome.plan {
        Some(plan) => {
            print!("{}", partita_config::render_summary(plan));
            ExitStatus::Success
        }
        None => ExitStatus::ConfigurationErrors,
    }
}

fn compile(file: &PathBuf, output: &PathBuf) -> ExitStatus {
    let outcome = match partita_config::check_file(file) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("partita: {}: {e}", file.display());
            return ExitStatus::FileError;
        }
    };
    if !outcome.diagnostics.is_empty() {
        eprint!(
            "{}",
            partita_config::render_diagnostics(&outcome.diagnostics)
        );
    }
    let Some(plan) = outcome.plan else {
        eprintln!("{}", partita_config::count_line(&outcome.diagnostics));
        return ExitStatus::ConfigurationErrors;
    };
    let mut bytes = Vec::new();
    if let Err(e) = partita_config::write_plan(&plan, &mut bytes) {
        eprintln!("partita: encoding the plan: {e}");
        return ExitStatus::FileError;
    }
    if let Err(e) = std::fs::write(output, &bytes) {
        eprintln!("partita: {}: {e}", output.display());
        return ExitStatus::FileError;
    }
    println!(
        "wrote {} ({} bytes, module {}, source sha256 {})",
        output.display(),
        bytes.len(),
        plan.module_name,
        plan.source_sha256
    );
    ExitStatus::Success
}

fn load_plan(file: &PathBuf) -> Result<partita_config::CompiledPlan, ExitStatus> {
    let bytes = partita_config::limits::read_bounded(file).map_err(|e| {
        eprintln!("partita: {}: {e}", file.display());
        ExitStatus::FileError
    })?;
    if partita_config::is_plan(&bytes) {
        return partita_config::read_plan(&bytes).map_err(|e| {
            eprintln!("partita: {}: {e}", file.display());
            ExitStatus::FileError
        });
    }
    let outcome = partita_config::check_bytes(&bytes, file, &Default::default());
    if !outcome.diagnostics.is_empty() {
        eprint!(
            "{}",
            partita_config::render_diagnostics(&outcome.diagnostics)
        );
    }
    outcome.plan.ok_or_else(|| {
        eprintln!("{}", partita_config::count_line(&outcome.diagnostics));
        ExitStatus::ConfigurationErrors
    })
}

fn run(
    file: &PathBuf,
    backend: Option<BackendChoice>,
    mut opts: RunOptions,
    json: Option<PathBuf>,
    fail_on: &[FailOn],
) -> ExitStatus {
    let compiled = match load_plan(file) {
        Ok(p) => p,
        Err(code) => return code,
    };
    opts.backend = backend.unwrap_or(match compiled.backend {
        partita_config::model::Backend::Signals => BackendChoice::Signals,
        partita_config::model::Backend::Freezer => BackendChoice::Freezer,
        _ => BackendChoice::Auto,
    });
    use std::io::IsTerminal;
    let status_line = status::wanted(
        std::io::stderr().is_terminal(),
        std::env::var("TERM").ok().as_deref(),
        opts.duration,
    )
    .then(|| {
        let progress = std::sync::Arc::new(partita_manager::Progress::new());
        opts.progress = Some(progress.clone());
        status::StatusLine::start(progress, opts.duration)
    });
    let outcome = partita_manager::run(&compiled, &opts);
    if let Some(s) = status_line {
        s.finish();
    }
    let report = match outcome {
        Ok(r) => r,
        Err(
            e @ (partita_manager::ManagerError::Log { .. }
            | partita_manager::ManagerError::Trace(_)),
        ) => {
            eprintln!("partita: {e}");
            return ExitStatus::FileError;
        }
        Err(e @ partita_manager::ManagerError::InvalidPlan(_)) => {
            eprintln!("partita: {}: {e}", file.display());
            return ExitStatus::CannotRun;
        }
        Err(e) => {
            eprintln!("partita: {e}");
            return ExitStatus::CannotRun;
        }
    };
    eprint!("{}", report.render());
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&report).unwrap_or_default();
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("partita: {}: {e}", path.display());
            return ExitStatus::FileError;
        }
    }
    if !report.leftovers.is_empty() || report.partitions.iter().any(|p| p.exec_error.is_some()) {
        return ExitStatus::PartitionFailure;
    }
    if report.hm.shutdown {
        return ExitStatus::HmShutdown;
    }
    // Every finding asked for is printed; the exit status is the lowest of theirs.
    report
        .findings()
        .into_iter()
        .filter(|f| fail_on.iter().any(|w| w.covers(f.concern)))
        .map(|f| {
            let s = ExitStatus::of_concern(f.concern);
            eprintln!("partita: failing (exit {}): {}", s.code(), f.what);
            s
        })
        .min_by_key(|s| s.code())
        .unwrap_or(ExitStatus::Success)
}

/// `partita cleanup`: one line per dead run reclaimed; exit 5 if something stays.
fn cleanup(dry_run: bool) -> ExitStatus {
    let reclaimed = partita_manager::reclaim_dead_runs(dry_run);
    for r in &reclaimed {
        println!("{}", r.summary(dry_run));
        for p in &r.processes {
            println!("  process {p}");
        }
        for d in &r.directories {
            println!("  {}", d.display());
        }
    }
    if reclaimed.is_empty() {
        println!("nothing to reclaim: no run whose manager is gone left anything");
    }
    if reclaimed.iter().any(|r| !r.failures.is_empty()) {
        return ExitStatus::PartitionFailure;
    }
    ExitStatus::Success
}

fn hm_log(file: &std::path::Path, json: bool) -> ExitStatus {
    use partita_manager::hm::logbook;
    let records = match logbook::read_log(file) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("partita: {e}");
            return ExitStatus::FileError;
        }
    };
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&records).unwrap_or_default()
        );
    } else {
        for r in &records {
            println!("{}", logbook::render_record(r));
        }
        eprintln!("{} records", records.len());
    }
    ExitStatus::Success
}

/// `partita cc`: with a compilation, the C compiler's own exit status.
fn cc_cmd(print_flags: bool, pkg_config: bool, args: &[String]) -> ExitCode {
    let r = if print_flags {
        cc::flags().map(|(c, l)| {
            println!("{c}");
            println!("{l}");
            ExitStatus::Success.into()
        })
    } else if pkg_config {
        cc::pkg_config().map(|t| {
            print!("{t}");
            ExitStatus::Success.into()
        })
    } else {
        cc::compile(args).map(|c| ExitCode::from(c.clamp(0, 255) as u8))
    };
    r.unwrap_or_else(|e| {
        eprintln!("partita cc: {e}");
        ExitStatus::CannotRun.into()
    })
}

/// `partita bench soak`: the embedded flagship unless a module is given, run by this very
/// executable.
fn soak(
    file: Option<PathBuf>,
    duration: Duration,
    interval: Duration,
    out: Option<PathBuf>,
) -> ExitStatus {
    let module = match file.map_or_else(embedded::materialise, Ok) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("partita: preparing the embedded module: {e}");
            return ExitStatus::CannotRun;
        }
    };
    let partita = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("partita: locating the partita executable: {e}");
            return ExitStatus::CannotRun;
        }
    };
    let out = out.unwrap_or_else(|| partita_bench::default_json_path("soak").with_extension(""));
    bench::soak(&partita_bench::SoakOptions {
        partita,
        module,
        duration,
        interval,
        warm_up: interval.min(Duration::from_secs(5)),
        out_dir: out,
    })
}
