// SPDX-License-Identifier: MIT OR Apache-2.0
//! Functions of the running program found by name (the partition's entry function).

use std::ffi::CStr;

/// The address of the function `name` in the running program's dynamic symbol table (the
/// executable exports its functions when linked with `-rdynamic`, as `partita cc` does), or
/// `None` when no loaded object defines it.
pub fn exported_function(name: &CStr) -> Option<usize> {
    // SAFETY: `name` is a valid NUL-terminated string for the call; RTLD_DEFAULT searches the
    // global scope (the executable, then its libraries) and only reads the symbol tables.
    let addr = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
    (!addr.is_null()).then_some(addr as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_library_function_and_not_a_made_up_one() {
        // `getpid` is exported by the C library every test binary links.
        assert!(exported_function(c"getpid").is_some());
        assert_eq!(
            exported_function(c"partita_no_such_function_anywhere"),
            None
        );
    }
}
