// SPDX-License-Identifier: MIT OR Apache-2.0
//! The independent checker: from a window table and the process sets alone, it re-derives
//! that windows stay inside the frame and do not overlap on a core, that the host keeps its
//! reserve, and that every process meets its deadline. It shares no code with the generators.
//!
//! Model (the runtime's): a partition's processes run only inside its windows, minus the
//! switch cost at the start of every window; inside, fixed-priority preemptive scheduling
//! (larger priority first, equal priorities in release order, then declaration order).
//! Process `i` of a partition is released at `o + k·T_i` (`k >= 0`), where `o` is the
//! partition's period origin ([`FramePlan::period_origin`], as the runtime computes it), with
//! deadline `release + D_i`. The table repeats every major frame; the simulation runs frame
//! after frame until the backlog at a frame boundary repeats (from the second frame on, the
//! releases repeat exactly), so the check covers the steady state, not only the first frame.

use crate::model::Task;
use partita_schedule::{FramePlan, Nanos};
use serde::Serialize;

/// Frames simulated at most before giving up on a steady state.
pub const MAX_FRAMES: u64 = 16;

/// One partition's process set, for the checker.
#[derive(Debug, Clone)]
pub struct CheckedPartition<'a> {
    /// Module index (what windows refer to).
    pub index: usize,
    /// Name, for messages.
    pub name: &'a str,
    /// Processes.
    pub tasks: &'a [Task],
}

/// A host reserve to verify: at least `reserve` idle in each `[k·period, (k+1)·period)` of
/// `core`.
#[derive(Debug, Clone, Copy)]
pub struct HostReserve {
    /// Core.
    pub core: u32,
    /// Micro-period.
    pub period: Nanos,
    /// Idle time needed in each.
    pub reserve: Nanos,
}

/// A problem the checker found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Violation {
    /// A window is empty or leaves `[0, major frame)`.
    OutsideFrame {
        /// Window identifier.
        window: u32,
    },
    /// Two windows overlap on a core.
    Overlap {
        /// Window identifiers.
        a: u32,
        /// Window identifiers.
        b: u32,
    },
    /// A job finished after its deadline (or was still pending at it).
    DeadlineMiss {
        /// Partition name.
        partition: String,
        /// Process name.
        process: String,
        /// Release instant (ns from the first frame start).
        release: Nanos,
        /// Absolute deadline.
        deadline: Nanos,
    },
    /// The backlog did not settle within [`MAX_FRAMES`] frames.
    NoSteadyState {
        /// Partition name.
        partition: String,
    },
    /// Less than the host reserve is idle in a micro-period.
    HostReserve {
        /// Core.
        core: u32,
        /// Micro-period index.
        index: u64,
        /// Idle time found.
        idle: Nanos,
    },
    /// A partition with processes has no window.
    NoWindow {
        /// Partition name.
        partition: String,
    },
}

/// Result per process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProcessResult {
    /// Partition name.
    pub partition: String,
    /// Process name.
    pub process: String,
    /// Worst response time observed over the steady-state simulation (`None`: no job ended).
    pub wcrt: Option<Nanos>,
    /// Relative deadline.
    pub deadline: Nanos,
}

/// The checker's verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Verdict {
    /// Every problem found (empty: the plan is correct).
    pub violations: Vec<Violation>,
    /// Per process results, partitions in the order given.
    pub processes: Vec<ProcessResult>,
    /// Frames simulated (the most over partitions).
    pub frames: u64,
}

impl Verdict {
    /// `true` when nothing is wrong.
    pub fn ok(&self) -> bool {
        self.violations.is_empty()
    }
}

/// Checks `plan` for the given process sets, switch cost and host reserves.
pub fn check(
    plan: &FramePlan,
    partitions: &[CheckedPartition<'_>],
    switch_cost: Nanos,
    reserves: &[HostReserve],
) -> Verdict {
    let mut v = Verdict::default();
    let f = plan.major_frame;
    // Structure.
    for w in &plan.windows {
        if w.duration == 0 || f == 0 || w.offset >= f || w.offset + w.duration > f {
            v.violations.push(Violation::OutsideFrame { window: w.id });
        }
    }
    let mut by_core: Vec<&partita_schedule::Window> = plan.windows.iter().collect();
    by_core.sort_by_key(|w| (w.core, w.offset, w.offset + w.duration));
    for pair in by_core.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if a.core == b.core && b.offset < a.offset + a.duration {
            v.violations.push(Violation::Overlap { a: a.id, b: b.id });
        }
    }
    // Host reserve: idle time in each micro-period.
    for r in reserves {
        if r.period == 0 || r.reserve == 0 {
            continue;
        }
        let mut k = 0;
        while k * r.period < f {
            let (lo, hi) = (k * r.period, ((k + 1) * r.period).min(f));
            let busy: Nanos = plan
                .windows
                .iter()
                .filter(|w| w.core == r.core)
                .map(|w| {
                    let s = w.offset.max(lo);
                    let e = (w.offset + w.duration).min(hi);
                    e.saturating_sub(s)
                })
                .sum();
            let idle = (hi - lo).saturating_sub(busy);
            if idle < r.reserve {
                v.violations.push(Violation::HostReserve {
                    core: r.core,
                    index: k,
                    idle,
                });
            }
            k += 1;
        }
    }
    if f == 0 {
        return v;
    }
    for p in partitions {
        let supply: Vec<(Nanos, Nanos)> = {
            let mut s: Vec<(Nanos, Nanos)> = plan
                .windows
                .iter()
                .filter(|w| w.partition == p.index && w.duration > switch_cost)
                .map(|w| (w.offset + switch_cost, (w.offset + w.duration).min(f)))
                .filter(|(a, b)| a < b)
                .collect();
            s.sort_unstable();
            s
        };
        if !plan.windows.iter().any(|w| w.partition == p.index) {
            v.violations.push(Violation::NoWindow {
                partition: p.name.to_string(),
            });
        }
        let origin = plan.period_origin(p.index);
        let (frames, results) = simulate(p, &supply, f, origin, &mut v.violations);
        v.frames = v.frames.max(frames);
        v.processes.extend(results);
    }
    v
}

struct Pending {
    task: usize,
    release: Nanos,
    left: Nanos,
}

/// Simulates one partition frame by frame; returns the frames simulated and per-task results.
fn simulate(
    p: &CheckedPartition<'_>,
    supply: &[(Nanos, Nanos)],
    f: Nanos,
    origin: Nanos,
    out: &mut Vec<Violation>,
) -> (u64, Vec<ProcessResult>) {
    let n = p.tasks.len();
    let mut worst: Vec<Option<Nanos>> = vec![None; n];
    let mut released: Vec<u64> = vec![0; n]; // jobs released so far per task
    let mut pending: Vec<Pending> = Vec::new();
    let mut missed = false;
    let mut prev_state: Option<Vec<(usize, Nanos, Nanos)>> = None;
    let mut frames = 0;
    let release_time = |i: usize, k: u64| origin + k * p.tasks[i].period;
    // Releases, for every task, each job whose release instant satisfies `due`.
    let release_until =
        |released: &mut [u64], pending: &mut Vec<Pending>, due: &dyn Fn(Nanos) -> bool| {
            for (i, count) in released.iter_mut().enumerate() {
                while due(release_time(i, *count)) {
                    pending.push(Pending {
                        task: i,
                        release: release_time(i, *count),
                        left: p.tasks[i].wcet,
                    });
                    *count += 1;
                }
            }
        };
    let miss = |out: &mut Vec<Violation>, task: usize, release: Nanos| {
        out.push(Violation::DeadlineMiss {
            partition: p.name.to_string(),
            process: p.tasks[task].name.clone(),
            release,
            deadline: release + p.tasks[task].deadline,
        });
    };
    'frames: for frame in 0..MAX_FRAMES {
        frames = frame + 1;
        let base = frame * f;
        for &(a, b) in supply {
            let (mut t, end) = (base + a, base + b);
            loop {
                // Release everything due by t.
                release_until(&mut released, &mut pending, &|r| r <= t);
                if t >= end {
                    break;
                }
                let next_release = (0..n)
                    .map(|i| release_time(i, released[i]))
                    .min()
                    .unwrap_or(Nanos::MAX);
                let Some(k) = (0..pending.len()).max_by(|&x, &y| {
                    let (jx, jy) = (&pending[x], &pending[y]);
                    let kx = (
                        p.tasks[jx.task].priority,
                        std::cmp::Reverse(jx.release),
                        std::cmp::Reverse(jx.task),
                    );
                    let ky = (
                        p.tasks[jy.task].priority,
                        std::cmp::Reverse(jy.release),
                        std::cmp::Reverse(jy.task),
                    );
                    kx.cmp(&ky)
                }) else {
                    // Idle until the next release or the end of the supply.
                    t = end.min(next_release);
                    continue;
                };
                let step = (end - t).min(next_release - t).min(pending[k].left);
                t += step;
                pending[k].left -= step;
                if pending[k].left == 0 {
                    let j = pending.swap_remove(k);
                    let response = t - j.release;
                    if response > p.tasks[j.task].deadline && !missed {
                        missed = true;
                        miss(out, j.task, j.release);
                    }
                    worst[j.task] = Some(worst[j.task].map_or(response, |w| w.max(response)));
                }
            }
        }
        // Frame boundary: release what is due before it, look for overdue jobs.
        let boundary = base + f;
        release_until(&mut released, &mut pending, &|r| r < boundary);
        if let Some(j) = pending
            .iter()
            .find(|j| j.release + p.tasks[j.task].deadline <= boundary)
        {
            if !missed {
                missed = true;
                miss(out, j.task, j.release);
            }
        }
        if missed {
            break 'frames;
        }
        let mut state: Vec<(usize, Nanos, Nanos)> = pending
            .iter()
            .map(|j| (j.task, j.release % f, j.left))
            .collect();
        state.sort_unstable();
        if frame >= 1 && prev_state.as_ref() == Some(&state) {
            break 'frames;
        }
        prev_state = Some(state);
        if frame + 1 == MAX_FRAMES {
            out.push(Violation::NoSteadyState {
                partition: p.name.to_string(),
            });
        }
    }
    let results = p
        .tasks
        .iter()
        .zip(worst)
        .map(|(t, w)| ProcessResult {
            partition: p.name.to_string(),
            process: t.name.clone(),
            wcrt: w,
            deadline: t.deadline,
        })
        .collect();
    (frames, results)
}

/// Why a compiled plan cannot be checked ([`check_compiled`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompiledCheckError {
    /// The plan has no initial module schedule.
    #[error("the plan has no module schedule")]
    NoSchedule,
    /// A process lacks the period or WCET the check needs.
    #[error("process {process} of partition {partition} has no period or WCET")]
    MissingTiming {
        /// The process.
        process: String,
        /// Its partition.
        partition: String,
    },
}

/// Checks the initial schedule of a compiled plan against the process sets the plan itself
/// carries (`partita:Process`; deadline defaults to the period, priorities deadline-monotonic
/// when none is given). Partitions without processes are not checked for deadlines.
pub fn check_compiled(
    plan: &partita_config::CompiledPlan,
    switch_cost: Nanos,
    reserves: &[HostReserve],
) -> Result<Verdict, CompiledCheckError> {
    let schedule = plan.initial().ok_or(CompiledCheckError::NoSchedule)?;
    let mut sets: Vec<(usize, String, Vec<Task>)> = Vec::new();
    for p in &plan.partitions {
        if p.processes.is_empty() {
            continue;
        }
        let mut tasks = Vec::new();
        for pr in &p.processes {
            let (Some(period), Some(wcet)) = (pr.period, pr.wcet) else {
                return Err(CompiledCheckError::MissingTiming {
                    process: pr.name.clone(),
                    partition: p.name.clone(),
                });
            };
            tasks.push(Task {
                name: pr.name.clone(),
                period,
                wcet,
                deadline: pr.deadline.unwrap_or(period),
                priority: pr.priority.unwrap_or(0),
            });
        }
        if p.processes.iter().all(|x| x.priority.is_none()) {
            crate::model::deadline_monotonic(&mut tasks);
        }
        sets.push((p.index, p.name.clone(), tasks));
    }
    let parts: Vec<CheckedPartition> = sets
        .iter()
        .map(|(index, name, tasks)| CheckedPartition {
            index: *index,
            name,
            tasks,
        })
        .collect();
    Ok(check(&schedule.plan, &parts, switch_cost, reserves))
}
