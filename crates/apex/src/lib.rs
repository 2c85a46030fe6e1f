// SPDX-License-Identifier: MIT OR Apache-2.0
//! The Partita partition runtime (APEX) for Linux.
//!
//! A partition links this library (as `libpartita_apex.a` for C, with `include/ARINC653.h`,
//! or as a Rust crate). The OS-independent scheduling core is [`partita_apex_core`]; this
//! crate adds the Linux glue ([`runtime`]), the safe Rust APEX API ([`apex`]), the C binding
//! ([`ffi`]) and the C type mirrors ([`types`]).
//!
//! The Rust API and the C binding are laid out by the chapters of ARINC 653:
//!
//! | Chapter | Rust API | C binding |
//! |---|---|---|
//! | Partition management | [`apex::partition`] | `ffi/partition.rs` |
//! | Process management | [`apex::process`] | `ffi/process.rs` |
//! | Time management | [`apex::time`] | `ffi/time.rs` |
//! | Inter-partition communication | [`apex::inter`]`::{sampling, queuing}` | `ffi/inter/` |
//! | Intra-partition communication | [`apex::intra`]`::{buffer, blackboard, semaphore, event, mutex}` | `ffi/intra/` |
//! | Health monitoring | [`apex::hm`] | `ffi/hm.rs` |
//! | Part 2: module schedules, system partitions | [`apex::part2`]`::{schedules, system}` | `ffi/part2/` |

#[cfg(feature = "a653rs")]
pub mod a653rs;
pub mod affinity;
pub mod apex;
pub mod entry;
#[allow(unsafe_code)] // The C binding: the only module of this crate with unsafe code.
pub mod ffi;
mod idle;
pub mod isolation;
#[cfg(feature = "log")]
pub mod logger;
mod ports;
mod raise;
pub mod reclaim;
pub mod runtime;
mod trace;
pub mod types;

pub use partita_apex_core as core;
