// SPDX-License-Identifier: MIT OR Apache-2.0
//! The `partita-bench-slots-partition` executable:
//! see [`partita_bench_partitions::slots::partition_main`].

fn main() -> std::process::ExitCode {
    partita_bench_partitions::run(
        partita_bench_protocol::SLOTS_PARTITION,
        partita_bench_partitions::slots::partition_main,
    )
}
