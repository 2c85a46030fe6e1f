// SPDX-License-Identifier: MIT OR Apache-2.0
//! What the manager takes away from every partition before it runs, and how it
//! names a partition's death for the health-monitor log. See `docs/threat-model.md`.

use crate::ManagerError;
use partita_sys::cgroup::Cgroup;
use partita_sys::spawn::Confinement;

/// Tasks (processes and threads) a partition may have: room for every APEX process, its
/// abandoned threads (a STOP of a running process leaves one behind) and the runtime's own,
/// with a floor for small partitions. Enforced by the pids cgroup and `RLIMIT_NPROC`: a fork
/// or thread bomb ends in `EAGAIN` inside the partition.
/// `max_processes` is the configured maximum number of APEX processes (`None`: the runtime
/// default, counted as none here: the floor covers it).
pub(crate) fn task_limit(max_processes: Option<u32>) -> u64 {
    (4 * u64::from(max_processes.unwrap_or(0)) + 32).max(128)
}

/// The confinement of partition `index`: its own uid/gid when the manager is root, its
/// SCHED_FIFO start priority when real-time priorities are used (`rt_priority` > 0), its `task_limit`, and the seccomp filter of `profile` unless disabled
/// (`None`).
pub(crate) fn confinement(
    index: usize,
    task_limit: u64,
    root: bool,
    rt_priority: u32,
    profile: Option<partita_sys::seccomp::Profile>,
) -> Result<Confinement, ManagerError> {
    let filters = match profile {
        Some(profile) => Some(partita_sys::seccomp::compile(profile).map_err(|e| {
            partita_sys::SysError::io("seccomp filter", std::io::Error::other(e.to_string()))
        })?),
        None => None,
    };
    Ok(Confinement {
        ids: root.then(|| {
            (
                partita_sys::isolation::partition_uid(index),
                partita_sys::isolation::partition_gid(index),
            )
        }),
        fifo_priority: (rt_priority > 0).then_some(rt_priority as i32),
        normal_policy: false,
        // A backstop above the pids cgroup (which then is the limit that is reached and
        // counted), for hosts without the pids controller.
        nproc_limit: root.then(|| 2 * task_limit),
        filters,
    })
}

/// Whether partitions can be given `RLIMIT_RTPRIO` (run priority + 1); probed once.
pub(crate) fn rtprio_limit_possible() -> bool {
    static CAN: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *CAN.get_or_init(|| {
        partita_sys::isolation::can_limit_rtprio(crate::PARTITION_RUN_PRIORITY as u64 + 1)
    })
}

/// The run-report note when the seccomp filter is off.
pub(crate) const NO_SECCOMP_NOTE: &str =
    "partitions run without the seccomp filter (--no-seccomp): forbidden system calls are not refused";

/// Sets the memory limit on `g`, swap included when the kernel accounts swap
/// (`memory.memsw.limit_in_bytes`), so that a partition cannot page its excess out.
pub(crate) fn limit_memory(g: &Cgroup, limit: u64) -> Result<(), ManagerError> {
    g.write("memory.limit_in_bytes", &limit.to_string())?;
    if g.dir().join("memory.memsw.limit_in_bytes").exists() {
        g.write("memory.memsw.limit_in_bytes", &limit.to_string())?;
    }
    Ok(())
}

/// How many times the kernel's OOM killer acted in the memory cgroup among a partition's
/// `groups`.
pub(crate) fn oom_kills(groups: &[Cgroup]) -> u64 {
    let Some(g) = groups
        .iter()
        .find(|g| g.dir().join("memory.oom_control").exists())
    else {
        return 0;
    };
    g.read("memory.oom_control")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("oom_kill "))
                .and_then(|v| v.trim().parse().ok())
        })
        .unwrap_or(0)
}

/// The real-time priority of thread `tid` (host pid namespace), from `/proc/<tid>/stat`.
fn rt_priority(tid: i32) -> Option<u32> {
    let s = std::fs::read_to_string(format!("/proc/{tid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces) start at field 3 (state);
    // rt_priority is field 40.
    let rest = &s[s.rfind(')')? + 1..];
    rest.split_whitespace()
        .nth(40 - 3)
        .and_then(|v| v.parse().ok())
}

/// Watches partitions' real-time priorities on hosts where they cannot be given
/// `RLIMIT_RTPRIO` (see [`rtprio_limit_possible`]), as defence in depth: partitions hold no
/// capability, so the kernel refuses any raise, and the raise broker (`crate::raise`) grants
/// none above the runtime's timer priority (run + 1); it should never fire. A thread seen
/// above that priority gets its partition killed (SIGKILL to every process of its cgroup) and the
/// error is logged as ILLEGAL_REQUEST. Called from the supervisor's loop (every ~10 ms), so
/// a spinning thread above the scheduler can delay one boundary of its core by that much.
pub(crate) struct PriorityWatch {
    enabled: bool,
    killed: Vec<bool>,
}

impl PriorityWatch {
    pub(crate) fn new(partitions: usize, rt: bool) -> Self {
        PriorityWatch {
            enabled: rt && partita_sys::proc::is_root() && !rtprio_limit_possible(),
            killed: vec![false; partitions],
        }
    }

    /// Checks partition `index` (called `name`), whose processes are those of `membership`;
    /// returns the event to log when it is killed.
    pub(crate) fn check(
        &mut self,
        index: usize,
        name: &str,
        membership: Option<&Cgroup>,
    ) -> Option<String> {
        let g = membership.filter(|_| self.enabled)?;
        let limit = crate::PARTITION_RUN_PRIORITY as u32 + 1;
        let tasks = g
            .read("tasks")
            .or_else(|_| g.read("cgroup.threads"))
            .unwrap_or_default();
        let offender = tasks
            .lines()
            .filter_map(|l| l.trim().parse::<i32>().ok())
            .find_map(|tid| {
                rt_priority(tid)
                    .filter(|&pr| pr > limit)
                    .map(|pr| (tid, pr))
            });
        let Some((tid, prio)) = offender else {
            self.killed[index] = false;
            return None;
        };
        for pid in g.processes() {
            let _ = partita_sys::proc::kill(pid, partita_sys::proc::SIGKILL);
        }
        if std::mem::replace(&mut self.killed[index], true) {
            return None;
        }
        Some(format!(
            "partition {name}: ILLEGAL_REQUEST (thread {tid} raised its real-time priority to {prio}, above {limit}): partition killed"
        ))
    }
}

/// How often the kernel refused a fork or thread creation at the task limit in the pids
/// cgroup among a partition's `groups` (`pids.events` `max`), if it has one.
pub(crate) fn task_limit_hits(groups: &[Cgroup]) -> Option<u64> {
    groups.iter().find_map(|g| {
        g.read("pids.events").ok().map(|ev| {
            ev.lines()
                .find_map(|l| l.strip_prefix("max "))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0)
        })
    })
}

/// The end-of-run events of partition `name`: how often it hit its task limit (`task_hits`
/// refusals of `task_limit`) and its memory limit (`memory.failcnt` of its `groups`): refused
/// forks and allocations are contained inside the partition but recorded.
pub(crate) fn limit_events(
    name: &str,
    task_limit: u64,
    task_hits: u64,
    groups: &[Cgroup],
) -> Vec<String> {
    let mut events = Vec::new();
    if task_hits > 0 {
        events.push(format!(
            "partition {name}: task limit ({task_limit}) reached, {task_hits} forks or thread creations refused"
        ));
    }
    for g in groups {
        if let Ok(fc) = g.read("memory.failcnt") {
            let hits: u64 = fc.trim().parse().unwrap_or(0);
            if hits > 0 {
                events.push(format!(
                    "partition {name}: memory limit reached {hits} times ({} OOM kills)",
                    oom_kills(groups)
                ));
            }
        }
    }
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_real_time_priorities() {
        // This test thread runs in SCHED_OTHER: real-time priority 0.
        assert_eq!(rt_priority(partita_sys::sched::gettid()), Some(0));
        assert_eq!(rt_priority(-5), None);
    }
}
