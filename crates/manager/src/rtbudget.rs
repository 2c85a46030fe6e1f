// SPDX-License-Identifier: MIT OR Apache-2.0
//! The kernel's real-time throttling budget during a run (`partita run --rt-budget`).
//!
//! Linux lets real-time tasks use `sched_rt_runtime_us` of every `sched_rt_period_us`
//! (950000 of 1000000 by default) and throttles them for the rest: a schedule whose windows
//! fill a core loses that rest (45-52 ms once a second measured) in one hole, the windows in
//! it are lost and the boundaries in it missed. A dedicated machine may lift the budget for
//! the run ([`RtBudget::Unlimited`]): the manager writes it when the run is set up and writes
//! the value it found back when the run ends (also on SIGINT/SIGTERM, which the CLI turns into
//! a clean stop, and from the clean-up guard process if the manager itself dies). Without
//! the opt-in the budget is left as found, and a run whose schedule leaves a core less idle
//! time than the budget's share gets a warning saying so and how to opt in
//! ([`short_cores`]).

use partita_schedule::FramePlan;
use std::path::{Path, PathBuf};

/// The file holding the budget.
pub const RT_RUNTIME_FILE: &str = "/proc/sys/kernel/sched_rt_runtime_us";
/// The kernel's default budget, us of every period.
pub const KERNEL_DEFAULT_RUNTIME_US: i64 = 950_000;

/// What a run does with the real-time throttling budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RtBudget {
    /// Leave it as found (and warn when the schedule does not fit in it).
    #[default]
    Keep,
    /// No throttling during the run (`sched_rt_runtime_us` = -1), restored at the end.
    Unlimited,
    /// The kernel's default (950000 us of each period) during the run, restored at the end.
    KernelDefault,
}

impl RtBudget {
    /// The value written for the run (`None`: nothing written).
    pub fn runtime_us(self) -> Option<i64> {
        match self {
            RtBudget::Keep => None,
            RtBudget::Unlimited => Some(-1),
            RtBudget::KernelDefault => Some(KERNEL_DEFAULT_RUNTIME_US),
        }
    }
}

/// A budget name `--rt-budget` does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown real-time budget `{0}`: expected keep, unlimited or default")]
pub struct UnknownRtBudget(pub String);

impl std::str::FromStr for RtBudget {
    type Err = UnknownRtBudget;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "keep" => Ok(RtBudget::Keep),
            "unlimited" => Ok(RtBudget::Unlimited),
            "default" => Ok(RtBudget::KernelDefault),
            other => Err(UnknownRtBudget(other.to_string())),
        }
    }
}

/// Why the budget could not be set for the run.
#[derive(Debug, thiserror::Error)]
pub enum RtBudgetError {
    /// Reading or writing the budget file failed (not root, no such file, a value the kernel
    /// refuses).
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The file does not hold a number.
    #[error("{}: not a number: {text:?}", path.display())]
    NotANumber {
        /// The file.
        path: PathBuf,
        /// What it holds.
        text: String,
    },
}

/// The budget set for a run: writes the value found back when dropped.
#[derive(Debug)]
pub struct RtBudgetRestore {
    path: PathBuf,
    previous: i64,
    /// Set to the value found once written back (or when nothing was changed).
    restored: bool,
}

impl RtBudgetRestore {
    /// The value found, written back at the end.
    pub fn previous(&self) -> i64 {
        self.previous
    }

    /// The budget file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the value found back now; an error is returned once (and not retried on drop).
    pub fn restore(&mut self) -> Result<(), RtBudgetError> {
        if self.restored {
            return Ok(());
        }
        self.restored = true;
        write(&self.path, self.previous)
    }
}

impl Drop for RtBudgetRestore {
    fn drop(&mut self) {
        let _ = self.restore();
    }
}

fn read(path: &Path) -> Result<i64, RtBudgetError> {
    let text = std::fs::read_to_string(path).map_err(|source| RtBudgetError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    text.trim().parse().map_err(|_| RtBudgetError::NotANumber {
        path: path.to_path_buf(),
        text: text.trim().to_string(),
    })
}

fn write(path: &Path, value: i64) -> Result<(), RtBudgetError> {
    std::fs::write(path, format!("{value}\n")).map_err(|source| RtBudgetError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Sets `budget` in the budget file `path` for the run; `None` for [`RtBudget::Keep`] or when
/// the file already holds the value (nothing to restore).
pub fn apply_at(path: &Path, budget: RtBudget) -> Result<Option<RtBudgetRestore>, RtBudgetError> {
    let Some(value) = budget.runtime_us() else {
        return Ok(None);
    };
    let previous = read(path)?;
    if previous == value {
        return Ok(None);
    }
    write(path, value)?;
    Ok(Some(RtBudgetRestore {
        path: path.to_path_buf(),
        previous,
        restored: false,
    }))
}

/// [`apply_at`] on the kernel's file.
pub fn apply(budget: RtBudget) -> Result<Option<RtBudgetRestore>, RtBudgetError> {
    apply_at(Path::new(RT_RUNTIME_FILE), budget)
}

/// A core whose schedule leaves less idle time than the real-time budget's share.
#[derive(Debug, Clone, PartialEq)]
pub struct ShortCore {
    /// The core.
    pub core: u32,
    /// The part of its major frame covered by windows.
    pub busy: f64,
    /// The part of every period real-time tasks may use.
    pub budget: f64,
    /// What throttling takes from it per second, ns (at most the period's rest).
    pub lost_ns_per_s: u64,
}

impl std::fmt::Display for ShortCore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "core {}: windows fill {:.1}% of the major frame but real-time throttling lets real-time tasks use only {:.1}% of each period: up to {:.0} ms a second are lost in one hole (its windows cut, their boundaries missed); on a dedicated machine `partita run --rt-budget unlimited` lifts the budget for the run, or leave {:.1}% of the core idle",
            self.core,
            100.0 * self.busy,
            100.0 * self.budget,
            self.lost_ns_per_s as f64 / 1e6,
            100.0 * (1.0 - self.budget)
        )
    }
}

/// The cores of `frames` (every module schedule) whose windows leave less idle time than
/// the budget `(runtime_us, period_us)` lets real-time tasks have; none when throttling is
/// off (runtime -1, or at least the period). The scheduler's own spin and switch work at each
/// boundary are real-time work too, left out here: a core reported is short in any case.
pub fn short_cores(frames: &[&FramePlan], throttle: Option<(i64, i64)>) -> Vec<ShortCore> {
    let Some((runtime, period)) = throttle else {
        return Vec::new();
    };
    if runtime < 0 || period <= 0 || runtime >= period {
        return Vec::new();
    }
    let budget = runtime as f64 / period as f64;
    let mut out: Vec<ShortCore> = Vec::new();
    for plan in frames {
        let mut cores: Vec<u32> = plan.windows.iter().map(|w| w.core).collect();
        cores.sort_unstable();
        cores.dedup();
        for core in cores {
            let mf = plan.major_frame.max(1);
            let mut spans: Vec<(u64, u64)> = plan
                .windows
                .iter()
                .filter(|w| w.core == core && w.offset < mf)
                .map(|w| (w.offset, (w.offset + w.duration).min(mf)))
                .collect();
            spans.sort_unstable();
            let mut covered = 0u64;
            let mut reach = 0u64;
            for (a, b) in spans {
                let a = a.max(reach);
                if b > a {
                    covered += b - a;
                    reach = b;
                }
            }
            let busy = covered as f64 / mf as f64;
            // covered / mf > runtime / period, in integers.
            let (c, m, r, p) = (
                u128::from(covered),
                u128::from(mf),
                runtime as u128,
                period as u128,
            );
            if c * p <= r * m {
                continue;
            }
            // (covered / mf - runtime / period) of each second, at most its rest.
            let lost =
                ((c * p - r * m) * 1_000_000_000 / (m * p)).min((p - r) * 1_000_000_000 / p) as u64;
            match out.iter_mut().find(|c| c.core == core) {
                Some(c) if c.busy >= busy => {}
                Some(c) => {
                    c.busy = busy;
                    c.lost_ns_per_s = lost;
                }
                None => out.push(ShortCore {
                    core,
                    busy,
                    budget,
                    lost_ns_per_s: lost,
                }),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use partita_schedule::Window;

    fn plan(major: u64, windows: &[(u32, u64, u64)]) -> FramePlan {
        FramePlan {
            major_frame: major,
            windows: windows
                .iter()
                .enumerate()
                .map(|(i, &(core, offset, duration))| Window {
                    id: i as u32 + 1,
                    partition: i,
                    core,
                    offset,
                    duration,
                    period_start: true,
                })
                .collect(),
        }
    }

    #[test]
    fn a_schedule_filling_a_core_is_short_of_the_default_budget() {
        let full = plan(
            20_000_000,
            &[(1, 0, 10_000_000), (1, 10_000_000, 10_000_000)],
        );
        let short = short_cores(&[&full], Some((950_000, 1_000_000)));
        assert_eq!(short.len(), 1);
        assert_eq!(short[0].core, 1);
        assert!((short[0].busy - 1.0).abs() < 1e-9);
        assert_eq!(short[0].lost_ns_per_s, 50_000_000);
        let text = short[0].to_string();
        assert!(text.contains("core 1: windows fill 100.0%"), "{text}");
        assert!(text.contains("--rt-budget unlimited"), "{text}");
        // Throttling off, or a budget of the whole period: nothing to say.
        assert!(short_cores(&[&full], Some((-1, 1_000_000))).is_empty());
        assert!(short_cores(&[&full], Some((1_000_000, 1_000_000))).is_empty());
        assert!(short_cores(&[&full], None).is_empty());
    }

    #[test]
    fn idle_time_within_the_budget_is_not_warned_about() {
        // 90 % busy on core 0, 97 % on core 2 (overlapping windows count once).
        let p = plan(
            10_000_000,
            &[
                (0, 0, 9_000_000),
                (2, 0, 5_000_000),
                (2, 4_000_000, 5_700_000),
            ],
        );
        let short = short_cores(&[&p], Some((950_000, 1_000_000)));
        assert_eq!(short.len(), 1, "{short:?}");
        assert_eq!(short[0].core, 2);
        assert!((short[0].busy - 0.97).abs() < 1e-9, "{}", short[0].busy);
        assert_eq!(short[0].lost_ns_per_s, 20_000_000);
        // The fullest of several module schedules counts.
        let light = plan(10_000_000, &[(2, 0, 1_000_000)]);
        let short = short_cores(&[&light, &p], Some((950_000, 1_000_000)));
        assert_eq!(short.len(), 1);
        assert!((short[0].busy - 0.97).abs() < 1e-9);
    }

    fn scratch(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("partita-rt-budget-{name}-{}", std::process::id()))
    }

    #[test]
    fn the_budget_is_set_for_the_run_and_restored_after() {
        let path = scratch("restore");
        std::fs::write(&path, "950000\n").unwrap();
        let r = apply_at(&path, RtBudget::Unlimited).unwrap().unwrap();
        assert_eq!(r.previous(), 950_000);
        assert_eq!(std::fs::read_to_string(&path).unwrap().trim(), "-1");
        drop(r);
        assert_eq!(std::fs::read_to_string(&path).unwrap().trim(), "950000");
        // Already unlimited: nothing changed, nothing to restore.
        std::fs::write(&path, "-1\n").unwrap();
        assert!(apply_at(&path, RtBudget::Unlimited).unwrap().is_none());
        // The kernel's default asked for on a machine that lifted it: set, then restored.
        let mut r = apply_at(&path, RtBudget::KernelDefault).unwrap().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap().trim(), "950000");
        r.restore().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap().trim(), "-1");
        // Keep: the file is not even read.
        std::fs::remove_file(&path).unwrap();
        assert!(apply_at(&path, RtBudget::Keep).unwrap().is_none());
        assert!(matches!(
            apply_at(&path, RtBudget::Unlimited),
            Err(RtBudgetError::Io { .. })
        ));
        std::fs::write(&path, "lots\n").unwrap();
        let e = apply_at(&path, RtBudget::Unlimited).unwrap_err();
        assert!(e.to_string().contains("not a number: \"lots\""), "{e}");
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn budget_names() {
        assert_eq!("unlimited".parse(), Ok(RtBudget::Unlimited));
        assert_eq!("default".parse(), Ok(RtBudget::KernelDefault));
        assert_eq!("keep".parse(), Ok(RtBudget::Keep));
        assert_eq!(
            "none".parse::<RtBudget>(),
            Err(UnknownRtBudget("none".into()))
        );
    }
}
