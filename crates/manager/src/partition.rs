// SPDX-License-Identifier: MIT OR Apache-2.0
//! One partition as the manager sees it: its cgroups, control block, process and counters.
//! It owns the partition's life cycle; the health monitor and the output thread reach it
//! through [`LifeCycle`].

use crate::backend::{freezer_kind, Backend, Switch};
use crate::host::HostInfo;
use crate::lifecycle::{Change, Life, LifeCycle, Status};
use crate::output::{OutputCounters, Pipes};
use crate::report::{Note, NoteKind};
use crate::stats::Histogram;
use crate::ManagerError;
use partita_abi::{DecodeError, MemoryBlockMode, OperatingMode, StartCondition};
use partita_config::model::{MemoryAccess, ProcessPolicy};
use partita_config::{CompiledPartition, CompiledPlan};
use partita_sys::cgroup::{Cgroup, CpuUsage, Freezer};
use partita_sys::control::{self, ControlBlock};
use partita_sys::shm::SharedMapping;
use partita_sys::spawn::{self, Namespaces, SpawnSpec, Spawned};
use std::ffi::CString;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

/// Mutable per-partition state, behind a mutex shared by the scheduler threads (one lock per
/// boundary, uncontended unless a partition has windows on several cores) and the supervisor.
pub(crate) struct Dyn {
    pub life: Life,
    pub pid: i32,
    pub switch: Option<Switch>,
    /// Number of cores on which the partition is inside a window right now.
    pub active: u32,
    /// Whether the backend currently lets it run.
    pub running: bool,
    /// Held ahead of the boundary that ends its window on its only core, still `running` for
    /// the bookkeeping until that boundary (crate::lead).
    pub stopped_early: bool,
    /// CPU usage read when the partition was last held, to measure what it used afterwards.
    pub usage_at_stop: Option<u64>,
    /// Signals backend, stopped ahead of its boundary: how long the stop request took, and its
    /// CPU time right after it.
    pub stop_request: Option<(u64, u64, u64)>,
    /// Signals backend: what its last early stop cost in all and the part of it after the
    /// boundary (measured when it enters again), not yet looked at by the scheduler
    /// (crate::lead::FreezeLead::after_stop).
    pub stop_cost: Option<crate::lead::StopCost>,
    /// When its current window began on its core and its CPU usage then (read with the
    /// overrun of the window before), to tell what part of the window it did not run.
    pub window_start: Option<(u64, u64)>,
    /// When its last window began and the CPU time it used from then until it was held, not
    /// yet looked at by the scheduler (crate::lead::FreezeLead::note_wake).
    pub window_cpu: Option<(u64, u64)>,
    /// "go" end of a child not yet released (signals backend: released at its first window).
    pub pending_go: Option<OwnedFd>,
    /// The manager's end of the socket the child sends its task-creation listener over, until
    /// the creation thread takes it (crate::creation).
    pub creation_sock: Option<OwnedFd>,
    pub windows: u64,
    pub overruns: u64,
    pub overrun: Histogram,
    pub restarts: u32,
    /// Times its process ended on its own (crashed or exited) before the module stopped.
    pub process_ends: u32,
    /// Whether it was seen in NORMAL mode (any incarnation).
    pub reached_normal: bool,
    pub exit: Option<String>,
    pub exec_error: Option<String>,
    /// A restart decided by the health monitor or a system partition: the start condition to
    /// give it. Such a restart is released at the partition's next window, never at once.
    pub hm_restart: Option<StartCondition>,
}

/// One partition.
pub(crate) struct Partition {
    pub index: usize,
    /// The plan the partition belongs to (its configuration is `plan.partitions[index]`).
    pub plan: Arc<CompiledPlan>,
    /// The CPUs it runs on ([`CompiledPlan::cores_of`]).
    pub cpus: Vec<u32>,
    pub ctl: SharedMapping,
    pub groups: Vec<Cgroup>,
    /// The cgroup whose `cgroup.procs` lists every process of the partition.
    pub membership: Option<Cgroup>,
    pub freezer_group: Option<Cgroup>,
    /// The memory cgroup (when a limit is configured), for OOM detection.
    pub memory_group: Option<Cgroup>,
    pub usage: Option<CpuUsage>,
    pub state: Mutex<Dyn>,
    /// Task creations the manager refused at the task limit (crate::creation), all
    /// incarnations.
    pub refused_creations: std::sync::atomic::AtomicU64,
    /// Its task count when its creation thread last saw it cross a multiple of
    /// [`crate::lead::HINT_TASKS`] (0: nothing new), for the scheduler's freeze lead.
    pub tasks_hint: std::sync::atomic::AtomicU32,
    /// The run's per-CPU scheduler wake-up words (crate::scheduler::Shared::nudge), set by the
    /// supervisor once every partition is prepared.
    pub nudge: std::sync::OnceLock<Arc<[std::sync::atomic::AtomicU32]>>,
    /// Its output counters, shared with the output thread.
    pub output: Arc<Mutex<OutputCounters>>,
    /// The run's channels: this partition's port descriptors come from there.
    pub channels: std::sync::OnceLock<std::sync::Arc<crate::ports::Channels>>,
    /// Its directory on the host (crate::rundir): working directory and `PARTITA_RUN_DIR`.
    pub work_dir: std::sync::OnceLock<PathBuf>,
    /// Its runtime reads APEX time from the counter clock (`HostInfo::counter_clock`).
    pub counter_clock: bool,
    /// `HostInfo::counter_seed`.
    pub counter_seed: (u64, u64),
    /// Its trace ring, when the run is traced (crate::trace), passed as
    /// `control::TRACE_FD`.
    pub trace_ring: std::sync::OnceLock<Arc<partita_sys::trace::RingMapping>>,
    /// Whether its runtime records its APEX calls (`TraceOptions::apex_calls`), set with
    /// `trace_ring`.
    pub trace_apex_calls: std::sync::atomic::AtomicBool,
    /// Host process id of its current incarnation (0: none), readable without the state
    /// lock (the trace drain thread, at normal priority, must not take a lock the scheduler
    /// threads wait on).
    pub host_pid: std::sync::atomic::AtomicI32,
}

impl Partition {
    /// The control block.
    pub fn control(&self) -> &ControlBlock {
        self.ctl.view::<ControlBlock>()
    }

    /// Its configuration.
    pub fn spec(&self) -> &CompiledPartition {
        &self.plan.partitions[self.index]
    }

    /// Its `PartitionIdentifier` as the control block and the HM log carry it (the validator
    /// keeps identifiers within `i32`).
    pub fn id(&self) -> i32 {
        i32::try_from(self.spec().id).unwrap_or(i32::MAX)
    }

    /// Its task limit ([`crate::isolation::task_limit`]).
    pub fn task_limit(&self) -> u64 {
        crate::isolation::task_limit(self.spec().max_processes)
    }

    /// How often it hit its task limit so far: refusals of the kernel (pids cgroup) and of the
    /// manager (crate::creation), if it has a pids cgroup.
    pub fn task_limit_hits(&self) -> Option<u64> {
        let kernel = crate::isolation::task_limit_hits(&self.groups)?;
        Some(kernel + self.refused_creations.load(Ordering::Relaxed))
    }

    /// Its memory cgroup's `oom_kill` count and `memory.failcnt`, if it has a memory limit.
    pub fn memory_kills(&self) -> Option<(u64, u64)> {
        let g = self.memory_group.as_ref()?;
        let text = g.read("memory.oom_control").ok()?;
        let kills = text
            .lines()
            .find_map(|l| l.strip_prefix("oom_kill "))
            .and_then(|v| v.trim().parse::<u64>().ok())?;
        let failcnt = g
            .read("memory.failcnt")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        Some((kills, failcnt))
    }

    /// How many times the OOM killer acted in its memory cgroup.
    pub fn oom_kills(&self) -> u64 {
        crate::isolation::oom_kills(&self.groups)
    }

    /// Its end-of-run events ([`crate::isolation::limit_events`]).
    pub fn limit_events(&self) -> Vec<String> {
        crate::isolation::limit_events(
            &self.spec().name,
            self.task_limit(),
            self.task_limit_hits().unwrap_or(0),
            &self.groups,
        )
    }

    /// Creates the cgroups and control block of partition `index` of `plan` (nothing runs
    /// yet).
    pub fn prepare(
        plan: &Arc<CompiledPlan>,
        index: usize,
        host: &HostInfo,
        backend: Backend,
        run_dir: &str,
    ) -> Result<Partition, ManagerError> {
        let spec = &plan.partitions[index];
        let cpus = plan.cores_of(index);
        let leaf = format!("{run_dir}/{:02}-{}", index, sanitize(&spec.name));
        let m = &host.mounts;
        let mut groups = Vec::new();
        let mut membership = None;
        let mut freezer_group = None;
        let mut usage = None;
        let mut memory_group = None;
        if host.root {
            if let Some(root) = &m.cpuacct {
                let g = Cgroup::create(root.join(&leaf))?;
                usage = Some(CpuUsage::open(&g)?);
                membership = Some(g.clone());
                groups.push(g);
            }
            if let Some(root) = &m.cpuset {
                prepare_cpuset_parents(root, run_dir)?;
                let g = Cgroup::create(root.join(&leaf))?;
                let list: Vec<String> = cpus.iter().map(|c| c.to_string()).collect();
                g.write("cpuset.cpus", &list.join(","))?;
                g.write("cpuset.mems", &read_parent_mems(root))?;
                groups.push(g);
            }
            if let (Some(root), Some(limit)) = (&m.memory, spec.memory_limit) {
                let g = Cgroup::create(root.join(&leaf))?;
                crate::isolation::limit_memory(&g, limit)?;
                memory_group = Some(g.clone());
                groups.push(g);
            }
            if let Some(root) = &m.pids {
                let g = Cgroup::create(root.join(&leaf))?;
                g.write(
                    "pids.max",
                    &crate::isolation::task_limit(spec.max_processes).to_string(),
                )?;
                groups.push(g);
            }
            match freezer_kind(backend) {
                Some(partita_sys::cgroup::FreezerKind::V1) => {
                    let root = m.freezer.as_ref().expect("resolved backend has a mount");
                    let g = Cgroup::create(root.join(&leaf))?;
                    freezer_group = Some(g.clone());
                    membership.get_or_insert(g.clone());
                    groups.push(g);
                }
                Some(partita_sys::cgroup::FreezerKind::V2) => {
                    let root = m.v2.as_ref().expect("resolved backend has a mount");
                    let g = Cgroup::create(root.join(&leaf))?;
                    freezer_group = Some(g.clone());
                    membership.get_or_insert(g.clone());
                    groups.push(g);
                }
                None => {}
            }
        }
        let ctl = SharedMapping::create(
            &format!("partita-ctl-{}", sanitize(&spec.name)),
            control::SIZE,
        )?;
        Ok(Partition {
            counter_clock: host.counter_clock,
            counter_seed: host.counter_seed,
            index,
            plan: plan.clone(),
            cpus,
            ctl,
            groups,
            membership,
            freezer_group,
            memory_group,
            usage,
            state: Mutex::new(Dyn {
                life: Life::Live,
                pid: 0,
                switch: None,
                active: 0,
                running: false,
                stopped_early: false,
                usage_at_stop: None,
                stop_request: None,
                stop_cost: None,
                window_start: None,
                window_cpu: None,
                pending_go: None,
                creation_sock: None,
                windows: 0,
                overruns: 0,
                overrun: Histogram::new(),
                restarts: 0,
                process_ends: 0,
                reached_normal: false,
                exit: None,
                exec_error: None,
                hm_restart: None,
            }),
            output: Arc::default(),
            channels: std::sync::OnceLock::new(),
            work_dir: std::sync::OnceLock::new(),
            refused_creations: std::sync::atomic::AtomicU64::new(0),
            tasks_hint: std::sync::atomic::AtomicU32::new(0),
            nudge: std::sync::OnceLock::new(),
            trace_ring: std::sync::OnceLock::new(),
            trace_apex_calls: std::sync::atomic::AtomicBool::new(false),
            host_pid: std::sync::atomic::AtomicI32::new(0),
        })
    }

    /// The mode an incarnation asked to start in `mode` publishes: a general-purpose
    /// partition has no APEX initialisation, so it is in NORMAL from its start.
    pub fn start_mode(&self, mode: OperatingMode) -> OperatingMode {
        if crate::general::of(self.spec()).is_some() {
            OperatingMode::Normal
        } else {
            mode
        }
    }

    /// Fills the control block for a new incarnation.
    pub fn fill_control(
        &self,
        epoch: u64,
        start_condition: StartCondition,
        restarts: u32,
        rt: bool,
        backend: Backend,
    ) {
        let c = self.control();
        let s = self.spec();
        let timing = self.plan.initial_timing(self.index);
        c.magic.store(0, Ordering::Relaxed);
        c.version.store(control::VERSION, Ordering::Relaxed);
        c.partition_id.store(self.id(), Ordering::Relaxed);
        c.partition_index
            .store(self.index as u32, Ordering::Relaxed);
        c.start_condition
            .store(start_condition.raw(), Ordering::Relaxed);
        c.set_name(&s.name);
        c.epoch_ns.store(epoch, Ordering::Relaxed);
        c.period_ns.store(timing.period as i64, Ordering::Relaxed);
        c.duration_ns
            .store(timing.duration as i64, Ordering::Relaxed);
        c.period_origin_ns
            .store(timing.period_origin as i64, Ordering::Relaxed);
        c.major_frame_ns
            .store(self.plan.major_frame() as i64, Ordering::Relaxed);
        let mask = self
            .cpus
            .iter()
            .filter(|&&c| c < 64)
            .fold(0u64, |m, &c| m | 1 << c);
        c.cpus.store(mask, Ordering::Relaxed);
        c.num_cores.store(self.cpus.len() as u32, Ordering::Relaxed);
        // 0: the runtime's default.
        c.max_processes
            .store(s.max_processes.unwrap_or(0), Ordering::Relaxed);
        c.stack_bytes
            .store(s.stack_size.unwrap_or(0), Ordering::Relaxed);
        c.rt_run_priority.store(
            if rt { crate::PARTITION_RUN_PRIORITY } else { 0 },
            Ordering::Relaxed,
        );
        c.restarts.store(restarts, Ordering::Relaxed);
        // The named memory requirements: the partition's memory blocks (ARINC 653 Part 2).
        let blocks: Vec<(&str, u64, MemoryBlockMode)> = s
            .memory
            .iter()
            .filter_map(|m| {
                let mode = match m.access {
                    MemoryAccess::ReadOnly => MemoryBlockMode::Read,
                    MemoryAccess::ReadWrite => MemoryBlockMode::ReadWrite,
                };
                Some((m.name.as_deref()?, m.size, mode))
            })
            .collect();
        c.set_memory_blocks(&blocks);
        c.park_lowering
            .store(u32::from(backend != Backend::FreezerV1), Ordering::Relaxed);
        c.time_source.store(
            if self.counter_clock {
                control::time_source::COUNTER
            } else {
                control::time_source::MONOTONIC
            },
            Ordering::Relaxed,
        );
        c.clock_seed_tick
            .store(self.counter_seed.0, Ordering::Relaxed);
        c.clock_seed_ns
            .store(self.counter_seed.1, Ordering::Relaxed);
        c.trace_capacity.store(
            self.trace_ring.get().map_or(0, |r| r.capacity()),
            Ordering::Relaxed,
        );
        c.trace_apex_calls.store(
            u32::from(self.trace_apex_calls.load(Ordering::Relaxed)),
            Ordering::Relaxed,
        );
        // Raise broker: the manager raises the runtime's threads where the kernel cannot let
        // the partition do it (crate::raise).
        c.raise_broker
            .store(u32::from(rt && crate::raise::needed()), Ordering::Relaxed);
        c.process_policy.store(
            if s.process_policy == Some(ProcessPolicy::Edf) {
                control::process_policy::EDF
            } else {
                control::process_policy::PRIORITY
            },
            Ordering::Relaxed,
        );
        c.mode.store(
            self.start_mode(start_condition_mode(start_condition)).raw(),
            Ordering::Relaxed,
        );
        c.mode_request
            .store(control::NO_MODE_REQUEST, Ordering::Relaxed);
        c.processes.store(0, Ordering::Relaxed);
        c.lock_level.store(0, Ordering::Relaxed);
        // A fresh incarnation starts with an empty extension mailbox.
        c.mbox
            .state
            .store(control::mailbox::IDLE, Ordering::Relaxed);
        c.mbox.seq.store(0, Ordering::Relaxed);
        c.mbox.reply_seq.store(0, Ordering::Relaxed);
        c.magic.store(control::MAGIC, Ordering::Release);
    }

    /// Clones the partition process (held before `execve`), puts it in its cgroups, and holds it
    /// with the backend. Returns the pipes for the output thread.
    pub fn spawn(
        &self,
        backend: Backend,
        namespaces: &mut Namespaces,
        notes: &mut Vec<Note>,
        env: &[(String, String)],
        seccomp: bool,
    ) -> Result<Pipes, ManagerError> {
        let (out_r, out_w) = spawn::pipe()?;
        let (err_r, err_w) = spawn::pipe()?;
        let (rep_r, rep_w) = spawn::pipe()?;
        let devnull = std::fs::File::open("/dev/null")
            .map_err(|e| partita_sys::SysError::io("open /dev/null", e))?;
        let config = self.spec();
        let path = spawn::cstring(config.executable.as_os_str())?;
        let mut argv = vec![path.clone()];
        for a in &config.args {
            argv.push(spawn::cstring(std::ffi::OsStr::new(a))?);
        }
        // The port directory and only this partition's channel ends.
        let port_fds = self.channels.get().map(|c| c.fds_of(self.index));
        let port_env = port_fds.as_ref().map(|(_, kv)| kv);
        let work_dir = self.work_dir.get();
        let mut envp = environment(config, env, port_env);
        if let Some(d) = work_dir {
            let mut kv = format!("{}=", crate::rundir::ENV_RUN_DIR).into_bytes();
            kv.extend_from_slice(d.as_os_str().as_bytes());
            envp.push(CString::new(kv).map_err(|e| {
                partita_sys::SysError::io("run directory", std::io::Error::other(e))
            })?);
        }
        let general = crate::general::of(config).is_some();
        let confinement = self.confinement(general, seccomp)?;
        // Task creations decided by the manager (crate::creation), with the seccomp filters.
        let creation = match &confinement.filters {
            Some(_) => Some(partita_sys::creation::socket_pair()?),
            None => None,
        };
        let mut spec = SpawnSpec {
            path,
            cwd: work_dir
                .map(|d| spawn::cstring(d.as_os_str()))
                .transpose()?,
            argv,
            envp,
            fds: vec![
                (devnull.as_raw_fd(), 0),
                (out_w.as_raw_fd(), 1),
                (err_w.as_raw_fd(), 2),
                (self.ctl.fd().as_raw_fd(), control::CONTROL_FD),
                (rep_w.as_raw_fd(), control::REPORT_FD),
            ],
            namespaces: crate::general::namespaces(config, *namespaces),
            cpus: self.cpus.clone(),
            // A general-purpose partition gets no real-time priority at all.
            rtprio_limit: Some(if general {
                0
            } else {
                crate::PARTITION_RUN_PRIORITY as u64 + 1
            }),
            confinement,
            creation_notify: creation.as_ref().map(|(_, child)| child.as_raw_fd()),
            binds: crate::general::binds(config)?,
        };
        if let Some(r) = self.trace_ring.get() {
            spec.fds.push((r.fd().as_raw_fd(), control::TRACE_FD));
        }
        if let Some((fds, _)) = &port_fds {
            spec.fds
                .extend(fds.iter().map(|(f, n)| (f.as_raw_fd(), *n)));
        }
        let note = crate::isolation::NO_SECCOMP_NOTE;
        if !seccomp && !notes.iter().any(|n| n.kind == NoteKind::NoSeccomp) {
            notes.push(Note::new(NoteKind::NoSeccomp, note));
        }
        let mut child = match spawn::spawn(&spec) {
            Ok(c) => c,
            Err(e) if *namespaces != Namespaces::default() => {
                notes.push(Note::new(
                    NoteKind::NoNamespaces,
                    format!(
                        "namespaces ({}) could not be created ({e}); partitions run without them",
                        namespaces.describe()
                    ),
                ));
                *namespaces = Namespaces::default();
                spec.namespaces = *namespaces;
                spawn::spawn(&spec)?
            }
            Err(e) => return Err(e.into()),
        };
        // Its network, while it waits before execve (dropping `child` on an error closes its
        // "go" pipe: it ends without running anything).
        crate::general::set_up_network(config, self.index, child.pid, spec.namespaces.net)?;
        // The child has its end; the manager's end goes to the creation thread
        // (crate::creation::start), which sees the end of the stream if the child never sends.
        let creation_sock = creation.map(|(mine, _child)| mine);
        for g in &self.groups {
            g.add_process(child.pid)?;
        }
        let switch = match (&self.freezer_group, backend) {
            (Some(g), Backend::FreezerV1 | Backend::FreezerV2) => Switch::Freezer(Freezer::open(
                g,
                freezer_kind(backend).expect("freezer backend"),
            )?),
            // Its processes stay in its process group only under the APEX filter (which
            // refuses setsid and setpgid; the general-purpose one allows them).
            _ => Switch::signals(
                self.membership
                    .as_ref()
                    .map(|g| g.dir().join("cgroup.procs")),
                child.pid,
                seccomp && !general,
            ),
        };
        // The child waits for "go" before execve. With a freezer it is frozen and released at
        // once: it reaches execve when thawed in its first window. With signals it is not
        // stopped at all: "go" is sent at the start of its first window instead (a stop and
        // continue before execve was seen to make the first stop after execve ineffective).
        let pending_go = match switch {
            Switch::Freezer(_) => {
                switch.stop()?;
                child.go()?;
                None
            }
            Switch::Signals { .. } => child.take_go(),
        };
        self.new_incarnation(child.pid, switch, pending_go, creation_sock);
        let Spawned { exec_status, .. } = child;
        Ok(Pipes {
            stdout: out_r,
            stderr: err_r,
            report: rep_r,
            exec_status,
        })
    }

    /// What the partition gives up before `execve` ([`crate::isolation::confinement`]): a
    /// `general` (general-purpose) partition runs in SCHED_OTHER under the general-purpose
    /// system-call profile, any other at its real-time priority under the APEX profile.
    fn confinement(
        &self,
        general: bool,
        seccomp: bool,
    ) -> Result<partita_sys::spawn::Confinement, ManagerError> {
        let rt_priority = if general {
            0
        } else {
            self.control()
                .rt_run_priority
                .load(Ordering::Relaxed)
                .max(0) as u32
        };
        let profile = if general {
            partita_sys::seccomp::Profile::General
        } else {
            partita_sys::seccomp::Profile::Apex
        };
        let confinement = crate::isolation::confinement(
            self.index,
            self.task_limit(),
            partita_sys::proc::is_root(),
            rt_priority,
            seccomp.then_some(profile),
        )?;
        Ok(partita_sys::spawn::Confinement {
            normal_policy: general,
            ..confinement
        })
    }

    /// Records a new incarnation, process `pid`, held by `switch` (not yet running).
    fn new_incarnation(
        &self,
        pid: i32,
        switch: Switch,
        pending_go: Option<OwnedFd>,
        creation_sock: Option<OwnedFd>,
    ) {
        let mut st = self.state.lock().expect("partition state");
        st.pending_go = pending_go;
        st.creation_sock = creation_sock;
        st.pid = pid;
        self.host_pid.store(pid, Ordering::Release);
        st.switch = Some(switch);
        st.running = false;
        st.stopped_early = false;
        st.usage_at_stop = None;
        st.stop_request = None;
        st.stop_cost = None;
        st.life = Life::Live;
    }

    /// Sends SIGKILL to every process of the partition and lets it run to its end (thaws or
    /// continues it); does not wait. Kill every partition first, then [`Partition::reap`]
    /// them: waiting for one while another still runs could wait forever, since a dying
    /// process needs its core and a real-time spinner of a neighbour may hold it.
    pub fn signal_kill(&self) {
        let st = self.state.lock().expect("partition state");
        if st.pid > 0 {
            let _ = partita_sys::proc::kill(st.pid, 9);
        }
        if let Some(g) = &self.membership {
            for p in g.processes() {
                let _ = partita_sys::proc::kill(p, 9);
            }
        }
        drop(st);
        let mut st = self.state.lock().expect("partition state");
        // A child still waiting for "go" exits when the pipe closes.
        st.pending_go = None;
        // A frozen task only dies once thawed.
        if let Some(sw) = &st.switch {
            let _ = sw.resume();
        }
    }

    /// Waits until the partition's main process has been reaped and its cgroup is empty,
    /// repeating SIGKILL for stragglers, until `deadline` (monotonic ns). Returns whether it
    /// is gone.
    pub fn reap(&self, deadline: u64) -> bool {
        loop {
            let mut st = self.state.lock().expect("partition state");
            if st.pid > 0 && partita_sys::proc::try_wait(st.pid).is_some() {
                st.pid = 0;
                if let Some(sw) = &st.switch {
                    sw.leader_reaped();
                }
            }
            let members = self
                .membership
                .as_ref()
                .map(|g| g.processes())
                .unwrap_or_default();
            if st.pid == 0 && members.is_empty() {
                st.switch = None;
                st.running = false;
                st.stopped_early = false;
                return true;
            }
            for p in members {
                let _ = partita_sys::proc::kill(p, 9);
            }
            if st.pid > 0 && self.membership.is_none() {
                let _ = partita_sys::proc::kill(st.pid, 9);
            }
            drop(st);
            if partita_sys::time::monotonic_ns() >= deadline {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// Kills every process of the partition and waits (up to 5 s) for them.
    pub fn kill(&self) -> bool {
        self.signal_kill();
        self.reap(partita_sys::time::monotonic_ns() + 5_000_000_000)
    }

    /// Removes the cgroups (retrying while the kernel finishes tearing down exited tasks),
    /// and the host's end of a general-purpose partition's link.
    pub fn remove_groups(&self) -> Vec<String> {
        crate::general::remove_link(self.spec(), self.index);
        let mut errors = Vec::new();
        for g in &self.groups {
            let mut last = None;
            for _ in 0..100 {
                for p in g.processes() {
                    let _ = partita_sys::proc::kill(p, 9);
                }
                match g.remove() {
                    Ok(()) => {
                        last = None;
                        break;
                    }
                    Err(e) => last = Some(e),
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            if let Some(e) = last {
                errors.push(e.to_string());
            }
        }
        errors
    }
}

impl LifeCycle for Partition {
    fn name(&self) -> &str {
        &self.spec().name
    }

    fn id(&self) -> i32 {
        Partition::id(self)
    }

    fn is_system(&self) -> bool {
        self.spec().system
    }

    fn published_mode(&self) -> Result<OperatingMode, DecodeError> {
        self.control().operating_mode()
    }

    fn incarnation(&self) -> u32 {
        self.state.lock().expect("partition state").restarts
    }

    fn change(
        &self,
        decide: &mut dyn FnMut(Life, Result<OperatingMode, DecodeError>) -> Option<Change>,
    ) -> bool {
        let mut d = self.state.lock().expect("partition state");
        let mode = d.life.reported_mode(|| self.published_mode());
        match decide(d.life, mode) {
            None => false,
            Some(Change::Idle) => {
                d.life = Life::Idle;
                true
            }
            Some(Change::Restart { mode, condition }) => {
                d.life = Life::RestartPending(mode);
                d.hm_restart = Some(condition);
                true
            }
        }
    }

    fn status(&self) -> Status {
        let d = self.state.lock().expect("partition state");
        let c = self.control();
        let timing = self.plan.initial_timing(self.index);
        Status {
            mode: d.life.reported_mode(|| self.published_mode()),
            period: timing.period,
            duration: timing.duration,
            lock_level: c.lock_level.load(Ordering::Acquire),
            // Written by the manager.
            start_condition: StartCondition::from_raw(c.start_condition.load(Ordering::Acquire))
                .unwrap_or_default(),
            cores: self.cpus.len() as u32,
            restarts: d.restarts,
            windows: d.windows,
            has_process: d.pid > 0,
        }
    }

    fn mailbox(&self) -> &control::Mailbox {
        &self.control().mbox
    }

    fn exec_failed(&self, error: String) {
        self.state.lock().expect("partition state").exec_error = Some(error);
    }
}

/// The environment of partition `config`: the manager's, without its `PARTITA_` variables,
/// then the control and report descriptors, the partition's name and entry function, `extra`
/// and the port directory variable.
fn environment(
    config: &CompiledPartition,
    extra: &[(String, String)],
    ports: Option<&(String, String)>,
) -> Vec<CString> {
    let mut envp: Vec<CString> = Vec::new();
    for (k, v) in std::env::vars_os() {
        let k = k.to_string_lossy();
        if k.starts_with("PARTITA_") {
            continue;
        }
        let mut kv = k.as_bytes().to_vec();
        kv.push(b'=');
        kv.extend_from_slice(std::os::unix::ffi::OsStrExt::as_bytes(v.as_os_str()));
        if let Ok(c) = CString::new(kv) {
            envp.push(c);
        }
    }
    let own = [
        (control::ENV_CONTROL_FD, control::CONTROL_FD.to_string()),
        (control::ENV_REPORT_FD, control::REPORT_FD.to_string()),
        ("PARTITA_PARTITION", config.name.clone()),
        (control::ENV_ENTRY_FUNCTION, config.entry_function.clone()),
    ];
    let own = own.iter().map(|(k, v)| (*k, v.as_str()));
    let extra = extra
        .iter()
        .chain(ports)
        .map(|(k, v)| (k.as_str(), v.as_str()));
    for (k, v) in own.chain(extra) {
        if let Ok(c) = CString::new(format!("{k}={v}")) {
            envp.push(c);
        }
    }
    envp
}

/// The operating mode a start condition begins in.
fn start_condition_mode(_start_condition: StartCondition) -> OperatingMode {
    OperatingMode::ColdStart
}

/// `name` with every character outside ASCII letters, digits, `-`, `_` and `.` (not first)
/// replaced by `_`, for
/// file, cgroup and shared-memory object names. Configured names are already held to a safe
/// set by the `unsafe-name` rule (and the plan loader); this keeps a plan built any other way
/// from reaching outside its directory.
pub(crate) fn sanitize(name: &str) -> String {
    name.chars()
        .enumerate()
        .map(|(i, c)| {
            let safe = c.is_ascii_alphanumeric() || matches!(c, '-' | '_') || (c == '.' && i > 0);
            if safe {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn read_parent_mems(root: &std::path::Path) -> String {
    std::fs::read_to_string(root.join("cpuset.mems"))
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "0".into())
}

/// v1 cpuset: intermediate groups start with empty `cpus`/`mems`; copy the root's.
fn prepare_cpuset_parents(root: &std::path::Path, run_dir: &str) -> Result<(), ManagerError> {
    // Another run that ends removes the shared parents when they are empty; a parent removed
    // between our mkdir and our write is re-created empty by the next mkdir, and a child's
    // CPUs must be a subset of its parent's (EACCES otherwise). Retry the whole path then.
    let mut attempt = 0;
    loop {
        match try_prepare_cpuset_parents(root, run_dir) {
            Ok(()) => return Ok(()),
            Err(e) if attempt < 20 => {
                attempt += 1;
                tracing::debug!("cpuset parents of {run_dir}: {e}; retrying");
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(e) => return Err(e),
        }
    }
}

fn try_prepare_cpuset_parents(root: &std::path::Path, run_dir: &str) -> Result<(), ManagerError> {
    let cpus = std::fs::read_to_string(root.join("cpuset.cpus")).unwrap_or_default();
    let mems = read_parent_mems(root);
    let mut p = PathBuf::from(root);
    for part in run_dir.split('/') {
        p.push(part);
        let g = Cgroup::create(&p)?;
        if g.read("cpuset.cpus")
            .map(|s| s.trim().is_empty())
            .unwrap_or(true)
        {
            g.write("cpuset.cpus", cpus.trim())?;
        }
        if g.read("cpuset.mems")
            .map(|s| s.trim().is_empty())
            .unwrap_or(true)
        {
            g.write("cpuset.mems", &mems)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::sanitize;

    #[test]
    fn sanitized_names_stay_inside_their_directory() {
        assert_eq!(sanitize("NAV_1.b-c"), "NAV_1.b-c");
        for (name, safe) in [
            ("..", "_."),
            ("../x", "_._x"),
            ("a/b", "a_b"),
            ("a\0\n", "a__"),
        ] {
            assert_eq!(sanitize(name), safe);
        }
    }
}
