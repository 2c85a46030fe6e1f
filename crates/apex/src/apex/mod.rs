// SPDX-License-Identifier: MIT OR Apache-2.0
//! The safe Rust APEX API, one module per chapter of ARINC 653. The C binding
//! ([`crate::ffi`]) has the same layout and is a thin layer over these functions; Rust
//! partitions call them directly.
//!
//! | Module | ARINC 653 | Services |
//! |---|---|---|
//! | [`partition`] | Part 1, 3.2 Partition management | GET_PARTITION_STATUS, SET_PARTITION_MODE |
//! | [`process`] | Part 1, 3.3 Process management | CREATE_PROCESS, START, STOP, SUSPEND, SET_PRIORITY, LOCK_PREEMPTION, ... |
//! | [`time`] | Part 1, 3.4 Time management | GET_TIME, PERIODIC_WAIT, TIMED_WAIT, REPLENISH |
//! | [`inter`] | Part 1, 3.6 Inter-partition communication | [`inter::sampling`], [`inter::queuing`] ports |
//! | [`intra`] | Part 1, 3.7 Intra-partition communication | [`intra::buffer`], [`intra::blackboard`], [`intra::semaphore`], [`intra::event`], [`intra::mutex`] |
//! | [`hm`] | Part 1, 3.8 Health monitoring | REPORT_APPLICATION_MESSAGE, CREATE_ERROR_HANDLER, RAISE_APPLICATION_ERROR, ... |
//! | [`part2`] | Part 2 and Partita extensions | [`part2::schedules`] (module schedules), [`part2::system`] (system partitions) |
//!
//! Every function has the standard's name in snake case and returns the ARINC 653 return code
//! as the `Err` of a `Result`. Each module re-exports the core types its functions take and
//! return; the ones every chapter uses are re-exported here.

pub mod hm;
pub mod inter;
pub mod intra;
pub mod part2;
pub mod partition;
pub mod process;
pub mod time;

pub use partita_apex_core::{name, Name, ReturnCode, SystemTime, INFINITE_TIME_VALUE};
