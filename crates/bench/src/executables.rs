// SPDX-License-Identifier: MIT OR Apache-2.0
//! Where the bench finds its measuring processes: the executables of
//! `partita-bench-partitions`, next to the running executable (where cargo puts every binary
//! of a workspace build), or in the directory named by [`PARTITIONS_DIR_ENV`].

use crate::BenchError;
use std::path::{Path, PathBuf};

/// Environment variable naming the directory of the benchmark executables (default: the
/// directory of the running executable).
pub const PARTITIONS_DIR_ENV: &str = "PARTITA_BENCH_PARTITIONS_DIR";

/// The path of the benchmark executable `name` (one of `partita_bench_protocol::EXECUTABLES`),
/// checked to exist.
pub fn partition_executable(name: &str) -> Result<PathBuf, BenchError> {
    let dir = match std::env::var_os(PARTITIONS_DIR_ENV) {
        Some(d) => PathBuf::from(d),
        None => own_dir()?,
    };
    find_in(&dir, name)
}

fn own_dir() -> Result<PathBuf, BenchError> {
    let exe = std::env::current_exe().map_err(BenchError::OwnExecutable)?;
    Ok(exe
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("/")))
}

fn find_in(dir: &Path, name: &str) -> Result<PathBuf, BenchError> {
    let path = dir.join(name);
    if path.is_file() {
        Ok(path)
    } else {
        Err(BenchError::MissingExecutable { path })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_executable_names_its_path_and_how_to_build_it() {
        let dir = std::env::temp_dir().join(format!("partita-bench-exe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let name = partita_bench_protocol::SPINNER;
        let e = find_in(&dir, name).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains(&dir.join(name).display().to_string())
                && text.contains("cargo build -p partita-bench-partitions")
                && text.contains(PARTITIONS_DIR_ENV),
            "{text}"
        );
        std::fs::write(dir.join(name), b"").unwrap();
        let found = find_in(&dir, name);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(found.unwrap(), dir.join(name));
    }
}
