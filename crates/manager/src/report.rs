// SPDX-License-Identifier: MIT OR Apache-2.0
//! The run report: printed as a summary by the CLI, written as JSON for tools.

use crate::msched::{ScheduleSwitch, WindowStart};
use crate::stats::Summary;
use crate::{Backend, HostInfo};
use serde::Serialize;

/// One core's scheduler figures.
#[derive(Debug, Clone, Serialize)]
pub struct CoreReport {
    /// Core number.
    pub core: u32,
    /// Boundaries handled.
    pub boundaries: u64,
    /// Boundaries skipped because the scheduler woke after a later one was due.
    pub missed_boundaries: u64,
    /// Windows started.
    pub windows: u64,
    /// Lateness of the switch at the boundary (the seed paper's TmrO): when the scheduler
    /// started acting, minus the boundary instant, ns.
    pub timer_lateness: Summary,
    /// Lateness of the scheduler's wake-up relative to the instant it asked for (the boundary
    /// less the spin margin), ns: the raw timer figure.
    pub wake_lateness: Summary,
    /// The wake-up latency the scheduler planned for at each boundary: how long before it it
    /// asked to wake (less any freeze lead or wake guard) and spun, ns. The spin margin at
    /// every boundary with `--fixed-spin-margin`; a low quantile of recent wake-up latencies
    /// otherwise.
    pub planned_wake: Summary,
    /// Time spent switching (hold + release), ns.
    pub switch_cost: Summary,
    /// Errors seen while switching.
    pub errors: Vec<String>,
    /// The last window started on this core: its planned start against when the scheduler
    /// acted is the drift accumulated over the whole run (planned starts are counted from
    /// the module epoch, never from the previous start).
    pub last_window: Option<WindowStart>,
}

/// One partition's figures.
#[derive(Debug, Clone, Serialize)]
pub struct PartitionReport {
    /// Name.
    pub name: String,
    /// Identifier.
    pub id: i32,
    /// The user and group id its process ran as (`partita_abi::ids`: 61000 + its index in
    /// the run's id block); `None` when the manager is not root and partitions keep its uid.
    pub uid: Option<u32>,
    /// Windows it was scheduled in.
    pub windows: u64,
    /// Windows after which it used more CPU time than the tolerance before being held.
    pub overruns: u64,
    /// CPU time it used after its window ends (from cgroup CPU accounting), ns.
    pub overrun: Summary,
    /// Windows at whose end it was frozen ahead of the boundary by a freeze lead or wake guard
    /// (many runnable tasks, or scheduler wake-ups it delayed: crates/manager/src/lead.rs).
    pub frozen_ahead_windows: u64,
    /// The largest such lead + guard, ns (time it lost at the end of a window).
    pub frozen_ahead_max_ns: u64,
    /// Operating mode at the end (IDLE, COLD_START, WARM_START, NORMAL).
    pub mode: String,
    /// Restarts carried out.
    pub restarts: u32,
    /// Times its process ended on its own (crashed or exited) before the module stopped.
    pub process_ends: u32,
    /// Whether it reached NORMAL mode (in any incarnation); a partition that never left
    /// COLD_START/WARM_START is flagged in the summary.
    pub reached_normal: bool,
    /// DEADLINE_MISSED events of its processes.
    pub deadline_misses: u64,
    /// How its process ended, if it ended before the module stopped.
    pub exit: Option<String>,
    /// Why it could not be started, if so.
    pub exec_error: Option<String>,
    /// Output lines captured (stdout + stderr).
    pub output_lines: u64,
    /// Output bytes captured.
    pub output_bytes: u64,
    /// Lines longer than the line limit, kept as several marked pieces.
    pub split_lines: u64,
    /// Application messages (REPORT_APPLICATION_MESSAGE) received.
    pub application_messages: u64,
    /// Service calls the partition's runtime refused and reported with the rule they broke
    /// (each also printed in the run log).
    pub refused_calls: u64,
    /// Records refused at the partition boundary: malformed report records (each also noted
    /// in the module log) and mode requests that are not IDLE, COLD_START or WARM_START.
    pub bad_reports: u64,
    /// Health-monitor events recorded for this partition.
    pub hm_events: u64,
    /// A general-purpose partition (`partita:GeneralPurpose`: ordinary Linux programs).
    pub general_purpose: bool,
    /// CPU time it used over the run, every incarnation (cgroup CPU accounting), ns; `None`
    /// without accounting.
    pub cpu_time_ns: Option<u64>,
    /// The CPU time the schedule promised it: its windows and, for a general-purpose
    /// partition, its background (every gap between windows on its core), from boundary to
    /// boundary as planned, summed over its cores, ns.
    pub promised_ns: u64,
    /// `cpu_time_ns / promised_ns`: the share of its promise it got (`None` without
    /// accounting or promise). A partition that sleeps uses less than its promise.
    pub cpu_share: Option<f64>,
}

/// What a note of the run report is about. Serialized as a stable kebab-case `kind` beside
/// the note's text, so that tools select notes by kind, never by their wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoteKind {
    /// Real-time priorities are unavailable (the manager's or a scheduler thread's).
    NoRealtime,
    /// The manager is not root: no cgroups, the signals backend stops only the main process.
    NotRoot,
    /// freezer-v2 on a cgroup2 mounted without favordynmods (late boundaries).
    NoFavordynmods,
    /// Linux real-time throttling: on and left unchanged, a core whose schedule does not fit
    /// in its budget, or the budget set for the run (`RunOptions::rt_budget`).
    RtThrottling,
    /// The manager's memory could not be locked.
    MemoryNotLocked,
    /// What an earlier run whose manager is gone left was reclaimed.
    Reclaimed,
    /// This run does not use partition id block 0 (another module holds it), or shares a
    /// block because none is free.
    UidBlock,
    /// A configured path is out of reach of its partition's uid (`partita_config::reach`).
    UnreachablePath,
    /// No clean-up guard process.
    NoGuard,
    /// Partitions run without (some) namespaces.
    NoNamespaces,
    /// Partitions run without the seccomp filter.
    NoSeccomp,
    /// Another module runs on a CPU of this one, or that cannot be known.
    CpuShared,
    /// The pseudo-partition bridge: not started, or its counters.
    Bridge,
    /// A partition did not die in time at the end of the run.
    LateDeath,
    /// `--trace`: what the recording could not do (kernel events, writing the trace).
    Trace,
}

/// A remark of the run report: what could not be done as asked, and other facts a reader needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    /// What it is about.
    pub kind: NoteKind,
    /// The remark, for people.
    pub text: String,
}

impl Note {
    /// A note of `kind`.
    pub fn new(kind: NoteKind, text: impl Into<String>) -> Note {
        Note {
            kind,
            text: text.into(),
        }
    }

    /// One note of `kind` per text.
    pub fn all(kind: NoteKind, texts: impl IntoIterator<Item = String>) -> Vec<Note> {
        texts.into_iter().map(|t| Note::new(kind, t)).collect()
    }
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// Everything a run measured.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// Module name.
    pub module: String,
    /// Backend used.
    pub backend: Backend,
    /// Host facts.
    pub host: HostInfo,
    /// Namespaces the partitions got.
    pub namespaces: String,
    /// Whether real-time priorities were used.
    pub realtime: bool,
    /// What could not be done as asked, and other remarks, each with its kind.
    pub notes: Vec<Note>,
    /// The run directory: each partition's own directory on the host, its working directory
    /// (`PARTITA_RUN_DIR`), lives in it from set-up to the end of the run (crate::rundir).
    pub run_dir: Option<String>,
    /// Major frame, ns.
    pub major_frame_ns: u64,
    /// The module epoch: the start of frame 0 on CLOCK_MONOTONIC, ns (window starts and the
    /// trace count from it).
    pub epoch_ns: u64,
    /// The scheduler threads' spin margin, ns (0 without real-time priorities).
    pub spin_margin_ns: u64,
    /// How long the schedule ran, ns.
    pub ran_ns: u64,
    /// Stopped by a signal rather than the duration.
    pub interrupted: bool,
    /// Cores.
    pub cores: Vec<CoreReport>,
    /// Partitions.
    pub partitions: Vec<PartitionReport>,
    /// cgroups or other objects that could not be removed (should be empty).
    pub leftovers: Vec<String>,
    /// Health monitor: logbook records and module actions.
    pub hm: crate::HmReport,
    // --- Module schedules ---
    /// Module schedule switches (ARINC 653 Part 2), oldest first.
    pub schedule_switches: Vec<ScheduleSwitch>,
    /// SET_MODULE_SCHEDULE requests the manager refused (a partition not allowed to switch,
    /// an unknown identifier: the runtime refuses these itself, so only a partition that
    /// bypasses it gets here).
    pub schedule_requests_rejected: u64,
    /// Identifier of the schedule running at the end.
    pub final_schedule: i32,
    /// Window starts handled by the scheduler threads (at most `RunOptions::window_trace` per
    /// core, the first ones), ordered by planned start.
    pub window_trace: Vec<WindowStart>,
    /// Window starts not kept in `window_trace` (over the limit).
    pub window_trace_dropped: u64,
    // --- Channel traffic ---
    /// Traffic of every channel of the connection table.
    pub channels: Vec<crate::traffic::ChannelTraffic>,
    /// The trace file of a traced run (`--trace`): events written, lost and refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<crate::trace::TraceReport>,
}

/// A kind of event that did not stop the run but that a user may want to fail on
/// (`partita run --fail-on`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Concern {
    /// A partition's process ended on its own (crashed or exited) before the module stopped.
    Exit,
    /// A partition was restarted (by the health monitor, a module reset, or its own request).
    Restart,
    /// A process missed its deadline.
    Deadline,
    /// The health monitor recorded an error.
    Hm,
    /// A partition never reached NORMAL mode.
    Start,
    /// A window overrun exceeded the tolerance.
    Overrun,
}

impl Concern {
    /// Every concern.
    pub const ALL: [Concern; 6] = [
        Concern::Exit,
        Concern::Restart,
        Concern::Deadline,
        Concern::Hm,
        Concern::Start,
        Concern::Overrun,
    ];

    /// The word naming it (`partita run --fail-on WORD`, the JSON report).
    pub fn name(self) -> &'static str {
        match self {
            Concern::Exit => "exit",
            Concern::Restart => "restart",
            Concern::Deadline => "deadline",
            Concern::Hm => "hm",
            Concern::Start => "start",
            Concern::Overrun => "overrun",
        }
    }

    /// The concern named `word`.
    pub fn from_name(word: &str) -> Option<Concern> {
        Concern::ALL.into_iter().find(|c| c.name() == word)
    }
}

/// One occurrence of a [`Concern`] in a run, with what the summary says about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The kind.
    pub concern: Concern,
    /// What happened, e.g. "partition a: process ended 2 times (last: exit status 3)".
    pub what: String,
}

impl PartitionReport {
    /// What this partition's figures show that a user may fail on.
    pub fn findings(&self) -> Vec<Finding> {
        let mut v = Vec::new();
        let mut add = |concern, what: String| {
            v.push(Finding {
                concern,
                what: format!("partition {}: {what}", self.name),
            })
        };
        if self.process_ends > 0 {
            add(
                Concern::Exit,
                format!(
                    "its process ended {} time(s) before the module stopped{}",
                    self.process_ends,
                    self.exit
                        .as_ref()
                        .map(|e| format!(" (last: {e})"))
                        .unwrap_or_default()
                ),
            );
        }
        if self.restarts > 0 {
            add(
                Concern::Restart,
                format!("restarted {} time(s)", self.restarts),
            );
        }
        if self.deadline_misses > 0 {
            add(
                Concern::Deadline,
                format!("{} deadline miss(es)", self.deadline_misses),
            );
        }
        if self.hm_events > 0 {
            add(
                Concern::Hm,
                format!("{} health-monitor event(s)", self.hm_events),
            );
        }
        if !self.reached_normal {
            add(
                Concern::Start,
                format!("never reached NORMAL (mode {} at the end)", self.mode),
            );
        }
        if self.overruns > 0 {
            add(
                Concern::Overrun,
                format!(
                    "{} window overrun(s) (max {:.1} us)",
                    self.overruns,
                    self.overrun.max as f64 / 1000.0
                ),
            );
        }
        v
    }
}

impl PartitionReport {
    /// Its CPU time against its promise, for the summary: `None` without accounting.
    pub fn cpu_line(&self) -> Option<String> {
        Some(cpu_line(
            self.general_purpose,
            self.cpu_time_ns?,
            self.promised_ns,
            self.cpu_share,
        ))
    }
}

/// `general-purpose: cpu U ms of P ms promised (S%)`: the CPU time `used` of a partition
/// against its promise (run log and summary).
pub(crate) fn cpu_line(
    general_purpose: bool,
    used: u64,
    promised: u64,
    share: Option<f64>,
) -> String {
    format!(
        "{}cpu {:.1} ms of {:.1} ms promised{}",
        if general_purpose {
            "general-purpose: "
        } else {
            ""
        },
        used as f64 / 1e6,
        promised as f64 / 1e6,
        share
            .map(|r| format!(" ({:.1}%)", r * 100.0))
            .unwrap_or_default()
    )
}

impl RunReport {
    /// Total overruns over all partitions.
    pub fn total_overruns(&self) -> u64 {
        self.partitions.iter().map(|p| p.overruns).sum()
    }

    /// Everything a user may fail on, partition by partition; module-wide health-monitor
    /// events (no partition: a power failure) count as [`Concern::Hm`].
    pub fn findings(&self) -> Vec<Finding> {
        let mut v: Vec<Finding> = self.partitions.iter().flat_map(|p| p.findings()).collect();
        let per_partition: u64 = self.partitions.iter().map(|p| p.hm_events).sum();
        let module_wide = (self.hm.status.total + self.hm.suppressed).saturating_sub(per_partition);
        if module_wide > 0 {
            v.push(Finding {
                concern: Concern::Hm,
                what: format!("{module_wide} module-wide health-monitor event(s)"),
            });
        }
        v
    }

    /// A short human-readable summary.
    pub fn render(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "module {}: backend {}, {} s, namespaces {}, real-time {}",
            self.module,
            self.backend,
            self.ran_ns as f64 / 1e9,
            self.namespaces,
            if self.realtime { "yes" } else { "no" }
        );
        for n in &self.notes {
            let _ = writeln!(s, "  note: {n}");
        }
        for c in &self.cores {
            let _ = writeln!(
                s,
                "  core {}: {} boundaries, {} windows, {} missed; timer lateness {}",
                c.core, c.boundaries, c.windows, c.missed_boundaries, c.timer_lateness
            );
            let _ = writeln!(s, "          raw wake-up lateness {}", c.wake_lateness);
            let _ = writeln!(s, "          planned wake-up latency {}", c.planned_wake);
            let _ = writeln!(s, "          switch cost {}", c.switch_cost);
            for e in &c.errors {
                let _ = writeln!(s, "          error: {e}");
            }
        }
        for p in &self.partitions {
            let _ = writeln!(
                s,
                "  partition {} (id {}): {} windows, {} overruns (max {:.1} us), mode {}, {} restarts, {} lines{}{}{}",
                p.name,
                p.id,
                p.windows,
                p.overruns,
                p.overrun.max as f64 / 1000.0,
                p.mode,
                p.restarts,
                p.output_lines,
                p.exit.as_ref().map(|e| format!(", {e}")).unwrap_or_default(),
                p.exec_error
                    .as_ref()
                    .map(|e| format!(", could not start: {e}"))
                    .unwrap_or_default(),
                if p.reached_normal {
                    ""
                } else {
                    ", NEVER REACHED NORMAL (stayed in COLD_START/WARM_START or IDLE)"
                },
            );
            if let Some(line) = p.cpu_line() {
                let _ = writeln!(s, "          {line}");
            }
        }
        self.render_hm(&mut s);
        for c in &self.channels {
            let _ = writeln!(
                s,
                "  channel {} ({}): {} -> {}: {} messages {}{}",
                c.id,
                c.kind,
                c.source,
                c.destinations.join(", "),
                c.written,
                if c.received.is_some() {
                    "sent"
                } else {
                    "written"
                },
                match (c.received, c.pending) {
                    (Some(r), Some(p)) => format!(", {r} received, {p} left in the queue"),
                    _ => String::new(),
                },
            );
        }
        for w in &self.schedule_switches {
            let _ = writeln!(
                s,
                "  schedule switch at {:.6} s: {} -> {} (requested by {})",
                w.at_ns as f64 / 1e9,
                w.from,
                w.to,
                w.requested_by
            );
        }
        if self.schedule_requests_rejected > 0 {
            let _ = writeln!(
                s,
                "  schedule requests refused by the manager: {}",
                self.schedule_requests_rejected
            );
        }
        self.render_trace(&mut s);
        for l in &self.leftovers {
            let _ = writeln!(s, "  LEFT BEHIND: {l}");
        }
        s
    }

    /// The health monitor's lines of [`RunReport::render`].
    fn render_hm(&self, s: &mut String) {
        use std::fmt::Write;
        let st = &self.hm.status;
        if st.total > 0 || self.hm.shutdown || self.hm.module_resets > 0 || self.hm.suppressed > 0 {
            let _ = writeln!(
                s,
                "  health monitor: {} events{}{}{}{}{}",
                st.total,
                if self.hm.suppressed > 0 {
                    format!(" (+{} not recorded: rate limit)", self.hm.suppressed)
                } else {
                    String::new()
                },
                if st.evicted > 0 {
                    format!(" ({} oldest not kept in memory)", st.evicted)
                } else {
                    String::new()
                },
                if self.hm.module_resets > 0 {
                    format!(", {} module resets", self.hm.module_resets)
                } else {
                    String::new()
                },
                if self.hm.shutdown {
                    ", module SHUTDOWN"
                } else {
                    ""
                },
                if st.file_errors > 0 {
                    format!(", {} records NOT written to the log file", st.file_errors)
                } else {
                    String::new()
                },
            );
            for r in &self.hm.records {
                let _ = writeln!(s, "    {}", crate::hm::logbook::render_record(r));
            }
        }
    }

    /// The trace line of [`RunReport::render`].
    fn render_trace(&self, s: &mut String) {
        use std::fmt::Write;
        if let Some(t) = &self.trace {
            let _ = writeln!(
                s,
                "  trace {}: {} events{}{}{}",
                t.file,
                t.events,
                if t.kernel_events > 0 {
                    format!(" ({} from the kernel)", t.kernel_events)
                } else {
                    String::new()
                },
                if t.lost > 0 {
                    format!(", {} LOST (rings full: raise --trace-buffer)", t.lost)
                } else {
                    String::new()
                },
                if t.refused > 0 {
                    format!(", {} REFUSED (partition records)", t.refused)
                } else {
                    String::new()
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_carries_a_stable_kind_beside_its_text() {
        let n = Note::new(NoteKind::RtThrottling, "real-time throttling is on");
        assert_eq!(
            serde_json::to_value(&n).unwrap(),
            serde_json::json!({"kind": "rt-throttling", "text": "real-time throttling is on"})
        );
        assert_eq!(n.to_string(), "real-time throttling is on");
        let kinds = [
            (NoteKind::UnreachablePath, "unreachable-path"),
            (NoteKind::UidBlock, "uid-block"),
            (NoteKind::NoFavordynmods, "no-favordynmods"),
            (NoteKind::CpuShared, "cpu-shared"),
        ];
        for (k, name) in kinds {
            assert_eq!(serde_json::to_value(k).unwrap(), name);
        }
    }

    fn healthy() -> PartitionReport {
        PartitionReport {
            name: "p".into(),
            id: 1,
            uid: None,
            windows: 10,
            overruns: 0,
            overrun: Summary::default(),
            frozen_ahead_windows: 0,
            frozen_ahead_max_ns: 0,
            mode: "NORMAL".into(),
            restarts: 0,
            process_ends: 0,
            reached_normal: true,
            deadline_misses: 0,
            exit: None,
            exec_error: None,
            output_lines: 0,
            output_bytes: 0,
            split_lines: 0,
            application_messages: 0,
            refused_calls: 0,
            bad_reports: 0,
            hm_events: 0,
            general_purpose: false,
            cpu_time_ns: None,
            promised_ns: 0,
            cpu_share: None,
        }
    }

    #[test]
    fn the_cpu_line_gives_the_time_against_the_promise() {
        let mut p = healthy();
        assert_eq!(p.cpu_line(), None);
        p.general_purpose = true;
        p.cpu_time_ns = Some(9_000_000);
        p.promised_ns = 10_000_000;
        p.cpu_share = Some(0.9);
        assert_eq!(
            p.cpu_line().as_deref(),
            Some("general-purpose: cpu 9.0 ms of 10.0 ms promised (90.0%)")
        );
    }

    fn concerns(p: &PartitionReport) -> Vec<Concern> {
        p.findings().iter().map(|f| f.concern).collect()
    }

    #[test]
    fn a_healthy_partition_has_no_findings() {
        assert!(healthy().findings().is_empty());
    }

    #[test]
    fn each_figure_is_its_own_concern() {
        type Set = fn(&mut PartitionReport);
        let cases: [(Set, Concern); 6] = [
            (|p| p.process_ends = 2, Concern::Exit),
            (|p| p.restarts = 1, Concern::Restart),
            (|p| p.deadline_misses = 3, Concern::Deadline),
            (|p| p.hm_events = 1, Concern::Hm),
            (|p| p.reached_normal = false, Concern::Start),
            (|p| p.overruns = 4, Concern::Overrun),
        ];
        for (set, concern) in cases {
            let mut p = healthy();
            set(&mut p);
            assert_eq!(concerns(&p), vec![concern]);
            assert!(p.findings()[0].what.starts_with("partition p: "));
        }
    }

    #[test]
    fn concerns_are_named_by_their_words() {
        for c in Concern::ALL {
            assert_eq!(Concern::from_name(c.name()), Some(c));
            assert_eq!(
                serde_json::to_value(c).unwrap(),
                serde_json::Value::from(c.name())
            );
        }
        assert_eq!(Concern::from_name("all"), None);
    }

    #[test]
    fn a_dead_partition_says_how_it_ended() {
        let mut p = healthy();
        p.process_ends = 1;
        p.exit = Some("exited with status 3".into());
        assert!(p.findings()[0]
            .what
            .contains("(last: exited with status 3)"));
    }
}
