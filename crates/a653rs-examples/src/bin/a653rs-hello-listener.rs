// SPDX-License-Identifier: MIT OR Apache-2.0
//! hello listener: reads the `Hello` sampling port each period and logs the message and its
//! validity (a message older than the port's refresh period is invalid).

use a653rs::partition;
use a653rs::prelude::PartitionExt;
use log::LevelFilter;
use partita_apex::logger::ApexLogger;

fn main() {
    ApexLogger::install_panic_hook();
    ApexLogger::install_logger(LevelFilter::Trace).unwrap();
    hello_listener::Partition.run()
}

#[partition(partita_apex::a653rs::Partita)]
mod hello_listener {
    use a653rs::prelude::{Error, Validity};
    use log::{info, warn};

    #[sampling_in(name = "Hello", msg_size = "32B", refresh_period = "250ms")]
    struct HelloDestination;

    #[start(cold)]
    fn cold_start(mut ctx: start::Context) {
        ctx.create_hello_destination().unwrap();
        ctx.create_periodic_listen().unwrap().start().unwrap();
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
    fn periodic_listen(ctx: periodic_listen::Context) {
        let port = ctx.hello_destination.unwrap();
        let mut buf = [0u8; 32];
        loop {
            match port.receive(&mut buf) {
                Ok((validity, msg)) => {
                    let text = String::from_utf8_lossy(msg);
                    // "Hello <n>": log the number, so that the reader's view can be checked.
                    let n = text.strip_prefix("Hello ").unwrap_or("?");
                    let valid = u8::from(validity == Validity::Valid);
                    info!("HELLO received n={n} valid={valid}");
                }
                // Nothing written yet.
                Err(Error::NoAction) => info!("HELLO nothing yet"),
                Err(e) => warn!("HELLO receive failed: {e:?}"),
            }
            ctx.periodic_wait().unwrap();
        }
    }
}
