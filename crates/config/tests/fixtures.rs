// SPDX-License-Identifier: MIT OR Apache-2.0
//! One failing fixture per rule (`tests/fixtures/<rule>.xml`), each announcing the diagnostics
//! it must produce with `<!-- expect: <rule> <line>:<column> -->` comments, plus good modules
//! (`tests/fixtures/good/*.xml`) that must produce no diagnostic at all.

use partita_config::{check_file, render_diagnostics, rules, Rule, Severity};
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// `(rule, line, column)` of every `<!-- expect: rule line:col -->` comment.
fn expectations(src: &str) -> Vec<(String, u32, u32)> {
    let mut out = Vec::new();
    for piece in src.split("<!--").skip(1) {
        let Some(body) = piece.split("-->").next() else {
            continue;
        };
        let Some(rest) = body.trim().strip_prefix("expect:") else {
            continue;
        };
        let mut words = rest.split_whitespace();
        let rule = words.next().expect("rule name").to_string();
        let pos = words.next().expect("line:col");
        let (l, c) = pos.split_once(':').expect("line:col");
        out.push((rule, l.parse().expect("line"), c.parse().expect("column")));
    }
    out.sort();
    out
}

#[test]
fn every_rule_has_a_fixture_producing_exactly_it() {
    let mut failures = Vec::new();
    for info in rules() {
        let path = fixtures().join(format!("{}.xml", info.name));
        let src = match std::fs::read_to_string(&path) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{}: no fixture ({e})", info.name));
                continue;
            }
        };
        let expected = expectations(&src);
        if expected.is_empty() || expected.iter().any(|(r, _, _)| r != info.name) {
            failures.push(format!(
                "{}: the fixture must announce only `expect: {} L:C` comments, found {expected:?}",
                info.name, info.name
            ));
            continue;
        }
        let outcome = check_file(&path).expect("readable fixture");
        let mut got: Vec<(String, u32, u32)> = outcome
            .diagnostics
            .iter()
            .map(|d| (d.rule.name().to_string(), d.line, d.column))
            .collect();
        got.sort();
        if got != expected {
            failures.push(format!(
                "{}: expected {expected:?}, got:\n{}",
                info.name,
                render_diagnostics(&outcome.diagnostics)
            ));
        }
        for d in &outcome.diagnostics {
            assert_eq!(d.severity, d.rule.severity());
            assert_eq!(d.file, path);
            assert!(
                d.hint.is_some(),
                "{}: diagnostic without a hint: {d}",
                info.name
            );
        }
        match info.severity {
            Severity::Error => assert!(outcome.plan.is_none(), "{}: plan despite error", info.name),
            Severity::Warning => assert!(
                outcome.plan.is_some(),
                "{}: warnings must not block the plan",
                info.name
            ),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

#[test]
fn every_fixture_names_a_rule() {
    for entry in std::fs::read_dir(fixtures()).expect("fixtures dir") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("xml") {
            continue;
        }
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        assert!(
            Rule::from_name(stem).is_some(),
            "fixture {} is not named after a rule",
            path.display()
        );
    }
}

#[test]
fn rule_names_are_unique_kebab_case() {
    let list = rules();
    let mut names: Vec<&str> = list.iter().map(|r| r.name).collect();
    for n in &names {
        assert!(
            n.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
            "{n} is not kebab-case"
        );
        assert!(!list.is_empty());
    }
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), list.len());
    assert!(list.iter().all(|r| !r.description.is_empty()));
}

#[test]
fn good_fixtures_are_clean() {
    let dir = fixtures().join("good");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("good dir") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("xml") {
            continue;
        }
        seen += 1;
        let outcome = check_file(&path).expect("readable");
        assert!(
            outcome.diagnostics.is_empty(),
            "{}:\n{}",
            path.display(),
            render_diagnostics(&outcome.diagnostics)
        );
        assert!(outcome.plan.is_some());
    }
    assert!(seen >= 2, "expected at least two good fixtures");
}
