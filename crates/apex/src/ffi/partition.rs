// SPDX-License-Identifier: MIT OR Apache-2.0
//! Partition management services (ARINC 653 Part 1, 3.2).

use super::*;
use crate::apex::partition;
use partita_apex_core::OperatingMode;

/// GET_PARTITION_STATUS.
#[no_mangle]
pub extern "C" fn GET_PARTITION_STATUS(
    status: *mut PartitionStatusType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::GetPartitionStatus, || {
        match partition::get_partition_status() {
            Ok(s) => {
                put(
                    status,
                    PartitionStatusType {
                        period: s.period,
                        duration: s.duration,
                        identifier: s.identifier as PartitionIdType,
                        lock_level: s.lock_level,
                        operating_mode: s.operating_mode as u32,
                        start_condition: s.start_condition as u32,
                        num_assigned_cores: s.num_assigned_cores,
                    },
                );
                put_rc(return_code, Ok(()));
            }
            Err(e) => put_rc(return_code, Err(e)),
        }
    })
}

/// SET_PARTITION_MODE.
#[no_mangle]
pub extern "C" fn SET_PARTITION_MODE(
    operating_mode: OperatingModeType,
    return_code: *mut ReturnCodeType,
) {
    crate::trace::apex_call(ApexService::SetPartitionMode, || {
        let r = match OperatingMode::from_raw(operating_mode) {
            None => Err(ReturnCode::InvalidParam),
            // The code is stored first: a successful NORMAL from the main process does not return.
            Some(m) => {
                put_rc(return_code, Ok(()));
                partition::set_partition_mode(m)
            }
        };
        put_rc(return_code, r);
    })
}
