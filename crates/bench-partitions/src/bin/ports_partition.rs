// SPDX-License-Identifier: MIT OR Apache-2.0
//! The `partita-bench-ports-partition` executable:
//! see [`partita_bench_partitions::ports::partition_main`].

fn main() -> std::process::ExitCode {
    partita_bench_partitions::run(
        partita_bench_protocol::PORTS_PARTITION,
        partita_bench_partitions::ports::partition_main,
    )
}
