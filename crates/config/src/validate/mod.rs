// SPDX-License-Identifier: MIT OR Apache-2.0
//! Validation: cross-reference and schedule rules over the raw model, and construction of the
//! typed [`ValidatedModule`] when no error was found.

mod build;
mod channels;
mod general_purpose;
mod hm;
mod partitions;
mod schedule_ids;
mod schedules;

use crate::diag::{Pos, Rule, Sink};
use crate::model::{Port, ValidatedModule};
use crate::raw::{val, RawModule, RawPartitionRef};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// Share of a major frame above which `rt-budget` warns, in percent.
pub const RT_BUDGET_PERCENT: u64 = 95;

/// Real-time time the partition manager spends at each boundary of a core, counted by
/// `rt-budget` with the windows: its default 80 us spin margin (the scheduler thread wakes
/// that early and spins to the boundary at SCHED_FIFO 90) plus ~20 us of switch work.
pub const BOUNDARY_RT_COST_NS: u64 = 100_000;

/// Where the configuration came from.
pub(crate) struct Context<'a> {
    /// Directory relative paths are resolved against.
    pub base_dir: &'a Path,
    /// Absolute path of the configuration file.
    pub source_path: PathBuf,
    /// SHA-256 of the source, hex.
    pub source_sha256: String,
    /// Whether to look at the host's files (executables, the paths partitions must reach).
    pub check_executables: bool,
    /// Whether to check and build the module schedules (`false` for schedule synthesis, which
    /// replaces them).
    pub schedules: bool,
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
    let sched = if ctx.schedules {
        v.schedules()
    } else {
        ScheduleFacts {
            initial: 0,
            window_cores: vec![BTreeSet::new(); raw.partitions.len()],
        }
    };
    v.general_purpose(&sched);
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
}

/// Why a `partita:Udp` value is not a usable `host:port`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum UdpAddressError {
    #[error("expected host:port")]
    NoPort,
    #[error("unbalanced [ in the host")]
    UnbalancedBracket,
    #[error("write IPv6 addresses in brackets, e.g. [::1]:5000")]
    BareIpv6,
    #[error("the host is empty")]
    EmptyHost,
    #[error("\"{0}\" is not a UDP port number")]
    BadPort(String),
    #[error("port 0 is not a usable destination")]
    PortZero,
}

/// Parses `host:port` (`[v6]:port` for IPv6).
pub(crate) fn parse_udp(text: &str) -> Result<(String, u16), UdpAddressError> {
    let t = text.trim();
    let Some((host, port)) = t.rsplit_once(':') else {
        return Err(UdpAddressError::NoPort);
    };
    let host = match host.strip_prefix('[') {
        Some(h) => h
            .strip_suffix(']')
            .ok_or(UdpAddressError::UnbalancedBracket)?,
        None if host.contains(':') => return Err(UdpAddressError::BareIpv6),
        None => host,
    };
    if host.is_empty() {
        return Err(UdpAddressError::EmptyHost);
    }
    let port: u16 = port
        .parse()
        .map_err(|_| UdpAddressError::BadPort(port.to_string()))?;
    if port == 0 {
        return Err(UdpAddressError::PortZero);
    }
    Ok((host.to_string(), port))
}
