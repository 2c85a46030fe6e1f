// SPDX-License-Identifier: MIT OR Apache-2.0
//! The trace file written by `partita run --trace FILE`, read by `partita trace FILE`.
//!
//! # Layout
//!
//! | offset | bytes | content |
//! |-------:|------:|---------|
//! | 0 | 8 | [`MAGIC`] (`PTTRACE1`) |
//! | 8 | 4 | length `n` of the header, u32 little-endian (at most [`MAX_META_LEN`]) |
//! | 12 | n | the header: [`TraceMeta`] as JSON (UTF-8) |
//! | 12 + n | 64 each | events, [`partita_abi::trace::Event`] encoding, until the end of the file |
//!
//! Events are in the order the manager drained them from the rings: per ring in time order,
//! not globally; readers sort when they need to. A file cut short (the run was killed) ends
//! in a partial event, which the reader counts ([`TraceReader::truncated_tail`]) instead of
//! failing. Lost and refused events are themselves events (`LOST`, `REFUSED`), so a file
//! says how complete it is.
//!
//! The header describes the run (module, host, backend, epoch) and the plan the events refer
//! to by index: partitions and the windows of every schedule.
//!
//! # Converting
//!
//! [`Trace`] reads a file whole, in time order, and selects a span, core or partition
//! ([`Selection`]); [`convert`] writes it as Perfetto JSON ([`perfetto`]), CSV ([`csv`]), a
//! text summary ([`summary`]) or an SVG timeline ([`svg`]). Pure: std, serde and the abi.

#[cfg(test)]
mod convert_tests;
pub mod csv;
pub mod describe;
pub mod perfetto;
pub mod summary;
pub mod svg;
#[cfg(any(test, feature = "synthetic"))]
pub mod synthetic;
pub mod timeline;

pub use timeline::{Selection, Span, Trace, ViewError};

use partita_abi::trace::{Event, EVENT_LEN};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// The file's first 8 bytes.
pub const MAGIC: [u8; 8] = *b"PTTRACE1";
/// Version of [`TraceMeta`]'s shape.
pub const META_VERSION: u32 = 1;
/// Largest header accepted (a plan with many schedules is still far below it).
pub const MAX_META_LEN: u32 = 16 << 20;

/// The header of a trace file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceMeta {
    /// [`META_VERSION`].
    pub version: u32,
    /// Version of the event records ([`partita_abi::trace::VERSION`]).
    pub event_version: u16,
    /// The module's name (`ARINC_653_Module` `ModuleName`).
    pub module: String,
    /// The configuration file the run came from, if any.
    pub config: Option<String>,
    /// The partition-switch backend (`signals`, `freezer-v1`, ...).
    pub backend: String,
    /// `CLOCK_MONOTONIC` ns at which major frame 0 starts (APEX time 0).
    pub epoch_ns: u64,
    /// Wall-clock time of the epoch, ns since the Unix epoch (for display only).
    pub epoch_unix_ns: u64,
    /// The host.
    pub host: HostMeta,
    /// The partitions, by index.
    pub partitions: Vec<PartitionMeta>,
    /// The module schedules, by index.
    pub schedules: Vec<ScheduleMeta>,
    /// Index of the schedule the run started with.
    pub initial_schedule: usize,
    /// Whether the partitions recorded APEX call entry and exit.
    pub apex_calls: bool,
    /// Whether kernel scheduling events (tracefs) were merged in.
    pub kernel_events: bool,
}

/// The machine a trace was recorded on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct HostMeta {
    /// `uname -r`.
    pub kernel: String,
    /// The CPU model name.
    pub cpu: String,
    /// Logical CPUs.
    pub cores: u32,
    /// The Partita revision (`git describe`), when known.
    pub revision: Option<String>,
}

/// One partition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionMeta {
    /// Index in the plan (the events' partition field).
    pub index: u16,
    /// `PartitionIdentifier`.
    pub identifier: i64,
    /// `PartitionName`.
    pub name: String,
    /// Logical CPUs it runs on.
    pub cores: Vec<u32>,
}

/// One module schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScheduleMeta {
    /// Index (the events' schedule arguments).
    pub index: usize,
    /// Its name.
    pub name: String,
    /// Major frame, ns.
    pub major_frame_ns: u64,
    /// Its windows, per core in offset order.
    pub windows: Vec<WindowMeta>,
}

/// One window of a schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowMeta {
    /// Logical CPU.
    pub core: u32,
    /// Index of the window in its core's plan (the events' window argument).
    pub index: usize,
    /// Partition index.
    pub partition: u16,
    /// Offset from the major frame start, ns.
    pub offset_ns: u64,
    /// Length, ns.
    pub duration_ns: u64,
}

/// Why a trace file could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file could not be created, read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// The file does not start with [`MAGIC`].
    #[error("{path}: not a Partita trace file (no PTTRACE1 magic)")]
    Magic {
        /// The file.
        path: PathBuf,
    },
    /// The header is too long, not UTF-8 JSON, or not of a known version.
    #[error("{path}: bad trace header: {reason}")]
    Header {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// An event at `offset` is not a valid record.
    #[error("{path}: event at byte {offset}: {source}")]
    Event {
        /// The file.
        path: PathBuf,
        /// Byte offset of the event.
        offset: u64,
        /// Why it was refused.
        source: partita_abi::DecodeError,
    },
}

/// Writes a trace file: the header at creation, then events.
pub struct TraceWriter {
    path: PathBuf,
    out: BufWriter<File>,
    events: u64,
}

impl TraceWriter {
    /// Creates (truncates) `path` and writes the header.
    pub fn create(path: &Path, meta: &TraceMeta) -> Result<Self, TraceError> {
        let io = |source| TraceError::Io {
            path: path.to_path_buf(),
            source,
        };
        let json = serde_json::to_vec(meta).map_err(|e| TraceError::Header {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        let len = u32::try_from(json.len())
            .ok()
            .filter(|&l| l <= MAX_META_LEN)
            .ok_or_else(|| TraceError::Header {
                path: path.to_path_buf(),
                reason: format!("header of {} bytes exceeds {MAX_META_LEN}", json.len()),
            })?;
        let mut out = BufWriter::with_capacity(256 * 1024, File::create(path).map_err(io)?);
        out.write_all(&MAGIC).map_err(io)?;
        out.write_all(&len.to_le_bytes()).map_err(io)?;
        out.write_all(&json).map_err(io)?;
        Ok(TraceWriter {
            path: path.to_path_buf(),
            out,
            events: 0,
        })
    }

    /// Appends one event.
    pub fn write(&mut self, event: &Event) -> Result<(), TraceError> {
        self.out
            .write_all(&event.to_bytes())
            .map_err(|source| TraceError::Io {
                path: self.path.clone(),
                source,
            })?;
        self.events += 1;
        Ok(())
    }

    /// Events written so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Flushes to the file; returns the number of events written.
    pub fn finish(mut self) -> Result<u64, TraceError> {
        self.out.flush().map_err(|source| TraceError::Io {
            path: self.path.clone(),
            source,
        })?;
        Ok(self.events)
    }
}

/// Reads a trace file: the header, then events one by one.
pub struct TraceReader<R = BufReader<File>> {
    path: PathBuf,
    input: R,
    meta: TraceMeta,
    offset: u64,
    truncated_tail: usize,
}

impl TraceReader {
    /// Opens `path` and reads its header.
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        let f = File::open(path).map_err(|source| TraceError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        TraceReader::new(path, BufReader::with_capacity(256 * 1024, f))
    }
}

impl<R: Read> TraceReader<R> {
    /// Reads the header from `input`; `path` names it in errors.
    pub fn new(path: &Path, mut input: R) -> Result<Self, TraceError> {
        let path = path.to_path_buf();
        let mut head = [0u8; 12];
        let got = read_full(&mut input, &mut head).map_err(|source| TraceError::Io {
            path: path.clone(),
            source,
        })?;
        if got < 8 || head[..8] != MAGIC {
            return Err(TraceError::Magic { path });
        }
        let bad = |reason: String| TraceError::Header {
            path: path.clone(),
            reason,
        };
        if got < 12 {
            return Err(bad("file ends inside the header length".into()));
        }
        let len = u32::from_le_bytes([head[8], head[9], head[10], head[11]]);
        if len > MAX_META_LEN {
            return Err(bad(format!("header length {len} exceeds {MAX_META_LEN}")));
        }
        let mut json = vec![0u8; len as usize];
        let got = read_full(&mut input, &mut json).map_err(|source| TraceError::Io {
            path: path.clone(),
            source,
        })?;
        if got < json.len() {
            return Err(bad(format!("file ends inside the {len}-byte header")));
        }
        let meta: TraceMeta = serde_json::from_slice(&json).map_err(|e| bad(e.to_string()))?;
        if meta.version != META_VERSION {
            return Err(bad(format!(
                "header version {}, this build reads {META_VERSION}",
                meta.version
            )));
        }
        if meta.event_version != partita_abi::trace::VERSION {
            return Err(bad(format!(
                "event version {}, this build reads {}",
                meta.event_version,
                partita_abi::trace::VERSION
            )));
        }
        Ok(TraceReader {
            path,
            input,
            meta,
            offset: 12 + u64::from(len),
            truncated_tail: 0,
        })
    }

    /// The header.
    pub fn meta(&self) -> &TraceMeta {
        &self.meta
    }

    /// Bytes of a partial event at the end of the file (0 when the file ended cleanly);
    /// known once the events have been read to the end.
    pub fn truncated_tail(&self) -> usize {
        self.truncated_tail
    }

    /// The next event, `None` at the end of the file.
    pub fn next_event(&mut self) -> Option<Result<Event, TraceError>> {
        let mut buf = [0u8; EVENT_LEN];
        match read_full(&mut self.input, &mut buf) {
            Err(source) => Some(Err(TraceError::Io {
                path: self.path.clone(),
                source,
            })),
            Ok(0) => None,
            Ok(n) if n < EVENT_LEN => {
                self.truncated_tail = n;
                None
            }
            Ok(_) => {
                let at = self.offset;
                self.offset += EVENT_LEN as u64;
                Some(Event::decode(&buf).map_err(|source| TraceError::Event {
                    path: self.path.clone(),
                    offset: at,
                    source,
                }))
            }
        }
    }

    /// Reads every remaining event.
    pub fn read_all(&mut self) -> Result<Vec<Event>, TraceError> {
        let mut v = Vec::new();
        while let Some(e) = self.next_event() {
            v.push(e?);
        }
        Ok(v)
    }
}

/// What `partita trace` converts a trace to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// Chrome trace-event JSON, for ui.perfetto.dev ([`perfetto`]).
    Perfetto,
    /// One row per event ([`csv`]).
    Csv,
    /// The text summary ([`summary`]).
    #[default]
    Summary,
    /// The SVG timeline ([`svg`]).
    Svg,
}

/// A format name that is not one of [`Format`]'s.
#[derive(Debug, Clone, thiserror::Error)]
#[error("`{0}` is not a trace format (perfetto, csv, summary, svg)")]
pub struct UnknownFormat(pub String);

impl std::str::FromStr for Format {
    type Err = UnknownFormat;
    fn from_str(s: &str) -> Result<Self, UnknownFormat> {
        match s.trim() {
            "perfetto" | "json" => Ok(Format::Perfetto),
            "csv" => Ok(Format::Csv),
            "summary" | "text" => Ok(Format::Summary),
            "svg" => Ok(Format::Svg),
            other => Err(UnknownFormat(other.to_string())),
        }
    }
}

/// Writes `trace` in `format` to `out`.
pub fn convert(trace: &Trace, format: Format, out: &mut impl Write) -> Result<(), ViewError> {
    match format {
        Format::Perfetto => perfetto::write(trace, out)?,
        Format::Csv => csv::write(trace, out)?,
        Format::Summary => out.write_all(summary::render(trace)?.as_bytes())?,
        Format::Svg => out.write_all(svg::render(trace)?.as_bytes())?,
    }
    Ok(())
}

/// Reads until `buf` is full or the input ends; the number of bytes read.
fn read_full(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match input.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use partita_abi::trace::EventKind;

    fn meta() -> TraceMeta {
        TraceMeta {
            version: META_VERSION,
            event_version: partita_abi::trace::VERSION,
            module: "m".into(),
            config: None,
            backend: "signals".into(),
            epoch_ns: 1_000,
            epoch_unix_ns: 2_000,
            host: HostMeta::default(),
            partitions: vec![PartitionMeta {
                index: 0,
                identifier: 1,
                name: "p".into(),
                cores: vec![0],
            }],
            schedules: vec![ScheduleMeta {
                index: 0,
                name: "s".into(),
                major_frame_ns: 20_000_000,
                windows: vec![WindowMeta {
                    core: 0,
                    index: 0,
                    partition: 0,
                    offset_ns: 0,
                    duration_ns: 10_000_000,
                }],
            }],
            initial_schedule: 0,
            apex_calls: false,
            kernel_events: false,
        }
    }

    fn bytes_of(events: &[Event]) -> Vec<u8> {
        let dir = std::env::temp_dir().join(format!("partita-trace-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let p = dir.join(format!("t{n}.trace"));
        let mut w = TraceWriter::create(&p, &meta()).unwrap();
        for e in events {
            w.write(e).unwrap();
        }
        assert_eq!(w.finish().unwrap(), events.len() as u64);
        let b = std::fs::read(&p).unwrap();
        std::fs::remove_file(&p).unwrap();
        b
    }

    #[test]
    fn round_trip_and_truncated_tail() {
        let evs: Vec<Event> = (0..5)
            .map(|i| Event::new(i, EventKind::WindowStart, i * 10, [0; 4]).on_core(0))
            .collect();
        let b = bytes_of(&evs);
        let mut r = TraceReader::new(Path::new("x"), &b[..]).unwrap();
        assert_eq!(r.meta(), &meta());
        assert_eq!(r.read_all().unwrap(), evs);
        assert_eq!(r.truncated_tail(), 0);
        let mut r = TraceReader::new(Path::new("x"), &b[..b.len() - 10]).unwrap();
        assert_eq!(r.read_all().unwrap(), evs[..4]);
        assert_eq!(r.truncated_tail(), EVENT_LEN - 10);
    }

    #[test]
    fn refuses_bad_files_with_their_name() {
        let e = TraceReader::new(Path::new("a.trace"), &b"NOTATRACE..."[..])
            .err()
            .unwrap();
        assert!(matches!(e, TraceError::Magic { .. }), "{e}");
        assert!(e.to_string().starts_with("a.trace:"));
        let mut b = bytes_of(&[]);
        b[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = TraceReader::new(Path::new("x"), &b[..]).err().unwrap();
        assert!(e.to_string().contains("exceeds"), "{e}");
        let mut b = bytes_of(&[Event::new(1, EventKind::Lost, 1, [0; 4])]);
        let n = b.len();
        b[n - EVENT_LEN + 8] = 0xEE;
        let mut r = TraceReader::new(Path::new("x"), &b[..]).unwrap();
        let e = r.read_all().unwrap_err();
        assert!(matches!(e, TraceError::Event { .. }), "{e}");
    }

    proptest::proptest! {
        #[test]
        fn never_panics_on_arbitrary_bytes(tail in proptest::collection::vec(proptest::num::u8::ANY, 0..400)) {
            let mut b = bytes_of(&[]);
            b.extend_from_slice(&tail);
            if let Ok(mut r) = TraceReader::new(Path::new("x"), &b[..]) {
                while let Some(_e) = r.next_event() {}
            }
            let _ = TraceReader::new(Path::new("x"), &tail[..]);
        }
    }
}
