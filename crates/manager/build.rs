// SPDX-License-Identifier: MIT OR Apache-2.0
//! Sets `PARTITA_REVISION`, the Partita revision a trace file's header names
//! (`TraceMeta.host.revision`): `git describe --always --dirty` of the source tree when it is
//! a git checkout and `git` runs, the crate version otherwise (a source archive, no `git`).
//! Local only: no network, and a missing or failing `git` is not an error.

use std::path::Path;
use std::process::Command;

/// The output of `git ARGS` run in `dir`, trimmed, when it succeeds.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (out.status.success() && !text.is_empty()).then(|| text.to_string())
}

fn main() {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&dir);
    let revision = git(dir, &["describe", "--always", "--dirty"]);
    // Rebuild when the checked-out commit or the index changes (a commit, a checkout, staged
    // edits); edits of this crate's own sources rebuild it anyway. Only files that exist
    // (cargo reruns the script on every build for a missing one, e.g. a packed branch ref).
    if revision.is_some() {
        let head = git(dir, &["symbolic-ref", "-q", "HEAD"]);
        for name in ["HEAD", "index"].into_iter().chain(head.as_deref()) {
            if let Some(path) = git(dir, &["rev-parse", "--git-path", name]) {
                let path = dir.join(path);
                if path.exists() {
                    println!("cargo:rerun-if-changed={}", path.display());
                }
            }
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
    let revision = revision.unwrap_or_else(|| {
        std::env::var("CARGO_PKG_VERSION").expect("cargo sets CARGO_PKG_VERSION")
    });
    println!("cargo:rustc-env=PARTITA_REVISION={revision}");
}
