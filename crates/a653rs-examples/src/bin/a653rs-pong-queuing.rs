// SPDX-License-Identifier: MIT OR Apache-2.0
//! pong over queuing ports: an aperiodic process waits for each request (infinite time-out)
//! and sends it back.

use a653rs::partition;
use a653rs::prelude::PartitionExt;
use log::LevelFilter;
use partita_apex::logger::ApexLogger;

fn main() {
    ApexLogger::install_panic_hook();
    ApexLogger::install_logger(LevelFilter::Trace).unwrap();
    pong_queuing::Partition.run()
}

#[partition(partita_apex::a653rs::Partita)]
mod pong_queuing {
    use a653rs::prelude::SystemTime;
    use core::time::Duration;
    use log::{info, warn};
    use partita_a653rs_examples::Ping;

    #[queuing_in(
        name = "PingRequest",
        msg_count = 4,
        msg_size = "12B",
        discipline = "FIFO"
    )]
    struct PingRequest;

    #[queuing_out(
        name = "PingResponse",
        msg_count = 4,
        msg_size = "12B",
        discipline = "FIFO"
    )]
    struct PingResponse;

    #[start(cold)]
    fn cold_start(mut ctx: start::Context) {
        ctx.create_ping_request().unwrap();
        ctx.create_ping_response().unwrap();
        ctx.create_aperiodic_pong().unwrap().start().unwrap();
    }

    #[start(warm)]
    fn warm_start(ctx: start::Context) {
        cold_start(ctx);
    }

    #[aperiodic(
        time_capacity = "Infinite",
        stack_size = "100KB",
        base_priority = 1,
        deadline = "Soft"
    )]
    fn aperiodic_pong(ctx: aperiodic_pong::Context) {
        let (request, response) = (ctx.ping_request.unwrap(), ctx.ping_response.unwrap());
        let mut buf = [0u8; Ping::LEN];
        loop {
            match request.receive(&mut buf, SystemTime::Infinite) {
                Ok((msg, _)) => {
                    let seq = Ping::decode(msg).map_or(0, |p| p.seq);
                    match response.send(msg, SystemTime::Normal(Duration::ZERO)) {
                        Ok(()) => info!("PONG echoed seq={seq}"),
                        Err(e) => warn!("PONG send failed: {e:?}"),
                    }
                }
                Err(e) => warn!("PONG receive failed: {e:?}"),
            }
        }
    }
}
