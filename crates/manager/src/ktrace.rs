// SPDX-License-Identifier: MIT OR Apache-2.0
//! The kernel's scheduling events merged into a trace (`partita run --trace-kernel`).
//!
//! The run gets a tracefs *instance* of its own (`instances/partita-<pid>` under
//! `/sys/kernel/tracing`, mounted there first if no tracefs is): its own buffer, its own
//! `trace_clock` (`mono`, so the kernel's timestamps are `CLOCK_MONOTONIC` like Partita's),
//! its own `tracing_cpumask` (the module's cores) and its own `sched_switch` /
//! `sched_wakeup` enables. The global tracing settings are never touched, so another user of
//! tracefs is not disturbed and nothing needs restoring: the instance is removed at the end
//! (and tracefs unmounted if this run mounted it).
//!
//! A thread reads the instance's text `trace_pipe`. The binary `trace_pipe_raw` would give
//! nanoseconds, but it is a per-CPU stream of ring-buffer pages whose event layout must be
//! decoded from each event's `format` file; the text lines are stable across kernels and
//! carry everything needed, with microsecond timestamps, finer than the switch latencies the
//! events are there to cross-check. Each line of a module core becomes a KERNEL_SWITCH or
//! KERNEL_WAKEUP event in the kernel ring (crate::trace).

use crate::trace::{core_field, Recorder};
use partita_abi::trace::{Event, EventKind};
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Where tracefs is (mounted by this run when it is not).
pub const TRACEFS: &str = "/sys/kernel/tracing";

/// Why the kernel's events cannot be recorded.
#[derive(Debug, thiserror::Error)]
pub enum KernelTraceError {
    /// tracefs is not available (not mounted and cannot be mounted, or no instances).
    #[error("kernel events (--trace-kernel): tracefs is not available at {TRACEFS}: {reason}")]
    NoTracefs {
        /// Why.
        reason: String,
    },
    /// A tracefs file could not be written or read.
    #[error("kernel events (--trace-kernel): {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

/// The kernel's events of a run being recorded.
pub(crate) struct KernelTrace {
    instance: PathBuf,
    mounted: bool,
    stop: Arc<AtomicBool>,
    reader: Option<JoinHandle<Option<std::io::Error>>>,
}

fn write(path: &Path, value: &str) -> Result<(), KernelTraceError> {
    std::fs::write(path, value).map_err(|source| KernelTraceError::Io {
        path: path.to_path_buf(),
        source,
    })
}

impl KernelTrace {
    /// Creates the run's tracefs instance for `cores`, enables the events and starts the
    /// reader, which records into `rec`.
    pub fn start(cores: &[u32], rec: Recorder) -> Result<KernelTrace, KernelTraceError> {
        let root = Path::new(TRACEFS);
        let mut mounted = false;
        if !root.join("instances").is_dir() {
            partita_sys::trace::mount_tracefs(root).map_err(|e| KernelTraceError::NoTracefs {
                reason: e.to_string(),
            })?;
            mounted = true;
            if !root.join("instances").is_dir() {
                let _ = partita_sys::trace::unmount(root);
                return Err(KernelTraceError::NoTracefs {
                    reason: "the kernel offers no tracing instances".into(),
                });
            }
        }
        let instance = root
            .join("instances")
            .join(format!("partita-{}", partita_sys::sched::getpid()));
        if let Err(source) = std::fs::create_dir(&instance) {
            if mounted {
                let _ = partita_sys::trace::unmount(root);
            }
            return Err(KernelTraceError::Io {
                path: instance,
                source,
            });
        }
        let mut k = KernelTrace {
            instance,
            mounted,
            stop: Arc::new(AtomicBool::new(false)),
            reader: None,
        };
        // On error, dropping `k` removes the instance.
        k.configure(cores)?;
        let pipe = k.instance.join("trace_pipe");
        let file =
            partita_sys::trace::open_nonblocking(&pipe).map_err(|e| KernelTraceError::Io {
                path: pipe.clone(),
                source: std::io::Error::other(e),
            })?;
        let stop = k.stop.clone();
        let cores = cores.to_vec();
        let reader = std::thread::Builder::new()
            .name("partita-ktrace".into())
            .spawn(move || read_loop(file, &cores, &rec, &stop))
            .map_err(|source| KernelTraceError::Io { path: pipe, source })?;
        k.reader = Some(reader);
        Ok(k)
    }

    fn configure(&self, cores: &[u32]) -> Result<(), KernelTraceError> {
        let i = &self.instance;
        write(&i.join("trace_clock"), "mono")?;
        write(&i.join("tracing_cpumask"), &cpumask(cores))?;
        write(&i.join("events/sched/sched_switch/enable"), "1")?;
        write(&i.join("events/sched/sched_wakeup/enable"), "1")?;
        write(&i.join("tracing_on"), "1")
    }

    /// Stops the events, lets the reader take what is left, removes the instance.
    pub fn stop(mut self) -> Result<(), KernelTraceError> {
        let _ = write(&self.instance.join("tracing_on"), "0");
        self.stop.store(true, Ordering::Release);
        let read_error = self.reader.take().and_then(|t| t.join().ok().flatten());
        self.remove()?;
        match read_error {
            Some(source) => Err(KernelTraceError::Io {
                path: self.instance.join("trace_pipe"),
                source,
            }),
            None => Ok(()),
        }
    }

    fn remove(&mut self) -> Result<(), KernelTraceError> {
        let r = std::fs::remove_dir(&self.instance).map_err(|source| KernelTraceError::Io {
            path: self.instance.clone(),
            source,
        });
        if std::mem::take(&mut self.mounted) {
            let _ = partita_sys::trace::unmount(Path::new(TRACEFS));
        }
        r
    }
}

impl Drop for KernelTrace {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.reader.take() {
            let _ = t.join();
        }
        if self.instance.exists() {
            let _ = self.remove();
        }
    }
}

/// `tracing_cpumask` of `cores`: comma-separated 32-bit hexadecimal groups, most
/// significant first.
fn cpumask(cores: &[u32]) -> String {
    let top = cores.iter().max().map_or(0, |&c| c / 32);
    (0..=top)
        .rev()
        .map(|g| {
            let bits = cores
                .iter()
                .filter(|&&c| c / 32 == g)
                .fold(0u32, |m, &c| m | 1 << (c % 32));
            format!("{bits:08x}")
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Reads `pipe` until `stop` (and then until it is empty), recording the events of `cores`.
fn read_loop(
    mut pipe: std::fs::File,
    cores: &[u32],
    rec: &Recorder,
    stop: &AtomicBool,
) -> Option<std::io::Error> {
    let mut buf = vec![0u8; 64 * 1024];
    let mut pending: Vec<u8> = Vec::new();
    loop {
        match pipe.read(&mut buf) {
            Ok(0) => {}
            Ok(n) => {
                pending.extend_from_slice(&buf[..n]);
                let end = pending
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |i| i + 1);
                for line in pending[..end].split(|&b| b == b'\n') {
                    if let Some(e) = std::str::from_utf8(line).ok().and_then(parse_line) {
                        if cores.iter().any(|&c| core_field(c) == e.core) {
                            rec.record(e);
                        }
                    }
                }
                pending.drain(..end);
                continue;
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock || e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Some(e),
        }
        if stop.load(Ordering::Acquire) {
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// The value of `key=` in `s` (up to the next space).
fn field<'a>(s: &'a str, key: &str) -> Option<&'a str> {
    let at = s.rfind(key)? + key.len();
    Some(s[at..].split(' ').next().unwrap_or(""))
}

/// One `trace_pipe` line as an event, `None` for any other line:
/// `<comm>-<pid> [CPU] <flags> <secs>.<usecs>: sched_switch: prev_comm=... prev_pid=P
/// prev_prio=.. prev_state=S ==> next_comm=... next_pid=N next_prio=..` or
/// `... sched_wakeup: comm=... pid=P prio=.. target_cpu=C`. The event's core is the CPU the
/// line was recorded on (for a wake-up, the target CPU: the one it concerns).
pub(crate) fn parse_line(line: &str) -> Option<Event> {
    let (head, kind, rest) = if let Some(i) = line.find(": sched_switch: ") {
        (&line[..i], EventKind::KernelSwitch, &line[i + 16..])
    } else if let Some(i) = line.find(": sched_wakeup: ") {
        (&line[..i], EventKind::KernelWakeup, &line[i + 16..])
    } else {
        return None;
    };
    let mut tokens = head.split_whitespace().rev();
    let time = tokens.next()?;
    let cpu: u32 = tokens.find_map(|t| t.strip_prefix('[')?.strip_suffix(']')?.parse().ok())?;
    let (secs, usecs) = time.split_once('.')?;
    let time_ns = secs.parse::<u64>().ok()? * 1_000_000_000 + usecs.parse::<u64>().ok()? * 1_000;
    match kind {
        EventKind::KernelSwitch => {
            let (prev, next) = rest.split_once(" ==> ")?;
            let prev_pid: u64 = field(prev, "prev_pid=")?.parse().ok()?;
            let state = field(prev, "prev_state=")?;
            let next_pid: u64 = field(next, "next_pid=")?.parse().ok()?;
            let mut packed = [0u8; 8];
            for (d, s) in packed.iter_mut().zip(state.bytes()) {
                *d = s;
            }
            let e = Event::new(
                time_ns,
                kind,
                prev_pid,
                [next_pid, u64::from_le_bytes(packed), 0, 0],
            );
            Some(e.on_core(core_field(cpu)))
        }
        _ => {
            let pid: u64 = field(rest, " pid=")
                .or_else(|| field(rest, "pid="))?
                .parse()
                .ok()?;
            let target: u32 = field(rest, "target_cpu=")?.parse().ok()?;
            let e = Event::new(time_ns, kind, pid, [u64::from(target), 0, 0, 0]);
            Some(e.on_core(core_field(target)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switch_and_wakeup_lines_parse() {
        let l = "   my task-name-1234    [001] d..2.  5678.123456: sched_switch: prev_comm=my task-name prev_pid=1234 prev_prio=79 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120";
        let e = parse_line(l).unwrap();
        assert_eq!(e.kind, EventKind::KernelSwitch);
        assert_eq!(e.core, 1);
        assert_eq!(e.time_ns, 5_678_123_456_000);
        assert_eq!((e.a, e.b()), (1234, 0));
        assert_eq!(&e.c().to_le_bytes()[..2], b"S\0");
        let l = "          <idle>-0       [000] dNh4.   12.000001: sched_wakeup: comm=partita-core1 pid=77 prio=9 target_cpu=001";
        let e = parse_line(l).unwrap();
        assert_eq!(e.kind, EventKind::KernelWakeup);
        assert_eq!((e.a, e.b(), e.core), (77, 1, 1));
        assert_eq!(e.time_ns, 12_000_001_000);
        assert!(parse_line("# tracer: nop").is_none());
        assert!(parse_line("x [001] 1.5: sched_switch: garbage").is_none());
    }

    #[test]
    fn cpumask_groups_by_32() {
        assert_eq!(cpumask(&[0, 1]), "00000003");
        assert_eq!(cpumask(&[1, 33]), "00000002,00000002");
    }
}
