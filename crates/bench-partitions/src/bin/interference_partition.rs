// SPDX-License-Identifier: MIT OR Apache-2.0
//! The `partita-bench-interference-partition` executable:
//! see [`partita_bench_partitions::interference::partition_main`].

fn main() -> std::process::ExitCode {
    partita_bench_partitions::run(
        partita_bench_protocol::INTERFERENCE_PARTITION,
        partita_bench_partitions::interference::partition_main,
    )
}
