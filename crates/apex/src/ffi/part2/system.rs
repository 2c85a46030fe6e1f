// SPDX-License-Identifier: MIT OR Apache-2.0
//! Partita extension (ARINC 653 Part 2-style): system-partition services, declared in the
//! "Partita extension: system-partition services" section of ARINC653.h. See
//! [`crate::apex::part2::system`].

use crate::apex::part2::system;
use crate::ffi::*;
use crate::types::{APartitionStatusType, HmLogEntryType, HmLogStatusType};
use partita_apex_core::OperatingMode;

/// GET_A_PARTITION_STATUS.
#[no_mangle]
pub extern "C" fn GET_A_PARTITION_STATUS(
    partition_id: PartitionIdType,
    status: *mut APartitionStatusType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetAPartitionStatus, || {
        put_out(
            status,
            return_code,
            system::get_a_partition_status(partition_id),
            |s| APartitionStatusType {
                period: s.period,
                duration: s.duration,
                identifier: s.identifier,
                lock_level: s.lock_level,
                operating_mode: s.operating_mode.raw(),
                start_condition: s.start_condition.raw(),
                num_assigned_cores: s.num_assigned_cores,
                restarts: s.restarts,
                hm_events: s.hm_events,
                windows: s.windows,
                has_process: u32::from(s.has_process),
                system_partition: u32::from(s.system),
            },
        );
    })
}

/// SET_A_PARTITION_MODE.
#[no_mangle]
pub extern "C" fn SET_A_PARTITION_MODE(
    partition_id: PartitionIdType,
    operating_mode: OperatingModeType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::SetAPartitionMode, || {
        let Some(m) = OperatingMode::from_raw(operating_mode) else {
            return put_rc(return_code, Err(ReturnCode::InvalidParam));
        };
        put_rc(return_code, system::set_a_partition_mode(partition_id, m));
    })
}

/// GET_HM_LOG_STATUS.
#[no_mangle]
pub extern "C" fn GET_HM_LOG_STATUS(
    status: *mut HmLogStatusType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetHmLogStatus, || {
        put_out(status, return_code, system::get_hm_log_status(), |s| {
            HmLogStatusType {
                total: s.total,
                first_index: s.first_index,
                kept: s.kept,
                evicted: s.evicted,
                capacity: s.capacity,
            }
        });
    })
}

/// READ_HM_LOG.
#[no_mangle]
pub extern "C" fn READ_HM_LOG(
    index: ApexLongInteger,
    entry: *mut HmLogEntryType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::ReadHmLog, || {
        put_out(entry, return_code, system::read_hm_log(index), |e| {
            HmLogEntryType {
                index: e.index,
                time: e.time,
                partition_id: e.partition_id,
                process_id: e.process_id,
                system_state: e.system_state.raw(),
                error_code: e.error_code.raw(),
                error_level: e.level.raw(),
                action: e.action.raw(),
                error_identifier: e.identifier,
                length: e.message().len() as u32,
                message: e.message,
            }
        });
    })
}
