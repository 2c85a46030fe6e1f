// SPDX-License-Identifier: MIT OR Apache-2.0
//! Module schedule changes (ARINC 653 Part 2 multiple module schedules) as the partition's
//! kernel sees them: the partition's period, duration and first period start change when the
//! module switches to another schedule.

use crate::kernel::Kernel;
use crate::types::*;

impl Kernel {
    /// Takes the partition's timing under a new module schedule: `period` and `duration`
    /// (reported by GET_PARTITION_STATUS, and `period` is what CREATE_PROCESS checks process
    /// periods against) and `period_origin`, the absolute time of its first period start under
    /// that schedule (periodic processes started from now on are released at its period
    /// starts). Release points and deadlines of processes already released are not moved: a
    /// periodic process keeps its own period from its last release point.
    ///
    /// Errors: `InvalidConfig` for a period that is not positive or a negative duration or
    /// origin (nothing changes).
    pub fn set_partition_timing(
        &mut self,
        period: SystemTime,
        duration: SystemTime,
        period_origin: SystemTime,
    ) -> Result<(), ReturnCode> {
        if period <= 0 || duration < 0 || period_origin < 0 {
            return Err(ReturnCode::InvalidConfig);
        }
        self.cfg.period = period;
        self.cfg.duration = duration;
        self.cfg.period_origin = period_origin;
        Ok(())
    }
}
