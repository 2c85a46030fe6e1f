// SPDX-License-Identifier: MIT OR Apache-2.0
//! Why the guest stopped: every way out of [`crate::Vm::run`], typed.

/// Why [`crate::Vm::run`] returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// The guest made a hypercall, already answered; [`crate::Vm::run`] resumes it.
    Hypercall(Hypercall),
    /// The guest ended itself (the exit hypercall) with this code. It cannot run again.
    Exited {
        /// Its exit code.
        code: u64,
    },
    /// A CPU exception in the guest. It cannot run again.
    Fault(Fault),
    /// The guest shut down: an exception while delivering an exception while delivering an
    /// exception. It cannot run again.
    TripleFault,
    /// A hypercall with invalid arguments, refused (the guest sees
    /// `HypercallStatus::Refused` where its request block is valid). It may be resumed; what
    /// to do is the caller's decision (the health monitor's, later).
    BadHypercall(BadHypercall),
    /// Stopped by a kick ([`crate::Vm::kicker`]); [`crate::Vm::run`] resumes it.
    Kicked,
}

/// An answered hypercall.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hypercall {
    /// Output: the bytes the guest wrote.
    Write(Vec<u8>),
    /// A round trip: the value echoed.
    Echo(u64),
}

/// A CPU exception the guest took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    /// The exception vector (0 = divide error, 6 = invalid opcode, 13 = general protection,
    /// 14 = page fault, ...).
    pub vector: u8,
    /// The error code the CPU pushed, for the vectors that have one.
    pub error_code: Option<u64>,
    /// The instruction that faulted.
    pub rip: u64,
    /// For a page fault, the address accessed (CR2).
    pub address: Option<u64>,
    /// Whether the fault came from the guest's user code (it always should: the only other
    /// code is the monitor's fault stubs).
    pub from_user: bool,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (vector {})", mnemonic(self.vector), self.vector)?;
        if let Some(e) = self.error_code {
            write!(f, ", error code {e:#x}")?;
        }
        write!(f, " at rip {:#x}", self.rip)?;
        if let Some(a) = self.address {
            write!(f, ", address {a:#x}")?;
        }
        if !self.from_user {
            write!(f, " (in the monitor's fault stub)")?;
        }
        Ok(())
    }
}

impl std::error::Error for Fault {}

/// The usual mnemonic of an exception vector.
pub fn mnemonic(vector: u8) -> &'static str {
    match vector {
        0 => "#DE divide error",
        1 => "#DB debug",
        2 => "NMI",
        3 => "#BP breakpoint",
        4 => "#OF overflow",
        5 => "#BR bound range",
        6 => "#UD invalid opcode",
        7 => "#NM device not available",
        8 => "#DF double fault",
        10 => "#TS invalid TSS",
        11 => "#NP segment not present",
        12 => "#SS stack fault",
        13 => "#GP general protection",
        14 => "#PF page fault",
        16 => "#MF x87 error",
        17 => "#AC alignment check",
        18 => "#MC machine check",
        19 => "#XM SIMD error",
        20 => "#VE virtualization",
        21 => "#CP control protection",
        v if v < 32 => "reserved exception",
        _ => "interrupt",
    }
}

/// A refused hypercall.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("bad hypercall at rip {rip:#x}: {reason}")]
pub struct BadHypercall {
    /// The instruction that rang the doorbell.
    pub rip: u64,
    /// What was wrong.
    pub reason: BadHypercallReason,
}

/// What was wrong with a hypercall.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BadHypercallReason {
    /// The doorbell store was not one 8-byte store.
    #[error("doorbell store of {len} bytes, expected 8")]
    StoreSize {
        /// Bytes stored.
        len: usize,
    },
    /// The store hit the doorbell page elsewhere than the doorbell.
    #[error("store to {addr:#x}, not the doorbell")]
    DoorbellOffset {
        /// The address stored to.
        addr: u64,
    },
    /// The guest loaded from the doorbell instead of storing.
    #[error("load from the doorbell")]
    Load,
    /// The request block address is not 8-byte aligned.
    #[error("request block {addr:#x} is not 8-byte aligned")]
    Misaligned {
        /// The address stored.
        addr: u64,
    },
    /// The request block is not inside the guest's user memory.
    #[error("request block {addr:#x} is outside user memory")]
    BlockOutside {
        /// The address stored.
        addr: u64,
    },
    /// The hypercall number is not one of `partita_abi::vm::HypercallNumber`.
    #[error("unknown hypercall number {0}")]
    UnknownNumber(u32),
    /// A buffer argument is not inside the guest's user memory.
    #[error("buffer {addr:#x}+{len} is outside user memory")]
    BufferOutside {
        /// Its address.
        addr: u64,
        /// Its length.
        len: u64,
    },
    /// A length argument is larger than the hypercall allows.
    #[error("length {len} exceeds {max}")]
    TooLong {
        /// The length.
        len: u64,
        /// The largest allowed.
        max: u64,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fault_names_its_exception_and_where() {
        let f = Fault {
            vector: 14,
            error_code: Some(6),
            rip: 0x20_1000,
            address: Some(0x3000_0000),
            from_user: true,
        };
        assert_eq!(
            f.to_string(),
            "#PF page fault (vector 14), error code 0x6 at rip 0x201000, address 0x30000000"
        );
        let b = BadHypercall {
            rip: 0x20_0010,
            reason: BadHypercallReason::UnknownNumber(99),
        };
        assert_eq!(
            b.to_string(),
            "bad hypercall at rip 0x200010: unknown hypercall number 99"
        );
        assert_eq!(mnemonic(6), "#UD invalid opcode");
        assert_eq!(mnemonic(32), "interrupt");
    }
}
