// SPDX-License-Identifier: MIT OR Apache-2.0
//! Linux system wrappers for Partita.
//!
//! Every `unsafe` block of the project lives in this crate (or in the `ffi` module of the
//! partition runtime, which exports the C binding), each with a `SAFETY` comment. The rest of
//! the workspace calls these safe functions. Raw `libc` is used rather than a higher-level crate
//! where the code must stay async-signal-safe (the child side of [`spawn`], the [`guard`]
//! process), and for the few calls (futex, `clone`, `clock_nanosleep`) where a thin wrapper is
//! the clearest.

pub mod alloc_meter;
pub mod cgroup;
pub mod control;
pub mod creation;
pub mod fault;
pub mod futex;
pub mod guard;
pub mod isolation;
pub mod port;
pub mod port_dir;
pub mod proc;
pub mod sched;
pub mod seccomp;
pub mod shm;
pub mod spawn;
pub mod stack;
pub mod symbol;
pub mod time;

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
