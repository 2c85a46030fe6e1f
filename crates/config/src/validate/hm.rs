// SPDX-License-Identifier: MIT OR Apache-2.0
//! Health-monitoring table rules.

use crate::diag::{Pos, Rule};
use crate::raw::RawHmEntry;
use std::collections::{BTreeSet, HashMap};

use super::Validator;

impl Validator<'_, '_, '_> {
    pub(super) fn health_monitoring(&mut self) {
        let raw = self.raw;
        let mut declared: HashMap<u32, BTreeSet<u32>> = HashMap::new();
        let mut states: HashMap<u32, Pos> = HashMap::new();
        for e in &raw.system_hm {
            let Some(state) = &e.state else { continue };
            if let Some(&first) = states.get(&state.value) {
                self.sink
                    .emit(
                        Rule::DuplicateHmEntry,
                        state.pos,
                        format!("System_HM_Table lists system state {} twice", state.value),
                    )
                    .with_hint("merge the duplicate entries into one")
                    .with_related(first, "first entry here");
                continue;
            }
            states.insert(state.value, state.pos);
            let mut ids: HashMap<u32, Pos> = HashMap::new();
            for l in &e.levels {
                let Some(id) = &l.id else { continue };
                if let Some(&first) = ids.get(&id.value) {
                    self.sink
                        .emit(
                            Rule::DuplicateHmEntry,
                            id.pos,
                            format!(
                                "error identifier {} is listed twice for system state {}",
                                id.value, state.value
                            ),
                        )
                        .with_hint("merge the duplicate entries into one")
                        .with_related(first, "first entry here");
                } else {
                    ids.insert(id.value, id.pos);
                }
            }
            declared.insert(state.value, ids.into_keys().collect());
        }
        let have_system = !raw.system_hm.is_empty();
        self.action_entries(&raw.module_hm, "Module_HM_Table", have_system, &declared);
        let mut tables: HashMap<usize, Pos> = HashMap::new();
        for t in &raw.partition_hm {
            if let Some(idx) =
                self.resolve(&t.target, Rule::HmUnknownPartition, "Partition_HM_Table")
            {
                if let Some(&first) = tables.get(&idx) {
                    self.sink
                        .emit(
                            Rule::DuplicateElement,
                            t.target.pos,
                            format!(
                                "second `Partition_HM_Table` for partition {}",
                                self.partition_label(idx)
                            ),
                        )
                        .with_hint("merge the two tables")
                        .with_related(first, "first one here");
                } else {
                    tables.insert(idx, t.target.pos);
                }
            }
            self.action_entries(&t.entries, "Partition_HM_Table", have_system, &declared);
        }
    }

    fn action_entries<A>(
        &mut self,
        entries: &[RawHmEntry<A>],
        table: &str,
        have_system: bool,
        declared: &HashMap<u32, BTreeSet<u32>>,
    ) {
        let mut states: HashMap<u32, Pos> = HashMap::new();
        for e in entries {
            let Some(state) = &e.state else { continue };
            if let Some(&first) = states.get(&state.value) {
                self.sink
                    .emit(
                        Rule::DuplicateHmEntry,
                        state.pos,
                        format!("{table} lists system state {} twice", state.value),
                    )
                    .with_hint("merge the duplicate entries into one")
                    .with_related(first, "first entry here");
                continue;
            }
            states.insert(state.value, state.pos);
            let known = declared.get(&state.value);
            if have_system && known.is_none() {
                self.sink
                    .emit(
                        Rule::HmUnknownError,
                        state.pos,
                        format!(
                            "system state {} is not declared in System_HM_Table",
                            state.value
                        ),
                    )
                    .with_hint("declare it as a <System_State_Entry> of the System_HM_Table");
            }
            let mut ids: HashMap<u32, Pos> = HashMap::new();
            for a in &e.actions {
                let Some(id) = &a.id else { continue };
                if let Some(&first) = ids.get(&id.value) {
                    self.sink
                        .emit(
                            Rule::DuplicateHmEntry,
                            id.pos,
                            format!(
                                "{table} gives error identifier {} twice for system state {}",
                                id.value, state.value
                            ),
                        )
                        .with_hint("merge the duplicate entries into one")
                        .with_related(first, "first entry here");
                    continue;
                }
                ids.insert(id.value, id.pos);
                if let Some(known) = known {
                    if !known.contains(&id.value) {
                        self.sink
                            .emit(
                                Rule::HmUnknownError,
                                id.pos,
                                format!(
                                    "error identifier {} is not declared for system state {} in System_HM_Table",
                                    id.value, state.value
                                ),
                            )
                            .with_hint("declare it with an <Error_ID_Level> in the System_HM_Table");
                    }
                }
            }
        }
    }
}
