// SPDX-License-Identifier: MIT OR Apache-2.0
//! The `partita-bench-switch-partition` executable:
//! see [`partita_bench_partitions::switch::partition_main`].

fn main() -> std::process::ExitCode {
    partita_bench_partitions::run(
        partita_bench_protocol::SWITCH_PARTITION,
        partita_bench_partitions::switch::partition_main,
    )
}
