// SPDX-License-Identifier: MIT OR Apache-2.0
//! ARINC 653 Part 2 services (module schedules), the system-partition extension and the
//! application trace streams.

mod schedules;
mod system;
mod trace;

pub use schedules::*;
pub use system::*;
pub use trace::*;
