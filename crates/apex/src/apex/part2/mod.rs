// SPDX-License-Identifier: MIT OR Apache-2.0
//! ARINC 653 Part 2 services and Partita's extensions in the same style.
//!
//! - [`schedules`]: multiple module schedules (SET_MODULE_SCHEDULE, GET_MODULE_SCHEDULE_STATUS,
//!   GET_MODULE_SCHEDULE_ID).
//! - [`memory_blocks`]: memory blocks (GET_MEMORY_BLOCK_STATUS).
//! - [`system`]: the system-partition services (GET_A_PARTITION_STATUS, SET_A_PARTITION_MODE,
//!   GET_HM_LOG_STATUS, READ_HM_LOG), a Partita extension.
//! - [`trace`]: application trace streams (PARTITA_TRACE_EVENT), a Partita extension.
//!
//! The Part 2 sampling extensions (READ_UPDATED_SAMPLING_MESSAGE,
//! READ_SAMPLING_MESSAGE_CONDITIONAL, GET_SAMPLING_PORT_CURRENT_STATUS) are in
//! [`crate::apex::inter::sampling`], next to the Part 1 services they extend.

pub mod memory_blocks;
pub mod schedules;
pub mod system;
pub mod trace;
