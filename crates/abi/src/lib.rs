// SPDX-License-Identifier: MIT OR Apache-2.0
//! The one definition of what a partition and the partition manager share.
//!
//! Everything here is plain data: no Linux, no `unsafe`, no allocation (`no_std`), so the
//! same definitions serve the Linux runtime and, later, a partition OS inside a KVM guest.
//!
//! - [`arinc`]: every ARINC 653 constant of `include/ARINC653.h` (return codes, modes, start
//!   conditions, process states, port and queue kinds, indicators, HM codes, levels and
//!   actions, system limits). Each enum is `repr(u32)`, converts from its raw value with
//!   validation (`TryFrom<u32>`), and carries a table of (C name, value) made by the macro
//!   that defines it; `crates/apex/tests/layout.rs` compiles those tables as `_Static_assert`s
//!   against the header.
//! - [`report`]: the records a partition sends the manager on its report channel (deadline
//!   misses, errors, application messages): fixed binary header, versioned, decoded with
//!   explicit validation.
//! - [`mailbox`]: the system-partition service requests and replies of the control block's
//!   mailbox.
//! - [`control`]: the control block layout (the shared page between the manager and one
//!   partition) and its constants.
//! - [`port`]: the layout of the shared memory of sampling and queuing channels.
//! - [`trace`]: the trace event record and the shared-memory ring that carries it.
//! - [`ids`]: the host user and group ids partitions run under (id blocks).
//! - [`vm`]: what a partition's KVM virtual machine and its monitor share: the guest memory
//!   map, the registers at entry, the hypercall ABI and the time page.
//!
//! What stays elsewhere, and why: mapping shared memory and declaring a layout fit for it
//! (`unsafe impl SharedPod`) needs `unsafe` and Linux, so it lives in `partita-sys`, which
//! re-exports these layouts where it maps them. The C mirror of the header's structs
//! (`partita_apex::types`, raw pointers included) belongs to the C binding.
//!
//! Decoding never panics on partition-supplied bytes: every malformed input is a
//! [`DecodeError`]. No text crosses from a partition to the manager: report messages are the
//! bytes the standard's services take (shown with invalid UTF-8 replaced), everything else is
//! a fixed-size binary field.
#![no_std]

pub mod arinc;
pub mod control;
pub mod ids;
pub mod mailbox;
pub mod port;
pub mod report;
pub mod trace;
pub mod vm;
mod wire;

pub use arinc::*;

/// Why bytes from the other side of the boundary were refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The record carries a version this build does not speak.
    #[error("record version {found}, expected {expected}")]
    Version {
        /// Version found.
        found: u16,
        /// Version this build speaks.
        expected: u16,
    },
    /// The record kind (or request code) is not one of the known ones.
    #[error("unknown record kind {0}")]
    UnknownKind(u32),
    /// A field holds a value outside its type's range.
    #[error(transparent)]
    OutOfRange(#[from] OutOfRange),
    /// A length field is larger than the record allows.
    #[error("{field} length {len} exceeds {max}")]
    Length {
        /// The field.
        field: &'static str,
        /// Length found.
        len: usize,
        /// Largest allowed.
        max: usize,
    },
    /// Fewer bytes than the record needs.
    #[error("truncated record: {needed} bytes needed, {available} available")]
    Truncated {
        /// Bytes the record needs (so far as known).
        needed: usize,
        /// Bytes available.
        available: usize,
    },
    /// A field reserved for later use is not zero.
    #[error("reserved field {0} is not zero")]
    Reserved(&'static str),
}

/// A raw value that is not one of its type's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{value} is not a valid {type_name}")]
pub struct OutOfRange {
    /// The C type (or field) name.
    pub type_name: &'static str,
    /// The value found.
    pub value: i64,
}

/// Why a record could not be encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// The output buffer is too small.
    #[error("record of {needed} bytes does not fit in {available}")]
    Room {
        /// Bytes the record needs.
        needed: usize,
        /// Bytes available.
        available: usize,
    },
    /// A variable-length field is longer than the record allows.
    #[error("{field} length {len} exceeds {max}")]
    Length {
        /// The field.
        field: &'static str,
        /// Its length.
        len: usize,
        /// Largest allowed.
        max: usize,
    },
    /// A field holds a value the record cannot carry (decoding would refuse it).
    #[error("{0} cannot be encoded")]
    Value(&'static str),
}
