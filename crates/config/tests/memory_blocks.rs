// SPDX-License-Identifier: MIT OR Apache-2.0
//! Memory blocks (ARINC 653 Part 2): `Memory_Requirements` with a `RegionName` reach the plan
//! with their name; names too long or repeated in a partition, sizes MEMORY_BLOCK_SIZE_TYPE
//! cannot hold and more blocks than the runtime's table are refused.

use partita_config::model::{MemoryAccess, MAX_MEMORY_BLOCKS};
use partita_config::{check_str, Rule};

fn module(requirements: &str) -> String {
    format!(
        "<ARINC_653_Module ModuleName=\"m\">\
         <Partition PartitionIdentifier=\"1\" PartitionName=\"P1\" Criticality=\"LEVEL_A\" EntryPoint=\"/bin/true\"/>\
         <Partition_Memory PartitionIdentifier=\"1\">{requirements}</Partition_Memory>\
         <Module_Schedule MajorFrameSeconds=\"0.1\">\
         <Partition_Schedule PartitionIdentifier=\"1\" PeriodSeconds=\"0.1\" PeriodDurationSeconds=\"0.02\">\
         <Window_Schedule WindowIdentifier=\"1\" WindowStartSeconds=\"0\" WindowDurationSeconds=\"0.02\"/>\
         </Partition_Schedule></Module_Schedule></ARINC_653_Module>"
    )
}

fn req(name: &str, size: u64, access: &str) -> String {
    format!(
        "<Memory_Requirements RegionName=\"{name}\" Type=\"DATA\" SizeBytes=\"{size}\" Access=\"{access}\"/>"
    )
}

fn rules_of(src: &str) -> Vec<Rule> {
    check_str(src, "m.xml")
        .diagnostics
        .iter()
        .map(|d| d.rule)
        .collect()
}

#[test]
fn named_requirements_reach_the_plan_as_memory_blocks() {
    let src = module(&format!(
        "{}{}<Memory_Requirements Type=\"DATA\" SizeBytes=\"65536\" Access=\"READ_WRITE\"/>",
        req("shared_table", 4096, "READ_WRITE"),
        req("calibration", 8192, "READ_ONLY"),
    ));
    let out = check_str(&src, "m.xml");
    assert!(!out.has_errors(), "{:?}", out.diagnostics);
    let memory = &out.plan.expect("a plan").partitions[0].memory;
    let blocks: Vec<_> = memory
        .iter()
        .map(|m| (m.name.as_deref(), m.size, m.access))
        .collect();
    assert_eq!(
        blocks,
        vec![
            (Some("shared_table"), 4096, MemoryAccess::ReadWrite),
            (Some("calibration"), 8192, MemoryAccess::ReadOnly),
            (None, 65536, MemoryAccess::ReadWrite),
        ]
    );
}

#[test]
fn bad_memory_blocks_are_refused_with_their_rule() {
    let long = "b".repeat(31);
    let cases = [
        (req(&long, 4096, "READ_WRITE"), Rule::SystemLimit),
        (req("big", 1 << 31, "READ_WRITE"), Rule::SystemLimit),
        (
            req("twice", 4096, "READ_WRITE") + &req("twice", 8192, "READ_ONLY"),
            Rule::DuplicateElement,
        ),
        (
            (0..=MAX_MEMORY_BLOCKS)
                .map(|i| req(&format!("b{i}"), 4096, "READ_WRITE"))
                .collect::<String>(),
            Rule::SystemLimit,
        ),
    ];
    for (requirements, rule) in cases {
        assert_eq!(
            rules_of(&module(&requirements)),
            vec![rule],
            "{requirements}"
        );
    }
    // 30 characters and 16 blocks are fine.
    let ok = req(&"b".repeat(30), 4096, "READ_WRITE")
        + &(1..MAX_MEMORY_BLOCKS)
            .map(|i| req(&format!("b{i}"), 4096, "READ_WRITE"))
            .collect::<String>();
    assert_eq!(rules_of(&module(&ok)), vec![]);
}
