// SPDX-License-Identifier: MIT OR Apache-2.0
//! Report records: what the runtime sends the manager on the report channel (deadline
//! misses, errors handled at partition or process level, application messages). The record
//! format is [`partita_abi::report`].

use super::Runtime;
use partita_abi::report::{
    Body, ErrorReport, Record, Refusal, Reporter, MAX_MESSAGE, MAX_RECORD_LEN,
};
use partita_apex_core::{ErrorCode, ErrorStatus, Runner, SystemTime};
use std::io::Write;

/// Who a record is about.
pub(crate) fn reporter(r: Runner) -> Reporter {
    match r {
        Runner::Main => Reporter::Main,
        Runner::Process(p) => Reporter::Process(p.0),
        Runner::ErrorHandler => Reporter::ErrorHandler,
    }
}

impl Runtime {
    /// A process-error record: an error the error handler took.
    pub fn report_process_error(&self, source: Runner, code: ErrorCode, addr: u64, msg: &[u8]) {
        let message = &msg[..msg.len().min(MAX_MESSAGE)];
        self.send_record(&Record {
            time: self.now(),
            reporter: reporter(source),
            body: Body::ProcessError(ErrorReport {
                code,
                failed_address: addr,
                message,
            }),
        });
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
        self.send_record(&Record {
            time: self.now(),
            reporter: reporter(source),
            body: Body::PartitionError(ErrorReport {
                code: e.error_code,
                failed_address: e.failed_address,
                message: e.message(),
            }),
        });
    }

    /// A call of `caller` refused by `rule` (`name`: the object name the call gave, empty
    /// when none), so that the run log names the rule and not only the return code.
    pub(crate) fn report_refusal(&self, caller: Runner, rule: Refusal, name: &[u8]) {
        let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
        self.send_record(&Record {
            time: self.now(),
            reporter: reporter(caller),
            body: Body::RefusedCall {
                rule,
                name: &name[..end.min(MAX_MESSAGE)],
            },
        });
    }

    /// A deadline miss of `process`.
    pub(super) fn report_deadline_miss(&self, process: u32, deadline: SystemTime) {
        self.send_record(&Record {
            time: self.now(),
            reporter: Reporter::Process(process),
            body: Body::DeadlineMissed { deadline },
        });
    }

    /// Sends a record on the report channel (or prints it when standalone). Callers bound
    /// messages to [`MAX_MESSAGE`], so every record fits.
    pub fn send_record(&self, rec: &Record<'_>) {
        let mut buf = [0u8; MAX_RECORD_LEN];
        let n = match rec.encode(&mut buf) {
            Ok(n) => n,
            Err(e) => {
                eprintln!("partita runtime: report record not sent: {e}");
                return;
            }
        };
        let mut g = self.report.lock().unwrap_or_else(|e| e.into_inner());
        match g.as_mut() {
            Some(f) => {
                let _ = f.write_all(&buf[..n]);
            }
            None => {
                eprintln!(
                    "[{} t={:.6}s {}] {}",
                    rec.kind().title(),
                    rec.time as f64 / 1e9,
                    rec.reporter,
                    rec.text()
                );
            }
        }
    }
}
