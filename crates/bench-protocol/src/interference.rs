// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita bench interference`: the result file of its real-time partition and the progress
//! file of its general-purpose load.

use serde::{Deserialize, Serialize};

/// One job of the real-time partition's periodic process. Instants are APEX time (ns since
/// the module epoch).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    /// Its release: the start of its period.
    pub release: i64,
    /// Its first instruction (the return of PERIODIC_WAIT).
    pub start: i64,
    /// Its last instruction (after its fixed work).
    pub finish: i64,
}

/// What the real-time partition reports (a set-up failure in `error`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct InterferenceResult {
    /// Set-up failure.
    pub error: Option<String>,
    /// The recorded jobs, after the warm-up.
    pub jobs: Vec<Job>,
}

/// Jobs the real-time partition leaves out at its start (caches, page faults).
pub const WARMUP_JOBS: usize = 5;

/// What loads the general-purpose partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LoadKind {
    /// Arithmetic in registers: CPU time only.
    Cpu,
    /// Streaming over a buffer much larger than the caches: cache and memory bandwidth.
    Memory,
    /// Writing and syncing files, and sending data through a local TCP connection.
    Io,
}

impl LoadKind {
    /// Every kind.
    pub const ALL: [LoadKind; 3] = [LoadKind::Cpu, LoadKind::Memory, LoadKind::Io];

    /// Its name (command lines, tables).
    pub fn name(self) -> &'static str {
        match self {
            LoadKind::Cpu => "cpu",
            LoadKind::Memory => "memory",
            LoadKind::Io => "io",
        }
    }

    /// What one unit of its work is.
    pub fn unit(self) -> &'static str {
        match self {
            LoadKind::Cpu => "million iterations",
            LoadKind::Memory => "MiB streamed",
            LoadKind::Io => "MiB written or sent",
        }
    }
}

impl std::fmt::Display for LoadKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for LoadKind {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        LoadKind::ALL.into_iter().find(|k| k.name() == s).ok_or(())
    }
}

/// What the load reports, rewritten every [`PROGRESS_EVERY_MS`] (it runs until the module
/// stops, so its last report is its total less at most that).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct LoadProgress {
    /// Set-up failure.
    pub error: Option<String>,
    /// Units of work done so far ([`LoadKind::unit`]).
    pub units: u64,
    /// `CLOCK_MONOTONIC` of the first and the latest report, ns.
    pub first_ns: u64,
    /// See `first_ns`.
    pub last_ns: u64,
}

/// How often the load rewrites its progress file, ms.
pub const PROGRESS_EVERY_MS: u64 = 100;
