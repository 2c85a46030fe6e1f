// SPDX-License-Identifier: MIT OR Apache-2.0
//! The `partita-bench-sfp-exchange-partition` executable:
//! see [`partita_bench_partitions::sfp::exchange::partition_main`].

fn main() -> std::process::ExitCode {
    partita_bench_partitions::run(
        partita_bench_protocol::SFP_EXCHANGE_PARTITION,
        partita_bench_partitions::sfp::exchange::partition_main,
    )
}
