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

/// The `SYSTEM_LIMIT_*` constants of `include/ARINC653.h`.
fn header_limits() -> Vec<(String, u64)> {
    let header = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../include/ARINC653.h");
    std::fs::read_to_string(header)
        .expect("ARINC653.h")
        .lines()
        .filter_map(|l| {
            let mut w = l.strip_prefix("#define SYSTEM_LIMIT_")?.split_whitespace();
            Some((w.next()?.to_string(), w.next()?.parse().ok()?))
        })
        .collect()
}

#[test]
fn system_limits_equal_the_header_and_are_listed_by_the_rule() {
    use partita_config::limits::system;
    let header = header_limits();
    let ours: [(&str, u64); 5] = [
        ("MESSAGE_SIZE", u64::from(system::MESSAGE_SIZE)),
        ("NUMBER_OF_MESSAGES", u64::from(system::NUMBER_OF_MESSAGES)),
        ("NUMBER_OF_PARTITIONS", system::NUMBER_OF_PARTITIONS as u64),
        (
            "NUMBER_OF_SAMPLING_PORTS",
            system::NUMBER_OF_SAMPLING_PORTS as u64,
        ),
        (
            "NUMBER_OF_QUEUING_PORTS",
            system::NUMBER_OF_QUEUING_PORTS as u64,
        ),
    ];
    let description = Rule::SystemLimit.description();
    for (name, value) in ours {
        let in_header = header.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
        assert_eq!(in_header, Some(value), "SYSTEM_LIMIT_{name}");
        assert!(
            description.contains(&format!("SYSTEM_LIMIT_{name} ({value})")),
            "`partita rules` must list SYSTEM_LIMIT_{name} ({value}): {description}"
        );
    }
}

#[test]
fn partition_and_port_counts_are_held_to_the_system_limits() {
    let partitions: String = (0..33)
        .map(|i| format!("<Partition PartitionIdentifier=\"{i}\" PartitionName=\"P{i}\" Criticality=\"LEVEL_A\" EntryPoint=\"x\"/>\n"))
        .collect();
    let src = format!("<ARINC_653_Module ModuleName=\"m\">{partitions}</ARINC_653_Module>");
    assert!(rules_of(&src).contains(&Rule::SystemLimit));
    let ports: String = (0..513)
        .map(|i| {
            format!("<Sampling_Port Name=\"S{i}\" MaxMessageSize=\"8\" Direction=\"SOURCE\"/>\n")
        })
        .collect();
    let src = format!(
        "<ARINC_653_Module ModuleName=\"m\"><Partition PartitionIdentifier=\"1\" PartitionName=\"P\" Criticality=\"LEVEL_A\" EntryPoint=\"x\">{ports}</Partition></ARINC_653_Module>"
    );
    let limits = rules_of(&src)
        .into_iter()
        .filter(|r| *r == Rule::SystemLimit)
        .count();
    assert_eq!(limits, 1);
}
