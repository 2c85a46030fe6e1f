// SPDX-License-Identifier: MIT OR Apache-2.0
//! The partition control block in shared memory. Its layout, constants and the mailbox
//! records are defined in [`partita_abi::control`] and [`partita_abi::mailbox`] (re-exported
//! here); this module declares the block fit for a shared mapping.

use crate::shm::SharedPod;

pub use partita_abi::control::*;
pub use partita_abi::mailbox;

// SAFETY: ControlBlock is #[repr(C)] and made only of atomics, which are valid for every bit
// pattern and may be shared between threads and processes.
unsafe impl SharedPod for ControlBlock {}
