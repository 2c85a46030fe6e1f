// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita bench sfp`: the result file of its partition (the command line is
//! [`crate::args::ApexPartitionArgs`], the same as `bench apex`'s partition's).

use serde::{Deserialize, Serialize};

/// SFPBench's groups.
pub const GREY_BOX: &str = "grey-box";
/// See [`GREY_BOX`].
pub const APPLICATION: &str = "application";
/// See [`GREY_BOX`]: single APEX calls.
pub const APEX_CALL: &str = "apex-call";

/// The samples of one test.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SfpRow {
    /// SFPBench's name of the test.
    pub name: String,
    /// [`GREY_BOX`], [`APEX_CALL`] or [`APPLICATION`].
    pub group: String,
    /// What one sample spans.
    pub what: String,
    /// One per run, ns (less the median timing pair).
    pub samples: Vec<i64>,
    /// Runs dropped because they touched a window edge.
    pub dropped: u64,
    /// Runs whose result was wrong or whose calls failed.
    pub errors: u64,
}

/// Everything the partition of `bench sfp` reports (a set-up failure in `error`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SfpResult {
    /// Set-up failure.
    pub error: Option<String>,
    /// One per test.
    pub rows: Vec<SfpRow>,
    /// Errors and remarks.
    pub notes: Vec<String>,
}

/// The sampling port the CRC partition writes (SAMPLE APEX APP A).
pub const EXCHANGE_SOURCE: &str = "sfp-crc-out";
/// The sampling port the matrix partition reads (SAMPLE APEX APP B).
pub const EXCHANGE_DESTINATION: &str = "sfp-crc-in";
/// Data bytes in each exchanged message (after an 8-byte sequence number and a 4-byte CRC).
pub const EXCHANGE_DATA: usize = 256;
/// The whole message.
pub const EXCHANGE_MESSAGE: usize = 12 + EXCHANGE_DATA;
