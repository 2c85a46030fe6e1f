// SPDX-License-Identifier: MIT OR Apache-2.0
//! Plan file format: round trip, corruption detection, and `load` of XML or plan files.

use partita_config::{
    check_file, load, plan_to_bytes, read_plan, write_plan, CompiledPlan, Inconsistency, LoadError,
    PlanError, Rule, PLAN_FORMAT_VERSION, PLAN_HEADER_LEN, PLAN_MAGIC,
};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn good_plan() -> CompiledPlan {
    check_file(fixture("good/extensions.xml"))
        .expect("fixture")
        .plan
        .expect("plan")
}

fn good_bytes() -> Vec<u8> {
    let mut out = Vec::new();
    write_plan(&good_plan(), &mut out).expect("write");
    out
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("partita-config-tests");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir.join(name)
}

#[test]
fn round_trip() {
    let plan = good_plan();
    let bytes = good_bytes();
    assert_eq!(&bytes[..8], PLAN_MAGIC);
    assert_eq!(bytes[8..12], PLAN_FORMAT_VERSION.to_le_bytes());
    let len = u64::from_le_bytes(bytes[44..52].try_into().expect("8 bytes"));
    assert_eq!(len as usize, bytes.len() - PLAN_HEADER_LEN);
    assert_eq!(&bytes[12..44], Sha256::digest(&bytes[52..]).as_slice());
    let back = read_plan(&bytes).expect("read");
    assert_eq!(back, plan);
    assert_eq!(plan_to_bytes(&back).expect("bytes"), bytes, "deterministic");
}

#[test]
fn flipped_payload_or_hash_byte_is_a_hash_mismatch() {
    let bytes = good_bytes();
    let step = (bytes.len() / 97).max(1);
    for i in (12..44).chain((PLAN_HEADER_LEN..bytes.len()).step_by(step)) {
        let mut bad = bytes.clone();
        bad[i] ^= 0x01;
        assert!(
            matches!(read_plan(&bad), Err(PlanError::HashMismatch)),
            "byte {i}: {:?}",
            read_plan(&bad).err()
        );
    }
}

#[test]
fn flipped_magic_byte_is_bad_magic() {
    let bytes = good_bytes();
    for i in 0..8 {
        let mut bad = bytes.clone();
        bad[i] ^= 0x20;
        assert!(matches!(read_plan(&bad), Err(PlanError::BadMagic)));
    }
    assert!(matches!(read_plan(b""), Err(PlanError::BadMagic)));
    assert!(matches!(
        read_plan(b"<?xml version=\"1.0\"?>"),
        Err(PlanError::BadMagic)
    ));
}

#[test]
fn truncation_is_detected_everywhere() {
    let bytes = good_bytes();
    let step = (bytes.len() / 211).max(1);
    for cut in (1..PLAN_HEADER_LEN + 2).chain((PLAN_HEADER_LEN..bytes.len()).step_by(step)) {
        assert!(
            matches!(read_plan(&bytes[..cut]), Err(PlanError::Truncated)),
            "cut at {cut}: {:?}",
            read_plan(&bytes[..cut]).err()
        );
    }
}

#[test]
fn wrong_version_is_reported_with_both_versions() {
    let mut bad = good_bytes();
    bad[8..12].copy_from_slice(&2u32.to_le_bytes());
    match read_plan(&bad) {
        Err(PlanError::UnsupportedVersion { found, supported }) => {
            assert_eq!((found, supported), (2, PLAN_FORMAT_VERSION));
        }
        other => panic!("expected UnsupportedVersion, got {other:?}"),
    }
}

#[test]
fn length_field_and_trailing_bytes() {
    let mut longer = good_bytes();
    longer.extend_from_slice(b"junk");
    assert!(matches!(
        read_plan(&longer),
        Err(PlanError::TrailingData { extra: 4 })
    ));
    let mut bad_len = good_bytes();
    bad_len[44..52].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(matches!(read_plan(&bad_len), Err(PlanError::Truncated)));
}

fn frame(payload: &[u8], version: u32) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(PLAN_MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&Sha256::digest(payload));
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

#[test]
fn hashed_garbage_is_a_json_error() {
    assert!(matches!(
        read_plan(&frame(b"{\"module_name\": 3}", PLAN_FORMAT_VERSION)),
        Err(PlanError::Json(_))
    ));
    assert!(matches!(
        read_plan(&frame(b"\xff\xfe", PLAN_FORMAT_VERSION)),
        Err(PlanError::Json(_))
    ));
}

#[test]
fn inconsistent_plans_are_rejected() {
    let mut plan = good_plan();
    plan.schedules[0].plan.windows[0].partition = 99;
    let payload = serde_json::to_vec(&plan).expect("json");
    assert!(matches!(
        read_plan(&frame(&payload, PLAN_FORMAT_VERSION)),
        Err(PlanError::Inconsistent(
            Inconsistency::SchedulePartition { .. }
        ))
    ));
    let mut plan = good_plan();
    plan.initial_schedule = 5;
    let payload = serde_json::to_vec(&plan).expect("json");
    assert!(matches!(
        read_plan(&frame(&payload, PLAN_FORMAT_VERSION)),
        Err(PlanError::Inconsistent(Inconsistency::NoInitialSchedule {
            initial: 5,
            ..
        }))
    ));
}

#[test]
fn load_reads_xml_and_plan_files() {
    let plan = load(fixture("good/extensions.xml")).expect("xml");
    assert_eq!(plan, good_plan());

    let path = scratch("extensions.plan");
    let mut file = std::fs::File::create(&path).expect("create");
    write_plan(&plan, &mut file).expect("write");
    drop(file);
    assert_eq!(load(&path).expect("plan file"), plan);

    let mut bytes = std::fs::read(&path).expect("read");
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    std::fs::write(&path, &bytes).expect("write");
    match load(&path) {
        Err(LoadError::Plan {
            source: PlanError::HashMismatch,
            ..
        }) => {}
        other => panic!("expected a hash mismatch, got {other:?}"),
    }
}

#[test]
fn load_of_an_invalid_xml_carries_the_diagnostics() {
    match load(fixture("window-overlap.xml")) {
        Err(LoadError::Invalid { diagnostics, path }) => {
            assert!(path.ends_with("window-overlap.xml"));
            assert_eq!(diagnostics.len(), 1);
            assert_eq!(diagnostics[0].rule, Rule::WindowOverlap);
            let msg = LoadError::Invalid {
                path,
                diagnostics: diagnostics.clone(),
            }
            .to_string();
            assert!(msg.contains("1 error"), "{msg}");
        }
        other => panic!("expected Invalid, got {other:?}"),
    }
    assert!(matches!(
        load(fixture("does-not-exist.xml")),
        Err(LoadError::Io { .. })
    ));
}

#[test]
fn a_plan_with_an_unsafe_name_is_refused() {
    for name in ["../../tmp/x", "a/b", "", ".."] {
        let mut plan = good_plan();
        plan.partitions[0].name = name.to_string();
        let bytes = plan_to_bytes(&plan).expect("bytes");
        assert!(
            matches!(read_plan(&bytes), Err(PlanError::Inconsistent(_))),
            "{name:?}"
        );
    }
}

#[test]
fn a_plan_past_the_system_limits_is_refused() {
    let mut plan = good_plan();
    let port = plan
        .partitions
        .iter_mut()
        .find_map(|p| p.ports.first_mut())
        .expect("a port");
    port.max_message_size = 16 << 20;
    let bytes = plan_to_bytes(&plan).expect("bytes");
    assert!(matches!(
        read_plan(&bytes),
        Err(PlanError::Inconsistent(
            partita_config::Inconsistency::SystemLimit
        ))
    ));
}

#[test]
fn a_plan_file_past_the_read_bound_is_too_large() {
    let path = scratch("huge.plan");
    let mut bytes = good_bytes();
    bytes.resize(partita_config::limits::MAX_READ_BYTES as usize + 10, b' ');
    std::fs::write(&path, &bytes).expect("write");
    assert!(matches!(
        load(&path),
        Err(LoadError::Plan {
            source: PlanError::TooLarge,
            ..
        })
    ));
}
