// SPDX-License-Identifier: MIT OR Apache-2.0
//! Rules of multiple module schedules (ARINC 653 Part 2): schedule identifiers and names, the
//! size of the runtime's schedule table, and who may switch schedules.

use crate::diag::{Pos, Rule};
use crate::model::{MAX_NAME_LEN, MAX_SCHEDULES};
use crate::raw::val;
use std::collections::HashMap;

use super::Validator;

impl Validator<'_, '_, '_> {
    /// `duplicate-schedule-id` (explicit identifiers, and the position a schedule without one
    /// is numbered by), `duplicate-schedule-name`, `schedule-name-too-long`, `schedule-limit`.
    pub(super) fn schedule_identities(&mut self) {
        let raw = self.raw;
        if raw.schedules.len() > MAX_SCHEDULES {
            let s = &raw.schedules[MAX_SCHEDULES];
            self.sink
                .emit(
                    Rule::ScheduleLimit,
                    s.pos,
                    format!(
                        "the module has {} Module_Schedule elements; at most {MAX_SCHEDULES} are supported",
                        raw.schedules.len()
                    ),
                )
                .with_hint("merge schedules that differ only slightly, or split the module");
        }
        let mut ids: HashMap<u32, Pos> = HashMap::new();
        let mut names: HashMap<String, Pos> = HashMap::new();
        for (i, s) in raw.schedules.iter().enumerate() {
            let (id, at, implicit) = match &s.id {
                Some(id) => (id.value, id.pos, false),
                // Unreadable: its own diagnostic is out.
                None if s.id_written => continue,
                None => (i as u32, s.pos, true),
            };
            if let Some(&first) = ids.get(&id) {
                let msg = if implicit {
                    format!(
                        "this Module_Schedule has no ScheduleIdentifier, so it is numbered {id} (its position), which another schedule already uses"
                    )
                } else {
                    format!("schedule identifier {id} is used twice")
                };
                self.sink
                    .emit(Rule::DuplicateScheduleId, at, msg)
                    .with_hint("give every Module_Schedule its own ScheduleIdentifier")
                    .with_related(first, "first used here");
            } else {
                ids.insert(id, at);
            }
            let Some(name) = &s.name else { continue };
            let len = name.value.chars().count();
            if len > MAX_NAME_LEN {
                self.sink
                    .emit(
                        Rule::ScheduleNameTooLong,
                        name.pos,
                        format!(
                            "schedule name \"{}\" has {len} characters; ARINC 653 names have at most {MAX_NAME_LEN}",
                            name.value
                        ),
                    )
                    .with_hint("shorten the ScheduleName");
            }
            if let Some(&first) = names.get(&name.value) {
                self.sink
                    .emit(
                        Rule::DuplicateScheduleName,
                        name.pos,
                        format!("schedule name \"{}\" is used twice", name.value),
                    )
                    .with_hint("GET_MODULE_SCHEDULE_ID looks schedules up by name: name every Module_Schedule differently")
                    .with_related(first, "first used here");
            } else {
                names.insert(name.value.clone(), name.pos);
            }
        }
    }

    /// `set-module-schedule-not-system`: `SetModuleSchedule="true"` for a partition that is not
    /// a system partition.
    pub(super) fn schedule_rights(&mut self) {
        let raw = self.raw;
        for s in &raw.schedules {
            for ps in &s.partitions {
                let Some(flag) = &ps.set_schedule else {
                    continue;
                };
                if !flag.value {
                    continue;
                }
                let Some(&idx) = val(&ps.target.id).and_then(|id| self.by_id.get(&id)) else {
                    continue;
                };
                let system = raw
                    .partitions
                    .get(idx)
                    .and_then(|p| val(&p.system))
                    .unwrap_or(false);
                if !system {
                    let decl = raw.partitions[idx].pos;
                    self.sink
                        .emit(
                            Rule::SetScheduleNotSystem,
                            flag.pos,
                            format!(
                                "partition {} may not switch module schedules: it is not a system partition",
                                self.partition_label(idx)
                            ),
                        )
                        .with_hint("only partitions with SystemPartition=\"true\" may call SET_MODULE_SCHEDULE; remove SetModuleSchedule or make the partition a system partition")
                        .with_related(decl, "partition declared here");
                }
            }
        }
    }
}
