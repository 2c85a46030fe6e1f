// SPDX-License-Identifier: MIT OR Apache-2.0
//! tank controller: each period reads the simulator's fill level and commands the drain
//! valve (open above 80 %, closed below 20 %). A system partition: after `SWITCH_AFTER`
//! cycles it asks for the `degraded` module schedule (ARINC 653 Part 2 SET_MODULE_SCHEDULE),
//! which takes over at the end of the major frame. At start it looks up its configured
//! memory block `setpoints` (ARINC 653 Part 2 GET_MEMORY_BLOCK_STATUS) and logs it.

use a653rs::partition;
use a653rs::prelude::PartitionExt;
use log::LevelFilter;
use partita_apex::logger::ApexLogger;

fn main() {
    ApexLogger::install_panic_hook();
    ApexLogger::install_logger(LevelFilter::Trace).unwrap();
    tank_controller::Partition.run()
}

#[partition(partita_apex::a653rs::Partita)]
mod tank_controller {
    use a653rs::bindings::ApexMemoryBlockP2;
    use a653rs::prelude::{ApexScheduleP2Ext, Error, Validity};
    use log::{info, warn};
    use partita_a653rs_examples::{control, TankLevel, Valve};

    /// Below this level (per mille) the valve closes.
    const LOW: u32 = 200;
    /// Above this level the valve opens.
    const HIGH: u32 = 800;
    /// Cycles before the schedule switch.
    const SWITCH_AFTER: u32 = 10;

    #[sampling_in(name = "TankLevel", msg_size = "8B", refresh_period = "250ms")]
    struct LevelDestination;

    #[sampling_out(name = "ValveCommand", msg_size = "1B")]
    struct ValveSource;

    /// `name` as an a653rs name (NUL-padded).
    fn apex_name(name: &str) -> [u8; 32] {
        let mut n = [0u8; 32];
        n[..name.len()].copy_from_slice(name.as_bytes());
        n
    }

    #[start(cold)]
    fn cold_start(mut ctx: start::Context) {
        for block in ["setpoints", "nonexistent"] {
            match <Hypervisor as ApexMemoryBlockP2>::get_memory_block_status(apex_name(block)) {
                Ok(s) => info!(
                    "CTRL memory-block name={block} size={} mode={:?}",
                    s.size, s.mode
                ),
                Err(e) => info!("CTRL memory-block name={block} error={e:?}"),
            }
        }
        ctx.create_level_destination().unwrap();
        ctx.create_valve_source().unwrap();
        ctx.create_periodic_control().unwrap().start().unwrap();
    }

    #[start(warm)]
    fn warm_start(ctx: start::Context) {
        cold_start(ctx);
    }

    /// The identifier of the schedule named `name`.
    fn schedule_id(name: &str) -> Result<i64, Error> {
        <Hypervisor as ApexScheduleP2Ext>::get_module_schedule_id(apex_name(name))
    }

    #[periodic(
        period = "100ms",
        time_capacity = "Infinite",
        stack_size = "100KB",
        base_priority = 1,
        deadline = "Soft"
    )]
    fn periodic_control(ctx: periodic_control::Context) {
        let (input, out) = (ctx.level_destination.unwrap(), ctx.valve_source.unwrap());
        let mut valve = Valve::Closed;
        let mut buf = [0u8; TankLevel::LEN];
        for cycle in 1u32.. {
            match input.receive(&mut buf) {
                Ok((validity, msg)) => match TankLevel::decode(msg) {
                    Some(t) => {
                        let valid = u8::from(validity == Validity::Valid);
                        // Only a fresh level is acted upon.
                        if validity == Validity::Valid {
                            valve = control(t.level, valve, LOW, HIGH);
                        }
                        info!(
                            "CTRL cycle={cycle} step={} level={} valid={valid} cmd={}",
                            t.step,
                            t.level,
                            valve.word()
                        );
                    }
                    None => warn!("CTRL malformed level ({} bytes)", msg.len()),
                },
                Err(Error::NoAction) => info!("CTRL cycle={cycle} no level yet"),
                Err(e) => warn!("CTRL level: {e:?}"),
            }
            out.send(&valve.encode()).unwrap();
            if cycle == SWITCH_AFTER {
                match schedule_id("degraded")
                    .and_then(<Hypervisor as ApexScheduleP2Ext>::set_module_schedule)
                {
                    Ok(()) => info!("CTRL switch requested to=degraded"),
                    Err(e) => warn!("CTRL switch refused: {e:?}"),
                }
            }
            ctx.periodic_wait().unwrap();
        }
    }
}
