//! The safe Rust API of the partition runtime. The C binding ([`crate::ffi`]) is a thin layer
//! over these functions; Rust partitions call them directly.
//!
//! Every function returns the ARINC 653 return code as the `Err` of a `Result`.

use crate::runtime::{self, Entry};
use partita_apex_core::{
    OperatingMode, PartitionStatus, ProcessAttributes, ProcessId, ReturnCode, SystemTime,
};
use std::sync::Arc;

pub use partita_apex_core::{
    name, DeadlineType, ProcessAttributes as Attributes, ProcessId as Pid, INFINITE_TIME_VALUE,
};

/// Longest application message (`MAX_ERROR_MESSAGE_SIZE`).
pub const MAX_ERROR_MESSAGE_SIZE: usize = 128;

/// GET_PARTITION_STATUS.
pub fn get_partition_status() -> Result<PartitionStatus, ReturnCode> {
    let rt = runtime::get()?;
    Ok(rt.lock().get_partition_status())
}

/// SET_PARTITION_MODE. Called by the main process with NORMAL, it does not return: the
/// main thread becomes the partition's timer thread.
pub fn set_partition_mode(mode: OperatingMode) -> Result<(), ReturnCode> {
    runtime::get()?.set_partition_mode(mode)
}

/// GET_TIME: nanoseconds since the start of the module's first major frame.
pub fn get_time() -> Result<SystemTime, ReturnCode> {
    Ok(runtime::get()?.now())
}

/// CREATE_PROCESS with a Rust closure as the process body (`attrs.entry` is ignored).
pub fn create_process(
    attrs: &ProcessAttributes,
    body: impl Fn() + Send + Sync + 'static,
) -> Result<ProcessId, ReturnCode> {
    create_process_entry(attrs, Arc::new(body))
}

/// CREATE_PROCESS with a shared body.
pub fn create_process_entry(
    attrs: &ProcessAttributes,
    body: Entry,
) -> Result<ProcessId, ReturnCode> {
    runtime::get()?.create_process(attrs, body)
}

/// START.
pub fn start(pid: ProcessId) -> Result<(), ReturnCode> {
    runtime::get()?.call(|k, now, me| k.start(now, me, pid))
}

/// PERIODIC_WAIT.
pub fn periodic_wait() -> Result<(), ReturnCode> {
    runtime::get()?.call_blocking(|k, now, me| k.periodic_wait(now, me))
}

/// GET_MY_ID.
pub fn get_my_id() -> Result<ProcessId, ReturnCode> {
    let rt = runtime::get()?;
    let me = rt.me().ok_or(ReturnCode::InvalidMode)?;
    rt.lock().get_my_id(me)
}

/// REPORT_APPLICATION_MESSAGE: sends `msg` (at most [`MAX_ERROR_MESSAGE_SIZE`] bytes) to the
/// module's health-monitor log.
pub fn report_application_message(msg: &[u8]) -> Result<(), ReturnCode> {
    if msg.len() > MAX_ERROR_MESSAGE_SIZE {
        return Err(ReturnCode::InvalidParam);
    }
    let rt = runtime::get()?;
    let who = match rt.me() {
        Some(partita_apex_core::Runner::Process(p)) => p.0 as i32,
        _ => -1,
    };
    rt.send_record(runtime::record::APPLICATION_MESSAGE, rt.now(), who, msg);
    Ok(())
}
