// SPDX-License-Identifier: MIT OR Apache-2.0
//! Intra-partition communication services (ARINC 653 Part 1, 3.7).

mod blackboard;
mod buffer;
mod event;
mod mutex;
mod semaphore;

pub use blackboard::*;
pub use buffer::*;
pub use event::*;
pub use mutex::*;
pub use semaphore::*;
