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
use partita_config::model::{Channel, Endpoint, PortKind};
use partita_config::CompiledPlan;
use partita_schedule::Nanos;
use partita_sys::isolation::{partition_gid, partition_uid};
use partita_sys::port::{self, Queue, Sampling};
use partita_sys::port_dir::{self, PortEntry, FIRST_PORT_FD, PORT_DIR_FD};
use partita_sys::shm::SharedMapping;
use std::os::fd::OwnedFd;

/// The manager's view of one channel.
pub(crate) enum Live {
    /// Sampling: the data area.
    Sampling(Sampling),
    /// Queuing: data area and read state (both read-write for the manager).
    Queuing(Queue),
}

/// Every channel of the run, and what each partition gets.
pub(crate) struct Channels {
    /// The plan whose channels these are.
    plan: std::sync::Arc<CompiledPlan>,
    pub live: Vec<Live>,
    /// Per partition: its directory memfd (read-only descriptor) and port descriptors with
    /// their number in the partition.
    pub per_partition: Vec<(OwnedFd, Vec<(OwnedFd, i32)>)>,
}

fn owner(e: &Endpoint) -> Option<(u32, u32)> {
    e.partition().map(|p| (partition_uid(p), partition_gid(p)))
}

fn dup(fd: &OwnedFd) -> Result<OwnedFd, ManagerError> {
    fd.try_clone()
        .map_err(|e| partita_sys::SysError::io("dup(port memfd)", e).into())
}

impl Channels {
    /// Creates the shared memory of every channel of `plan` (a checked plan:
    /// [`CompiledPlan::check_consistency`]) and the directory of every partition.
    pub fn create(plan: &std::sync::Arc<CompiledPlan>) -> Result<Channels, ManagerError> {
        let partitions = plan.partitions.len();
        let mut live = Vec::new();
        let mut entries: Vec<Vec<PortEntry>> = vec![Vec::new(); partitions];
        let mut fds: Vec<Vec<(OwnedFd, i32)>> = (0..partitions).map(|_| Vec::new()).collect();
        for c in &plan.channels {
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
                    if let Endpoint::Partition { partition, port } = &c.source {
                        let n = give(*partition, dup(data.fd())?, &mut fds);
                        entries[*partition].push(entry(port, true, true, c, None, n, None));
                    }
                    for d in &c.destinations {
                        if let Endpoint::Partition { partition, port } = d {
                            let n = give(*partition, port::readonly_fd(data.fd())?, &mut fds);
                            let refresh = plan.refresh_period(*partition, port);
                            entries[*partition].push(entry(port, true, false, c, refresh, n, None));
                        }
                    }
                    let s = Sampling::new(data, max)?;
                    s.init();
                    live.push(Live::Sampling(s));
                }
                PortKind::Queuing => {
                    let cap = capacity(c) as usize;
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
                    if let Endpoint::Partition { partition, port } = &c.source {
                        let d = give(*partition, dup(data.fd())?, &mut fds);
                        let s = give(*partition, port::readonly_fd(state.fd())?, &mut fds);
                        entries[*partition].push(entry(port, false, true, c, None, d, Some(s)));
                    }
                    if let Endpoint::Partition { partition, port } = dest {
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
            plan: plan.clone(),
            live,
            per_partition,
        })
    }

    /// The channels of the connection table, in the order of [`Channels::live`].
    pub fn specs(&self) -> &[Channel] {
        &self.plan.channels
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
    c: &Channel,
    refresh: Option<Nanos>,
    data_fd: i32,
    state_fd: Option<i32>,
) -> PortEntry {
    PortEntry {
        name: name.to_string(),
        sampling,
        source,
        max_message_size: c.max_message_size,
        capacity: if sampling { 0 } else { capacity(c) },
        refresh_ns: refresh.map(|r| r as i64),
        data_fd,
        state_fd,
        channel: c.id,
    }
}

/// `MaxNbMessages` of a queuing channel (0 for a sampling channel).
fn capacity(c: &Channel) -> u32 {
    c.max_nb_messages.unwrap_or(0)
}

/// Writes `text` at the start of a fresh mapping (as atomic words: the mapping is shared).
fn copy_text(m: &SharedMapping, text: &[u8]) {
    for (w, chunk) in m.words().iter().zip(text.chunks(8)) {
        let mut b = [0u8; 8];
        b[..chunk.len()].copy_from_slice(chunk);
        w.store(u64::from_le_bytes(b), std::sync::atomic::Ordering::Relaxed);
    }
}

/// Creates the channels of `plan`, if it has any.
pub(crate) fn create(
    plan: &std::sync::Arc<CompiledPlan>,
) -> Result<Option<std::sync::Arc<Channels>>, ManagerError> {
    if plan.channels.is_empty() {
        return Ok(None);
    }
    Ok(Some(std::sync::Arc::new(Channels::create(plan)?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::MetadataExt;

    fn end(partition: usize, port: &str) -> Endpoint {
        Endpoint::Partition {
            partition,
            port: port.into(),
        }
    }

    /// Three partitions; a queuing channel from 0 to 1, a sampling channel from 0 to 1 (whose
    /// port has a refresh period) and to a pseudo-partition.
    fn plan() -> std::sync::Arc<CompiledPlan> {
        use partita_config::model::{Port, PortDirection, PseudoTransport};
        use partita_config::{CompiledPartition, PlanBuilder};
        use partita_schedule::{FramePlan, Window};
        let window = |id: u32, partition: usize| Window {
            id,
            partition,
            core: 0,
            offset: u64::from(id) * 1_000_000,
            duration: 1_000_000,
            period_start: true,
        };
        let mut reader = CompiledPartition::new(2, "R", "/bin/true");
        reader.ports.push(Port {
            name: "SI".into(),
            kind: PortKind::Sampling,
            direction: PortDirection::Destination,
            max_message_size: 16,
            refresh_period: Some(5_000_000),
            max_nb_messages: None,
        });
        let frame = FramePlan {
            major_frame: 3_000_000,
            windows: vec![window(0, 0), window(1, 1), window(2, 2)],
        };
        let plan = PlanBuilder::new("ports", frame)
            .partition(CompiledPartition::new(1, "W", "/bin/true"))
            .partition(reader)
            .partition(CompiledPartition::new(3, "X", "/bin/true"))
            .channel(Channel {
                id: 1,
                name: None,
                kind: PortKind::Queuing,
                max_message_size: 32,
                max_nb_messages: Some(4),
                source: end(0, "QO"),
                destinations: vec![end(1, "QI")],
            })
            .channel(Channel {
                id: 2,
                name: None,
                kind: PortKind::Sampling,
                max_message_size: 16,
                max_nb_messages: None,
                source: end(0, "SO"),
                destinations: vec![
                    end(1, "SI"),
                    Endpoint::Pseudo {
                        name: "rec".into(),
                        port: None,
                        transport: PseudoTransport::File {
                            path: "/dev/null".into(),
                        },
                    },
                ],
            })
            .build()
            .expect("consistent plan");
        std::sync::Arc::new(plan)
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
        let ch = Channels::create(&plan()).unwrap();
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
}
