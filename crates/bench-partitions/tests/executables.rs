// SPDX-License-Identifier: MIT OR Apache-2.0
//! The executables are built under the names the bench looks for, and refuse a command line
//! they cannot use with a message naming the word.

use std::path::Path;
use std::process::Command;

const BUILT: [&str; 10] = [
    env!("CARGO_BIN_EXE_partita-bench-switch-partition"),
    env!("CARGO_BIN_EXE_partita-bench-spinner"),
    env!("CARGO_BIN_EXE_partita-bench-apex-partition"),
    env!("CARGO_BIN_EXE_partita-bench-ports-partition"),
    env!("CARGO_BIN_EXE_partita-bench-overheads-partition"),
    env!("CARGO_BIN_EXE_partita-bench-sfp-partition"),
    env!("CARGO_BIN_EXE_partita-bench-slots-partition"),
    env!("CARGO_BIN_EXE_partita-bench-sfp-exchange-partition"),
    env!("CARGO_BIN_EXE_partita-bench-interference-partition"),
    env!("CARGO_BIN_EXE_partita-bench-load"),
];

#[test]
fn the_executables_carry_the_names_the_bench_looks_for() {
    for (path, name) in BUILT.iter().zip(partita_bench_protocol::EXECUTABLES) {
        let file = Path::new(path).file_name().and_then(|f| f.to_str());
        assert_eq!(file, Some(name), "{path}");
    }
}

#[test]
fn a_bad_command_line_is_refused_with_the_word_it_lacks() {
    for (path, name) in BUILT.iter().zip(partita_bench_protocol::EXECUTABLES) {
        let out = Command::new(path).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(
            err.starts_with(&format!("{name}: argument 0 (")) && err.contains("is missing"),
            "{name}: {err}"
        );
    }
    // A log that is not there: the spinner says which file.
    let out = Command::new(BUILT[1])
        .args(["/nonexistent/gap-log", "0", "3000", "20"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("/nonexistent/gap-log"), "{err}");
}
