// SPDX-License-Identifier: MIT OR Apache-2.0
//! The partition's entry function in its executable: `EntryPoint` read as a function name
//! (with `partita:Executable`) must be a C identifier that the executable's dynamic symbol
//! table defines, because the runtime finds it there (`dlsym`) before `main` would run.

use object::{Object, ObjectSymbol};
use std::path::Path;

/// What an executable holds under an entry function's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EntryLookup {
    /// A defined, exported function: the runtime can start there.
    Exported,
    /// Defined, but only in the static symbol table (not linked with `-rdynamic`) or local
    /// (`static`): the runtime cannot find it.
    NotExported,
    /// Not defined in the executable.
    Absent,
    /// Not an ELF file (a script, say): nothing to check, the program is not started through
    /// the runtime's entry function.
    NotElf,
}

/// Whether `name` is a C identifier (what a function name in `EntryPoint` must be).
pub(crate) fn is_c_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Looks `name` up in the executable at `path`.
pub(crate) fn lookup(path: &Path, name: &str) -> std::io::Result<EntryLookup> {
    let data = std::fs::read(path)?;
    let Ok(file) = object::File::parse(&*data) else {
        return Ok(EntryLookup::NotElf);
    };
    if file.format() != object::BinaryFormat::Elf {
        return Ok(EntryLookup::NotElf);
    }
    let defined_function = |s: &object::Symbol<'_, '_>| {
        s.name() == Ok(name) && s.is_definition() && s.kind() == object::SymbolKind::Text
    };
    if file
        .dynamic_symbols()
        .any(|s| defined_function(&s) && s.is_global())
    {
        return Ok(EntryLookup::Exported);
    }
    if file.symbols().any(|s| defined_function(&s)) {
        return Ok(EntryLookup::NotExported);
    }
    Ok(EntryLookup::Absent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_identifiers() {
        for ok in ["main", "main_process", "_start2", "P1"] {
            assert!(is_c_identifier(ok), "{ok}");
        }
        for bad in ["", "1main", "../bin/p", "main-process", "a b", "prog.elf"] {
            assert!(!is_c_identifier(bad), "{bad}");
        }
    }

    #[test]
    fn a_script_is_not_elf() {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bin/true.sh");
        assert_eq!(lookup(&script, "main").unwrap(), EntryLookup::NotElf);
    }

    #[test]
    fn an_elf_without_the_function() {
        // This test program is an ELF executable that defines no such function.
        let exe = std::env::current_exe().unwrap();
        assert_eq!(
            lookup(&exe, "partita_no_such_entry_function").unwrap(),
            EntryLookup::Absent
        );
    }
}
