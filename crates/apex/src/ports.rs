// SPDX-License-Identifier: MIT OR Apache-2.0
//! Sampling and queuing ports in the partition runtime (ARINC 653 Part 1, 3.6).
//!
//! The partition manager passes the partition a *port directory* and only the shared memory
//! of its own channel ends (`partita_sys::port_dir`, `partita_sys::port`). CREATE_* checks the
//! request against the directory and maps the port's memory with the access its direction
//! needs. Messages then move without the kernel lock and without a system call: a sampling
//! write or read, and a queuing send or receive that does not have to wait, touch only the
//! shared memory.
//!
//! # Blocking
//! A sender facing a full queue (or a receiver facing an empty one) with a non-zero time-out
//! is queued in the kernel ([`partita_apex_core::Kernel::port_block_send`]), by FIFO or
//! PRIORITY discipline. The *port thread* of the runtime waits (`futex_waitv`) on the queue
//! indices its peers move — the writer's `head` of every destination port, the reader's
//! `tail` of every source port — and on a private re-arm word. Whenever it wakes it *pumps*
//! every queuing port with the kernel locked: it moves the head waiter's message into room
//! that appeared (or the oldest message to the head receiver) and completes the waiter, until
//! nobody waits or nothing moves. The waiting flags in shared memory tell the peer to wake the
//! index word; see `partita_sys::port` for why no wake-up is lost. The services themselves pump
//! before deciding to block, so a process never waits behind room or a message that is there.
//!
//! # Identifiers
//! A port identifier is `incarnation << 16 | (directory index + 1)`, the incarnation being
//! derived from the partition's restart count: an identifier kept from before a restart
//! (COLD_START / WARM_START) is refused with INVALID_PARAM.

use crate::runtime::{self, Runtime};
use partita_abi::report::Refusal;
use partita_apex_core::{
    Kernel, Name, PortWaitId, PortWaitKind, QueuingDiscipline, ReturnCode, SystemTime,
    INFINITE_TIME_VALUE,
};
use partita_sys::port::{self as shm, Queue, Sampling};
use partita_sys::port_dir::{self, PortEntry};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// Serialises the processes of this partition on one channel end (a channel has one writer
/// and one reader slot). Private to the partition, so nothing a peer could hold. Taking it is
/// one atomic swap and releasing it a plain store; a process that finds it taken (its holder
/// was preempted in the middle of a port call) sleeps 50 µs at a time until it is free — the
/// holder, demoted below the running priority, runs meanwhile.
#[derive(Default)]
pub(crate) struct EndLock(AtomicU32);

/// Holds an [`EndLock`].
pub(crate) struct EndGuard<'a>(&'a EndLock);

impl EndLock {
    pub fn lock(&self) -> EndGuard<'_> {
        while self.0.swap(1, Ordering::Acquire) != 0 {
            let until = partita_sys::time::monotonic_ns() + 50_000;
            partita_sys::futex::wait(&self.0, 1, Some(until), false);
        }
        EndGuard(self)
    }
}

impl Drop for EndGuard<'_> {
    fn drop(&mut self) {
        self.0 .0.store(0, Ordering::Release);
    }
}

/// A created sampling port.
pub(crate) struct SamplingPort {
    pub entry: PortEntry,
    pub refresh: SystemTime,
    pub mem: Sampling,
    /// Number of the last message read through this port (0: none).
    pub last_read: AtomicU64,
    /// Validity of the last message read (GET_SAMPLING_PORT_STATUS).
    pub last_valid: AtomicBool,
    /// Serialises the writers of this partition (the channel has one writer slot). Private
    /// to the partition: nothing a peer could hold.
    pub lock: EndLock,
}

/// A created queuing port.
pub(crate) struct QueuingPort {
    pub entry: PortEntry,
    pub mem: Queue,
    pub waiters: PortWaitId,
    /// Processes of this partition waiting on the port (mirrors the kernel's queue, read
    /// without the lock by the fast paths).
    pub waiting: AtomicU32,
    /// Message scratch of the pump (used with the kernel locked).
    pub scratch: Mutex<Vec<u8>>,
    /// Serialises this partition's processes (and the port thread) on the queue's single
    /// producer or consumer end. Private to the partition: nothing a peer could hold.
    pub lock: EndLock,
}

pub(crate) enum Port {
    Sampling(SamplingPort),
    Queuing(QueuingPort),
}

/// The partition's ports.
pub(crate) struct Ports {
    entries: Vec<PortEntry>,
    created: Vec<OnceLock<Port>>,
    incarnation: i32,
    /// Re-arm word of the port thread (private futex).
    rearm: AtomicU32,
    thread: AtomicBool,
    /// Why the directory could not be read, if it could not.
    error: Option<DirectoryError>,
}

static PORTS: OnceLock<Ports> = OnceLock::new();

/// Wake-ups through a peer's word that did not move, allowed per [`WINDOW_NS`].
const SPURIOUS_BUDGET: u32 = 4;
/// The budget's window.
const WINDOW_NS: u64 = 1_000_000;
/// How long a port whose peer exceeded the budget is polled instead of watched: doubled for
/// each offence that follows the end of the previous mute within [`MUTE_MAX_NS`], up to it.
const MUTE_NS: u64 = 1_000_000;
const MUTE_MAX_NS: u64 = 64_000_000;
/// Poll period of the ports beyond what `futex_waitv` can watch, and the shortest poll period
/// of a muted port (a quarter of its mute, at most [`MUTE_POLL_MAX_NS`]).
const POLL_NS: u64 = 1_000_000;
const MUTE_POLL_MAX_NS: u64 = 16_000_000;

/// Throttles the wake-ups one peer can cause the port thread (which runs above the
/// partition's processes): a peer on another core could otherwise wake it in a loop
/// (`FUTEX_WAKE` on the shared word) and take most of the partition's window. Past
/// [`SPURIOUS_BUDGET`] wake-ups without a message in [`WINDOW_NS`], the port is polled
/// instead of watched for [`MUTE_NS`], twice as long at each repeated offence (up to
/// [`MUTE_MAX_NS`]), every quarter of that (1 to 16 ms): a few wake-ups per mute and a poll
/// every few milliseconds reach the partition (a poll costs ~20 µs of the port thread here),
/// and only that peer's messages wait for the poll. An honest peer wakes only after it moved
/// the word and never comes near the budget.
#[derive(Debug, Default, Clone, Copy)]
struct WakeGuard {
    window_start: u64,
    count: u32,
    muted_until: u64,
    mute: u64,
}

impl WakeGuard {
    /// A wake-up without a message at `now`; `true` when it mutes the port.
    fn spurious(&mut self, now: u64) -> bool {
        if now.saturating_sub(self.window_start) >= WINDOW_NS {
            self.window_start = now;
            self.count = 0;
        }
        self.count += 1;
        if self.count > SPURIOUS_BUDGET {
            self.mute = if self.muted_until > 0 && now < self.muted_until + MUTE_MAX_NS {
                (self.mute * 2).clamp(MUTE_NS, MUTE_MAX_NS)
            } else {
                MUTE_NS
            };
            self.muted_until = now + self.mute;
            self.count = 0;
            self.window_start = self.muted_until;
            return true;
        }
        false
    }

    fn muted(&self, now: u64) -> bool {
        now < self.muted_until
    }

    /// When a muted port is next looked at: its next poll or the end of its mute.
    fn next_poll(&self, now: u64) -> u64 {
        let period = (self.mute / 4).clamp(POLL_NS, MUTE_POLL_MAX_NS);
        (now + period).min(self.muted_until)
    }
}

/// The partition's ports (read from the directory on first use).
pub(crate) fn table() -> &'static Ports {
    PORTS.get_or_init(Ports::load)
}

impl Ports {
    fn load() -> Ports {
        let incarnation = runtime::get()
            .ok()
            .and_then(|rt| rt.control())
            .map_or(0, |c| c.restarts.load(Ordering::Acquire));
        let incarnation = (incarnation % 0x7fff) as i32 + 1;
        let (entries, error) = match std::env::var(port_dir::ENV_PORTS_FD)
            .ok()
            .and_then(|v| v.parse::<i32>().ok())
        {
            None => (Vec::new(), None),
            Some(fd) => match read_directory(fd) {
                Ok(e) => (e, None),
                Err(e) => (Vec::new(), Some(e)),
            },
        };
        if let Some(e) = &error {
            eprintln!("partita runtime: ports unavailable: {e}");
        }
        Ports {
            created: entries.iter().map(|_| OnceLock::new()).collect(),
            entries,
            incarnation,
            rearm: AtomicU32::new(0),
            thread: AtomicBool::new(false),
            error,
        }
    }

    fn id_of(&self, index: usize) -> i32 {
        self.incarnation << 16 | (index as i32 + 1)
    }

    /// The created port of identifier `id`: INVALID_PARAM for an unknown, stale (other
    /// incarnation) or not yet created identifier.
    pub fn get(&self, id: i32) -> Result<&Port, ReturnCode> {
        if id >> 16 != self.incarnation {
            return Err(ReturnCode::InvalidParam);
        }
        let i = ((id & 0xffff) as usize).wrapping_sub(1);
        self.created
            .get(i)
            .and_then(|c| c.get())
            .ok_or(ReturnCode::InvalidParam)
    }

    /// Identifier of the created port named `name` of the given kind: INVALID_CONFIG if none.
    pub fn id_by_name(&self, name: &Name, sampling: bool) -> Result<i32, ReturnCode> {
        self.entries
            .iter()
            .enumerate()
            .find(|(i, e)| {
                e.sampling == sampling
                    && name_matches(&e.name, name)
                    && self.created[*i].get().is_some()
            })
            .map(|(i, _)| self.id_of(i))
            .ok_or(ReturnCode::InvalidConfig)
    }

    /// The directory entry named `name` (of the given kind), for CREATE_*.
    fn find(&self, name: &Name, sampling: bool) -> Result<usize, ReturnCode> {
        self.entries
            .iter()
            .position(|e| e.sampling == sampling && name_matches(&e.name, name))
            .ok_or(ReturnCode::InvalidConfig)
    }

    /// CREATE_SAMPLING_PORT / CREATE_QUEUING_PORT: common checks and mapping. `make` builds
    /// the port from the entry and its mappings.
    fn create(
        &'static self,
        name: &Name,
        sampling: bool,
        check: impl FnOnce(&PortEntry) -> Result<(), ReturnCode>,
        make: impl FnOnce(&PortEntry) -> Result<Port, ReturnCode>,
    ) -> Result<i32, ReturnCode> {
        let rt = runtime::get()?;
        let (not_configured, mismatch, in_normal) = if sampling {
            (
                Refusal::SamplingPortNotConfigured,
                Refusal::SamplingPortMismatch,
                Refusal::SamplingPortCreateInNormal,
            )
        } else {
            (
                Refusal::QueuingPortNotConfigured,
                Refusal::QueuingPortMismatch,
                Refusal::QueuingPortCreateInNormal,
            )
        };
        let (me, normal) = rt.query(|k, me| {
            let me = me.ok_or(ReturnCode::InvalidMode)?;
            Ok((
                me,
                k.operating_mode() == partita_apex_core::OperatingMode::Normal,
            ))
        })?;
        // Refusals that name their rule in the run log (the return code alone does not).
        let refuse = |rule: Refusal| {
            rt.report_refusal(me, rule, name);
            Err(rule.code())
        };
        if normal {
            return refuse(in_normal);
        }
        if self.error.is_some() {
            return Err(ReturnCode::InvalidConfig);
        }
        let Ok(i) = self.find(name, sampling) else {
            return refuse(not_configured);
        };
        let e = &self.entries[i];
        if check(e).is_err() {
            return refuse(mismatch);
        }
        if self.created[i].get().is_some() {
            return Err(ReturnCode::NoAction);
        }
        let port = make(e)?;
        self.created[i]
            .set(port)
            .map_err(|_| ReturnCode::NoAction)?;
        Ok(self.id_of(i))
    }

    /// Wakes the port thread so that it watches again (a process started waiting).
    pub fn wake_port_thread(&self) {
        self.rearm.fetch_add(1, Ordering::SeqCst);
        partita_sys::futex::wake(&self.rearm, 1, false);
    }

    /// Starts the port thread once (first queuing port), and re-arms it.
    fn rearm(&'static self, rt: &'static Runtime) {
        self.rearm.fetch_add(1, Ordering::SeqCst);
        partita_sys::futex::wake(&self.rearm, 1, false);
        if self.thread.swap(true, Ordering::AcqRel) {
            return;
        }
        let prio = rt
            .control()
            .map_or(0, |c| c.rt_run_priority.load(Ordering::Acquire));
        let r = std::thread::Builder::new()
            .name("apex-ports".into())
            .spawn(move || self.port_thread(rt, prio));
        if let Err(e) = r {
            eprintln!(
                "partita runtime: no port thread ({e}): blocked port services only end by time-out"
            );
        }
    }

    fn port_thread(&'static self, rt: &'static Runtime, prio: i32) {
        if prio > 0 {
            // A raise may go through the manager (crate::raise).
            let _ = crate::raise::set_priority(rt.control(), 0, prio + 1);
        }
        let mut guards: Vec<WakeGuard> =
            self.created.iter().map(|_| WakeGuard::default()).collect();
        let mut words: Vec<(&AtomicU32, u32, bool)> = Vec::new();
        let mut owners: Vec<usize> = Vec::new();
        loop {
            let gen = self.rearm.load(Ordering::SeqCst);
            // Flags first (inside pump), then the values to wait on: a peer that publishes
            // after these loads changes the word, and the wait returns at once.
            rt.with_kernel(|k, now| self.pump(k, now));
            let now = partita_sys::time::monotonic_ns();
            words.clear();
            owners.clear();
            words.push((&self.rearm, gen, false));
            owners.push(usize::MAX);
            // Only ports a process of ours waits on (a process that starts waiting re-arms
            // this thread); a muted one is polled instead.
            let mut poll: Option<u64> = None;
            for (i, c) in self.created.iter().enumerate() {
                if let Some(Port::Queuing(q)) = c.get() {
                    if q.waiting.load(Ordering::Acquire) == 0 {
                        continue;
                    }
                    if guards[i].muted(now) {
                        let at = guards[i].next_poll(now);
                        poll = Some(poll.map_or(at, |p| p.min(at)));
                        continue;
                    }
                    let w = if q.entry.source {
                        q.mem.tail_word()
                    } else {
                        q.mem.head_word()
                    };
                    words.push((w, w.load(Ordering::SeqCst), true));
                    owners.push(i);
                }
            }
            rt.with_kernel(|k, now| self.pump(k, now));
            // More words than futex_waitv takes: those are polled every millisecond; a muted
            // port at its own pace.
            let deadline = if words.len() > partita_sys::futex::WAIT_ANY_MAX {
                Some(poll.map_or(now + POLL_NS, |p| p.min(now + POLL_NS)))
            } else {
                poll
            };
            match partita_sys::futex::wait_any(&words, deadline) {
                Ok(Some(k)) if k > 0 && k < words.len() => {
                    // Woken through a peer's word that did not move: no message came and none
                    // left. An honest peer wakes only after it moved the word; a hostile one
                    // can wake us at will, so it gets a budget.
                    let (w, seen, _) = words[k];
                    if w.load(Ordering::SeqCst) == seen {
                        let i = owners[k];
                        if guards[i].spurious(partita_sys::time::monotonic_ns()) {
                            self.note_muted(i);
                        }
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    eprintln!("partita runtime: port thread: {e}; polling instead");
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            }
        }
    }

    /// Says once per port that its peer's wake-ups are throttled.
    #[cold]
    fn note_muted(&self, i: usize) {
        static SAID: std::sync::Mutex<Vec<usize>> = std::sync::Mutex::new(Vec::new());
        let mut said = SAID.lock().unwrap_or_else(|e| e.into_inner());
        if said.contains(&i) {
            return;
        }
        said.push(i);
        if let Some(e) = self.entries.get(i) {
            eprintln!(
                "partita runtime: port {}: its peer woke the port thread more than {SPURIOUS_BUDGET} times in 1 ms without moving a message; the port is polled every millisecond while that lasts",
                e.name
            );
        }
    }

    /// Completes every waiter whose operation can proceed. Kernel locked.
    pub fn pump(&self, k: &mut Kernel, now: SystemTime) {
        for c in &self.created {
            if let Some(Port::Queuing(q)) = c.get() {
                q.pump(k, now);
            }
        }
    }
}

impl QueuingPort {
    /// Moves messages for this port's waiters (kernel locked). Sets or clears the waiting
    /// flag the peer checks before it wakes us.
    pub fn pump(&self, k: &mut Kernel, now: SystemTime) {
        let w = self.waiters;
        if k.port_waiting(w) > 0 {
            self.set_flag(true);
        }
        if self.entry.source {
            while let Some(msg) = k.port_head_message(w) {
                if !self.push(msg) {
                    break;
                }
                k.port_complete_send(now, w);
            }
        } else {
            let mut buf = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
            while k.port_waiting(w) > 0 {
                let Some(p) = self.pop(&mut buf) else {
                    break;
                };
                k.port_complete_receive(now, w, &buf[..p.len], p.overflow);
            }
        }
        let n = k.port_waiting(w) as u32;
        self.waiting.store(n, Ordering::Release);
        if n == 0 {
            self.set_flag(false);
        }
    }

    /// Appends a message (source port); `false` when the queue is full.
    pub fn push(&self, msg: &[u8]) -> bool {
        let _g = self.lock.lock();
        self.mem.push(msg)
    }

    /// Removes the oldest message (destination port).
    pub fn pop(&self, out: &mut [u8]) -> Option<partita_sys::port::Popped> {
        let _g = self.lock.lock();
        self.mem.pop(out)
    }

    /// Discards every message (destination port).
    pub fn clear(&self) -> usize {
        let _g = self.lock.lock();
        self.mem.clear()
    }

    fn set_flag(&self, on: bool) {
        if self.entry.source {
            self.mem.set_tx_waiting(on);
        } else {
            self.mem.set_rx_waiting(on);
        }
    }
}

fn name_matches(configured: &str, name: &Name) -> bool {
    let n = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    configured.as_bytes() == &name[..n]
}

/// Why the port directory the manager passed could not be read.
#[derive(Debug, thiserror::Error)]
enum DirectoryError {
    /// Its descriptor could not be mapped.
    #[error("directory: {0}")]
    Map(#[from] partita_sys::SysError),
    /// It is not UTF-8 text.
    #[error("directory is not text")]
    NotText,
    /// Its text does not decode.
    #[error(transparent)]
    Decode(#[from] port_dir::DirectoryError),
}

fn read_directory(fd: i32) -> Result<Vec<PortEntry>, DirectoryError> {
    let m = shm::map_inherited(fd, false, 1)?;
    let bytes: Vec<u8> = m
        .words()
        .iter()
        .flat_map(|w| w.load(Ordering::Relaxed).to_le_bytes())
        .take_while(|&b| b != 0)
        .collect();
    let text = String::from_utf8(bytes).map_err(|_| DirectoryError::NotText)?;
    Ok(port_dir::decode(&text)?)
}

/// Maps inherited port descriptor `fd` (read-write when `writable`).
fn map(fd: i32, writable: bool, min: usize) -> Result<partita_sys::shm::SharedMapping, ReturnCode> {
    shm::map_inherited(fd, writable, min).map_err(|e| {
        eprintln!("partita runtime: port memory (descriptor {fd}): {e}");
        ReturnCode::InvalidConfig
    })
}

/// CREATE_SAMPLING_PORT.
pub(crate) fn create_sampling(
    name: &Name,
    max_message_size: usize,
    source: bool,
    refresh: SystemTime,
) -> Result<i32, ReturnCode> {
    let t = table();
    t.create(
        name,
        true,
        |e| {
            let refresh_ok = refresh == INFINITE_TIME_VALUE && e.refresh_ns.is_none()
                || refresh >= 0 && e.refresh_ns.is_none_or(|r| r == refresh);
            if e.max_message_size as usize != max_message_size || e.source != source || !refresh_ok
            {
                return Err(ReturnCode::InvalidConfig);
            }
            Ok(())
        },
        |e| {
            let max = e.max_message_size as usize;
            let m = map(e.data_fd, e.source, shm::sampling_len(max))?;
            let mem = Sampling::new(m, max).map_err(|_| ReturnCode::InvalidConfig)?;
            Ok(Port::Sampling(SamplingPort {
                entry: e.clone(),
                refresh: e.refresh_ns.unwrap_or(refresh),
                mem,
                last_read: AtomicU64::new(0),
                last_valid: AtomicBool::new(false),
                lock: EndLock::default(),
            }))
        },
    )
}

/// CREATE_QUEUING_PORT.
pub(crate) fn create_queuing(
    name: &Name,
    max_message_size: usize,
    max_nb_message: usize,
    source: bool,
    discipline: QueuingDiscipline,
) -> Result<i32, ReturnCode> {
    let t = table();
    let rt = runtime::get()?;
    let id = t.create(
        name,
        false,
        |e| {
            if e.max_message_size as usize != max_message_size
                || e.capacity as usize != max_nb_message
                || e.source != source
            {
                return Err(ReturnCode::InvalidConfig);
            }
            Ok(())
        },
        |e| {
            let max = e.max_message_size as usize;
            let cap = e.capacity as usize;
            let state_fd = e.state_fd.ok_or(ReturnCode::InvalidConfig)?;
            let data = map(e.data_fd, e.source, shm::queue_len(max, cap))?;
            let state = map(state_fd, !e.source, shm::READ_STATE_LEN)?;
            let mem = Queue::new(data, state, max, cap).map_err(|_| ReturnCode::InvalidConfig)?;
            let kind = if e.source {
                PortWaitKind::Send
            } else {
                PortWaitKind::Receive
            };
            let waiters = rt.lock().create_port_waiters(kind, discipline, max);
            // Our own flag starts clear (a previous incarnation may have left it set).
            if e.source {
                mem.set_tx_waiting(false);
            } else {
                mem.set_rx_waiting(false);
            }
            Ok(Port::Queuing(QueuingPort {
                entry: e.clone(),
                mem,
                waiters,
                waiting: AtomicU32::new(0),
                scratch: Mutex::new(vec![0; max]),
                lock: EndLock::default(),
            }))
        },
    )?;
    t.rearm(rt);
    Ok(id)
}

/// Whether a message written at `time` is within the port's refresh period at `now` (a
/// negative refresh period, i.e. infinite, keeps every message valid).
pub(crate) fn is_fresh(p: &SamplingPort, time: SystemTime, now: SystemTime) -> bool {
    p.refresh < 0 || now.saturating_sub(time) <= p.refresh
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn an_honest_rate_of_stray_wake_ups_never_mutes_a_port() {
        let mut g = WakeGuard::default();
        // Four in every millisecond, forever.
        for ms in 0..1000u64 {
            for k in 0..SPURIOUS_BUDGET as u64 {
                assert!(!g.spurious(ms * MS + k * 1_000), "muted at {ms} ms");
            }
            assert!(!g.muted(ms * MS + 999_999));
        }
    }

    #[test]
    fn a_flood_mutes_the_port_longer_at_each_offence_and_is_forgiven_later() {
        let mut g = WakeGuard::default();
        let mut now = 10 * MS;
        let mut mutes = Vec::new();
        // A wake-up every µs whenever the port is watched, for 300 ms.
        let end = now + 300 * MS;
        let mut wakes = 0;
        while now < end {
            if !g.muted(now) {
                wakes += 1;
                if g.spurious(now) {
                    mutes.push(g.muted_until - now);
                }
            }
            now += 1_000;
        }
        assert_eq!(
            mutes[..7],
            [MS, 2 * MS, 4 * MS, 8 * MS, 16 * MS, 32 * MS, 64 * MS]
        );
        // Polled every quarter of the mute, 1 to 16 ms, never past its end.
        let at = g.muted_until - 64 * MS;
        assert_eq!(g.next_poll(at), at + 16 * MS);
        assert_eq!(g.next_poll(g.muted_until - MS), g.muted_until);
        assert!(mutes[7..].iter().all(|&m| m == 64 * MS), "{mutes:?}");
        // 5 wake-ups per mute: a few dozen in 300 ms instead of 300,000.
        assert!(wakes <= 5 * mutes.len() + 5, "{wakes} wake-ups");
        // Quiet for longer than the longest mute: the next offence starts over at 1 ms.
        now = g.muted_until + MUTE_MAX_NS + MS;
        for _ in 0..SPURIOUS_BUDGET {
            assert!(!g.spurious(now));
        }
        assert!(g.spurious(now));
        assert_eq!(g.muted_until - now, MS);
    }
}
