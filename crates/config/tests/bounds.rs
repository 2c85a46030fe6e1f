// SPDX-License-Identifier: MIT OR Apache-2.0
//! Input bounds: hostile configurations are refused with a diagnostic, never a crash.

use partita_config::limits::{MAX_FILE_BYTES, MAX_NESTING_DEPTH, MAX_NODES};
use partita_config::{check_str, Rule};

fn rules_of(src: &str) -> Vec<Rule> {
    check_str(src, "bounds.xml")
        .diagnostics
        .iter()
        .map(|d| d.rule)
        .collect()
}

#[test]
fn deep_nesting_is_refused_before_parsing() {
    for n in [MAX_NESTING_DEPTH, 200_000] {
        let src = format!(
            "<ARINC_653_Module ModuleName=\"m\">{}{}</ARINC_653_Module>",
            "<a>".repeat(n),
            "</a>".repeat(n)
        );
        assert_eq!(rules_of(&src), vec![Rule::XmlTooDeep], "{n} levels");
    }
    // Unclosed, and hidden behind a truncated comment or DTD: never a stack overflow.
    for src in [
        "<a>".repeat(200_000),
        format!("<r><!--{}", "<a>".repeat(200_000)),
        format!("<!DOCTYPE r [{}]><r/>", "<a>".repeat(200_000)),
    ] {
        let rules = rules_of(&src);
        assert_eq!(rules.len(), 1, "{rules:?}");
        assert!(matches!(rules[0], Rule::XmlTooDeep | Rule::XmlSyntax));
    }
}

#[test]
fn node_count_and_file_size_are_bounded() {
    let many = format!(
        "<ARINC_653_Module ModuleName=\"m\">{}</ARINC_653_Module>",
        "<a/>".repeat(MAX_NODES as usize + 1)
    );
    assert_eq!(rules_of(&many), vec![Rule::XmlTooLarge]);
    let big = format!(
        "<ARINC_653_Module ModuleName=\"m\"><!--{}--></ARINC_653_Module>",
        " ".repeat(MAX_FILE_BYTES as usize)
    );
    assert_eq!(rules_of(&big), vec![Rule::XmlTooLarge]);
}

/// Found by the fuzz harness: 4 600 stacked windows gave every overlapping pair (ten million
/// diagnostics, gigabytes); each overlapping window is now reported once.
#[test]
fn stacked_windows_give_one_diagnostic_each() {
    let n = 4_000;
    let window = "<Window_Schedule WindowIdentifier=\"1\" WindowStartSeconds=\"0\" WindowDurationSeconds=\"0.02\"/>\n";
    let src = format!(
        "<ARINC_653_Module ModuleName=\"m\">\
         <Partition PartitionIdentifier=\"1\" PartitionName=\"P1\" Criticality=\"LEVEL_A\" EntryPoint=\"x\"/>\
         <Module_Schedule MajorFrameSeconds=\"0.1\">\
         <Partition_Schedule PartitionIdentifier=\"1\" PeriodSeconds=\"0.1\" PeriodDurationSeconds=\"0.02\">\n{}\
         </Partition_Schedule></Module_Schedule></ARINC_653_Module>",
        window.repeat(n)
    );
    let overlaps = rules_of(&src)
        .into_iter()
        .filter(|r| *r == Rule::WindowOverlap)
        .count();
    assert_eq!(overlaps, n - 1);
}
