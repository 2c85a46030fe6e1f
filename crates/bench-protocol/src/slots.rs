// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita bench slots`: the result file of its counting partitions.

use serde::{Deserialize, Serialize};

/// What a counting partition reports (a set-up failure in `error`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SlotsResult {
    /// Set-up failure.
    pub error: Option<String>,
    /// Per window (from the first of the run): loop iterations counted in it.
    pub counts: Vec<u64>,
    /// Per window: the last clock check less the first, ns (0: the window saw fewer than
    /// two).
    pub effective_ns: Vec<i64>,
    /// Clock checks that fell outside the partition's window (it ran past its end).
    pub outside: u64,
    /// Iterations between two clock checks.
    pub chunk: u64,
}
