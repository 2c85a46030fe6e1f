// SPDX-License-Identifier: MIT OR Apache-2.0
//! Linux system wrappers for Partita.
//!
//! Every `unsafe` block of the project lives in this crate (or in the `ffi` module of the
//! partition runtime, which exports the C binding), each with a `SAFETY` comment. The rest of
//! the workspace calls these safe functions. Raw `libc` is used rather than a higher-level crate
//! where the code must stay async-signal-safe (the child side of `spawn`, the `guard`
//! process), and for the few calls (futex, `clone`, `clock_nanosleep`) where a thin wrapper is
//! the clearest.
//!
//! # Which side uses what
//!
//! Two kinds of program link this crate: the partition manager (privileged, the `partita`
//! command) and the partition runtime (inside every partition process). Neither should carry
//! the other's code, so the wrappers only one side calls are behind a cargo feature, and each
//! crate of the workspace enables the side it is on (both are on by default, for this crate's
//! own tests):
//!
//! | module | side | why |
//! |---|---|---|
//! | [`control`] | both | the control block: the manager fills it in, the runtime maps it |
//! | [`port`] | both | channel memory: the manager creates and initialises it, the runtime reads and writes messages |
//! | [`port_dir`] | both | the port directory: encoded by the manager, decoded by the runtime |
//! | [`shm`] | both | the memfd mappings of the control block and the ports |
//! | [`futex`] | both | waits on shared words (mode changes, queues) |
//! | [`time`] | both | one clock for the module epoch, window starts and APEX time |
//! | [`trace`] | both | trace rings: the manager creates them, a partition's runtime records into its own |
//! | [`sched`] | both | real-time priorities and affinity of the manager's threads and the runtime's |
//! | [`seccomp`] | both | the allow-list: the manager compiles it into the filter (`host` only: `seccomp::compile`), the runtime names the calls it refused |
//! | [`alloc_meter`] | both (neither side's) | the fuzz harness's counting allocator |
//! | `cgroup` | `host` | the partitions' cgroups and the freezer |
//! | `spawn` | `host` | starting a partition process |
//! | `guard` | `host` | the clean-up process that outlives the manager |
//! | `creation` | `host` | answering the partitions' task creations |
//! | `isolation` | `host` | the partitions' uids and gids, capability checks |
//! | `kvm` | `kvm` (with `host`) | virtual machines, vCPUs and the kick, for the KVM monitor `partita-kvm` |
//! | `proc` | `host` | signals to, and the end of, the partition processes; signal masks |
//! | `fault` | `partition` | turning hardware faults and refused calls into health-monitor errors |
//! | `escape` | `partition` | STOP_SELF: back from application code to the top of the thread's loop |
//! | `stack` | `partition` | giving back the stack of an abandoned APEX thread |
//! | `startup` | `partition` | taking over the descriptors the manager passed on; line-buffered stdout |
//! | `symbol` | `partition` | finding the partition's entry function in its own executable |

pub mod alloc_meter;
#[cfg(feature = "host")]
pub mod cgroup;
pub mod control;
#[cfg(feature = "host")]
pub mod creation;
#[cfg(all(feature = "partition", target_arch = "x86_64"))]
pub mod escape;
#[cfg(all(feature = "partition", not(target_arch = "x86_64")))]
#[path = "escape_portable.rs"]
pub mod escape;
#[cfg(feature = "partition")]
pub mod fault;
pub mod futex;
#[cfg(feature = "host")]
pub mod guard;
#[cfg(feature = "host")]
pub mod isolation;
#[cfg(feature = "kvm")]
pub mod kvm;
pub mod port;
pub mod port_dir;
#[cfg(feature = "host")]
pub mod proc;
pub mod sched;
pub mod seccomp;
pub mod shm;
#[cfg(feature = "host")]
pub mod spawn;
#[cfg(feature = "partition")]
pub mod stack;
#[cfg(feature = "partition")]
pub mod startup;
#[cfg(feature = "partition")]
pub mod symbol;
pub mod time;
pub mod trace;

use std::io;

/// A failed system call: which one, and the OS error.
#[derive(Debug, thiserror::Error)]
#[error("{call}: {source}")]
pub struct SysError {
    /// The call or operation that failed (with its main argument, e.g. a path).
    pub call: String,
    /// The OS error.
    #[source]
    pub source: io::Error,
}

impl SysError {
    /// Wraps the current `errno` for `call`.
    pub fn last(call: impl Into<String>) -> Self {
        SysError {
            call: call.into(),
            source: io::Error::last_os_error(),
        }
    }

    /// Wraps an `io::Error` for `call`.
    pub fn io(call: impl Into<String>, source: io::Error) -> Self {
        SysError {
            call: call.into(),
            source,
        }
    }

    /// The raw OS error number, if any.
    pub fn errno(&self) -> Option<i32> {
        self.source.raw_os_error()
    }
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, SysError>;

/// Converts a `-1`-on-error return value into a `Result`.
fn check(ret: libc::c_int, call: &str) -> Result<libc::c_int> {
    if ret == -1 {
        Err(SysError::last(call))
    } else {
        Ok(ret)
    }
}
