// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita trace FILE` on a synthetic trace file (no module runs): every format, a
//! selection, `-o`, and the refusals with their exit statuses.

mod common;

use common::{partita, scratch, text};
use partita_trace::synthetic;
use std::path::{Path, PathBuf};

fn trace_file(dir: &Path) -> PathBuf {
    let path = dir.join("synthetic.trace");
    let mut w = partita_trace::TraceWriter::create(&path, &synthetic::meta()).unwrap();
    for e in synthetic::events() {
        w.write(&e).unwrap();
    }
    w.finish().unwrap();
    path
}

#[test]
fn every_format_converts_the_file() {
    let dir = scratch("trace-view-formats");
    let file = trace_file(&dir);
    let o = partita().arg("trace").arg(&file).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("WARNING: 3 events were lost"), "{out}");
    assert!(out.contains("Navigation/NavReader: 6 activations"), "{out}");

    let o = partita()
        .args(["trace", "--format", "perfetto", "--frames", "2..4"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let evs = doc["traceEvents"].as_array().unwrap();
    assert!(evs.iter().any(|e| e["name"] == "SCHEDULE_SWITCH"));
    assert!(evs
        .iter()
        .filter(|e| e["ph"] != "M")
        .all(|e| e["ts"].as_f64().unwrap() >= 40_000.0 && e["ts"].as_f64().unwrap() < 80_000.0));

    let o = partita()
        .args(["trace", "--format", "csv", "--partition", "Telemetry"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let csv = String::from_utf8_lossy(&o.stdout);
    assert!(csv.starts_with("time_ns,since_epoch_ns,kind,"), "{csv}");
    assert!(!csv.contains(",FlightControl,"), "{csv}");
    assert!(csv.contains(",Telemetry,"), "{csv}");

    let svg = dir.join("span.svg");
    let o = partita()
        .args([
            "trace", "--format", "svg", "--from", "-1ms", "--to", "65ms", "-o",
        ])
        .arg(&svg)
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("incomplete trace"), "{}", text(&o));
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
    assert!(s.contains("-1.000 ms to 65.000 ms"), "{s}");
}

#[test]
fn bad_files_and_selections_are_refused_with_their_status() {
    let dir = scratch("trace-view-refusals");
    let file = trace_file(&dir);
    let not_trace = dir.join("not.trace");
    std::fs::write(&not_trace, "hello").unwrap();
    for (args, status, says) in [
        (vec!["--partition", "Nope"], 2, "no partition `Nope`"),
        (vec!["--core", "7"], 2, "core 7"),
        (vec!["--frames", "4..2"], 2, "not a frame range"),
        (vec!["--from", "10ms", "--to", "5ms"], 2, "empty span"),
        (
            vec!["--frames", "1..2", "--from", "1ms"],
            2,
            "cannot be used with",
        ),
        (vec!["--format", "pdf"], 2, "not a trace format"),
    ] {
        let o = partita()
            .arg("trace")
            .args(&args)
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(status), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(says), "{args:?}: {}", text(&o));
    }
    let o = partita().arg("trace").arg(&not_trace).output().unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    assert!(
        text(&o).contains("not a Partita trace file"),
        "{}",
        text(&o)
    );
    let o = partita()
        .arg("trace")
        .arg(dir.join("missing.trace"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    let o = partita()
        .args(["trace", "-o", "/nonexistent-dir/x.svg"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    // A file cut inside an event still converts, and says so first.
    let cut = dir.join("cut.trace");
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() - 20]).unwrap();
    let o = partita().arg("trace").arg(&cut).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("WARNING: the file is truncated: it ends 44 bytes")),
        "{out}"
    );
}
