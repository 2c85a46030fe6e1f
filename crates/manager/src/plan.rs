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
        for w in &self.frame.windows {
            if w.partition >= self.partitions.len() {
                return Err(format!(
                    "window {} names partition index {}",
                    w.id, w.partition
                ));
            }
        }
        Ok(())
    }

    /// CPUs partition `index` runs on.
    pub fn cpus_of(&self, index: usize) -> Vec<u32> {
        let p = &self.partitions[index];
        if !p.cpus.is_empty() {
            return p.cpus.clone();
        }
        let mut c: Vec<u32> = self
            .frame
            .windows
            .iter()
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
        let plan = ModulePlan {
            name: c.module_name.clone(),
            frame: schedule.plan.clone(),
            partitions,
            hm: c.hm.clone(),
        };
        plan.check()?;
        Ok(plan)
    }
}
