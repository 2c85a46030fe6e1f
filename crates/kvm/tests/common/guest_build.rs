// SPDX-License-Identifier: MIT OR Apache-2.0
//! Builds the guests of crates/kvm-guest (freestanding, in their own workspace and target
//! directory, `target/kvm-guest`). Shared by partita-kvm's tests and `partita bench kvm`'s smoke
//! test (`#[path]`), so it uses std only.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The repository root (both users are crates/<name>/tests).
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Builds every guest once per test process (cargo's lock on the target directory serialises
/// test processes) and returns the directory of the executables.
pub fn guests_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let target = repo().join("target/kvm-guest");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        // The guest workspace's own .cargo/config.toml sets the target and its flags: none of
        // the outer build's flags may reach it.
        let out = Command::new(cargo)
            .current_dir(repo().join("crates/kvm-guest"))
            .args(["build", "--release", "--bins", "--quiet", "--target-dir"])
            .arg(&target)
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .env_remove("CARGO_BUILD_RUSTFLAGS")
            .env_remove("CARGO_TARGET_DIR")
            .env_remove("CARGO_BUILD_TARGET")
            .output()
            .expect("run cargo for the guests");
        assert!(
            out.status.success(),
            "building the guests failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        target.join("x86_64-unknown-linux-gnu/release")
    })
}
