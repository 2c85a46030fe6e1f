// SPDX-License-Identifier: MIT OR Apache-2.0
//! General-purpose partitions (`partita:GeneralPurpose`): what the compiled plan holds and
//! what `partita check` shows of them.

use partita_config::model::{NetworkMode, PARTITA_NS};
use partita_config::{check_file, check_str, read_plan, render_summary, write_plan};
use std::path::Path;

fn good() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/good/general-purpose.xml")
}

#[test]
fn the_plan_holds_the_background_network_and_binds() {
    let outcome = check_file(good()).unwrap();
    let plan = outcome.plan.expect("a clean module");
    let linux = plan.partition_by_name("LINUX").unwrap();
    let gp = linux.general_purpose.as_ref().expect("general-purpose");
    assert_eq!(gp.background, vec![1]);
    assert_eq!(gp.network, NetworkMode::Link);
    let link = gp.link.expect("a link");
    assert_eq!(link.host.to_string(), "10.77.0.1/24");
    assert_eq!(link.partition.to_string(), "10.77.0.2/24");
    assert_eq!(gp.binds.len(), 1);
    assert!(gp.binds[0].read_only);
    assert_eq!(gp.binds[0].target, Path::new("/etc"));
    assert_eq!(plan.cores_of(linux.index), vec![1]);
    assert_eq!(plan.background_of(1), Some(linux.index));
    assert_eq!(plan.background_of(0), None);
    let control = plan.partition_by_name("CONTROL").unwrap();
    assert!(control.general_purpose.is_none());
    assert!(plan.background_cores(control.index).is_empty());
    // The plan file keeps it.
    let mut bytes = Vec::new();
    write_plan(&plan, &mut bytes).unwrap();
    assert_eq!(read_plan(&bytes).unwrap(), plan);
}

#[test]
fn check_shows_the_background_time_of_each_core() {
    let plan = check_file(good()).unwrap().plan.unwrap();
    let summary = render_summary(&plan);
    // Core 1: LINUX's own window is 20 ms of the 100 ms frame, the other 80 ms its background.
    let line = summary
        .lines()
        .find(|l| l.trim_start().starts_with("core 1") && l.contains("per frame"))
        .unwrap_or_else(|| panic!("no background line in:\n{summary}"));
    assert!(line.contains("LINUX"), "{line}");
    assert!(line.contains("80ms per frame (80.0%)"), "{line}");
    assert!(
        summary.contains("general-purpose, network link"),
        "{summary}"
    );
}

#[test]
fn a_background_only_partition_needs_no_window_and_runs_on_its_core() {
    let src = format!(
        r#"<ARINC_653_Module ModuleName="m" xmlns:partita="{PARTITA_NS}">
  <Partition PartitionIdentifier="1" PartitionName="A" Criticality="LEVEL_A" EntryPoint="bin/true.sh"/>
  <Partition PartitionIdentifier="2" PartitionName="GP" Criticality="LEVEL_E">
    <partita:Executable path="/bin/sh"/>
    <partita:GeneralPurpose background="3"/>
  </Partition>
  <Module_Schedule MajorFrameSeconds="0.1">
    <Partition_Schedule PartitionIdentifier="1" PeriodSeconds="0.1" PeriodDurationSeconds="0.02">
      <Window_Schedule WindowIdentifier="1" WindowStartSeconds="0" WindowDurationSeconds="0.02"/>
    </Partition_Schedule>
  </Module_Schedule>
</ARINC_653_Module>"#
    );
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/m.xml");
    let outcome = check_str(&src, &dir);
    assert!(outcome.diagnostics.is_empty(), "{:?}", outcome.diagnostics);
    let plan = outcome.plan.unwrap();
    let gp = plan.partition_by_name("GP").unwrap();
    assert_eq!(plan.cores_of(gp.index), vec![3]);
    assert_eq!(
        gp.general_purpose.as_ref().unwrap().network,
        NetworkMode::None
    );
    let summary = render_summary(&plan);
    assert!(
        summary.contains("core 3   B GP  100ms per frame (100.0%)"),
        "{summary}"
    );
}

#[test]
fn a_plan_with_a_shared_or_multicore_background_is_refused() {
    use partita_config::model::GeneralPurpose;
    use partita_config::{CompiledPartition, Inconsistency, PlanBuilder};
    use partita_schedule::{FramePlan, Window};
    let frame = FramePlan {
        major_frame: 10_000_000,
        windows: vec![Window {
            id: 1,
            partition: 0,
            core: 0,
            offset: 0,
            duration: 5_000_000,
            period_start: true,
        }],
    };
    let gp = |id: u32, name: &str, background: Vec<u32>, cores: Vec<u32>| CompiledPartition {
        cores,
        general_purpose: Some(GeneralPurpose {
            background,
            network: NetworkMode::None,
            link: None,
            binds: Vec::new(),
        }),
        ..CompiledPartition::new(id, name, "/bin/true")
    };
    let base = || {
        PlanBuilder::new("m", frame.clone()).partition(CompiledPartition::new(1, "A", "/bin/true"))
    };
    assert!(base()
        .partition(gp(2, "G", vec![1], vec![]))
        .build()
        .is_ok());
    let shared = base()
        .partition(gp(2, "G", vec![1], vec![]))
        .partition(gp(3, "H", vec![1], vec![]))
        .build();
    assert!(
        matches!(shared, Err(Inconsistency::Background { .. })),
        "{shared:?}"
    );
    let multicore = base().partition(gp(2, "G", vec![1], vec![1, 2])).build();
    assert!(
        matches!(multicore, Err(Inconsistency::Background { .. })),
        "{multicore:?}"
    );
}
