// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita bench apex`: the result file the partition writes and the bench reads, and what
//! both sides of the bench measure the same way.

use crate::Figures;
use serde::{Deserialize, Serialize};

/// Discarded calls (or hand-offs) before each measurement, in the partition and in the bare
/// floor the bench measures itself.
pub const WARMUP: usize = 1_000;
/// Priority of the measuring process (the low-priority side of the hand-offs).
pub const LOW_PRIORITY: i32 = 10;
/// Priority of the process woken by the hand-offs.
pub const HIGH_PRIORITY: i32 = 20;

/// Latency of one service, as the partition measured it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ServiceResult {
    /// The APEX service.
    pub service: String,
    /// An identity or status service (the 100 ns target).
    pub query: bool,
    /// What was measured, when not obvious.
    pub condition: String,
    /// Per-call latency, ns, less the median timing pair.
    pub figures: Figures,
    /// Calls dropped because they touched a window edge.
    pub dropped: u64,
    /// Calls that returned an error.
    pub errors: u64,
}

/// One hand-off measure of the partition.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HandoffResult {
    /// e.g. `SIGNAL_SEMAPHORE -> WAIT_SEMAPHORE`.
    pub label: String,
    /// `true`: from the waking call to the woken process; `false`: from the blocking call to
    /// the waker.
    pub wake: bool,
    /// ns, less the median timing pair.
    pub figures: Figures,
    /// Samples dropped at window edges.
    pub dropped: u64,
}

/// Everything the partition of `bench apex` reports (a set-up failure in `error`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ApexResult {
    /// Set-up failure.
    pub error: Option<String>,
    /// Cost of an empty timing pair in the partition.
    pub pair: Figures,
    /// Per service.
    pub services: Vec<ServiceResult>,
    /// Semaphore and event hand-offs, wake and block each.
    pub handoffs: Vec<HandoffResult>,
    /// Whether the runtime lowers a parked process thread's priority.
    pub park_lowering: Option<bool>,
    /// Errors and remarks.
    pub notes: Vec<String>,
}

/// `CLOCK_MONOTONIC`, ns, as the signed instants both sides time with.
#[inline(always)]
pub fn now() -> i64 {
    partita_sys::time::monotonic_ns() as i64
}

/// The cost of an empty timing pair ([`now`] twice), `n` samples after [`WARMUP`] readings.
pub fn empty_timing_pair(n: usize) -> Figures {
    let mut v = Vec::with_capacity(n);
    for _ in 0..WARMUP {
        std::hint::black_box(now());
    }
    for _ in 0..n {
        let t0 = now();
        let t1 = now();
        v.push(t1 - t0);
    }
    Figures::of(&mut v)
}
