// SPDX-License-Identifier: MIT OR Apache-2.0
//! The processes the Partita benchmarks measure with, each its own executable so that the
//! privileged `partita` binary links no partition code:
//!
//! | executable | entry | run by |
//! |---|---|---|
//! | `partita-bench-switch-partition` | [`switch::partition_main`] | the manager, in `bench switch` |
//! | `partita-bench-spinner` | [`switch::spinner_main`] | the bench's bare switching loop |
//! | `partita-bench-apex-partition` | [`apex::partition_main`] | the manager, in `bench apex` |
//! | `partita-bench-ports-partition` | [`ports::partition_main`] | the manager, in `bench ports` |
//! | `partita-bench-overheads-partition` | [`overheads::partition_main`] | the manager, in `bench overheads` |
//! | `partita-bench-sfp-partition` | [`sfp::partition_main`] | the manager, in `bench sfp` |
//! | `partita-bench-slots-partition` | [`slots::partition_main`] | the manager, in `bench slots` |
//! | `partita-bench-sfp-exchange-partition` | [`sfp::exchange::partition_main`] | the manager, in `bench sfp` |
//! | `partita-bench-interference-partition` | [`interference::partition_main`] | the manager, in `bench interference` |
//! | `partita-bench-load` | [`interference::load_main`] | the manager, as a general-purpose partition, in `bench interference` |
//!
//! Their command lines, the gap log and the result files are defined once, for them and for the
//! bench, in `partita-bench-protocol`. `partita bench` finds these executables next to its own
//! (where cargo puts every binary of a workspace build).

pub mod apex;
pub mod interference;
pub mod overheads;
pub mod ports;
pub mod sfp;
pub mod slots;
pub mod switch;

use partita_apex::core::ReturnCode;
use partita_bench_protocol::args::ArgsError;
use partita_bench_protocol::gap_log::LogError;
use std::process::ExitCode;

/// Why a benchmark process could not do its work.
#[derive(Debug, thiserror::Error)]
pub enum PartitionError {
    /// Its command line.
    #[error(transparent)]
    Args(#[from] ArgsError),
    /// The gap log.
    #[error(transparent)]
    Log(#[from] LogError),
    /// A system call.
    #[error(transparent)]
    Sys(#[from] partita_sys::SysError),
    /// The partition runtime did not start (not run by the manager, or a bad control block).
    #[error("the partition runtime did not start: {}", why_not_started(*.0))]
    Runtime(Option<&'static partita_apex::runtime::InitError>),
    /// An APEX service refused.
    #[error("{service}: {code:?}")]
    Apex {
        /// The service (and which use of it).
        service: &'static str,
        /// Its return code.
        code: ReturnCode,
    },
    /// SET_PARTITION_MODE(NORMAL) came back to the main thread.
    #[error("SET_PARTITION_MODE(NORMAL) returned")]
    NormalReturned,
}

impl PartitionError {
    /// Maps a return code of `service` (for `map_err`).
    pub(crate) fn apex(service: &'static str) -> impl Fn(ReturnCode) -> PartitionError {
        move |code| PartitionError::Apex { service, code }
    }
}

fn why_not_started(e: Option<&partita_apex::runtime::InitError>) -> String {
    e.map_or_else(|| "no reason given".to_string(), ToString::to_string)
}

/// The partition runtime, or why it did not start.
pub(crate) fn runtime() -> Result<&'static partita_apex::runtime::Runtime, PartitionError> {
    partita_apex::runtime::get()
        .map_err(|_| PartitionError::Runtime(partita_apex::runtime::init_error()))
}

/// Runs `main` with the words after the executable's name; an error is printed (prefixed with
/// `name`) and ends the process with status 1.
pub fn run(name: &str, main: fn(&[String]) -> Result<(), PartitionError>) -> ExitCode {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    match main(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{name}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Waits (at most 200 ms) until the runtime's counter clock is calibrated (10 ms after the
/// manager's seed pair), so that GET_TIME is measured in its steady state.
pub(crate) fn settle_clock() {
    let c = &partita_sys::time::COUNTER_CLOCK;
    let until = partita_sys::time::monotonic_ns() + 200_000_000;
    while c.enabled() && !c.calibrated() && partita_sys::time::monotonic_ns() < until {
        // Readings are what calibrate it.
        std::hint::black_box(partita_apex::apex::time::get_time().ok());
        std::hint::spin_loop();
    }
}
