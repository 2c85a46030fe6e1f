// SPDX-License-Identifier: MIT OR Apache-2.0
//! The `partita-bench-apex-partition` executable:
//! see [`partita_bench_partitions::apex::partition_main`].

fn main() -> std::process::ExitCode {
    partita_bench_partitions::run(
        partita_bench_protocol::APEX_PARTITION,
        partita_bench_partitions::apex::partition_main,
    )
}
