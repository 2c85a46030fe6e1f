// SPDX-License-Identifier: MIT OR Apache-2.0
//! Building and running the standalone C test programs of this crate (shared by
//! `c_services.rs` and `c_hm.rs`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

/// `target/<profile>` of this test binary (`target/<profile>/deps/c_services-<hash>`).
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    exe.parent()
        .and_then(Path::parent)
        .expect("test executable in target/<profile>/deps")
        .to_path_buf()
}

/// `$CC` split into program and arguments, or `cc`.
pub fn cc() -> Command {
    let line = std::env::var("CC")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "cc".to_string());
    let mut words = line.split_whitespace();
    let mut cmd = Command::new(words.next().unwrap());
    cmd.args(words);
    cmd
}

pub fn run(what: &str, cmd: &mut Command) -> Output {
    let program = cmd.get_program().to_string_lossy().into_owned();
    let output = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run `{program}`: {e}"));
    if !output.status.success() {
        panic!(
            "{what} failed ({}):\n{cmd:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr),
        );
    }
    output
}

/// Builds (or refreshes) `libpartita_apex.a` for the profile of this test binary.
pub fn static_library() -> PathBuf {
    let dir = profile_dir();
    let target_dir = dir.parent().expect("target directory");
    let profile = dir
        .file_name()
        .and_then(|n| n.to_str())
        .expect("profile directory name");
    let mut cargo = Command::new(env!("CARGO"));
    cargo
        .arg("build")
        .arg("--manifest-path")
        .arg(workspace_root().join("Cargo.toml"))
        .args(["-p", "partita-apex", "--target-dir"])
        .arg(target_dir);
    match profile {
        "debug" => {}
        "release" => {
            cargo.arg("--release");
        }
        other => {
            cargo.args(["--profile", other]);
        }
    }
    run("building libpartita_apex.a", &mut cargo);
    let lib = dir.join("libpartita_apex.a");
    assert!(lib.exists(), "{} was not built", lib.display());
    lib
}

/// Runs `program`, killing it after `limit` (a hang is a failure, not a stuck test). Its
/// output is read while it runs, so a program writing more than a pipe holds does not block.
pub fn run_with_timeout(program: &Path, limit: Duration) -> Output {
    let mut child = Command::new(program)
        .env_remove("PARTITA_CONTROL_FD")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    let drain = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            r.read_to_end(&mut v).expect("read the program's output");
            v
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("stdout piped")));
    let stderr = drain(Box::new(child.stderr.take().expect("stderr piped")));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for services") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "services did not finish within {limit:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
                String::from_utf8_lossy(&stdout.join().expect("stdout reader")),
                String::from_utf8_lossy(&stderr.join().expect("stderr reader")),
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
    }
}

/// Compiles `tests/c/<name>.c` against the runtime, runs it standalone (60 s limit), checks
/// that it succeeded and that its stdout is exactly `expected`; returns its stderr.
pub fn run_trace_test(name: &str, expected: &str) -> String {
    let lib = static_library();
    let root = workspace_root();
    let scratch =
        std::env::temp_dir().join(format!("partita-apex-c-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch directory");
    let binary = scratch.join(name);
    run(
        &format!("compiling tests/c/{name}.c"),
        cc().args(["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-I"])
            .arg(root.join("include"))
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/c/{name}.c")))
            .arg(&lib)
            .args(["-lpthread", "-ldl", "-lm", "-lrt", "-lgcc_s", "-o"])
            .arg(&binary),
    );
    let out = run_with_timeout(&binary, Duration::from_secs(60));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        out.status.success(),
        "{name} exited with {}\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}",
        out.status
    );
    let expected: Vec<&str> = expected.lines().collect();
    let actual: Vec<&str> = stdout.lines().collect();
    if expected != actual {
        let first = expected
            .iter()
            .zip(&actual)
            .position(|(e, a)| e != a)
            .unwrap_or(expected.len().min(actual.len()));
        panic!(
            "trace differs from line {} on:\n  expected: {:?}\n  actual:   {:?}\n\
             --- full stdout ---\n{stdout}\n--- stderr ---\n{stderr}",
            first + 1,
            expected.get(first),
            actual.get(first),
        );
    }
    stderr
}
