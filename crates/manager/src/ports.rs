// SPDX-License-Identifier: MIT OR Apache-2.0
//! Inter-partition channels: the manager creates each channel's shared memory once per run
//! (so that a partition restart does not disturb its peers), hands every partition only the
//! ends it is configured for, and bridges pseudo-partition ends ([`crate::bridge`]).
//!
//! Ownership (see `partita_sys::port`): a channel's data area belongs to its writer (its
//! partition uid, mode 0644; readers get an `O_RDONLY` descriptor), a queue's read state to its
//! reader (the writer gets an `O_RDONLY` descriptor). The partition learns its ports from a
//! read-only directory memfd (`partita_sys::port_dir`).

use crate::ManagerError;
use partita_config::model::{PortKind, PseudoTransport};
use partita_schedule::Nanos;
use partita_sys::isolation::{partition_gid, partition_uid};
use partita_sys::port::{self, Queue, Sampling};
use partita_sys::port_dir::{self, PortEntry, FIRST_PORT_FD, PORT_DIR_FD};
use partita_sys::shm::SharedMapping;
use std::os::fd::OwnedFd;

/// One end of a channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EndSpec {
    /// A port of a partition of the module.
    Partition {
        /// Partition index.
        partition: usize,
        /// Port name.
        port: String,
        /// `RefreshRateSeconds` of a sampling destination port.
        refresh: Option<Nanos>,
    },
    /// A pseudo-partition: something outside the module.
    Pseudo {
        /// `Name`.
        name: String,
        /// How messages reach the outside world.
        transport: PseudoTransport,
    },
}

/// A channel of the connection table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelSpec {
    /// `ChannelIdentifier`.
    pub id: u32,
    /// Sampling or queuing.
    pub kind: PortKind,
    /// `MaxMessageSize`.
    pub max_message_size: u32,
    /// `MaxNbMessages` of a queuing channel.
    pub capacity: u32,
    /// The writer.
    pub source: EndSpec,
    /// The readers (one for a queuing channel).
    pub destinations: Vec<EndSpec>,
}

impl ChannelSpec {
    /// Structural checks (the configuration validator reports the same with positions).
    pub fn check(&self, partitions: usize) -> Result<(), String> {
        let bad = |e: &EndSpec| matches!(e, EndSpec::Partition { partition, .. } if *partition >= partitions);
        if bad(&self.source) || self.destinations.iter().any(bad) {
            return Err(format!(
                "channel {} names a partition out of range",
                self.id
            ));
        }
        if self.max_message_size == 0 || self.max_message_size > 1 << 24 {
            return Err(format!("channel {} has a bad message size", self.id));
        }
        if self.kind == PortKind::Queuing
            && (self.destinations.len() != 1 || self.capacity == 0 || self.capacity > 1 << 20)
        {
            return Err(format!(
                "queuing channel {} needs one destination and 1..2^20 messages",
                self.id
            ));
        }
        if self.destinations.is_empty() {
            return Err(format!("channel {} has no destination", self.id));
        }
        Ok(())
    }
}

/// The manager's view of one channel.
pub(crate) enum Live {
    /// Sampling: the data area.
    Sampling(Sampling),
    /// Queuing: data area and read state (both read-write for the manager).
    Queuing(Queue),
}

/// Every channel of the run, and what each partition gets.
pub(crate) struct Channels {
    pub specs: Vec<ChannelSpec>,
    pub live: Vec<Live>,
    /// Per partition: its directory memfd (read-only descriptor) and port descriptors with
    /// their number in the partition.
    pub per_partition: Vec<(OwnedFd, Vec<(OwnedFd, i32)>)>,
}

fn owner(e: &EndSpec) -> Option<(u32, u32)> {
    match e {
        EndSpec::Partition { partition, .. } => {
            Some((partition_uid(*partition), partition_gid(*partition)))
        }
        EndSpec::Pseudo { .. } => None,
    }
}

fn dup(fd: &OwnedFd) -> Result<OwnedFd, ManagerError> {
    fd.try_clone()
        .map_err(|e| partita_sys::SysError::io("dup(port memfd)", e).into())
}

impl Channels {
    /// Creates the shared memory of every channel and the directory of every partition.
    pub fn create(specs: &[ChannelSpec], partitions: usize) -> Result<Channels, ManagerError> {
        let mut live = Vec::new();
        let mut entries: Vec<Vec<PortEntry>> = vec![Vec::new(); partitions];
        let mut fds: Vec<Vec<(OwnedFd, i32)>> = (0..partitions).map(|_| Vec::new()).collect();
        for c in specs {
            c.check(partitions).map_err(ManagerError::InvalidPlan)?;
            let max = c.max_message_size as usize;
            let give = |p: usize, fd: OwnedFd, fds: &mut Vec<Vec<(OwnedFd, i32)>>| {
                let n = FIRST_PORT_FD + fds[p].len() as i32;
                fds[p].push((fd, n));
                n
            };
            match c.kind {
                PortKind::Sampling => {
                    let data = port::create_memfd(
                        &format!("partita-sampling-{}", c.id),
                        port::sampling_len(max),
                        owner(&c.source),
                    )?;
                    if let EndSpec::Partition {
                        partition, port, ..
                    } = &c.source
                    {
                        let n = give(*partition, dup(data.fd())?, &mut fds);
                        entries[*partition].push(entry(port, true, true, c, None, n, None));
                    }
                    for d in &c.destinations {
                        if let EndSpec::Partition {
                            partition,
                            port,
                            refresh,
                        } = d
                        {
                            let n = give(*partition, port::readonly_fd(data.fd())?, &mut fds);
                            entries[*partition]
                                .push(entry(port, true, false, c, *refresh, n, None));
                        }
                    }
                    let s = Sampling::new(data, max)?;
                    s.init();
                    live.push(Live::Sampling(s));
                }
                PortKind::Queuing => {
                    let cap = c.capacity as usize;
                    let dest = &c.destinations[0];
                    let data = port::create_memfd(
                        &format!("partita-queue-{}", c.id),
                        port::queue_len(max, cap),
                        owner(&c.source),
                    )?;
                    let state = port::create_memfd(
                        &format!("partita-queue-{}-read", c.id),
                        port::READ_STATE_LEN,
                        owner(dest),
                    )?;
                    if let EndSpec::Partition {
                        partition, port, ..
                    } = &c.source
                    {
                        let d = give(*partition, dup(data.fd())?, &mut fds);
                        let s = give(*partition, port::readonly_fd(state.fd())?, &mut fds);
                        entries[*partition].push(entry(port, false, true, c, None, d, Some(s)));
                    }
                    if let EndSpec::Partition {
                        partition, port, ..
                    } = dest
                    {
                        let d = give(*partition, port::readonly_fd(data.fd())?, &mut fds);
                        let s = give(*partition, dup(state.fd())?, &mut fds);
                        entries[*partition].push(entry(port, false, false, c, None, d, Some(s)));
                    }
                    let q = Queue::new(data, state, max, cap)?;
                    q.init();
                    live.push(Live::Queuing(q));
                }
            }
        }
        let mut per_partition = Vec::new();
        for (p, (e, f)) in entries.into_iter().zip(fds).enumerate() {
            let text = port_dir::encode(&e);
            let m = port::create_memfd(
                &format!("partita-ports-{p}"),
                text.len().div_ceil(8).max(1) * 8,
                Some((partition_uid(p), partition_gid(p))),
            )?;
            copy_text(&m, text.as_bytes());
            per_partition.push((port::readonly_fd(m.fd())?, f));
        }
        Ok(Channels {
            specs: specs.to_vec(),
            live,
            per_partition,
        })
    }

    /// Descriptors to install in partition `index` (directory first) and the environment
    /// variable that names the directory.
    pub fn fds_of(&self, index: usize) -> (Vec<(&OwnedFd, i32)>, (String, String)) {
        let (dir, fds) = &self.per_partition[index];
        let mut v = vec![(dir, PORT_DIR_FD)];
        v.extend(fds.iter().map(|(f, n)| (f, *n)));
        (
            v,
            (port_dir::ENV_PORTS_FD.to_string(), PORT_DIR_FD.to_string()),
        )
    }
}

fn entry(
    name: &str,
    sampling: bool,
    source: bool,
    c: &ChannelSpec,
    refresh: Option<Nanos>,
    data_fd: i32,
    state_fd: Option<i32>,
) -> PortEntry {
    PortEntry {
        name: name.to_string(),
        sampling,
        source,
        max_message_size: c.max_message_size,
        capacity: if sampling { 0 } else { c.capacity },
        refresh_ns: refresh.map(|r| r as i64),
        data_fd,
        state_fd,
        channel: c.id,
    }
}

/// Writes `text` at the start of a fresh mapping (as atomic words: the mapping is shared).
fn copy_text(m: &SharedMapping, text: &[u8]) {
    for (w, chunk) in m.words().iter().zip(text.chunks(8)) {
        let mut b = [0u8; 8];
        b[..chunk.len()].copy_from_slice(chunk);
        w.store(u64::from_le_bytes(b), std::sync::atomic::Ordering::Relaxed);
    }
}

/// Creates the run's channels and gives every partition its ends.
pub(crate) fn attach(
    plan: &crate::ModulePlan,
    parts: &[std::sync::Arc<crate::partition::Partition>],
) -> Result<Option<std::sync::Arc<Channels>>, ManagerError> {
    if plan.channels.is_empty() {
        return Ok(None);
    }
    let ch = std::sync::Arc::new(Channels::create(&plan.channels, parts.len())?);
    for p in parts {
        let _ = p.channels.set(ch.clone());
    }
    Ok(Some(ch))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::MetadataExt;

    fn end(partition: usize, port: &str) -> EndSpec {
        EndSpec::Partition {
            partition,
            port: port.into(),
            refresh: None,
        }
    }

    fn specs() -> Vec<ChannelSpec> {
        vec![
            ChannelSpec {
                id: 1,
                kind: PortKind::Queuing,
                max_message_size: 32,
                capacity: 4,
                source: end(0, "QO"),
                destinations: vec![end(1, "QI")],
            },
            ChannelSpec {
                id: 2,
                kind: PortKind::Sampling,
                max_message_size: 16,
                capacity: 0,
                source: end(0, "SO"),
                destinations: vec![
                    EndSpec::Partition {
                        partition: 1,
                        port: "SI".into(),
                        refresh: Some(5_000_000),
                    },
                    EndSpec::Pseudo {
                        name: "rec".into(),
                        transport: PseudoTransport::File {
                            path: "/dev/null".into(),
                        },
                    },
                ],
            },
        ]
    }

    /// Access mode of an open descriptor (from /proc/self/fdinfo).
    fn access_mode(fd: &OwnedFd) -> u32 {
        let info =
            std::fs::read_to_string(format!("/proc/self/fdinfo/{}", fd.as_raw_fd())).unwrap();
        let flags = info
            .lines()
            .find_map(|l| l.strip_prefix("flags:"))
            .unwrap()
            .trim();
        u32::from_str_radix(flags, 8).unwrap() & 3
    }

    fn owner(fd: &OwnedFd) -> (u32, u32, u32) {
        let m = std::fs::File::from(fd.try_clone().unwrap())
            .metadata()
            .unwrap();
        (m.uid(), m.gid(), m.mode() & 0o777)
    }

    #[test]
    fn each_partition_gets_only_its_ends_with_the_right_access() {
        let ch = Channels::create(&specs(), 3).unwrap();
        let dir = |p: usize| {
            let (d, _) = &ch.per_partition[p];
            assert_eq!(access_mode(d), 0, "the directory is read-only");
            let text = std::fs::read_to_string(format!("/proc/self/fd/{}", d.as_raw_fd())).unwrap();
            port_dir::decode(text.trim_end_matches('\0')).unwrap()
        };
        let fds = |p: usize| -> Vec<(u32, (u32, u32, u32), i32)> {
            ch.per_partition[p]
                .1
                .iter()
                .map(|(f, n)| (access_mode(f), owner(f), *n))
                .collect()
        };
        let (w, r) = (
            (partition_uid(0), partition_gid(0)),
            (partition_uid(1), partition_gid(1)),
        );
        // Writer: queue data read-write (its own), queue read state read-only (the reader's),
        // sampling data read-write.
        let d0 = dir(0);
        assert_eq!(d0.len(), 2);
        assert_eq!(
            (d0[0].name.as_str(), d0[0].source, d0[0].sampling),
            ("QO", true, false)
        );
        assert_eq!(
            (d0[0].data_fd, d0[0].state_fd, d0[0].capacity),
            (17, Some(18), 4)
        );
        assert_eq!(
            (d0[1].name.as_str(), d0[1].data_fd, d0[1].state_fd),
            ("SO", 19, None)
        );
        assert_eq!(
            fds(0),
            vec![
                (2, (w.0, w.1, 0o644), 17),
                (0, (r.0, r.1, 0o644), 18),
                (2, (w.0, w.1, 0o644), 19),
            ]
        );
        // Reader: queue data read-only, read state read-write, sampling data read-only.
        let d1 = dir(1);
        assert_eq!(d1.len(), 2);
        assert_eq!((d1[0].name.as_str(), d1[0].source), ("QI", false));
        assert_eq!(
            (d1[1].name.as_str(), d1[1].refresh_ns),
            ("SI", Some(5_000_000))
        );
        assert_eq!(
            fds(1),
            vec![
                (0, (w.0, w.1, 0o644), 17),
                (2, (r.0, r.1, 0o644), 18),
                (0, (w.0, w.1, 0o644), 19),
            ]
        );
        // A partition without ports gets an empty directory and no descriptor.
        assert!(dir(2).is_empty());
        assert!(ch.per_partition[2].1.is_empty());
        assert_eq!(ch.live.len(), 2);
    }

    #[test]
    fn channel_checks() {
        let mut s = specs();
        assert!(s.iter().all(|c| c.check(2).is_ok()));
        assert!(s[0].check(1).is_err(), "partition out of range");
        s[0].destinations.push(end(1, "X"));
        assert!(s[0].check(2).is_err(), "two queuing destinations");
        s[1].max_message_size = 0;
        assert!(s[1].check(2).is_err(), "empty messages");
    }
}
