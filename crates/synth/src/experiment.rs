// SPDX-License-Identifier: MIT OR Apache-2.0
//! The synthesis experiment: random process sets (UUniFast utilisations, harmonic and
//! non-harmonic periods, 2–8 partitions of 1–10 processes) at total utilisations 0.1–1.0, the
//! schedulable ratio and partition switches per frame of each algorithm, every accepted
//! schedule re-verified by the checker.

use crate::checker::{self, CheckedPartition, HostReserve};
use crate::model::{deadline_monotonic, PartitionTasks, Task, TaskSet};
use crate::svg::{two_panels, Series};
use crate::{synthesize, Algorithm, Params};
use partita_config::model::Criticality;
use partita_schedule::Nanos;
use serde::Serialize;

/// Harmonic period choices (ms).
pub const HARMONIC_MS: [u64; 4] = [10, 20, 40, 80];
/// Non-harmonic period choices (ms); hyperperiod 200 ms.
pub const NON_HARMONIC_MS: [u64; 6] = [10, 20, 25, 40, 50, 100];

/// Experiment options.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Options {
    /// Sets per utilisation level (half harmonic, half not).
    pub sets: usize,
    /// Random seed.
    pub seed: u64,
    /// Switch cost and host reserve.
    pub params: Params,
}

/// SplitMix64: a tiny, seedable generator (reproducible sets without a dependency).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as usize
    }
}

/// UUniFast (Bini and Buttazzo): `n` utilisations summing to `total`, uniformly distributed.
pub fn uunifast(rng: &mut Rng, n: usize, total: f64) -> Vec<f64> {
    let mut out = Vec::with_capacity(n);
    let mut sum = total;
    for i in 1..n {
        let next = sum * rng.unit().powf(1.0 / (n - i) as f64);
        out.push(sum - next);
        sum = next;
    }
    out.push(sum);
    out
}

/// A random single-core task set of total utilisation `u`.
pub fn random_set(rng: &mut Rng, u: f64, harmonic: bool) -> TaskSet {
    let nparts = rng.range(2, 8);
    let counts: Vec<usize> = (0..nparts).map(|_| rng.range(1, 10)).collect();
    let total: usize = counts.iter().sum();
    let utils = uunifast(rng, total, u);
    let choices: &[u64] = if harmonic {
        &HARMONIC_MS
    } else {
        &NON_HARMONIC_MS
    };
    let mut k = 0;
    let mut partitions = Vec::new();
    for (pi, &c) in counts.iter().enumerate() {
        let mut tasks = Vec::new();
        for ti in 0..c {
            let period: Nanos = choices[rng.range(0, choices.len() - 1)] * 1_000_000;
            let wcet = ((utils[k] * period as f64).round() as Nanos).clamp(1_000, period);
            k += 1;
            tasks.push(Task {
                name: format!("t{ti}"),
                period,
                wcet,
                deadline: period,
                priority: 0,
            });
        }
        deadline_monotonic(&mut tasks);
        partitions.push(PartitionTasks {
            index: pi,
            id: pi as u32 + 1,
            name: format!("P{}", pi + 1),
            criticality: Criticality::VALUES[rng.range(0, 4)].1,
            cores: Vec::new(),
            tasks,
        });
    }
    TaskSet {
        partitions,
        cores: vec![0],
    }
}

/// Figures of one algorithm at one utilisation.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    /// Algorithm.
    pub algorithm: Algorithm,
    /// Sets accepted.
    pub accepted: usize,
    /// `accepted / sets`.
    pub ratio: f64,
    /// Mean partition switches per frame over the accepted sets (NaN: none).
    pub mean_switches: f64,
    /// Accepted schedules the checker rejected (must be 0).
    pub checker_rejected: usize,
}

/// One utilisation level.
#[derive(Debug, Clone, Serialize)]
pub struct Level {
    /// Total utilisation.
    pub utilisation: f64,
    /// Sets generated.
    pub sets: usize,
    /// Per algorithm, in [`Algorithm::ALL`] order.
    pub cells: Vec<Cell>,
}

/// One target check.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// What is checked.
    pub name: String,
    /// Whether it holds.
    pub pass: bool,
    /// Figures behind it.
    pub detail: String,
}

/// The experiment's result.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    /// Options used.
    pub options: Options,
    /// Levels 0.1 .. 1.0.
    pub levels: Vec<Level>,
    /// Mean switches per frame over the sets every algorithm accepted, per algorithm.
    pub common_mean_switches: Vec<(Algorithm, f64)>,
    /// Sets accepted by every algorithm.
    pub common_sets: usize,
    /// How often each construction won in `ours` (accepted sets).
    pub ours_variants: Vec<(String, usize)>,
    /// The target checks.
    pub checks: Vec<Check>,
}

/// Runs the experiment.
pub fn run(opts: &Options) -> Outcome {
    let mut rng = Rng::new(opts.seed);
    let mut levels = Vec::new();
    let mut common: Vec<Vec<usize>> = vec![Vec::new(); Algorithm::ALL.len()];
    let mut per_set: Vec<[Option<usize>; 3]> = Vec::new();
    let mut variants: Vec<(String, usize)> = Vec::new();
    for step in 1..=10 {
        let u = step as f64 / 10.0;
        let mut acc = [0usize; 3];
        let mut sw = [0usize; 3];
        let mut rejected = [0usize; 3];
        for n in 0..opts.sets {
            let set = random_set(&mut rng, u, n % 2 == 0);
            let mut got: [Option<usize>; 3] = [None; 3];
            for (a, alg) in Algorithm::ALL.iter().enumerate() {
                let Ok(syn) = synthesize(&set, *alg, &opts.params) else {
                    continue;
                };
                let parts: Vec<CheckedPartition> = set
                    .partitions
                    .iter()
                    .map(|p| CheckedPartition {
                        index: p.index,
                        name: &p.name,
                        tasks: &p.tasks,
                    })
                    .collect();
                let reserves: Vec<HostReserve> = syn
                    .cores
                    .iter()
                    .map(|&(core, period, reserve)| HostReserve {
                        core,
                        period,
                        reserve,
                    })
                    .collect();
                let verdict = checker::check(&syn.plan, &parts, syn.switch_cost, &reserves);
                if !verdict.ok() {
                    rejected[a] += 1;
                    continue;
                }
                let s: usize = syn
                    .cores
                    .iter()
                    .map(|c| crate::report::plan_switches(&syn, c.0))
                    .sum();
                acc[a] += 1;
                sw[a] += s;
                if *alg == Algorithm::Ours {
                    for (_, v) in &syn.variants {
                        match variants.iter_mut().find(|x| &x.0 == v) {
                            Some(x) => x.1 += 1,
                            None => variants.push((v.clone(), 1)),
                        }
                    }
                }
                got[a] = Some(s);
            }
            per_set.push(got);
            if got.iter().all(Option::is_some) {
                for (a, g) in got.iter().enumerate() {
                    common[a].push(g.unwrap_or(0));
                }
            }
        }
        levels.push(Level {
            utilisation: u,
            sets: opts.sets,
            cells: Algorithm::ALL
                .iter()
                .enumerate()
                .map(|(a, &algorithm)| Cell {
                    algorithm,
                    accepted: acc[a],
                    ratio: acc[a] as f64 / opts.sets.max(1) as f64,
                    mean_switches: if acc[a] == 0 {
                        f64::NAN
                    } else {
                        sw[a] as f64 / acc[a] as f64
                    },
                    checker_rejected: rejected[a],
                })
                .collect(),
        });
    }
    let common_sets = common[0].len();
    let common_mean_switches: Vec<(Algorithm, f64)> = Algorithm::ALL
        .iter()
        .enumerate()
        .map(|(a, &alg)| {
            let v = &common[a];
            (
                alg,
                if v.is_empty() {
                    f64::NAN
                } else {
                    v.iter().sum::<usize>() as f64 / v.len() as f64
                },
            )
        })
        .collect();
    let prm = idx(Algorithm::Prm);
    let pairwise: Vec<(Algorithm, f64, f64, usize)> = [Algorithm::Seed, Algorithm::Ours]
        .into_iter()
        .map(|cand| {
            let c = idx(cand);
            let both: Vec<(usize, usize)> = per_set
                .iter()
                .filter_map(|g| Some((g[c]?, g[prm]?)))
                .collect();
            let n = both.len().max(1) as f64;
            (
                cand,
                both.iter().map(|b| b.0).sum::<usize>() as f64 / n,
                both.iter().map(|b| b.1).sum::<usize>() as f64 / n,
                both.len(),
            )
        })
        .collect();
    // Share of the core the host reserve takes (the smallest period in the sets is 10 ms).
    let reserve_share = opts.params.reserve(10_000_000) as f64 / 10_000_000.0;
    let checks = target_checks(&levels, &pairwise, reserve_share);
    Outcome {
        options: *opts,
        levels,
        common_mean_switches,
        common_sets,
        ours_variants: variants,
        checks,
    }
}

fn idx(alg: Algorithm) -> usize {
    Algorithm::ALL.iter().position(|&a| a == alg).unwrap_or(0)
}

fn target_checks(
    levels: &[Level],
    pairwise: &[(Algorithm, f64, f64, usize)],
    reserve_share: f64,
) -> Vec<Check> {
    let prm = idx(Algorithm::Prm);
    let mut checks = Vec::new();
    for cand in [Algorithm::Seed, Algorithm::Ours] {
        let c = idx(cand);
        let ge: Vec<String> = levels
            .iter()
            .filter(|l| l.cells[c].accepted < l.cells[prm].accepted)
            .map(|l| format!("{:.1}", l.utilisation))
            .collect();
        checks.push(Check {
            name: format!("{cand} accepts >= prm at every utilisation"),
            pass: ge.is_empty(),
            detail: if ge.is_empty() {
                "holds at every level".into()
            } else {
                format!("fewer at {}", ge.join(", "))
            },
        });
        for l in levels.iter().filter(|l| l.utilisation > 0.65) {
            let (a, b) = (l.cells[c].accepted, l.cells[prm].accepted);
            let note = if l.utilisation + reserve_share > 1.0 + 1e-9 {
                " (no table can exist: demand plus host reserve exceed the core)"
            } else {
                ""
            };
            checks.push(Check {
                name: format!("{cand} accepts > prm at U={:.1}", l.utilisation),
                pass: a > b,
                detail: format!("{a} vs {b} of {}{note}", l.sets),
            });
        }
        if let Some(&(_, mc, mp, n)) = pairwise.iter().find(|p| p.0 == cand) {
            checks.push(Check {
                name: format!("{cand} switches per frame <= prm (sets both accept)"),
                pass: n > 0 && mc <= mp,
                detail: format!("{mc:.1} vs {mp:.1} over {n} sets"),
            });
        }
    }
    checks
}

/// Text rendering: the table and the checks.
pub fn render(o: &Outcome) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "schedulable ratio (mean switches per frame over accepted sets); {} sets per level, seed {}, switch cost {} ns, host reserve {}",
        o.options.sets,
        o.options.seed,
        o.options.params.switch_cost,
        o.options.params.host_reserve.map_or("5% of the micro-period".to_string(), |h| format!("{h} ns per micro-period"))
    );
    let _ = write!(s, "{:>5}", "U");
    for a in Algorithm::ALL {
        let _ = write!(s, " {:>18}", a.name());
    }
    s.push('\n');
    for l in &o.levels {
        let _ = write!(s, "{:>5.1}", l.utilisation);
        for c in &l.cells {
            let _ = write!(s, " {:>8.2} ({:>6.1})", c.ratio, c.mean_switches);
        }
        s.push('\n');
    }
    let _ = write!(
        s,
        "mean switches per frame over the {} sets every algorithm accepts:",
        o.common_sets
    );
    for (a, m) in &o.common_mean_switches {
        let _ = write!(s, " {a} {m:.1}");
    }
    s.push('\n');
    let _ = write!(s, "ours chose:");
    for (v, n) in &o.ours_variants {
        let _ = write!(s, " {v} {n};");
    }
    s.push('\n');
    let rejected: usize = o
        .levels
        .iter()
        .flat_map(|l| l.cells.iter())
        .map(|c| c.checker_rejected)
        .sum();
    let _ = writeln!(
        s,
        "checker: {rejected} generated schedule(s) rejected (every accepted schedule is re-verified)"
    );
    for c in &o.checks {
        let _ = writeln!(
            s,
            "{} {}: {}",
            if c.pass { "PASS" } else { "MISS" },
            c.name,
            c.detail
        );
    }
    s
}

/// The two-panel SVG plot.
pub fn plot(o: &Outcome) -> String {
    let xs: Vec<f64> = o.levels.iter().map(|l| l.utilisation).collect();
    let series = |f: &dyn Fn(&Cell) -> f64| -> Vec<Series> {
        Algorithm::ALL
            .iter()
            .enumerate()
            .map(|(a, alg)| Series {
                name: alg.name().to_string(),
                values: o.levels.iter().map(|l| f(&l.cells[a])).collect(),
            })
            .collect()
    };
    let ratio = series(&|c| c.ratio);
    let switches = series(&|c| c.mean_switches);
    two_panels(
        &format!(
            "partita schedule --experiment: {} sets per level, seed {}",
            o.options.sets, o.options.seed
        ),
        &xs,
        "total utilisation",
        ("schedulable ratio", &ratio),
        (
            "partition switches per major frame (accepted sets)",
            &switches,
        ),
    )
}
