// SPDX-License-Identifier: MIT OR Apache-2.0
//! Partition-switch backends: how a partition is held outside its windows.

use crate::host::HostInfo;
use crate::ManagerError;
use partita_sys::cgroup::{Freezer, FreezerKind};
use serde::Serialize;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

/// A backend as requested by the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BackendChoice {
    /// The best the host offers.
    #[default]
    Auto,
    /// SIGSTOP / SIGCONT.
    Signals,
    /// cgroup freezer, the best flavour the host offers.
    Freezer,
    /// cgroup v1 freezer.
    FreezerV1,
    /// cgroup v2 `cgroup.freeze`.
    FreezerV2,
}

/// A backend name [`BackendChoice`] does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown backend `{name}` (auto, signals, freezer, freezer-v1, freezer-v2){later}", name = .0, later = not_yet(.0))]
pub struct UnknownBackend(pub String);

/// What the message adds for a backend that is planned but not there yet.
fn not_yet(name: &str) -> &'static str {
    match name {
        "kvm" => {
            ": partitions as KVM guests are not wired to the scheduler yet (the monitor, \
             partita-kvm, runs in its tests and `partita bench kvm`; docs/kvm.md)"
        }
        _ => "",
    }
}

impl std::str::FromStr for BackendChoice {
    type Err = UnknownBackend;
    fn from_str(s: &str) -> Result<Self, UnknownBackend> {
        Ok(match s {
            "auto" => BackendChoice::Auto,
            "signals" => BackendChoice::Signals,
            "freezer" => BackendChoice::Freezer,
            "freezer-v1" => BackendChoice::FreezerV1,
            "freezer-v2" => BackendChoice::FreezerV2,
            _ => return Err(UnknownBackend(s.to_string())),
        })
    }
}

/// The backend a run uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Backend {
    /// User-level design: SIGSTOP/SIGCONT to every process of the partition.
    Signals,
    /// Kernel-enforced: cgroup v1 freezer.
    FreezerV1,
    /// Kernel-enforced: cgroup v2 `cgroup.freeze`.
    FreezerV2,
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Backend::Signals => "signals",
            Backend::FreezerV1 => "freezer-v1",
            Backend::FreezerV2 => "freezer-v2",
        })
    }
}

impl Backend {
    /// Resolves a choice against the host. `Auto` and `Freezer` prefer the v1 freezer: with
    /// Partita's runtime it costs the same for 1 or 64 APEX processes, whereas v2
    /// `cgroup.freeze` wakes every thread of the partition (see "The partition switch" in CAVEATS.md).
    pub fn resolve(choice: BackendChoice, host: &HostInfo) -> Result<Backend, ManagerError> {
        let unavailable = |b: &str, r: &str| ManagerError::BackendUnavailable {
            backend: b.into(),
            reason: r.into(),
        };
        let need_root = |b: &str| -> Result<(), ManagerError> {
            if host.root {
                Ok(())
            } else {
                Err(unavailable(b, "cgroups need root"))
            }
        };
        match choice {
            BackendChoice::Signals => Ok(Backend::Signals),
            BackendChoice::FreezerV1 => {
                need_root("freezer-v1")?;
                if host.freezer_v1 {
                    Ok(Backend::FreezerV1)
                } else {
                    Err(unavailable("freezer-v1", "no cgroup v1 freezer mounted"))
                }
            }
            BackendChoice::FreezerV2 => {
                need_root("freezer-v2")?;
                if host.cgroup_v2 {
                    Ok(Backend::FreezerV2)
                } else {
                    Err(unavailable("freezer-v2", "no cgroup v2 hierarchy mounted"))
                }
            }
            BackendChoice::Freezer | BackendChoice::Auto => {
                if host.root && host.freezer_v1 {
                    Ok(Backend::FreezerV1)
                } else if host.root && host.cgroup_v2 {
                    Ok(Backend::FreezerV2)
                } else if choice == BackendChoice::Auto {
                    Ok(Backend::Signals)
                } else {
                    Err(unavailable(
                        "freezer",
                        "no usable cgroup freezer (root and a freezer hierarchy are needed)",
                    ))
                }
            }
        }
    }
}

/// The per-partition switch handle.
#[derive(Debug)]
pub(crate) enum Switch {
    /// Freeze/thaw a cgroup.
    Freezer(Freezer),
    /// SIGSTOP/SIGCONT every process of the partition: its process group, or every process
    /// listed in a `cgroup.procs` file (or only the main PID).
    Signals {
        procs: Option<PathBuf>,
        main_pid: i32,
        /// Every process of the partition stays in the process group of its main process
        /// (`setsid` before `execve`; the seccomp filter refuses `setsid` and `setpgid`): one
        /// `kill(-pgid)` reaches them all, without reading `cgroup.procs` (~10 us) and one
        /// system call per process.
        group: bool,
        /// The main process was reaped: its pid, and with it the group id once its other
        /// processes are gone, may name someone else's processes; the cgroup walk is used.
        leader_reaped: std::sync::atomic::AtomicBool,
        /// The processes the last stop reached. No process of the partition can fork while
        /// they are all stopped, so the following SIGCONT goes to this list without reading
        /// `cgroup.procs` again.
        stopped: std::sync::Mutex<Vec<i32>>,
    },
}

impl Switch {
    /// The signals switch of a partition whose main process is `main_pid`; `group`: its
    /// processes cannot leave its process group.
    pub(crate) fn signals(procs: Option<PathBuf>, main_pid: i32, group: bool) -> Switch {
        Switch::Signals {
            procs,
            main_pid,
            group,
            leader_reaped: std::sync::atomic::AtomicBool::new(false),
            stopped: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// The partition's main process was reaped (its pid may be reused).
    pub(crate) fn leader_reaped(&self) {
        if let Switch::Signals { leader_reaped, .. } = self {
            leader_reaped.store(true, std::sync::atomic::Ordering::Release);
        }
    }

    /// Whether the signals go to the process group.
    fn by_group(&self) -> bool {
        matches!(self, Switch::Signals { group: true, leader_reaped, .. }
            if !leader_reaped.load(std::sync::atomic::Ordering::Acquire))
    }

    /// Holds the partition.
    pub(crate) fn stop(&self) -> partita_sys::Result<()> {
        match self {
            Switch::Freezer(f) => f.freeze(),
            Switch::Signals { main_pid, .. } if self.by_group() => {
                // The main thread first (see signal_one), then the whole group.
                partita_sys::proc::tgkill(*main_pid, *main_pid, libc_sig::SIGSTOP)?;
                partita_sys::proc::kill(-*main_pid, libc_sig::SIGSTOP)
            }
            Switch::Signals {
                procs,
                main_pid,
                stopped,
                ..
            } => {
                let mut list = stopped.lock().unwrap_or_else(|e| e.into_inner());
                list.clear();
                signal_all(procs.as_ref(), *main_pid, libc_sig::SIGSTOP, &mut list)
            }
        }
    }

    /// Whether [`Switch::is_frozen`] can tell (a freezer), without asking it.
    pub(crate) fn tells_frozen(&self) -> bool {
        matches!(self, Switch::Freezer(_))
    }

    /// Whether every task of the partition is held now; `None` when the backend cannot tell
    /// cheaply (signals).
    pub(crate) fn is_frozen(&self) -> Option<bool> {
        match self {
            Switch::Freezer(f) => Some(f.is_frozen()),
            Switch::Signals { .. } => None,
        }
    }

    /// Lets the partition run.
    pub(crate) fn resume(&self) -> partita_sys::Result<()> {
        match self {
            Switch::Freezer(f) => f.thaw(),
            Switch::Signals { main_pid, .. } if self.by_group() => {
                partita_sys::proc::kill(-*main_pid, libc_sig::SIGCONT)
            }
            Switch::Signals {
                procs,
                main_pid,
                stopped,
                ..
            } => {
                let mut list = stopped.lock().unwrap_or_else(|e| e.into_inner());
                if list.is_empty() {
                    return signal_all(procs.as_ref(), *main_pid, libc_sig::SIGCONT, &mut list);
                }
                for &pid in list.iter() {
                    signal_one(pid, libc_sig::SIGCONT)?;
                }
                Ok(())
            }
        }
    }
}

/// Signal numbers used here (re-exported so this module needs no libc dependency).
mod libc_sig {
    pub const SIGSTOP: i32 = 19;
    pub const SIGCONT: i32 = 18;
}

/// Signals one process. A stop is sent both to its main thread (`tgkill` always wakes that
/// thread, which then stops the whole group) and to the process (in case the main thread has
/// exited): a process-directed SIGSTOP alone was seen to be left pending, unnoticed by a
/// spinning thread, until the next SIGCONT cancelled it.
fn signal_one(pid: i32, sig: i32) -> partita_sys::Result<()> {
    if sig == libc_sig::SIGSTOP {
        partita_sys::proc::tgkill(pid, pid, sig)?;
    }
    partita_sys::proc::kill(pid, sig)
}

/// Signals every process listed in `procs` (or `main_pid` alone), recording whom in `reached`.
fn signal_all(
    procs: Option<&PathBuf>,
    main_pid: i32,
    sig: i32,
    reached: &mut Vec<i32>,
) -> partita_sys::Result<()> {
    let Some(path) = procs else {
        reached.push(main_pid);
        return signal_one(main_pid, sig);
    };
    // Opened afresh each time: a `cgroup.procs` descriptor re-read from offset 0 keeps
    // returning the list as it was at open time, which would miss processes forked since.
    let f = File::open(path).map_err(|e| partita_sys::SysError::io("open cgroup.procs", e))?;
    // One pread of cgroup.procs; PIDs are short, 16 KiB holds about 2,000 of them. A longer
    // list is read on.
    let mut buf = [0u8; 16384];
    let mut off = 0u64;
    let mut carry: i64 = -1;
    loop {
        let n = f
            .read_at(&mut buf, off)
            .map_err(|e| partita_sys::SysError::io("read cgroup.procs", e))?;
        if n == 0 {
            break;
        }
        for &c in &buf[..n] {
            if c.is_ascii_digit() {
                carry = carry.max(0) * 10 + (c - b'0') as i64;
            } else if carry >= 0 {
                reached.push(carry as i32);
                signal_one(carry as i32, sig)?;
                carry = -1;
            }
        }
        off += n as u64;
    }
    if carry >= 0 {
        reached.push(carry as i32);
        signal_one(carry as i32, sig)?;
    }
    Ok(())
}

/// Which freezer kind a backend drives.
pub(crate) fn freezer_kind(b: Backend) -> Option<FreezerKind> {
    match b {
        Backend::Signals => None,
        Backend::FreezerV1 => Some(FreezerKind::V1),
        Backend::FreezerV2 => Some(FreezerKind::V2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_names_parse_and_unknown_ones_are_a_typed_error() {
        assert_eq!("freezer-v1".parse(), Ok(BackendChoice::FreezerV1));
        assert_eq!("auto".parse(), Ok(BackendChoice::Auto));
        let e = "freezer-v3".parse::<BackendChoice>().unwrap_err();
        assert_eq!(e, UnknownBackend("freezer-v3".into()));
        assert!(e.to_string().contains("unknown backend `freezer-v3`"));
        assert!(!e.to_string().contains("KVM"));
        let kvm = "kvm".parse::<BackendChoice>().unwrap_err();
        assert!(
            kvm.to_string().contains("not wired to the scheduler yet"),
            "{kvm}"
        );
    }
}
