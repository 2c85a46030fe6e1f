// SPDX-License-Identifier: MIT OR Apache-2.0
//! ARINC 653 module configuration for Partita: raw XML → validated model → compiled plan.
//!
//! The input is the ARINC 653 Part 1 XML configuration as integrators write it
//! (`ARINC_653_Module`, `Partition`, `Module_Schedule`, `Connection_Table`, HM tables), plus
//! optional extensions in the `urn:partita:1` namespace (executable and arguments, resource
//! limits, window cores, pseudo-partition transports, backend choice). A standard-only file is
//! fully valid.
//!
//! - [`check_file`] / [`check_str`] run the whole pipeline and return every
//!   [`Diagnostic`] (errors and warnings, each naming a stable [`Rule`]) plus the
//!   [`CompiledPlan`] when there is no error.
//! - [`render_diagnostics`] and [`render_summary`] produce the text a CLI prints.
//! - [`write_plan`] / [`read_plan`] store a plan in a checked binary file; [`load`] accepts
//!   either an XML configuration or a plan file; [`PlanBuilder`] builds a plan in code.
//! - [`rules`] lists every rule for documentation.
//!
//! Times are decimal seconds parsed exactly to integer nanoseconds ([`time::parse_seconds`]).
//!
//! # Extensions (`xmlns:partita="urn:partita:1"`)
//!
//! ```xml
//! <ARINC_653_Module ModuleName="ROVER" xmlns:partita="urn:partita:1">
//!   <partita:Backend name="auto|signals|freezer"/>            <!-- default auto -->
//!   <Partition PartitionIdentifier="1" PartitionName="CONTROL" Criticality="LEVEL_A">
//!     <!-- program and arguments, relative to this file; without it EntryPoint is the path -->
//!     <partita:Executable path="bin/control"><partita:Arg>--rate</partita:Arg></partita:Executable>
//!     <!-- all optional; cores defaults to the cores of the partition's windows; the memory
//!          limit defaults to the sum of its Memory_Requirements SizeBytes -->
//!     <partita:Resources memoryBytes="16777216" maxProcesses="8" stackBytes="65536" cores="0,1"/>
//!     <partita:Process name="loop" periodSeconds="0.02" wcetSeconds="0.002"
//!                      deadlineSeconds="0.02" priority="10"/>
//!     <partita:ProcessScheduling policy="PRIORITY|EDF"/>
//!   </Partition>
//!   <Module_Schedule MajorFrameSeconds="0.02">
//!     <Partition_Schedule PartitionIdentifier="1" PeriodSeconds="0.02" PeriodDurationSeconds="0.008">
//!       <Window_Schedule WindowIdentifier="1" WindowStartSeconds="0" WindowDurationSeconds="0.008"
//!                        partita:Core="1"/>                    <!-- default core 0 -->
//!     </Partition_Schedule>
//!   </Module_Schedule>
//!   <!-- a Pseudo_Partition takes exactly one of partita:Udp="host:port", partita:File="path",
//!        partita:Fifo="path" (paths relative to this file) -->
//! </ARINC_653_Module>
//! ```
//!
//! Unknown elements and attributes are warnings (`unknown-element`, `unknown-attribute`) with a
//! "did you mean" hint; `xsi:` and `xml:` attributes are ignored.

mod builder;
mod diag;
mod entry;
pub mod limits;
pub mod model;
mod plan;
mod raw;
pub mod reach;
mod suggest;
mod summary;
pub mod time;
mod validate;

pub use builder::PlanBuilder;
pub use diag::{
    count_line, render_diagnostics, rules, Diagnostic, Pos, Related, Rule, RuleInfo, Severity,
};
pub use model::ValidatedModule;
pub use plan::{
    compile, is_plan, plan_to_bytes, read_plan, sha256_hex, write_plan, CompiledPartition,
    CompiledPlan, Inconsistency, PartitionTiming, PlanError, MAX_CHANNEL_MESSAGE,
    MAX_CHANNEL_QUEUE, PLAN_FORMAT_VERSION, PLAN_HEADER_LEN, PLAN_MAGIC,
};
pub use summary::{partition_letter, render_summary, timeline_bar, BAR_WIDTH};
pub use validate::RT_BUDGET_PERCENT;

use std::path::{Path, PathBuf};

/// Options of a check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckOptions {
    /// Read the host's files: check that every partition's executable exists and is
    /// executable (`entry-point-missing`, `entry-point-not-executable`,
    /// `entry-point-function`) and that each partition's uid reaches the paths it must
    /// (`partition-path-unreachable`, [`reach`]). Default `true`; turn it off to check a
    /// configuration on a machine that does not have the partition programs.
    pub check_executables: bool,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            check_executables: true,
        }
    }
}

/// Result of checking a configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckOutcome {
    /// The compiled plan, present exactly when there is no error diagnostic.
    pub plan: Option<CompiledPlan>,
    /// Every error and warning, ordered by position.
    pub diagnostics: Vec<Diagnostic>,
}

impl CheckOutcome {
    /// Number of error diagnostics.
    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    /// Number of warning diagnostics.
    pub fn warning_count(&self) -> usize {
        self.diagnostics.len() - self.error_count()
    }

    /// `true` when there is at least one error.
    pub fn has_errors(&self) -> bool {
        self.error_count() > 0
    }
}

/// Reads and checks the configuration file at `path` (the whole pipeline). Fails only when the
/// file cannot be read; every problem of its content is a diagnostic.
pub fn check_file(path: impl AsRef<Path>) -> std::io::Result<CheckOutcome> {
    check_file_with(path, &CheckOptions::default())
}

/// [`check_file`] with options.
pub fn check_file_with(
    path: impl AsRef<Path>,
    options: &CheckOptions,
) -> std::io::Result<CheckOutcome> {
    let path = path.as_ref();
    let bytes = limits::read_bounded(path)?;
    Ok(check_bytes(&bytes, path, options))
}

/// Checks configuration text; `path` is used in diagnostics and relative paths (executables,
/// pseudo-partition files) are resolved against its directory.
pub fn check_str(source: &str, path: impl AsRef<Path>) -> CheckOutcome {
    check_str_with(source, path, &CheckOptions::default())
}

/// [`check_str`] with options.
pub fn check_str_with(
    source: &str,
    path: impl AsRef<Path>,
    options: &CheckOptions,
) -> CheckOutcome {
    let (model, diagnostics) = validate_str(source, path, options);
    CheckOutcome {
        plan: model.as_ref().map(compile),
        diagnostics,
    }
}

/// Checks configuration bytes (which must be UTF-8; anything else is an `xml-syntax` error).
pub fn check_bytes(bytes: &[u8], path: impl AsRef<Path>, options: &CheckOptions) -> CheckOutcome {
    match std::str::from_utf8(bytes) {
        Ok(s) => check_str_with(s, path, options),
        Err(e) => {
            let valid = &bytes[..e.valid_up_to()];
            let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
            let line_start = valid.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let column = String::from_utf8_lossy(&valid[line_start..])
                .chars()
                .count()
                + 1;
            let pos = Pos {
                line: u32::try_from(line).unwrap_or(u32::MAX),
                column: u32::try_from(column).unwrap_or(u32::MAX),
            };
            let mut d = Diagnostic::new(
                Rule::XmlSyntax,
                path.as_ref(),
                pos,
                "the file is not valid UTF-8",
            );
            d.with_hint("save the configuration as UTF-8");
            CheckOutcome {
                plan: None,
                diagnostics: vec![d],
            }
        }
    }
}

/// The first two stages only: parses and validates, returning the typed model when there is
/// no error, and every diagnostic ordered by position.
pub fn validate_str(
    source: &str,
    path: impl AsRef<Path>,
    options: &CheckOptions,
) -> (Option<ValidatedModule>, Vec<Diagnostic>) {
    validate_inner(source, path.as_ref(), options, true)
}

/// Validation for schedule synthesis (`partita schedule`): every rule except the module
/// schedule rules, which are not checked because the schedules are about to be replaced. A
/// module without `Module_Schedule` is accepted; the returned model has no schedules.
pub fn validate_for_synthesis(
    source: &str,
    path: impl AsRef<Path>,
    options: &CheckOptions,
) -> (Option<ValidatedModule>, Vec<Diagnostic>) {
    validate_inner(source, path.as_ref(), options, false)
}

fn validate_inner(
    source: &str,
    path: &Path,
    options: &CheckOptions,
    schedules: bool,
) -> (Option<ValidatedModule>, Vec<Diagnostic>) {
    let mut sink = diag::Sink::new(path);
    let text = source.strip_prefix('\u{feff}').unwrap_or(source);
    if !within_parser_bounds(text, &mut sink) {
        return (None, sink.diags);
    }
    let parsing = roxmltree::ParsingOptions {
        allow_dtd: false,
        nodes_limit: limits::MAX_NODES,
    };
    let model = match roxmltree::Document::parse_with_options(text, parsing) {
        Err(roxmltree::Error::NodesLimitReached) => {
            sink.emit(
                Rule::XmlTooLarge,
                Pos { line: 1, column: 1 },
                format!("the file has more than {} XML nodes", limits::MAX_NODES),
            )
            .with_hint("a module needs a few hundred elements; is this the right file?");
            None
        }
        Err(e) => {
            let tp = e.pos();
            let pos = Pos {
                line: tp.row,
                column: tp.col,
            };
            let msg = e.to_string();
            let suffix = format!(" at {}", tp);
            let msg = msg.replacen(&suffix, "", 1);
            sink.emit(Rule::XmlSyntax, pos, msg).with_hint(
                "fix the XML syntax first; no other rule is checked until the file parses",
            );
            None
        }
        Ok(doc) => raw::parse_document(&doc, &mut sink).and_then(|raw| {
            let base_dir = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            };
            let ctx = validate::Context {
                base_dir: &base_dir,
                source_path: validate::resolve_path(Path::new(""), path),
                source_sha256: sha256_hex(source.as_bytes()),
                check_executables: options.check_executables,
                schedules,
            };
            validate::validate(&raw, &mut sink, &ctx)
        }),
    };
    let mut diagnostics = sink.diags;
    diagnostics.sort_by_key(|d| (d.line, d.column));
    (model, diagnostics)
}

/// Applies the bounds that must hold before the XML parser runs (file size, nesting depth);
/// `false` (with the diagnostic emitted) when the text must not be parsed.
fn within_parser_bounds(text: &str, sink: &mut diag::Sink) -> bool {
    if text.len() as u64 > limits::MAX_FILE_BYTES {
        sink.emit(
            Rule::XmlTooLarge,
            Pos { line: 1, column: 1 },
            format!("the file is larger than {} bytes", limits::MAX_FILE_BYTES),
        )
        .with_hint("a module configuration is a few kilobytes; is this the right file?");
        return false;
    }
    if let Some(byte) = limits::first_too_deep(text) {
        let pos = raw::LineIndex::new(text).pos(byte);
        sink.emit(
            Rule::XmlTooDeep,
            pos,
            format!(
                "this element is nested deeper than {} levels",
                limits::MAX_NESTING_DEPTH
            ),
        )
        .with_hint("a module needs about six levels; close the elements that were left open");
        return false;
    }
    true
}

/// Why [`load`] failed.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is an XML configuration with errors.
    #[error("{} is not a valid configuration: {}", path.display(), count_line(diagnostics))]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Every diagnostic (errors and warnings).
        diagnostics: Vec<Diagnostic>,
    },
    /// The file is a plan file that cannot be used.
    #[error("{}: {source}", path.display())]
    Plan {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: PlanError,
    },
}

/// Loads a plan from `path`, which is either a plan file (recognised by its magic bytes) or an
/// XML configuration (run through the whole pipeline with default options; warnings are
/// dropped, errors make the load fail with every diagnostic).
pub fn load(path: impl AsRef<Path>) -> Result<CompiledPlan, LoadError> {
    let path = path.as_ref();
    let bytes = limits::read_bounded(path).map_err(|source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    if is_plan(&bytes) {
        return read_plan(&bytes).map_err(|source| LoadError::Plan {
            path: path.to_path_buf(),
            source,
        });
    }
    let outcome = check_bytes(&bytes, path, &CheckOptions::default());
    outcome.plan.ok_or_else(|| LoadError::Invalid {
        path: path.to_path_buf(),
        diagnostics: outcome.diagnostics,
    })
}
