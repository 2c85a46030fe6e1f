// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita cc`: compile and link a C partition against the APEX runtime, the way `mpicc`
//! wraps the system compiler.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};

/// Why `partita cc` could not find or build the runtime library, or run the compiler.
#[derive(Debug, thiserror::Error)]
pub enum CcError {
    /// The `partita` executable cannot be located.
    #[error("cannot locate partita: {0}")]
    NoExecutable(#[source] std::io::Error),
    /// The `partita` executable path has no directory.
    #[error("partita has no parent directory")]
    NoExecutableDirectory,
    /// cargo could not be started.
    #[error("building the APEX runtime library with cargo: {0}")]
    Cargo(#[source] std::io::Error),
    /// cargo ran but the library is not there.
    #[error("building the APEX runtime library failed ({0}); set PARTITA_LIB_DIR to a directory with libpartita_apex.a")]
    BuildFailed(ExitStatus),
    /// The C compiler could not be started.
    #[error("running {compiler}: {source}")]
    Compiler {
        /// The compiler command (`$CC` or `cc`).
        compiler: String,
        /// Why it did not start.
        source: std::io::Error,
    },
}

/// Libraries a Rust static library needs from the C side.
pub const NATIVE_LIBS: &[&str] = &["-lpthread", "-ldl", "-lm", "-lrt", "-lgcc_s"];

/// Link options for the partition's entry function (`EntryPoint`, docs/entry-point.md):
/// export the program's functions so that the runtime finds the entry function by name, and
/// take the runtime's entry object (its constructor and weak `main`) even when the program
/// has a `main` of its own.
pub const ENTRY_LINK_FLAGS: &[&str] = &["-rdynamic", "-Wl,--undefined=partita_entry_hook"];

/// Where the workspace was when this binary was built (to find the header and build the
/// runtime library from a fresh clone).
fn workspace_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."))
}

/// The directory holding `ARINC653.h`.
pub fn include_dir() -> PathBuf {
    std::env::var_os("PARTITA_INCLUDE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_dir().join("include"))
}

/// The directory holding `libpartita_apex.a` (next to the `partita` binary), built or
/// refreshed with cargo when `partita` runs from a source tree.
pub fn lib_dir() -> Result<PathBuf, CcError> {
    if let Some(d) = std::env::var_os("PARTITA_LIB_DIR") {
        return Ok(PathBuf::from(d));
    }
    let exe = std::env::current_exe().map_err(CcError::NoExecutable)?;
    let dir = exe
        .parent()
        .map(Path::to_path_buf)
        .ok_or(CcError::NoExecutableDirectory)?;
    // target/<profile>/partita, or target/<profile>/deps/... for test binaries.
    let dir = if dir.ends_with("deps") {
        dir.parent().map(Path::to_path_buf).unwrap_or(dir)
    } else {
        dir
    };
    let lib = dir.join("libpartita_apex.a");
    // From a source tree, let cargo bring the library up to date (a no-op when it is).
    let stale = workspace_dir().join("Cargo.toml").exists() || !lib.exists();
    if stale {
        let profile = dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("debug")
            .to_string();
        let target_dir = dir.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        cmd.arg("build")
            .arg("--quiet")
            .arg("-p")
            .arg("partita-apex")
            .arg("--manifest-path")
            .arg(workspace_dir().join("Cargo.toml"))
            .arg("--target-dir")
            .arg(&target_dir);
        if profile != "debug" {
            cmd.arg("--profile").arg(&profile);
        }
        let st = cmd.status().map_err(CcError::Cargo)?;
        if !st.success() || !lib.exists() {
            return Err(CcError::BuildFailed(st));
        }
    }
    Ok(dir)
}

/// Runs the C compiler with the APEX include path and runtime library added.
pub fn compile(args: &[String]) -> Result<i32, CcError> {
    let lib = lib_dir()?;
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let mut cmd = Command::new(&cc);
    cmd.arg(format!("-I{}", include_dir().display()));
    cmd.args(args);
    cmd.args(ENTRY_LINK_FLAGS);
    cmd.arg(lib.join("libpartita_apex.a"));
    cmd.args(NATIVE_LIBS);
    let st = cmd.status().map_err(|source| CcError::Compiler {
        compiler: cc.clone(),
        source,
    })?;
    Ok(st.code().unwrap_or(1))
}

/// The flags `partita cc` adds, for other build systems.
pub fn flags() -> Result<(String, String), CcError> {
    let lib = lib_dir()?;
    Ok((
        format!("-I{}", include_dir().display()),
        format!(
            "{} {} {}",
            ENTRY_LINK_FLAGS.join(" "),
            lib.join("libpartita_apex.a").display(),
            NATIVE_LIBS.join(" ")
        ),
    ))
}

/// A pkg-config file for the runtime.
pub fn pkg_config() -> Result<String, CcError> {
    let lib = lib_dir()?;
    Ok(format!(
        "prefix={}\nincludedir={}\nlibdir={}\n\nName: partita-apex\nDescription: Partita ARINC 653 APEX runtime for Linux partitions\nVersion: {}\nCflags: -I${{includedir}}\nLibs: {} ${{libdir}}/libpartita_apex.a\nLibs.private: {}\n",
        workspace_dir().display(),
        include_dir().display(),
        lib.display(),
        env!("CARGO_PKG_VERSION"),
        ENTRY_LINK_FLAGS.join(" "),
        NATIVE_LIBS.join(" ")
    ))
}
