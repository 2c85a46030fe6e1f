//! The Partita partition runtime (APEX) for Linux.
//!
//! A partition links this library (as `libpartita_apex.a` for C, with `include/ARINC653.h`,
//! or as a Rust crate). The OS-independent scheduling core is [`partita_apex_core`]; this
//! crate adds the Linux glue ([`runtime`]), a safe Rust API ([`api`]), the C binding
//! ([`ffi`]) and the C type mirrors ([`types`]).

#[cfg(feature = "a653rs")]
pub mod a653rs;
pub mod affinity;
pub mod api;
pub mod ffi;
mod idle;
pub mod isolation;
mod ports;
pub mod ports_api;
mod raise;
pub mod reclaim;
pub mod runtime;
pub mod schedules;
pub mod system;
pub mod types;

pub use partita_apex_core as core;
