// SPDX-License-Identifier: MIT OR Apache-2.0
//! Partition rules (identifiers, names, executables, resources, processes) and partition
//! memory.

use crate::diag::{Pos, Rule};
use crate::entry::{self, EntryLookup};
use crate::limits::system;
use crate::model::{
    MemoryRequirement, Port, PortKind, DEFAULT_ENTRY_FUNCTION, MAX_MEMORY_BLOCKS,
    MAX_MEMORY_BLOCK_SIZE, MAX_NAME_LEN,
};
use crate::raw::{val, Opt, RawMemoryRequirement};
use crate::reach::{self, Lacks, PathUse};
use partita_abi::ids;
use std::collections::HashMap;
use std::path::Path;

use super::{absolute, resolve_path, Validator};

impl Validator<'_, '_, '_> {
    pub(super) fn partitions(&mut self) {
        let raw = self.raw;
        if raw.partitions.is_empty() {
            self.sink
                .emit(
                    Rule::MissingElement,
                    raw.pos,
                    "the module declares no `Partition`",
                )
                .with_hint("declare at least one <Partition PartitionIdentifier=\"1\" PartitionName=\"...\" Criticality=\"LEVEL_A\" EntryPoint=\"...\"/>");
        }
        if let Some(p) = raw.partitions.get(system::NUMBER_OF_PARTITIONS) {
            self.sink
                .emit(
                    Rule::SystemLimit,
                    p.pos,
                    format!(
                        "the module declares {} partitions; SYSTEM_LIMIT_NUMBER_OF_PARTITIONS is {}",
                        raw.partitions.len(),
                        system::NUMBER_OF_PARTITIONS
                    ),
                )
                .with_hint("the partition runtime's tables hold at most that many partitions");
        }
        let mut by_name: HashMap<&str, usize> = HashMap::new();
        for (i, p) in raw.partitions.iter().enumerate() {
            if let Some(id) = &p.id {
                if let Some(&first) = self.by_id.get(&id.value) {
                    let first_pos = raw.partitions[first]
                        .id
                        .as_ref()
                        .map_or(raw.partitions[first].pos, |s| s.pos);
                    self.sink
                        .emit(
                            Rule::DuplicatePartitionId,
                            id.pos,
                            format!("partition identifier {} is used twice", id.value),
                        )
                        .with_hint("every partition needs its own PartitionIdentifier")
                        .with_related(first_pos, "first defined here");
                } else {
                    self.by_id.insert(id.value, i);
                }
            }
            if let Some(name) = &p.name {
                if let Some(&first) = by_name.get(name.value.as_str()) {
                    let first_pos = raw.partitions[first]
                        .name
                        .as_ref()
                        .map_or(raw.partitions[first].pos, |s| s.pos);
                    self.sink
                        .emit(
                            Rule::DuplicatePartitionName,
                            name.pos,
                            format!("partition name \"{}\" is used twice", name.value),
                        )
                        .with_hint("every partition needs its own PartitionName")
                        .with_related(first_pos, "first defined here");
                } else {
                    by_name.insert(name.value.as_str(), i);
                }
                let len = name.value.chars().count();
                if len > MAX_NAME_LEN {
                    self.sink
                        .emit(
                            Rule::PartitionNameTooLong,
                            name.pos,
                            format!(
                                "partition name \"{}\" has {len} characters; ARINC 653 names have at most {MAX_NAME_LEN}",
                                name.value
                            ),
                        )
                        .with_hint("shorten the name (NAME_TYPE is 30 characters)");
                }
            }
            // Ports.
            self.port_limits(i);
            let mut ports: Vec<(Pos, Port)> = Vec::new();
            let mut port_names: HashMap<&str, Pos> = HashMap::new();
            for port in &p.ports {
                let Some(name) = &port.name else { continue };
                if let Some(&first) = port_names.get(name.value.as_str()) {
                    self.sink
                        .emit(
                            Rule::DuplicatePortName,
                            name.pos,
                            format!(
                                "partition {} has two ports named \"{}\"",
                                self.partition_name(i),
                                name.value
                            ),
                        )
                        .with_hint("port names must be unique within a partition")
                        .with_related(first, "first defined here");
                    continue;
                }
                port_names.insert(name.value.as_str(), name.pos);
                let len = name.value.chars().count();
                if len > MAX_NAME_LEN {
                    self.sink
                        .emit(
                            Rule::PortNameTooLong,
                            name.pos,
                            format!(
                                "port name \"{}\" has {len} characters; ARINC 653 names have at most {MAX_NAME_LEN}",
                                name.value
                            ),
                        )
                        .with_hint("shorten the name (NAME_TYPE is 30 characters)");
                }
                if let Some(r) = &port.refresh {
                    if r.value == 0 {
                        self.sink
                            .emit(
                                Rule::ZeroDuration,
                                r.pos,
                                format!("port \"{}\" has a zero RefreshRateSeconds", name.value),
                            )
                            .with_hint("a zero refresh period makes every received message invalid; give the validity period of a message");
                    }
                }
                if let (Some(size), Some(dir)) = (&port.max_message_size, &port.direction) {
                    ports.push((
                        port.pos,
                        Port {
                            name: name.value.clone(),
                            kind: port.kind,
                            direction: dir.value,
                            max_message_size: size.value,
                            refresh_period: val(&port.refresh),
                            max_nb_messages: val(&port.max_nb_messages),
                        },
                    ));
                }
            }
            self.ports.push(ports);
            // Processes.
            let mut proc_names: HashMap<&str, Pos> = HashMap::new();
            for pr in &p.processes {
                let Some(name) = &pr.name else { continue };
                if let Some(&first) = proc_names.get(name.value.as_str()) {
                    self.sink
                        .emit(
                            Rule::DuplicateProcessName,
                            name.pos,
                            format!(
                                "partition {} has two processes named \"{}\"",
                                self.partition_name(i),
                                name.value
                            ),
                        )
                        .with_hint("process names must be unique within a partition")
                        .with_related(first, "first defined here");
                } else {
                    proc_names.insert(name.value.as_str(), name.pos);
                }
            }
            self.executable(i);
            if self.ctx.check_executables {
                self.arguments_reachable(i);
            }
        }
    }

    /// The `system-limit` rule on the ports of partition `i`: message sizes and counts, and
    /// the number of ports of each kind.
    fn port_limits(&mut self, i: usize) {
        let p = &self.raw.partitions[i];
        for port in &p.ports {
            let values = [
                (
                    &port.max_message_size,
                    "MaxMessageSize",
                    "MESSAGE_SIZE",
                    system::MESSAGE_SIZE,
                    "split larger data over several messages",
                ),
                (
                    &port.max_nb_messages,
                    "MaxNbMessages",
                    "NUMBER_OF_MESSAGES",
                    system::NUMBER_OF_MESSAGES,
                    "a queuing port holds at most that many messages",
                ),
            ];
            for (value, attribute, constant, limit, hint) in values {
                let Some(v) = value.as_ref().filter(|v| v.value > limit) else {
                    continue;
                };
                self.sink
                    .emit(
                        Rule::SystemLimit,
                        v.pos,
                        format!(
                            "{attribute} {} is above SYSTEM_LIMIT_{constant} ({limit})",
                            v.value
                        ),
                    )
                    .with_hint(hint);
            }
        }
        for (kind, word, limit) in [
            (
                PortKind::Sampling,
                "SAMPLING",
                system::NUMBER_OF_SAMPLING_PORTS,
            ),
            (
                PortKind::Queuing,
                "QUEUING",
                system::NUMBER_OF_QUEUING_PORTS,
            ),
        ] {
            let of_kind: Vec<Pos> = p
                .ports
                .iter()
                .filter(|q| q.kind == kind)
                .map(|q| q.pos)
                .collect();
            if let Some(&pos) = of_kind.get(limit) {
                self.sink
                    .emit(
                        Rule::SystemLimit,
                        pos,
                        format!(
                            "partition {} declares {} {} ports; SYSTEM_LIMIT_NUMBER_OF_{word}_PORTS is {limit}",
                            self.partition_name(i),
                            of_kind.len(),
                            word.to_lowercase()
                        ),
                    )
                    .with_hint("the partition runtime's port table holds at most that many");
            }
        }
    }

    pub(super) fn executable_path(&self, i: usize) -> Opt<String> {
        let p = &self.raw.partitions[i];
        match &p.executable {
            Some(e) => e.path.clone(),
            None => p.entry_point.clone(),
        }
    }

    /// The entry function `EntryPoint` names: only with `partita:Executable` (without it,
    /// `EntryPoint` is the program's path and the partition starts at `main`).
    pub(super) fn entry_function(&self, i: usize) -> Opt<String> {
        let p = &self.raw.partitions[i];
        p.executable.as_ref().and(p.entry_point.clone())
    }

    /// Checks the entry function `EntryPoint` names (rule `entry-point-function`) in the
    /// executable at `full` (when executables are checked and it exists).
    fn entry_function_in(&mut self, i: usize, full: Option<&std::path::Path>) {
        let Some(function) = self.entry_function(i) else {
            return;
        };
        let name = function.value.as_str();
        if !entry::is_c_identifier(name) {
            self.sink
                .emit(
                    Rule::EntryPointFunction,
                    function.pos,
                    format!(
                        "EntryPoint \"{name}\" of partition {} is not a C function name",
                        self.partition_name(i)
                    ),
                )
                .with_hint("with <partita:Executable path=\"...\"/>, EntryPoint names the function the partition starts at (default main); the program's path goes in the path attribute");
            return;
        }
        let Some(full) = full else {
            return;
        };
        if name == DEFAULT_ENTRY_FUNCTION {
            return;
        }
        let problem = match entry::lookup(full, name) {
            Ok(EntryLookup::Exported | EntryLookup::NotElf) => return,
            Ok(EntryLookup::NotExported) => "defines it but does not export it",
            Ok(EntryLookup::Absent) => "has no such function",
            Err(e) => {
                self.sink
                    .emit(
                        Rule::EntryPointFunction,
                        function.pos,
                        format!(
                            "cannot read {} for EntryPoint \"{name}\": {e}",
                            full.display()
                        ),
                    )
                    .with_hint("the executable must be readable to check its entry function");
                return;
            }
        };
        self.sink
            .emit(
                Rule::EntryPointFunction,
                function.pos,
                format!(
                    "EntryPoint \"{name}\" of partition {}: the executable {} {problem}",
                    self.partition_name(i),
                    full.display()
                ),
            )
            .with_hint("the entry function must be a non-static function of the program, linked with `partita cc` (which exports it with -rdynamic)");
    }

    fn executable(&mut self, i: usize) {
        let p = &self.raw.partitions[i];
        let Some(path) = self.executable_path(i) else {
            if p.executable.is_none() {
                self.sink
                    .emit(
                        Rule::EntryPointMissing,
                        p.pos,
                        format!("partition {} has no executable", self.partition_name(i)),
                    )
                    .with_hint("give EntryPoint=\"path/to/program\" or a <partita:Executable path=\"...\"/> child (relative to the configuration file)");
            }
            return;
        };
        if path.value.trim().is_empty() {
            self.sink
                .emit(
                    Rule::EntryPointMissing,
                    path.pos,
                    format!(
                        "partition {} has an empty executable path",
                        self.partition_name(i)
                    ),
                )
                .with_hint(
                    "give the path of the partition program, relative to the configuration file",
                );
            return;
        }
        if !self.ctx.check_executables {
            self.entry_function_in(i, None);
            return;
        }
        let full = self.ctx.base_dir.join(&path.value);
        let shown = resolve_path(self.ctx.base_dir, &path.value);
        match std::fs::metadata(&full) {
            Err(e) => {
                let msg = if e.kind() == std::io::ErrorKind::NotFound {
                    format!(
                        "executable \"{}\" of partition {} does not exist ({})",
                        path.value,
                        self.partition_name(i),
                        shown.display()
                    )
                } else {
                    format!(
                        "executable \"{}\" of partition {} cannot be read: {e}",
                        path.value,
                        self.partition_name(i)
                    )
                };
                let from_entry_point = if p.executable.is_none() {
                    "EntryPoint is taken as the program path when there is no <partita:Executable path=\"...\"/>; "
                } else {
                    ""
                };
                self.sink
                    .emit(Rule::EntryPointMissing, path.pos, msg)
                    .with_hint(format!(
                        "{from_entry_point}paths are relative to the directory of the configuration file ({})",
                        self.ctx
                            .base_dir
                            .canonicalize()
                            .unwrap_or_else(|_| absolute(self.ctx.base_dir))
                            .display()
                    ));
            }
            Ok(meta) if !meta.is_file() => {
                self.sink
                    .emit(
                        Rule::EntryPointNotExecutable,
                        path.pos,
                        format!(
                            "executable \"{}\" of partition {} is not a regular file",
                            path.value,
                            self.partition_name(i)
                        ),
                    )
                    .with_hint("point at the partition's program file");
            }
            Ok(meta) => {
                if !is_executable(&meta) {
                    self.sink
                        .emit(
                            Rule::EntryPointNotExecutable,
                            path.pos,
                            format!(
                                "executable \"{}\" of partition {} has no execute permission",
                                path.value,
                                self.partition_name(i)
                            ),
                        )
                        .with_hint(format!("chmod +x {}", shown.display()));
                } else {
                    self.reachable(i, &full, path.pos, PathUse::Executable);
                    self.entry_function_in(i, Some(&full));
                }
            }
        }
    }

    /// The `partition-path-unreachable` rule on the absolute paths among partition `i`'s
    /// arguments.
    fn arguments_reachable(&mut self, i: usize) {
        let Some(e) = &self.raw.partitions[i].executable else {
            return;
        };
        for a in &e.args {
            if let Some(path) = reach::argument_path(&a.value) {
                self.reachable(i, path, a.pos, PathUse::Argument);
            }
        }
    }

    /// The `partition-path-unreachable` rule on one path partition `i` must reach, as the uid
    /// a run as root gives it in id block 0 (crate::reach).
    fn reachable(&mut self, i: usize, path: &Path, pos: Pos, usage: PathUse) {
        let (uid, gid) = (ids::partition_uid(0, i), ids::partition_gid(0, i));
        let Some(u) = reach::probe(path, usage, uid, gid) else {
            return;
        };
        let fix = match u.lacks {
            Lacks::Search => format!(
                "pass a path relative to the partition's run directory (its working directory), or let others through {} (chmod o+x)",
                u.blocker.display()
            ),
            Lacks::Read => format!("let others read it (chmod o+r {})", u.blocker.display()),
            Lacks::Execute => format!(
                "let others execute it (chmod o+x {}), or the partition cannot start",
                u.blocker.display()
            ),
        };
        self.sink
            .emit(
                Rule::PartitionPathUnreachable,
                pos,
                format!("partition {}: {u}", self.partition_name(i)),
            )
            .with_hint(format!(
                "run as root, the partition runs as uid {uid} (id block 0; another block when another module holds it) without capabilities; {fix}; checked against this host's files now, so another host may differ (docs/host-files.md)"
            ));
    }

    // ----------------------------------------------------------------------------------------
    // Memory

    pub(super) fn memories(&mut self) -> Vec<Vec<MemoryRequirement>> {
        let raw = self.raw;
        let mut per: Vec<Vec<MemoryRequirement>> = vec![Vec::new(); raw.partitions.len()];
        let mut seen: HashMap<usize, Pos> = HashMap::new();
        for m in &raw.memories {
            let Some(idx) =
                self.resolve(&m.target, Rule::MemoryUnknownPartition, "Partition_Memory")
            else {
                continue;
            };
            if let Some(&first) = seen.get(&idx) {
                self.sink
                    .emit(
                        Rule::DuplicateElement,
                        m.target.pos,
                        format!(
                            "second `Partition_Memory` for partition {}",
                            self.partition_label(idx)
                        ),
                    )
                    .with_hint(
                        "list all memory requirements of a partition in one Partition_Memory",
                    )
                    .with_related(first, "first one here");
                continue;
            }
            seen.insert(idx, m.target.pos);
            self.memory_blocks(idx, &m.requirements);
            for r in &m.requirements {
                if let (Some(kind), Some(size), Some(access)) = (&r.kind, &r.size, &r.access) {
                    if let Some(slot) = per.get_mut(idx) {
                        slot.push(MemoryRequirement {
                            name: val(&r.name),
                            kind: kind.value.clone(),
                            size: size.value,
                            access: access.value,
                            physical_address: val(&r.physical_address),
                        });
                    }
                }
            }
        }
        per
    }
}

impl Validator<'_, '_, '_> {
    /// The named memory requirements (memory blocks) of partition `idx`: names of at most
    /// MAX_NAME_LENGTH characters, unique in the partition, sizes that MEMORY_BLOCK_SIZE_TYPE
    /// holds, at most [`MAX_MEMORY_BLOCKS`] of them.
    fn memory_blocks(&mut self, idx: usize, requirements: &[RawMemoryRequirement]) {
        let mut names: HashMap<&str, Pos> = HashMap::new();
        let mut count = 0;
        for r in requirements {
            let Some(name) = &r.name else { continue };
            count += 1;
            if count == MAX_MEMORY_BLOCKS + 1 {
                self.sink
                    .emit(
                        Rule::SystemLimit,
                        name.pos,
                        format!(
                            "partition {} names more than {MAX_MEMORY_BLOCKS} memory blocks (RegionName)",
                            self.partition_label(idx)
                        ),
                    )
                    .with_hint("the runtime's memory block table holds that many per partition");
            }
            if name.value.len() > MAX_NAME_LEN {
                self.sink
                    .emit(
                        Rule::SystemLimit,
                        name.pos,
                        format!(
                            "memory block name `{}` has {} characters; MAX_NAME_LENGTH is {MAX_NAME_LEN}",
                            name.value,
                            name.value.len()
                        ),
                    )
                    .with_hint("GET_MEMORY_BLOCK_STATUS takes an ARINC 653 NAME_TYPE");
            }
            if let Some(size) = &r.size {
                if size.value > MAX_MEMORY_BLOCK_SIZE {
                    self.sink
                        .emit(
                            Rule::SystemLimit,
                            size.pos,
                            format!(
                                "memory block `{}` has {} bytes; MEMORY_BLOCK_SIZE_TYPE holds at most {MAX_MEMORY_BLOCK_SIZE}",
                                name.value, size.value
                            ),
                        )
                        .with_hint("split it into several named blocks");
                }
            }
            if let Some(&first) = names.get(name.value.as_str()) {
                self.sink
                    .emit(
                        Rule::DuplicateElement,
                        name.pos,
                        format!(
                            "second memory block named `{}` in partition {}",
                            name.value,
                            self.partition_label(idx)
                        ),
                    )
                    .with_hint("GET_MEMORY_BLOCK_STATUS finds a block by its RegionName")
                    .with_related(first, "first one here");
            } else {
                names.insert(&name.value, name.pos);
            }
        }
    }
}

#[cfg(unix)]
fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_meta: &std::fs::Metadata) -> bool {
    true
}
