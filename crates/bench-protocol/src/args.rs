// SPDX-License-Identifier: MIT OR Apache-2.0
//! The command lines of the benchmark executables: the bench builds them with `to_args`, the
//! executable reads them back with `parse` (the words after its own name).

use std::path::{Path, PathBuf};
use std::str::FromStr;

/// A command line a benchmark executable cannot use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    /// Too few words.
    #[error("argument {index} ({what}) is missing")]
    Missing {
        /// Position, from 0 after the executable's name.
        index: usize,
        /// What it should hold.
        what: &'static str,
    },
    /// A word that does not parse.
    #[error("argument {index} ({what}) is not valid: {value:?}")]
    Invalid {
        /// Position, from 0 after the executable's name.
        index: usize,
        /// What it should hold.
        what: &'static str,
        /// The word.
        value: String,
    },
}

/// Reads positional words in order.
struct Words<'a> {
    words: &'a [String],
    next: usize,
}

impl<'a> Words<'a> {
    fn new(words: &'a [String]) -> Self {
        Words { words, next: 0 }
    }

    fn take<T: FromStr>(&mut self, what: &'static str) -> Result<T, ArgsError> {
        let index = self.next;
        self.next += 1;
        let w = self
            .words
            .get(index)
            .ok_or(ArgsError::Missing { index, what })?;
        w.parse().map_err(|_| ArgsError::Invalid {
            index,
            what,
            value: w.clone(),
        })
    }

    fn flag(&mut self, what: &'static str) -> Result<bool, ArgsError> {
        let index = self.next;
        match self.take::<u8>(what)? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(ArgsError::Invalid {
                index,
                what,
                value: v.to_string(),
            }),
        }
    }
}

fn word(v: impl ToString) -> String {
    v.to_string()
}

fn flag(v: bool) -> String {
    word(u8::from(v))
}

/// A path as a word (the bench's paths are its own ASCII names under `/dev/shm`).
fn path(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// `partita-bench-switch-partition LOG SLOT PROCESSES RELEASE_DELAY_NS THRESHOLD_NS
/// WORKAROUND WINDOW_OFFSET_NS TIMED_WAIT_NS`: one APEX partition of `bench switch` and
/// `bench felt`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwitchPartitionArgs {
    /// The gap log ([`crate::gap_log`]).
    pub log: PathBuf,
    /// This partition's slot in it.
    pub slot: usize,
    /// APEX processes: `processes - 1` periodic ones and the spinner.
    pub processes: u32,
    /// Release of the periodic processes after each period start, ns.
    pub release_delay_ns: i64,
    /// Gaps longer than this are logged, ns.
    pub gap_threshold_ns: i64,
    /// The spinner first sleeps 1 ms outside APEX, so that the main thread becomes the APEX
    /// timer thread before a process that never blocks runs.
    pub timer_workaround: bool,
    /// The partition's window offset in the major frame (its periods start there), ns: the
    /// first periodic process measures its release lateness against it.
    pub window_offset_ns: i64,
    /// When positive, the first periodic process logs its release lateness into slot
    /// `2 + slot` of the gap log, then makes a TIMED_WAIT of this long and logs how late it
    /// ended into slot `4 + slot` (`bench felt`, [`crate::gap_log::lateness_slots`]).
    pub timed_wait_ns: i64,
}

impl SwitchPartitionArgs {
    /// The words after the executable's name.
    pub fn to_args(&self) -> Vec<String> {
        vec![
            path(&self.log),
            word(self.slot),
            word(self.processes),
            word(self.release_delay_ns),
            word(self.gap_threshold_ns),
            flag(self.timer_workaround),
            word(self.window_offset_ns),
            word(self.timed_wait_ns),
        ]
    }

    /// Reads [`SwitchPartitionArgs::to_args`] back.
    pub fn parse(words: &[String]) -> Result<Self, ArgsError> {
        let mut w = Words::new(words);
        Ok(SwitchPartitionArgs {
            log: w.take("log file")?,
            slot: w.take("slot")?,
            processes: w.take("processes")?,
            release_delay_ns: w.take("release delay")?,
            gap_threshold_ns: w.take("gap threshold")?,
            timer_workaround: w.flag("timer workaround")?,
            window_offset_ns: w.take("window offset")?,
            timed_wait_ns: w.take("timed wait")?,
        })
    }
}

/// `partita-bench-spinner LOG SLOT THRESHOLD_NS PRIORITY`: a plain process of the bare kernel
/// mechanism of `bench switch`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpinnerArgs {
    /// The gap log ([`crate::gap_log`]).
    pub log: PathBuf,
    /// This spinner's slot in it.
    pub slot: usize,
    /// Gaps longer than this are logged, ns.
    pub gap_threshold_ns: i64,
    /// `SCHED_FIFO` priority to run at (the manager's priority of running partitions).
    pub priority: i32,
}

impl SpinnerArgs {
    /// The words after the executable's name.
    pub fn to_args(&self) -> Vec<String> {
        vec![
            path(&self.log),
            word(self.slot),
            word(self.gap_threshold_ns),
            word(self.priority),
        ]
    }

    /// Reads [`SpinnerArgs::to_args`] back.
    pub fn parse(words: &[String]) -> Result<Self, ArgsError> {
        let mut w = Words::new(words);
        Ok(SpinnerArgs {
            log: w.take("log file")?,
            slot: w.take("slot")?,
            gap_threshold_ns: w.take("gap threshold")?,
            priority: w.take("priority")?,
        })
    }
}

/// `partita-bench-apex-partition RESULT CALLS MAJOR_FRAME_NS WINDOW_NS SPIN_MARGIN_NS
/// GUARD_NS`: the partition of `bench apex`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApexPartitionArgs {
    /// The result file ([`crate::apex::ApexResult`]).
    pub result: PathBuf,
    /// Calls per service and hand-offs per kind.
    pub calls: usize,
    /// Major frame, ns.
    pub major_frame_ns: i64,
    /// The partition's window (offset 0), ns.
    pub window_ns: i64,
    /// The manager's spin margin, ns.
    pub spin_margin_ns: i64,
    /// Samples closer than this to a window edge are dropped, ns.
    pub edge_guard_ns: i64,
}

impl ApexPartitionArgs {
    /// The words after the executable's name.
    pub fn to_args(&self) -> Vec<String> {
        vec![
            path(&self.result),
            word(self.calls),
            word(self.major_frame_ns),
            word(self.window_ns),
            word(self.spin_margin_ns),
            word(self.edge_guard_ns),
        ]
    }

    /// Reads [`ApexPartitionArgs::to_args`] back.
    pub fn parse(words: &[String]) -> Result<Self, ArgsError> {
        let mut w = Words::new(words);
        Ok(ApexPartitionArgs {
            result: w.take("result file")?,
            calls: w.take("calls")?,
            major_frame_ns: w.take("major frame")?,
            window_ns: w.take("window")?,
            spin_margin_ns: w.take("spin margin")?,
            edge_guard_ns: w.take("edge guard")?,
        })
    }
}

/// The two partitions of `bench ports`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortsRole {
    /// `P`: times the port services, then sends one message per window.
    Services,
    /// `L`: receives those messages and measures their latency.
    Latency,
}

impl std::fmt::Display for PortsRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PortsRole::Services => "svc",
            PortsRole::Latency => "lat",
        })
    }
}

impl FromStr for PortsRole {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "svc" => Ok(PortsRole::Services),
            "lat" => Ok(PortsRole::Latency),
            _ => Err(()),
        }
    }
}

/// `partita-bench-ports-partition ROLE RESULT CALLS MAJOR_FRAME_NS WINDOW_NS GUARD_NS
/// SAMPLES`: a partition of `bench ports`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortsPartitionArgs {
    /// Which of the two.
    pub role: PortsRole,
    /// The result file ([`crate::ports::PortsResult`]).
    pub result: PathBuf,
    /// Calls per operation and size.
    pub calls: usize,
    /// Major frame, ns.
    pub major_frame_ns: i64,
    /// Window of each partition (`P` at offset 0, `L` right after it), ns.
    pub window_ns: i64,
    /// Samples closer than this to a window edge are dropped, ns.
    pub edge_guard_ns: i64,
    /// Latency samples `L` takes.
    pub latency_samples: usize,
}

impl PortsPartitionArgs {
    /// The words after the executable's name.
    pub fn to_args(&self) -> Vec<String> {
        vec![
            word(self.role),
            path(&self.result),
            word(self.calls),
            word(self.major_frame_ns),
            word(self.window_ns),
            word(self.edge_guard_ns),
            word(self.latency_samples),
        ]
    }

    /// Reads [`PortsPartitionArgs::to_args`] back.
    pub fn parse(words: &[String]) -> Result<Self, ArgsError> {
        let mut w = Words::new(words);
        Ok(PortsPartitionArgs {
            role: w.take("role (svc or lat)")?,
            result: w.take("result file")?,
            calls: w.take("calls")?,
            major_frame_ns: w.take("major frame")?,
            window_ns: w.take("window")?,
            edge_guard_ns: w.take("edge guard")?,
            latency_samples: w.take("latency samples")?,
        })
    }
}

/// `partita-bench-overheads-partition PARTITION RESULT SCALE_PERMILLE HYPERPERIODS EXTRA`: a
/// partition of `bench overheads` and `bench scaling` (the seed study's Table III workload).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverheadsPartitionArgs {
    /// Which of the two (`OFP` or `VSP`).
    pub partition: crate::overheads::SeedPartition,
    /// The result file ([`crate::overheads::OverheadsResult`]).
    pub result: PathBuf,
    /// Execution times of Table III scaled by this, per mille.
    pub scale_permille: u32,
    /// Hyperperiods (80 ms) each task records after its warm-up
    /// ([`crate::overheads::jobs_to_record`]); the result is written when every task of the
    /// partition has its jobs. 0: a start-up probe (no process: it writes the result, with
    /// the instant it got there, and enters NORMAL).
    pub hyperperiods: usize,
    /// Extra periodic processes (lowest priority, the partition's period, no work) beside the
    /// partition's tasks: the partition switch against the number of processes.
    pub extra_processes: u32,
}

impl OverheadsPartitionArgs {
    /// The words after the executable's name.
    pub fn to_args(&self) -> Vec<String> {
        vec![
            word(self.partition),
            path(&self.result),
            word(self.scale_permille),
            word(self.hyperperiods),
            word(self.extra_processes),
        ]
    }

    /// Reads [`OverheadsPartitionArgs::to_args`] back.
    pub fn parse(words: &[String]) -> Result<Self, ArgsError> {
        let mut w = Words::new(words);
        Ok(OverheadsPartitionArgs {
            partition: w.take("partition (OFP or VSP)")?,
            result: w.take("result file")?,
            scale_permille: w.take("execution-time scale (per mille)")?,
            hyperperiods: w.take("hyperperiods")?,
            extra_processes: w.take("extra processes")?,
        })
    }
}

/// `partita-bench-slots-partition RESULT FRAME_NS OFFSET_NS WINDOW_NS WINDOWS`: a counting
/// partition of `bench slots`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotsPartitionArgs {
    /// The result file ([`crate::slots::SlotsResult`]).
    pub result: PathBuf,
    /// Major frame, ns.
    pub major_frame_ns: i64,
    /// The partition's window: offset and duration, ns.
    pub offset_ns: i64,
    /// See `offset_ns`.
    pub window_ns: i64,
    /// Windows counted (from the first frame of the run) before the result is written.
    pub windows: usize,
}

impl SlotsPartitionArgs {
    /// The words after the executable's name.
    pub fn to_args(&self) -> Vec<String> {
        vec![
            path(&self.result),
            word(self.major_frame_ns),
            word(self.offset_ns),
            word(self.window_ns),
            word(self.windows),
        ]
    }

    /// Reads [`SlotsPartitionArgs::to_args`] back.
    pub fn parse(words: &[String]) -> Result<Self, ArgsError> {
        let mut w = Words::new(words);
        Ok(SlotsPartitionArgs {
            result: w.take("result file")?,
            major_frame_ns: w.take("major frame")?,
            offset_ns: w.take("window offset")?,
            window_ns: w.take("window")?,
            windows: w.take("windows")?,
        })
    }
}

/// `partita-bench-interference-partition RESULT JOBS WORK_KIB PASSES`: the real-time
/// partition of `bench interference`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterferencePartitionArgs {
    /// The result file ([`crate::interference::InterferenceResult`]).
    pub result: PathBuf,
    /// Jobs recorded after the warm-up before the result is written.
    pub jobs: usize,
    /// Working set of each job, KiB.
    pub work_kib: usize,
    /// Passes over the working set per job.
    pub passes: usize,
}

impl InterferencePartitionArgs {
    /// The words after the executable's name.
    pub fn to_args(&self) -> Vec<String> {
        vec![
            path(&self.result),
            word(self.jobs),
            word(self.work_kib),
            word(self.passes),
        ]
    }

    /// Reads [`InterferencePartitionArgs::to_args`] back.
    pub fn parse(words: &[String]) -> Result<Self, ArgsError> {
        let mut w = Words::new(words);
        Ok(InterferencePartitionArgs {
            result: w.take("result file")?,
            jobs: w.take("jobs")?,
            work_kib: w.take("working set")?,
            passes: w.take("passes")?,
        })
    }
}

/// `partita-bench-load KIND PROGRESS`: the general-purpose load of `bench interference`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadArgs {
    /// What it loads.
    pub kind: crate::interference::LoadKind,
    /// Its progress file ([`crate::interference::LoadProgress`]).
    pub progress: PathBuf,
}

impl LoadArgs {
    /// The words after the executable's name.
    pub fn to_args(&self) -> Vec<String> {
        vec![word(self.kind), path(&self.progress)]
    }

    /// Reads [`LoadArgs::to_args`] back.
    pub fn parse(words: &[String]) -> Result<Self, ArgsError> {
        let mut w = Words::new(words);
        Ok(LoadArgs {
            kind: w.take("load kind")?,
            progress: w.take("progress file")?,
        })
    }
}

/// The two partitions of SFPBench's two-partition application in `bench sfp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExchangeRole {
    /// SAMPLE APEX APP A: random data, its CRC, written to a sampling port.
    Crc,
    /// SAMPLE APEX APP B: reads it, checks the CRC, multiplies matrices made of it.
    Matrix,
}

impl std::fmt::Display for ExchangeRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ExchangeRole::Crc => "crc",
            ExchangeRole::Matrix => "matrix",
        })
    }
}

impl FromStr for ExchangeRole {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "crc" => Ok(ExchangeRole::Crc),
            "matrix" => Ok(ExchangeRole::Matrix),
            _ => Err(()),
        }
    }
}

/// `partita-bench-sfp-exchange-partition ROLE RESULT RUNS MAJOR_FRAME_NS OFFSET_NS WINDOW_NS
/// SPIN_MARGIN_NS GUARD_NS`: a partition of SFPBench's two-partition application.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExchangePartitionArgs {
    /// Which of the two.
    pub role: ExchangeRole,
    /// The result file ([`crate::sfp::SfpResult`]).
    pub result: PathBuf,
    /// Iterations timed (after a warm-up).
    pub runs: usize,
    /// Major frame, ns.
    pub major_frame_ns: i64,
    /// The partition's window: offset and duration, ns.
    pub offset_ns: i64,
    /// See `offset_ns`.
    pub window_ns: i64,
    /// The manager's spin margin, ns.
    pub spin_margin_ns: i64,
    /// Iterations closer than this to a window edge are dropped, ns.
    pub edge_guard_ns: i64,
}

impl ExchangePartitionArgs {
    /// The words after the executable's name.
    pub fn to_args(&self) -> Vec<String> {
        vec![
            word(self.role),
            path(&self.result),
            word(self.runs),
            word(self.major_frame_ns),
            word(self.offset_ns),
            word(self.window_ns),
            word(self.spin_margin_ns),
            word(self.edge_guard_ns),
        ]
    }

    /// Reads [`ExchangePartitionArgs::to_args`] back.
    pub fn parse(words: &[String]) -> Result<Self, ArgsError> {
        let mut w = Words::new(words);
        Ok(ExchangePartitionArgs {
            role: w.take("role (crc or matrix)")?,
            result: w.take("result file")?,
            runs: w.take("runs")?,
            major_frame_ns: w.take("major frame")?,
            offset_ns: w.take("window offset")?,
            window_ns: w.take("window")?,
            spin_margin_ns: w.take("spin margin")?,
            edge_guard_ns: w.take("edge guard")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(v: Vec<String>) -> Vec<String> {
        v
    }

    #[test]
    fn every_command_line_reads_back() {
        let s = SwitchPartitionArgs {
            log: "/dev/shm/log".into(),
            slot: 1,
            processes: 64,
            release_delay_ns: 200_000,
            gap_threshold_ns: 3_000,
            timer_workaround: true,
            window_offset_ns: 10_000_000,
            timed_wait_ns: 2_000_000,
        };
        assert_eq!(SwitchPartitionArgs::parse(&words(s.to_args())), Ok(s));
        let s = SpinnerArgs {
            log: "/dev/shm/log".into(),
            slot: 0,
            gap_threshold_ns: 3_000,
            priority: 80,
        };
        assert_eq!(SpinnerArgs::parse(&words(s.to_args())), Ok(s));
        let i = InterferencePartitionArgs {
            result: "/dev/shm/r.json".into(),
            jobs: 300,
            work_kib: 512,
            passes: 4,
        };
        assert_eq!(InterferencePartitionArgs::parse(&words(i.to_args())), Ok(i));
        for kind in crate::interference::LoadKind::ALL {
            let l = LoadArgs {
                kind,
                progress: "/dev/shm/p.json".into(),
            };
            assert_eq!(LoadArgs::parse(&words(l.to_args())), Ok(l));
        }
        let a = ApexPartitionArgs {
            result: "/dev/shm/r.json".into(),
            calls: 10_000,
            major_frame_ns: 10_000_000,
            window_ns: 9_000_000,
            spin_margin_ns: 50_000,
            edge_guard_ns: 20_000,
        };
        assert_eq!(ApexPartitionArgs::parse(&words(a.to_args())), Ok(a));
        for role in [PortsRole::Services, PortsRole::Latency] {
            let p = PortsPartitionArgs {
                role,
                result: "/dev/shm/p.json".into(),
                calls: 100,
                major_frame_ns: 10_000_000,
                window_ns: 4_000_000,
                edge_guard_ns: 20_000,
                latency_samples: 7,
            };
            assert_eq!(PortsPartitionArgs::parse(&words(p.to_args())), Ok(p));
        }
        for partition in crate::overheads::SeedPartition::ALL {
            let o = OverheadsPartitionArgs {
                partition,
                result: "/dev/shm/o.json".into(),
                scale_permille: 500,
                hyperperiods: 40,
                extra_processes: 12,
            };
            assert_eq!(OverheadsPartitionArgs::parse(&words(o.to_args())), Ok(o));
        }
        let sl = SlotsPartitionArgs {
            result: "/dev/shm/s.json".into(),
            major_frame_ns: 3_158_000_000,
            offset_ns: 1_000_000_000,
            window_ns: 1_000_000_000,
            windows: 5,
        };
        assert_eq!(SlotsPartitionArgs::parse(&words(sl.to_args())), Ok(sl));
        for role in [ExchangeRole::Crc, ExchangeRole::Matrix] {
            let x = ExchangePartitionArgs {
                role,
                result: "/dev/shm/x.json".into(),
                runs: 100,
                major_frame_ns: 10_000_000,
                offset_ns: 4_500_000,
                window_ns: 4_500_000,
                spin_margin_ns: 80_000,
                edge_guard_ns: 20_000,
            };
            assert_eq!(ExchangePartitionArgs::parse(&words(x.to_args())), Ok(x));
        }
    }

    #[test]
    fn bad_command_lines_say_which_word() {
        let w = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            SpinnerArgs::parse(&w(&["/dev/shm/log", "0", "3000"])),
            Err(ArgsError::Missing {
                index: 3,
                what: "priority"
            })
        );
        assert_eq!(
            SwitchPartitionArgs::parse(&w(&["l", "x", "1", "2", "3", "0"])),
            Err(ArgsError::Invalid {
                index: 1,
                what: "slot",
                value: "x".into()
            })
        );
        assert_eq!(
            SwitchPartitionArgs::parse(&w(&["l", "0", "1", "2", "3", "2"])),
            Err(ArgsError::Invalid {
                index: 5,
                what: "timer workaround",
                value: "2".into()
            })
        );
        assert!(matches!(
            PortsPartitionArgs::parse(&w(&["both", "r", "1", "1", "1", "1", "1"])),
            Err(ArgsError::Invalid { index: 0, .. })
        ));
    }
}
