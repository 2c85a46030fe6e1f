//! The embedded default module: what `partita run` runs without a file.
//!
//! Its configuration and C sources are compiled into the binary; on first use they are written
//! to a cache directory and the partitions are built with `partita cc`.

use std::path::PathBuf;

const MODULE: &str = include_str!("../../../examples/hello/module.xml");
const HELLO_C: &str = include_str!("../../../examples/hello/hello.c");

/// Writes the embedded module and builds its partitions; returns the module file.
pub fn materialise() -> Result<PathBuf, String> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    let dir = base.join("partita").join("hello");
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).map_err(|e| format!("{}: {e}", bin.display()))?;
    let write = |name: &str, text: &str| -> Result<PathBuf, String> {
        let p = dir.join(name);
        if std::fs::read_to_string(&p).ok().as_deref() != Some(text) {
            std::fs::write(&p, text).map_err(|e| format!("{}: {e}", p.display()))?;
        }
        Ok(p)
    };
    let module = write("module.xml", MODULE)?;
    let src = write("hello.c", HELLO_C)?;
    let exe = bin.join("hello");
    let status = crate::cc::compile(&[
        "-O2".into(),
        "-Wall".into(),
        src.display().to_string(),
        "-o".into(),
        exe.display().to_string(),
    ])?;
    if status != 0 {
        return Err(format!("compiling {} failed", src.display()));
    }
    Ok(module)
}
