// SPDX-License-Identifier: MIT OR Apache-2.0
//! The `partita-bench-load` executable (an ordinary program, run as a general-purpose
//! partition): see [`partita_bench_partitions::interference::load_main`].

fn main() -> std::process::ExitCode {
    partita_bench_partitions::run(
        partita_bench_protocol::LOAD,
        partita_bench_partitions::interference::load_main,
    )
}
