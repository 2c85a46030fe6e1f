// SPDX-License-Identifier: MIT OR Apache-2.0
//! hello: an `a653rs` partition with one sampling port. A periodic process writes
//! `Hello <n>` to the source port `Hello` each period and logs what it wrote.
//!
//! Written as for a653rs-linux: the only Partita-specific lines are the hypervisor type in
//! `#[partition(...)]` and the logger's import.

use a653rs::partition;
use a653rs::prelude::PartitionExt;
use log::LevelFilter;
use partita_apex::logger::ApexLogger;

fn main() {
    ApexLogger::install_panic_hook();
    ApexLogger::install_logger(LevelFilter::Trace).unwrap();
    hello::Partition.run()
}

#[partition(partita_apex::a653rs::Partita)]
mod hello {
    use log::info;

    #[sampling_out(name = "Hello", msg_size = "32B")]
    struct HelloSource;

    #[start(cold)]
    fn cold_start(mut ctx: start::Context) {
        ctx.create_hello_source().unwrap();
        ctx.create_periodic_hello().unwrap().start().unwrap();
    }

    #[start(warm)]
    fn warm_start(ctx: start::Context) {
        cold_start(ctx);
    }

    #[periodic(
        period = "100ms",
        time_capacity = "Infinite",
        stack_size = "100KB",
        base_priority = 1,
        deadline = "Soft"
    )]
    fn periodic_hello(ctx: periodic_hello::Context) {
        for n in 1u64.. {
            let msg = format!("Hello {n}");
            ctx.hello_source.unwrap().send(msg.as_bytes()).unwrap();
            info!("HELLO sent n={n}");
            ctx.periodic_wait().unwrap();
        }
    }
}
