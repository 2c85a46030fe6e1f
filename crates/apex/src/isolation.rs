// SPDX-License-Identifier: MIT OR Apache-2.0
//! The partition runtime's side of isolation: a system call refused by the partition's
//! seccomp filter (see `partita_sys::seccomp` and `docs/seccomp.md`) arrives as SIGSYS on
//! the calling thread and is raised to the health monitor as ILLEGAL_REQUEST, like a
//! hardware fault (`Runtime::fault`): the error handler takes it, or it is handled at
//! partition level and the process is stopped. The refused call was not executed. On the
//! main process (or a thread the runtime did not create) the partition dies of the signal
//! and the manager records ILLEGAL_REQUEST.

use partita_sys::fault::Fault;

/// The health-monitor message of a refused system call, e.g.
/// `forbidden system call ptrace (101)`.
pub fn illegal_call_message(f: &Fault) -> String {
    match partita_sys::seccomp::syscall_name(f.syscall as i64) {
        Some(name) => format!("forbidden system call {name} ({})", f.syscall),
        None => format!("forbidden system call {}", f.syscall),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use partita_sys::fault::FaultSignal;

    #[test]
    fn names_known_calls() {
        let f = Fault {
            signal: FaultSignal::Sys,
            code: 1,
            address: 0,
            syscall: libc_ptrace(),
        };
        assert_eq!(
            illegal_call_message(&f),
            format!("forbidden system call ptrace ({})", libc_ptrace())
        );
        let f = Fault {
            syscall: 99_999,
            ..f
        };
        assert_eq!(illegal_call_message(&f), "forbidden system call 99999");
    }

    fn libc_ptrace() -> i32 {
        partita_sys::seccomp::DENIED
            .iter()
            .find(|d| d.name == "ptrace")
            .map(|d| d.nr as i32)
            .unwrap()
    }
}
