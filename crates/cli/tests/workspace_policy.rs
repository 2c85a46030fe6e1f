// SPDX-License-Identifier: MIT OR Apache-2.0
//! The project's habits, checked: every crate takes the workspace's lints, and the two crates
//! that hold unsafe code (partita-sys, partita-apex) repeat them with only `unsafe_code` changed;
//! no library returns `Result<_, String>`; no function of the manager or of `sys` is longer than
//! [`MAX_FN_LINES`].

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

/// Longest function (lines from `fn` to its closing brace) allowed in the manager and `sys`.
const MAX_FN_LINES: usize = 150;

/// `text` with comments, string literals and character literals blanked (newlines kept), so
/// that brackets and words inside them are not seen.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        let start = i;
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                while i < b.len() {
                    if b[i..].starts_with(b"/*") {
                        depth += 1;
                        i += 2;
                    } else if b[i..].starts_with(b"*/") {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            b'r' if matches!(b.get(i + 1), Some(b'"' | b'#'))
                && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
            {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                i += 2 + hashes;
                while i < b.len() && !b[i..].starts_with(&close) {
                    i += 1;
                }
                i += close.len();
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            // A character literal ('x', '\n', '\u{7b}'); a lifetime ('a) is left alone.
            b'\'' if b.get(i + 1) == Some(&b'\\') => {
                i += 2;
                while i < b.len() && b[i] != b'\'' {
                    i += 1;
                }
                i += 1;
            }
            b'\'' if b.get(i + 2) == Some(&b'\'') => i += 3,
            _ => {
                i += 1;
                continue;
            }
        }
        blank(&mut out, start, i);
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Every `Result<_, String>` in `code` (blanked by [`code_only`]), as its 1-based line.
fn string_results(code: &str) -> Vec<usize> {
    let b = code.as_bytes();
    let mut found = Vec::new();
    for (at, _) in code.match_indices("Result<") {
        if at > 0 && (b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_') {
            continue;
        }
        let (mut depth, mut args, mut arg) = (0i32, Vec::new(), String::new());
        for (k, &c) in b[at + "Result<".len()..].iter().enumerate() {
            let prev = b[at + "Result<".len() + k - 1];
            match c {
                b'<' | b'(' | b'[' => depth += 1,
                b'>' if prev == b'-' => {}
                b'>' | b')' | b']' if depth > 0 => depth -= 1,
                b'>' => break,
                b',' if depth == 0 => {
                    args.push(std::mem::take(&mut arg));
                    continue;
                }
                _ => {}
            }
            arg.push(c as char);
        }
        args.push(arg);
        if args.len() == 2 && args[1].trim() == "String" {
            found.push(code[..at].matches('\n').count() + 1);
        }
    }
    found
}

/// Every function with a body in `code` (blanked by [`code_only`]): its name, first line and
/// length in lines (from the line of `fn` to the line of its closing brace).
fn function_lengths(code: &str) -> Vec<(String, usize, usize)> {
    let b = code.as_bytes();
    let is_word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let mut out = Vec::new();
    for (at, _) in code.match_indices("fn ") {
        if at > 0 && is_word(b[at - 1]) {
            continue;
        }
        let name: String = code[at + 3..]
            .trim_start()
            .chars()
            .take_while(|&c| c.is_ascii_alphanumeric() || c == '_')
            .collect();
        if name.is_empty() {
            continue;
        }
        // The body starts at the first `{` outside the signature's brackets; a `;` there is a
        // declaration without a body.
        let mut depth = 0i32;
        let mut open = None;
        for (k, &c) in b[at..].iter().enumerate() {
            match c {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b'{' if depth == 0 => {
                    open = Some(at + k);
                    break;
                }
                b';' if depth == 0 => break,
                _ => {}
            }
        }
        let Some(open) = open else { continue };
        let mut braces = 0i32;
        for (k, &c) in b[open..].iter().enumerate() {
            match c {
                b'{' => braces += 1,
                b'}' => {
                    braces -= 1;
                    if braces == 0 {
                        let first = line_of(at);
                        out.push((name.clone(), first, line_of(open + k) - first + 1));
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.expect("directory entry").path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

fn relative(root: &Path, file: &Path) -> String {
    file.strip_prefix(root)
        .unwrap_or(file)
        .display()
        .to_string()
}

fn source(path: &Path) -> String {
    code_only(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

#[test]
fn libraries_return_typed_errors() {
    let root = root();
    let cli_main = root.join("crates/cli/src/main.rs");
    let mut sources = 0;
    let mut offenders = Vec::new();
    for entry in std::fs::read_dir(root.join("crates")).expect("crates") {
        let src = entry.expect("crate").path().join("src");
        if !src.is_dir() {
            continue;
        }
        for file in rust_files(&src).into_iter().filter(|f| *f != cli_main) {
            sources += 1;
            for line in string_results(&source(&file)) {
                offenders.push(format!("{}:{line}", relative(&root, &file)));
            }
        }
    }
    assert!(sources > 100, "only {sources} library sources found");
    assert!(
        offenders.is_empty(),
        "libraries return typed errors (thiserror), not Result<_, String>:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn manager_and_sys_functions_stay_short() {
    let root = root();
    let mut functions = 0;
    let mut long = Vec::new();
    for dir in ["crates/manager/src", "crates/sys/src"] {
        for file in rust_files(&root.join(dir)) {
            for (name, line, lines) in function_lengths(&source(&file)) {
                functions += 1;
                if lines > MAX_FN_LINES {
                    long.push(format!(
                        "{}:{line} fn {name}: {lines} lines",
                        relative(&root, &file)
                    ));
                }
            }
        }
    }
    assert!(functions > 200, "only {functions} functions found");
    assert!(
        long.is_empty(),
        "functions of the manager and sys longer than {MAX_FN_LINES} lines (split them):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_source_scans_see_through_comments_strings_and_types() {
    let text = r##"
/// Result<u8, String> in a comment { is not code
fn short(x: &str) -> Result<Vec<u8>, String> {
    let s = "}} fn fake() { Result<(), String> ";
    let r = r#"{ "# ;
    let c = '{';
    let e = '\'';
    let f: fn(&str) -> u8 = |_| 0; /* } { nested /* } */ */
    fn inner<T: Fn() -> u8>(t: T) -> std::io::Result<String> where T: Copy {
        if t() > 0 { 1 } else { 2 };
        Ok(String::new())
    }
    Ok(vec![])
}
trait Decl { fn declared(&self) -> Result<String, E>; }
fn typed() -> Result<HashMap<String, Vec<u8>>, Error> { todo() }
fn closure() -> Result<Box<dyn Fn(u8) -> u8>, String> {}
"##;
    let code = code_only(text);
    assert_eq!(code.lines().count(), text.lines().count());
    assert_eq!(string_results(&code), vec![3, 17]);
    assert_eq!(
        function_lengths(&code),
        vec![
            ("short".to_string(), 3, 12),
            ("inner".to_string(), 9, 4),
            ("typed".to_string(), 16, 1),
            ("closure".to_string(), 17, 1),
        ]
    );
}
