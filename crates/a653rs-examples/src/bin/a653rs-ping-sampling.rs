// SPDX-License-Identifier: MIT OR Apache-2.0
//! ping over sampling ports: each period the client reads the server's echo of its last
//! request, logs the round trip (now minus the request's send time), and writes the next
//! request with its send time.

use a653rs::partition;
use a653rs::prelude::PartitionExt;
use log::LevelFilter;
use partita_apex::logger::ApexLogger;

fn main() {
    ApexLogger::install_panic_hook();
    ApexLogger::install_logger(LevelFilter::Trace).unwrap();
    ping_sampling::Partition.run()
}

#[partition(partita_apex::a653rs::Partita)]
mod ping_sampling {
    use a653rs::prelude::{Error, Validity};
    use log::{info, warn};
    use partita_a653rs_examples::Ping;

    #[sampling_out(name = "PingRequest", msg_size = "12B")]
    struct PingRequest;

    #[sampling_in(name = "PingResponse", msg_size = "12B", refresh_period = "1s")]
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
        let mut last_answered = 0;
        for seq in 1u32.. {
            match response.receive(&mut buf) {
                Ok((validity, msg)) => match Ping::decode(msg) {
                    Some(p) if p.seq > last_answered => {
                        last_answered = p.seq;
                        let now = ctx.get_time().unwrap_duration().as_nanos() as u64;
                        let rtt_us = now.saturating_sub(p.sent_ns) / 1000;
                        let valid = u8::from(validity == Validity::Valid);
                        info!(
                            "PING round-trip seq={} rtt_us={rtt_us} valid={valid}",
                            p.seq
                        );
                    }
                    Some(_) => {}
                    None => warn!("PING malformed response ({} bytes)", msg.len()),
                },
                Err(Error::NoAction) => {}
                Err(e) => warn!("PING receive failed: {e:?}"),
            }
            let sent_ns = ctx.get_time().unwrap_duration().as_nanos() as u64;
            request.send(&Ping { seq, sent_ns }.encode()).unwrap();
            ctx.periodic_wait().unwrap();
        }
    }
}
