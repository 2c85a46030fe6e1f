// SPDX-License-Identifier: MIT OR Apache-2.0
//! Pseudo-partitions: the manager carries the messages of channel ends outside the module.
//!
//! A bridge thread polls every pseudo end each millisecond:
//! - **UDP** (`partita:Udp="host:port"`): one datagram is one message. A pseudo *source*
//!   receives on a socket bound to `host:port`; a pseudo *destination* sends to `host:port`.
//! - **File** (`partita:File`) and **named pipe** (`partita:Fifo`): a stream of records, each a
//!   4-byte little-endian length followed by that many bytes. A pseudo source reads records
//!   from the file (from its start, following what is appended) or the pipe; a pseudo
//!   destination truncates the file at start and appends records, or writes them to the pipe
//!   (created if missing; writes never block the bridge).
//!
//! Nothing is dropped silently: per pseudo end the run report's notes count messages in and
//! out, messages dropped (a UDP datagram arriving at a full queue — the reader then also sees
//! the queue's overflow indication —, a sampling message superseded while a pipe was full),
//! records that were empty or longer than the channel's message size, sampling messages the
//! writing partition left inconsistent (never forwarded), and I/O errors. A file or
//! pipe source facing a full queue waits instead of dropping.

use crate::ports::{Channels, Live};
use crate::ManagerError;
use partita_config::model::Endpoint;
use partita_config::model::PseudoTransport;
use partita_sys::SysError;
use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, ToSocketAddrs, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(Debug, Default, Clone, Copy)]
struct Counters {
    input: u64,
    output: u64,
    dropped: u64,
    bad: u64,
    errors: u64,
}

enum Io {
    UdpIn(UdpSocket),
    UdpOut(UdpSocket, SocketAddr),
    /// A file or pipe read as records: bytes not yet framed, and bytes of an oversized
    /// record still to skip.
    StreamIn(File, Vec<u8>, usize),
    /// A file or pipe written as records; `pending` holds bytes not yet written.
    StreamOut(File, Vec<u8>),
}

struct Link {
    channel: usize,
    label: String,
    io: Io,
    counters: Counters,
    /// Sampling destination: number of the last message forwarded.
    last: u64,
}

/// The opened pseudo ends of a run.
pub(crate) struct Bridge {
    links: Vec<Link>,
    channels: Arc<Channels>,
}

/// A running bridge.
pub(crate) struct Running {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<Vec<String>>,
}

fn io_err(what: String) -> impl FnOnce(std::io::Error) -> ManagerError {
    move |e| SysError::io(what, e).into()
}

fn resolve(host: &str, port: u16) -> Result<SocketAddr, ManagerError> {
    (host, port)
        .to_socket_addrs()
        .map_err(io_err(format!("resolve {host}:{port}")))?
        .next()
        .ok_or_else(|| ManagerError::NoAddress {
            host: host.to_string(),
            port,
        })
}

impl Bridge {
    /// Opens every pseudo end (binds sockets, opens files and pipes). `None` when the module
    /// has none.
    pub fn open(channels: &Arc<Channels>) -> Result<Option<Bridge>, ManagerError> {
        let mut links = Vec::new();
        for (i, c) in channels.specs().iter().enumerate() {
            let ends =
                std::iter::once((&c.source, true)).chain(c.destinations.iter().map(|d| (d, false)));
            for (end, source) in ends {
                let Endpoint::Pseudo {
                    name, transport, ..
                } = end
                else {
                    continue;
                };
                let (io, what) = match (transport, source) {
                    (PseudoTransport::Udp { host, port }, true) => {
                        let a = resolve(host, *port)?;
                        let s = UdpSocket::bind(a).map_err(io_err(format!("bind UDP {a}")))?;
                        s.set_nonblocking(true)
                            .map_err(io_err("UDP socket".into()))?;
                        (Io::UdpIn(s), format!("udp {a}"))
                    }
                    (PseudoTransport::Udp { host, port }, false) => {
                        let a = resolve(host, *port)?;
                        let local: SocketAddr = if a.is_ipv6() {
                            "[::]:0".parse().expect("address")
                        } else {
                            "0.0.0.0:0".parse().expect("address")
                        };
                        let s = UdpSocket::bind(local).map_err(io_err("bind UDP".into()))?;
                        s.set_nonblocking(true)
                            .map_err(io_err("UDP socket".into()))?;
                        (Io::UdpOut(s, a), format!("udp {a}"))
                    }
                    (PseudoTransport::File { path }, true) => {
                        let f =
                            File::open(path).map_err(io_err(format!("open {}", path.display())))?;
                        (
                            Io::StreamIn(f, Vec::new(), 0),
                            format!("file {}", path.display()),
                        )
                    }
                    (PseudoTransport::File { path }, false) => {
                        let f = File::create(path)
                            .map_err(io_err(format!("create {}", path.display())))?;
                        (
                            Io::StreamOut(f, Vec::new()),
                            format!("file {}", path.display()),
                        )
                    }
                    (PseudoTransport::Fifo { path }, source) => {
                        partita_sys::port::mkfifo(path)?;
                        let f = partita_sys::port::open_fifo(path, !source)?;
                        let io = if source {
                            Io::StreamIn(f, Vec::new(), 0)
                        } else {
                            Io::StreamOut(f, Vec::new())
                        };
                        (io, format!("fifo {}", path.display()))
                    }
                };
                links.push(Link {
                    channel: i,
                    label: format!(
                        "pseudo-partition {name} ({} of channel {}, {what})",
                        if source { "source" } else { "destination" },
                        c.id
                    ),
                    io,
                    counters: Counters::default(),
                    last: 0,
                });
            }
        }
        Ok((!links.is_empty()).then(|| Bridge {
            links,
            channels: channels.clone(),
        }))
    }

    /// Starts the bridge thread; `epoch` is the module epoch (time stamps of sampling
    /// messages written by the bridge).
    pub fn start(mut self, epoch: u64) -> Result<Running, ManagerError> {
        let stop = Arc::new(AtomicBool::new(false));
        let s2 = stop.clone();
        let thread = std::thread::Builder::new()
            .name("partita-bridge".into())
            .spawn(move || {
                let max = self
                    .channels
                    .specs()
                    .iter()
                    .map(|c| c.max_message_size as usize)
                    .max()
                    .unwrap_or(0)
                    .max(65536);
                let mut buf = vec![0u8; max];
                while !s2.load(Ordering::Acquire) {
                    self.poll(epoch, &mut buf);
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                // A last pass so that what the partitions wrote before the end gets out.
                self.poll(epoch, &mut buf);
                self.links
                    .iter()
                    .map(|l| {
                        let c = l.counters;
                        format!(
                            "{}: {} in, {} out, {} dropped, {} empty, too long or inconsistent, {} I/O errors",
                            l.label, c.input, c.output, c.dropped, c.bad, c.errors
                        )
                    })
                    .collect()
            })
            .map_err(io_err("spawn bridge thread".into()))?;
        Ok(Running { stop, thread })
    }

    fn poll(&mut self, epoch: u64, buf: &mut [u8]) {
        let now = partita_sys::time::monotonic_ns() as i64 - epoch as i64;
        for l in &mut self.links {
            let spec = &self.channels.specs()[l.channel];
            let live = &self.channels.live[l.channel];
            let max = spec.max_message_size as usize;
            match &mut l.io {
                Io::UdpIn(s) => loop {
                    match s.recv_from(buf) {
                        Ok((n, _)) if n == 0 || n > max => l.counters.bad += 1,
                        Ok((n, _)) => {
                            if deliver(live, &buf[..n], now) {
                                l.counters.input += 1;
                            } else {
                                if let Live::Queuing(q) = live {
                                    q.count_overflow();
                                }
                                l.counters.dropped += 1;
                            }
                        }
                        Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                        Err(e) if e.kind() == ErrorKind::Interrupted => {}
                        Err(_) => {
                            l.counters.errors += 1;
                            break;
                        }
                    }
                },
                Io::StreamIn(f, pend, skip) => loop {
                    if *skip > 0 {
                        let n = (*skip).min(pend.len());
                        pend.drain(..n);
                        *skip -= n;
                    }
                    if *skip == 0 && pend.len() >= 4 {
                        let len = u32::from_le_bytes([pend[0], pend[1], pend[2], pend[3]]) as usize;
                        if len == 0 || len > max {
                            l.counters.bad += 1;
                            pend.drain(..4);
                            *skip = len;
                            continue;
                        }
                        if pend.len() >= 4 + len {
                            if !deliver(live, &pend[4..4 + len], now) {
                                // Queue full: the record waits (file and pipe sources do
                                // not drop).
                                break;
                            }
                            l.counters.input += 1;
                            pend.drain(..4 + len);
                            continue;
                        }
                    }
                    // Need more bytes (at most one record is buffered).
                    let mut chunk = [0u8; 4096];
                    let want = if *skip > 0 {
                        (*skip).min(chunk.len())
                    } else {
                        chunk.len().min((4 + max).saturating_sub(pend.len()).max(1))
                    };
                    match f.read(&mut chunk[..want]) {
                        Ok(0) => break,
                        Ok(n) => pend.extend_from_slice(&chunk[..n]),
                        Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                        Err(e) if e.kind() == ErrorKind::Interrupted => {}
                        Err(_) => {
                            l.counters.errors += 1;
                            break;
                        }
                    }
                },
                Io::UdpOut(s, to) => {
                    while let Some(taken) = take(live, &mut l.last, buf) {
                        let Some(n) = taken else {
                            l.counters.bad += 1;
                            continue;
                        };
                        match s.send_to(&buf[..n], *to) {
                            Ok(_) => l.counters.output += 1,
                            Err(_) => {
                                l.counters.errors += 1;
                                l.counters.dropped += 1;
                            }
                        }
                    }
                }
                Io::StreamOut(f, pending) => loop {
                    if !pending.is_empty() {
                        match f.write(pending) {
                            Ok(n) => {
                                pending.drain(..n);
                            }
                            Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                            Err(_) => {
                                l.counters.errors += 1;
                                l.counters.dropped += 1;
                                pending.clear();
                            }
                        }
                        if !pending.is_empty() {
                            // Pipe full: a newer sampling message replaces nothing here; it
                            // is forwarded once the pipe drains (and counted dropped if it
                            // was superseded meanwhile, see `take`).
                            break;
                        }
                    }
                    let before = l.last;
                    let Some(taken) = take(live, &mut l.last, buf) else {
                        break;
                    };
                    let Some(n) = taken else {
                        // The partition keeps its sampling channel inconsistent: nothing
                        // trustworthy to forward (nor its message number to count drops by).
                        l.counters.bad += 1;
                        continue;
                    };
                    if matches!(live, Live::Sampling(_)) && l.last > before + 1 && before > 0 {
                        l.counters.dropped += l.last - before - 1;
                    }
                    pending.extend_from_slice(&(n as u32).to_le_bytes());
                    pending.extend_from_slice(&buf[..n]);
                    l.counters.output += 1;
                },
            }
        }
    }
}

/// Writes a message into the channel (the bridge is its writer). `false`: queue full.
fn deliver(live: &Live, msg: &[u8], now: i64) -> bool {
    match live {
        Live::Sampling(s) => {
            s.write(msg, now);
            true
        }
        Live::Queuing(q) => q.push(msg),
    }
}

/// Takes the next message to forward from a channel the bridge reads: the oldest queued
/// message, or the current sampling message if it is newer than `last` (`Some(None)`: one the
/// writing partition left inconsistent, see `partita_sys::port::Sampling::read`).
fn take(live: &Live, last: &mut u64, buf: &mut [u8]) -> Option<Option<usize>> {
    match live {
        Live::Queuing(q) => q.pop(buf).map(|p| Some(p.len)),
        Live::Sampling(s) => {
            if s.latest_number() == *last {
                return None;
            }
            let m = s.read(buf)?;
            *last = m.number;
            Some(m.consistent.then_some(m.len))
        }
    }
}

impl Running {
    /// Stops the bridge (after a last pass) and returns its counters as report notes.
    pub fn stop(self) -> Vec<String> {
        self.stop.store(true, Ordering::Release);
        self.thread.join().unwrap_or_default()
    }
}
