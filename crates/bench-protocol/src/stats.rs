// SPDX-License-Identifier: MIT OR Apache-2.0
//! Exact order statistics of signed nanosecond samples.

use serde::{Deserialize, Serialize};

/// min / median / p99 / p99.9 / max / mean of a set of samples, in ns (nearest-rank
/// quantiles, like the manager's histograms).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct Figures {
    /// Number of samples.
    pub count: u64,
    /// Minimum.
    pub min: i64,
    /// Median.
    pub median: i64,
    /// 99th percentile.
    pub p99: i64,
    /// 99.9th percentile.
    pub p999: i64,
    /// Maximum.
    pub max: i64,
    /// Mean.
    pub mean: i64,
}

/// The nearest-rank `p` quantile (0 < p <= 1) of `sorted` (ascending, not empty).
pub fn nearest_rank(sorted: &[i64], p: f64) -> i64 {
    let n = sorted.len();
    sorted[(((p * n as f64).ceil() as usize).max(1) - 1).min(n - 1)]
}

impl Figures {
    /// Figures of `samples` (sorted in place).
    pub fn of(samples: &mut [i64]) -> Figures {
        if samples.is_empty() {
            return Figures::default();
        }
        samples.sort_unstable();
        let n = samples.len();
        let q = |p: f64| nearest_rank(samples, p);
        Figures {
            count: n as u64,
            min: samples[0],
            median: q(0.5),
            p99: q(0.99),
            p999: q(0.999),
            max: samples[n - 1],
            mean: (samples.iter().map(|&v| v as i128).sum::<i128>() / n as i128) as i64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank() {
        let mut v: Vec<i64> = (1..=1000).rev().collect();
        let f = Figures::of(&mut v);
        assert_eq!(
            (f.min, f.median, f.p99, f.p999, f.max),
            (1, 500, 990, 999, 1000)
        );
        assert_eq!(f.count, 1000);
        let mut w = vec![-5, 3];
        let g = Figures::of(&mut w);
        assert_eq!((g.min, g.median, g.max, g.mean), (-5, -5, 3, -1));
        assert_eq!(Figures::of(&mut []), Figures::default());
    }
}
