// SPDX-License-Identifier: MIT OR Apache-2.0
//! Fixed-size latency histograms: constant memory however long a module runs, about 1.5 %
//! relative precision, exact min, max and count.

use serde::Serialize;

const SUB: u32 = 64; // sub-buckets per power of two
const SUB_BITS: u32 = 6;
const BUCKETS: usize = (SUB + (64 - SUB_BITS) * SUB) as usize;

/// A log-linear histogram of nanosecond values.
#[derive(Clone)]
pub struct Histogram {
    counts: Box<[u64]>,
    count: u64,
    min: u64,
    max: u64,
    sum: u128,
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Histogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Histogram({:?})", self.summary())
    }
}

fn index(v: u64) -> usize {
    if v < SUB as u64 {
        return v as usize;
    }
    let e = 63 - v.leading_zeros(); // >= SUB_BITS
    let m = (v >> (e - SUB_BITS)) & (SUB as u64 - 1);
    (SUB + (e - SUB_BITS) * SUB) as usize + m as usize
}

fn lower_bound(i: usize) -> u64 {
    if i < SUB as usize {
        return i as u64;
    }
    let k = i - SUB as usize;
    let e = (k / SUB as usize) as u32 + SUB_BITS;
    let m = (k % SUB as usize) as u64;
    (1u64 << e) | (m << (e - SUB_BITS))
}

impl Histogram {
    /// An empty histogram.
    pub fn new() -> Self {
        Histogram {
            counts: vec![0; BUCKETS].into_boxed_slice(),
            count: 0,
            min: u64::MAX,
            max: 0,
            sum: 0,
        }
    }

    /// Records one value.
    pub fn record(&mut self, v: u64) {
        self.counts[index(v)] += 1;
        self.count += 1;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        self.sum += v as u128;
    }

    /// Adds every value of `other`.
    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += b;
        }
        self.count += other.count;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.sum += other.sum;
    }

    /// Number of values.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The value at quantile `q` (0..=1): the lower bound of its bucket, clamped to
    /// `[min, max]`.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return lower_bound(i).clamp(self.min, self.max);
            }
        }
        self.max
    }

    /// min / median / p99 / p99.9 / max / mean.
    pub fn summary(&self) -> Summary {
        if self.count == 0 {
            return Summary::default();
        }
        Summary {
            count: self.count,
            min: self.min,
            median: self.quantile(0.5),
            p99: self.quantile(0.99),
            p999: self.quantile(0.999),
            max: self.max,
            mean: (self.sum / self.count as u128) as u64,
        }
    }
}

/// Summary figures of a histogram, in ns.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct Summary {
    /// Number of samples.
    pub count: u64,
    /// Minimum.
    pub min: u64,
    /// Median.
    pub median: u64,
    /// 99th percentile.
    pub p99: u64,
    /// 99.9th percentile.
    pub p999: u64,
    /// Maximum.
    pub max: u64,
    /// Mean.
    pub mean: u64,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let us = |v: u64| v as f64 / 1000.0;
        write!(
            f,
            "min {:.1} / med {:.1} / p99 {:.1} / p99.9 {:.1} / max {:.1} us (n={})",
            us(self.min),
            us(self.median),
            us(self.p99),
            us(self.p999),
            us(self.max),
            self.count
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_monotone_and_tight() {
        let mut last = 0;
        for v in (0..5_000_000u64).step_by(977) {
            let i = index(v);
            assert!(i >= last);
            last = i;
            let lb = lower_bound(i);
            assert!(lb <= v, "{lb} > {v}");
            assert!(v - lb <= v / 60 + 1, "bucket too wide at {v}");
        }
    }

    #[test]
    fn quantiles() {
        let mut h = Histogram::new();
        for v in 1..=1000u64 {
            h.record(v * 1000);
        }
        let s = h.summary();
        assert_eq!(s.min, 1000);
        assert_eq!(s.max, 1_000_000);
        assert!((490_000..=500_000).contains(&s.median), "{}", s.median);
        assert!((975_000..=990_000).contains(&s.p99), "{}", s.p99);
        let mut g = Histogram::new();
        g.merge(&h);
        assert_eq!(g.summary(), s);
    }
}
