// SPDX-License-Identifier: MIT OR Apache-2.0
//! The embedded default module: what `partita run` runs without a file.
//!
//! It is the flagship example (`examples/flagship`): its configuration and C sources are
//! compiled into the binary; on first use they are written to a cache directory and the
//! partitions are built with `partita cc`. Partitions only read and execute there (the
//! executables are started through a descriptor), so a root-owned cache is fine.

use crate::cc::CcError;
use std::path::PathBuf;

/// Why the embedded module could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum EmbeddedError {
    /// A file of the cache directory could not be written.
    #[error("{}: {source}", path.display())]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `partita cc` could not run.
    #[error(transparent)]
    Cc(#[from] CcError),
    /// A partition's C source did not compile.
    #[error("compiling {} failed", .0.display())]
    CompileFailed(PathBuf),
}

fn write_error(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> EmbeddedError + '_ {
    move |source| EmbeddedError::Write {
        path: path.to_path_buf(),
        source,
    }
}

const MODULE: &str = include_str!("../../../examples/flagship/module.xml");
const HEADER: (&str, &str) = (
    "flagship.h",
    include_str!("../../../examples/flagship/flagship.h"),
);
/// The partitions: (executable name, C source).
const PARTITIONS: [(&str, &str); 4] = [
    ("fcs", include_str!("../../../examples/flagship/fcs.c")),
    ("nav", include_str!("../../../examples/flagship/nav.c")),
    ("video", include_str!("../../../examples/flagship/video.c")),
    (
        "health",
        include_str!("../../../examples/flagship/health.c"),
    ),
];

/// Writes the embedded module and builds its partitions; returns the module file.
pub fn materialise() -> Result<PathBuf, EmbeddedError> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    let dir = base.join("partita").join("flagship");
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).map_err(write_error(&bin))?;
    // Several runs may materialise the module at once (two users of one account, parallel
    // tests): every file is written under a name of this process and renamed into place, so
    // nobody reads a half-written source or executes an executable being written ("Text file
    // busy"); a running partition keeps the executable it started from.
    let private = |p: &std::path::Path| {
        let mut name = p.file_name().unwrap_or_default().to_os_string();
        name.push(format!(".{}.tmp", std::process::id()));
        p.with_file_name(name)
    };
    let write = |name: &str, text: &str| -> Result<PathBuf, EmbeddedError> {
        let p = dir.join(name);
        if std::fs::read_to_string(&p).ok().as_deref() != Some(text) {
            let tmp = private(&p);
            std::fs::write(&tmp, text).map_err(write_error(&tmp))?;
            std::fs::rename(&tmp, &p).map_err(write_error(&p))?;
        }
        Ok(p)
    };
    let module = write("module.xml", MODULE)?;
    write(HEADER.0, HEADER.1)?;
    // Always rebuilt: the executables link this binary's runtime library.
    for (name, text) in PARTITIONS {
        let src = write(&format!("{name}.c"), text)?;
        let exe = bin.join(name);
        let tmp = private(&exe);
        let status = crate::cc::compile(&[
            "-O2".into(),
            "-Wall".into(),
            src.display().to_string(),
            "-o".into(),
            tmp.display().to_string(),
        ])?;
        if status != 0 {
            let _ = std::fs::remove_file(&tmp);
            return Err(EmbeddedError::CompileFailed(src));
        }
        std::fs::rename(&tmp, &exe).map_err(write_error(&exe))?;
    }
    Ok(module)
}
