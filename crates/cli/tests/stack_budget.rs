// SPDX-License-Identifier: MIT OR Apache-2.0
//! The configured stack total of a partition (`partita:Resources stackBytes`) reaches its
//! runtime: CREATE_PROCESS refuses a process whose stack does not fit in what is left of it.
//! Partition: tests/partitions/stack_budget.c.

mod common;
use common::*;

/// Runs the stack-budget partition, with `stack_bytes` as its configured stack total if
/// given; returns the `STACK` lines it printed, as (process, return code).
fn creations(name: &str, stack_bytes: Option<u64>) -> Vec<(String, String)> {
    let dir = scratch(name);
    let part = Part {
        name: "STACKS",
        exe: partition_exe("stack_budget"),
        windows: vec![(0, 10)],
        extra: Vec::new(),
    };
    let module = write_module(&dir, name, 20, &[part]);
    if let Some(bytes) = stack_bytes {
        let xml = std::fs::read_to_string(&module).unwrap().replace(
            "</partita:Executable>",
            &format!("</partita:Executable>\n    <partita:Resources stackBytes=\"{bytes}\"/>"),
        );
        std::fs::write(&module, xml).unwrap();
    }
    let out = output_within(
        partita().args(["run", "--duration", "500ms"]).arg(&module),
        std::time::Duration::from_secs(30),
    );
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<(String, String)> = stdout
        .lines()
        .filter_map(|l| {
            let rest = &l[l.find("STACK ")? + 6..];
            let mut f = rest.split_whitespace();
            Some((f.next()?.to_string(), f.next()?.to_string()))
        })
        .collect();
    assert_eq!(lines.len(), 3, "{}", text(&out));
    lines
}

#[test]
fn the_configured_stack_total_limits_process_creation() {
    let _g = serial();
    if let Err(r) = capable() {
        return skip("the_configured_stack_total_limits_process_creation", &r);
    }
    let pair = |p: &str, c: &str| (p.to_string(), c.to_string());
    // 160 KiB: 96 KiB fits, another 96 KiB does not, 64 KiB fills the rest exactly.
    assert_eq!(
        creations("stack-160k", Some(160 * 1024)),
        vec![
            pair("first", "NO_ERROR"),
            pair("second", "INVALID_CONFIG"),
            pair("third", "NO_ERROR"),
        ]
    );
    // Without a configured total the runtime's default (64 MiB) holds all three.
    assert_eq!(
        creations("stack-default", None),
        vec![
            pair("first", "NO_ERROR"),
            pair("second", "NO_ERROR"),
            pair("third", "NO_ERROR"),
        ]
    );
}
