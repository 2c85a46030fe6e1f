// SPDX-License-Identifier: MIT OR Apache-2.0
//! Partition management services (ARINC 653 Part 1, 3.2).

use crate::kernel::{Kernel, NO_TIMER};
use crate::process::Wait;
use crate::types::*;

impl Kernel {
    /// GET_PARTITION_STATUS.
    pub fn get_partition_status(&self) -> PartitionStatus {
        PartitionStatus {
            identifier: self.cfg.identifier,
            period: self.cfg.period,
            duration: self.cfg.duration,
            lock_level: self.lock_level,
            operating_mode: self.mode,
            start_condition: self.cfg.start_condition,
            num_assigned_cores: self.cfg.cores,
        }
    }

    /// SET_PARTITION_MODE.
    ///
    /// * `Normal` (from a start mode): the main process stops running; every
    ///   process started during initialisation is released (aperiodic: now,
    ///   or after its start delay; periodic: at the first partition period
    ///   start at or after `now`, plus its start delay), in start order; the
    ///   preemption lock level is reset to 0.
    /// * `Idle`: every process is stopped; nothing runs any more;
    ///   [`Effect::IdleRequested`] is emitted.
    /// * `ColdStart`/`WarmStart`: everything stops and
    ///   [`Effect::RestartRequested`] is emitted; the manager re-creates the
    ///   partition.
    ///
    /// Errors: `NoAction` (NORMAL to NORMAL), `InvalidMode` (WARM_START
    /// requested while in COLD_START).
    pub fn set_partition_mode(
        &mut self,
        now: SystemTime,
        caller: Runner,
        mode: OperatingMode,
    ) -> Result<(), ReturnCode> {
        self.service(now, |k| {
            k.caller(caller)?;
            match (k.mode, mode) {
                (OperatingMode::Normal, OperatingMode::Normal) => Err(ReturnCode::NoAction),
                (OperatingMode::ColdStart, OperatingMode::WarmStart) => {
                    Err(ReturnCode::InvalidMode)
                }
                (_, OperatingMode::Normal) => {
                    k.enter_normal(now);
                    Ok(())
                }
                (_, target) => {
                    k.shut_down(target);
                    k.effects.push(if target == OperatingMode::Idle {
                        Effect::IdleRequested
                    } else {
                        Effect::RestartRequested(target)
                    });
                    Ok(())
                }
            }
        })
    }

    fn enter_normal(&mut self, now: SystemTime) {
        self.mode = OperatingMode::Normal;
        self.main_active = false;
        self.lock_level = 0;
        self.lock_owner = None;
        // Release in start order (the start sequence number).
        loop {
            let next = self
                .procs
                .iter()
                .enumerate()
                .filter(|(_, p)| p.wait == Wait::PartitionNormal)
                .min_by_key(|(_, p)| p.seq)
                .map(|(i, _)| i);
            let Some(i) = next else { break };
            let delay = self.procs[i].start_delay;
            self.activate(i, now, delay);
        }
    }

    fn shut_down(&mut self, mode: OperatingMode) {
        for i in 0..self.procs.len() {
            if self.procs[i].state != ProcessState::Dormant {
                self.stop_process(i);
            }
        }
        for p in &mut self.procs {
            p.timer = NO_TIMER;
        }
        self.errors.clear();
        self.mode = mode;
        self.main_active = false;
        self.lock_level = 0;
        self.lock_owner = None;
    }
}
