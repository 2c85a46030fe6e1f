// SPDX-License-Identifier: MIT OR Apache-2.0
//! Building a [`CompiledPlan`] in code, for modules that have no configuration file (the
//! benchmarks, tests): one module schedule, each partition scheduled once per major frame.

use crate::model::{Backend, Channel, Criticality, HmTables, ModuleSchedule, ScheduledPartition};
use crate::plan::{CompiledPartition, CompiledPlan, Inconsistency};
use partita_schedule::FramePlan;
use std::path::PathBuf;

impl CompiledPartition {
    /// A partition running `executable` from its default entry function with no argument, no
    /// resource limit, no port and the cores of its windows: set the other fields before
    /// handing it to [`PlanBuilder`].
    pub fn new(id: u32, name: &str, executable: impl Into<PathBuf>) -> CompiledPartition {
        CompiledPartition {
            index: 0,
            id,
            name: name.to_string(),
            criticality: Criticality::LevelA,
            system: false,
            entry_point: None,
            executable: executable.into(),
            entry_function: crate::model::DEFAULT_ENTRY_FUNCTION.to_string(),
            args: Vec::new(),
            cores: Vec::new(),
            memory_limit: None,
            max_processes: None,
            stack_size: None,
            period: None,
            duration: None,
            period_origin: None,
            ports: Vec::new(),
            memory: Vec::new(),
            processes: Vec::new(),
            process_policy: None,
            general_purpose: None,
        }
    }
}

/// Builds a plan with one module schedule, `frame`: every partition's period is the major
/// frame and its duration the time of its windows in one major frame.
#[derive(Debug, Clone)]
pub struct PlanBuilder {
    module_name: String,
    frame: FramePlan,
    partitions: Vec<CompiledPartition>,
    channels: Vec<Channel>,
}

impl PlanBuilder {
    /// A module called `module_name` running `frame` (whose windows name partitions by the
    /// order they are added in).
    pub fn new(module_name: &str, frame: FramePlan) -> PlanBuilder {
        PlanBuilder {
            module_name: module_name.to_string(),
            frame,
            partitions: Vec::new(),
            channels: Vec::new(),
        }
    }

    /// Adds the next partition (its index is the number of partitions added before).
    pub fn partition(mut self, p: CompiledPartition) -> PlanBuilder {
        self.partitions.push(p);
        self
    }

    /// Adds a channel (its partition ends refer to partition indices).
    pub fn channel(mut self, c: Channel) -> PlanBuilder {
        self.channels.push(c);
        self
    }

    /// The plan, checked ([`CompiledPlan::check_consistency`]).
    pub fn build(self) -> Result<CompiledPlan, Inconsistency> {
        let frame = self.frame;
        let scheduled: Vec<ScheduledPartition> = (0..self.partitions.len())
            .filter(|&i| frame.windows.iter().any(|w| w.partition == i))
            .map(|i| ScheduledPartition {
                partition: i,
                period: frame.major_frame,
                duration: frame
                    .windows
                    .iter()
                    .filter(|w| w.partition == i)
                    .map(|w| w.duration)
                    .sum(),
                period_origin: frame.period_origin(i),
                change_action: crate::model::ScheduleChangeAction::Ignore,
                set_module_schedule: true,
            })
            .collect();
        let partitions = self
            .partitions
            .into_iter()
            .enumerate()
            .map(|(index, p)| {
                let timing = scheduled.iter().find(|s| s.partition == index);
                CompiledPartition {
                    index,
                    period: timing.map(|t| t.period),
                    duration: timing.map(|t| t.duration),
                    period_origin: timing.map(|t| t.period_origin),
                    ..p
                }
            })
            .collect();
        let plan = CompiledPlan {
            module_name: self.module_name,
            module_version: None,
            module_id: None,
            schedules: vec![ModuleSchedule {
                id: 0,
                name: None,
                initial: true,
                plan: frame,
                partitions: scheduled,
            }],
            initial_schedule: 0,
            partitions,
            channels: self.channels,
            hm: HmTables::default(),
            backend: Backend::Auto,
            // Built in code: there is no configuration file.
            source_path: PathBuf::new(),
            source_sha256: String::new(),
        };
        plan.check_consistency()?;
        Ok(plan)
    }
}
