// SPDX-License-Identifier: MIT OR Apache-2.0
//! ping over queuing ports: each period the client sends a request with its send time, then
//! waits (RECEIVE_QUEUING_MESSAGE with an infinite time-out) for the server's echo and logs
//! the round trip.

use a653rs::partition;
use a653rs::prelude::PartitionExt;
use log::LevelFilter;
use partita_apex::logger::ApexLogger;

fn main() {
    ApexLogger::install_panic_hook();
    ApexLogger::install_logger(LevelFilter::Trace).unwrap();
    ping_queuing::Partition.run()
}

#[partition(partita_apex::a653rs::Partita)]
mod ping_queuing {
    use a653rs::prelude::SystemTime;
    use core::time::Duration;
    use log::{info, warn};
    use partita_a653rs_examples::Ping;

    #[queuing_out(
        name = "PingRequest",
        msg_count = 4,
        msg_size = "12B",
        discipline = "FIFO"
    )]
    struct PingRequest;

    #[queuing_in(
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
        ctx.create_periodic_ping().unwrap().start().unwrap();
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
    fn periodic_ping(ctx: periodic_ping::Context) {
        let (request, response) = (ctx.ping_request.unwrap(), ctx.ping_response.unwrap());
        let mut buf = [0u8; Ping::LEN];
        for seq in 1u32.. {
            let sent_ns = ctx.get_time().unwrap_duration().as_nanos() as u64;
            let ping = Ping { seq, sent_ns };
            if let Err(e) = request.send(&ping.encode(), SystemTime::Normal(Duration::ZERO)) {
                warn!("PING send failed: {e:?}");
            }
            // Blocks until the echo arrives (in a later window of this partition).
            match response.receive(&mut buf, SystemTime::Infinite) {
                Ok((msg, overflow)) => match Ping::decode(msg) {
                    Some(p) => {
                        let now = ctx.get_time().unwrap_duration().as_nanos() as u64;
                        let rtt_us = now.saturating_sub(p.sent_ns) / 1000;
                        let overflow = u8::from(overflow);
                        info!(
                            "PING round-trip seq={} expected={seq} rtt_us={rtt_us} overflow={overflow}",
                            p.seq
                        );
                    }
                    None => warn!("PING malformed response ({} bytes)", msg.len()),
                },
                Err(e) => warn!("PING receive failed: {e:?}"),
            }
            ctx.periodic_wait().unwrap();
        }
    }
}
