// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita bench ports`: the ports both partitions and the bench's plan name, and the result
//! files the partitions write and the bench reads.

use crate::Figures;
use serde::{Deserialize, Serialize};

/// Message sizes measured, each with a sampling and a queuing channel looped back to `P`.
pub const SIZES: &[usize] = &[16, 64, 1024, 4096];
/// Operations per size, in the order `P` times them.
pub const OPS: &[&str] = &[
    "floor publish",
    "floor fetch",
    "slots write (no service)",
    "slots read (no service)",
    "WRITE_SAMPLING_MESSAGE",
    "READ_SAMPLING_MESSAGE",
    "SEND_QUEUING_MESSAGE",
    "RECEIVE_QUEUING_MESSAGE",
    "time stamp (GET_TIME)",
    "time stamp (TSC)",
    "time stamp (coarse clock)",
    "slots write + coarse stamp",
    "slots read + coarse age",
    "slots write + time word",
    "slots read + time-word age",
];
/// Depth of the loop-back queues (it must hold a timed batch of sends).
pub const QUEUE_DEPTH: usize = 64;
/// Discarded calls before the measurement.
pub const WARMUP: usize = 1_000;
/// The latency channel from `P` to `L`: source port, destination port, message size, depth.
pub const LATENCY_SOURCE: &str = "LAT_OUT";
/// See [`LATENCY_SOURCE`].
pub const LATENCY_DESTINATION: &str = "LAT_IN";
/// See [`LATENCY_SOURCE`].
pub const LATENCY_MESSAGE_SIZE: usize = 16;
/// See [`LATENCY_SOURCE`].
pub const LATENCY_DEPTH: usize = 8;

/// Which end of a loop-back channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The source port.
    Out,
    /// The destination port.
    In,
}

fn port_name(prefix: char, size: usize, end: End) -> String {
    let end = match end {
        End::Out => "OUT",
        End::In => "IN",
    };
    format!("{prefix}{size}_{end}")
}

/// The name of one end of the sampling loop-back channel for `size` bytes.
pub fn sampling_port(size: usize, end: End) -> String {
    port_name('S', size, end)
}

/// The name of one end of the queuing loop-back channel for `size` bytes.
pub fn queuing_port(size: usize, end: End) -> String {
    port_name('Q', size, end)
}

/// Figures of one operation at one size, as `P` measured them (and as the bench reports them).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PortRow {
    /// One of [`OPS`].
    pub op: String,
    /// Message size, bytes.
    pub size: usize,
    /// ns per call, less the timing pair.
    pub figures: Figures,
    /// ns per call from batches of calls timed together (median over the batches of the mean
    /// per call, less the timing pair): below the clock's resolution; the targets use it.
    pub batched_ns: f64,
    /// Calls dropped because they touched a window edge.
    pub dropped: u64,
    /// Calls that failed.
    pub errors: u64,
}

/// What one partition of `bench ports` reports (a set-up failure in `error`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PortsResult {
    /// Set-up failure.
    pub error: Option<String>,
    /// `P`: cost of an empty timing pair (two GET_TIME).
    pub pair: Option<Figures>,
    /// `P`: per operation and size.
    pub rows: Vec<PortRow>,
    /// `L`: (send → receive, window start → receive).
    pub latency: Option<(Figures, Figures)>,
    /// `P`: where GET_TIME (and so the stamps) read the time from during the measurement.
    pub time_source: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loop_back_port_names() {
        assert_eq!(sampling_port(16, End::Out), "S16_OUT");
        assert_eq!(queuing_port(4096, End::In), "Q4096_IN");
    }
}
