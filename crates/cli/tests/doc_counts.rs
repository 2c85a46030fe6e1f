// SPDX-License-Identifier: MIT OR Apache-2.0
//! The numbers the documentation quotes (validation rules, conformance scenarios and groups,
//! APEX services exercised) are computed here from the code and compared with every place
//! the docs state them; and the README's C example compiles as shown.
//!
//! Claims are found by their wording ("N validation rules", "N scenarios in M groups", ...)
//! anywhere in the docs, not by line, so rewriting the docs keeps the test working; a claim
//! whose wording disappears from every document fails the test, so that it is updated here
//! rather than silently no longer checked.

mod common;

use common::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The documents that quote counts.
fn documents() -> Vec<PathBuf> {
    let root = repo();
    let mut docs: Vec<PathBuf> = ["README.md", "ARCHITECTURE.md", "CAVEATS.md"]
        .iter()
        .map(|f| root.join(f))
        .collect();
    docs.push(root.join("tests/conformance/README.md"));
    let mut more: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    more.sort();
    docs.extend(more);
    docs.retain(|p| p.exists());
    docs
}

/// `text` with every run of white space (line breaks included) made one space, and Markdown
/// emphasis (`*`) removed, so that a claim reads the same however the paragraph is wrapped.
fn normalise(text: &str) -> String {
    text.replace('*', "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every occurrence in `text` of `template`, a phrase with `{}` where a number stands (e.g.
/// `"{} scenarios in {} groups"`), as the list of its numbers.
fn occurrences(text: &str, template: &str) -> Vec<Vec<u64>> {
    let pieces: Vec<&str> = template.split("{}").collect();
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    for start in 0..bytes.len() {
        // A match starts at a word boundary.
        if !text.is_char_boundary(start) || start > 0 && bytes[start - 1].is_ascii_alphanumeric() {
            continue;
        }
        let mut pos = start;
        let mut numbers = Vec::new();
        let mut ok = true;
        for (i, piece) in pieces.iter().enumerate() {
            if i > 0 {
                let digits = bytes[pos..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                if digits == 0 {
                    ok = false;
                    break;
                }
                numbers.push(text[pos..pos + digits].parse().unwrap());
                pos += digits;
            }
            if !text[pos..].starts_with(piece) {
                ok = false;
                break;
            }
            pos += piece.len();
        }
        // ... and ends at one.
        if ok && !bytes.get(pos).is_some_and(|b| b.is_ascii_alphanumeric()) {
            found.push(numbers);
        }
    }
    found
}

/// The conformance scenarios: (group, scenario) for every `tests/conformance/<group>/*.c`.
fn scenarios() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for group in std::fs::read_dir(repo().join("tests/conformance")).unwrap() {
        let group = group.unwrap().path();
        if !group.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&group).unwrap() {
            let file = file.unwrap().path();
            if file.extension().is_some_and(|e| e == "c") {
                out.push((
                    group.file_name().unwrap().to_string_lossy().into_owned(),
                    file.file_stem().unwrap().to_string_lossy().into_owned(),
                ));
            }
        }
    }
    out
}

/// The services `ARINC653.h` declares (`extern void NAME(`).
fn header_services() -> BTreeSet<String> {
    let header = std::fs::read_to_string(repo().join("include/ARINC653.h")).unwrap();
    header
        .lines()
        .filter_map(|l| l.trim().strip_prefix("extern void "))
        .filter_map(|rest| rest.split('(').next())
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
        .collect()
}

/// The header's services of ARINC 653 Part 1 and the Part 2 sampling port extensions: all
/// but Partita's system-partition extension and the Part 2 module-schedule services (the
/// header's sections between the `/* ====` banners naming them and the next banner).
fn standard_services() -> BTreeSet<String> {
    let header = std::fs::read_to_string(repo().join("include/ARINC653.h")).unwrap();
    let mut other = false;
    let mut section = String::new();
    let mut out = BTreeSet::new();
    let mut after_banner = false;
    for line in header.lines() {
        if line.starts_with("/* ====") {
            after_banner = true;
            continue;
        }
        // The title line right after a banner line.
        if std::mem::take(&mut after_banner) && line.starts_with("/* ") {
            section = line.to_string();
            other = section.contains("PARTITA EXTENSION (not")
                || section.contains("Multiple module schedules");
            continue;
        }
        if let Some(rest) = line.trim().strip_prefix("extern void ") {
            let name = rest.split('(').next().unwrap_or("").trim().to_string();
            if !other && !name.is_empty() {
                out.insert(name);
            }
        }
    }
    assert!(!section.is_empty(), "ARINC653.h has no section banners");
    out
}

/// Whether `text` calls `name` (the name followed by `(`, as a whole word).
fn calls(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].trim_start().chars().next();
        !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') && after == Some('(')
    })
}

/// The header's services that the conformance suite's C sources call.
fn services_exercised() -> BTreeSet<String> {
    let mut sources = String::new();
    let mut dirs = vec![repo().join("tests/conformance")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p
                .extension()
                .is_some_and(|e| e == "c" || e == "h" || e == "inc")
            {
                sources += &std::fs::read_to_string(&p).unwrap();
            }
        }
    }
    header_services()
        .into_iter()
        .filter(|s| calls(&sources, s))
        .collect()
}

#[test]
fn the_counts_quoted_in_the_docs_come_from_the_code() {
    let rules = partita_config::rules().len() as u64;
    let scenarios = scenarios();
    let groups: BTreeSet<&String> = scenarios.iter().map(|(g, _)| g).collect();
    let (n_scenarios, n_groups) = (scenarios.len() as u64, groups.len() as u64);
    let exercised = services_exercised();
    let ports = exercised
        .iter()
        .filter(|s| s.contains("SAMPLING") || s.contains("QUEUING"))
        .count() as u64;
    let services = exercised.len() as u64;
    // (wording, the numbers the code gives)
    let claims: Vec<(&str, Vec<u64>)> = vec![
        ("{} validation rules", vec![rules]),
        ("{} named rules", vec![rules]),
        ("{} scenarios in {} groups", vec![n_scenarios, n_groups]),
        ("exercising {} services", vec![services]),
        (
            "{} services have a C binding",
            vec![standard_services().len() as u64],
        ),
        (
            "{} groups, {} scenarios, {} APEX services",
            vec![n_groups, n_scenarios, services],
        ),
        ("all {} Part 1", vec![services - ports]),
        ("plus the {} port services", vec![ports]),
    ];
    let docs: Vec<(PathBuf, String)> = documents()
        .into_iter()
        .map(|p| {
            let text = normalise(&std::fs::read_to_string(&p).unwrap());
            (p, text)
        })
        .collect();
    let mut failures = Vec::new();
    for (wording, expected) in &claims {
        let mut seen = 0;
        for (path, text) in &docs {
            for numbers in occurrences(text, wording) {
                seen += 1;
                if &numbers != expected {
                    failures.push(format!(
                        "{}: \"{wording}\" says {numbers:?}, the code gives {expected:?}",
                        path.strip_prefix(repo()).unwrap_or(path).display()
                    ));
                }
            }
        }
        if seen == 0 {
            failures.push(format!(
                "no document says \"{wording}\" any more: update the claims in {}",
                file!()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_matcher_finds_wrapped_claims_and_only_whole_numbers() {
    let text =
        normalise("has **39 scenarios\nin 11 groups** and 155 validation rules; x5 named rules");
    assert_eq!(
        occurrences(&text, "{} scenarios in {} groups"),
        vec![vec![39, 11]]
    );
    assert_eq!(occurrences(&text, "{} validation rules"), vec![vec![155]]);
    assert!(occurrences(&text, "{} named rules").is_empty());
}

/// The first ```c block of README.md.
fn readme_example() -> String {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let start = readme.find("```c\n").expect("README.md has a ```c example");
    let body = &readme[start + 5..];
    body[..body.find("```").expect("the example ends")].to_string()
}

#[test]
fn the_readme_c_example_compiles_as_shown() {
    let dir = scratch("readme-example");
    let src = dir.join("example.c");
    std::fs::write(&src, readme_example()).unwrap();
    let exe = dir.join("example");
    partita_cc(&src, &exe, &["-O2", "-Wall", "-Wextra", "-Werror"]);
    assert!(Path::new(&exe).exists());
}
