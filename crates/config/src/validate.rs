//! Validation: cross-reference and schedule rules over the raw model, and construction of the
//! typed [`ValidatedModule`] when no error was found.

use crate::diag::{Pos, Rule, Sink};
use crate::model::{
    Backend, Channel, Endpoint, ErrorAction, ErrorIdLevel, HmStateEntry, HmTables,
    MemoryRequirement, ModuleSchedule, Partition, PartitionHmTable, Port, PortDirection, PortKind,
    ProcessSpec, PseudoTransport, ScheduledPartition, SystemStateEntry, ValidatedModule,
    MAX_NAME_LEN,
};
use crate::raw::{
    val, Opt, RawChannel, RawEndpoint, RawHmEntry, RawModule, RawPartitionRef, RawPseudo, RawSide,
};
use crate::suggest::closest;
use crate::time::format_duration;
use partita_schedule::{FramePlan, Nanos, Window};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// Share of a major frame above which `rt-budget` warns, in percent.
pub const RT_BUDGET_PERCENT: u64 = 95;

/// Where the configuration came from.
pub(crate) struct Context<'a> {
    /// Directory relative paths are resolved against.
    pub base_dir: &'a Path,
    /// Absolute path of the configuration file.
    pub source_path: PathBuf,
    /// SHA-256 of the source, hex.
    pub source_sha256: String,
    /// Whether to look at executables on disk.
    pub check_executables: bool,
}

/// Makes `p` absolute without touching the file system (no symlink resolution).
pub(crate) fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Resolves a path written in the configuration against `base_dir` into an absolute path.
/// The directory part is canonicalised when it exists (so `..` and directory symlinks are
/// resolved as the kernel would), the final component is kept as written (a symlinked program
/// stays the symlink).
pub(crate) fn resolve_path(base_dir: &Path, written: impl AsRef<Path>) -> PathBuf {
    let joined = base_dir.join(written);
    if let (Some(parent), Some(name)) = (joined.parent(), joined.file_name()) {
        let parent = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
        if let Ok(dir) = parent.canonicalize() {
            return dir.join(name);
        }
    }
    absolute(&joined)
}

fn fmt_window(offset: Nanos, duration: Nanos) -> String {
    format!(
        "[{}, {})",
        format_duration(offset),
        format_duration(offset.saturating_add(duration))
    )
}

/// A window of the checked plan with the data needed for diagnostics.
struct CheckedWindow {
    pos: Pos,
    window: Window,
}

/// A resolved channel endpoint.
struct ResolvedEnd {
    pos: Pos,
    /// Partition index and port (standard endpoints whose port exists).
    port: Option<(usize, Port)>,
    is_pseudo: bool,
}

struct Validator<'r, 's, 'c> {
    raw: &'r RawModule,
    sink: &'s mut Sink,
    ctx: &'c Context<'c>,
    by_id: HashMap<u32, usize>,
    /// Typed ports per partition (only fully-read ports).
    ports: Vec<Vec<(Pos, Port)>>,
}

/// Runs every validation rule over `raw`, reporting into `sink`; returns the typed module when
/// no error (of any stage) was reported.
pub(crate) fn validate(
    raw: &RawModule,
    sink: &mut Sink,
    ctx: &Context<'_>,
) -> Option<ValidatedModule> {
    let mut v = Validator {
        raw,
        sink,
        ctx,
        by_id: HashMap::new(),
        ports: Vec::new(),
    };
    v.partitions();
    let memory = v.memories();
    let sched = v.schedules();
    v.channels();
    v.health_monitoring();
    if v.sink.error_count() > 0 {
        return None;
    }
    v.build(memory, sched)
}

/// Per-partition facts gathered from the schedules.
struct ScheduleFacts {
    initial: usize,
    window_cores: Vec<BTreeSet<u32>>,
}

impl Validator<'_, '_, '_> {
    fn partition_label(&self, idx: usize) -> String {
        let p = self.raw.partitions.get(idx);
        let id = p.and_then(|p| val(&p.id)).map(|i| i.to_string());
        let name = p.and_then(|p| val(&p.name));
        match (id, name) {
            (Some(i), Some(n)) => format!("{i} ({n})"),
            (Some(i), None) => i,
            (None, Some(n)) => n,
            (None, None) => format!("#{idx}"),
        }
    }

    fn partition_name(&self, idx: usize) -> String {
        self.raw
            .partitions
            .get(idx)
            .and_then(|p| val(&p.name))
            .unwrap_or_else(|| format!("#{idx}"))
    }

    fn declared_partitions_hint(&self) -> String {
        let mut ids: Vec<(u32, usize)> = self.by_id.iter().map(|(&i, &x)| (i, x)).collect();
        ids.sort_unstable();
        let list: Vec<String> = ids
            .iter()
            .take(12)
            .map(|&(_, idx)| self.partition_label(idx))
            .collect();
        if list.is_empty() {
            "no partition is declared".to_string()
        } else {
            let more = if ids.len() > 12 { ", ..." } else { "" };
            format!("declared partitions: {}{more}", list.join(", "))
        }
    }

    /// Resolves a partition reference, reporting `rule` when its identifier is unknown and
    /// `partition-name-mismatch` when the name belongs to another partition.
    fn resolve(&mut self, r: &RawPartitionRef, rule: Rule, what: &str) -> Option<usize> {
        let id = r.id.as_ref()?;
        let Some(&idx) = self.by_id.get(&id.value) else {
            let by_name = r.name.as_ref().and_then(|n| {
                self.raw
                    .partitions
                    .iter()
                    .position(|p| p.name.as_ref().map(|x| &x.value) == Some(&n.value))
            });
            let hint = match by_name.and_then(|i| val(&self.raw.partitions[i].id)) {
                Some(real) => format!(
                    "partition \"{}\" has PartitionIdentifier=\"{real}\"",
                    self.partition_name(by_name.unwrap_or_default())
                ),
                None => self.declared_partitions_hint(),
            };
            self.sink
                .emit(
                    rule,
                    id.pos,
                    format!(
                        "{what} refers to partition {}, which is not declared",
                        id.value
                    ),
                )
                .with_hint(hint);
            return None;
        };
        if let Some(n) = &r.name {
            let decl = &self.raw.partitions[idx];
            if let Some(real) = &decl.name {
                if real.value != n.value {
                    self.sink
                        .emit(
                            Rule::PartitionNameMismatch,
                            n.pos,
                            format!(
                                "PartitionName \"{}\" does not match partition {}, which is named \"{}\"",
                                n.value, id.value, real.value
                            ),
                        )
                        .with_hint("fix the identifier or the name so that both designate the same partition")
                        .with_related(real.pos, "partition declared here");
                }
            }
        }
        Some(idx)
    }

    // ----------------------------------------------------------------------------------------
    // Partitions

    fn partitions(&mut self) {
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
        }
    }

    fn executable_path(&self, i: usize) -> Opt<String> {
        let p = &self.raw.partitions[i];
        match &p.executable {
            Some(e) => e.path.clone(),
            None => p.entry_point.clone(),
        }
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
                }
            }
        }
    }

    // ----------------------------------------------------------------------------------------
    // Memory

    fn memories(&mut self) -> Vec<Vec<MemoryRequirement>> {
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
            for r in &m.requirements {
                if let (Some(kind), Some(size), Some(access)) = (&r.kind, &r.size, &r.access) {
                    if let Some(slot) = per.get_mut(idx) {
                        slot.push(MemoryRequirement {
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

    // ----------------------------------------------------------------------------------------
    // Schedules

    fn allowed_cores(&self, idx: usize) -> Option<&Vec<u32>> {
        self.raw
            .partitions
            .get(idx)
            .and_then(|p| p.resources.as_ref())
            .and_then(|r| r.cores.as_ref())
            .map(|c| &c.value)
    }

    fn schedules(&mut self) -> ScheduleFacts {
        let raw = self.raw;
        let n = raw.partitions.len();
        let mut facts = ScheduleFacts {
            initial: 0,
            window_cores: vec![BTreeSet::new(); n],
        };
        if raw.schedules.is_empty() {
            self.sink
                .emit(Rule::MissingElement, raw.pos, "the module has no `Module_Schedule`")
                .with_hint("add <Module_Schedule MajorFrameSeconds=\"...\"> with a Partition_Schedule per partition");
            return facts;
        }
        if raw.schedules.len() > 1 {
            let trues: Vec<usize> = (0..raw.schedules.len())
                .filter(|&i| val(&raw.schedules[i].initial) == Some(true))
                .collect();
            match trues.as_slice() {
                [one] => facts.initial = *one,
                [] => {
                    self.sink
                        .emit(
                            Rule::InitialSchedule,
                            raw.schedules[0].pos,
                            format!(
                                "there are {} Module_Schedule elements but none has InitialModuleSchedule=\"true\"",
                                raw.schedules.len()
                            ),
                        )
                        .with_hint("mark the schedule the module starts with by InitialModuleSchedule=\"true\"");
                }
                [first, second, ..] => {
                    let at = |i: usize| {
                        raw.schedules[i]
                            .initial
                            .as_ref()
                            .map_or(raw.schedules[i].pos, |s| s.pos)
                    };
                    self.sink
                        .emit(
                            Rule::InitialSchedule,
                            at(*second),
                            format!(
                                "{} Module_Schedule elements have InitialModuleSchedule=\"true\"; exactly one may",
                                trues.len()
                            ),
                        )
                        .with_hint("keep InitialModuleSchedule=\"true\" on one schedule only")
                        .with_related(at(*first), "first initial schedule here");
                }
            }
        }
        let mut sched_ids: HashMap<u32, Pos> = HashMap::new();
        for s in &raw.schedules {
            if let Some(id) = &s.id {
                if let Some(&first) = sched_ids.get(&id.value) {
                    self.sink
                        .emit(
                            Rule::DuplicateScheduleId,
                            id.pos,
                            format!("schedule identifier {} is used twice", id.value),
                        )
                        .with_hint("every Module_Schedule needs its own ScheduleIdentifier")
                        .with_related(first, "first defined here");
                } else {
                    sched_ids.insert(id.value, id.pos);
                }
            }
        }
        let mut has_window = vec![false; n];
        for s in &raw.schedules {
            self.schedule(s, &mut has_window, &mut facts);
        }
        for (i, p) in raw.partitions.iter().enumerate() {
            // A partition without a usable identifier cannot be scheduled; its error is out.
            let referable = val(&p.id).and_then(|id| self.by_id.get(&id)) == Some(&i);
            if referable && !has_window[i] {
                self.sink
                    .emit(
                        Rule::PartitionWithoutWindow,
                        p.pos,
                        format!(
                            "partition {} has no window in any Module_Schedule, so it never runs",
                            self.partition_label(i)
                        ),
                    )
                    .with_hint("add a <Partition_Schedule> with at least one <Window_Schedule> for it, or remove the partition");
            }
        }
        facts
    }

    fn schedule(
        &mut self,
        s: &crate::raw::RawSchedule,
        has_window: &mut [bool],
        facts: &mut ScheduleFacts,
    ) {
        let frame = match &s.major_frame {
            Some(f) if f.value == 0 => {
                self.sink
                    .emit(Rule::ZeroDuration, f.pos, "MajorFrameSeconds is zero")
                    .with_hint("the major frame is the length of the repeating window table; give it in seconds, e.g. 0.1");
                None
            }
            Some(f) => Some(f.clone()),
            None => None,
        };
        let mut window_ids: HashMap<u32, Pos> = HashMap::new();
        let mut scheduled: HashMap<usize, Pos> = HashMap::new();
        let mut windows: Vec<CheckedWindow> = Vec::new();
        // (partition index, raw partition schedule) of resolved, non-duplicate entries.
        let mut resolved: Vec<(usize, &crate::raw::RawPartitionSchedule)> = Vec::new();
        for ps in &s.partitions {
            let idx = self.resolve(
                &ps.target,
                Rule::ScheduleUnknownPartition,
                "Partition_Schedule",
            );
            if let Some(idx) = idx {
                if let Some(&first) = scheduled.get(&idx) {
                    self.sink
                        .emit(
                            Rule::DuplicateElement,
                            ps.target.pos,
                            format!(
                                "second `Partition_Schedule` for partition {} in this Module_Schedule",
                                self.partition_label(idx)
                            ),
                        )
                        .with_hint("put all windows of a partition in one Partition_Schedule")
                        .with_related(first, "first one here");
                } else {
                    scheduled.insert(idx, ps.target.pos);
                    resolved.push((idx, ps));
                }
            }
            let mut period_ok = false;
            if let Some(period) = &ps.period {
                if period.value == 0 {
                    self.sink
                        .emit(Rule::ZeroDuration, period.pos, "PeriodSeconds is zero")
                        .with_hint("give the partition's period in seconds");
                } else {
                    period_ok = true;
                    if let Some(f) = &frame {
                        if f.value % period.value != 0 {
                            self.sink
                                .emit(
                                    Rule::FrameNotMultipleOfPeriod,
                                    period.pos,
                                    format!(
                                        "the major frame ({}) is not a multiple of the period {} of partition {}",
                                        format_duration(f.value),
                                        format_duration(period.value),
                                        idx.map(|i| self.partition_label(i)).unwrap_or_else(|| "?".into())
                                    ),
                                )
                                .with_hint("choose the major frame as a common multiple of all partition periods (e.g. their least common multiple)")
                                .with_related(f.pos, "major frame defined here");
                        }
                    }
                }
            }
            if let (Some(period), Some(duration)) = (&ps.period, &ps.duration) {
                if period_ok && duration.value > period.value {
                    self.sink
                        .emit(
                            Rule::DurationExceedsPeriod,
                            duration.pos,
                            format!(
                                "PeriodDurationSeconds ({}) is longer than PeriodSeconds ({})",
                                format_duration(duration.value),
                                format_duration(period.value)
                            ),
                        )
                        .with_hint(
                            "a partition cannot need more time per period than the period itself",
                        );
                }
            }
            for w in &ps.windows {
                if let Some(id) = &w.id {
                    if let Some(&first) = window_ids.get(&id.value) {
                        self.sink
                            .emit(
                                Rule::DuplicateWindowId,
                                id.pos,
                                format!(
                                    "window identifier {} is used twice in this Module_Schedule",
                                    id.value
                                ),
                            )
                            .with_hint("number the windows of a module schedule uniquely")
                            .with_related(first, "first defined here");
                    } else {
                        window_ids.insert(id.value, id.pos);
                    }
                }
                if let Some(d) = &w.duration {
                    if d.value == 0 {
                        self.sink
                            .emit(Rule::ZeroDuration, d.pos, "WindowDurationSeconds is zero")
                            .with_hint("remove the window or give it a length");
                    }
                }
                let core = val(&w.core).unwrap_or(0);
                if let Some(idx) = idx {
                    if let Some(slot) = has_window.get_mut(idx) {
                        *slot = true;
                    }
                    if let Some(set) = facts.window_cores.get_mut(idx) {
                        set.insert(core);
                    }
                    if let Some(allowed) = self.allowed_cores(idx) {
                        if !allowed.contains(&core) {
                            let list: Vec<String> = allowed.iter().map(u32::to_string).collect();
                            let at = w.core.as_ref().map_or(w.pos, |c| c.pos);
                            self.sink
                                .emit(
                                    Rule::WindowCoreNotAllowed,
                                    at,
                                    format!(
                                        "window{} of partition {} runs on core {core}, which is not in its cores list ({})",
                                        w.id.as_ref().map(|i| format!(" {}", i.value)).unwrap_or_default(),
                                        self.partition_label(idx),
                                        list.join(",")
                                    ),
                                )
                                .with_hint("move the window to an allowed core (partita:Core) or extend partita:Resources cores");
                        }
                    }
                }
                if let (Some(start), Some(d)) = (&w.start, &w.duration) {
                    if d.value > 0 {
                        windows.push(CheckedWindow {
                            pos: w.pos,
                            window: Window {
                                id: val(&w.id).unwrap_or(u32::MAX),
                                partition: idx.unwrap_or(usize::MAX),
                                core,
                                offset: start.value,
                                duration: d.value,
                                period_start: val(&w.period_start).unwrap_or(false),
                            },
                        });
                    }
                }
            }
        }
        let Some(frame) = frame else { return };
        let plan = FramePlan {
            major_frame: frame.value,
            windows: windows.iter().map(|w| w.window.clone()).collect(),
        };
        for i in plan.windows_outside_frame() {
            let w = &windows[i];
            self.sink
                .emit(
                    Rule::WindowOutsideFrame,
                    w.pos,
                    format!(
                        "window {} {} leaves the major frame of {}",
                        w.window.id,
                        fmt_window(w.window.offset, w.window.duration),
                        format_duration(frame.value)
                    ),
                )
                .with_hint("windows must start and end inside [0, MajorFrameSeconds]")
                .with_related(frame.pos, "major frame defined here");
        }
        for (a, b) in plan.overlapping_windows() {
            let (wa, wb) = (&windows[a], &windows[b]);
            self.sink
                .emit(
                    Rule::WindowOverlap,
                    wb.pos,
                    format!(
                        "window {} {} overlaps window {} {} on core {}",
                        wb.window.id,
                        fmt_window(wb.window.offset, wb.window.duration),
                        wa.window.id,
                        fmt_window(wa.window.offset, wa.window.duration),
                        wb.window.core
                    ),
                )
                .with_hint("windows on one core must not overlap: move or shorten one, or put it on another core (partita:Core)")
                .with_related(wa.pos, "the other window");
        }
        // Period supply.
        for (idx, ps) in &resolved {
            let (Some(period), Some(duration)) = (&ps.period, &ps.duration) else {
                continue;
            };
            if period.value == 0 || frame.value % period.value != 0 || duration.value > period.value
            {
                continue;
            }
            let total: u128 = plan
                .windows
                .iter()
                .filter(|w| w.partition == *idx)
                .map(|w| u128::from(w.duration))
                .sum();
            if total > u128::from(u64::MAX) {
                continue;
            }
            let supply = plan.supply_per_period(*idx, period.value);
            let short: Vec<(usize, Nanos)> = supply
                .iter()
                .copied()
                .enumerate()
                .filter(|&(_, got)| got < duration.value)
                .collect();
            if let Some(&(k, got)) = short.first() {
                let start = (k as u64).saturating_mul(period.value);
                let more = if short.len() > 1 {
                    format!(
                        " (and {} more of its {} periods)",
                        short.len() - 1,
                        supply.len()
                    )
                } else {
                    String::new()
                };
                self.sink
                    .emit(
                        Rule::PeriodDurationNotMet,
                        ps.target.pos,
                        format!(
                            "partition {} gets {} in its period {k} {} but needs {} (PeriodDurationSeconds){more}",
                            self.partition_label(*idx),
                            if got == 0 { "no time".to_string() } else { format_duration(got) },
                            fmt_window(start, period.value),
                            format_duration(duration.value)
                        ),
                    )
                    .with_hint("periods are counted from the start of the major frame; add or lengthen windows in that period, or lower PeriodDurationSeconds")
                    .with_related(duration.pos, "PeriodDurationSeconds given here");
            }
        }
        // RT throttling budget, per core.
        for core in plan.cores() {
            let busy: u128 = plan
                .windows
                .iter()
                .filter(|w| w.core == core && w.offset < frame.value)
                .map(|w| u128::from(w.end().min(frame.value) - w.offset))
                .sum();
            let f = u128::from(frame.value);
            if busy * 100 > f * u128::from(RT_BUDGET_PERCENT) {
                let permille = busy * 1000 / f;
                self.sink
                    .emit(
                        Rule::RtBudget,
                        s.pos,
                        format!(
                            "windows fill {}.{}% of core {core} in each {} major frame",
                            permille / 10,
                            permille % 10,
                            format_duration(frame.value)
                        ),
                    )
                    .with_hint("Linux throttles real-time tasks to 95% of each period by default (kernel.sched_rt_runtime_us=950000), which may cut windows short.\nleave at least 5% of every core idle, or disable throttling on a dedicated machine (sysctl kernel.sched_rt_runtime_us=-1)")
                    .with_related(frame.pos, "major frame defined here");
            }
        }
    }

    // ----------------------------------------------------------------------------------------
    // Channels

    fn channels(&mut self) {
        let raw = self.raw;
        let mut ids: HashMap<u32, Pos> = HashMap::new();
        let mut connected: BTreeSet<(usize, String)> = BTreeSet::new();
        // Destination port -> (channel id, position) of the first channel feeding it.
        let mut fed: HashMap<(usize, String), (String, Pos)> = HashMap::new();
        // Queuing source port -> first channel reading it.
        let mut q_sources: HashMap<(usize, String), (String, Pos)> = HashMap::new();
        for ch in &raw.channels {
            let label = ch
                .id
                .as_ref()
                .map(|i| i.value.to_string())
                .unwrap_or_else(|| "?".to_string());
            if let Some(id) = &ch.id {
                if let Some(&first) = ids.get(&id.value) {
                    self.sink
                        .emit(
                            Rule::DuplicateChannelId,
                            id.pos,
                            format!("channel identifier {} is used twice", id.value),
                        )
                        .with_hint("every channel needs its own ChannelIdentifier")
                        .with_related(first, "first defined here");
                } else {
                    ids.insert(id.value, id.pos);
                }
            }
            self.channel_shape(ch, &label);
            let sources: Vec<ResolvedEnd> = self.resolve_side(&ch.sources, true, &label);
            let dests: Vec<ResolvedEnd> = self.resolve_side(&ch.destinations, false, &label);
            for e in sources.iter().chain(&dests) {
                if let Some((idx, port)) = &e.port {
                    connected.insert((*idx, port.name.clone()));
                }
            }
            let all_ends = sources.len() + dests.len();
            let std_ends: Vec<&ResolvedEnd> = sources
                .iter()
                .chain(&dests)
                .filter(|e| !e.is_pseudo)
                .collect();
            if all_ends > 0 && std_ends.is_empty() {
                self.sink
                    .emit(
                        Rule::ChannelEndpoints,
                        ch.pos,
                        format!("channel {label} connects only pseudo partitions"),
                    )
                    .with_hint(
                        "at least one end of a channel must be a port of a Standard_Partition",
                    );
            }
            // Kind and size, relative to a reference port (the source if it is a partition).
            let reference = sources
                .iter()
                .chain(&dests)
                .find_map(|e| e.port.as_ref().map(|p| (e, p.1.clone())));
            let Some((ref_end, ref_port)) = reference else {
                continue;
            };
            let mut kind_ok = true;
            for e in sources.iter().chain(&dests) {
                let Some((_, port)) = &e.port else { continue };
                if std::ptr::eq(e, ref_end) {
                    continue;
                }
                if port.kind != ref_port.kind {
                    kind_ok = false;
                    self.sink
                        .emit(
                            Rule::ChannelKindMismatch,
                            e.pos,
                            format!(
                                "channel {label} connects {} port \"{}\" with {} port \"{}\"",
                                kind_word(port.kind),
                                port.name,
                                kind_word(ref_port.kind),
                                ref_port.name
                            ),
                        )
                        .with_hint(
                            "both ends of a channel must be sampling ports, or both queuing ports",
                        )
                        .with_related(ref_end.pos, "the other end");
                } else if port.max_message_size != ref_port.max_message_size {
                    self.sink
                        .emit(
                            Rule::MessageSizeMismatch,
                            e.pos,
                            format!(
                                "port \"{}\" has MaxMessageSize {} but port \"{}\" of channel {label} has {}",
                                port.name, port.max_message_size, ref_port.name, ref_port.max_message_size
                            ),
                        )
                        .with_hint("give all ports of a channel the same MaxMessageSize")
                        .with_related(ref_end.pos, "the other end");
                }
            }
            if !kind_ok {
                continue;
            }
            let kind = ref_port.kind;
            // Several Source elements in one channel.
            if ch.sources.len() > 1 {
                let rule = match kind {
                    PortKind::Sampling => Rule::SamplingMultipleSources,
                    PortKind::Queuing => Rule::QueuingMultipleSources,
                };
                self.sink
                    .emit(
                        rule,
                        ch.sources[1].pos,
                        format!(
                            "{} channel {label} has {} sources; a channel has exactly one",
                            kind_word(kind),
                            ch.sources.len()
                        ),
                    )
                    .with_hint("split it into one channel per source")
                    .with_related(ch.sources[0].pos, "first source here");
            }
            if kind == PortKind::Queuing && ch.destinations.len() > 1 {
                self.sink
                    .emit(
                        Rule::QueuingMultipleDestinations,
                        ch.destinations[1].pos,
                        format!(
                            "queuing channel {label} has {} destinations; queuing channels are one-to-one",
                            ch.destinations.len()
                        ),
                    )
                    .with_hint("use sampling ports for multicast, or one queuing channel (and source port) per destination")
                    .with_related(ch.destinations[0].pos, "first destination here");
            }
            // Ports used by several channels.
            for e in &dests {
                let Some((idx, port)) = &e.port else { continue };
                let idx = *idx;
                let key = (idx, port.name.clone());
                if let Some((other, first)) = fed.get(&key) {
                    let rule = match kind {
                        PortKind::Sampling => Rule::SamplingMultipleSources,
                        PortKind::Queuing => Rule::QueuingMultipleSources,
                    };
                    self.sink
                        .emit(
                            rule,
                            e.pos,
                            format!(
                                "{} destination port {}:{} is already fed by channel {other}",
                                kind_word(kind),
                                self.partition_name(idx),
                                port.name
                            ),
                        )
                        .with_hint("a destination port receives from exactly one source")
                        .with_related(*first, "first channel here");
                } else {
                    fed.insert(key, (label.clone(), e.pos));
                }
            }
            if kind == PortKind::Queuing {
                for e in &sources {
                    let Some((idx, port)) = &e.port else { continue };
                    let idx = *idx;
                    let key = (idx, port.name.clone());
                    if let Some((other, first)) = q_sources.get(&key) {
                        self.sink
                            .emit(
                                Rule::QueuingMultipleDestinations,
                                e.pos,
                                format!(
                                    "queuing source port {}:{} already feeds channel {other}",
                                    self.partition_name(idx),
                                    port.name
                                ),
                            )
                            .with_hint("a queuing port has exactly one destination; declare one source port per channel")
                            .with_related(*first, "first channel here");
                    } else {
                        q_sources.insert(key, (label.clone(), e.pos));
                    }
                }
            }
        }
        for (i, ports) in self.ports.clone().iter().enumerate() {
            for (pos, port) in ports {
                if !connected.contains(&(i, port.name.clone())) {
                    self.sink
                        .emit(
                            Rule::PortNotConnected,
                            *pos,
                            format!(
                                "port \"{}\" of partition {} is not connected to any channel",
                                port.name,
                                self.partition_name(i)
                            ),
                        )
                        .with_hint("connect it in the Connection_Table, or remove it");
                }
            }
        }
    }

    /// Source / Destination counts and one partition per side.
    fn channel_shape(&mut self, ch: &RawChannel, label: &str) {
        if ch.sources.is_empty() {
            self.sink
                .emit(
                    Rule::ChannelEndpoints,
                    ch.pos,
                    format!("channel {label} has no Source"),
                )
                .with_hint("add <Source><Standard_Partition PartitionIdentifier=\"...\" PortName=\"...\"/></Source>");
        }
        if ch.destinations.is_empty() {
            self.sink
                .emit(
                    Rule::ChannelEndpoints,
                    ch.pos,
                    format!("channel {label} has no Destination"),
                )
                .with_hint("add <Destination><Standard_Partition PartitionIdentifier=\"...\" PortName=\"...\"/></Destination>");
        }
        for side in ch.sources.iter().chain(&ch.destinations) {
            if side.endpoints.len() != 1 {
                self.sink
                    .emit(
                        Rule::ChannelEndpoints,
                        side.pos,
                        format!(
                            "a channel side holds {} partitions; exactly one Standard_Partition or Pseudo_Partition is expected",
                            side.endpoints.len()
                        ),
                    )
                    .with_hint("for multicast, repeat the <Destination> element, one per destination");
            }
        }
    }

    fn resolve_side(&mut self, sides: &[RawSide], source: bool, label: &str) -> Vec<ResolvedEnd> {
        let mut out = Vec::new();
        for side in sides {
            for e in &side.endpoints {
                match e {
                    RawEndpoint::Standard { target, port } => {
                        let idx = self.resolve(
                            target,
                            Rule::ChannelUnknownPartition,
                            &format!("channel {label}"),
                        );
                        let mut found = None;
                        if let (Some(idx), Some(pname)) = (idx, port) {
                            found = self.lookup_port(idx, pname, source, label);
                        }
                        out.push(ResolvedEnd {
                            pos: e.pos(),
                            port: found,
                            is_pseudo: false,
                        });
                    }
                    RawEndpoint::Pseudo(p) => {
                        self.pseudo(p);
                        out.push(ResolvedEnd {
                            pos: p.pos,
                            port: None,
                            is_pseudo: true,
                        });
                    }
                }
            }
        }
        out
    }

    fn lookup_port(
        &mut self,
        idx: usize,
        pname: &crate::raw::Sp<String>,
        source: bool,
        label: &str,
    ) -> Option<(usize, Port)> {
        let ports: Vec<(Pos, Port)> = self.ports.get(idx)?.clone();
        match ports.iter().find(|(_, p)| p.name == pname.value) {
            None => {
                let declared = self.raw.partitions.get(idx).is_some_and(|p| {
                    p.ports
                        .iter()
                        .any(|x| x.name.as_ref().map(|n| &n.value) == Some(&pname.value))
                });
                if declared {
                    // The port exists but could not be read completely; already reported.
                    return None;
                }
                let names: Vec<&str> = ports.iter().map(|(_, p)| p.name.as_str()).collect();
                let hint = match closest(&pname.value, names.iter().copied()) {
                    Some(s) => format!("did you mean \"{s}\"?"),
                    None if names.is_empty() => {
                        format!("partition {} declares no ports", self.partition_name(idx))
                    }
                    None => format!(
                        "ports of partition {}: {}",
                        self.partition_name(idx),
                        names.join(", ")
                    ),
                };
                self.sink
                    .emit(
                        Rule::ChannelUnknownPort,
                        pname.pos,
                        format!(
                            "channel {label} refers to port \"{}\", which partition {} does not declare",
                            pname.value,
                            self.partition_label(idx)
                        ),
                    )
                    .with_hint(hint);
                None
            }
            Some((ppos, port)) => {
                let want = if source {
                    PortDirection::Source
                } else {
                    PortDirection::Destination
                };
                if port.direction != want {
                    self.sink
                        .emit(
                            Rule::ChannelDirection,
                            pname.pos,
                            format!(
                                "port \"{}\" of partition {} is a {} port but is used as the {} of channel {label}",
                                port.name,
                                self.partition_name(idx),
                                port.direction,
                                if source { "source" } else { "destination" }
                            ),
                        )
                        .with_hint("the Source of a channel must be a SOURCE port and each Destination a DESTINATION port")
                        .with_related(*ppos, "port declared here");
                }
                Some((idx, port.clone()))
            }
        }
    }

    fn pseudo(&mut self, p: &RawPseudo) {
        let given: Vec<(&str, &crate::raw::Sp<String>)> = [
            ("partita:Udp", &p.udp),
            ("partita:File", &p.file),
            ("partita:Fifo", &p.fifo),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| (k, v)))
        .collect();
        let name = val(&p.name).unwrap_or_default();
        match given.as_slice() {
            [] => {
                self.sink
                    .emit(
                        Rule::PseudoPartitionEndpoint,
                        p.pos,
                        format!("pseudo partition \"{name}\" says nothing about where its messages go"),
                    )
                    .with_hint("add exactly one of partita:Udp=\"host:port\", partita:File=\"path\" or partita:Fifo=\"path\" (xmlns:partita=\"urn:partita:1\")");
            }
            [(key, v)] => {
                let problem = if *key == "partita:Udp" {
                    parse_udp(&v.value).err()
                } else if v.value.trim().is_empty() {
                    Some("the path is empty".to_string())
                } else {
                    None
                };
                if let Some(why) = problem {
                    self.sink
                        .emit(
                            Rule::PseudoPartitionEndpoint,
                            v.pos,
                            format!("{key}=\"{}\" of pseudo partition \"{name}\": {why}", v.value),
                        )
                        .with_hint("partita:Udp takes host:port, e.g. 127.0.0.1:5000 or [::1]:5000; File and Fifo take a path");
                }
            }
            [_, (key, v), ..] => {
                self.sink
                    .emit(
                        Rule::PseudoPartitionEndpoint,
                        v.pos,
                        format!("pseudo partition \"{name}\" has more than one endpoint ({key} is the second)"),
                    )
                    .with_hint("keep exactly one of partita:Udp, partita:File, partita:Fifo");
            }
        }
    }

    // ----------------------------------------------------------------------------------------
    // Health monitoring

    fn health_monitoring(&mut self) {
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

    // ----------------------------------------------------------------------------------------
    // Construction (only called when no error was reported)

    fn build(
        &self,
        memory: Vec<Vec<MemoryRequirement>>,
        facts: ScheduleFacts,
    ) -> Option<ValidatedModule> {
        let raw = self.raw;
        let mut partitions = Vec::new();
        for (i, p) in raw.partitions.iter().enumerate() {
            let exe = self.executable_path(i)?;
            let res = p.resources.as_ref();
            let mem = memory.get(i).cloned().unwrap_or_default();
            let memory_limit = res.and_then(|r| val(&r.memory_bytes)).or_else(|| {
                (!mem.is_empty()).then(|| mem.iter().fold(0u64, |a, m| a.saturating_add(m.size)))
            });
            let cores = match res.and_then(|r| val(&r.cores)) {
                Some(c) => c,
                None => facts.window_cores.get(i)?.iter().copied().collect(),
            };
            let processes = p
                .processes
                .iter()
                .map(|pr| {
                    Some(ProcessSpec {
                        name: val(&pr.name)?,
                        period: val(&pr.period),
                        wcet: val(&pr.wcet),
                        deadline: val(&pr.deadline),
                        priority: val(&pr.priority),
                    })
                })
                .collect::<Option<Vec<_>>>()?;
            partitions.push(Partition {
                id: val(&p.id)?,
                name: val(&p.name)?,
                criticality: val(&p.criticality)?,
                system: val(&p.system).unwrap_or(false),
                entry_point: val(&p.entry_point),
                executable: resolve_path(self.ctx.base_dir, &exe.value),
                args: p
                    .executable
                    .as_ref()
                    .map(|e| e.args.clone())
                    .unwrap_or_default(),
                cores,
                memory_limit,
                max_processes: res.and_then(|r| val(&r.max_processes)),
                stack_size: res.and_then(|r| val(&r.stack_bytes)),
                memory: mem,
                ports: self.ports.get(i)?.iter().map(|(_, p)| p.clone()).collect(),
                processes,
                process_policy: val(&p.process_policy),
            });
        }
        let mut schedules = Vec::new();
        for (si, s) in raw.schedules.iter().enumerate() {
            let mut windows = Vec::new();
            let mut entries = Vec::new();
            for ps in &s.partitions {
                let idx = *self.by_id.get(&val(&ps.target.id)?)?;
                for w in &ps.windows {
                    windows.push(Window {
                        id: val(&w.id)?,
                        partition: idx,
                        core: val(&w.core).unwrap_or(0),
                        offset: val(&w.start)?,
                        duration: val(&w.duration)?,
                        period_start: val(&w.period_start).unwrap_or(false),
                    });
                }
                entries.push((idx, val(&ps.period)?, val(&ps.duration)?));
            }
            let plan = FramePlan {
                major_frame: val(&s.major_frame)?,
                windows,
            };
            let partitions = entries
                .into_iter()
                .map(|(partition, period, duration)| ScheduledPartition {
                    partition,
                    period,
                    duration,
                    period_origin: plan.period_origin(partition),
                })
                .collect();
            schedules.push(ModuleSchedule {
                id: val(&s.id).unwrap_or(si as u32),
                name: val(&s.name),
                initial: si == facts.initial,
                plan,
                partitions,
            });
        }
        let mut channels = Vec::new();
        for ch in &raw.channels {
            channels.push(self.build_channel(ch, &partitions)?);
        }
        let hm = self.build_hm()?;
        Some(ValidatedModule {
            name: val(&raw.name)?,
            version: val(&raw.version),
            module_id: val(&raw.module_id),
            partitions,
            schedules,
            initial_schedule: facts.initial,
            channels,
            hm,
            backend: val(&raw.backend).unwrap_or(Backend::Auto),
            source_path: self.ctx.source_path.clone(),
            source_sha256: self.ctx.source_sha256.clone(),
        })
    }

    fn build_endpoint(&self, e: &RawEndpoint) -> Option<Endpoint> {
        match e {
            RawEndpoint::Standard { target, port } => Some(Endpoint::Partition {
                partition: *self.by_id.get(&val(&target.id)?)?,
                port: val(port)?,
            }),
            RawEndpoint::Pseudo(p) => {
                let transport = if let Some(u) = &p.udp {
                    let (host, port) = parse_udp(&u.value).ok()?;
                    PseudoTransport::Udp { host, port }
                } else if let Some(f) = &p.file {
                    PseudoTransport::File {
                        path: resolve_path(self.ctx.base_dir, &f.value),
                    }
                } else {
                    PseudoTransport::Fifo {
                        path: resolve_path(self.ctx.base_dir, &p.fifo.as_ref()?.value),
                    }
                };
                Some(Endpoint::Pseudo {
                    name: val(&p.name)?,
                    port: val(&p.port),
                    transport,
                })
            }
        }
    }

    fn build_channel(&self, ch: &RawChannel, partitions: &[Partition]) -> Option<Channel> {
        let source = self.build_endpoint(ch.sources.first()?.endpoints.first()?)?;
        let destinations = ch
            .destinations
            .iter()
            .map(|d| self.build_endpoint(d.endpoints.first()?))
            .collect::<Option<Vec<_>>>()?;
        let port_of = |e: &Endpoint| -> Option<&Port> {
            match e {
                Endpoint::Partition { partition, port } => partitions
                    .get(*partition)?
                    .ports
                    .iter()
                    .find(|p| &p.name == port),
                Endpoint::Pseudo { .. } => None,
            }
        };
        let src_port = port_of(&source);
        let dst_port = destinations.iter().find_map(port_of);
        let reference = src_port.or(dst_port)?;
        Some(Channel {
            id: val(&ch.id)?,
            name: val(&ch.name),
            kind: reference.kind,
            max_message_size: reference.max_message_size,
            max_nb_messages: dst_port
                .and_then(|p| p.max_nb_messages)
                .or(src_port.and_then(|p| p.max_nb_messages)),
            source,
            destinations,
        })
    }

    fn build_hm(&self) -> Option<HmTables> {
        let raw = self.raw;
        let system = raw
            .system_hm
            .iter()
            .map(|e| {
                Some(SystemStateEntry {
                    state: val(&e.state)?,
                    description: val(&e.description),
                    errors: e
                        .levels
                        .iter()
                        .map(|l| {
                            Some(ErrorIdLevel {
                                error: val(&l.id)?,
                                description: val(&l.description),
                                level: val(&l.level)?,
                                code: val(&l.code),
                            })
                        })
                        .collect::<Option<Vec<_>>>()?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        fn entries<A: Copy>(es: &[RawHmEntry<A>]) -> Option<Vec<HmStateEntry<A>>> {
            es.iter()
                .map(|e| {
                    Some(HmStateEntry {
                        state: val(&e.state)?,
                        description: val(&e.description),
                        actions: e
                            .actions
                            .iter()
                            .map(|a| {
                                Some(ErrorAction {
                                    error: val(&a.id)?,
                                    action: a.action.as_ref()?.value,
                                    code: val(&a.code),
                                })
                            })
                            .collect::<Option<Vec<_>>>()?,
                    })
                })
                .collect()
        }
        let module = entries(&raw.module_hm)?;
        let partitions = raw
            .partition_hm
            .iter()
            .map(|t| {
                Some(PartitionHmTable {
                    partition: *self.by_id.get(&val(&t.target.id)?)?,
                    entries: entries(&t.entries)?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(HmTables {
            system,
            module,
            partitions,
        })
    }
}

fn kind_word(kind: PortKind) -> &'static str {
    match kind {
        PortKind::Sampling => "sampling",
        PortKind::Queuing => "queuing",
    }
}

/// Parses `host:port` (`[v6]:port` for IPv6).
pub(crate) fn parse_udp(text: &str) -> Result<(String, u16), String> {
    let t = text.trim();
    let Some((host, port)) = t.rsplit_once(':') else {
        return Err("expected host:port".into());
    };
    let host = match host.strip_prefix('[') {
        Some(h) => h
            .strip_suffix(']')
            .ok_or_else(|| "unbalanced [ in the host".to_string())?,
        None if host.contains(':') => {
            return Err("write IPv6 addresses in brackets, e.g. [::1]:5000".into())
        }
        None => host,
    };
    if host.is_empty() {
        return Err("the host is empty".into());
    }
    let port: u16 = port
        .parse()
        .map_err(|_| format!("\"{port}\" is not a UDP port number"))?;
    if port == 0 {
        return Err("port 0 is not a usable destination".into());
    }
    Ok((host.to_string(), port))
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
