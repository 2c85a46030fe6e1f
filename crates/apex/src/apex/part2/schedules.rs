// SPDX-License-Identifier: MIT OR Apache-2.0
//! Multiple module schedules (ARINC 653 Part 2): the safe Rust API of SET_MODULE_SCHEDULE,
//! GET_MODULE_SCHEDULE_STATUS and GET_MODULE_SCHEDULE_ID, and the runtime's side of a
//! schedule switch.
//!
//! The partition manager keeps the schedule table (identifiers and names), the current
//! schedule, the time of the last switch, whether this partition may switch, and the
//! partition's period, duration and period origin under the current schedule in the control
//! block, under a seqlock. A request is written to the control block (`sequence << 32 | id`,
//! after its time); the manager consumes it at the next frame start of the running schedule
//! (acknowledging its sequence number) and switches there. Until then this runtime reports
//! the requested schedule as NEXT_SCHEDULE; the manager publishes the pending change to every
//! partition at its next boundary on any core (at the latest when the requester's window
//! ends).
//!
//! Return codes (as in ARINC 653 Part 2 and its reference implementations):
//! - SET_MODULE_SCHEDULE: INVALID_CONFIG when the partition may not switch (not a system
//!   partition, `SetModuleSchedule="false"` in the running schedule, or no manager);
//!   INVALID_PARAM for an identifier that names no schedule; NO_ACTION for the current
//!   schedule (a pending request is kept). A second request before the switch replaces the
//!   first: the last one made in a frame is carried out.
//! - GET_MODULE_SCHEDULE_STATUS: open to every partition; NEXT_SCHEDULE equals
//!   CURRENT_SCHEDULE when no change is pending; TIME_OF_LAST_SCHEDULE_SWITCH is 0 before the
//!   first switch.
//! - GET_MODULE_SCHEDULE_ID: open to every partition; INVALID_CONFIG for a name no schedule
//!   has.

use crate::runtime;
use partita_apex_core::{Kernel, Name, ReturnCode, SystemTime};
use partita_sys::control::ControlBlock;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

/// `SCHEDULE_ID_TYPE`.
pub type ScheduleId = i32;

/// `SCHEDULE_STATUS_TYPE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScheduleStatus {
    /// APEX time of the last schedule switch (0: none yet).
    pub time_of_last_schedule_switch: SystemTime,
    /// The schedule running now.
    pub current_schedule: ScheduleId,
    /// The schedule that runs from the next major frame boundary (the current one when no
    /// change is pending).
    pub next_schedule: ScheduleId,
}

/// Seqlock value of the schedule fields last given to the kernel.
static APPLIED: AtomicU32 = AtomicU32::new(0);
/// This partition's last request: (sequence, schedule).
static PENDING: Mutex<Option<(u32, ScheduleId)>> = Mutex::new(None);

/// Gives the kernel the partition's timing under the current module schedule when the manager
/// changed it (called with the kernel locked, before every service and timer event).
pub(crate) fn refresh(ctl: Option<&ControlBlock>, k: &mut Kernel) {
    let Some(c) = ctl else { return };
    if c.schedule_seq.load(Ordering::Acquire) == APPLIED.load(Ordering::Relaxed) {
        return;
    }
    if let Some((seq, t)) = c.read_schedule() {
        // The manager only writes positive periods; a bad value leaves the old timing.
        let _ = k.set_partition_timing(t.period, t.duration, t.period_origin);
        APPLIED.store(seq, Ordering::Relaxed);
    }
}

fn control() -> Result<(&'static runtime::Runtime, Option<&'static ControlBlock>), ReturnCode> {
    let rt = runtime::get()?;
    Ok((rt, rt.control()))
}

/// SET_MODULE_SCHEDULE: asks for the module to run schedule `id` from the end of the current
/// major frame.
pub fn set_module_schedule(id: ScheduleId) -> Result<(), ReturnCode> {
    let (rt, ctl) = control()?;
    let c = ctl.ok_or(ReturnCode::InvalidConfig)?;
    let (_, t) = c.read_schedule().ok_or(ReturnCode::InvalidConfig)?;
    if !t.may_set {
        return Err(ReturnCode::InvalidConfig);
    }
    if !c.schedule_table().any(|(i, _)| i == id) {
        return Err(ReturnCode::InvalidParam);
    }
    if id == t.current {
        return Err(ReturnCode::NoAction);
    }
    let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    let last = (c.schedule_request.load(Ordering::Relaxed) >> 32) as u32;
    let seq = last.wrapping_add(1).max(1);
    c.schedule_request_ns.store(rt.now(), Ordering::Relaxed);
    c.schedule_request.store(
        u64::from(seq) << 32 | u64::from(id as u32),
        Ordering::Release,
    );
    *pending = Some((seq, id));
    Ok(())
}

/// GET_MODULE_SCHEDULE_STATUS.
pub fn get_module_schedule_status() -> Result<ScheduleStatus, ReturnCode> {
    let (_, ctl) = control()?;
    let Some(c) = ctl else {
        // Standalone: one implicit schedule, 0.
        return Ok(ScheduleStatus {
            time_of_last_schedule_switch: 0,
            current_schedule: 0,
            next_schedule: 0,
        });
    };
    let pending = *PENDING.lock().unwrap_or_else(|e| e.into_inner());
    let (_, t) = c.read_schedule().ok_or(ReturnCode::InvalidConfig)?;
    let ack = c.schedule_ack.load(Ordering::Acquire);
    let next = match pending {
        Some((seq, id)) if seq != ack => id,
        _ => t.next,
    };
    Ok(ScheduleStatus {
        time_of_last_schedule_switch: t.last_switch,
        current_schedule: t.current,
        next_schedule: next,
    })
}

/// GET_MODULE_SCHEDULE_ID: the identifier of the schedule named `name` (up to the first NUL).
pub fn get_module_schedule_id(name: &Name) -> Result<ScheduleId, ReturnCode> {
    let (_, ctl) = control()?;
    let c = ctl.ok_or(ReturnCode::InvalidConfig)?;
    let wanted: Vec<u8> = name.iter().copied().take_while(|&b| b != 0).collect();
    if wanted.is_empty() {
        return Err(ReturnCode::InvalidConfig);
    }
    c.schedule_table()
        .find(|(_, n)| n.as_bytes() == wanted)
        .map(|(id, _)| id)
        .ok_or(ReturnCode::InvalidConfig)
}
