// SPDX-License-Identifier: MIT OR Apache-2.0
//! The project's habits, checked: every crate takes the workspace's lints, and the two crates
//! that hold unsafe code (partita-sys, partita-apex) repeat them with only `unsafe_code` changed.

use std::path::{Path, PathBuf};

use toml_edit::{DocumentMut, Item};

/// The workspace root (two levels above this crate).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .unwrap()
        .to_path_buf()
}

fn manifest(path: &Path) -> DocumentMut {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The crates that may hold unsafe code, with the `unsafe_code` level each declares.
const UNSAFE_CRATES: [(&str, &str); 2] = [("sys", "allow"), ("apex", "deny")];

/// Lint levels of a `[lints]`-style table as (group.lint, rendered level) pairs.
fn levels(table: &Item) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (group, lints) in table.as_table_like().expect("lints table").iter() {
        for (lint, level) in lints.as_table_like().expect("lint group").iter() {
            let rendered = match level.as_value() {
                Some(v) if v.is_inline_table() => v.to_string().trim().to_string(),
                Some(v) => v.as_str().expect("lint level").to_string(),
                None => panic!("{group}.{lint}: not a value"),
            };
            out.push((format!("{group}.{lint}"), rendered));
        }
    }
    out.sort();
    out
}

#[test]
fn every_crate_takes_the_workspace_lints() {
    let root = root();
    let workspace = manifest(&root.join("Cargo.toml"));
    let ws_lints = levels(&workspace["workspace"]["lints"]);
    assert!(
        ws_lints.contains(&("rust.unsafe_code".into(), "forbid".into())),
        "[workspace.lints] must forbid unsafe_code: {ws_lints:?}"
    );
    let members = workspace["workspace"]["members"]
        .as_array()
        .expect("members");
    assert!(!members.is_empty());
    for member in members.iter() {
        let dir = member.as_str().expect("member path");
        let crate_manifest = manifest(&root.join(dir).join("Cargo.toml"));
        let lints = crate_manifest
            .get("lints")
            .unwrap_or_else(|| panic!("{dir}/Cargo.toml has no [lints] table"));
        let name = dir.trim_start_matches("crates/");
        match UNSAFE_CRATES.iter().find(|(n, _)| *n == name) {
            None => assert_eq!(
                lints.get("workspace").and_then(|w| w.as_bool()),
                Some(true),
                "{dir}/Cargo.toml: [lints] must be `workspace = true`"
            ),
            Some((_, unsafe_level)) => {
                let expected: Vec<_> = ws_lints
                    .iter()
                    .map(|(lint, level)| {
                        let level = if lint == "rust.unsafe_code" {
                            unsafe_level.to_string()
                        } else {
                            level.clone()
                        };
                        (lint.clone(), level)
                    })
                    .collect();
                assert_eq!(
                    levels(lints),
                    expected,
                    "{dir}/Cargo.toml: [lints] must repeat [workspace.lints] with \
                     unsafe_code = \"{unsafe_level}\""
                );
            }
        }
    }
}
