//! OS-independent APEX (ARINC 653 Part 1) scheduling core of a Partita
//! partition.
//!
//! [`Kernel`] is a pure state machine: it owns no thread, no clock and no
//! OS resource. Every mutating service receives the current time `now`
//! (nanoseconds, `SYSTEM_TIME_TYPE`) and the calling [`Runner`]. The glue
//! layer keeps one kernel per partition behind a lock and, after each call:
//!
//! * asks [`Kernel::running`] who must execute on every core and parks/wakes
//!   threads accordingly;
//! * arms its timer for [`Kernel::next_event_time`] and calls
//!   [`Kernel::advance`] when it expires;
//! * drains [`Kernel::drain_effects`] (deadline misses for the health
//!   monitor, restart/idle requests, process start/stop notifications).
//!
//! A service that blocks its caller returns [`CallOutcome::Blocked`]; when
//! the process is chosen to run again the glue fetches the outcome with
//! [`Kernel::take_wake_result`] or [`Kernel::take_wake_message`].
//!
//! Identifiers (`ProcessId`, `SemaphoreId`, ...) are 1-based indices in
//! creation order.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod blackboard;
mod buffer;
mod event;
mod kernel;
mod mutex;
mod partition;
mod process;
mod queue;
mod semaphore;
mod time;
mod types;

pub use blackboard::{BlackboardStatus, EmptyIndicator};
pub use buffer::BufferStatus;
pub use event::{EventState, EventStatus};
pub use kernel::Kernel;
pub use mutex::{MutexOwnership, MutexState, MutexStatus};
pub use semaphore::SemaphoreStatus;
pub use types::*;
