// SPDX-License-Identifier: MIT OR Apache-2.0
//! What the manager runs: a module plan independent of the XML front end.

use partita_schedule::{FramePlan, Nanos};
use std::ffi::OsString;
use std::path::PathBuf;

/// One partition to run.
#[derive(Debug, Clone)]
pub struct PartitionSpec {
    /// `PartitionName`.
    pub name: String,
    /// `PartitionIdentifier`.
    pub id: i32,
    /// Executable.
    pub executable: PathBuf,
    /// Arguments (after argv[0]).
    pub args: Vec<OsString>,
    /// The function the partition starts at (`EntryPoint` with `partita:Executable`; `main`
    /// by default), passed to the runtime in [`partita_sys::control::ENV_ENTRY_FUNCTION`].
    pub entry_function: String,
    /// CPUs the partition may run on; empty: the cores of its windows.
    pub cpus: Vec<u32>,
    /// Memory limit in bytes.
    pub memory_limit: Option<u64>,
    /// Maximum number of APEX processes (0: the runtime default).
    pub max_processes: u32,
    /// Total stack bytes for its processes (0: unlimited).
    pub stack_bytes: u64,
    /// `PeriodSeconds` in ns.
    pub period: Nanos,
    /// `PeriodDurationSeconds` in ns.
    pub duration: Nanos,
    /// `SystemPartition`.
    pub system: bool,
    /// Earliest-deadline-first process scheduling inside the partition (the
    /// `partita:ProcessScheduling policy="EDF"` extension) instead of ARINC 653 priorities.
    pub edf: bool,
}

/// A module to run.
#[derive(Debug, Clone)]
pub struct ModulePlan {
    /// `ModuleName`.
    pub name: String,
    /// The window table (partition indices refer to `partitions`).
    pub frame: FramePlan,
    /// Partitions, by index.
    pub partitions: Vec<PartitionSpec>,
    /// Health-monitoring tables (System_HM_Table, Module_HM_Table, Partition_HM_Tables).
    pub hm: partita_config::model::HmTables,
    /// Multiple module schedules (ARINC 653 Part 2); empty: `frame` is the only schedule.
    pub schedules: ModuleSchedules,
    /// Channels of the connection table.
    pub channels: Vec<crate::ports::ChannelSpec>,
}

/// What a partition does when the module switches to a schedule (`ScheduleChangeAction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChangeAction {
    /// Keep running.
    #[default]
    Ignore,
    /// Restart in COLD_START.
    ColdStart,
    /// Restart in WARM_START.
    WarmStart,
}

/// A partition's part in one module schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScheduleTiming {
    /// `PeriodSeconds` in ns.
    pub period: Nanos,
    /// `PeriodDurationSeconds` in ns.
    pub duration: Nanos,
    /// Offset of its first period start in the frame.
    pub period_origin: Nanos,
    /// What it does when the module switches to this schedule.
    pub action: ChangeAction,
    /// It may call SET_MODULE_SCHEDULE while this schedule runs (with `system`).
    pub may_set: bool,
}

/// One module schedule.
#[derive(Debug, Clone)]
pub struct ScheduleSpec {
    /// `ScheduleIdentifier`.
    pub id: i32,
    /// `ScheduleName`.
    pub name: Option<String>,
    /// The window table.
    pub frame: FramePlan,
    /// Per partition index: its timing, `None` when the schedule does not run it.
    pub partitions: Vec<Option<ScheduleTiming>>,
}

/// The module schedules of a plan.
#[derive(Debug, Clone, Default)]
pub struct ModuleSchedules {
    /// Every schedule; empty: the plan's `frame` alone.
    pub list: Vec<ScheduleSpec>,
    /// Index of the initial schedule in `list`.
    pub initial: usize,
}

impl ModulePlan {
    /// Structural checks the manager relies on (the configuration validator reports the same
    /// problems with file positions; this guards plans built by other means).
    pub fn check(&self) -> Result<(), String> {
        if self.partitions.is_empty() {
            return Err("no partition".into());
        }
        let errs = self.frame.structural_errors();
        if let Some(e) = errs.first() {
            return Err(e.to_string());
        }
        for c in &self.channels {
            c.check(self.partitions.len())?;
        }
        for w in &self.frame.windows {
            if w.partition >= self.partitions.len() {
                return Err(format!(
                    "window {} names partition index {}",
                    w.id, w.partition
                ));
            }
        }
        let list = &self.schedules.list;
        if !list.is_empty() {
            if self.schedules.initial >= list.len() {
                return Err("the initial schedule does not exist".into());
            }
            if list.len() > partita_sys::control::schedule::MAX_SCHEDULES {
                return Err(format!(
                    "{} module schedules (at most {})",
                    list.len(),
                    partita_sys::control::schedule::MAX_SCHEDULES
                ));
            }
            for s in list {
                if let Some(e) = s.frame.structural_errors().first() {
                    return Err(format!("schedule {}: {e}", s.id));
                }
                if s.partitions.len() != self.partitions.len()
                    || s.frame
                        .windows
                        .iter()
                        .any(|w| w.partition >= self.partitions.len())
                {
                    return Err(format!("schedule {} does not match the partitions", s.id));
                }
            }
        }
        Ok(())
    }

    /// Every module schedule (the plan's `frame` as schedule 0 when `schedules` is empty) and
    /// the index of the initial one.
    pub fn schedule_list(&self) -> (Vec<ScheduleSpec>, usize) {
        if !self.schedules.list.is_empty() {
            return (self.schedules.list.clone(), self.schedules.initial);
        }
        let partitions = (0..self.partitions.len())
            .map(|i| {
                let p = &self.partitions[i];
                Some(ScheduleTiming {
                    period: p.period,
                    duration: p.duration,
                    period_origin: self.frame.period_origin(i),
                    action: ChangeAction::Ignore,
                    may_set: true,
                })
            })
            .collect();
        let only = ScheduleSpec {
            id: 0,
            name: None,
            frame: self.frame.clone(),
            partitions,
        };
        (vec![only], 0)
    }

    /// CPUs partition `index` runs on.
    pub fn cpus_of(&self, index: usize) -> Vec<u32> {
        let p = &self.partitions[index];
        if !p.cpus.is_empty() {
            return p.cpus.clone();
        }
        let mut c: Vec<u32> = std::iter::once(&self.frame)
            .chain(self.schedules.list.iter().map(|s| &s.frame))
            .flat_map(|f| f.windows.iter())
            .filter(|w| w.partition == index)
            .map(|w| w.core)
            .collect();
        c.sort_unstable();
        c.dedup();
        if c.is_empty() {
            c.push(0);
        }
        c
    }
}

use partita_config::model::ScheduleChangeAction;

impl ModulePlan {
    /// The plan the manager runs for a compiled configuration (its initial module schedule).
    pub fn from_compiled(c: &partita_config::CompiledPlan) -> Result<ModulePlan, String> {
        let schedule = c
            .initial()
            .ok_or_else(|| "the plan has no initial module schedule".to_string())?;
        let partitions = c
            .partitions
            .iter()
            .map(|p| PartitionSpec {
                name: p.name.clone(),
                id: p.id as i32,
                executable: p.executable.clone(),
                args: p.args.iter().map(OsString::from).collect(),
                entry_function: p.entry_function.clone(),
                cpus: p.cores.clone(),
                memory_limit: p.memory_limit,
                max_processes: p.max_processes.unwrap_or(0),
                stack_bytes: 0,
                period: p.period.unwrap_or(schedule.plan.major_frame),
                duration: p.duration.unwrap_or(0),
                system: p.system,
                edf: p.process_policy == Some(partita_config::model::ProcessPolicy::Edf),
            })
            .collect();
        let list = c
            .schedules
            .iter()
            .map(|s| ScheduleSpec {
                id: s.id as i32,
                name: s.name.clone(),
                frame: s.plan.clone(),
                partitions: (0..c.partitions.len())
                    .map(|i| {
                        s.partition(i).map(|t| ScheduleTiming {
                            period: t.period,
                            duration: t.duration,
                            period_origin: t.period_origin,
                            action: match t.change_action {
                                ScheduleChangeAction::Ignore => ChangeAction::Ignore,
                                ScheduleChangeAction::ColdStart => ChangeAction::ColdStart,
                                ScheduleChangeAction::WarmStart => ChangeAction::WarmStart,
                            },
                            may_set: t.set_module_schedule,
                        })
                    })
                    .collect(),
            })
            .collect();
        let plan = ModulePlan {
            name: c.module_name.clone(),
            frame: schedule.plan.clone(),
            partitions,
            hm: c.hm.clone(),
            schedules: ModuleSchedules {
                list,
                initial: c.initial_schedule,
            },
            channels: channels_of(c),
        };
        plan.check()?;
        Ok(plan)
    }
}

/// The channels of a compiled plan, with each partition end's port attributes.
fn channels_of(c: &partita_config::CompiledPlan) -> Vec<crate::ports::ChannelSpec> {
    use crate::ports::{ChannelSpec, EndSpec};
    use partita_config::model::Endpoint;
    let end = |e: &Endpoint| match e {
        Endpoint::Partition { partition, port } => EndSpec::Partition {
            partition: *partition,
            port: port.clone(),
            refresh: c
                .partitions
                .get(*partition)
                .and_then(|p| p.ports.iter().find(|q| &q.name == port))
                .and_then(|q| q.refresh_period),
        },
        Endpoint::Pseudo {
            name, transport, ..
        } => EndSpec::Pseudo {
            name: name.clone(),
            transport: transport.clone(),
        },
    };
    c.channels
        .iter()
        .map(|ch| ChannelSpec {
            id: ch.id,
            kind: ch.kind,
            max_message_size: ch.max_message_size,
            capacity: ch.max_nb_messages.unwrap_or(0),
            source: end(&ch.source),
            destinations: ch.destinations.iter().map(end).collect(),
        })
        .collect()
}
