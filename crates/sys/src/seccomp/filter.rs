// SPDX-License-Identifier: MIT OR Apache-2.0
//! Compiling the allow-list into the partition filters (manager side, `host` feature).

use super::{Args, Profile};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};
use std::collections::BTreeMap;

/// Value compiled into every comparison against the partition's own process id, replaced in
/// the child (see the module documentation).
const OWN_PID_PLACEHOLDER: u32 = 0x4F57_4E50;

/// The compiled filters of a partition.
#[derive(Debug, Clone)]
pub struct Filters {
    /// Installed first: `clone3` fails with `ENOSYS`, everything else passes to the next.
    pub prefix: Vec<libc::sock_filter>,
    /// The allow-list; any other call traps.
    pub main: Vec<libc::sock_filter>,
    /// Indexes in [`Filters::main`] of the instructions comparing with the own process id.
    pub own_pid_slots: Vec<usize>,
}

/// Why the filter could not be compiled (a defect of the table, or an unsupported
/// architecture).
#[derive(Debug, thiserror::Error)]
#[error("seccomp filter: {0}")]
pub struct FilterError(String);

fn cond(
    arg: u8,
    len: SeccompCmpArgLen,
    op: SeccompCmpOp,
    value: u64,
) -> Result<SeccompCondition, FilterError> {
    SeccompCondition::new(arg, len, op, value).map_err(|e| FilterError(e.to_string()))
}

fn rule(c: SeccompCondition) -> Result<SeccompRule, FilterError> {
    SeccompRule::new(vec![c]).map_err(|e| FilterError(e.to_string()))
}

fn rules(args: Args) -> Result<Vec<SeccompRule>, FilterError> {
    use SeccompCmpArgLen::{Dword, Qword};
    use SeccompCmpOp::{Eq, MaskedEq};
    Ok(match args {
        Args::Any => Vec::new(),
        Args::OneOf(i, values) => values
            .iter()
            .map(|&v| rule(cond(i, Dword, Eq, v)?))
            .collect::<Result<_, _>>()?,
        Args::SelfOrZero(i) => vec![
            rule(cond(i, Dword, Eq, 0)?)?,
            rule(cond(i, Dword, Eq, OWN_PID_PLACEHOLDER as u64)?)?,
        ],
        Args::SelfOnly(i) => vec![rule(cond(i, Dword, Eq, OWN_PID_PLACEHOLDER as u64)?)?],
        Args::NoBits(i, mask) => vec![rule(cond(i, Qword, MaskedEq(mask), 0)?)?],
    })
}

fn arch() -> Result<TargetArch, FilterError> {
    std::env::consts::ARCH
        .try_into()
        .map_err(|e: seccompiler::BackendError| FilterError(e.to_string()))
}

fn to_libc(p: BpfProgram) -> Vec<libc::sock_filter> {
    p.into_iter()
        .map(|i| libc::sock_filter {
            code: i.code,
            jt: i.jt,
            jf: i.jf,
            k: i.k,
        })
        .collect()
}

/// Compiles the partition filters of `profile`.
pub fn compile(profile: Profile) -> Result<Filters, FilterError> {
    let arch = arch()?;
    let allowed = profile.allowed();
    let mut map: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for a in &allowed {
        if map.insert(a.nr, rules(a.args)?).is_some() {
            return Err(FilterError(format!("{} is listed twice", a.name)));
        }
    }
    let main = SeccompFilter::new(map, SeccompAction::Trap, SeccompAction::Allow, arch)
        .map_err(|e| FilterError(e.to_string()))?;
    let main = to_libc(BpfProgram::try_from(main).map_err(|e| FilterError(e.to_string()))?);
    let mut prefix_map = BTreeMap::new();
    prefix_map.insert(libc::SYS_clone3, Vec::new());
    let prefix = SeccompFilter::new(
        prefix_map,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )
    .map_err(|e| FilterError(e.to_string()))?;
    let prefix = to_libc(BpfProgram::try_from(prefix).map_err(|e| FilterError(e.to_string()))?);
    let jeq = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
    let own_pid_slots: Vec<usize> = main
        .iter()
        .enumerate()
        .filter(|(_, i)| i.code == jeq && i.k == OWN_PID_PLACEHOLDER)
        .map(|(n, _)| n)
        .collect();
    let expected = allowed
        .iter()
        .filter(|a| matches!(a.args, Args::SelfOrZero(_) | Args::SelfOnly(_)))
        .count();
    if own_pid_slots.len() != expected {
        return Err(FilterError(format!(
            "found {} own-pid comparisons, expected {expected}",
            own_pid_slots.len()
        )));
    }
    Ok(Filters {
        prefix,
        main,
        own_pid_slots,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_compiles_and_finds_its_own_pid_slots() {
        let f = compile(Profile::Apex).unwrap();
        assert!(!f.main.is_empty() && !f.prefix.is_empty());
        assert!(f.main.len() < 4096);
        // kill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo, prlimit64.
        assert_eq!(f.own_pid_slots.len(), 5);
        // The general profile: only prlimit64 compares with its own pid.
        let g = compile(Profile::General).unwrap();
        assert_eq!(g.own_pid_slots.len(), 1);
        assert!(g.main.len() > f.main.len());
    }

    /// Loads the filter in a forked child and checks a trap, a refused argument and an
    /// allowed call.
    #[test]
    fn the_filter_traps_forbidden_calls_in_a_child() {
        let f = compile(Profile::Apex).unwrap();
        let mut main = f.main.clone();
        let mut prefix = f.prefix.clone();
        // SAFETY: fork in a test; the child only makes system calls on memory prepared
        // before the fork and ends with _exit.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0);
        if pid == 0 {
            // SAFETY: as above.
            unsafe {
                let me = libc::getpid() as u32;
                for &i in &f.own_pid_slots {
                    main[i].k = me;
                }
                libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
                for p in [&mut prefix, &mut main] {
                    let prog = libc::sock_fprog {
                        len: p.len() as u16,
                        filter: p.as_mut_ptr(),
                    };
                    if libc::syscall(libc::SYS_seccomp, libc::SECCOMP_SET_MODE_FILTER, 0, &prog)
                        != 0
                    {
                        libc::_exit(10);
                    }
                }
                // clone3 answers ENOSYS.
                if libc::syscall(libc::SYS_clone3, 0usize, 0usize) != -1
                    || *libc::__errno_location() != libc::ENOSYS
                {
                    libc::_exit(11);
                }
                // A signal to itself passes (SIGCONT, ignored by default).
                if libc::kill(me as i32, libc::SIGCONT) != 0 {
                    libc::_exit(12);
                }
                // kill of another pid traps: default action of SIGSYS ends the child.
                libc::kill(1, 0);
                libc::_exit(13);
            }
        }
        let mut status = 0;
        // SAFETY: waiting for our own child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        assert!(
            libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGSYS,
            "child status {status:#x} (exit {})",
            libc::WEXITSTATUS(status)
        );
    }
}
