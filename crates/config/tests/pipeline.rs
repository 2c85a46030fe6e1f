// SPDX-License-Identifier: MIT OR Apache-2.0
//! End-to-end behaviour of the check pipeline: many violations in one run, positions, rendering,
//! compiled plan contents.

use partita_config::model::{Backend, Endpoint, PortKind, PseudoTransport};
use partita_config::{
    check_str, check_str_with, render_diagnostics, render_summary, CheckOptions, Rule, Severity,
};
use std::path::Path;

fn fixtures() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// A file with many independent violations: every one is reported in a single run.
const SEVERAL: &str = r#"<?xml version="1.0"?>
<ARINC_653_Module ModuleName="broken" xmlns:partita="urn:partita:1">
  <Partition PartitionIdentifier="1" PartitionName="A" Criticality="LEVEL_A" EntryPoint="bin/true.sh">
    <Sampling_Port Name="out" MaxMessageSize="64" Direction="SOURCE"/>
  </Partition>
  <Partition PartitionIdentifier="1" PartitionName="B" Criticality="LEVEL_Z" EntryPoint="bin/true.sh"/>
  <Partition PartitionIdentifier="3" PartitionName="C" Criticality="LEVEL_C" EntryPoint="bin/true.sh"
             Colour="red"/>
  <Module_Schedule MajorFrameSeconds="0.1">
    <Partition_Schedule PartitionIdentifier="1" PeriodSeconds="0.1" PeriodDurationSeconds="0.05">
      <Window_Schedule WindowIdentifier="1" WindowStartSeconds="0" WindowDurationSeconds="0.02"/>
      <Window_Schedule WindowIdentifier="2" WindowStartSeconds="0.01" WindowDurationSeconds="0.02"/>
    </Partition_Schedule>
    <Partition_Schedule PartitionIdentifier="3" PeriodSeconds="0.03" PeriodDurationSeconds="1e-2">
      <Window_Schedule WindowIdentifier="2" WindowStartSeconds="0.095" WindowDurationSeconds="0.01"/>
    </Partition_Schedule>
    <Partition_Schedule PartitionIdentifier="4" PeriodSeconds="0.1" PeriodDurationSeconds="0.0000000001"/>
  </Module_Schedule>
  <Connection_Table>
    <Channel ChannelIdentifier="1">
      <Source><Standard_Partition PartitionIdentifier="1" PortName="out"/></Source>
      <Destination><Standard_Partition PartitionIdentifier="3" PortName="nope"/></Destination>
    </Channel>
  </Connection_Table>
  <partita:Backnd name="signals"/>
</ARINC_653_Module>
"#;

#[test]
fn one_run_reports_every_violation() {
    let path = fixtures().join("several.xml");
    let outcome = check_str(SEVERAL, &path);
    assert!(outcome.plan.is_none());
    let got: Vec<(Rule, u32, u32)> = outcome
        .diagnostics
        .iter()
        .map(|d| (d.rule, d.line, d.column))
        .collect();
    let expected = [
        (Rule::DuplicatePartitionId, 6, 14),
        (Rule::BadEnum, 6, 56),
        (Rule::PeriodDurationNotMet, 10, 5),
        (Rule::UnknownAttribute, 8, 14),
        (Rule::WindowOverlap, 12, 7),
        (Rule::FrameNotMultipleOfPeriod, 14, 49),
        (Rule::TimeExponent, 14, 70),
        (Rule::DuplicateWindowId, 15, 24),
        (Rule::WindowOutsideFrame, 15, 7),
        (Rule::ScheduleUnknownPartition, 17, 25),
        (Rule::TimePrecision, 17, 69),
        (Rule::ChannelUnknownPort, 22, 64),
        (Rule::UnknownElement, 25, 3),
    ];
    for e in &expected {
        assert!(
            got.contains(e),
            "missing {e:?} in:\n{}",
            render_diagnostics(&outcome.diagnostics)
        );
    }
    assert_eq!(
        got.len(),
        expected.len(),
        "unexpected extra diagnostics:\n{}",
        render_diagnostics(&outcome.diagnostics)
    );
    // Ordered by position.
    let positions: Vec<(u32, u32)> = got.iter().map(|&(_, l, c)| (l, c)).collect();
    let mut sorted = positions.clone();
    sorted.sort();
    assert_eq!(positions, sorted);
}

#[test]
fn rendering_is_compiler_like() {
    let path = fixtures().join("several.xml");
    let outcome = check_str(SEVERAL, &path);
    let text = render_diagnostics(&outcome.diagnostics);
    let first = text.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        format!(
            "{}:6:14: error[duplicate-partition-id]: partition identifier 1 is used twice",
            path.display()
        )
    );
    assert!(text.contains("\n  hint: every partition needs its own PartitionIdentifier\n"));
    assert!(text.contains(&format!(
        "\n  note: {}:3:14: first defined here\n",
        path.display()
    )));
    assert!(text.contains("hint: did you mean `partita:Backend`?"));
    assert!(
        text.ends_with("hint: did you mean `partita:Backend`?\n"),
        "{text}"
    );
    assert_eq!(
        partita_config::count_line(&outcome.diagnostics),
        "11 errors, 2 warnings"
    );
    assert_eq!(partita_config::count_line(&[]), "no problems");
    assert_eq!(render_diagnostics(&[]), "");
}

#[test]
fn malformed_xml_is_one_diagnostic_at_the_parser_position() {
    let src = "<ARINC_653_Module ModuleName=\"m\">\n  <Partition a=\"1\" a=\"2\"/>\n</ARINC_653_Module>\n";
    let outcome = check_str(src, "bad.xml");
    assert_eq!(outcome.diagnostics.len(), 1);
    let d = &outcome.diagnostics[0];
    assert_eq!(d.rule, Rule::XmlSyntax);
    assert_eq!((d.line, d.column), (2, 20));
    assert_eq!(d.message, "attribute 'a' is already defined");

    let empty = check_str("", "empty.xml");
    assert_eq!(empty.diagnostics[0].rule, Rule::XmlSyntax);

    let bytes = b"<ARINC_653_Module ModuleName=\"m\">\n  <Partition PartitionName=\"\xff\"/>";
    let outcome = partita_config::check_bytes(bytes, "latin1.xml", &CheckOptions::default());
    assert_eq!(outcome.diagnostics.len(), 1);
    assert_eq!(outcome.diagnostics[0].rule, Rule::XmlSyntax);
    assert_eq!(
        (outcome.diagnostics[0].line, outcome.diagnostics[0].column),
        (2, 29)
    );
}

#[test]
fn byte_order_mark_is_accepted() {
    let path = fixtures().join("good/standard-only.xml");
    let src = std::fs::read_to_string(&path).expect("fixture");
    let with_bom = format!("\u{feff}{src}");
    let outcome = check_str(&with_bom, &path);
    assert!(outcome.diagnostics.is_empty(), "{:?}", outcome.diagnostics);
}

#[test]
fn standard_only_module_compiles() {
    let path = fixtures().join("good/standard-only.xml");
    let outcome = partita_config::check_file(&path).expect("fixture");
    let plan = outcome.plan.expect("plan");
    assert_eq!(plan.module_name, "AVIONICS_DEMO");
    assert_eq!(plan.module_version.as_deref(), Some("1.0"));
    assert_eq!(plan.backend, Backend::Auto);
    assert_eq!(plan.schedules.len(), 1);
    let frame = &plan.schedules[0].plan;
    assert_eq!(frame.major_frame, 100_000_000);
    assert_eq!(frame.windows.len(), 4);
    let fc = plan.partition_by_name("FLIGHT_CTRL").expect("partition");
    assert_eq!(fc.index, 0);
    assert_eq!(fc.period, Some(50_000_000));
    assert_eq!(fc.duration, Some(15_000_000));
    assert_eq!(fc.period_origin, Some(0));
    assert_eq!(fc.cores, vec![0]);
    assert_eq!(fc.memory_limit, Some(262_144 + 131_072 + 65_536));
    assert_eq!(fc.memory[2].physical_address, Some(0x4000_0000));
    assert!(fc.executable.is_absolute());
    assert!(fc.executable.ends_with("tests/fixtures/bin/true.sh"));
    let nav = plan.partition_by_id(2).expect("partition");
    assert_eq!(nav.period_origin, Some(15_000_000));
    assert_eq!(
        nav.memory_limit,
        Some(partita_config::limits::DEFAULT_MEMORY_BYTES)
    );
    let maint = plan.partition_by_id(3).expect("partition");
    assert!(maint.system);
    assert_eq!(plan.channels.len(), 2);
    let att = &plan.channels[0];
    assert_eq!(att.kind, PortKind::Sampling);
    assert_eq!(
        att.source,
        Endpoint::Partition {
            partition: 0,
            port: "attitude".into()
        }
    );
    assert_eq!(att.destinations.len(), 2);
    assert_eq!(plan.channels[1].max_nb_messages, Some(16));
    assert_eq!(plan.hm.system.len(), 1);
    assert_eq!(plan.hm.system[0].errors.len(), 3);
    assert_eq!(plan.hm.module[0].actions.len(), 1);
    assert_eq!(plan.hm.partitions[0].partition, 0);
    assert_eq!(plan.source_sha256.len(), 64);
    assert!(plan.source_path.is_absolute());
    assert!(plan.check_consistency().is_ok());
}

#[test]
fn extensions_module_compiles() {
    let path = fixtures().join("good/extensions.xml");
    let plan = partita_config::check_file(&path)
        .expect("fixture")
        .plan
        .expect("plan");
    assert_eq!(plan.backend, Backend::Freezer);
    assert_eq!(plan.schedules.len(), 2);
    assert_eq!(plan.initial_schedule, 0);
    assert!(plan.schedules[0].initial && !plan.schedules[1].initial);
    assert_eq!(plan.schedules[1].name.as_deref(), Some("degraded"));
    let control = plan.partition_by_name("CONTROL").expect("partition");
    assert_eq!(control.args, vec!["--rate".to_string(), "50".to_string()]);
    assert_eq!(control.entry_point.as_deref(), Some("control_main"));
    assert_eq!(control.memory_limit, Some(16_777_216));
    assert_eq!(control.max_processes, Some(8));
    assert_eq!(control.stack_size, Some(65_536));
    assert_eq!(control.processes.len(), 2);
    assert_eq!(control.processes[1].period, None);
    let vision = plan.partition_by_name("VISION").expect("partition");
    assert_eq!(vision.cores, vec![1]);
    assert_eq!(vision.period_origin, Some(1_000_000));
    let logger = plan.partition_by_name("LOGGER").expect("partition");
    assert_eq!(
        logger.cores,
        vec![0, 1],
        "default cores are its window cores"
    );
    assert_eq!(logger.memory_limit, Some(1_048_576 + 262_144));
    assert_eq!(plan.schedules[0].plan.cores(), vec![0, 1]);
    match &plan.channels[0].source {
        Endpoint::Pseudo {
            name, transport, ..
        } => {
            assert_eq!(name, "ground_station");
            assert_eq!(
                transport,
                &PseudoTransport::Udp {
                    host: "127.0.0.1".into(),
                    port: 5000
                }
            );
        }
        other => panic!("expected a pseudo source, got {other:?}"),
    }
    match &plan.channels[2].destinations[1] {
        Endpoint::Pseudo {
            transport: PseudoTransport::File { path },
            ..
        } => assert!(path.is_absolute() && path.ends_with("good/out/frames.bin")),
        other => panic!("expected a file endpoint, got {other:?}"),
    }
    let summary = render_summary(&plan);
    assert!(summary.contains("Module ROVER"));
    assert!(summary.contains("backend freezer"));
    assert!(summary.contains("core 1"));
    assert!(summary.contains("ground_station(udp 127.0.0.1:5000) -> CONTROL:sensor_in"));
    assert!(summary.contains("core 0 65.0%  core 1 85.0%"), "{summary}");
    for line in summary
        .lines()
        .filter(|l| l.trim_start().starts_with("core ") && l.contains('|'))
    {
        let bar = line.split('|').nth(1).unwrap_or_default();
        assert_eq!(bar.chars().count(), partita_config::BAR_WIDTH, "{line}");
    }
}

#[test]
fn executables_can_be_left_unchecked() {
    let src = std::fs::read_to_string(fixtures().join("entry-point-missing.xml")).expect("fixture");
    let path = fixtures().join("entry-point-missing.xml");
    let opts = CheckOptions {
        check_executables: false,
    };
    let outcome = check_str_with(&src, &path, &opts);
    assert!(outcome.diagnostics.is_empty(), "{:?}", outcome.diagnostics);
    let plan = outcome.plan.expect("plan");
    assert!(plan.partitions[0].executable.ends_with("bin/missing.sh"));
}

#[test]
fn warnings_do_not_block_the_plan() {
    let outcome = partita_config::check_file(fixtures().join("rt-budget.xml")).expect("fixture");
    assert_eq!(outcome.warning_count(), 1);
    assert_eq!(outcome.error_count(), 0);
    assert!(!outcome.has_errors());
    assert!(outcome.plan.is_some());
    assert!(outcome
        .diagnostics
        .iter()
        .all(|d| d.severity == Severity::Warning));
}

#[test]
fn rules_serialize_by_name() {
    let outcome = check_str(SEVERAL, "several.xml");
    let json = serde_json::to_string(&outcome.diagnostics).expect("json");
    assert!(json.contains("\"rule\":\"window-overlap\""));
    assert!(json.contains("\"severity\":\"error\""));
    let back: Vec<partita_config::Diagnostic> = serde_json::from_str(&json).expect("parse");
    assert_eq!(back, outcome.diagnostics);
}

#[test]
fn synthesis_validation_ignores_schedules() {
    let text = r#"<ARINC_653_Module xmlns:partita="urn:partita:1" ModuleName="m">
  <Partition PartitionIdentifier="1" PartitionName="A" Criticality="LEVEL_A" EntryPoint="/bin/true">
    <partita:Process name="x" periodSeconds="0.01" wcetSeconds="0.001"/>
  </Partition>
</ARINC_653_Module>"#;
    let opts = partita_config::CheckOptions {
        check_executables: false,
    };
    // The full check wants a schedule ...
    let (full, diags) = partita_config::validate_str(text, "m.xml", &opts);
    assert!(full.is_none());
    assert!(diags
        .iter()
        .any(|d| d.rule == partita_config::Rule::MissingElement));
    // ... synthesis validation does not, and keeps the process set.
    let (model, diags) = partita_config::validate_for_synthesis(text, "m.xml", &opts);
    assert!(diags.is_empty(), "{diags:?}");
    let model = model.unwrap();
    assert!(model.schedules.is_empty());
    assert_eq!(model.partitions[0].processes[0].wcet, Some(1_000_000));
    // Other rules still apply.
    let dup = text.replace(
        "</Partition>",
        "<partita:Process name=\"x\" periodSeconds=\"0.02\"/></Partition>",
    );
    let (model, diags) = partita_config::validate_for_synthesis(&dup, "m.xml", &opts);
    assert!(model.is_none());
    assert!(diags
        .iter()
        .any(|d| d.rule == partita_config::Rule::DuplicateProcessName));
}

/// `partition-path-unreachable`: each partition's paths are checked as its own uid (61000 +
/// its index) would reach them: the executable needs execute permission (its directory is not
/// walked: the manager opens it), an absolute argument every directory above it; the rule
/// reads the host's files, so `--no-executables` leaves it out too.
#[test]
fn paths_out_of_a_partition_uid_reach_are_warned_at_their_position() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("partita-reach-check-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("closed")).expect("dir");
    let dir = dir.canonicalize().expect("canonical");
    let mode = |p: &std::path::Path, m: u32| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).expect("chmod")
    };
    mode(&dir, 0o755);
    mode(&dir.join("closed"), 0o700);
    for (f, m) in [
        ("owner-only", 0o700),
        ("closed/prog", 0o755),
        ("closed/in.txt", 0o644),
    ] {
        std::fs::write(dir.join(f), "#!/bin/sh\n").expect("write");
        mode(&dir.join(f), m);
    }
    let src = format!(
        r#"<ARINC_653_Module xmlns:partita="urn:partita:1" ModuleName="reach">
  <Partition PartitionIdentifier="1" PartitionName="A" Criticality="LEVEL_A" EntryPoint="owner-only"/>
  <Partition PartitionIdentifier="2" PartitionName="B" Criticality="LEVEL_A">
    <partita:Executable path="closed/prog"><partita:Arg>{input}</partita:Arg><partita:Arg>out.txt</partita:Arg></partita:Executable>
  </Partition>
  <Module_Schedule MajorFrameSeconds="0.1">
    <Partition_Schedule PartitionIdentifier="1" PeriodSeconds="0.1" PeriodDurationSeconds="0.02">
      <Window_Schedule WindowIdentifier="1" WindowStartSeconds="0" WindowDurationSeconds="0.02"/>
    </Partition_Schedule>
    <Partition_Schedule PartitionIdentifier="2" PeriodSeconds="0.1" PeriodDurationSeconds="0.02">
      <Window_Schedule WindowIdentifier="2" WindowStartSeconds="0.02" WindowDurationSeconds="0.02"/>
    </Partition_Schedule>
  </Module_Schedule>
</ARINC_653_Module>"#,
        input = dir.join("closed/in.txt").display()
    );
    let path = dir.join("module.xml");
    let outcome = check_str(&src, &path);
    assert!(outcome.plan.is_some(), "{:?}", outcome.diagnostics);
    let got: Vec<(u32, u32, &str)> = outcome
        .diagnostics
        .iter()
        .map(|d| (d.line, d.column, d.message.as_str()))
        .collect();
    assert!(
        outcome
            .diagnostics
            .iter()
            .all(|d| d.rule == Rule::PartitionPathUnreachable),
        "{got:?}"
    );
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!((got[0].0, got[0].1), (2, 78), "{got:?}");
    assert!(
        got[0].2.contains("executable ")
            && got[0].2.contains("uid 61000")
            && got[0].2.contains("(mode 0700, owner ")
            && got[0].2.ends_with("does not let it execute"),
        "{}",
        got[0].2
    );
    assert_eq!((got[1].0, got[1].1), (4, 44), "{got:?}");
    assert!(
        got[1].2.contains("uid 61001")
            && got[1]
                .2
                .contains(&format!("{} (mode 0700,", dir.join("closed").display()))
            && got[1].2.ends_with("does not let it through"),
        "{}",
        got[1].2
    );
    let unchecked = check_str_with(
        &src,
        &path,
        &CheckOptions {
            check_executables: false,
        },
    );
    assert!(
        unchecked.diagnostics.is_empty(),
        "{:?}",
        unchecked.diagnostics
    );
    std::fs::remove_dir_all(&dir).expect("clean up");
}
