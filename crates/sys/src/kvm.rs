// SPDX-License-Identifier: MIT OR Apache-2.0
//! KVM virtual machines, on the rust-vmm crates (`kvm-ioctls`, `kvm-bindings`, `vm-memory`):
//! the few steps of them that need `unsafe` or a signal, wrapped so that `partita-kvm` (the
//! monitor, no `unsafe`) builds its guests on safe calls.
//!
//! - [`Hypervisor`]: `/dev/kvm`, with the CPUID the guests get and whether the kernel copies
//!   registers through the shared run page (`KVM_CAP_SYNC_REGS`).
//! - [`Machine`]: one VM and its guest RAM (one anonymous mapping from guest physical address
//!   0, registered as memory slot 0). Its memory is read and written through `vm-memory`'s
//!   bounds-checked `Bytes` calls ([`Machine::memory`]).
//! - [`Vcpu`]: one virtual CPU; [`Vcpu::run`] enters the guest and returns why it left, as a
//!   [`VcpuExit`] that owns its data.
//! - [`Kicker`]: stops a running [`Vcpu`] from any thread.
//!
//! # The kick
//!
//! A guest that never leaves on its own (a spin loop, with or without interrupts) must still be
//! stopped. [`Kicker::kick`] sets the vCPU's request flag and sends [`kick_signal`] to the
//! thread in [`Vcpu::run`]. The signal's handler sets `immediate_exit` in the run page of the
//! vCPU that thread is running (a thread-local pointer, set only inside [`Vcpu::run`]). So
//! whether the signal lands while the guest runs (`KVM_RUN` returns `EINTR`), just before the
//! thread enters it (`immediate_exit` makes `KVM_RUN` return at once) or while the thread
//! handles an exit (the flag is seen before the next entry), the next return of
//! [`Vcpu::run`] is [`VcpuExit::Kicked`], and a kick is never lost. A signal that interrupts
//! `KVM_RUN` without a request (another signal, a late one) only re-enters the guest.

use crate::{Result, SysError};
use kvm_bindings::{kvm_msr_entry, Msrs, KVM_MAX_CPUID_ENTRIES};
use kvm_ioctls::{Cap, SyncReg, VcpuFd, VmFd};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, Ordering};
use std::sync::{Arc, Once};
use vm_memory::{GuestAddress, GuestMemoryBackend, GuestMemoryMmap};

pub use kvm_bindings::{kvm_dtable, kvm_regs, kvm_segment, kvm_sregs};

/// The MSR number of the time-stamp counter.
const MSR_IA32_TSC: u32 = 0x10;

/// The signal that kicks a vCPU out of the guest (a real-time signal, so it queues and does not
/// collide with the signals Partita uses for partitions).
pub fn kick_signal() -> i32 {
    libc::SIGRTMIN() + 4
}

fn ioctl_error(call: &str, e: kvm_ioctls::Error) -> SysError {
    SysError::io(call, std::io::Error::from_raw_os_error(e.errno()))
}

/// The TSC MSR with `value`, as the list `KVM_GET_MSRS` and `KVM_SET_MSRS` take.
fn tsc_msr(value: u64) -> Result<Msrs> {
    Msrs::from_entries(&[kvm_msr_entry {
        index: MSR_IA32_TSC,
        data: value,
        ..Default::default()
    }])
    .map_err(|e| SysError::io("TSC MSR list", std::io::Error::other(format!("{e:?}"))))
}

/// `/dev/kvm`.
#[derive(Debug)]
pub struct Hypervisor {
    kvm: kvm_ioctls::Kvm,
    cpuid: kvm_bindings::CpuId,
    sync_regs: bool,
}

impl Hypervisor {
    /// Opens `/dev/kvm` and reads the CPUID the host supports for guests.
    pub fn open() -> Result<Hypervisor> {
        let kvm = kvm_ioctls::Kvm::new().map_err(|e| ioctl_error("open /dev/kvm", e))?;
        let cpuid = kvm
            .get_supported_cpuid(KVM_MAX_CPUID_ENTRIES)
            .map_err(|e| ioctl_error("KVM_GET_SUPPORTED_CPUID", e))?;
        let sync_regs = kvm.check_extension(Cap::SyncRegs);
        Ok(Hypervisor {
            kvm,
            cpuid,
            sync_regs,
        })
    }

    /// Whether `KVM_RUN` exchanges the general registers through the run page
    /// (`KVM_CAP_SYNC_REGS`); without it [`Vcpu::regs`] and [`Vcpu::set_regs`] are ioctls.
    pub fn has_sync_regs(&self) -> bool {
        self.sync_regs
    }

    /// A new VM with `memory_size` bytes of RAM from guest physical address 0.
    pub fn create_vm(&self, memory_size: usize) -> Result<Machine> {
        let vm = self
            .kvm
            .create_vm()
            .map_err(|e| ioctl_error("KVM_CREATE_VM", e))?;
        let memory = GuestMemoryMmap::<()>::from_ranges(&[(GuestAddress(0), memory_size)])
            .map_err(|e| SysError::io("mmap guest memory", std::io::Error::other(e)))?;
        let host = memory
            .get_host_address(GuestAddress(0))
            .map_err(|e| SysError::io("guest memory address", std::io::Error::other(e)))?;
        let region = kvm_bindings::kvm_userspace_memory_region {
            slot: 0,
            flags: 0,
            guest_phys_addr: 0,
            memory_size: memory_size as u64,
            userspace_addr: host as u64,
        };
        // SAFETY: `host` is the start of `memory`'s one mapping of `memory_size` bytes. The
        // kernel accesses it through the VM, which lives as long as its fd or any of its vCPU
        // fds; the mapping is shared (`Arc`) by the `Machine` and every `Vcpu`, and each drops
        // its fd before its share (field order), so it is unmapped only after the last fd
        // that could reach the VM is closed. KVM may write
        // any byte of it, which is what guest RAM is for; this process reads it only through
        // `vm-memory`'s volatile accessors.
        unsafe { vm.set_user_memory_region(region) }
            .map_err(|e| ioctl_error("KVM_SET_USER_MEMORY_REGION", e))?;
        Ok(Machine {
            vm,
            memory: Arc::new(memory),
            cpuid: self.cpuid.clone(),
            sync_regs: self.sync_regs,
        })
    }
}

/// One VM and its guest RAM.
#[derive(Debug)]
pub struct Machine {
    // Field order is drop order: the VM (and its memory slot) goes before the memory, which
    // every `Vcpu` shares (a vCPU fd keeps the VM alive after the VM fd is closed).
    vm: VmFd,
    memory: Arc<GuestMemoryMmap>,
    cpuid: kvm_bindings::CpuId,
    sync_regs: bool,
}

impl Machine {
    /// The guest RAM, read and written with `vm_memory::Bytes` (bounds-checked).
    pub fn memory(&self) -> &GuestMemoryMmap {
        &self.memory
    }

    /// Creates virtual CPU `id` with the host's supported CPUID (long mode needs the guest to
    /// see the LM bit), registers copied through the run page where the kernel can.
    pub fn create_vcpu(&self, id: u64) -> Result<Vcpu> {
        let mut fd = self
            .vm
            .create_vcpu(id)
            .map_err(|e| ioctl_error("KVM_CREATE_VCPU", e))?;
        fd.set_cpuid2(&self.cpuid)
            .map_err(|e| ioctl_error("KVM_SET_CPUID2", e))?;
        if self.sync_regs {
            fd.set_sync_valid_reg(SyncReg::Register);
        }
        Ok(Vcpu {
            fd,
            _memory: self.memory.clone(),
            sync_regs: self.sync_regs,
            entered: false,
            kick: Arc::new(KickState {
                requested: AtomicBool::new(false),
                tid: AtomicI32::new(0),
            }),
        })
    }
}

/// Why [`Vcpu::run`] returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VcpuExit {
    /// The guest stored `data[..len]` to `addr`, a guest physical address outside its RAM.
    MmioWrite {
        /// Guest physical address.
        addr: u64,
        /// The stored bytes (the first `len`).
        data: [u8; 8],
        /// Number of bytes stored (1 to 8).
        len: usize,
    },
    /// The guest loaded `len` bytes from `addr`, outside its RAM; the load reads zeros if the
    /// guest is resumed.
    MmioRead {
        /// Guest physical address.
        addr: u64,
        /// Number of bytes.
        len: usize,
    },
    /// The guest shut down (a triple fault).
    Shutdown,
    /// A [`Kicker`] stopped the vCPU.
    Kicked,
    /// The guest halted.
    Hlt,
    /// The guest did port I/O.
    Io {
        /// The port.
        port: u16,
        /// Whether it was an output.
        out: bool,
    },
    /// KVM could not enter the guest (bad state); the hardware reason.
    FailEntry(u64),
    /// KVM met an error inside the guest it cannot handle (e.g. an instruction it cannot
    /// emulate); the suberror.
    InternalError(u32),
    /// Any other exit, by its KVM name.
    Other(String),
}

#[derive(Debug)]
struct KickState {
    requested: AtomicBool,
    /// The thread in [`Vcpu::run`]; 0 outside it.
    tid: AtomicI32,
}

/// Stops a running [`Vcpu`] from another thread (cloneable, `Send`).
#[derive(Debug, Clone)]
pub struct Kicker {
    state: Arc<KickState>,
}

impl Kicker {
    /// Asks the vCPU to leave the guest: its current or next [`Vcpu::run`] returns
    /// [`VcpuExit::Kicked`].
    pub fn kick(&self) -> Result<()> {
        self.state.requested.store(true, Ordering::SeqCst);
        let tid = self.state.tid.load(Ordering::SeqCst);
        if tid != 0 {
            crate::proc::tgkill(crate::sched::getpid(), tid, kick_signal())?;
        }
        Ok(())
    }
}

thread_local! {
    /// `immediate_exit` of the run page of the vCPU this thread is running, null outside
    /// [`Vcpu::run`]. The kick signal's handler reads it.
    static IMMEDIATE_EXIT: AtomicPtr<u8> = const { AtomicPtr::new(std::ptr::null_mut()) };
    /// Whether this thread has the kick signal unblocked.
    static KICK_UNBLOCKED: Cell<bool> = const { Cell::new(false) };
}

extern "C" fn on_kick(_sig: libc::c_int) {
    // Async-signal-safe: a const-initialised thread-local without destructor is a plain
    // TLS slot, and the store is one byte.
    let _ = IMMEDIATE_EXIT.try_with(|p| {
        let p = p.load(Ordering::SeqCst);
        if !p.is_null() {
            // SAFETY: a non-null pointer is set only by `Vcpu::run` on this thread, to the
            // `immediate_exit` byte of the run page of the vCPU it is running, and cleared before
            // that call returns; the handler runs on this thread, so the page is mapped.
            unsafe { p.write_volatile(1) };
        }
    });
}

static INSTALL_KICK: Once = Once::new();

fn install_kick_handler() -> Result<()> {
    let mut result = Ok(());
    INSTALL_KICK.call_once(|| {
        // SAFETY: a zeroed sigaction is valid; the handler is an `extern "C" fn(c_int)` that
        // only touches a thread-local atomic and the byte it points to (see `on_kick`).
        // SA_RESTART: other system calls of the process interrupted by a kick restart.
        let r = unsafe {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = on_kick as extern "C" fn(libc::c_int) as libc::sighandler_t;
            act.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut act.sa_mask);
            libc::sigaction(kick_signal(), &act, std::ptr::null_mut())
        };
        if r == -1 {
            result = Err(SysError::last("sigaction (kick signal)"));
        }
    });
    result
}

fn unblock_kick_signal() -> Result<()> {
    if KICK_UNBLOCKED.with(Cell::get) {
        return Ok(());
    }
    // SAFETY: the set is initialised by sigemptyset before use; pthread_sigmask changes the
    // calling thread's mask only.
    let r = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, kick_signal());
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut())
    };
    if r != 0 {
        return Err(SysError::io(
            "pthread_sigmask (kick signal)",
            std::io::Error::from_raw_os_error(r),
        ));
    }
    KICK_UNBLOCKED.with(|u| u.set(true));
    Ok(())
}

/// Clears this thread's `immediate_exit` pointer when [`Vcpu::run`] returns, whichever way.
struct RunningGuard;

impl Drop for RunningGuard {
    fn drop(&mut self) {
        IMMEDIATE_EXIT.with(|p| p.store(std::ptr::null_mut(), Ordering::SeqCst));
    }
}

/// One virtual CPU.
#[derive(Debug)]
pub struct Vcpu {
    // Field order is drop order: the vCPU fd (which keeps the VM alive) before the share of
    // the guest RAM mapping.
    fd: VcpuFd,
    _memory: Arc<GuestMemoryMmap>,
    sync_regs: bool,
    /// Whether the vCPU has left the guest once (the run page holds its registers from then on).
    entered: bool,
    kick: Arc<KickState>,
}

impl Vcpu {
    /// A handle that stops this vCPU from any thread.
    pub fn kicker(&self) -> Kicker {
        Kicker {
            state: Arc::clone(&self.kick),
        }
    }

    /// The special registers (segments, control registers, descriptor tables).
    pub fn sregs(&self) -> Result<kvm_sregs> {
        self.fd
            .get_sregs()
            .map_err(|e| ioctl_error("KVM_GET_SREGS", e))
    }

    /// Sets the special registers.
    pub fn set_sregs(&self, sregs: &kvm_sregs) -> Result<()> {
        self.fd
            .set_sregs(sregs)
            .map_err(|e| ioctl_error("KVM_SET_SREGS", e))
    }

    /// The general registers: from the run page after an exit where the kernel copies them
    /// there, else by ioctl.
    pub fn regs(&self) -> Result<kvm_regs> {
        if self.sync_regs && self.entered {
            Ok(self.fd.sync_regs().regs)
        } else {
            self.fd
                .get_regs()
                .map_err(|e| ioctl_error("KVM_GET_REGS", e))
        }
    }

    /// Sets the general registers: through the run page (taken at the next entry) where the
    /// kernel copies them there, else by ioctl.
    pub fn set_regs(&mut self, regs: &kvm_regs) -> Result<()> {
        if self.sync_regs && self.entered {
            self.fd.sync_regs_mut().regs = *regs;
            self.fd.set_sync_dirty_reg(SyncReg::Register);
            Ok(())
        } else {
            self.fd
                .set_regs(regs)
                .map_err(|e| ioctl_error("KVM_SET_REGS", e))
        }
    }

    /// The guest's TSC frequency in kHz.
    pub fn tsc_khz(&self) -> Result<u32> {
        self.fd
            .get_tsc_khz()
            .map_err(|e| ioctl_error("KVM_GET_TSC_KHZ", e))
    }

    /// The guest's TSC now (its `IA32_TSC` MSR).
    pub fn tsc(&self) -> Result<u64> {
        let mut msrs = tsc_msr(0)?;
        let n = self
            .fd
            .get_msrs(&mut msrs)
            .map_err(|e| ioctl_error("KVM_GET_MSRS", e))?;
        match msrs.as_slice().first() {
            Some(e) if n == 1 => Ok(e.data),
            _ => Err(SysError::io(
                "KVM_GET_MSRS",
                std::io::Error::other("the TSC MSR was not read"),
            )),
        }
    }

    /// Sets the guest's TSC (its `IA32_TSC` MSR) to `value`.
    pub fn set_tsc(&self, value: u64) -> Result<()> {
        let msrs = tsc_msr(value)?;
        let n = self
            .fd
            .set_msrs(&msrs)
            .map_err(|e| ioctl_error("KVM_SET_MSRS", e))?;
        if n == 1 {
            Ok(())
        } else {
            Err(SysError::io(
                "KVM_SET_MSRS",
                std::io::Error::other("the TSC MSR was not written"),
            ))
        }
    }

    /// Enters the guest until it leaves for a reason the caller must see. Interruptions by
    /// signals that are not a kick re-enter the guest.
    pub fn run(&mut self) -> Result<VcpuExit> {
        install_kick_handler()?;
        unblock_kick_signal()?;
        self.kick
            .tid
            .store(crate::sched::gettid(), Ordering::SeqCst);
        let exit = self.run_on_this_thread();
        // Kicks from now on only set the request (no signal to a thread that left `run`, nor
        // to a later thread of this process that got the same id).
        self.kick.tid.store(0, Ordering::SeqCst);
        exit
    }

    fn run_on_this_thread(&mut self) -> Result<VcpuExit> {
        let immediate_exit: *mut u8 = &mut self.fd.get_kvm_run().immediate_exit;
        IMMEDIATE_EXIT.with(|p| p.store(immediate_exit, Ordering::SeqCst));
        let _guard = RunningGuard;
        loop {
            if self.kick.requested.swap(false, Ordering::SeqCst) {
                self.fd.set_kvm_immediate_exit(0);
                return Ok(VcpuExit::Kicked);
            }
            let result = self.fd.run();
            self.entered = true;
            let exit = match result {
                Ok(exit) => exit,
                Err(e) if e.errno() == libc::EINTR => {
                    // A signal (the kick, or another one): the loop looks at the request.
                    self.fd.set_kvm_immediate_exit(0);
                    continue;
                }
                Err(e) => return Err(ioctl_error("KVM_RUN", e)),
            };
            return Ok(match exit {
                kvm_ioctls::VcpuExit::MmioWrite(addr, bytes) => {
                    let mut data = [0u8; 8];
                    let len = bytes.len().min(8);
                    data[..len].copy_from_slice(&bytes[..len]);
                    VcpuExit::MmioWrite { addr, data, len }
                }
                kvm_ioctls::VcpuExit::MmioRead(addr, bytes) => {
                    bytes.fill(0);
                    VcpuExit::MmioRead {
                        addr,
                        len: bytes.len(),
                    }
                }
                kvm_ioctls::VcpuExit::Shutdown => VcpuExit::Shutdown,
                kvm_ioctls::VcpuExit::Hlt => VcpuExit::Hlt,
                kvm_ioctls::VcpuExit::IoOut(port, _) => VcpuExit::Io { port, out: true },
                kvm_ioctls::VcpuExit::IoIn(port, data) => {
                    data.fill(0);
                    VcpuExit::Io { port, out: false }
                }
                kvm_ioctls::VcpuExit::FailEntry(reason, _cpu) => VcpuExit::FailEntry(reason),
                kvm_ioctls::VcpuExit::InternalError => {
                    let run = self.fd.get_kvm_run();
                    // SAFETY: the exit reason is KVM_EXIT_INTERNAL_ERROR, so the kernel filled
                    // the `internal` member of the run page's exit union.
                    let suberror = unsafe { run.__bindgen_anon_1.internal.suberror };
                    VcpuExit::InternalError(suberror)
                }
                other => VcpuExit::Other(format!("{other:?}")),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kick_signal_is_a_real_time_signal() {
        assert!(kick_signal() >= libc::SIGRTMIN());
        assert!(kick_signal() <= libc::SIGRTMAX());
    }
}
