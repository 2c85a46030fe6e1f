// SPDX-License-Identifier: MIT OR Apache-2.0
//! Figures from the manager's histograms (the bench's own samples give
//! [`Figures::of`](partita_bench_protocol::Figures::of)).

pub use partita_bench_protocol::Figures;

/// From the manager's unsigned histogram summary.
pub(crate) fn from_summary(s: &partita_manager::stats::Summary) -> Figures {
    let c = |v: u64| v.min(i64::MAX as u64) as i64;
    Figures {
        count: s.count,
        min: c(s.min),
        median: c(s.median),
        p99: c(s.p99),
        p999: c(s.p999),
        max: c(s.max),
        mean: c(s.mean),
    }
}
