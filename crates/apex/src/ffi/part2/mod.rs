// SPDX-License-Identifier: MIT OR Apache-2.0
//! ARINC 653 Part 2 services (module schedules) and the system-partition extension.

mod schedules;
mod system;

pub use schedules::*;
pub use system::*;
