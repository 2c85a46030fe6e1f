// SPDX-License-Identifier: MIT OR Apache-2.0
//! The header against `partita_abi` (constants) and against the C binding's exports
//! (prototypes): tests `abi_constants_match_header` and `prototypes_match_rust_exports`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::inventory::{scan_header, strip_comments, tokenize};
use super::upper_snake;

/// `_Static_assert`s of every constant of `partita_abi`'s tables.
pub(crate) fn static_asserts() -> String {
    let mut src = String::from("#include \"ARINC653.h\"\n\n");
    let enums = partita_abi::C_ENUMS
        .iter()
        .flat_map(|t| t.values.iter().map(|&(n, v)| (n, i64::from(v))));
    let defines = partita_abi::DEFINES.iter().map(|d| (d.name, d.value));
    for (name, value) in enums.chain(defines) {
        writeln!(
            src,
            "_Static_assert({name} == {value}LL, \"{name} is {value} in partita_abi\");"
        )
        .unwrap();
    }
    src
}

/// Enum typedef -> its constants in order.
pub(crate) type Enums = BTreeMap<String, Vec<String>>;

/// Names the header and the abi tables declare, to compare: (header enums, abi enums,
/// header `#define`s, abi `#define`s).
pub(crate) fn constant_inventories(
    header: &str,
) -> (Enums, Enums, BTreeSet<String>, BTreeSet<String>) {
    let inv = scan_header(header);
    let abi_enums: Enums = partita_abi::C_ENUMS
        .iter()
        .filter(|t| !t.defines)
        .map(|t| {
            let names = t.values.iter().map(|(n, _)| n.to_string()).collect();
            (t.c_type.to_string(), names)
        })
        .collect();
    let abi_defines: BTreeSet<String> = partita_abi::DEFINES
        .iter()
        .map(|d| d.name.to_string())
        .chain(
            partita_abi::C_ENUMS
                .iter()
                .filter(|t| t.defines)
                .flat_map(|t| t.values.iter().map(|(n, _)| n.to_string())),
        )
        .collect();
    (inv.enums, abi_enums, inv.defines, abi_defines)
}

/// An exported C function of the binding, as its Rust source declares it.
#[derive(Debug)]
pub(crate) struct Export {
    pub(crate) name: String,
    /// C spelling of the return type and of each parameter type.
    pub(crate) ret: String,
    pub(crate) params: Vec<String>,
    pub(crate) file: PathBuf,
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The C spelling of a Rust parameter or return type of the binding: `*mut T` is `T *`,
/// `*const T` is `const T *`, a type alias `FooBarType` is the typedef `FOO_BAR_TYPE`.
pub(crate) fn c_type(rust: &str) -> String {
    let t = rust.trim();
    if let Some(inner) = t.strip_prefix("*mut ") {
        return format!("{} *", c_type(inner));
    }
    if let Some(inner) = t.strip_prefix("*const ") {
        return format!("const {} *", c_type(inner));
    }
    match t {
        "" | "()" => "void".to_string(),
        "c_char" => "char".to_string(),
        "c_void" => "void".to_string(),
        "i32" => "int32_t".to_string(),
        "u32" => "uint32_t".to_string(),
        "i64" => "int64_t".to_string(),
        "u64" => "uint64_t".to_string(),
        "u8" => "uint8_t".to_string(),
        _ => upper_snake(t.rsplit("::").next().unwrap_or(t)),
    }
}

/// Splits `a: A, b: B` at the top-level commas.
fn split_params(list: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for ch in list.chars() {
        match ch {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    out.push(cur);
    out.into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// Every `#[no_mangle] pub extern "C" fn` under `dir`.
pub(crate) fn rust_exports(dir: &Path) -> Vec<Export> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    let mut exports = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable source");
        let mut rest = text.as_str();
        while let Some(at) = rest
            .find("#[no_mangle]")
            .or_else(|| rest.find("#[unsafe(no_mangle)]"))
        {
            rest = &rest[at..];
            let sig_start = rest.find("extern \"C\" fn ").unwrap_or_else(|| {
                panic!("{}: #[no_mangle] without extern \"C\" fn", file.display())
            }) + "extern \"C\" fn ".len();
            let sig = &rest[sig_start..];
            let open = sig.find('(').expect("parameter list");
            let name = sig[..open].trim().to_string();
            let mut depth = 0;
            let mut close = open;
            for (i, ch) in sig[open..].char_indices() {
                match ch {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            close = open + i;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let params = split_params(&sig[open + 1..close])
                .iter()
                .map(|p| {
                    let ty = p.split_once(':').map_or(p.as_str(), |(_, t)| t);
                    c_type(ty)
                })
                .collect();
            let body = sig[close + 1..].find('{').expect("function body") + close + 1;
            let ret = sig[close + 1..body]
                .trim()
                .strip_prefix("->")
                .map_or("void".to_string(), c_type);
            exports.push(Export {
                name,
                ret,
                params,
                file: file.clone(),
            });
            rest = &sig[body..];
        }
    }
    exports
}

/// Names of the functions the header declares (`extern RET NAME(...)`).
pub(crate) fn header_prototypes(header: &str) -> BTreeSet<String> {
    let tokens = tokenize(&strip_comments(header));
    let mut names = BTreeSet::new();
    for (i, t) in tokens.iter().enumerate() {
        if t != "extern" || tokens.get(i + 1).is_some_and(|n| n.starts_with('"')) {
            continue;
        }
        // extern <type tokens> NAME ( ... ) ;
        if let Some(open) = tokens[i..].iter().position(|t| t == "(") {
            names.insert(tokens[i + open - 1].clone());
        }
    }
    names
}

/// C source assigning every export to a pointer of the type its Rust signature gives: it
/// compiles only where the header's prototype has exactly that type.
pub(crate) fn prototype_checks(exports: &[Export]) -> String {
    let mut src = String::from("#include <stdint.h>\n#include \"ARINC653.h\"\n\n");
    for e in exports {
        let params = if e.params.is_empty() {
            "void".to_string()
        } else {
            e.params.join(", ")
        };
        writeln!(
            src,
            "{} (*const check_{})({params}) = {};",
            e.ret, e.name, e.name
        )
        .unwrap();
    }
    src
}
