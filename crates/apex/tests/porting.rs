// SPDX-License-Identifier: MIT OR Apache-2.0
//! Partition code written for other APEX implementations (`tests/c/porting.c`): string
//! literals for name parameters, the common C headers taken from `ARINC653.h`, and
//! `SUSPEND_SELF(0)`. It must compile without a warning under `-Wall -Wextra -Werror` at
//! `-O2` (where GCC's `-Wstringop-overflow` looks at array parameters) as C99, C11 and C++11,
//! with the C compiler and with clang when installed, and run with the standard's semantics.

mod c_harness;
use c_harness::*;
use std::path::{Path, PathBuf};
use std::process::Command;

const EXPECTED: &str = r#"main: CREATE_PROCESS(worker) -> NO_ERROR id=1
main: SUSPEND_SELF(0) -> INVALID_MODE
main: CREATE_SEMAPHORE("sem") -> NO_ERROR id=1
main: CREATE_EVENT("evt") -> NO_ERROR id=1
main: CREATE_BUFFER("buf") -> NO_ERROR id=1
main: CREATE_BLACKBOARD("bb") -> NO_ERROR id=1
main: sizeof(NAME_TYPE) = 30
main: START(worker) -> NO_ERROR
worker: SUSPEND_SELF(0) -> NO_ERROR
worker: GET_PROCESS_ID("worker") -> NO_ERROR id=1
worker: GET_SEMAPHORE_ID("sem") -> NO_ERROR id=1
worker: GET_BUFFER_ID("buf") -> NO_ERROR id=1
"#;

fn source() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/porting.c")
}

/// Compiles porting.c to an object with `compiler` and `flags`, warnings as errors.
fn compile(compiler: Command, flags: &[&str]) {
    let mut cmd = compiler;
    let out = std::env::temp_dir().join(format!("partita-porting-{}.o", std::process::id()));
    cmd.args(["-O2", "-Wall", "-Wextra", "-Werror", "-c", "-I"])
        .arg(workspace_root().join("include"))
        .args(flags)
        .arg(source())
        .arg("-o")
        .arg(&out);
    run(&format!("compiling porting.c with {cmd:?}"), &mut cmd);
    let _ = std::fs::remove_file(out);
}

fn installed(program: &str) -> bool {
    Command::new(program).arg("--version").output().is_ok()
}

#[test]
fn code_from_other_implementations_compiles_without_warnings() {
    for std in ["-std=c99", "-std=c11", "-std=gnu11"] {
        compile(cc(), &[std]);
    }
    compile(Command::new("c++"), &["-x", "c++", "-std=c++11"]);
    if installed("clang") {
        compile(Command::new("clang"), &["-std=c11"]);
    } else if std::env::var("PARTITA_REQUIRE_ALL").as_deref() == Ok("1") {
        // scripts/test.sh installs clang; on CI its absence is a failure, not a skip.
        panic!("clang is not installed (scripts/test.sh installs it)");
    } else {
        // Reported by scripts/test.sh with the other skips.
        println!("SKIPPED porting.c with clang: clang is not installed");
    }
}

#[test]
fn code_from_other_implementations_runs_with_the_standards_semantics() {
    run_trace_test("porting", EXPECTED);
}
