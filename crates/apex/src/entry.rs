// SPDX-License-Identifier: MIT OR Apache-2.0
//! Starting a partition at the entry function its configuration names.
//!
//! The standard's `EntryPoint` names the partition's entry function. With
//! `<partita:Executable path="...">` the manager passes that name to the partition in
//! [`ENV_ENTRY_FUNCTION`]; the C binding's constructor (`ffi/entry.rs`) runs before `main`,
//! finds the function in the executable's dynamic symbol table and runs it as the partition's
//! initialisation (main process) in place of `main`. The runtime also provides a weak `main`,
//! so that a program whose entry function is not `main` (JetOS style: `main_process`) links
//! without one.

use partita_sys::control::ENV_ENTRY_FUNCTION;
use std::ffi::CString;

/// Exit status of a partition whose entry function cannot be started (as a shell's "command
/// not found").
pub const EXIT_NO_ENTRY: i32 = 127;

/// The entry function to start instead of `main`: `None` when none is requested (standalone
/// run, or the configuration's entry function is `main`).
pub fn requested() -> Option<String> {
    std::env::var(ENV_ENTRY_FUNCTION)
        .ok()
        .filter(|f| !f.is_empty() && f != "main")
}

/// Why the requested entry function cannot be started.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntryError {
    /// The name cannot be a symbol name.
    #[error("entry function {0:?} contains a NUL")]
    Nul(String),
    /// The executable does not export a function of that name.
    #[error(
        "entry function \"{0}\" (EntryPoint) is not exported by the executable: \
         define it as a non-static function and link with `partita cc` (-rdynamic)"
    )]
    NotExported(String),
}

/// The address of the requested entry function.
pub fn find(name: &str) -> Result<usize, EntryError> {
    let c = CString::new(name).map_err(|_| EntryError::Nul(name.to_string()))?;
    partita_sys::symbol::exported_function(&c)
        .ok_or_else(|| EntryError::NotExported(name.to_string()))
}

/// Reports an entry function that cannot be started (on the report channel as a partition
/// error, and on stderr) and ends the partition with [`EXIT_NO_ENTRY`].
pub fn fail(message: &str) -> ! {
    eprintln!("partita runtime: {message}");
    if let Ok(rt) = crate::runtime::get() {
        rt.report_start_failure(message.as_bytes());
    }
    std::process::exit(EXIT_NO_ENTRY)
}

/// The runtime's `main`, linked only when the program has none: the partition was meant to
/// start at an entry function, but none is requested.
pub fn no_main() -> ! {
    fail(&format!(
        "the program has no main function and no entry function is configured \
         (give EntryPoint=\"<function>\" with <partita:Executable>, or set {ENV_ENTRY_FUNCTION})"
    ))
}
