// SPDX-License-Identifier: MIT OR Apache-2.0
//! What the guest tests share: the test guests (built by `guest_build`), opening /dev/kvm or
//! skipping, and running a guest to its end.
#![allow(dead_code)]

mod guest_build;

pub use guest_build::guests_dir;
use partita_kvm::{Exit, Hypercall, Hypervisor, Image, Vm, VmConfig};

/// The ELF bytes of test guest `name` (crates/kvm-guest/src/bin/<name>.rs).
pub fn guest_elf(name: &str) -> Vec<u8> {
    let path = guests_dir().join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The parsed image of test guest `name`.
pub fn guest(name: &str) -> Image {
    Image::parse(&guest_elf(name)).unwrap_or_else(|e| panic!("guest {name}: {e}"))
}

/// `/dev/kvm`, or `None` after the standard skip line (a failure with
/// `PARTITA_REQUIRE_ALL=1`).
pub fn hypervisor(test: &str) -> Option<Hypervisor> {
    match Hypervisor::open() {
        Ok(hv) => Some(hv),
        Err(e) => {
            let reason = format!("no usable /dev/kvm ({e})");
            if std::env::var("PARTITA_REQUIRE_ALL").as_deref() == Ok("1") {
                panic!("{test}: required capability missing: {reason}");
            }
            println!("SKIPPED {test}: {reason}");
            eprintln!("SKIPPED {test}: {reason}");
            None
        }
    }
}

/// 8 MiB of guest memory, the guest's clock starting now.
pub fn config() -> VmConfig {
    VmConfig {
        memory_size: 8 << 20,
        time_base_ns: partita_sys::time::monotonic_ns(),
    }
}

/// A new VM running test guest `name`.
pub fn vm(hv: &Hypervisor, name: &str) -> Vm {
    Vm::new(hv, &guest(name), &config()).unwrap_or_else(|e| panic!("VM for {name}: {e}"))
}

/// What a guest did until it ended.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Its output, in order.
    pub output: Vec<u8>,
    /// The values it echoed, in order.
    pub echoes: Vec<u64>,
    /// Every other exit before the end (refused hypercalls, kicks), in order.
    pub others: Vec<Exit>,
    /// The exit that ended it (`Exited`, `Fault` or `TripleFault`).
    pub end: Option<Exit>,
}

/// Runs the guest until it ends, resuming it after hypercalls, refusals and kicks; at most
/// `max_exits` exits.
pub fn run_to_end(vm: &mut Vm, max_exits: usize) -> Outcome {
    let mut o = Outcome::default();
    for _ in 0..max_exits {
        match vm.run().expect("run") {
            Exit::Hypercall(Hypercall::Write(bytes)) => o.output.extend(bytes),
            Exit::Hypercall(Hypercall::Echo(v)) => o.echoes.push(v),
            end @ (Exit::Exited { .. } | Exit::Fault(_) | Exit::TripleFault) => {
                o.end = Some(end);
                return o;
            }
            other => o.others.push(other),
        }
    }
    panic!("the guest did not end within {max_exits} exits: {o:?}");
}
