// SPDX-License-Identifier: MIT OR Apache-2.0
//! tank simulator: a tank that fills at a constant rate and drains through a valve. Each
//! period it applies the controller's latest valve command (if valid), advances the
//! simulation one step and publishes the fill level. It also logs the module schedule it
//! runs under, to show the controller's schedule switch from another partition.

use a653rs::partition;
use a653rs::prelude::PartitionExt;
use log::LevelFilter;
use partita_apex::logger::ApexLogger;

fn main() {
    ApexLogger::install_panic_hook();
    ApexLogger::install_logger(LevelFilter::Trace).unwrap();
    tank_simulator::Partition.run()
}

#[partition(partita_apex::a653rs::Partita)]
mod tank_simulator {
    use a653rs::prelude::{ApexScheduleP2Ext, Error, Validity};
    use log::{info, warn};
    use partita_a653rs_examples::{tank_step, TankLevel, Valve};

    /// Fill per step, per mille.
    const INFLOW: u32 = 50;
    /// Drain per step with the valve open, per mille.
    const OUTFLOW: u32 = 120;

    #[sampling_out(name = "TankLevel", msg_size = "8B")]
    struct LevelSource;

    #[sampling_in(name = "ValveCommand", msg_size = "1B", refresh_period = "250ms")]
    struct ValveDestination;

    #[start(cold)]
    fn cold_start(mut ctx: start::Context) {
        ctx.create_level_source().unwrap();
        ctx.create_valve_destination().unwrap();
        ctx.create_periodic_simulate().unwrap().start().unwrap();
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
    fn periodic_simulate(ctx: periodic_simulate::Context) {
        let (out, cmd) = (ctx.level_source.unwrap(), ctx.valve_destination.unwrap());
        let (mut level, mut valve) = (500, Valve::Closed);
        let mut buf = [0u8; 1];
        for step in 1u32.. {
            let cmd_valid = match cmd.receive(&mut buf) {
                Ok((Validity::Valid, msg)) => match Valve::decode(msg) {
                    Some(v) => {
                        valve = v;
                        1
                    }
                    None => {
                        warn!("SIM malformed valve command {msg:?}");
                        0
                    }
                },
                // A stale command is not applied: the valve keeps its position.
                Ok((Validity::Invalid, _)) | Err(Error::NoAction) => 0,
                Err(e) => {
                    warn!("SIM valve command: {e:?}");
                    0
                }
            };
            level = tank_step(level, valve, INFLOW, OUTFLOW);
            out.send(&TankLevel { step, level }.encode()).unwrap();
            let schedule = <Hypervisor as ApexScheduleP2Ext>::get_module_schedule_status()
                .map_or(-1, |s| s.current_schedule);
            info!(
                "SIM step={step} level={level} valve={} cmd_valid={cmd_valid} schedule={schedule}",
                valve.word()
            );
            ctx.periodic_wait().unwrap();
        }
    }
}
