// SPDX-License-Identifier: MIT OR Apache-2.0
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
    /// Partitions read APEX time from the CPU's time-stamp counter
    /// (`partita_sys::time::CounterClock`): the kernel's clock source is the counter and it
    /// runs at a constant rate, and `PARTITA_COUNTER_CLOCK=0` is not set.
    pub counter_clock: bool,
    /// Why they read `CLOCK_MONOTONIC` instead.
    pub counter_clock_unsupported: Option<String>,
    /// A counter / monotonic pair taken when the host was probed (run start), handed to
    /// every partition to calibrate its counter clock from.
    #[serde(skip)]
    pub(crate) counter_seed: (u64, u64),
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
        let counter_clock_unsupported =
            if std::env::var("PARTITA_COUNTER_CLOCK").as_deref() == Ok("0") {
                Some("PARTITA_COUNTER_CLOCK=0".to_string())
            } else {
                partita_sys::time::counter_clock_unsupported()
            };
        HostInfo {
            kernel,
            counter_clock: counter_clock_unsupported.is_none(),
            counter_seed: if counter_clock_unsupported.is_none() {
                partita_sys::time::counter_pair()
            } else {
                (0, 0)
            },
            counter_clock_unsupported,
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
