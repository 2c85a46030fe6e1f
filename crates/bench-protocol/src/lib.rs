// SPDX-License-Identifier: MIT OR Apache-2.0
//! What the benchmarks of Partita (`partita-bench`, run by the `partita bench` command) share
//! with their partition executables (`partita-bench-partitions`), defined once for both sides:
//!
//! - the names of the executables ([`SWITCH_PARTITION`], [`SPINNER`], [`APEX_PARTITION`],
//!   [`PORTS_PARTITION`], [`OVERHEADS_PARTITION`]), which the bench looks for next to the `partita` executable;
//! - their command lines ([`args`]): the bench writes them with `to_args`, the partition reads
//!   them with `parse`;
//! - the gap log of `bench switch` ([`gap_log`]), a file under `/dev/shm` the bench creates and
//!   the spinners write;
//! - the result files of `bench apex` ([`apex`]), `bench ports` ([`ports`]) and `bench
//!   overheads` ([`overheads`], with the seed study's workload), JSON written by the partition
//!   and read by the bench, and the constants both sides of those benches use;
//! - the order statistics every figure is given in ([`Figures`]).
//!
//! This crate depends on no partition runtime and on no manager: the bench (host side) and the
//! partitions each link it without linking the other side.

pub mod apex;
pub mod args;
pub mod gap_log;
pub mod interference;
pub mod overheads;
pub mod ports;
pub mod sfp;
pub mod slots;
mod stats;

pub use stats::{nearest_rank, Figures};

use serde::Serialize;
use std::path::Path;

/// The partition of `partita bench switch` (APEX processes and a spinner, see `args`).
pub const SWITCH_PARTITION: &str = "partita-bench-switch-partition";
/// The plain spinner process of the bare kernel mechanism in `partita bench switch`.
pub const SPINNER: &str = "partita-bench-spinner";
/// The partition of `partita bench apex`.
pub const APEX_PARTITION: &str = "partita-bench-apex-partition";
/// The two partitions of `partita bench ports`.
pub const PORTS_PARTITION: &str = "partita-bench-ports-partition";
/// The two partitions of `partita bench overheads`.
pub const OVERHEADS_PARTITION: &str = "partita-bench-overheads-partition";
/// The partition of `partita bench sfp`.
pub const SFP_PARTITION: &str = "partita-bench-sfp-partition";
/// The counting partitions of `partita bench slots`.
pub const SLOTS_PARTITION: &str = "partita-bench-slots-partition";
/// The two partitions of SFPBench's two-partition application in `partita bench sfp`.
pub const SFP_EXCHANGE_PARTITION: &str = "partita-bench-sfp-exchange-partition";
/// The real-time partition of `partita bench interference`.
pub const INTERFERENCE_PARTITION: &str = "partita-bench-interference-partition";
/// The general-purpose load of `partita bench interference` (an ordinary program: no APEX).
pub const LOAD: &str = "partita-bench-load";
/// Every benchmark executable.
pub const EXECUTABLES: [&str; 10] = [
    SWITCH_PARTITION,
    SPINNER,
    APEX_PARTITION,
    PORTS_PARTITION,
    OVERHEADS_PARTITION,
    SFP_PARTITION,
    SLOTS_PARTITION,
    SFP_EXCHANGE_PARTITION,
    INTERFERENCE_PARTITION,
    LOAD,
];

/// Writes `value` as JSON to `path` through a temporary file renamed into place, so that the
/// bench, which waits for `path` to appear, never reads half a file.
pub fn write_result<T: Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    let text = serde_json::to_string(value)?;
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}

/// [`write_result`], saying on stderr (which the manager keeps in the partition's log) when
/// it cannot: for the partitions, which have no one else to tell.
pub fn write_result_or_say<T: Serialize>(path: &Path, value: &T) {
    if let Err(e) = write_result(path, value) {
        eprintln!("{}: {e}", path.display());
    }
}
