// SPDX-License-Identifier: MIT OR Apache-2.0
//! The partition's entry function (`EntryPoint`, see [`crate::entry`]): a constructor that
//! runs before `main` and starts the configured function instead, and a weak `main` for
//! programs that have none.
//!
//! Both live in one `global_asm!` block, so they are in one object file of the runtime
//! library: the linker takes that object when the program has no `main` (the weak `main`
//! resolves the C start-up code's reference) or when `partita cc` asks for
//! `partita_entry_hook` (`-Wl,--undefined=partita_entry_hook`), and with it the constructor.

use core::ffi::c_int;

#[cfg(target_arch = "x86_64")]
core::arch::global_asm!(
    ".pushsection .text.partita_entry,\"ax\",@progbits",
    ".globl partita_entry_hook",
    ".weak main",
    ".type main,@function",
    "partita_entry_hook:",
    "main:",
    "jmp {default_main}",
    ".size main, . - main",
    ".popsection",
    ".pushsection .init_array,\"aw\",@init_array",
    ".balign 8",
    ".quad {constructor}",
    ".popsection",
    default_main = sym partita_default_main,
    constructor = sym partita_entry_constructor,
);

#[cfg(target_arch = "aarch64")]
core::arch::global_asm!(
    ".pushsection .text.partita_entry,\"ax\",%progbits",
    ".globl partita_entry_hook",
    ".weak main",
    ".type main,%function",
    "partita_entry_hook:",
    "main:",
    "b {default_main}",
    ".size main, . - main",
    ".popsection",
    ".pushsection .init_array,\"aw\",%init_array",
    ".balign 8",
    ".xword {constructor}",
    ".popsection",
    default_main = sym partita_default_main,
    constructor = sym partita_entry_constructor,
);

/// Runs before `main` (an ELF constructor): when the configuration names an entry function
/// other than `main`, runs it as the partition's main process and ends the program as `main`
/// returning 0 would (C `exit`, which flushes stdio); a function the executable does not
/// export ends the partition with a report ([`crate::entry::fail`]). Does nothing otherwise.
extern "C" fn partita_entry_constructor() {
    let Some(name) = crate::entry::requested() else {
        return;
    };
    match crate::entry::find(&name) {
        Ok(addr) => {
            // SAFETY: `addr` is the address of the function the executable exports under the
            // name the configuration gives as its entry point; ARINC 653 entry points take no
            // arguments and return nothing (`void f(void)`), and a function returning `int`
            // called this way only has its result ignored (same calling convention register).
            let entry: extern "C" fn() = unsafe { std::mem::transmute(addr) };
            entry();
            std::process::exit(0);
        }
        Err(e) => crate::entry::fail(&e.to_string()),
    }
}

/// The `main` of a program that defines none (the weak `main` above jumps here): reached only
/// when no entry function was configured, which [`crate::entry::no_main`] reports.
extern "C" fn partita_default_main(_argc: c_int, _argv: *const *const core::ffi::c_char) -> c_int {
    crate::entry::no_main()
}
