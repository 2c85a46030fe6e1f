// SPDX-License-Identifier: MIT OR Apache-2.0
//! Runs `tests/c/hm.c`, a C partition exercising process-level health monitoring through the
//! ARINC 653 C binding (error handler, RAISE_APPLICATION_ERROR, GET_ERROR_STATUS,
//! CONFIGURE_ERROR_HANDLER) and the hardware fault path (SIGFPE in a process becomes a
//! NUMERIC_ERROR for the error handler, which STOPs and re-STARTs the process), and compares
//! its trace with [`EXPECTED`]. Errors handled at partition level are printed on stderr
//! (standalone runtime) and checked there.
//!
//! Standalone like `c_services` (no partition manager, no real-time priorities); links
//! `target/<profile>/libpartita_apex.a`. x86 only for the fault part (an integer division by
//! zero does not trap elsewhere). Needs `cc` on `PATH` (or `CC` set).

mod c_harness;
use c_harness::*;

/// The trace `hm.c` prints.
const EXPECTED: &str = r#"main: GET_ERROR_STATUS -> INVALID_CONFIG
main: CONFIGURE_ERROR_HANDLER (no handler) -> INVALID_CONFIG
main: CREATE_ERROR_HANDLER(NULL) -> INVALID_PARAM
main: CREATE_ERROR_HANDLER(stack 0) -> INVALID_PARAM
main: CREATE_ERROR_HANDLER(stack 4 GiB) -> INVALID_CONFIG
main: CREATE_ERROR_HANDLER -> NO_ERROR
main: CREATE_ERROR_HANDLER (again) -> NO_ACTION
main: CONFIGURE_ERROR_HANDLER(concurrency 7) -> INVALID_PARAM
main: CONFIGURE_ERROR_HANDLER(core 3) -> INVALID_CONFIG
main: CONFIGURE_ERROR_HANDLER(PROCESSES_PAUSE, NO_PREFERENCE) -> NO_ERROR
main: GET_ERROR_STATUS -> INVALID_CONFIG
main: RAISE_APPLICATION_ERROR (partition level) -> NO_ERROR
main: CREATE_PROCESS(worker) -> NO_ERROR id=1
main: CREATE_PROCESS(faulty) -> NO_ERROR id=2
main: START(worker) -> NO_ERROR
worker: entry
worker: GET_ERROR_STATUS -> INVALID_CONFIG failed=-77 (unchanged)
worker: RAISE_APPLICATION_ERROR(NUMERIC_ERROR) -> INVALID_PARAM
worker: RAISE_APPLICATION_ERROR(129 bytes) -> INVALID_PARAM
worker: RAISE_APPLICATION_ERROR(NULL, 4) -> INVALID_PARAM
worker: RAISE_APPLICATION_ERROR(sensor out of range)
handler: entry (activation 1)
handler: GET_MY_ID -> INVALID_MODE id=-77 (unchanged)
handler: TIMED_WAIT(1 ms) -> INVALID_MODE
handler: GET_ERROR_STATUS -> NO_ERROR code=APPLICATION_ERROR failed=1 length=19 message='sensor out of range' address=null
handler: GET_ERROR_STATUS -> NO_ACTION failed=-77 (unchanged)
handler: RAISE_APPLICATION_ERROR (partition level) -> NO_ERROR
handler: STOP_SELF
worker: RAISE_APPLICATION_ERROR returned -> NO_ERROR
worker: START(faulty)
faulty: entry (run 1)
handler: entry (activation 2)
handler: GET_MY_ID -> INVALID_MODE id=-77 (unchanged)
handler: TIMED_WAIT(1 ms) -> INVALID_MODE
handler: GET_ERROR_STATUS -> NO_ERROR code=NUMERIC_ERROR failed=2 length=18 message='SIGFPE (si_code 1)' address=set
handler: GET_ERROR_STATUS -> NO_ACTION failed=-77 (unchanged)
handler: STOP(faulty) -> NO_ERROR
handler: START(faulty) -> NO_ERROR
handler: return
faulty: entry (run 2)
faulty: return
worker: START(faulty) returned -> NO_ERROR
worker: GET_PROCESS_STATUS(faulty) -> NO_ERROR state=DORMANT runs=2
worker: done (handler activations 2)
"#;

/// Lines (fragments) stderr must contain: the errors handled at partition level, and one the
/// error handler took, as the standalone runtime prints its report records.
const EXPECTED_STDERR: &[&str] = &[
    "[partition-level error t=",
    "main] APPLICATION_ERROR (1): init error",
    "error handler] APPLICATION_ERROR (1): handler error",
    "[process-level error t=",
    "process 1] APPLICATION_ERROR (1): sensor out of range",
];

#[test]
fn c_hm_trace() {
    if !cfg!(any(target_arch = "x86_64", target_arch = "x86")) {
        println!("SKIPPED c_hm_trace: an integer division by zero traps only on x86");
        return;
    }
    let stderr = run_trace_test("hm", EXPECTED);
    for want in EXPECTED_STDERR {
        assert!(
            stderr.contains(want),
            "stderr lacks {want:?}\n--- stderr ---\n{stderr}"
        );
    }
}
