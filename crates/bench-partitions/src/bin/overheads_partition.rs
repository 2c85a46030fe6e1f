// SPDX-License-Identifier: MIT OR Apache-2.0
//! The `partita-bench-overheads-partition` executable:
//! see [`partita_bench_partitions::overheads::partition_main`].

fn main() -> std::process::ExitCode {
    partita_bench_partitions::run(
        partita_bench_protocol::OVERHEADS_PARTITION,
        partita_bench_partitions::overheads::partition_main,
    )
}
