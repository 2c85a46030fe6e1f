// SPDX-License-Identifier: MIT OR Apache-2.0
//! Property tests: exact time parsing, and that no input makes the checker panic or yields an
//! unsound plan.

use partita_config::time::{
    format_seconds, parse_duration, parse_seconds, TimeError, MAX_NANOS, MAX_SECONDS,
    NANOS_PER_SECOND,
};
use partita_config::{check_str, check_str_with, CheckOptions};
use proptest::prelude::*;
use std::path::Path;

proptest! {
    #[test]
    fn format_then_parse_is_identity(ns in 0..=MAX_NANOS) {
        prop_assert_eq!(parse_seconds(&format_seconds(ns)), Ok(ns));
    }

    #[test]
    fn times_above_the_maximum_are_refused(ns in MAX_NANOS + 1..=u64::MAX, extra in "[0-9]{0,30}") {
        prop_assert_eq!(parse_seconds(&format_seconds(ns)), Err(TimeError::TooLarge));
        prop_assert_eq!(parse_seconds(&format!("{}{extra}", MAX_SECONDS + 1)), Err(TimeError::TooLarge));
        prop_assert_eq!(parse_duration(&format!("{}{extra}s", MAX_SECONDS + 1)), Err(TimeError::TooLarge));
        prop_assert_eq!(parse_duration(&format!("{ns}ns")), Err(TimeError::TooLarge));
    }

    #[test]
    fn durations_parse_exactly_in_every_unit(ns in 0..=MAX_NANOS) {
        prop_assert_eq!(parse_duration(&format!("{ns}ns")), Ok(ns));
        prop_assert_eq!(parse_duration(&format!("{}s", format_seconds(ns))), Ok(ns));
        prop_assert_eq!(parse_duration(&format_seconds(ns)), Ok(ns));
        let us = ns / 1000;
        prop_assert_eq!(parse_duration(&format!("{}.{:03}us", us, ns % 1000)), Ok(ns));
        let minutes = ns / (60 * NANOS_PER_SECOND);
        prop_assert_eq!(parse_duration(&format!("{minutes}m")), Ok(minutes * 60 * NANOS_PER_SECOND));
    }

    #[test]
    fn duration_parse_never_panics(s in "\\PC{0,40}") {
        let _ = parse_duration(&s);
    }

    #[test]
    fn decimal_strings_parse_exactly(int in 0u64..MAX_SECONDS, frac in "[0-9]{0,9}") {
        let text = if frac.is_empty() { int.to_string() } else { format!("{int}.{frac}") };
        let padded = format!("{frac:0<9}");
        let expected = int * NANOS_PER_SECOND + padded.parse::<u64>().unwrap_or(0);
        prop_assert_eq!(parse_seconds(&text), Ok(expected));
    }

    #[test]
    fn more_than_nine_decimals_is_a_precision_error(int in 0u64..1000, frac in "[0-9]{10,30}") {
        prop_assert_eq!(
            parse_seconds(&format!("{int}.{frac}")),
            Err(TimeError::TooPrecise(frac.len()))
        );
    }

    #[test]
    fn exponents_are_rejected(m in 0u32..1000, e in -12i32..12) {
        prop_assert_eq!(parse_seconds(&format!("{m}e{e}")), Err(TimeError::Exponent));
        prop_assert_eq!(parse_seconds(&format!("{m}.5E{e}")), Err(TimeError::Exponent));
    }

    #[test]
    fn parse_never_panics(s in "\\PC{0,40}") {
        let _ = parse_seconds(&s);
    }

    #[test]
    fn parse_is_monotonic(a in 0..=MAX_NANOS, b in 0..=MAX_NANOS) {
        let (pa, pb) = (parse_seconds(&format_seconds(a)).ok(), parse_seconds(&format_seconds(b)).ok());
        prop_assert_eq!(a.cmp(&b), pa.cmp(&pb));
    }
}

fn good_source() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/good/standard-only.xml");
    std::fs::read_to_string(path).unwrap_or_default()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Random edits of a good file never panic, and every diagnostic has a sane position.
    #[test]
    fn mutated_files_never_panic(cut in 0usize..6000, len in 0usize..40, insert in "\\PC{0,12}") {
        let src = good_source();
        let mut chars: Vec<char> = src.chars().collect();
        let start = cut.min(chars.len());
        let end = (start + len).min(chars.len());
        chars.splice(start..end, insert.chars());
        let text: String = chars.into_iter().collect();
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/good/mutated.xml");
        let outcome = check_str(&text, &path);
        let lines = text.lines().count() as u32 + 1;
        for d in &outcome.diagnostics {
            prop_assert!(d.line >= 1 && d.line <= lines, "{}", d);
            prop_assert!(d.column >= 1, "{}", d);
        }
        prop_assert_eq!(outcome.plan.is_some(), !outcome.has_errors());
    }

    /// Random window tables: whenever a plan is produced it is structurally sound and every
    /// partition gets its duration in every period.
    #[test]
    fn accepted_schedules_are_sound(
        windows in proptest::collection::vec((0usize..3, 0u64..12, 1u64..30, 0u32..2, any::<bool>()), 3..10),
        periods in proptest::collection::vec((prop::sample::select(vec![120u64, 120, 120, 120, 60, 40, 50]), 0u64..8), 3),
    ) {
        let frame_ms = 120u64;
        // Lay the windows out one after the other on their core (gap, then length); every
        // partition gets at least one window; some windows are moved back to overlap.
        let mut cursor = [0u64; 2];
        let windows: Vec<(usize, u64, u64, u32)> = windows
            .into_iter()
            .enumerate()
            .map(|(i, (p, gap, len, core, overlap))| {
                let p = if i < 3 { i } else { p };
                let c = core as usize;
                let start = if overlap && i % 4 == 3 { cursor[c].saturating_sub(len / 2) } else { cursor[c] + gap };
                cursor[c] = cursor[c].max(start + len);
                (p, start, len, core)
            })
            .collect();
        let mut xml = String::from("<ARINC_653_Module ModuleName=\"p\" xmlns:partita=\"urn:partita:1\">\n");
        for p in 0..3 {
            xml.push_str(&format!(
                "<Partition PartitionIdentifier=\"{p}\" PartitionName=\"P{p}\" Criticality=\"LEVEL_A\" EntryPoint=\"x\"/>\n"
            ));
        }
        xml.push_str(&format!("<Module_Schedule MajorFrameSeconds=\"{}\">\n", format_seconds(frame_ms * 1_000_000)));
        for (p, (period, dur)) in periods.iter().enumerate() {
            xml.push_str(&format!(
                "<Partition_Schedule PartitionIdentifier=\"{p}\" PeriodSeconds=\"{}\" PeriodDurationSeconds=\"{}\">\n",
                format_seconds(period * 1_000_000),
                format_seconds(dur * 1_000_000)
            ));
            for (i, (wp, start, len, core)) in windows.iter().enumerate() {
                if *wp == p {
                    xml.push_str(&format!(
                        "<Window_Schedule WindowIdentifier=\"{i}\" WindowStartSeconds=\"{}\" WindowDurationSeconds=\"{}\" partita:Core=\"{core}\"/>\n",
                        format_seconds(start * 1_000_000),
                        format_seconds(len * 1_000_000)
                    ));
                }
            }
            xml.push_str("</Partition_Schedule>\n");
        }
        xml.push_str("</Module_Schedule>\n</ARINC_653_Module>\n");
        let opts = CheckOptions { check_executables: false };
        let outcome = check_str_with(&xml, "random.xml", &opts);
        if let Some(plan) = outcome.plan {
            prop_assert!(plan.check_consistency().is_ok());
            let fp = &plan.schedules[0].plan;
            prop_assert!(fp.structural_errors().is_empty());
            for sp in &plan.schedules[0].partitions {
                prop_assert_eq!(fp.major_frame % sp.period, 0);
                for got in fp.supply_per_period(sp.partition, sp.period) {
                    prop_assert!(got >= sp.duration);
                }
            }
        }
    }
}
