// SPDX-License-Identifier: MIT OR Apache-2.0
//! The `partita-bench-sfp-partition` executable:
//! see [`partita_bench_partitions::sfp::partition_main`].

fn main() -> std::process::ExitCode {
    partita_bench_partitions::run(
        partita_bench_protocol::SFP_PARTITION,
        partita_bench_partitions::sfp::partition_main,
    )
}
