// SPDX-License-Identifier: MIT OR Apache-2.0
//! Scanner of the header's and `src/types.rs`'s declarations (test `inventories_match`).

use std::collections::{BTreeMap, BTreeSet};

use super::upper_snake;

/// What a header declares, as found by [`scan_header`].
#[derive(Default, Debug)]
pub(crate) struct HeaderInventory {
    /// Struct typedef -> field names in order.
    pub(crate) structs: BTreeMap<String, Vec<String>>,
    /// Every non-struct typedef, enums included.
    pub(crate) scalars: BTreeSet<String>,
    /// Enum typedef -> constant names in order.
    pub(crate) enums: BTreeMap<String, Vec<String>>,
    /// `#define`s with a value (the include guard has none).
    pub(crate) defines: BTreeSet<String>,
}

/// Removes comments; string literals become `""`.
pub(crate) fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut prev = ' ';
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                    }
                    if prev == '*' && c == '/' {
                        break;
                    }
                    prev = c;
                }
                out.push(' ');
            }
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '"' => {
                let mut escaped = false;
                for c in chars.by_ref() {
                    if !escaped && c == '"' {
                        break;
                    }
                    escaped = !escaped && c == '\\';
                }
                out.push_str("\"\"");
            }
            _ => out.push(c),
        }
    }
    out
}

pub(crate) fn tokenize(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let mut word = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_ascii_alphanumeric() || c == '_' {
                    word.push(c);
                    chars.next();
                } else {
                    break;
                }
            }
            tokens.push(word);
        } else if c == '"' {
            chars.next();
            chars.next();
            tokens.push("\"\"".to_string());
        } else {
            tokens.push(c.to_string());
            chars.next();
        }
    }
    tokens
}

pub(crate) fn is_ident(token: &str) -> bool {
    token
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
}

/// Declared name in a declarator: the identifier before `[`, else the last.
pub(crate) fn declared_name(tokens: &[String]) -> String {
    let end = tokens.iter().position(|t| t == "[").unwrap_or(tokens.len());
    tokens[..end]
        .iter()
        .rev()
        .find(|t| is_ident(t))
        .unwrap_or_else(|| panic!("no name in declaration {tokens:?}"))
        .clone()
}

/// Splits `{ ... } NAME` (the tokens after `struct`/`enum`) into the body
/// and the typedef name.
pub(crate) fn braced_body(tokens: &[String]) -> (&[String], String) {
    assert_eq!(
        tokens.first().map(String::as_str),
        Some("{"),
        "expected an anonymous struct/enum body in {tokens:?}"
    );
    let close = tokens
        .iter()
        .position(|t| t == "}")
        .unwrap_or_else(|| panic!("unterminated body in {tokens:?}"));
    assert!(
        !tokens[1..close].iter().any(|t| t == "{"),
        "nested bodies are not supported: {tokens:?}"
    );
    (&tokens[1..close], declared_name(&tokens[close + 1..]))
}

pub(crate) fn scan_header(text: &str) -> HeaderInventory {
    let mut inv = HeaderInventory::default();
    let text = strip_comments(text);

    let mut code = String::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(directive) = trimmed.strip_prefix('#') {
            let words: Vec<&str> = directive.split_whitespace().collect();
            if words.first() == Some(&"define") {
                let name = words.get(1).expect("#define without a name");
                assert!(!name.contains('('), "function-like macro {name}");
                if words.len() > 2 {
                    inv.defines.insert((*name).to_string());
                }
            }
        } else {
            code.push_str(line);
            code.push('\n');
        }
    }

    let tokens = tokenize(&code);
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i] != "typedef" {
            i += 1;
            continue;
        }
        let mut depth = 0i32;
        let mut end = i + 1;
        while end < tokens.len() {
            match tokens[end].as_str() {
                "{" => depth += 1,
                "}" => depth -= 1,
                ";" if depth == 0 => break,
                _ => {}
            }
            end += 1;
        }
        let decl = &tokens[i + 1..end];
        assert!(
            !decl.iter().any(|t| t == "("),
            "function-pointer typedefs are not supported by the scanner: {decl:?}"
        );
        match decl.first().map(String::as_str) {
            Some("struct") => {
                let (body, name) = braced_body(&decl[1..]);
                let fields = body
                    .split(|t| t == ";")
                    .filter(|member| !member.is_empty())
                    .map(declared_name)
                    .collect();
                inv.structs.insert(name, fields);
            }
            Some("enum") => {
                let (body, name) = braced_body(&decl[1..]);
                let constants = body
                    .split(|t| t == ",")
                    .filter(|part| !part.is_empty())
                    .map(|part| part[0].clone())
                    .collect();
                inv.scalars.insert(name.clone());
                inv.enums.insert(name, constants);
            }
            Some("union") => panic!("unions are not supported by the scanner: {decl:?}"),
            _ => {
                inv.scalars.insert(declared_name(decl));
            }
        }
        i = end + 1;
    }
    inv
}

/// Names declared at the top level of `src/types.rs`: (structs, type
/// aliases, constants), as C names.
pub(crate) fn scan_types_rs(text: &str) -> (BTreeSet<String>, BTreeSet<String>, BTreeSet<String>) {
    let (mut structs, mut aliases, mut consts) =
        (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    for line in text.lines() {
        let name_after = |prefix: &str| {
            line.strip_prefix(prefix).map(|rest| {
                rest.chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect::<String>()
            })
        };
        if let Some(name) = name_after("pub struct ") {
            structs.insert(upper_snake(&name));
        } else if let Some(name) = name_after("pub type ") {
            aliases.insert(upper_snake(&name));
        } else if line.starts_with("pub const fn ") {
            // Helpers are not part of the C interface.
        } else if let Some(name) = name_after("pub const ") {
            consts.insert(name);
        } else if ["pub enum ", "pub union ", "pub static "]
            .iter()
            .any(|p| line.starts_with(p))
        {
            panic!("types.rs: item kind not covered by the layout test: {line}");
        }
    }
    (structs, aliases, consts)
}

pub(crate) fn compare_sets<'a>(
    problems: &mut Vec<String>,
    what: &str,
    (left_name, left): (&str, impl IntoIterator<Item = &'a String>),
    (right_name, right): (&str, impl IntoIterator<Item = &'a String>),
) {
    let left: BTreeSet<&String> = left.into_iter().collect();
    let right: BTreeSet<&String> = right.into_iter().collect();
    for name in left.difference(&right) {
        problems.push(format!(
            "{what} `{name}` is in {left_name} but not in {right_name}"
        ));
    }
    for name in right.difference(&left) {
        problems.push(format!(
            "{what} `{name}` is in {right_name} but not in {left_name}"
        ));
    }
}
