// SPDX-License-Identifier: MIT OR Apache-2.0
//! The KVM virtual machine monitor of Partita: a partition as a KVM guest that runs only in
//! user mode (ring 3), with no firmware, no devices and no guest kernel.
//!
//! This is the first stage of the virtual-machine-level design (`docs/kvm.md`): it builds and
//! runs one guest and turns every way it can stop into a typed [`Exit`]. The scheduler does
//! not use it yet (`partita run --backend kvm` is refused).
//!
//! - [`Image`]: the guest program, a static x86-64 ELF executable linked at
//!   `partita_abi::vm::IMAGE_BASE` (the guest runtime `crates/kvm-guest` builds them).
//! - [`Vm`]: one VM with one vCPU. [`Vm::new`] builds the guest's memory (system area, page
//!   tables, image, time page) and registers; [`Vm::run`] runs it until it makes a hypercall,
//!   ends, faults or is kicked.
//! - [`Exit`]: why the guest stopped. Hypercalls are answered by the monitor before
//!   [`Vm::run`] returns them; a bad one ([`BadHypercall`]), a CPU exception ([`Fault`]) and
//!   a triple fault are outcomes, never panics.
//! - [`Kicker`]: stops a running guest from another thread, whatever the guest does.
//!
//! The guest's side of the contract (memory map, hypercall block, time page) is
//! `partita_abi::vm`. All `unsafe` (the memory slot, the kick signal) is in `partita_sys::kvm`.

mod exit;
mod image;
mod layout;
mod vm;

pub use exit::{mnemonic, BadHypercall, BadHypercallReason, Exit, Fault, Hypercall};
pub use image::{Image, ImageError, Segment};
pub use partita_sys::kvm::{Hypervisor, Kicker};
pub use vm::{memory_size_for, Vm, VmConfig, VmError};

/// Why this host cannot run guests, or `None` when `/dev/kvm` opens.
pub fn unavailable() -> Option<String> {
    match Hypervisor::open() {
        Ok(_) => None,
        Err(e) => Some(e.to_string()),
    }
}
