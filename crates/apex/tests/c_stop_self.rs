// SPDX-License-Identifier: MIT OR Apache-2.0
//! Runs `tests/c/stop_self_reuse.c`: 1000 error-handler activations that end with STOP_SELF
//! and 1000 runs of a process that STOP_SELFs 20 calls deep, against the real runtime,
//! standalone. Every STOP_SELF must take its thread back to the top of its loop
//! (`partita_sys::escape`): the process ends with as many threads as it started with, every
//! activation ran, and nothing after a STOP_SELF ran. Needs `cc` on `PATH` (or `CC` set).

mod c_harness;
use c_harness::*;

const EXPECTED: &str = "driver: 1000 rounds: RAISE_APPLICATION_ERROR NO_ERROR, START NO_ERROR
driver: handler activations 1000, errors handled 1000
driver: diver runs 1000, reached the bottom 1000
driver: threads grew by 0
driver: diver DORMANT
";

#[test]
fn stop_self_reuses_the_thread() {
    run_trace_test("stop_self_reuse", EXPECTED);
}
