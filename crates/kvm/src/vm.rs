// SPDX-License-Identifier: MIT OR Apache-2.0
//! One guest: a KVM VM with one vCPU, its memory built by the monitor, run until it stops.

use crate::exit::{BadHypercall, BadHypercallReason, Exit, Fault, Hypercall};
use crate::image::{Image, ImageError};
use crate::layout;
use partita_abi::vm::{
    HypercallBlock, HypercallNumber, HypercallStatus, TimePage, FAULT_DOORBELL, HYPERCALL_DOORBELL,
    IMAGE_BASE, MAX_MEMORY, MAX_WRITE, MEMORY_ALIGN, MIN_MEMORY, MIN_STACK, PAGE_SIZE, TIME_PAGE,
};
use partita_sys::kvm::{kvm_dtable, kvm_segment, Hypervisor, Kicker, Machine, Vcpu, VcpuExit};
use partita_sys::SysError;
use vm_memory::{Bytes, GuestAddress};

/// Why a guest could not be built or run.
#[derive(Debug, thiserror::Error)]
pub enum VmError {
    /// The guest memory size is not one the memory map allows.
    #[error("guest memory of {size} bytes: {reason}")]
    MemorySize {
        /// The size asked for.
        size: u64,
        /// The rule it breaks.
        reason: &'static str,
    },
    /// The image cannot be loaded.
    #[error("guest image: {0}")]
    Image(#[from] ImageError),
    /// A KVM or memory call failed.
    #[error(transparent)]
    Sys(#[from] SysError),
    /// The monitor could not read or write guest memory where it had to.
    #[error("guest memory {addr:#x}+{len}: {detail}")]
    Memory {
        /// Guest address.
        addr: u64,
        /// Bytes.
        len: usize,
        /// The error.
        detail: String,
    },
    /// The time page could not be built (a TSC frequency of 0).
    #[error("time page: {0}")]
    TimePage(partita_abi::EncodeError),
    /// The guest ended (exited, faulted or shut down) and cannot run again.
    #[error("the guest has ended ({0}); a new VM is needed")]
    Ended(&'static str),
    /// The vCPU left the guest for a reason this design never causes (a port access KVM
    /// handed out, a halt in user mode, an entry failure, an emulation failure).
    #[error("unexpected exit from the guest: {0:?}")]
    UnexpectedExit(VcpuExit),
}

/// The guest memory size for a partition that may use `bytes` of memory: the system area below
/// [`IMAGE_BASE`] plus `bytes` rounded up to [`MEMORY_ALIGN`].
pub fn memory_size_for(bytes: u64) -> Result<u64, VmError> {
    let user = bytes
        .max(1)
        .checked_next_multiple_of(MEMORY_ALIGN)
        .and_then(|u| u.checked_add(IMAGE_BASE));
    match user {
        Some(size) => check_memory_size(size).map(|()| size),
        None => Err(VmError::MemorySize {
            size: bytes,
            reason: "larger than the guest address space",
        }),
    }
}

fn check_memory_size(size: u64) -> Result<(), VmError> {
    let reason = if !size.is_multiple_of(MEMORY_ALIGN) {
        "not a multiple of 2 MiB"
    } else if size < MIN_MEMORY {
        "below the 4 MiB minimum (2 MiB system area, 2 MiB user memory)"
    } else if size > MAX_MEMORY {
        "above the 1 GiB maximum (the doorbells follow RAM)"
    } else {
        return Ok(());
    };
    Err(VmError::MemorySize { size, reason })
}

/// How to build a guest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VmConfig {
    /// Guest RAM in bytes ([`memory_size_for`] computes it from a partition's memory).
    pub memory_size: u64,
    /// The `CLOCK_MONOTONIC` instant (ns) that is time 0 for the guest's clock.
    pub time_base_ns: u64,
}

/// A guest: its VM, RAM and one vCPU, started at the image's entry point in user mode.
#[derive(Debug)]
pub struct Vm {
    // Field order is drop order: the vCPU before the VM and its memory.
    vcpu: Vcpu,
    machine: Machine,
    memory_size: u64,
    image_end: u64,
    time: TimePage,
    ended: Option<&'static str>,
}

impl Vm {
    /// Builds the guest: system area, image, time page, vCPU registers. Nothing runs yet.
    pub fn new(hv: &Hypervisor, image: &Image, config: &VmConfig) -> Result<Vm, VmError> {
        let size = config.memory_size;
        check_memory_size(size)?;
        image.check_fits(size - MIN_STACK)?;
        let machine = hv.create_vm(size as usize)?;
        for piece in layout::system_area(size) {
            write(&machine, piece.addr, &piece.bytes)?;
        }
        // Fresh guest RAM is zero, so only the file bytes are copied (the rest of each
        // segment, its .bss, is already zero).
        for s in &image.segments {
            write(&machine, s.addr, &s.bytes)?;
        }
        let vcpu = machine.create_vcpu(0)?;
        let mut vm = Vm {
            vcpu,
            machine,
            memory_size: size,
            image_end: image.end(),
            time: TimePage::default(),
            ended: None,
        };
        vm.set_start_registers(image.entry)?;
        vm.publish_time(config.time_base_ns)?;
        Ok(vm)
    }

    fn set_start_registers(&mut self, entry: u64) -> Result<(), VmError> {
        let mut sregs = self.vcpu.sregs()?;
        let code = kvm_segment {
            base: 0,
            limit: 0xffff_ffff,
            selector: layout::USER_CS,
            type_: 0xb,
            present: 1,
            dpl: 3,
            db: 0,
            s: 1,
            l: 1,
            g: 1,
            ..Default::default()
        };
        let data = kvm_segment {
            selector: layout::USER_DS,
            type_: 0x3,
            db: 1,
            l: 0,
            ..code
        };
        sregs.cs = code;
        sregs.ss = data;
        sregs.ds = data;
        sregs.es = data;
        sregs.fs = data;
        sregs.gs = data;
        sregs.tr = kvm_segment {
            base: layout::TSS,
            limit: (layout::TSS_SIZE - 1) as u32,
            selector: layout::TSS_SELECTOR,
            type_: 0xb,
            present: 1,
            dpl: 0,
            s: 0,
            g: 0,
            ..Default::default()
        };
        sregs.gdt = kvm_dtable {
            base: layout::GDT,
            limit: (layout::GDT_SIZE - 1) as u16,
            ..Default::default()
        };
        sregs.idt = kvm_dtable {
            base: layout::IDT,
            limit: (256 * 16 - 1) as u16,
            ..Default::default()
        };
        sregs.cr0 = layout::CR0_PE
            | layout::CR0_MP
            | layout::CR0_ET
            | layout::CR0_NE
            | layout::CR0_WP
            | layout::CR0_PG;
        sregs.cr3 = layout::CR3;
        sregs.cr4 = layout::CR4_PAE | layout::CR4_OSFXSR | layout::CR4_OSXMMEXCPT;
        sregs.efer = layout::EFER_LME | layout::EFER_LMA;
        self.vcpu.set_sregs(&sregs)?;
        let regs = partita_sys::kvm::kvm_regs {
            rip: entry,
            rsp: self.memory_size - 8,
            rdi: self.memory_size,
            rsi: self.image_end,
            rflags: 0x2,
            ..Default::default()
        };
        self.vcpu.set_regs(&regs)?;
        Ok(())
    }

    /// Sets the guest's TSC to the host's and publishes the time page: the guest's clock is
    /// the host's `CLOCK_MONOTONIC` less `time_base_ns`.
    fn publish_time(&mut self, time_base_ns: u64) -> Result<(), VmError> {
        self.vcpu.set_tsc(partita_sys::time::tsc())?;
        let khz = self.vcpu.tsc_khz()?;
        let (tsc, ns) = partita_sys::time::counter_pair();
        let page = TimePage::from_tsc_khz(khz, tsc, ns.saturating_sub(time_base_ns))
            .map_err(VmError::TimePage)?;
        let mut bytes = [0u8; TimePage::SIZE];
        page.encode(&mut bytes).map_err(VmError::TimePage)?;
        write(&self.machine, TIME_PAGE, &bytes)?;
        self.time = page;
        Ok(())
    }

    /// The time page published to the guest.
    pub fn time_page(&self) -> TimePage {
        self.time
    }

    /// Guest RAM in bytes.
    pub fn memory_size(&self) -> u64 {
        self.memory_size
    }

    /// The first page-aligned address after the image (the guest's free memory starts here).
    pub fn image_end(&self) -> u64 {
        self.image_end
    }

    /// A handle that stops the running guest from any thread: the current or next
    /// [`Vm::run`] returns [`Exit::Kicked`].
    pub fn kicker(&self) -> Kicker {
        self.vcpu.kicker()
    }

    /// Reads guest memory (any RAM address).
    pub fn read_memory(&self, addr: u64, buf: &mut [u8]) -> Result<(), VmError> {
        let len = buf.len();
        self.machine
            .memory()
            .read_slice(buf, GuestAddress(addr))
            .map_err(|e| memory_error(addr, len, e))
    }

    /// Writes guest memory (any RAM address; the guest sees it when it runs again).
    pub fn write_memory(&self, addr: u64, bytes: &[u8]) -> Result<(), VmError> {
        write(&self.machine, addr, bytes)
    }

    /// Runs the guest until it stops for one of the reasons of [`Exit`]. Hypercalls are
    /// answered before they are returned.
    pub fn run(&mut self) -> Result<Exit, VmError> {
        if let Some(why) = self.ended {
            return Err(VmError::Ended(why));
        }
        let exit = self.vcpu.run()?;
        match exit {
            VcpuExit::Kicked => Ok(Exit::Kicked),
            VcpuExit::Shutdown => {
                self.ended = Some("triple fault");
                Ok(Exit::TripleFault)
            }
            VcpuExit::MmioWrite { addr, data, len } if addr == HYPERCALL_DOORBELL => {
                self.hypercall(data, len)
            }
            VcpuExit::MmioWrite { addr, .. } if in_page(addr, HYPERCALL_DOORBELL) => {
                self.bad(BadHypercallReason::DoorbellOffset { addr })
            }
            VcpuExit::MmioRead { addr, .. } if in_page(addr, HYPERCALL_DOORBELL) => {
                self.bad(BadHypercallReason::Load)
            }
            VcpuExit::MmioWrite { addr, data, len } if addr == FAULT_DOORBELL && len == 1 => {
                self.fault(data[0])
            }
            // A host that does not hand out the stub's doorbell store still stops at its
            // `hlt`: the stub's address names the vector.
            VcpuExit::Hlt => {
                let rip = self.vcpu.regs()?.rip;
                match stub_vector(rip) {
                    Some(vector) => self.fault(vector),
                    None => Err(VmError::UnexpectedExit(VcpuExit::Hlt)),
                }
            }
            other => Err(VmError::UnexpectedExit(other)),
        }
    }

    fn bad(&mut self, reason: BadHypercallReason) -> Result<Exit, VmError> {
        let rip = self.vcpu.regs()?.rip;
        Ok(Exit::BadHypercall(BadHypercall { rip, reason }))
    }

    fn in_user(&self, addr: u64, len: u64) -> bool {
        addr >= IMAGE_BASE
            && addr
                .checked_add(len)
                .is_some_and(|end| end <= self.memory_size)
    }

    fn answer(&self, block: u64, status: HypercallStatus, ret: u64) -> Result<(), VmError> {
        write(
            &self.machine,
            block + HypercallBlock::STATUS_OFFSET,
            &(status as u32).to_le_bytes(),
        )?;
        write(
            &self.machine,
            block + HypercallBlock::RET_OFFSET,
            &ret.to_le_bytes(),
        )
    }

    fn refuse(&mut self, block: u64, reason: BadHypercallReason) -> Result<Exit, VmError> {
        self.answer(block, HypercallStatus::Refused, 0)?;
        self.bad(reason)
    }

    fn hypercall(&mut self, data: [u8; 8], len: usize) -> Result<Exit, VmError> {
        if len != 8 {
            return self.bad(BadHypercallReason::StoreSize { len });
        }
        let block = u64::from_le_bytes(data);
        if !block.is_multiple_of(HypercallBlock::ALIGN) {
            return self.bad(BadHypercallReason::Misaligned { addr: block });
        }
        if !self.in_user(block, HypercallBlock::SIZE as u64) {
            return self.bad(BadHypercallReason::BlockOutside { addr: block });
        }
        let mut bytes = [0u8; HypercallBlock::SIZE];
        self.read_memory(block, &mut bytes)?;
        let request =
            HypercallBlock::decode(&bytes).map_err(|e| memory_error(block, bytes.len(), e))?;
        let Ok(number) = HypercallNumber::try_from(request.number) else {
            return self.refuse(block, BadHypercallReason::UnknownNumber(request.number));
        };
        let [a0, a1, _, _] = request.args;
        match number {
            HypercallNumber::Exit => {
                self.answer(block, HypercallStatus::Done, 0)?;
                self.ended = Some("exited");
                Ok(Exit::Exited { code: a0 })
            }
            HypercallNumber::Echo => {
                self.answer(block, HypercallStatus::Done, a0)?;
                Ok(Exit::Hypercall(Hypercall::Echo(a0)))
            }
            HypercallNumber::Write => {
                if a1 > MAX_WRITE {
                    return self.refuse(
                        block,
                        BadHypercallReason::TooLong {
                            len: a1,
                            max: MAX_WRITE,
                        },
                    );
                }
                if !self.in_user(a0, a1) {
                    return self.refuse(
                        block,
                        BadHypercallReason::BufferOutside { addr: a0, len: a1 },
                    );
                }
                let mut out = vec![0u8; a1 as usize];
                self.read_memory(a0, &mut out)?;
                self.answer(block, HypercallStatus::Done, a1)?;
                Ok(Exit::Hypercall(Hypercall::Write(out)))
            }
        }
    }

    /// A fault stub reported `vector`: the CPU's exception frame is at the stub's stack
    /// pointer (the stub pushes nothing).
    fn fault(&mut self, vector: u8) -> Result<Exit, VmError> {
        self.ended = Some("faulted");
        let regs = self.vcpu.regs()?;
        let mut frame = [0u8; 48];
        let fault = if self.read_memory(regs.rsp, &mut frame).is_ok() {
            let word =
                |i: usize| u64::from_le_bytes(frame[i * 8..i * 8 + 8].try_into().unwrap_or([0; 8]));
            let (error_code, at) = if layout::has_error_code(vector) {
                (Some(word(0)), 1)
            } else {
                (None, 0)
            };
            Fault {
                vector,
                error_code,
                rip: word(at),
                address: None,
                from_user: word(at + 1) & 3 == 3,
            }
        } else {
            Fault {
                vector,
                error_code: None,
                rip: regs.rip,
                address: None,
                from_user: false,
            }
        };
        let address = if vector == 14 {
            Some(self.vcpu.sregs()?.cr2)
        } else {
            None
        };
        Ok(Exit::Fault(Fault { address, ..fault }))
    }
}

/// The vector of the fault stub whose code holds `rip`.
fn stub_vector(rip: u64) -> Option<u8> {
    let offset = rip.checked_sub(layout::STUBS)?;
    u8::try_from(offset / layout::STUB_SIZE).ok()
}

fn in_page(addr: u64, page: u64) -> bool {
    addr >= page && addr - page < PAGE_SIZE
}

fn write(machine: &Machine, addr: u64, bytes: &[u8]) -> Result<(), VmError> {
    machine
        .memory()
        .write_slice(bytes, GuestAddress(addr))
        .map_err(|e| memory_error(addr, bytes.len(), e))
}

fn memory_error(addr: u64, len: usize, e: impl std::fmt::Display) -> VmError {
    VmError::Memory {
        addr,
        len,
        detail: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stub_address_names_its_vector() {
        // After the `hlt` at offset 8 of a stub, rip is at offset 9.
        assert_eq!(
            stub_vector(layout::STUBS + 14 * layout::STUB_SIZE + 9),
            Some(14)
        );
        assert_eq!(
            stub_vector(layout::STUBS + 255 * layout::STUB_SIZE + 9),
            Some(255)
        );
        assert_eq!(stub_vector(layout::STUBS + 256 * layout::STUB_SIZE), None);
        assert_eq!(stub_vector(IMAGE_BASE), None);
        assert_eq!(stub_vector(0x10), None);
    }

    #[test]
    fn memory_sizes_follow_the_memory_map() {
        assert_eq!(memory_size_for(1).expect("size"), MIN_MEMORY);
        assert_eq!(memory_size_for(0).expect("size"), MIN_MEMORY);
        assert_eq!(
            memory_size_for(MEMORY_ALIGN + 1).expect("size"),
            IMAGE_BASE + 2 * MEMORY_ALIGN
        );
        assert_eq!(
            memory_size_for(MAX_MEMORY - IMAGE_BASE).expect("size"),
            MAX_MEMORY
        );
        assert!(matches!(
            memory_size_for(MAX_MEMORY),
            Err(VmError::MemorySize { .. })
        ));
        assert!(matches!(
            memory_size_for(u64::MAX),
            Err(VmError::MemorySize { .. })
        ));
        assert!(check_memory_size(MIN_MEMORY + 4096).is_err());
        assert!(check_memory_size(IMAGE_BASE).is_err());
    }
}
