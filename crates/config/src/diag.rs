// SPDX-License-Identifier: MIT OR Apache-2.0
//! Diagnostics: the rules, their stable names, and rustc/gcc-like rendering.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::path::PathBuf;

/// How bad a violation is. Errors prevent a plan from being produced; warnings do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The configuration is rejected.
    Error,
    /// The configuration is accepted, but probably not what was meant.
    Warning,
}

impl Severity {
    /// `"error"` or `"warning"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

macro_rules! define_rules {
    ($( $variant:ident = $name:literal, $sev:ident, $desc:literal; )*) => {
        /// A validation rule. Every diagnostic names exactly one rule; the kebab-case
        /// [`name`](Rule::name) is stable and is what users, documentation and tests refer to.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Rule {
            $(
                #[doc = $desc]
                $variant,
            )*
        }

        impl Rule {
            /// Every rule, in documentation order.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant,)*];

            /// The stable kebab-case name (`"window-overlap"`).
            pub fn name(self) -> &'static str {
                match self { $(Rule::$variant => $name,)* }
            }

            /// The severity of every diagnostic of this rule.
            pub fn severity(self) -> Severity {
                match self { $(Rule::$variant => Severity::$sev,)* }
            }

            /// One-line description for documentation.
            pub fn description(self) -> &'static str {
                match self { $(Rule::$variant => $desc,)* }
            }
        }
    };
}

define_rules! {
    XmlSyntax = "xml-syntax", Error,
        "The file is not well-formed XML (or not UTF-8); reported once, at the parser's position.";
    XmlTooDeep = "xml-too-deep", Error,
        "Elements are nested deeper than 32 levels; found before parsing, so no input can exhaust the parser's stack.";
    XmlTooLarge = "xml-too-large", Error,
        "The file is larger than 4 MiB, has more than 200000 XML nodes, or an attribute value or `partita:Arg` is longer than 4096 bytes.";
    BadRoot = "bad-root", Error,
        "The root element is not `ARINC_653_Module`.";
    UnknownElement = "unknown-element", Warning,
        "An element that is neither ARINC 653 schema nor a partita extension at that place (ignored).";
    UnknownAttribute = "unknown-attribute", Warning,
        "An attribute that is neither ARINC 653 schema nor a partita extension on that element (ignored).";
    MissingAttribute = "missing-attribute", Error,
        "A required attribute is absent.";
    MissingElement = "missing-element", Error,
        "A required element is absent (no `Partition`, no `Module_Schedule`).";
    DuplicateElement = "duplicate-element", Error,
        "An element that may appear only once (per parent, per partition or per schedule) appears again.";
    BadNumber = "bad-number", Error,
        "An integer attribute (identifier, size, count, core list) is not a valid number in range.";
    BadTime = "bad-time", Error,
        "A time attribute is not a non-negative decimal number of seconds.";
    TimeExponent = "time-exponent", Error,
        "A time uses exponent notation (`1e-3`); write plain decimals (`0.001`).";
    TimePrecision = "time-precision", Error,
        "A time has more than 9 decimal places (finer than a nanosecond).";
    BadEnum = "bad-enum", Error,
        "An enumerated attribute (criticality, direction, boolean, action, ...) has a value outside its set.";
    ZeroDuration = "zero-duration", Error,
        "A major frame, partition period, window duration or refresh period is zero.";
    UnsafeName = "unsafe-name", Error,
        "A name (module, partition, port, schedule, process, channel, pseudo-partition) is empty, starts with `.`, or has a character other than ASCII letters, digits, `_`, `-`, `.`: names become file, cgroup and shared-memory object names.";
    SystemLimit = "system-limit", Error,
        "A value passes an ARINC 653 system limit of ARINC653.h: MaxMessageSize above SYSTEM_LIMIT_MESSAGE_SIZE (8192), MaxNbMessages above SYSTEM_LIMIT_NUMBER_OF_MESSAGES (512), more than SYSTEM_LIMIT_NUMBER_OF_PARTITIONS (32) partitions, more than SYSTEM_LIMIT_NUMBER_OF_SAMPLING_PORTS (512) sampling or SYSTEM_LIMIT_NUMBER_OF_QUEUING_PORTS (512) queuing ports in a partition, or a memory block (`Memory_Requirements RegionName`) whose name passes MAX_NAME_LENGTH (30), whose size passes MEMORY_BLOCK_SIZE_TYPE, or beyond the 16 named blocks of a partition.";
    PartitionNameTooLong = "partition-name-too-long", Error,
        "A partition name is longer than 30 characters (ARINC 653 NAME_TYPE).";
    PortNameTooLong = "port-name-too-long", Error,
        "A port name is longer than 30 characters (ARINC 653 NAME_TYPE).";
    DuplicatePartitionId = "duplicate-partition-id", Error,
        "Two partitions have the same `PartitionIdentifier`.";
    DuplicatePartitionName = "duplicate-partition-name", Error,
        "Two partitions have the same `PartitionName`.";
    DuplicatePortName = "duplicate-port-name", Error,
        "Two ports of one partition have the same name.";
    DuplicateProcessName = "duplicate-process-name", Error,
        "Two `partita:Process` elements of one partition have the same name.";
    PartitionNameMismatch = "partition-name-mismatch", Error,
        "A reference gives a `PartitionIdentifier` and a `PartitionName` that belong to different partitions.";
    EntryPointMissing = "entry-point-missing", Error,
        "A partition has no executable, or its executable file does not exist.";
    EntryPointNotExecutable = "entry-point-not-executable", Error,
        "A partition's executable is not a regular file with execute permission.";
    EntryPointFunction = "entry-point-function", Error,
        "With `partita:Executable`, `EntryPoint` names the partition's entry function: it must be a C identifier that the (ELF) executable exports.";
    PartitionPathUnreachable = "partition-path-unreachable", Warning,
        "A path the partition's process must reach under its own uid is out of its reach: its executable needs execute permission for that uid (the manager opens it, so its directories need not be traversable); an absolute path among its `partita:Arg`s needs search permission on every directory above it and read permission on itself. Checked with the uid a run as root assigns in partition id block 0 (61000 + the partition's index) against this host's files and mode bits (not ACLs): another host, changed files, or a run that finds block 0 taken by another module may differ (docs/host-files.md).";
    MemoryUnknownPartition = "memory-unknown-partition", Error,
        "`Partition_Memory` refers to a partition that is not declared.";
    InitialSchedule = "initial-schedule", Error,
        "Several `Module_Schedule` elements, but not exactly one has `InitialModuleSchedule=\"true\"`.";
    DuplicateScheduleId = "duplicate-schedule-id", Error,
        "Two module schedules have the same `ScheduleIdentifier` (a schedule without one is numbered by its position, from 0).";
    DuplicateScheduleName = "duplicate-schedule-name", Error,
        "Two module schedules have the same `ScheduleName` (GET_MODULE_SCHEDULE_ID could not tell them apart).";
    ScheduleNameTooLong = "schedule-name-too-long", Error,
        "A `ScheduleName` is longer than 30 characters (ARINC 653 SCHEDULE_NAME_TYPE).";
    ScheduleLimit = "schedule-limit", Error,
        "More than 16 `Module_Schedule` elements (the size of the runtime's schedule table).";
    SetScheduleNotSystem = "set-module-schedule-not-system", Error,
        "`SetModuleSchedule=\"true\"` on a partition that is not a system partition: only system partitions may call SET_MODULE_SCHEDULE.";
    DuplicateWindowId = "duplicate-window-id", Error,
        "Two windows of one module schedule have the same `WindowIdentifier`.";
    ScheduleUnknownPartition = "schedule-unknown-partition", Error,
        "`Partition_Schedule` refers to a partition that is not declared.";
    WindowUnknownPartition = "window-unknown-partition", Error,
        "A `Window_Schedule` is not inside a `Partition_Schedule`, so it belongs to no partition.";
    WindowOutsideFrame = "window-outside-frame", Error,
        "A window starts at or after the end of the major frame, or ends after it.";
    WindowOverlap = "window-overlap", Error,
        "Two windows on the same core overlap in time.";
    FrameNotMultipleOfPeriod = "frame-not-multiple-of-period", Error,
        "The major frame is not a whole multiple of a partition's period.";
    TooManyPeriods = "too-many-periods", Error,
        "A major frame holds more than 1000000 periods of a partition (MajorFrameSeconds / PeriodSeconds).";
    DurationExceedsPeriod = "duration-exceeds-period", Error,
        "A partition's `PeriodDurationSeconds` is longer than its `PeriodSeconds`.";
    PeriodDurationNotMet = "period-duration-not-met", Error,
        "In some period (counted from frame start), a partition's windows give it less than `PeriodDurationSeconds`.";
    PartitionWithoutWindow = "partition-without-window", Error,
        "A declared partition has no window in any module schedule, so it would never run.";
    WindowCoreNotAllowed = "window-core-not-allowed", Error,
        "A window runs on a core that is not in its partition's `partita:Resources cores` list.";
    MulticoreWindowsDiffer = "multicore-windows-differ", Warning,
        "A partition with windows on several cores has different windows on them; it is held and released as a whole, so its processes of one core also run in the windows it has only on another.";
    RtBudget = "rt-budget", Warning,
        "Windows fill more than 95% of a core's major frame; Linux RT throttling (sched_rt_runtime_us=950000) may cut them.";
    GeneralPurposeApex = "general-purpose-apex", Error,
        "A general-purpose partition (`partita:GeneralPurpose`) declares something only the APEX runtime serves: a sampling or queuing port, a `partita:Process`, `partita:ProcessScheduling`, `SystemPartition=\"true\"` or a named memory block (`Memory_Requirements RegionName`).";
    BackgroundCore = "background-core", Error,
        "Background time (`partita:GeneralPurpose background`) on a core whose idle time another partition already gets, on a core outside the partition's `partita:Resources cores`, or of a partition that also runs on another core: a partition is held and released as a whole, so its background on one core would let it run beside another partition's window on the other.";
    NetworkLink = "network-link", Error,
        "A general-purpose partition's network: `network=\"link\"` without both `hostAddress` and `address`, an address that is not IPv4 `a.b.c.d/prefix` (prefix 1 to 30) or not a host address of its subnet, two ends that are equal or in different subnets, a link whose subnet overlaps another partition's link, or an address given with another network mode.";
    BindPath = "bind-path", Error,
        "A `partita:Bind` whose `source` or `target` is not an absolute path, does not exist on this host, or whose target another bind of the partition already uses.";
    DuplicateChannelId = "duplicate-channel-id", Error,
        "Two channels have the same `ChannelIdentifier`.";
    ChannelEndpoints = "channel-endpoints", Error,
        "A channel lacks its `Source` or `Destination`, a side does not hold exactly one partition, or no side is a standard partition.";
    ChannelUnknownPartition = "channel-unknown-partition", Error,
        "A channel endpoint refers to a partition that is not declared.";
    ChannelUnknownPort = "channel-unknown-port", Error,
        "A channel endpoint refers to a port the partition does not declare.";
    ChannelDirection = "channel-direction", Error,
        "A channel source is not a SOURCE port, or a destination is not a DESTINATION port.";
    ChannelKindMismatch = "channel-kind-mismatch", Error,
        "A channel connects a sampling port with a queuing port.";
    MessageSizeMismatch = "message-size-mismatch", Error,
        "The ports of a channel have different `MaxMessageSize`.";
    SamplingMultipleSources = "sampling-multiple-sources", Error,
        "A sampling destination port is fed by more than one source.";
    QueuingMultipleSources = "queuing-multiple-sources", Error,
        "A queuing destination port is fed by more than one source.";
    QueuingMultipleDestinations = "queuing-multiple-destinations", Error,
        "A queuing source port feeds more than one destination (queuing channels are one-to-one).";
    PortNotConnected = "port-not-connected", Warning,
        "A partition port is not used by any channel.";
    PseudoPartitionEndpoint = "pseudo-partition-endpoint", Error,
        "A `Pseudo_Partition` needs exactly one of `partita:Udp=\"host:port\"`, `partita:File` or `partita:Fifo`, well-formed.";
    HmUnknownPartition = "hm-unknown-partition", Error,
        "`Partition_HM_Table` refers to a partition that is not declared.";
    HmUnknownError = "hm-unknown-error", Error,
        "An HM action refers to a system state or error identifier that `System_HM_Table` does not declare.";
    DuplicateHmEntry = "duplicate-hm-entry", Error,
        "An HM table lists the same system state, or the same error identifier within one state, twice.";
}

impl Rule {
    /// Looks a rule up by its kebab-case name.
    pub fn from_name(name: &str) -> Option<Rule> {
        Rule::ALL.iter().copied().find(|r| r.name() == name)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Rule {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Rule {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Rule::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown rule `{name}`")))
    }
}

/// A rule as listed in documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RuleInfo {
    /// Stable kebab-case name.
    pub name: &'static str,
    /// Severity of its diagnostics.
    pub severity: Severity,
    /// One-line description.
    pub description: &'static str,
    /// The rule itself.
    #[serde(skip)]
    pub rule: Rule,
}

/// Every rule the validator can report: name, severity, one-line description.
pub fn rules() -> Vec<RuleInfo> {
    Rule::ALL
        .iter()
        .map(|&rule| RuleInfo {
            name: rule.name(),
            severity: rule.severity(),
            description: rule.description(),
            rule,
        })
        .collect()
}

/// A 1-based line and column in the configuration file.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
pub struct Pos {
    /// Line, from 1.
    pub line: u32,
    /// Column (in characters), from 1.
    pub column: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// A second location a diagnostic refers to ("first defined here").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Related {
    /// What is there.
    pub message: String,
    /// File.
    pub file: PathBuf,
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub column: u32,
}

/// One violation of one rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// Error or warning (always the rule's severity).
    pub severity: Severity,
    /// The violated rule.
    pub rule: Rule,
    /// What is wrong, in one sentence.
    pub message: String,
    /// The configuration file.
    pub file: PathBuf,
    /// Line of the offending element or attribute, from 1.
    pub line: u32,
    /// Column of the offending element or attribute, from 1.
    pub column: u32,
    /// How to fix it (may span several lines).
    pub hint: Option<String>,
    /// A related location, such as the first definition of a duplicate.
    pub related: Option<Related>,
}

impl Diagnostic {
    /// A diagnostic of `rule` at `pos` of `file`, without hint or related location.
    pub fn new(rule: Rule, file: impl Into<PathBuf>, pos: Pos, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: rule.severity(),
            rule,
            message: message.into(),
            file: file.into(),
            line: pos.line,
            column: pos.column,
            hint: None,
            related: None,
        }
    }

    /// Sets the hint.
    pub fn with_hint(&mut self, hint: impl Into<String>) -> &mut Self {
        self.hint = Some(hint.into());
        self
    }

    /// Sets the related location (in the same file).
    pub fn with_related(&mut self, pos: Pos, message: impl Into<String>) -> &mut Self {
        self.related = Some(Related {
            message: message.into(),
            file: self.file.clone(),
            line: pos.line,
            column: pos.column,
        });
        self
    }

    /// The position of the diagnostic.
    pub fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column,
        }
    }

    /// `true` for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    /// `path:line:col: error[rule]: message`, then indented `hint:` and `note:` lines.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}[{}]: {}",
            self.file.display(),
            self.line,
            self.column,
            self.severity,
            self.rule,
            self.message
        )?;
        if let Some(hint) = &self.hint {
            for line in hint.lines() {
                write!(f, "\n  hint: {line}")?;
            }
        }
        if let Some(r) = &self.related {
            write!(
                f,
                "\n  note: {}:{}:{}: {}",
                r.file.display(),
                r.line,
                r.column,
                r.message
            )?;
        }
        Ok(())
    }
}

/// Renders diagnostics one after the other, each as `path:line:col: severity[rule]: message`
/// followed by its indented `hint:` and `note:` lines (see [`Diagnostic`]'s `Display`), every
/// line ending in a newline. Empty input renders as an empty string. The total
/// (`2 errors, 1 warning`) is [`count_line`].
pub fn render_diagnostics(diagnostics: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diagnostics {
        out.push_str(&d.to_string());
        out.push('\n');
    }
    out
}

/// `"2 errors, 1 warning"` (or `"no problems"`).
pub fn count_line(diagnostics: &[Diagnostic]) -> String {
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = diagnostics.len() - errors;
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    match (errors, warnings) {
        (0, 0) => "no problems".to_string(),
        (e, 0) => plural(e, "error"),
        (0, w) => plural(w, "warning"),
        (e, w) => format!("{}, {}", plural(e, "error"), plural(w, "warning")),
    }
}

/// Collects diagnostics for one file.
#[derive(Debug)]
pub(crate) struct Sink {
    pub(crate) file: PathBuf,
    pub(crate) diags: Vec<Diagnostic>,
}

impl Sink {
    pub(crate) fn new(file: impl Into<PathBuf>) -> Self {
        Sink {
            file: file.into(),
            diags: Vec::new(),
        }
    }

    /// Records a diagnostic and returns it for adding a hint or related location.
    pub(crate) fn emit(
        &mut self,
        rule: Rule,
        pos: Pos,
        message: impl Into<String>,
    ) -> &mut Diagnostic {
        self.diags
            .push(Diagnostic::new(rule, self.file.clone(), pos, message));
        let last = self.diags.len() - 1;
        &mut self.diags[last]
    }

    pub(crate) fn error_count(&self) -> usize {
        self.diags.iter().filter(|d| d.is_error()).count()
    }
}
