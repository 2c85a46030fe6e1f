// SPDX-License-Identifier: MIT OR Apache-2.0
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
//! * drains [`Kernel::drain_effects`] (deadline misses, errors for the
//!   partition-level health monitor, restart/idle requests, process and
//!   error handler start/stop notifications).
//!
//! A service that blocks its caller returns [`CallOutcome::Blocked`]; when
//! the process is chosen to run again the glue fetches the outcome with
//! [`Kernel::take_wake_result`] or [`Kernel::take_wake_message`].
//!
//! Identifiers (`ProcessId`, `SemaphoreId`, ...) are 1-based indices in
//! creation order.
//!
//! # Health monitoring
//!
//! The partition may create an error handler (CREATE_ERROR_HANDLER,
//! CONFIGURE_ERROR_HANDLER). It is a special process with no `ProcessId`,
//! designated as [`Runner::ErrorHandler`] by [`Kernel::running`] and as
//! caller: the glue maps it to its own thread, started at its entry point on
//! [`Effect::ErrorHandlerStarted`] and abandoned on
//! [`Effect::ErrorHandlerStopped`]. Errors of processes in NORMAL mode
//! (RAISE_APPLICATION_ERROR, deadline misses, faults the glue injects with
//! [`Kernel::raise_error`]) are queued to it, oldest first, and make it
//! READY above every process and even above the preemption lock; it reads
//! them with GET_ERROR_STATUS and finishes with STOP_SELF. Errors not
//! handled at this level (no handler, initialisation, the main process or
//! the handler itself failed, queue full) come out as
//! [`Effect::PartitionError`] for the health monitor. A deadline miss
//! always also yields [`Effect::DeadlineMissed`]; the glue reports it at
//! partition level only when [`Kernel::has_error_handler`] is false.

#![no_std]

// The kernel allocates (process tables, message buffers, queues) but needs nothing of an OS:
// `alloc` only, so the same kernel runs in the Linux runtime and inside a freestanding KVM
// guest. The unit tests use std.
extern crate alloc;
#[cfg(test)]
extern crate std;

mod blackboard;
mod buffer;
mod event;
mod hm;
mod kernel;
mod mutex;
mod partition;
mod ports;
mod process;
mod queue;
mod schedule;
mod semaphore;
mod time;
mod trace;
mod types;

pub use blackboard::{BlackboardStatus, EmptyIndicator};
pub use buffer::BufferStatus;
pub use event::{EventState, EventStatus};
pub use kernel::Kernel;
pub use mutex::{MutexOwnership, MutexState, MutexStatus};
pub use ports::{PortWaitId, PortWaitKind};
pub use semaphore::SemaphoreStatus;
pub use trace::TraceSink;
pub use types::*;
