// SPDX-License-Identifier: MIT OR Apache-2.0
//! The output thread: partition stdout/stderr, the report channel and exec results.
//!
//! Nothing is dropped: every byte a partition writes ends up in a line on the console and/or
//! its log file. A line longer than [`MAX_LINE`] is cut into pieces, each marked and counted.
//! When the console is slow the partition blocks on its pipe (inside its own windows) rather
//! than lose output.

use crate::hm::{self, Detected, Hm};
use crate::lifecycle::LifeCycle;
use partita_abi::report::{Body, Record};
use partita_abi::{DecodeError, ErrorCode};
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Longest line kept in one piece.
pub(crate) const MAX_LINE: usize = 64 * 1024;

/// Output counters of one partition.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct OutputCounters {
    pub lines: u64,
    pub bytes: u64,
    pub split_lines: u64,
    /// REPORT_APPLICATION_MESSAGE records.
    pub application_messages: u64,
    /// Refused-call records (the rule a refused service call broke).
    pub refused_calls: u64,
    pub bad_reports: u64,
}

/// The pipes of one incarnation, handed to the output thread.
pub(crate) struct Pipes {
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
    pub report: OwnedFd,
    pub exec_status: OwnedFd,
}

/// What the output thread knows of one partition.
pub(crate) struct Target {
    /// Its name, on the console.
    pub name: String,
    /// Its executable, for a failed start.
    pub executable: PathBuf,
    /// Its counters (read by the run report).
    pub counters: Arc<Mutex<OutputCounters>>,
}

/// The partitions of the run as the output thread sees them: what it writes with
/// (`targets`) and, by the same index, their life cycles (incarnations, failed starts, the
/// health monitor's hand-off).
pub(crate) struct Partitions {
    pub targets: Vec<Target>,
    pub life: Vec<Arc<dyn LifeCycle + Send + Sync>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Stdout,
    Stderr,
    Report,
    Exec,
}

struct Source {
    part: usize,
    /// The partition's restart count when these pipes were created (its incarnation).
    incarnation: u32,
    kind: Kind,
    file: File,
    buf: Vec<u8>,
    /// A report channel whose framing was lost on a refused record: ignored from then on.
    refused: bool,
}

/// Where lines go.
pub(crate) struct Sinks {
    pub echo: bool,
    pub files: Vec<Option<Mutex<File>>>,
    pub module_log: Option<Mutex<File>>,
    pub width: usize,
    /// The status line echoed lines clear first (crate::progress).
    pub progress: Option<Arc<crate::Progress>>,
}

impl Sinks {
    /// Writes `line` on stdout, with no status line on the terminal meanwhile.
    fn echo(&self, line: std::fmt::Arguments<'_>) {
        let write = || {
            let mut o = std::io::stdout().lock();
            let _ = o.write_fmt(line);
            let _ = o.write_all(b"\n");
            let _ = o.flush();
        };
        match &self.progress {
            Some(p) => p.without_status(write),
            None => write(),
        }
    }
}

type Pending = Arc<Mutex<Vec<(usize, u32, Pipes)>>>;

pub(crate) struct Output {
    pending: Pending,
    wake: OwnedFd,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    sinks: Arc<Sinks>,
    parts: Arc<Partitions>,
    epoch: Arc<AtomicU64>,
}

impl Output {
    pub fn start(
        parts: Partitions,
        sinks: Sinks,
        epoch: Arc<AtomicU64>,
        hm: Arc<Hm>,
    ) -> Result<Output, partita_sys::SysError> {
        let (wake_r, wake_w) = partita_sys::spawn::pipe()?;
        let pending: Pending = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let sinks = Arc::new(sinks);
        let parts = Arc::new(parts);
        let (p2, s2, k2, parts2, e2) = (
            pending.clone(),
            stop.clone(),
            sinks.clone(),
            parts.clone(),
            epoch.clone(),
        );
        let thread = std::thread::Builder::new()
            .name("partita-output".into())
            .spawn(move || run(File::from(wake_r), p2, s2, k2, parts2, e2, hm))
            .map_err(|e| partita_sys::SysError::io("spawn output thread", e))?;
        Ok(Output {
            pending,
            wake: wake_w,
            stop,
            thread: Some(thread),
            sinks,
            parts,
            epoch,
        })
    }

    /// Hands the pipes of a new incarnation of partition `part` to the thread.
    pub fn add(&self, part: usize, pipes: Pipes) {
        let incarnation = self.parts.life[part].incarnation();
        self.pending
            .lock()
            .expect("output")
            .push((part, incarnation, pipes));
        self.poke();
    }

    fn poke(&self) {
        let _ = (&File::from(self.wake.try_clone().expect("dup wake pipe"))).write(&[1]);
    }

    /// A manager event for the module log (and the console).
    pub fn event(&self, text: &str) {
        let t = now_rel(&self.epoch);
        emit_module(&self.sinks, t, text);
    }

    /// A handle other threads write manager events with.
    pub fn events(&self) -> EventSink {
        EventSink {
            sinks: self.sinks.clone(),
            epoch: self.epoch.clone(),
        }
    }

    /// Stops the thread after it has drained every pipe (waits at most ~1 s for pipes held
    /// open by stray processes).
    pub fn finish(mut self) {
        self.stop.store(true, Ordering::Release);
        self.poke();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Writes manager events for the module log (and the console) from any thread.
#[derive(Clone)]
pub(crate) struct EventSink {
    sinks: Arc<Sinks>,
    epoch: Arc<AtomicU64>,
}

impl EventSink {
    /// A manager event, as [`Output::event`].
    pub fn event(&self, text: &str) {
        emit_module(&self.sinks, now_rel(&self.epoch), text);
    }
}

fn now_rel(epoch: &AtomicU64) -> f64 {
    let e = epoch.load(Ordering::Relaxed);
    (partita_sys::time::monotonic_ns() as i128 - e as i128) as f64 / 1e9
}

fn emit_module(sinks: &Sinks, t: f64, text: &str) {
    let line = format!("[{t:10.6}] {text}");
    if sinks.echo {
        sinks.echo(format_args!("{:>w$} | {line}", "partita", w = sinks.width));
    }
    if let Some(f) = &sinks.module_log {
        let _ = writeln!(f.lock().expect("module log"), "{line}");
    }
}

fn emit(sinks: &Sinks, parts: &Partitions, part: usize, stream: Kind, line: &[u8]) {
    let text = String::from_utf8_lossy(line);
    let name = &parts.targets[part].name;
    if sinks.echo {
        let tag = if stream == Kind::Stderr { "!" } else { "|" };
        sinks.echo(format_args!("{name:>w$} {tag} {text}", w = sinks.width));
    }
    if let Some(Some(f)) = sinks.files.get(part) {
        let tag = if stream == Kind::Stderr {
            "stderr: "
        } else {
            ""
        };
        let _ = writeln!(f.lock().expect("log file"), "{tag}{text}");
    }
}

fn run(
    mut wake: File,
    pending: Pending,
    stop: Arc<AtomicBool>,
    sinks: Arc<Sinks>,
    parts: Arc<Partitions>,
    epoch: Arc<AtomicU64>,
    hm: Arc<Hm>,
) {
    let mut sources: Vec<Source> = Vec::new();
    let mut drain_deadline: Option<u64> = None;
    let mut chunk = vec![0u8; 65536];
    loop {
        for (part, incarnation, p) in pending.lock().expect("output").drain(..) {
            for (kind, fd) in [
                (Kind::Stdout, p.stdout),
                (Kind::Stderr, p.stderr),
                (Kind::Report, p.report),
                (Kind::Exec, p.exec_status),
            ] {
                sources.push(Source {
                    part,
                    incarnation,
                    kind,
                    file: File::from(fd),
                    buf: Vec::new(),
                    refused: false,
                });
            }
        }
        if stop.load(Ordering::Acquire) {
            let now = partita_sys::time::monotonic_ns();
            let d = *drain_deadline.get_or_insert(now + 1_000_000_000);
            if sources.is_empty() || now >= d {
                for s in sources.drain(..) {
                    flush_partial(&sinks, &parts, s);
                }
                return;
            }
        }
        let mut fds: Vec<i32> = vec![wake.as_raw_fd()];
        fds.extend(sources.iter().map(|s| s.file.as_raw_fd()));
        let timeout = if stop.load(Ordering::Acquire) {
            50
        } else {
            500
        };
        let ready = match partita_sys::proc::poll_readable(&fds, timeout) {
            Ok(r) => r,
            Err(_) => continue,
        };
        if ready[0] {
            let _ = wake.read(&mut chunk[..64]);
        }
        let mut closed = Vec::new();
        for (i, s) in sources.iter_mut().enumerate() {
            if !ready[i + 1] {
                continue;
            }
            match s.file.read(&mut chunk) {
                Ok(0) | Err(_) => closed.push(i),
                Ok(n) => {
                    s.buf.extend_from_slice(&chunk[..n]);
                    process(&sinks, &parts, &epoch, &hm, s);
                }
            }
        }
        for i in closed.into_iter().rev() {
            let s = sources.remove(i);
            flush_partial(&sinks, &parts, s);
        }
    }
}

fn process(sinks: &Sinks, parts: &Partitions, epoch: &AtomicU64, hm: &Hm, s: &mut Source) {
    match s.kind {
        Kind::Stdout | Kind::Stderr => {
            let mut start = 0;
            let mut lines = 0u64;
            let mut split = 0u64;
            while let Some(pos) = s.buf[start..].iter().position(|&b| b == b'\n') {
                emit(sinks, parts, s.part, s.kind, &s.buf[start..start + pos]);
                lines += 1;
                start += pos + 1;
            }
            while s.buf.len() - start > MAX_LINE {
                let mut piece = s.buf[start..start + MAX_LINE].to_vec();
                piece.extend_from_slice(b" [line continues]");
                emit(sinks, parts, s.part, s.kind, &piece);
                split += 1;
                lines += 1;
                start += MAX_LINE;
            }
            let bytes = start as u64;
            s.buf.drain(..start);
            let mut c = parts.targets[s.part].counters.lock().expect("counters");
            c.lines += lines;
            c.bytes += bytes;
            c.split_lines += split;
        }
        Kind::Report => {
            // Records of partita_abi::report; the partition is untrusted.
            let mut used = 0;
            while !s.refused {
                let (rec, len) = match Record::decode(&s.buf[used..]) {
                    Ok(r) => r,
                    // A valid beginning: wait for the rest.
                    Err(DecodeError::Truncated { .. }) => break,
                    Err(e) => {
                        // The framing is lost: nothing after it can be trusted.
                        parts.targets[s.part]
                            .counters
                            .lock()
                            .expect("counters")
                            .bad_reports += 1;
                        s.refused = true;
                        emit_module(
                            sinks,
                            now_rel(epoch),
                            &format!(
                                "partition {}: report record refused ({e}); its report channel \
                                 is ignored until it restarts",
                                parts.targets[s.part].name
                            ),
                        );
                        break;
                    }
                };
                used += len;
                let line = format!(
                    "[{} t={:.6}s {}] {}",
                    rec.kind().title(),
                    rec.time as f64 / 1e9,
                    rec.reporter,
                    rec.text()
                );
                emit(sinks, parts, s.part, Kind::Stdout, line.as_bytes());
                {
                    let mut c = parts.targets[s.part].counters.lock().expect("counters");
                    match rec.body {
                        Body::ApplicationMessage(_) => c.application_messages += 1,
                        Body::RefusedCall { .. } => c.refused_calls += 1,
                        _ => {}
                    }
                }
                if parts.life[s.part].incarnation() == s.incarnation {
                    health_record(sinks, parts, epoch, hm, s.part, &rec);
                }
            }
            if s.refused {
                s.buf.clear();
            } else {
                s.buf.drain(..used);
            }
        }
        Kind::Exec => {
            if s.buf.len() >= 4 {
                let errno = i32::from_ne_bytes([s.buf[0], s.buf[1], s.buf[2], s.buf[3]]);
                let err = std::io::Error::from_raw_os_error(errno);
                let t = &parts.targets[s.part];
                let text = format!(
                    "partition {} could not start {}: {err}",
                    t.name,
                    t.executable.display()
                );
                parts.life[s.part].exec_failed(err.to_string());
                emit_module(sinks, now_rel(epoch), &text);
                s.buf.clear();
            }
        }
    }
}

/// Hands a runtime record of the current incarnation to the health monitor.
fn health_record(
    sinks: &Sinks,
    parts: &Partitions,
    epoch: &AtomicU64,
    hm: &Hm,
    part: usize,
    rec: &Record<'_>,
) {
    use hm::logbook::Detection;
    use hm::table::Origin;
    let (code, origin, detection) = match rec.body {
        Body::DeadlineMissed { .. } => (
            ErrorCode::DeadlineMissed,
            Origin::Process,
            Detection::DeadlineRecord,
        ),
        Body::PartitionError(e) => (e.code, Origin::PartitionRuntime, Detection::RuntimeError),
        Body::ProcessError(e) => (e.code, Origin::Handled, Detection::ProcessError),
        Body::ApplicationMessage(_) | Body::RefusedCall { .. } => return,
    };
    let process = rec.reporter.raw();
    let logged = hm.raise(
        &parts.life,
        Detected {
            partition: Some(part),
            process: Some(process),
            state: hm::state_of(hm, &*parts.life[part], Some(process)),
            code,
            origin,
            detection,
            message: rec.text().to_string(),
        },
    );
    if let Some(logged) = logged {
        emit_module(sinks, now_rel(epoch), &hm_line(&logged));
    }
}

/// The module-log line of an HM event.
pub(crate) fn hm_line(r: &hm::logbook::LogRecord) -> String {
    format!(
        "HM #{}: {} {} in {} (level {}) -> {}: {}",
        r.seq,
        r.partition
            .as_deref()
            .map_or("module".to_string(), |p| format!("partition {p}")),
        r.code.name(),
        r.state.name(),
        r.level.name(),
        r.action.name(),
        r.message
    )
}

fn flush_partial(sinks: &Sinks, parts: &Partitions, s: Source) {
    if matches!(s.kind, Kind::Stdout | Kind::Stderr) && !s.buf.is_empty() {
        let mut piece = s.buf.clone();
        piece.extend_from_slice(b" [no newline at end]");
        emit(sinks, parts, s.part, s.kind, &piece);
        let mut c = parts.targets[s.part].counters.lock().expect("counters");
        c.lines += 1;
        c.bytes += s.buf.len() as u64;
    }
}
