//! What the host offers: privileges, real-time scheduling, cgroup hierarchies.

use partita_sys::cgroup::Mounts;
use serde::Serialize;

/// Facts about the host, recorded in every report.
#[derive(Debug, Clone, Serialize)]
pub struct HostInfo {
    /// `uname -r`.
    pub kernel: String,
    /// Online CPUs.
    pub cpus: u32,
    /// Running as root.
    pub root: bool,
    /// SCHED_FIFO may be used.
    pub fifo: bool,
    /// Why SCHED_FIFO may not be used.
    pub fifo_error: Option<String>,
    /// `sched_rt_runtime_us` / `sched_rt_period_us`.
    pub rt_throttle: Option<(i64, i64)>,
    /// cgroup v1 freezer mounted.
    pub freezer_v1: bool,
    /// cgroup v2 mounted.
    pub cgroup_v2: bool,
    /// cgroup v2 mounted with `favordynmods` (see CAVEATS.md: freezer-v2 switches wait for
    /// cgroup changes without it).
    pub cgroup_v2_favordynmods: bool,
    /// v1 cpuacct mounted.
    pub cpuacct: bool,
    /// v1 cpuset mounted.
    pub cpuset: bool,
    /// v1 memory mounted.
    pub memory: bool,
    /// v1 pids mounted.
    pub pids: bool,
    #[serde(skip)]
    pub(crate) mounts: Mounts,
}

impl HostInfo {
    /// Probes the host.
    pub fn detect() -> Self {
        let mounts = Mounts::detect();
        let fifo = partita_sys::sched::fifo_allowed();
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|s| s.trim().to_string())
            .unwrap_or_default();
        HostInfo {
            kernel,
            cpus: partita_sys::sched::online_cpus(),
            root: partita_sys::proc::is_root(),
            fifo: fifo.is_ok(),
            fifo_error: fifo.err().map(|e| e.to_string()),
            rt_throttle: partita_sys::sched::rt_throttling(),
            freezer_v1: mounts.freezer.is_some(),
            cgroup_v2: mounts.v2.is_some(),
            cgroup_v2_favordynmods: mounts.v2_favordynmods,
            cpuacct: mounts.cpuacct.is_some(),
            cpuset: mounts.cpuset.is_some(),
            memory: mounts.memory.is_some(),
            pids: mounts.pids.is_some(),
            mounts,
        }
    }
}
