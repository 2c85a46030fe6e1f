// SPDX-License-Identifier: MIT OR Apache-2.0
//! The module logbook (ARINC 653 Part 2 logbook-like): every health-monitor event as a
//! fixed-format record, kept in memory (bounded, evictions counted), appended to a file as
//! JSON lines when asked (`partita run --hm-log FILE`), and readable back ([`read_log`]).
//!
//! File format: one JSON object per line, [`LogRecord`], with `"v": 1` (the format version)
//! and `seq`, the record's index within its run (`run` names the run: manager pid and start
//! time). Several runs may append to the same file.

use super::table::SystemState;
use partita_config::model::{ErrorCode, ErrorLevel};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// Version of the logbook record format.
pub const LOG_FORMAT_VERSION: u32 = 1;
/// Records kept in memory (readable by READ_HM_LOG and listed in the run report); when it is
/// full, the oldest record of the partition (or of the module) with the most records in memory
/// is evicted and counted (the log file, if any, keeps all of them): a partition that keeps
/// raising errors evicts its own records, not its neighbours' few.
pub const MEMORY_CAPACITY: usize = 1024;

/// Longest logbook line [`read_log`] accepts, bytes (a record is a few hundred).
pub const MAX_RECORD_BYTES: usize = 64 * 1024;

/// What was detected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Detection {
    /// A deadline-miss record of the partition runtime (process level).
    DeadlineRecord,
    /// An error the partition runtime gave to the partition's error handler (process level).
    ProcessError,
    /// An error the partition runtime escalated to partition level.
    RuntimeError,
    /// The partition's Linux process ended (signal or exit status).
    ProcessDied,
    /// The partition exceeded its memory limit (memory cgroup OOM kill).
    MemoryLimit,
    /// A request the manager refused (a service reserved to system partitions, or a malformed
    /// request).
    IllegalCall,
    /// Simulated power failure (`--power-fail-at`, SIGPWR to the manager).
    PowerFail,
    /// The partition tried to create more tasks (processes, threads) than its task limit
    /// allows (pids cgroup `pids.events`): the fork or thread creation failed inside it.
    TaskLimit,
}

/// The action carried out (`HM_ACTION_TYPE`; the logbook spells it by its short name:
/// `ERROR_HANDLER` means the partition's error handler, or the caller's return code, deals
/// with it; `COLD_START` and `WARM_START` restart the partition at its next window).
pub use partita_abi::HmAction as Action;

/// One logbook record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogRecord {
    /// Format version ([`LOG_FORMAT_VERSION`]).
    pub v: u32,
    /// Index of the record within its run, from 0.
    pub seq: u64,
    /// The run: `<manager pid>-<start, monotonic us>`.
    pub run: String,
    /// Module name.
    pub module: String,
    /// Time since the module epoch (start of major frame 0), ns; in MODULE_INIT, before the
    /// epoch is fixed, since the start of the run.
    pub time_ns: i64,
    /// Wall-clock time, ns since the Unix epoch.
    pub unix_ns: u64,
    /// Partition name (none for module-wide errors).
    pub partition: Option<String>,
    /// Partition identifier.
    pub partition_id: Option<i32>,
    /// APEX process as in the runtime's report records (-1 main process, -2 error handler);
    /// none when not known (the partition died, module-wide errors).
    pub process: Option<i32>,
    /// System state.
    pub state: SystemState,
    /// Its `SystemState` number in the HM tables.
    pub state_number: u32,
    /// Error code.
    pub code: ErrorCode,
    /// Its ERROR_CODE_TYPE value.
    pub code_value: u32,
    /// Error identifier matched in the tables (see `table`).
    pub identifier: u32,
    /// What was detected.
    pub detection: Detection,
    /// Level the error was handled at.
    pub level: ErrorLevel,
    /// Action carried out.
    pub action: Action,
    /// Whether level and action came from the configuration (else the documented defaults).
    pub configured: bool,
    /// Details (runtime message, exit status, ...).
    pub message: String,
}

/// The in-memory logbook, with an optional append-only file.
pub(crate) struct Logbook {
    /// In `seq` order (not contiguous once a record was evicted from the middle).
    records: VecDeque<LogRecord>,
    /// Records in memory per partition identifier (`None`: the module's).
    held: std::collections::HashMap<Option<i32>, usize>,
    next_seq: u64,
    evicted: u64,
    file: Option<(PathBuf, std::fs::File)>,
    file_errors: u64,
    last_file_error: Option<String>,
}

/// Counters of the logbook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct LogStatus {
    /// Records made so far (the next record's `seq`).
    pub total: u64,
    /// `seq` of the oldest record still in memory.
    pub first: u64,
    /// Records in memory.
    pub kept: u64,
    /// Records evicted from memory (still in the log file, if any).
    pub evicted: u64,
    /// Records that could not be written to the log file.
    pub file_errors: u64,
}

impl Logbook {
    /// An empty logbook appending to `path` (created if needed).
    pub fn open(path: Option<&Path>) -> std::io::Result<Logbook> {
        let file = match path {
            Some(p) => Some((
                p.to_path_buf(),
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(p)?,
            )),
            None => None,
        };
        Ok(Logbook {
            records: VecDeque::new(),
            held: std::collections::HashMap::new(),
            next_seq: 0,
            evicted: 0,
            file,
            file_errors: 0,
            last_file_error: None,
        })
    }

    /// The `seq` the next record gets.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Adds a record (its `seq` must be [`Logbook::next_seq`]).
    pub fn push(&mut self, rec: LogRecord) {
        debug_assert_eq!(rec.seq, self.next_seq);
        self.next_seq += 1;
        if let Some((path, f)) = &mut self.file {
            let mut line = serde_json::to_string(&rec).unwrap_or_default();
            line.push('\n');
            // One write per record: with O_APPEND a line is never interleaved with another.
            if let Err(e) = f.write_all(line.as_bytes()) {
                self.file_errors += 1;
                self.last_file_error = Some(format!("{}: {e}", path.display()));
            }
        }
        if self.records.len() >= MEMORY_CAPACITY {
            self.evict();
        }
        *self.held.entry(rec.partition_id).or_default() += 1;
        self.records.push_back(rec);
    }

    /// Evicts the oldest record of whoever holds the most (ties: the one whose oldest record
    /// is older).
    fn evict(&mut self) {
        let Some(&most) = self.held.values().max() else {
            return;
        };
        let Some(i) = self
            .records
            .iter()
            .position(|r| self.held.get(&r.partition_id) == Some(&most))
        else {
            return;
        };
        if let Some(r) = self.records.remove(i) {
            if let Some(n) = self.held.get_mut(&r.partition_id) {
                *n -= 1;
                if *n == 0 {
                    self.held.remove(&r.partition_id);
                }
            }
            self.evicted += 1;
        }
    }

    /// The record with sequence number `seq`, if still in memory.
    pub fn get(&self, seq: u64) -> Option<&LogRecord> {
        let i = self.records.binary_search_by_key(&seq, |r| r.seq).ok()?;
        self.records.get(i)
    }

    /// Counters.
    pub fn status(&self) -> LogStatus {
        LogStatus {
            total: self.next_seq,
            first: self.records.front().map_or(self.next_seq, |r| r.seq),
            kept: self.records.len() as u64,
            evicted: self.evicted,
            file_errors: self.file_errors,
        }
    }

    /// Records in memory.
    pub fn records(&self) -> Vec<LogRecord> {
        self.records.iter().cloned().collect()
    }

    /// The last file write error.
    pub fn last_file_error(&self) -> Option<String> {
        self.last_file_error.clone()
    }
}

/// Why a logbook file could not be read back.
#[derive(Debug, thiserror::Error)]
pub enum LogReadError {
    /// The file could not be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// A line is not a logbook record.
    #[error("{path}:{line}: not a logbook record: {reason}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Line number, from 1.
        line: usize,
        /// Why.
        reason: String,
    },
    /// A record of a format version this build does not know.
    #[error("{path}:{line}: logbook format version {version} (this build reads version {LOG_FORMAT_VERSION})")]
    Version {
        /// The file.
        path: PathBuf,
        /// Line number, from 1.
        line: usize,
        /// The version found.
        version: u64,
    },
}

/// Reads every record of a logbook file (empty lines are skipped).
pub fn read_log(path: &Path) -> Result<Vec<LogRecord>, LogReadError> {
    let io = |source| LogReadError::Io {
        path: path.to_path_buf(),
        source,
    };
    use std::io::Read;
    let mut reader = std::io::BufReader::new(std::fs::File::open(path).map_err(io)?);
    let mut out = Vec::new();
    let mut bytes = Vec::new();
    for i in 0.. {
        bytes.clear();
        // One line, but never more than a record can be: a file without newlines (or a device
        // such as /dev/zero) is refused, not read into memory.
        let n = (&mut reader)
            .take(MAX_RECORD_BYTES as u64 + 1)
            .read_until(b'\n', &mut bytes)
            .map_err(io)?;
        if n == 0 {
            break;
        }
        let corrupt = |reason: String| LogReadError::Corrupt {
            path: path.to_path_buf(),
            line: i + 1,
            reason,
        };
        if bytes.len() > MAX_RECORD_BYTES {
            return Err(corrupt(format!(
                "the line is longer than {MAX_RECORD_BYTES} bytes"
            )));
        }
        let line = std::str::from_utf8(&bytes).map_err(|e| corrupt(e.to_string()))?;
        if line.trim().is_empty() {
            continue;
        }
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| corrupt(e.to_string()))?;
        match value.get("v").and_then(|v| v.as_u64()) {
            Some(v) if v == LOG_FORMAT_VERSION as u64 => {}
            Some(v) => {
                return Err(LogReadError::Version {
                    path: path.to_path_buf(),
                    line: i + 1,
                    version: v,
                })
            }
            None => return Err(corrupt("no format version `v`".into())),
        }
        let rec: LogRecord = serde_json::from_value(value).map_err(|e| corrupt(e.to_string()))?;
        if rec.state_number != rec.state.raw() || rec.code.raw() != rec.code_value {
            return Err(corrupt(
                "state or code number does not match its name".into(),
            ));
        }
        out.push(rec);
    }
    Ok(out)
}

/// One line of text per record (for `partita hm-log`).
pub fn render_record(r: &LogRecord) -> String {
    format!(
        "#{:<4} {} t={:+.6}s {:<12} process {:<4} {:<17} {:<16} id {:<3} {:<9} -> {:<13} {}: {}",
        r.seq,
        r.run,
        r.time_ns as f64 / 1e9,
        r.partition.as_deref().unwrap_or("(module)"),
        r.process.map_or("-".to_string(), |p| p.to_string()),
        r.state.name(),
        r.code.name(),
        r.identifier,
        r.level.name(),
        r.action.name(),
        serde_json::to_value(r.detection)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        r.message
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn record(seq: u64) -> LogRecord {
        LogRecord {
            v: LOG_FORMAT_VERSION,
            seq,
            run: "1-2".into(),
            module: "m".into(),
            time_ns: 5,
            unix_ns: 6,
            partition: Some("p".into()),
            partition_id: Some(1),
            process: Some(2),
            state: SystemState::ProcessExecution,
            state_number: 3,
            code: ErrorCode::NumericError,
            code_value: 2,
            identifier: 2,
            detection: Detection::RuntimeError,
            level: ErrorLevel::Partition,
            action: Action::ColdStart,
            configured: false,
            message: "x".into(),
        }
    }

    fn record_of(seq: u64, partition: Option<i32>) -> LogRecord {
        LogRecord {
            partition_id: partition,
            ..record(seq)
        }
    }

    #[test]
    fn a_flooding_partition_evicts_its_own_records_not_its_neighbours() {
        let mut lb = Logbook::open(None).unwrap();
        // A few records of partitions 2 and 3 and of the module, then partition 1 floods.
        let mut seq = 0;
        for p in [Some(2), None, Some(3), Some(2)] {
            lb.push(record_of(seq, p));
            seq += 1;
        }
        for _ in 0..5 * MEMORY_CAPACITY {
            lb.push(record_of(seq, Some(1)));
            seq += 1;
        }
        let st = lb.status();
        assert_eq!(st.kept, MEMORY_CAPACITY as u64);
        assert_eq!(st.total, seq);
        assert_eq!(st.evicted, seq - MEMORY_CAPACITY as u64);
        // The neighbours' and the module's records are all still readable, in order.
        for s in 0..4 {
            assert_eq!(lb.get(s).map(|r| r.seq), Some(s), "record {s}");
        }
        assert_eq!(st.first, 0);
        // The flood keeps its newest records; its evicted ones are gaps.
        assert!(lb.get(4).is_none());
        assert_eq!(lb.get(seq - 1).map(|r| r.seq), Some(seq - 1));
        let kept = lb.records();
        assert!(kept.windows(2).all(|w| w[0].seq < w[1].seq));
        assert_eq!(
            kept.iter().filter(|r| r.partition_id == Some(1)).count(),
            MEMORY_CAPACITY - 4
        );
        // Once partition 1 holds no more than the others, the oldest of the largest go first:
        // with everybody equal, that is the oldest record overall.
        let mut lb = Logbook::open(None).unwrap();
        for s in 0..MEMORY_CAPACITY as u64 {
            lb.push(record_of(s, Some((s % 2) as i32)));
        }
        lb.push(record_of(MEMORY_CAPACITY as u64, Some(5)));
        assert!(lb.get(0).is_none());
        assert!(lb.get(1).is_some());
    }

    #[test]
    fn bounded_memory_counts_evictions_and_the_file_keeps_all() {
        let dir = std::env::temp_dir().join(format!("partita-logbook-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("hm.log");
        let _ = std::fs::remove_file(&path);
        let mut lb = Logbook::open(Some(&path)).unwrap();
        let n = MEMORY_CAPACITY as u64 + 10;
        for s in 0..n {
            lb.push(record(s));
        }
        let st = lb.status();
        assert_eq!(
            (st.total, st.first, st.kept, st.evicted),
            (n, 10, MEMORY_CAPACITY as u64, 10)
        );
        assert!(lb.get(9).is_none());
        assert_eq!(lb.get(10).unwrap().seq, 10);
        assert_eq!(lb.get(n - 1).unwrap().seq, n - 1);
        assert!(lb.get(n).is_none());
        let back = read_log(&path).unwrap();
        assert_eq!(back.len() as u64, n);
        assert_eq!(back[3], record(3));
        let _ = std::fs::remove_file(&path);
        // Corrupt and future-version lines are typed errors naming the line.
        std::fs::write(&path, "{\"v\":1}\n").unwrap();
        assert!(matches!(
            read_log(&path),
            Err(LogReadError::Corrupt { line: 1, .. })
        ));
        std::fs::write(&path, "\n{\"v\":9}\n").unwrap();
        assert!(matches!(
            read_log(&path),
            Err(LogReadError::Version {
                line: 2,
                version: 9,
                ..
            })
        ));
        assert!(matches!(
            read_log(&dir.join("missing")),
            Err(LogReadError::Io { .. })
        ));
        // A line longer than any record (or an endless one) is refused, not read whole.
        std::fs::write(&path, format!("\n{}", "x".repeat(MAX_RECORD_BYTES + 1))).unwrap();
        assert!(matches!(
            read_log(&path),
            Err(LogReadError::Corrupt { line: 2, .. })
        ));
        assert!(matches!(
            read_log(Path::new("/dev/zero")),
            Err(LogReadError::Corrupt { line: 1, .. })
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
