// SPDX-License-Identifier: MIT OR Apache-2.0
//! ARINC 653 Part 2 services (module schedules, memory blocks), the system-partition extension
//! and the application trace streams.

mod memory_blocks;
mod schedules;
mod system;
mod trace;

pub use memory_blocks::*;
pub use schedules::*;
pub use system::*;
pub use trace::*;
