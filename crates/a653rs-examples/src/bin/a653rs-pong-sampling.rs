// SPDX-License-Identifier: MIT OR Apache-2.0
//! pong over sampling ports: each period the server echoes the latest request it has not
//! echoed yet.

use a653rs::partition;
use a653rs::prelude::PartitionExt;
use log::LevelFilter;
use partita_apex::logger::ApexLogger;

fn main() {
    ApexLogger::install_panic_hook();
    ApexLogger::install_logger(LevelFilter::Trace).unwrap();
    pong_sampling::Partition.run()
}

#[partition(partita_apex::a653rs::Partita)]
mod pong_sampling {
    use a653rs::prelude::Error;
    use log::{info, warn};
    use partita_a653rs_examples::Ping;

    #[sampling_in(name = "PingRequest", msg_size = "12B", refresh_period = "1s")]
    struct PingRequest;

    #[sampling_out(name = "PingResponse", msg_size = "12B")]
    struct PingResponse;

    #[start(cold)]
    fn cold_start(mut ctx: start::Context) {
        ctx.create_ping_request().unwrap();
        ctx.create_ping_response().unwrap();
        ctx.create_periodic_pong().unwrap().start().unwrap();
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
    fn periodic_pong(ctx: periodic_pong::Context) {
        let (request, response) = (ctx.ping_request.unwrap(), ctx.ping_response.unwrap());
        let mut buf = [0u8; Ping::LEN];
        let mut last = 0;
        loop {
            match request.receive(&mut buf) {
                Ok((_, msg)) => match Ping::decode(msg) {
                    Some(p) if p.seq > last => {
                        last = p.seq;
                        response.send(msg).unwrap();
                        info!("PONG echoed seq={}", p.seq);
                    }
                    Some(_) => {}
                    None => warn!("PONG malformed request ({} bytes)", msg.len()),
                },
                Err(Error::NoAction) => {}
                Err(e) => warn!("PONG receive failed: {e:?}"),
            }
            ctx.periodic_wait().unwrap();
        }
    }
}
