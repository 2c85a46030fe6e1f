//! Raw parse: the XML tree as the user wrote it, every value typed where possible and tagged
//! with its position. Value-level problems (missing or malformed attributes, unknown elements
//! and attributes, repeated singletons) are reported here; cross-reference rules are checked by
//! the validator. A value that could not be read is `None` and its diagnostic is already out.

use crate::diag::{Pos, Rule, Sink};
use crate::model::{
    Backend, Criticality, ErrorCode, ErrorLevel, MemoryAccess, ModuleAction, PartitionAction,
    PortDirection, PortKind, ProcessPolicy, PARTITA_NS,
};
use crate::suggest::closest;
use crate::time::{parse_seconds, TimeError};
use partita_schedule::Nanos;
use roxmltree::{Document, Node};

const XSI_NS: &str = "http://www.w3.org/2001/XMLSchema-instance";
const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";

/// Highest core number accepted (exclusive): the size of a Linux `cpu_set_t`.
pub(crate) const MAX_CORES: u32 = 1024;

/// A value and where it was written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sp<T> {
    pub value: T,
    pub pos: Pos,
}

pub(crate) type Opt<T> = Option<Sp<T>>;

/// Value of an optional spanned attribute.
pub(crate) fn val<T: Clone>(o: &Opt<T>) -> Option<T> {
    o.as_ref().map(|s| s.value.clone())
}

#[derive(Debug, Default)]
pub(crate) struct RawModule {
    pub pos: Pos,
    pub name: Opt<String>,
    pub version: Opt<String>,
    pub module_id: Opt<String>,
    pub backend: Opt<Backend>,
    pub partitions: Vec<RawPartition>,
    pub memories: Vec<RawPartitionMemory>,
    pub schedules: Vec<RawSchedule>,
    pub channels: Vec<RawChannel>,
    pub system_hm: Vec<RawSystemStateEntry>,
    pub module_hm: Vec<RawHmEntry<ModuleAction>>,
    pub partition_hm: Vec<RawPartitionHmTable>,
}

#[derive(Debug)]
pub(crate) struct RawPartitionRef {
    pub pos: Pos,
    pub id: Opt<u32>,
    pub name: Opt<String>,
}

#[derive(Debug)]
pub(crate) struct RawPartition {
    pub pos: Pos,
    pub id: Opt<u32>,
    pub name: Opt<String>,
    pub criticality: Opt<Criticality>,
    pub system: Opt<bool>,
    pub entry_point: Opt<String>,
    pub executable: Option<RawExecutable>,
    pub resources: Option<RawResources>,
    pub processes: Vec<RawProcess>,
    pub process_policy: Opt<ProcessPolicy>,
    pub ports: Vec<RawPort>,
}

#[derive(Debug)]
pub(crate) struct RawExecutable {
    pub path: Opt<String>,
    pub args: Vec<String>,
}

#[derive(Debug)]
pub(crate) struct RawResources {
    pub memory_bytes: Opt<u64>,
    pub max_processes: Opt<u32>,
    pub stack_bytes: Opt<u64>,
    pub cores: Opt<Vec<u32>>,
}

#[derive(Debug)]
pub(crate) struct RawProcess {
    pub name: Opt<String>,
    pub period: Opt<Nanos>,
    pub wcet: Opt<Nanos>,
    pub deadline: Opt<Nanos>,
    pub priority: Opt<u32>,
}

#[derive(Debug)]
pub(crate) struct RawPort {
    pub pos: Pos,
    pub kind: PortKind,
    pub name: Opt<String>,
    pub max_message_size: Opt<u32>,
    pub direction: Opt<PortDirection>,
    pub refresh: Opt<Nanos>,
    pub max_nb_messages: Opt<u32>,
}

#[derive(Debug)]
pub(crate) struct RawPartitionMemory {
    pub target: RawPartitionRef,
    pub requirements: Vec<RawMemoryRequirement>,
}

#[derive(Debug)]
pub(crate) struct RawMemoryRequirement {
    pub kind: Opt<String>,
    pub size: Opt<u64>,
    pub access: Opt<MemoryAccess>,
    pub physical_address: Opt<u64>,
}

#[derive(Debug)]
pub(crate) struct RawSchedule {
    pub pos: Pos,
    pub id: Opt<u32>,
    pub name: Opt<String>,
    pub initial: Opt<bool>,
    pub major_frame: Opt<Nanos>,
    pub partitions: Vec<RawPartitionSchedule>,
}

#[derive(Debug)]
pub(crate) struct RawPartitionSchedule {
    pub target: RawPartitionRef,
    pub period: Opt<Nanos>,
    pub duration: Opt<Nanos>,
    pub windows: Vec<RawWindow>,
}

#[derive(Debug)]
pub(crate) struct RawWindow {
    pub pos: Pos,
    pub id: Opt<u32>,
    pub start: Opt<Nanos>,
    pub duration: Opt<Nanos>,
    pub period_start: Opt<bool>,
    pub core: Opt<u32>,
}

#[derive(Debug)]
pub(crate) struct RawChannel {
    pub pos: Pos,
    pub id: Opt<u32>,
    pub name: Opt<String>,
    pub sources: Vec<RawSide>,
    pub destinations: Vec<RawSide>,
}

/// A `Source` or `Destination` element.
#[derive(Debug)]
pub(crate) struct RawSide {
    pub pos: Pos,
    pub endpoints: Vec<RawEndpoint>,
}

#[derive(Debug)]
pub(crate) enum RawEndpoint {
    Standard {
        target: RawPartitionRef,
        port: Opt<String>,
    },
    Pseudo(RawPseudo),
}

impl RawEndpoint {
    pub(crate) fn pos(&self) -> Pos {
        match self {
            RawEndpoint::Standard { target, .. } => target.pos,
            RawEndpoint::Pseudo(p) => p.pos,
        }
    }
}

#[derive(Debug)]
pub(crate) struct RawPseudo {
    pub pos: Pos,
    pub name: Opt<String>,
    pub port: Opt<String>,
    pub udp: Opt<String>,
    pub file: Opt<String>,
    pub fifo: Opt<String>,
}

#[derive(Debug)]
pub(crate) struct RawSystemStateEntry {
    pub state: Opt<u32>,
    pub description: Opt<String>,
    pub levels: Vec<RawErrorLevel>,
}

#[derive(Debug)]
pub(crate) struct RawErrorLevel {
    pub id: Opt<u32>,
    pub description: Opt<String>,
    pub level: Opt<ErrorLevel>,
    pub code: Opt<ErrorCode>,
}

#[derive(Debug)]
pub(crate) struct RawHmEntry<A> {
    pub state: Opt<u32>,
    pub description: Opt<String>,
    pub actions: Vec<RawErrorAction<A>>,
}

#[derive(Debug)]
pub(crate) struct RawErrorAction<A> {
    pub id: Opt<u32>,
    pub action: Opt<A>,
    pub code: Opt<ErrorCode>,
}

#[derive(Debug)]
pub(crate) struct RawPartitionHmTable {
    pub target: RawPartitionRef,
    pub entries: Vec<RawHmEntry<PartitionAction>>,
}

// Known names per place: (unqualified, partita-qualified).
const ROOT_ATTRS: (&[&str], &[&str]) = (&["ModuleName", "ModuleVersion", "ModuleId"], &[]);
const ROOT_CHILDREN: (&[&str], &[&str]) = (
    &[
        "Partition",
        "Partition_Memory",
        "Module_Schedule",
        "Connection_Table",
        "System_HM_Table",
        "Module_HM_Table",
        "Partition_HM_Table",
    ],
    &["Backend"],
);
const PARTITION_ATTRS: (&[&str], &[&str]) = (
    &[
        "PartitionIdentifier",
        "PartitionName",
        "Criticality",
        "SystemPartition",
        "EntryPoint",
    ],
    &[],
);
const PARTITION_CHILDREN: (&[&str], &[&str]) = (
    &["Sampling_Port", "Queuing_Port"],
    &["Executable", "Resources", "Process", "ProcessScheduling"],
);
const SAMPLING_ATTRS: (&[&str], &[&str]) = (
    &["Name", "MaxMessageSize", "Direction", "RefreshRateSeconds"],
    &[],
);
const QUEUING_ATTRS: (&[&str], &[&str]) = (
    &["Name", "MaxMessageSize", "Direction", "MaxNbMessages"],
    &[],
);
const EXECUTABLE_ATTRS: (&[&str], &[&str]) = (&["path"], &[]);
const EXECUTABLE_CHILDREN: (&[&str], &[&str]) = (&[], &["Arg"]);
const RESOURCES_ATTRS: (&[&str], &[&str]) =
    (&["memoryBytes", "maxProcesses", "stackBytes", "cores"], &[]);
const PROCESS_ATTRS: (&[&str], &[&str]) = (
    &[
        "name",
        "periodSeconds",
        "wcetSeconds",
        "deadlineSeconds",
        "priority",
    ],
    &[],
);
const POLICY_ATTRS: (&[&str], &[&str]) = (&["policy"], &[]);
const BACKEND_ATTRS: (&[&str], &[&str]) = (&["name"], &[]);
const NO_NAMES: (&[&str], &[&str]) = (&[], &[]);
const REF_ATTRS: (&[&str], &[&str]) = (&["PartitionIdentifier", "PartitionName"], &[]);
const MEMORY_CHILDREN: (&[&str], &[&str]) = (&["Memory_Requirements"], &[]);
const MEMREQ_ATTRS: (&[&str], &[&str]) = (
    &[
        "RegionName",
        "Type",
        "SizeBytes",
        "Access",
        "PhysicalAddress",
    ],
    &[],
);
const SCHEDULE_ATTRS: (&[&str], &[&str]) = (
    &[
        "ScheduleIdentifier",
        "ScheduleName",
        "MajorFrameSeconds",
        "InitialModuleSchedule",
    ],
    &[],
);
const SCHEDULE_CHILDREN: (&[&str], &[&str]) = (&["Partition_Schedule"], &[]);
const PSCHED_ATTRS: (&[&str], &[&str]) = (
    &[
        "PartitionIdentifier",
        "PartitionName",
        "PeriodSeconds",
        "PeriodDurationSeconds",
    ],
    &[],
);
const PSCHED_CHILDREN: (&[&str], &[&str]) = (&["Window_Schedule"], &[]);
const WINDOW_ATTRS: (&[&str], &[&str]) = (
    &[
        "WindowIdentifier",
        "WindowStartSeconds",
        "WindowDurationSeconds",
        "PartitionPeriodStart",
    ],
    &["Core"],
);
const CTABLE_CHILDREN: (&[&str], &[&str]) = (&["Channel"], &[]);
const CHANNEL_ATTRS: (&[&str], &[&str]) = (&["ChannelIdentifier", "ChannelName"], &[]);
const CHANNEL_CHILDREN: (&[&str], &[&str]) = (&["Source", "Destination"], &[]);
const SIDE_CHILDREN: (&[&str], &[&str]) = (&["Standard_Partition", "Pseudo_Partition"], &[]);
const STANDARD_ATTRS: (&[&str], &[&str]) =
    (&["PartitionIdentifier", "PartitionName", "PortName"], &[]);
const PSEUDO_ATTRS: (&[&str], &[&str]) = (
    &["Name", "PortName", "PhysicalAddress", "Procedure"],
    &["Udp", "File", "Fifo"],
);
const HM_TABLE_CHILDREN: (&[&str], &[&str]) = (&["System_State_Entry"], &[]);
const STATE_ATTRS: (&[&str], &[&str]) = (&["SystemState", "Description"], &[]);
const SYSTEM_STATE_CHILDREN: (&[&str], &[&str]) = (&["Error_ID_Level"], &[]);
const ACTION_STATE_CHILDREN: (&[&str], &[&str]) = (&["Error_ID_Action"], &[]);
const ERROR_LEVEL_ATTRS: (&[&str], &[&str]) = (
    &["ErrorIdentifier", "Description", "ErrorLevel", "ErrorCode"],
    &[],
);
const MODULE_ACTION_ATTRS: (&[&str], &[&str]) =
    (&["ErrorIdentifier", "Description", "Action"], &[]);
const PARTITION_ACTION_ATTRS: (&[&str], &[&str]) = (
    &["ErrorIdentifier", "Description", "Action", "ErrorCode"],
    &[],
);

const BOOL_VALUES: &[(&str, bool)] = &[("true", true), ("false", false), ("1", true), ("0", false)];

/// The name of an element: standard (any namespace but ours) or partita extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Name<'n> {
    Std(&'n str),
    Ext(&'n str),
}

fn element_name<'n>(n: Node<'_, 'n>) -> Name<'n> {
    let tag = n.tag_name();
    if tag.namespace() == Some(PARTITA_NS) {
        Name::Ext(tag.name())
    } else {
        Name::Std(tag.name())
    }
}

fn display(ext: bool, local: &str) -> String {
    if ext {
        format!("partita:{local}")
    } else {
        local.to_string()
    }
}

/// An attribute value as written.
struct AttrVal {
    /// Display name (`partita:Core`).
    name: String,
    text: String,
    pos: Pos,
}

/// Parses an unsigned integer: decimal, or hexadecimal with a `0x` prefix.
pub(crate) fn parse_uint(text: &str) -> Result<u64, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("the value is empty".into());
    }
    let (digits, radix) = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => (h, 16),
        None => (t, 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(if t.starts_with('-') {
            "negative values are not allowed".into()
        } else {
            "not an unsigned integer".into()
        });
    }
    u64::from_str_radix(digits, radix).map_err(|_| "the value is too large".to_string())
}

/// Parses a Linux-style core list: `"0,1"`, `"0-3"`, `"0,2-3"`.
pub(crate) fn parse_core_list(text: &str) -> Result<Vec<u32>, String> {
    let mut cores = Vec::new();
    for part in text.split(',') {
        let part = part.trim();
        if part.is_empty() {
            return Err("empty entry in the core list".into());
        }
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (parse_core(a)?, parse_core(b)?),
            None => {
                let c = parse_core(part)?;
                (c, c)
            }
        };
        if lo > hi {
            return Err(format!("range `{part}` is reversed"));
        }
        cores.extend(lo..=hi);
    }
    cores.sort_unstable();
    cores.dedup();
    Ok(cores)
}

fn parse_core(text: &str) -> Result<u32, String> {
    let v = parse_uint(text).map_err(|e| format!("`{}`: {e}", text.trim()))?;
    if v >= u64::from(MAX_CORES) {
        return Err(format!("core {v} is out of range (0..{})", MAX_CORES - 1));
    }
    Ok(v as u32)
}

/// Reads a document into the raw model. Returns `None` when the root element is wrong.
pub(crate) fn parse_document(doc: &Document<'_>, sink: &mut Sink) -> Option<RawModule> {
    let mut p = Parser { doc, sink };
    p.module(doc.root_element())
}

struct Parser<'d, 'i, 's> {
    doc: &'d Document<'i>,
    sink: &'s mut Sink,
}

impl<'d, 'i> Parser<'d, 'i, '_> {
    fn pos(&self, byte: usize) -> Pos {
        let tp = self.doc.text_pos_at(byte);
        Pos {
            line: tp.row,
            column: tp.col,
        }
    }

    fn node_pos(&self, n: Node<'_, '_>) -> Pos {
        self.pos(n.range().start)
    }

    /// Warns about every attribute of `n` not in `known`.
    fn check_attrs(&mut self, n: Node<'d, 'i>, known: (&[&str], &[&str])) {
        let elem = display(matches!(element_name(n), Name::Ext(_)), n.tag_name().name());
        for a in n.attributes() {
            let (ext, local) = match a.namespace() {
                None => (false, a.name()),
                Some(PARTITA_NS) => (true, a.name()),
                Some(XSI_NS) | Some(XML_NS) => continue,
                Some(_) => (false, a.name()),
            };
            let foreign = a.namespace().is_some() && !ext;
            let ok = !foreign && if ext { known.1 } else { known.0 }.contains(&local);
            if ok {
                continue;
            }
            let shown = if foreign {
                format!("{{{}}}{local}", a.namespace().unwrap_or_default())
            } else {
                display(ext, local)
            };
            let pos = self.pos(a.range().start);
            let hint = suggestion_hint(ext, local, known, "attribute");
            self.sink
                .emit(
                    Rule::UnknownAttribute,
                    pos,
                    format!("unknown attribute `{shown}` on `{elem}` (ignored)"),
                )
                .with_hint(hint);
        }
    }

    fn unknown_element(&mut self, n: Node<'d, 'i>, parent: &str, known: (&[&str], &[&str])) {
        let (ext, local) = match element_name(n) {
            Name::Std(l) => (false, l),
            Name::Ext(l) => (true, l),
        };
        let pos = self.node_pos(n);
        let hint = suggestion_hint(ext, local, known, "element");
        self.sink
            .emit(
                Rule::UnknownElement,
                pos,
                format!(
                    "unknown element `{}` in `{parent}` (ignored)",
                    display(ext, local)
                ),
            )
            .with_hint(hint);
    }

    fn duplicate_element(&mut self, n: Node<'d, 'i>, first: Pos, what: &str) {
        let pos = self.node_pos(n);
        self.sink
            .emit(
                Rule::DuplicateElement,
                pos,
                format!("`{what}` may appear only once here"),
            )
            .with_hint("merge the two elements into one")
            .with_related(first, "first one here");
    }

    fn elements(n: Node<'d, 'i>) -> impl Iterator<Item = Node<'d, 'i>> {
        n.children().filter(|c| c.is_element())
    }

    /// Reads attribute `key` (`"partita:X"` for extension attributes) of `n`.
    fn get(&mut self, n: Node<'d, 'i>, key: &str, required: bool) -> Option<AttrVal> {
        let attr = match key.strip_prefix("partita:") {
            Some(local) => n.attribute_node((PARTITA_NS, local)),
            None => n.attribute_node(key),
        };
        match attr {
            Some(a) => Some(AttrVal {
                name: key.to_string(),
                text: a.value().to_string(),
                pos: self.pos(a.range().start),
            }),
            None => {
                if required {
                    let elem =
                        display(matches!(element_name(n), Name::Ext(_)), n.tag_name().name());
                    let pos = self.node_pos(n);
                    self.sink
                        .emit(
                            Rule::MissingAttribute,
                            pos,
                            format!("`{elem}` is missing the required attribute `{key}`"),
                        )
                        .with_hint(format!("add {key}=\"...\""));
                }
                None
            }
        }
    }

    fn string(&mut self, n: Node<'d, 'i>, key: &str, required: bool) -> Opt<String> {
        self.get(n, key, required).map(|v| Sp {
            value: v.text,
            pos: v.pos,
        })
    }

    fn uint(&mut self, n: Node<'d, 'i>, key: &str, required: bool, min: u64, max: u64) -> Opt<u64> {
        let v = self.get(n, key, required)?;
        match parse_uint(&v.text) {
            Ok(x) if x >= min && x <= max => Some(Sp {
                value: x,
                pos: v.pos,
            }),
            Ok(x) => {
                let msg = if x < min {
                    format!("`{}` must be at least {min}; found {x}", v.name)
                } else {
                    format!("`{}` must be at most {max}; found {x}", v.name)
                };
                self.sink.emit(Rule::BadNumber, v.pos, msg);
                None
            }
            Err(why) => {
                self.sink
                    .emit(
                        Rule::BadNumber,
                        v.pos,
                        format!("`{}` = \"{}\": {why}", v.name, v.text),
                    )
                    .with_hint("write a decimal integer (or hexadecimal with a 0x prefix)");
                None
            }
        }
    }

    fn u32(&mut self, n: Node<'d, 'i>, key: &str, required: bool, min: u32) -> Opt<u32> {
        self.uint(n, key, required, u64::from(min), u64::from(u32::MAX))
            .map(|s| Sp {
                value: s.value as u32,
                pos: s.pos,
            })
    }

    fn u64(&mut self, n: Node<'d, 'i>, key: &str, required: bool, min: u64) -> Opt<u64> {
        self.uint(n, key, required, min, u64::MAX)
    }

    fn time(&mut self, n: Node<'d, 'i>, key: &str, required: bool) -> Opt<Nanos> {
        let v = self.get(n, key, required)?;
        match parse_seconds(&v.text) {
            Ok(ns) => Some(Sp {
                value: ns,
                pos: v.pos,
            }),
            Err(e) => {
                let (rule, hint) = match &e {
                    TimeError::Exponent => (
                        Rule::TimeExponent,
                        "write the time as plain decimal seconds, e.g. 0.001 instead of 1e-3"
                            .to_string(),
                    ),
                    TimeError::TooPrecise(_) => (
                        Rule::TimePrecision,
                        "times are exact nanoseconds: use at most 9 decimal places".to_string(),
                    ),
                    _ => (
                        Rule::BadTime,
                        "write non-negative decimal seconds, e.g. 0.05 for 50 ms".to_string(),
                    ),
                };
                self.sink
                    .emit(
                        rule,
                        v.pos,
                        format!("`{}` = \"{}\" is not a valid time: {e}", v.name, v.text),
                    )
                    .with_hint(hint);
                None
            }
        }
    }

    fn choice<E: Copy>(
        &mut self,
        n: Node<'d, 'i>,
        key: &str,
        required: bool,
        values: &[(&str, E)],
    ) -> Opt<E> {
        let v = self.get(n, key, required)?;
        let t = v.text.trim();
        if let Some((_, e)) = values.iter().find(|(s, _)| *s == t) {
            return Some(Sp {
                value: *e,
                pos: v.pos,
            });
        }
        let allowed: Vec<&str> = values.iter().map(|(s, _)| *s).collect();
        let d = self.sink.emit(
            Rule::BadEnum,
            v.pos,
            format!(
                "`{}` = \"{}\" is not one of {}",
                v.name,
                v.text,
                allowed.join(", ")
            ),
        );
        match closest(t, allowed.iter().copied()) {
            Some(s) => d.with_hint(format!("did you mean `{s}`?")),
            None => d.with_hint(format!("write one of: {}", allowed.join(", "))),
        };
        None
    }

    fn boolean(&mut self, n: Node<'d, 'i>, key: &str) -> Opt<bool> {
        self.choice(n, key, false, BOOL_VALUES)
    }

    fn partition_ref(&mut self, n: Node<'d, 'i>) -> RawPartitionRef {
        RawPartitionRef {
            pos: self.node_pos(n),
            id: self.u32(n, "PartitionIdentifier", true, 0),
            name: self.string(n, "PartitionName", false),
        }
    }

    fn module(&mut self, root: Node<'d, 'i>) -> Option<RawModule> {
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
            name: self.string(root, "ModuleName", true),
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
            name: self.string(n, "PartitionName", true),
            criticality: self.choice(n, "Criticality", true, Criticality::VALUES),
            system: self.boolean(n, "SystemPartition"),
            entry_point: self.string(n, "EntryPoint", false),
            executable: None,
            resources: None,
            processes: Vec::new(),
            process_policy: None,
            ports: Vec::new(),
        };
        let mut firsts: Vec<(&str, Pos)> = Vec::new();
        for c in Self::elements(n) {
            let name = element_name(c);
            if let Name::Ext(s @ ("Executable" | "Resources" | "ProcessScheduling")) = name {
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
                            args.push(text);
                        } else {
                            self.unknown_element(a, "partita:Executable", EXECUTABLE_CHILDREN);
                        }
                    }
                    p.executable = Some(RawExecutable { path, args });
                }
                Name::Ext("Resources") => {
                    self.check_attrs(c, RESOURCES_ATTRS);
                    let cores =
                        self.get(c, "cores", false)
                            .and_then(|v| match parse_core_list(&v.text) {
                                Ok(list) => Some(Sp {
                                    value: list,
                                    pos: v.pos,
                                }),
                                Err(why) => {
                                    self.sink
                                        .emit(
                                            Rule::BadNumber,
                                            v.pos,
                                            format!("`cores` = \"{}\": {why}", v.text),
                                        )
                                        .with_hint(
                                            "write a core list such as \"0\", \"0,1\" or \"0-3\"",
                                        );
                                    None
                                }
                            });
                    p.resources = Some(RawResources {
                        memory_bytes: self.u64(c, "memoryBytes", false, 1),
                        max_processes: self.u32(c, "maxProcesses", false, 1),
                        stack_bytes: self.u64(c, "stackBytes", false, 1),
                        cores,
                    });
                    self.no_children(c, "partita:Resources");
                }
                Name::Ext("Process") => {
                    self.check_attrs(c, PROCESS_ATTRS);
                    p.processes.push(RawProcess {
                        name: self.string(c, "name", true),
                        period: self.time(c, "periodSeconds", false),
                        wcet: self.time(c, "wcetSeconds", false),
                        deadline: self.time(c, "deadlineSeconds", false),
                        priority: self.u32(c, "priority", false, 0),
                    });
                    self.no_children(c, "partita:Process");
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
        let name = self.string(n, "Name", true);
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
                    kind: self.string(c, "Type", true),
                    size: self.u64(c, "SizeBytes", true, 0),
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
            id: self.u32(n, "ScheduleIdentifier", false, 0),
            name: self.string(n, "ScheduleName", false),
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
            name: self.string(n, "ChannelName", false),
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
                        let port = self.string(e, "PortName", true);
                        self.no_children(e, "Standard_Partition");
                        side.endpoints.push(RawEndpoint::Standard { target, port });
                    }
                    Name::Std("Pseudo_Partition") => {
                        self.check_attrs(e, PSEUDO_ATTRS);
                        let pseudo = RawPseudo {
                            pos: self.node_pos(e),
                            name: self.string(e, "Name", true),
                            port: self.string(e, "PortName", false),
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
                    level: self.choice(c, "ErrorLevel", true, ErrorLevel::VALUES),
                    code: self.choice(c, "ErrorCode", false, ErrorCode::VALUES),
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
                            self.choice(c, "ErrorCode", false, ErrorCode::VALUES)
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

/// The hint of an unknown element or attribute: a close known name, or the list of names
/// allowed at that place.
fn suggestion_hint(ext: bool, local: &str, known: (&[&str], &[&str]), what: &str) -> String {
    // Same name, wrong namespace.
    if !ext && known.1.contains(&local) {
        return format!(
            "`{local}` is a partita extension: write `partita:{local}` and declare xmlns:partita=\"{PARTITA_NS}\" on the root element"
        );
    }
    if ext && known.0.contains(&local) {
        return format!("`{local}` is a standard {what}: write it without the `partita:` prefix");
    }
    let candidates: Vec<String> = known
        .0
        .iter()
        .map(|s| s.to_string())
        .chain(known.1.iter().map(|s| display(true, s)))
        .collect();
    let locals: Vec<&str> = known.0.iter().chain(known.1.iter()).copied().collect();
    if let Some(best) = closest(local, locals.iter().copied()) {
        let idx = locals.iter().position(|l| *l == best).unwrap_or(0);
        if let Some(shown) = candidates.get(idx) {
            return format!("did you mean `{shown}`?");
        }
    }
    if candidates.is_empty() {
        format!("no {what}s are expected here")
    } else {
        format!("known {what}s here: {}", candidates.join(", "))
    }
}
