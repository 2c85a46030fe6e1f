// SPDX-License-Identifier: MIT OR Apache-2.0
//! Report records: what the runtime sends the manager on the report channel (deadline
//! misses, errors handled at partition or process level, application messages).

use super::Runtime;
use partita_apex_core::{ErrorCode, ErrorStatus, Runner, SystemTime};
use std::io::Write;

/// Report record kinds on the report channel.
pub mod record {
    /// REPORT_APPLICATION_MESSAGE.
    pub const APPLICATION_MESSAGE: u8 = 1;
    /// A deadline miss detected by the runtime.
    pub const DEADLINE_MISSED: u8 = 2;
    /// An error handled at partition level ([`partita_apex_core::Effect::PartitionError`]:
    /// no error handler, initialisation, the main process or the error handler failed, or the
    /// error queue was full). The record's process is the failed process, -1 for the main
    /// process, -2 for the error handler; its text is
    /// `<ERROR_CODE_TYPE name> (<code>)[ at 0x<failed address>]: <message>`.
    pub const PARTITION_ERROR: u8 = 3;
    /// An error queued to the partition's error handler (process level), for the module
    /// logbook; same text as [`PARTITION_ERROR`].
    pub const PROCESS_ERROR: u8 = 5;
}

/// Process number of a report record for a runner (see [`record::PARTITION_ERROR`]).
fn record_process(r: Runner) -> i32 {
    match r {
        Runner::Main => -1,
        Runner::Process(p) => p.0 as i32,
        Runner::ErrorHandler => -2,
    }
}

/// The C name of an error code.
pub fn error_code_name(c: ErrorCode) -> &'static str {
    match c {
        ErrorCode::DeadlineMissed => "DEADLINE_MISSED",
        ErrorCode::ApplicationError => "APPLICATION_ERROR",
        ErrorCode::NumericError => "NUMERIC_ERROR",
        ErrorCode::IllegalRequest => "ILLEGAL_REQUEST",
        ErrorCode::StackOverflow => "STACK_OVERFLOW",
        ErrorCode::MemoryViolation => "MEMORY_VIOLATION",
        ErrorCode::HardwareFault => "HARDWARE_FAULT",
        ErrorCode::PowerFail => "POWER_FAIL",
    }
}

impl Runtime {
    /// A [`record::PROCESS_ERROR`] record: an error the error handler took.
    pub fn report_process_error(&self, source: Runner, code: ErrorCode, addr: u64, msg: &[u8]) {
        let pid = match source {
            Runner::Process(p) => Some(p),
            _ => None,
        };
        let msg = &msg[..msg.len().min(partita_apex_core::MAX_ERROR_MESSAGE_SIZE)];
        if let Some(e) = ErrorStatus::new(code, pid, addr, msg) {
            self.error_record(record::PROCESS_ERROR, source, &e);
        }
    }

    /// The partition could not start at its entry function: a [`record::PARTITION_ERROR`]
    /// record from the main process (ILLEGAL_REQUEST: the configuration asks for a function
    /// the program does not have).
    pub fn report_start_failure(&self, msg: &[u8]) {
        let msg = &msg[..msg.len().min(partita_apex_core::MAX_ERROR_MESSAGE_SIZE)];
        if let Some(e) = ErrorStatus::new(ErrorCode::IllegalRequest, None, 0, msg) {
            self.report_error(Runner::Main, &e);
        }
    }

    /// PartitionError: a report record for the manager's health monitor.
    pub(super) fn report_error(&self, source: Runner, e: &ErrorStatus) {
        self.error_record(record::PARTITION_ERROR, source, e);
    }

    pub(super) fn error_record(&self, kind: u8, source: Runner, e: &ErrorStatus) {
        let mut text = format!(
            "{} ({})",
            error_code_name(e.error_code),
            e.error_code as u32
        );
        if e.failed_address != 0 {
            text.push_str(&format!(" at {:#x}", e.failed_address));
        }
        text.push_str(": ");
        let mut msg = text.into_bytes();
        msg.extend_from_slice(e.message());
        self.send_record(kind, self.now(), record_process(source), &msg);
    }

    /// Sends a record on the report channel (or prints it when standalone).
    pub fn send_record(&self, kind: u8, time: SystemTime, process: i32, msg: &[u8]) {
        let mut rec = Vec::with_capacity(17 + msg.len());
        rec.extend_from_slice(&((13 + msg.len()) as u32).to_le_bytes());
        rec.push(kind);
        rec.extend_from_slice(&time.to_le_bytes());
        rec.extend_from_slice(&process.to_le_bytes());
        rec.extend_from_slice(msg);
        let mut g = self.report.lock().unwrap_or_else(|e| e.into_inner());
        match g.as_mut() {
            Some(f) => {
                let _ = f.write_all(&rec);
            }
            None => {
                eprintln!(
                    "[{} t={:.6}s process {}] {}",
                    match kind {
                        record::APPLICATION_MESSAGE => "application message",
                        record::DEADLINE_MISSED => "deadline missed",
                        _ => "partition error",
                    },
                    time as f64 / 1e9,
                    process,
                    String::from_utf8_lossy(msg)
                );
            }
        }
    }
}
