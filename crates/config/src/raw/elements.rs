// SPDX-License-Identifier: MIT OR Apache-2.0
//! One reader per element of the configuration, from the root down.

use crate::diag::{Pos, Rule};
use crate::model::{
    Backend, Criticality, ErrorCode, ErrorLevel, MemoryAccess, ModuleAction, NetworkMode,
    PartitionAction, PortDirection, PortKind, ProcessPolicy, ScheduleChangeAction,
};
use roxmltree::Node;

use super::names::*;
use super::parser::{display, element_name, Name, Parser};
use super::{
    parse_core_list, RawBind, RawChannel, RawEndpoint, RawErrorAction, RawErrorLevel,
    RawExecutable, RawGeneralPurpose, RawHmEntry, RawMemoryRequirement, RawModule, RawPartition,
    RawPartitionHmTable, RawPartitionMemory, RawPartitionSchedule, RawPort, RawProcess, RawPseudo,
    RawResources, RawSchedule, RawSide, RawSystemStateEntry, RawWindow, Sp, MAX_CORES,
};

impl<'d, 'i> Parser<'d, 'i, '_> {
    pub(super) fn module(&mut self, root: Node<'d, 'i>) -> Option<RawModule> {
        let pos = self.node_pos(root);
        if element_name(root) != Name::Std("ARINC_653_Module") {
            self.sink
                .emit(
                    Rule::BadRoot,
                    pos,
                    format!(
                        "the root element is `{}`, expected `ARINC_653_Module`",
                        root.tag_name().name()
                    ),
                )
                .with_hint("an ARINC 653 module configuration starts with <ARINC_653_Module ModuleName=\"...\">");
            return None;
        }
        self.check_attrs(root, ROOT_ATTRS);
        let mut m = RawModule {
            pos,
            name: self.name(root, "ModuleName", true),
            version: self.string(root, "ModuleVersion", false),
            module_id: self.string(root, "ModuleId", false),
            ..RawModule::default()
        };
        let mut firsts: Vec<(&str, Pos)> = Vec::new();
        for c in Self::elements(root) {
            let name = element_name(c);
            let single = match name {
                Name::Std(s @ ("Connection_Table" | "System_HM_Table" | "Module_HM_Table")) => {
                    Some(s)
                }
                Name::Ext("Backend") => Some("partita:Backend"),
                _ => None,
            };
            if let Some(s) = single {
                let cpos = self.node_pos(c);
                if let Some(&(_, first)) = firsts.iter().find(|(k, _)| *k == s) {
                    self.duplicate_element(c, first, s);
                    continue;
                }
                firsts.push((s, cpos));
            }
            match name {
                Name::Std("Partition") => {
                    let p = self.partition(c);
                    m.partitions.push(p);
                }
                Name::Std("Partition_Memory") => {
                    let pm = self.partition_memory(c);
                    m.memories.push(pm);
                }
                Name::Std("Module_Schedule") => {
                    let s = self.schedule(c);
                    m.schedules.push(s);
                }
                Name::Std("Connection_Table") => {
                    self.check_attrs(c, NO_NAMES);
                    for ch in Self::elements(c) {
                        if element_name(ch) == Name::Std("Channel") {
                            let chan = self.channel(ch);
                            m.channels.push(chan);
                        } else {
                            self.unknown_element(ch, "Connection_Table", CTABLE_CHILDREN);
                        }
                    }
                }
                Name::Std("System_HM_Table") => {
                    self.check_attrs(c, NO_NAMES);
                    for e in Self::elements(c) {
                        if element_name(e) == Name::Std("System_State_Entry") {
                            let entry = self.system_state(e);
                            m.system_hm.push(entry);
                        } else {
                            self.unknown_element(e, "System_HM_Table", HM_TABLE_CHILDREN);
                        }
                    }
                }
                Name::Std("Module_HM_Table") => {
                    self.check_attrs(c, NO_NAMES);
                    m.module_hm = self.hm_entries(
                        c,
                        "Module_HM_Table",
                        ModuleAction::VALUES,
                        MODULE_ACTION_ATTRS,
                    );
                }
                Name::Std("Partition_HM_Table") => {
                    self.check_attrs(c, REF_ATTRS);
                    let target = self.partition_ref(c);
                    let entries = self.hm_entries(
                        c,
                        "Partition_HM_Table",
                        PartitionAction::VALUES,
                        PARTITION_ACTION_ATTRS,
                    );
                    m.partition_hm.push(RawPartitionHmTable { target, entries });
                }
                Name::Ext("Backend") => {
                    self.check_attrs(c, BACKEND_ATTRS);
                    m.backend = self.choice(c, "name", true, Backend::VALUES);
                }
                _ => self.unknown_element(c, "ARINC_653_Module", ROOT_CHILDREN),
            }
        }
        Some(m)
    }

    fn partition(&mut self, n: Node<'d, 'i>) -> RawPartition {
        self.check_attrs(n, PARTITION_ATTRS);
        let mut p = RawPartition {
            pos: self.node_pos(n),
            id: self.u32(n, "PartitionIdentifier", true, 0),
            name: self.name(n, "PartitionName", true),
            criticality: self.choice(n, "Criticality", true, Criticality::VALUES),
            system: self.boolean(n, "SystemPartition"),
            entry_point: self.string(n, "EntryPoint", false),
            executable: None,
            resources: None,
            processes: Vec::new(),
            process_policy: None,
            ports: Vec::new(),
            general_purpose: None,
        };
        let mut firsts: Vec<(&str, Pos)> = Vec::new();
        for c in Self::elements(n) {
            let name = element_name(c);
            if let Name::Ext(
                s @ ("Executable" | "Resources" | "ProcessScheduling" | "GeneralPurpose"),
            ) = name
            {
                if let Some(&(_, first)) = firsts.iter().find(|(k, _)| *k == s) {
                    self.duplicate_element(c, first, &display(true, s));
                    continue;
                }
                let cpos = self.node_pos(c);
                firsts.push((s, cpos));
            }
            match name {
                Name::Std("Sampling_Port") => {
                    let port = self.port(c, PortKind::Sampling);
                    p.ports.push(port);
                }
                Name::Std("Queuing_Port") => {
                    let port = self.port(c, PortKind::Queuing);
                    p.ports.push(port);
                }
                Name::Ext("Executable") => {
                    self.check_attrs(c, EXECUTABLE_ATTRS);
                    let path = self.string(c, "path", true);
                    let mut args = Vec::new();
                    for a in Self::elements(c) {
                        if element_name(a) == Name::Ext("Arg") {
                            self.check_attrs(a, NO_NAMES);
                            for inner in Self::elements(a) {
                                self.unknown_element(inner, "partita:Arg", NO_NAMES);
                            }
                            let text: String = a
                                .descendants()
                                .filter(|d| d.is_text())
                                .filter_map(|d| d.text())
                                .collect();
                            let pos = self.node_pos(a);
                            if self.value_within_bound(&text, pos, "partita:Arg") {
                                args.push(Sp { value: text, pos });
                            }
                        } else {
                            self.unknown_element(a, "partita:Executable", EXECUTABLE_CHILDREN);
                        }
                    }
                    p.executable = Some(RawExecutable { path, args });
                }
                Name::Ext("Resources") => {
                    self.check_attrs(c, RESOURCES_ATTRS);
                    let cores = self.core_list(c, "cores");
                    p.resources = Some(RawResources {
                        memory_bytes: self.size(c, "memoryBytes", false, 1),
                        max_processes: self.u32(c, "maxProcesses", false, 1),
                        stack_bytes: self.size(c, "stackBytes", false, 1),
                        cores,
                    });
                    self.no_children(c, "partita:Resources");
                }
                Name::Ext("Process") => {
                    self.check_attrs(c, PROCESS_ATTRS);
                    p.processes.push(RawProcess {
                        name: self.name(c, "name", true),
                        period: self.time(c, "periodSeconds", false),
                        wcet: self.time(c, "wcetSeconds", false),
                        deadline: self.time(c, "deadlineSeconds", false),
                        priority: self.u32(c, "priority", false, 0),
                    });
                    self.no_children(c, "partita:Process");
                }
                Name::Ext("GeneralPurpose") => {
                    let gp = self.general_purpose(c);
                    p.general_purpose = Some(gp);
                }
                Name::Ext("ProcessScheduling") => {
                    self.check_attrs(c, POLICY_ATTRS);
                    p.process_policy = self.choice(c, "policy", true, ProcessPolicy::VALUES);
                    self.no_children(c, "partita:ProcessScheduling");
                }
                _ => self.unknown_element(c, "Partition", PARTITION_CHILDREN),
            }
        }
        p
    }

    /// Reads core-list attribute `key` of `n` (`"0"`, `"0,1"`, `"0-3"`).
    fn core_list(&mut self, n: Node<'d, 'i>, key: &str) -> Option<Sp<Vec<u32>>> {
        let v = self.get(n, key, false)?;
        match parse_core_list(&v.text) {
            Ok(list) => Some(Sp {
                value: list,
                pos: v.pos,
            }),
            Err(why) => {
                self.sink
                    .emit(
                        Rule::BadNumber,
                        v.pos,
                        format!("`{key}` = \"{}\": {why}", v.text),
                    )
                    .with_hint("write a core list such as \"0\", \"0,1\" or \"0-3\"");
                None
            }
        }
    }

    /// `partita:GeneralPurpose` and its `partita:Bind` children.
    fn general_purpose(&mut self, n: Node<'d, 'i>) -> RawGeneralPurpose {
        self.check_attrs(n, GENERAL_PURPOSE_ATTRS);
        let mut gp = RawGeneralPurpose {
            pos: self.node_pos(n),
            background: self.core_list(n, "background"),
            network: self.choice(n, "network", false, NetworkMode::VALUES),
            host_address: self.string(n, "hostAddress", false),
            address: self.string(n, "address", false),
            binds: Vec::new(),
        };
        for c in Self::elements(n) {
            if element_name(c) == Name::Ext("Bind") {
                self.check_attrs(c, BIND_ATTRS);
                gp.binds.push(RawBind {
                    source: self.string(c, "source", true),
                    target: self.string(c, "target", true),
                    access: self.choice(c, "access", false, MemoryAccess::VALUES),
                });
                self.no_children(c, "partita:Bind");
            } else {
                self.unknown_element(c, "partita:GeneralPurpose", GENERAL_PURPOSE_CHILDREN);
            }
        }
        gp
    }

    fn no_children(&mut self, n: Node<'d, 'i>, what: &str) {
        for c in Self::elements(n) {
            self.unknown_element(c, what, NO_NAMES);
        }
    }

    fn port(&mut self, n: Node<'d, 'i>, kind: PortKind) -> RawPort {
        let sampling = kind == PortKind::Sampling;
        self.check_attrs(
            n,
            if sampling {
                SAMPLING_ATTRS
            } else {
                QUEUING_ATTRS
            },
        );
        let name = self.name(n, "Name", true);
        let max_message_size = self.u32(n, "MaxMessageSize", true, 1);
        let direction = self.choice(n, "Direction", true, PortDirection::VALUES);
        let is_dest = direction.as_ref().map(|d| d.value) == Some(PortDirection::Destination);
        let (refresh, max_nb_messages) = if sampling {
            (self.time(n, "RefreshRateSeconds", is_dest), None)
        } else {
            (None, self.u32(n, "MaxNbMessages", true, 1))
        };
        self.no_children(
            n,
            if sampling {
                "Sampling_Port"
            } else {
                "Queuing_Port"
            },
        );
        RawPort {
            pos: self.node_pos(n),
            kind,
            name,
            max_message_size,
            direction,
            refresh,
            max_nb_messages,
        }
    }

    fn partition_memory(&mut self, n: Node<'d, 'i>) -> RawPartitionMemory {
        self.check_attrs(n, REF_ATTRS);
        let target = self.partition_ref(n);
        let mut requirements = Vec::new();
        for c in Self::elements(n) {
            if element_name(c) == Name::Std("Memory_Requirements") {
                self.check_attrs(c, MEMREQ_ATTRS);
                requirements.push(RawMemoryRequirement {
                    name: self.string(c, "RegionName", false),
                    kind: self.string(c, "Type", true),
                    size: self.size(c, "SizeBytes", true, 1),
                    access: self.choice(c, "Access", true, MemoryAccess::VALUES),
                    physical_address: self.u64(c, "PhysicalAddress", false, 0),
                });
                self.no_children(c, "Memory_Requirements");
            } else {
                self.unknown_element(c, "Partition_Memory", MEMORY_CHILDREN);
            }
        }
        RawPartitionMemory {
            target,
            requirements,
        }
    }

    fn schedule(&mut self, n: Node<'d, 'i>) -> RawSchedule {
        self.check_attrs(n, SCHEDULE_ATTRS);
        let mut s = RawSchedule {
            pos: self.node_pos(n),
            // SCHEDULE_ID_TYPE is an APEX_INTEGER: identifiers must fit in 31 bits.
            id: self
                .uint(n, "ScheduleIdentifier", false, 0, i32::MAX as u64)
                .map(|s| Sp {
                    value: s.value as u32,
                    pos: s.pos,
                }),
            id_written: n.attribute("ScheduleIdentifier").is_some(),
            name: self.name(n, "ScheduleName", false),
            initial: self.boolean(n, "InitialModuleSchedule"),
            major_frame: self.time(n, "MajorFrameSeconds", true),
            partitions: Vec::new(),
        };
        for c in Self::elements(n) {
            match element_name(c) {
                Name::Std("Partition_Schedule") => {
                    let ps = self.partition_schedule(c);
                    s.partitions.push(ps);
                }
                Name::Std("Window_Schedule") => {
                    let pos = self.node_pos(c);
                    let id = c
                        .attribute("WindowIdentifier")
                        .map(|i| format!(" {i}"))
                        .unwrap_or_default();
                    self.sink
                        .emit(
                            Rule::WindowUnknownPartition,
                            pos,
                            format!(
                                "window{id} is directly inside `Module_Schedule`, so it belongs to no partition"
                            ),
                        )
                        .with_hint("move it into the <Partition_Schedule PartitionIdentifier=\"...\"> of the partition it is for");
                }
                _ => self.unknown_element(c, "Module_Schedule", SCHEDULE_CHILDREN),
            }
        }
        s
    }

    fn partition_schedule(&mut self, n: Node<'d, 'i>) -> RawPartitionSchedule {
        self.check_attrs(n, PSCHED_ATTRS);
        let mut ps = RawPartitionSchedule {
            target: self.partition_ref(n),
            period: self.time(n, "PeriodSeconds", true),
            duration: self.time(n, "PeriodDurationSeconds", true),
            change_action: self.choice(
                n,
                "ScheduleChangeAction",
                false,
                ScheduleChangeAction::VALUES,
            ),
            set_schedule: self.boolean(n, "SetModuleSchedule"),
            windows: Vec::new(),
        };
        for c in Self::elements(n) {
            if element_name(c) == Name::Std("Window_Schedule") {
                self.check_attrs(c, WINDOW_ATTRS);
                ps.windows.push(RawWindow {
                    pos: self.node_pos(c),
                    id: self.u32(c, "WindowIdentifier", true, 0),
                    start: self.time(c, "WindowStartSeconds", true),
                    duration: self.time(c, "WindowDurationSeconds", true),
                    period_start: self.boolean(c, "PartitionPeriodStart"),
                    core: self.u32(c, "partita:Core", false, 0).and_then(|s| {
                        if s.value >= MAX_CORES {
                            self.sink.emit(
                                Rule::BadNumber,
                                s.pos,
                                format!(
                                    "`partita:Core` = {} is out of range (0..{})",
                                    s.value,
                                    MAX_CORES - 1
                                ),
                            );
                            None
                        } else {
                            Some(s)
                        }
                    }),
                });
                self.no_children(c, "Window_Schedule");
            } else {
                self.unknown_element(c, "Partition_Schedule", PSCHED_CHILDREN);
            }
        }
        ps
    }

    fn channel(&mut self, n: Node<'d, 'i>) -> RawChannel {
        self.check_attrs(n, CHANNEL_ATTRS);
        let mut ch = RawChannel {
            pos: self.node_pos(n),
            id: self.u32(n, "ChannelIdentifier", true, 0),
            name: self.name(n, "ChannelName", false),
            sources: Vec::new(),
            destinations: Vec::new(),
        };
        for c in Self::elements(n) {
            let name = element_name(c);
            let is_source = match name {
                Name::Std("Source") => true,
                Name::Std("Destination") => false,
                _ => {
                    self.unknown_element(c, "Channel", CHANNEL_CHILDREN);
                    continue;
                }
            };
            self.check_attrs(c, NO_NAMES);
            let side_name = if is_source { "Source" } else { "Destination" };
            let mut side = RawSide {
                pos: self.node_pos(c),
                endpoints: Vec::new(),
            };
            for e in Self::elements(c) {
                match element_name(e) {
                    Name::Std("Standard_Partition") => {
                        self.check_attrs(e, STANDARD_ATTRS);
                        let target = self.partition_ref(e);
                        let port = self.name(e, "PortName", true);
                        self.no_children(e, "Standard_Partition");
                        side.endpoints.push(RawEndpoint::Standard { target, port });
                    }
                    Name::Std("Pseudo_Partition") => {
                        self.check_attrs(e, PSEUDO_ATTRS);
                        let pseudo = RawPseudo {
                            pos: self.node_pos(e),
                            name: self.name(e, "Name", true),
                            port: self.name(e, "PortName", false),
                            udp: self.string(e, "partita:Udp", false),
                            file: self.string(e, "partita:File", false),
                            fifo: self.string(e, "partita:Fifo", false),
                        };
                        self.no_children(e, "Pseudo_Partition");
                        side.endpoints.push(RawEndpoint::Pseudo(pseudo));
                    }
                    _ => self.unknown_element(e, side_name, SIDE_CHILDREN),
                }
            }
            if is_source {
                ch.sources.push(side);
            } else {
                ch.destinations.push(side);
            }
        }
        ch
    }

    fn system_state(&mut self, n: Node<'d, 'i>) -> RawSystemStateEntry {
        self.check_attrs(n, STATE_ATTRS);
        let mut e = RawSystemStateEntry {
            state: self.u32(n, "SystemState", true, 0),
            description: self.string(n, "Description", false),
            levels: Vec::new(),
        };
        for c in Self::elements(n) {
            if element_name(c) == Name::Std("Error_ID_Level") {
                self.check_attrs(c, ERROR_LEVEL_ATTRS);
                e.levels.push(RawErrorLevel {
                    id: self.u32(c, "ErrorIdentifier", true, 0),
                    description: self.string(c, "Description", false),
                    level: self.choice(
                        c,
                        "ErrorLevel",
                        true,
                        &ErrorLevel::names().collect::<Vec<_>>(),
                    ),
                    code: self.choice(
                        c,
                        "ErrorCode",
                        false,
                        &ErrorCode::names().collect::<Vec<_>>(),
                    ),
                });
                self.no_children(c, "Error_ID_Level");
            } else {
                self.unknown_element(c, "System_State_Entry", SYSTEM_STATE_CHILDREN);
            }
        }
        e
    }

    fn hm_entries<A: Copy>(
        &mut self,
        table: Node<'d, 'i>,
        table_name: &str,
        actions: &[(&str, A)],
        action_attrs: (&[&str], &[&str]),
    ) -> Vec<RawHmEntry<A>> {
        let mut entries = Vec::new();
        for e in Self::elements(table) {
            if element_name(e) != Name::Std("System_State_Entry") {
                self.unknown_element(e, table_name, HM_TABLE_CHILDREN);
                continue;
            }
            self.check_attrs(e, STATE_ATTRS);
            let mut entry = RawHmEntry {
                state: self.u32(e, "SystemState", true, 0),
                description: self.string(e, "Description", false),
                actions: Vec::new(),
            };
            for c in Self::elements(e) {
                if element_name(c) == Name::Std("Error_ID_Action") {
                    self.check_attrs(c, action_attrs);
                    let with_code = action_attrs.0.contains(&"ErrorCode");
                    entry.actions.push(RawErrorAction {
                        id: self.u32(c, "ErrorIdentifier", true, 0),
                        action: self.choice(c, "Action", true, actions),
                        code: if with_code {
                            self.choice(
                                c,
                                "ErrorCode",
                                false,
                                &ErrorCode::names().collect::<Vec<_>>(),
                            )
                        } else {
                            None
                        },
                    });
                    self.no_children(c, "Error_ID_Action");
                } else {
                    self.unknown_element(c, "System_State_Entry", ACTION_STATE_CHILDREN);
                }
            }
            entries.push(entry);
        }
        entries
    }
}
