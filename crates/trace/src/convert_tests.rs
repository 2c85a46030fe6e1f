// SPDX-License-Identifier: MIT OR Apache-2.0
//! The converters on the synthetic trace: the selection, a Perfetto document checked against
//! the trace-event format's rules, CSV that parses back, the summary's facts, an SVG that is
//! well-formed XML.

use crate::synthetic::{self, EPOCH, FRAME, FRAMES, LOST, REFUSED, SWITCH_FRAME};
use crate::timeline::{Selection, Span, Trace, ViewError};
use crate::{convert, Format};
use partita_abi::trace::{Event, EventKind};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

fn trace() -> Trace {
    Trace::new(synthetic::meta(), synthetic::events(), 0)
}

fn frames(first: u64, end: u64) -> Selection {
    Selection {
        span: Span::Frames { first, end },
        ..Selection::default()
    }
}

/// Checks a trace-event JSON document against the format's rules; every problem found.
fn trace_event_problems(doc: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(events) = doc.get("traceEvents").and_then(Value::as_array) else {
        return vec!["no traceEvents array".into()];
    };
    let mut stacks: BTreeMap<(u64, u64), Vec<(String, f64)>> = BTreeMap::new();
    // In ns, as a reader takes µs with three decimals.
    let ns = |us: f64| (us * 1e3).round() as i64;
    let mut complete: BTreeMap<(u64, u64), Vec<(i64, i64)>> = BTreeMap::new();
    let mut last_be: BTreeMap<(u64, u64), f64> = BTreeMap::new();
    let mut named_threads = BTreeSet::new();
    let mut named_processes = BTreeSet::new();
    let mut used = BTreeSet::new();
    for (i, e) in events.iter().enumerate() {
        let at = format!("event {i} {e}");
        let ph = e.get("ph").and_then(Value::as_str).unwrap_or("");
        let pid = e.get("pid").and_then(Value::as_u64);
        let tid = e.get("tid").and_then(Value::as_u64);
        let (Some(pid), Some(tid)) = (pid, tid) else {
            problems.push(format!("{at}: pid and tid must be non-negative integers"));
            continue;
        };
        if e.get("name").and_then(Value::as_str).is_none() {
            problems.push(format!("{at}: no name"));
        }
        let ts = e.get("ts").and_then(Value::as_f64);
        if ph != "M" && ts.is_none() {
            problems.push(format!("{at}: ts must be a number"));
        }
        let ts = ts.unwrap_or(0.0);
        if ph != "M" {
            used.insert((pid, tid));
        }
        match ph {
            "X" => match e.get("dur").and_then(Value::as_f64) {
                Some(d) if d >= 0.0 => complete
                    .entry((pid, tid))
                    .or_default()
                    .push((ns(ts), ns(ts) + ns(d))),
                _ => problems.push(format!("{at}: X needs a non-negative dur")),
            },
            "B" | "E" => {
                let track = (pid, tid);
                if last_be.get(&track).is_some_and(|&l| ts < l) {
                    problems.push(format!("{at}: B/E not monotonic on its track"));
                }
                last_be.insert(track, ts);
                let stack = stacks.entry(track).or_default();
                let name = e["name"].as_str().unwrap_or("").to_string();
                if ph == "B" {
                    stack.push((name, ts));
                } else {
                    match stack.pop() {
                        Some((n, b)) if n == name && b <= ts => {}
                        other => problems.push(format!("{at}: E does not close a B ({other:?})")),
                    }
                }
            }
            "i" | "I" => {
                if !matches!(e.get("s").and_then(Value::as_str), Some("g" | "p" | "t")) {
                    problems.push(format!("{at}: an instant needs scope g, p or t"));
                }
            }
            "C" => {
                let ok = e
                    .get("args")
                    .and_then(Value::as_object)
                    .is_some_and(|a| !a.is_empty() && a.values().all(Value::is_number));
                if !ok {
                    problems.push(format!("{at}: a counter needs numeric args"));
                }
            }
            "M" => {
                let name = e["name"].as_str().unwrap_or("");
                let args = e.get("args");
                let ok = match name {
                    "process_name" | "thread_name" => args
                        .and_then(|a| a.get("name"))
                        .is_some_and(Value::is_string),
                    "process_sort_index" | "thread_sort_index" => args
                        .and_then(|a| a.get("sort_index"))
                        .is_some_and(Value::is_i64),
                    _ => false,
                };
                if !ok {
                    problems.push(format!("{at}: bad metadata event"));
                }
                match name {
                    "thread_name" => {
                        named_threads.insert((pid, tid));
                    }
                    "process_name" => {
                        named_processes.insert(pid);
                    }
                    _ => {}
                }
            }
            _ => problems.push(format!("{at}: unknown phase `{ph}`")),
        }
    }
    // Slices on one track nest: each lies within the one it starts in, or after it.
    for (track, mut slices) in complete {
        slices.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        let mut open: Vec<i64> = Vec::new();
        for (s, e) in slices {
            while open.last().is_some_and(|&end| end <= s) {
                open.pop();
            }
            if open.last().is_some_and(|&end| e > end) {
                problems.push(format!(
                    "track {track:?}: slice {s}..{e} overlaps its parent"
                ));
            }
            open.push(e);
        }
    }
    for (track, stack) in stacks {
        if !stack.is_empty() {
            problems.push(format!("track {track:?}: {} B without E", stack.len()));
        }
    }
    for (pid, tid) in used {
        if !named_threads.contains(&(pid, tid)) || !named_processes.contains(&pid) {
            problems.push(format!("track ({pid}, {tid}) has no name"));
        }
    }
    problems
}

fn perfetto(t: &Trace) -> Value {
    let mut out = Vec::new();
    convert(t, Format::Perfetto, &mut out).unwrap();
    serde_json::from_slice(&out).unwrap()
}

fn thread_names(doc: &Value) -> BTreeMap<(u64, u64), String> {
    doc["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| {
            (
                (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap()),
                e["args"]["name"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn events_are_sorted_and_named() {
    let t = trace();
    assert!(t.events.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));
    assert_eq!(t.process_name(1, 1), "NavReader");
    assert_eq!(t.process_name(0, -1), "main");
    assert_eq!(t.process_name(0, 9), "process 9");
    assert_eq!(t.port_name(2, 1), "attitude_in");
    assert_eq!(t.partition_name(7), "#7");
    assert_eq!((t.lost(), t.refused()), (LOST, REFUSED));
}

#[test]
fn frames_follow_the_schedule_switch() {
    let t = trace();
    let f = t.frame_starts().unwrap();
    assert!(f.len() as u64 >= FRAMES, "{f:?}");
    for (n, &(start, sched)) in f.iter().enumerate().take(FRAMES as usize) {
        assert_eq!(start, EPOCH + n as u64 * FRAME);
        assert_eq!(sched, usize::from(n as u64 >= SWITCH_FRAME), "frame {n}");
    }
    let planned = t.planned_windows().unwrap();
    // Three windows a frame.
    assert_eq!(
        planned.iter().filter(|w| w.frame < FRAMES).count() as u64,
        3 * FRAMES
    );
    let actual = t.actual_windows();
    assert_eq!(actual.len() as u64, 3 * FRAMES);
    for w in &actual {
        assert!((5_000..45_000).contains(&w.lateness()), "{w:?}");
        let f = w.usable_fraction().unwrap();
        assert!(f > 0.97 && f < 1.0, "{w:?}: {f}");
        assert!(planned
            .iter()
            .any(|p| p.start == w.planned_start && p.core == w.core && p.partition == w.partition));
    }
}

#[test]
fn a_selection_keeps_its_span_and_carries_the_state_in_force() {
    let t = trace();
    let s = t.select(&frames(1, 3)).unwrap();
    assert_eq!(s.bounds, (EPOCH + FRAME, EPOCH + 3 * FRAME));
    assert!(s
        .events
        .iter()
        .all(|e| e.time_ns >= s.bounds.0 && e.time_ns < s.bounds.1));
    // Every process's state and every partition's mode at the span start is carried.
    let carried_states = s
        .carried
        .iter()
        .filter(|e| e.kind == EventKind::ProcessState)
        .count();
    assert_eq!(carried_states, 4);
    // Windows that ended before the span are not carried; one open at its start is.
    assert!(s.actual_windows().iter().all(|w| w.start >= s.bounds.0));
    let mid = t
        .select(&Selection {
            span: Span::Time {
                from_ns: Some(5_000_000),
                to_ns: Some(8_000_000),
            },
            ..Selection::default()
        })
        .unwrap();
    let open: Vec<_> = mid.actual_windows();
    assert_eq!(open.len(), 2, "{open:?}");
    assert!(open
        .iter()
        .all(|w| w.start < mid.bounds.0 && w.end.is_none() && w.until == mid.bounds.1));
    // A span after the schedule switch is planned on the new schedule.
    let late = t.select(&frames(4, 5)).unwrap();
    let planned = late.planned_windows().unwrap();
    let fc: Vec<_> = planned
        .iter()
        .filter(|w| w.frame == 4 && w.core == 0 && w.partition == 0)
        .collect();
    assert_eq!(fc.len(), 1, "{planned:?}");
    assert_eq!((fc[0].schedule, fc[0].end - fc[0].start), (1, 15_000_000));
    let modes = s.mode_spans();
    assert_eq!(modes.len(), 3);
    assert!(modes
        .iter()
        .all(|m| m.start == s.bounds.0 && m.end == s.bounds.1));

    let nav = t
        .select(&Selection {
            partition: Some("Navigation".into()),
            ..Selection::default()
        })
        .unwrap();
    assert!(nav
        .events
        .iter()
        .all(|e| e.partition == 1 || (e.partition == u16::MAX && e.core == u8::MAX)));
    assert!(nav.events.iter().any(|e| e.kind == EventKind::WindowStart));
    let core1 = t
        .select(&Selection {
            core: Some(1),
            ..Selection::default()
        })
        .unwrap();
    assert!(!core1
        .events
        .iter()
        .any(|e| e.partition == 0 || e.partition == 1));
    assert!(core1.events.iter().any(|e| e.partition == 2));
}

#[test]
fn a_corrupt_frame_length_is_refused_not_looped_over() {
    let mut meta = synthetic::meta();
    for s in &mut meta.schedules {
        s.major_frame_ns = 1;
    }
    let t = Trace::new(meta, synthetic::events(), 0);
    let e = t.frame_starts().unwrap_err();
    assert!(matches!(e, ViewError::TooManyFrames { .. }), "{e}");
    assert!(crate::summary::render(&t).is_err());
}

#[test]
fn bad_selections_say_what_is_wrong() {
    let t = trace();
    let e = t
        .select(&Selection {
            partition: Some("Nope".into()),
            ..Selection::default()
        })
        .unwrap_err();
    assert!(matches!(e, ViewError::UnknownPartition { .. }));
    assert!(
        e.to_string()
            .contains("FlightControl, Navigation, Telemetry"),
        "{e}"
    );
    let e = t
        .select(&Selection {
            core: Some(5),
            ..Selection::default()
        })
        .unwrap_err();
    assert!(e.to_string().contains("core 5"), "{e}");
    assert!(Span::parse_frames("3..3").is_err());
    assert!(Span::parse_frames("x..3").is_err());
    assert_eq!(
        Span::parse_frames(" 1..4").unwrap(),
        Span::Frames { first: 1, end: 4 }
    );
    let e = t
        .select(&Selection {
            span: Span::Time {
                from_ns: Some(10),
                to_ns: Some(5),
            },
            ..Selection::default()
        })
        .unwrap_err();
    assert!(matches!(e, ViewError::EmptySpan { .. }), "{e}");
}

#[test]
fn perfetto_output_follows_the_trace_event_rules() {
    let t = trace();
    for sel in [
        Selection::default(),
        frames(1, 3),
        frames(4, 5),
        Selection {
            core: Some(0),
            partition: Some("Navigation".into()),
            span: Span::Time {
                from_ns: Some(85_000_000),
                to_ns: Some(86_000_000),
            },
        },
    ] {
        let doc = perfetto(&t.select(&sel).unwrap());
        let problems = trace_event_problems(&doc);
        assert!(problems.is_empty(), "{sel:?}:\n{}", problems.join("\n"));
    }
    let doc = perfetto(&t);
    let names = thread_names(&doc);
    let values: BTreeSet<&str> = names.values().map(String::as_str).collect();
    for want in [
        "core 0 planned",
        "core 0 actual",
        "core 1 actual",
        "core 0 kernel",
        "FlightControl mode",
        "Telemetry windows core 1",
        "GnC",
        "NavReader",
        "Downlink APEX",
    ] {
        assert!(values.contains(want), "no track {want}: {values:?}");
    }
    let evs = doc["traceEvents"].as_array().unwrap();
    let on = |name: &str, track: &str| {
        evs.iter()
            .filter(|e| {
                e["name"] == name
                    && names
                        .get(&(e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap()))
                        .is_some_and(|n| n == track)
            })
            .count()
    };
    assert_eq!(on("deadline miss", "NavReader"), 1);
    assert_eq!(on("HM", "NavReader"), 1);
    assert_eq!(on("RUNNING", "GnC") as u64, FRAMES);
    assert_eq!(on("NORMAL", "Navigation mode"), 1);
    assert_eq!(on("Telemetry", "core 1 planned") as u64, FRAMES);
    assert_eq!(on("write attitude", "GnC") as u64, FRAMES);
    // Kernel task switches name the partitions' host tasks.
    assert!(on("Navigation", "core 0 kernel") > 0);
    // Times are µs after the epoch.
    let first_window = evs
        .iter()
        .find(|e| e["name"] == "FlightControl" && e["ph"] == "X")
        .unwrap();
    assert_eq!(first_window["ts"].as_f64(), Some(0.0));
    assert_eq!(first_window["dur"].as_f64(), Some(10_000.0));
    assert_eq!(doc["otherData"]["events_lost"], LOST);
}

#[test]
fn a_partition_on_two_cores_gets_a_window_track_per_core() {
    let mut meta = synthetic::meta();
    let ms = 1_000_000;
    // FlightControl also runs on core 1, overlapping its core 0 window.
    meta.partitions[0].cores.push(1);
    let w = &mut meta.schedules[0].windows[2];
    (w.partition, w.offset_ns, w.duration_ns) = (0, 5 * ms, 15 * ms);
    let evs: Vec<_> = [(0u8, 0u64, 10 * ms), (1, 5 * ms, 15 * ms)]
        .iter()
        .flat_map(|&(core, off, dur)| {
            let args = [0, 0, 0, 0];
            [
                Event::new(
                    EPOCH + off + 1_000,
                    EventKind::WindowStart,
                    EPOCH + off,
                    args,
                )
                .on_core(core),
                Event::new(
                    EPOCH + off + dur - 80_000,
                    EventKind::WindowEnd,
                    EPOCH + off + dur,
                    args,
                )
                .on_core(core),
            ]
        })
        .collect();
    let doc = perfetto(&Trace::new(meta, evs, 0));
    let problems = trace_event_problems(&doc);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let names: BTreeSet<String> = thread_names(&doc).into_values().collect();
    assert!(names.contains("FlightControl windows core 0"), "{names:?}");
    assert!(names.contains("FlightControl windows core 1"), "{names:?}");
}

#[test]
fn the_rule_check_catches_broken_documents() {
    let bad = serde_json::json!({"traceEvents": [
        {"name": "a", "ph": "X", "ts": 1.0, "pid": 1, "tid": 1},
        {"name": "b", "ph": "E", "ts": 2.0, "pid": 1, "tid": 1},
        {"name": "c", "ph": "B", "ts": 3.0, "pid": 1, "tid": 2},
        {"name": "d", "ph": "i", "ts": 3.0, "pid": -1, "tid": 2},
        {"name": "e", "ph": "i", "ts": 3.0, "pid": 1, "tid": 2},
        {"name": "f", "ph": "Q", "ts": 3.0, "pid": 1, "tid": 2},
        {"name": "g", "ph": "X", "ts": 1.0, "dur": 5.0, "pid": 1, "tid": 3},
        {"name": "h", "ph": "X", "ts": 4.0, "dur": 5.0, "pid": 1, "tid": 3},
    ]});
    let p = trace_event_problems(&bad);
    for want in [
        "X needs",
        "E does not close",
        "B without E",
        "non-negative integers",
        "scope",
        "unknown phase",
        "overlaps its parent",
        "has no name",
    ] {
        assert!(p.iter().any(|x| x.contains(want)), "{want}: {p:?}");
    }
}

/// A minimal RFC 4180 reader for the test.
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => field.push(c),
        }
    }
    rows
}

#[test]
fn csv_has_one_row_per_event_with_decoded_arguments() {
    let mut events = synthetic::events();
    events.push(
        partita_abi::trace::Event::named(EPOCH + 1, EventKind::PortCreated, 9, b"odd,\"name\"\n")
            .unwrap()
            .of_partition(0)
            .of_process(-1),
    );
    let t = Trace::new(synthetic::meta(), events, 0);
    let mut out = Vec::new();
    convert(&t, Format::Csv, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let rows = parse_csv(&text);
    assert_eq!(rows[0], crate::csv::COLUMNS);
    assert_eq!(rows.len(), t.events.len() + 1);
    assert!(rows.iter().all(|r| r.len() == crate::csv::COLUMNS.len()));
    let odd = rows
        .iter()
        .find(|r| r[2] == "PORT_CREATED" && r[7].contains("odd"))
        .unwrap();
    assert!(odd[7].ends_with("name=odd,\"name\"\n"), "{odd:?}");
    let miss = rows.iter().find(|r| r[2] == "HEALTH_MONITOR").unwrap();
    assert_eq!(miss[4], "Navigation");
    assert_eq!(miss[6], "NavReader");
    assert_eq!(
        miss[7],
        "error=DEADLINE_MISSED level=PROCESS action=ERROR_HANDLER"
    );
    let switch = rows.iter().find(|r| r[2] == "KERNEL_SWITCH").unwrap();
    assert!(switch[7].ends_with("prev_state=R+"), "{switch:?}");
    let queuing = rows
        .iter()
        .find(|r| r[7].contains("name=attitude_in"))
        .unwrap();
    assert_eq!(queuing[7], "port_id=1 kind=queuing name=attitude_in");
    let state = rows.iter().find(|r| r[2] == "PROCESS_STATE").unwrap();
    assert_eq!(state[7], "state=WAITING reason=STARTED");
    let first_window = rows.iter().find(|r| r[2] == "WINDOW_START").unwrap();
    let since: i64 = first_window[1].parse().unwrap();
    assert!((5_000..45_000).contains(&since), "{first_window:?}");
}

#[test]
fn the_summary_says_what_is_missing_first() {
    let t = Trace::new(synthetic::meta(), synthetic::events(), 17);
    let text = crate::summary::render(&t).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[1].starts_with("WARNING: the file is truncated"),
        "{text}"
    );
    assert!(
        lines[2].contains(&format!("{LOST} events were lost")),
        "{text}"
    );
    assert!(
        lines[3].contains(&format!("{REFUSED} partition records were refused")),
        "{text}"
    );
    for want in [
        "core 0: 12 windows started of 12 planned; lateness p50",
        "core 1: 6 windows started of 6 planned",
        "usable fraction p50 99.",
        "Navigation/NavReader: 6 activations, 6 times scheduled, 1 deadline misses",
        "health monitor: 1 events",
        "error=DEADLINE_MISSED level=PROCESS action=ERROR_HANDLER",
        "FlightControl/attitude: 6 writes (384 bytes), 0 reads",
        "Telemetry/attitude_in: 0 writes (0 bytes), 6 reads (384 bytes), 1 not NO_ERROR",
        "schedule switch at 60.003 ms: to=degraded from=nominal",
        "FlightControl: 6 windows, 1 starts, modes: COLD_START at -49.900 ms, NORMAL at -10.000 ms",
    ] {
        assert!(text.contains(want), "no `{want}` in:\n{text}");
    }
    let clean = Trace::new(synthetic::meta(), Vec::new(), 0);
    let text = crate::summary::render(&clean).unwrap();
    assert!(
        text.lines().nth(1).unwrap().starts_with("complete:"),
        "{text}"
    );
}

#[test]
fn the_svg_is_well_formed_and_shows_what_happened() {
    let t = trace();
    let s = t.select(&frames(2, 5)).unwrap();
    let text = crate::svg::render(&s).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("well-formed SVG");
    let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).collect();
    for want in [
        "core 0 planned",
        "core 0 actual",
        "core 1 actual",
        "Navigation/NavReader",
        "Telemetry/Logger",
        "deadline miss",
        "HM event",
        "RUNNING",
        "60",
        "100",
    ] {
        assert!(
            texts.iter().any(|t| *t == want || t.contains(want)),
            "no {want}"
        );
    }
    let titles: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("title"))
        .filter_map(|n| n.text())
        .collect();
    assert_eq!(
        titles
            .iter()
            .filter(|t| t.starts_with("DEADLINE_MISS"))
            .count(),
        1
    );
    assert!(titles.iter().any(|t| t.starts_with("SCHEDULE_SWITCH")));
    assert!(titles
        .iter()
        .any(|t| t.contains("planned: frame 2 window 0")));
    assert!(text.contains("incomplete trace: 3 events lost"));
}
