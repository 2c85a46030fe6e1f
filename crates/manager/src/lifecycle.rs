// SPDX-License-Identifier: MIT OR Apache-2.0
//! A partition's life cycle as the health monitor and the output thread see it.
//!
//! `partition` owns the life cycle (it spawns, kills and reaps the process; the supervisor
//! carries out restarts); the health monitor, the extension-service mailbox and the output
//! thread only read a partition's published state and ask for a [`Change`] through the
//! narrow [`LifeCycle`] interface, which `partition::Partition` implements.

use partita_abi::control::Mailbox;
use partita_abi::{DecodeError, OperatingMode, StartCondition};

/// Life-cycle state of a partition process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Life {
    /// Process exists and is scheduled in its windows.
    Live,
    /// Waiting for the supervisor to restart it (COLD_START / WARM_START requested).
    RestartPending(OperatingMode),
    /// IDLE: not scheduled any more.
    Idle,
    /// The process ended on its own.
    Dead,
}

impl Life {
    /// The operating mode the manager reports for a partition in this state, given the mode
    /// it publishes (read only while it lives); an error when that is not a mode.
    pub fn reported_mode(
        self,
        published: impl FnOnce() -> Result<OperatingMode, DecodeError>,
    ) -> Result<OperatingMode, DecodeError> {
        match self {
            Life::Idle | Life::Dead => Ok(OperatingMode::Idle),
            Life::RestartPending(m) => Ok(m),
            Life::Live => published(),
        }
    }
}

/// A life-cycle change the health monitor or a system partition asks for; the supervisor
/// carries it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    /// Stop scheduling it (IDLE).
    Idle,
    /// Restart it in `mode`, released at its next window with `condition`.
    Restart {
        /// COLD_START or WARM_START.
        mode: OperatingMode,
        /// The start condition its new incarnation is given.
        condition: StartCondition,
    },
}

/// What GET_A_PARTITION_STATUS reports of a partition, read at one instant.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Status {
    /// The operating mode reported ([`Life::reported_mode`]).
    pub mode: Result<OperatingMode, DecodeError>,
    /// Its period and duration in the initial schedule (ns).
    pub period: u64,
    pub duration: u64,
    pub lock_level: i32,
    pub start_condition: StartCondition,
    pub cores: u32,
    pub restarts: u32,
    pub windows: u64,
    /// Whether its Linux process exists.
    pub has_process: bool,
}

/// One partition as the health monitor, the mailbox and the output thread use it.
pub(crate) trait LifeCycle {
    /// Its configured name.
    fn name(&self) -> &str;
    /// Its `PartitionIdentifier`.
    fn id(&self) -> i32;
    /// Whether it is a system partition (`SystemPartition`).
    fn is_system(&self) -> bool;
    /// The operating mode it publishes in its control block (untrusted).
    fn published_mode(&self) -> Result<OperatingMode, DecodeError>;
    /// Its incarnation: the number of restarts so far.
    fn incarnation(&self) -> u32;
    /// Under its lock, `decide` sees its life-cycle state and reported mode and may ask for a
    /// change; returns whether one was made.
    fn change(
        &self,
        decide: &mut dyn FnMut(Life, Result<OperatingMode, DecodeError>) -> Option<Change>,
    ) -> bool;
    /// Its status for GET_A_PARTITION_STATUS.
    fn status(&self) -> Status;
    /// Its extension-service mailbox (untrusted).
    fn mailbox(&self) -> &Mailbox;
    /// Its executable could not be started (`error`).
    fn exec_failed(&self, error: String);
}
