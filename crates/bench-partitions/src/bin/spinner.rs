// SPDX-License-Identifier: MIT OR Apache-2.0
//! The `partita-bench-spinner` executable: see [`partita_bench_partitions::switch::spinner_main`].

fn main() -> std::process::ExitCode {
    partita_bench_partitions::run(
        partita_bench_protocol::SPINNER,
        partita_bench_partitions::switch::spinner_main,
    )
}
