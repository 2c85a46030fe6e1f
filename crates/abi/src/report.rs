// SPDX-License-Identifier: MIT OR Apache-2.0
//! The report channel: records a partition's runtime sends the manager (a pipe, descriptor
//! [`crate::control::REPORT_FD`]).
//!
//! Every record is a fixed [`HEADER_LEN`]-byte header followed by its message bytes:
//!
//! | offset | type | field |
//! |-------:|------|-------|
//! | 0  | u16 | [`VERSION`] |
//! | 2  | u16 | [`RecordKind`] |
//! | 4  | u32 | message length (at most [`MAX_MESSAGE`]) |
//! | 8  | i64 | APEX time of the event, ns |
//! | 16 | i32 | reporter: a process identifier (> 0), [`crate::MAIN_PROCESS_ID`] or [`crate::ERROR_HANDLER_PROCESS_ID`] |
//! | 20 | u32 | `ERROR_CODE_TYPE` (error records), the `RETURN_CODE_TYPE` (refused-call records), 0 otherwise |
//! | 24 | u64 | failed address (error records), the missed deadline time (deadline records), the [`Refusal`] rule (refused-call records), 0 otherwise |
//!
//! All little-endian. The manager decodes with [`Record::decode`], which refuses every
//! malformed record with a [`DecodeError`]: the partition is untrusted.

use crate::wire::{Reader, Writer};
use crate::{abi_enum, DecodeError, EncodeError, ErrorCode, OutOfRange, ReturnCode};
use crate::{ERROR_HANDLER_PROCESS_ID, MAIN_PROCESS_ID, MAX_ERROR_MESSAGE_SIZE};
use core::fmt;

/// Version of the record layout.
pub const VERSION: u16 = 1;
/// Bytes of the fixed header.
pub const HEADER_LEN: usize = 32;
/// Longest message of a record (REPORT_APPLICATION_MESSAGE and error messages).
pub const MAX_MESSAGE: usize = MAX_ERROR_MESSAGE_SIZE;
/// Longest record.
pub const MAX_RECORD_LEN: usize = HEADER_LEN + MAX_MESSAGE;

abi_enum! {
    /// The kinds of report record.
    "REPORT_RECORD_KIND" RecordKind {
        /// REPORT_APPLICATION_MESSAGE.
        ApplicationMessage = 1 => "APPLICATION_MESSAGE",
        /// A deadline miss the runtime detected.
        DeadlineMissed = 2 => "DEADLINE_MISSED",
        /// An error handled at partition level (no error handler, initialisation, the main
        /// process or the error handler failed, or the error queue was full).
        PartitionError = 3 => "PARTITION_ERROR",
        /// An error the runtime gave to the partition's error handler (process level), for
        /// the module logbook.
        ProcessError = 4 => "PROCESS_ERROR",
        /// A service call the runtime refused, with the rule it broke ([`Refusal`]).
        RefusedCall = 5 => "REFUSED_CALL",
    }
}

abi_enum! {
    /// The rule a refused service call broke: the runtime names it in a
    /// [`RecordKind::RefusedCall`] record, since the return code alone does not say which of
    /// the standard's conditions failed. Each rule belongs to one service and one return code
    /// ([`Refusal::service`], [`Refusal::code`]); [`Refusal::rule`] states it with the
    /// standard's reason.
    "REFUSAL_RULE" Refusal {
        /// CREATE_PROCESS: the partition has its maximum number of processes.
        ProcessLimit = 1 => "PROCESS_LIMIT",
        /// CREATE_PROCESS: the stack would exceed the partition's stack storage.
        ProcessStackStorage = 2 => "PROCESS_STACK_STORAGE",
        /// CREATE_PROCESS: a process of that name exists.
        ProcessNameExists = 3 => "PROCESS_NAME_EXISTS",
        /// CREATE_PROCESS: stack size 0.
        ProcessStackSizeZero = 4 => "PROCESS_STACK_SIZE_ZERO",
        /// CREATE_PROCESS: base priority outside MIN_PRIORITY_VALUE..MAX_PRIORITY_VALUE.
        ProcessPriorityRange = 5 => "PROCESS_PRIORITY_RANGE",
        /// CREATE_PROCESS: a period neither INFINITE_TIME_VALUE nor positive.
        ProcessPeriodNotPositive = 6 => "PROCESS_PERIOD_NOT_POSITIVE",
        /// CREATE_PROCESS: a period that is not a multiple of the partition period.
        ProcessPeriodNotMultiple = 7 => "PROCESS_PERIOD_NOT_MULTIPLE",
        /// CREATE_PROCESS: a time capacity neither INFINITE_TIME_VALUE nor positive.
        ProcessTimeCapacityNotPositive = 8 => "PROCESS_TIME_CAPACITY_NOT_POSITIVE",
        /// CREATE_PROCESS: a periodic process's time capacity above its period.
        ProcessTimeCapacityAbovePeriod = 9 => "PROCESS_TIME_CAPACITY_ABOVE_PERIOD",
        /// CREATE_PROCESS after initialisation.
        ProcessCreateInNormal = 10 => "PROCESS_CREATE_IN_NORMAL",
        /// PERIODIC_WAIT by an aperiodic process, the main process or the error handler.
        PeriodicWaitNotPeriodic = 11 => "PERIODIC_WAIT_NOT_PERIODIC",
        /// PERIODIC_WAIT with the preemption lock or a mutex held (or from the error
        /// handler).
        PeriodicWaitCannotWait = 12 => "PERIODIC_WAIT_CANNOT_WAIT",
        /// CREATE_SAMPLING_PORT: no sampling port of that name in the configuration.
        SamplingPortNotConfigured = 13 => "SAMPLING_PORT_NOT_CONFIGURED",
        /// CREATE_SAMPLING_PORT: size, direction or refresh period differ from the
        /// configuration.
        SamplingPortMismatch = 14 => "SAMPLING_PORT_MISMATCH",
        /// CREATE_SAMPLING_PORT after initialisation.
        SamplingPortCreateInNormal = 15 => "SAMPLING_PORT_CREATE_IN_NORMAL",
        /// CREATE_QUEUING_PORT: no queuing port of that name in the configuration.
        QueuingPortNotConfigured = 16 => "QUEUING_PORT_NOT_CONFIGURED",
        /// CREATE_QUEUING_PORT: size, number of messages or direction differ from the
        /// configuration.
        QueuingPortMismatch = 17 => "QUEUING_PORT_MISMATCH",
        /// CREATE_QUEUING_PORT after initialisation.
        QueuingPortCreateInNormal = 18 => "QUEUING_PORT_CREATE_IN_NORMAL",
    }
}

impl Refusal {
    /// The service the rule belongs to (its ARINC 653 name).
    pub fn service(self) -> &'static str {
        use Refusal::*;
        match self {
            ProcessLimit
            | ProcessStackStorage
            | ProcessNameExists
            | ProcessStackSizeZero
            | ProcessPriorityRange
            | ProcessPeriodNotPositive
            | ProcessPeriodNotMultiple
            | ProcessTimeCapacityNotPositive
            | ProcessTimeCapacityAbovePeriod
            | ProcessCreateInNormal => "CREATE_PROCESS",
            PeriodicWaitNotPeriodic | PeriodicWaitCannotWait => "PERIODIC_WAIT",
            SamplingPortNotConfigured | SamplingPortMismatch | SamplingPortCreateInNormal => {
                "CREATE_SAMPLING_PORT"
            }
            QueuingPortNotConfigured | QueuingPortMismatch | QueuingPortCreateInNormal => {
                "CREATE_QUEUING_PORT"
            }
        }
    }

    /// The return code the standard gives for the rule.
    pub fn code(self) -> ReturnCode {
        use Refusal::*;
        match self {
            ProcessNameExists => ReturnCode::NoAction,
            ProcessStackSizeZero
            | ProcessPriorityRange
            | ProcessPeriodNotPositive
            | ProcessTimeCapacityNotPositive
            | ProcessTimeCapacityAbovePeriod => ReturnCode::InvalidParam,
            ProcessLimit
            | ProcessStackStorage
            | ProcessPeriodNotMultiple
            | SamplingPortNotConfigured
            | SamplingPortMismatch
            | QueuingPortNotConfigured
            | QueuingPortMismatch => ReturnCode::InvalidConfig,
            ProcessCreateInNormal
            | PeriodicWaitNotPeriodic
            | PeriodicWaitCannotWait
            | SamplingPortCreateInNormal
            | QueuingPortCreateInNormal => ReturnCode::InvalidMode,
        }
    }

    /// The rule, with the standard's reason (ARINC 653 Part 1).
    pub fn rule(self) -> &'static str {
        use Refusal::*;
        match self {
            ProcessLimit => {
                "the partition has its maximum number of processes (partita:Resources \
                 maxProcesses, at most SYSTEM_LIMIT_NUMBER_OF_PROCESSES)"
            }
            ProcessStackStorage => {
                "the stack does not fit in the partition's remaining stack storage \
                 (partita:Resources stackBytes)"
            }
            ProcessNameExists => "a process of this name exists already (names are unique)",
            ProcessStackSizeZero => "the stack size must be positive",
            ProcessPriorityRange => {
                "the base priority must lie in MIN_PRIORITY_VALUE..=MAX_PRIORITY_VALUE (1..=239)"
            }
            ProcessPeriodNotPositive => {
                "the period must be positive, or INFINITE_TIME_VALUE for an aperiodic process"
            }
            ProcessPeriodNotMultiple => {
                "a periodic process's period must be a positive multiple of the partition \
                 period: its releases are tied to the partition's period starts, when the \
                 partition holds the processor"
            }
            ProcessTimeCapacityNotPositive => {
                "the time capacity must be positive, or INFINITE_TIME_VALUE"
            }
            ProcessTimeCapacityAbovePeriod => {
                "a periodic process's time capacity may not exceed its period (its deadline \
                 would fall after its next release)"
            }
            ProcessCreateInNormal | SamplingPortCreateInNormal | QueuingPortCreateInNormal => {
                "objects are created only during initialisation (COLD_START or WARM_START), \
                 before SET_PARTITION_MODE(NORMAL): the set of objects is fixed while the \
                 partition runs"
            }
            PeriodicWaitNotPeriodic => {
                "only a periodic process (period not INFINITE_TIME_VALUE) may wait for its \
                 next period; the main process and aperiodic processes may not"
            }
            PeriodicWaitCannotWait => {
                "the caller may not wait: it holds the preemption lock or a mutex, or is the \
                 error handler"
            }
            SamplingPortNotConfigured | QueuingPortNotConfigured => {
                "the partition's configuration has no port of this name and kind: ports are \
                 declared in the module XML (Partition/Sampling_Port or Queuing_Port)"
            }
            SamplingPortMismatch => {
                "the message size, direction or refresh period differ from the port's \
                 configuration (the ports of a channel are fixed by the module XML)"
            }
            QueuingPortMismatch => {
                "the message size, number of messages or direction differ from the port's \
                 configuration (the ports of a channel are fixed by the module XML)"
            }
        }
    }
}

impl RecordKind {
    /// How logs title a record of this kind.
    pub fn title(self) -> &'static str {
        match self {
            RecordKind::ApplicationMessage => "application message",
            RecordKind::DeadlineMissed => "deadline missed",
            RecordKind::PartitionError => "partition-level error",
            RecordKind::ProcessError => "process-level error",
            RecordKind::RefusedCall => "refused call",
        }
    }
}

/// Who a record is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reporter {
    /// The partition's main (initialisation) process.
    Main,
    /// The partition's error handler.
    ErrorHandler,
    /// An APEX process (its identifier, > 0 and at most `i32::MAX`).
    Process(u32),
}

impl Reporter {
    /// The process identifier on the wire ([`Record::encode`] refuses a process identifier
    /// above `i32::MAX`; here it saturates).
    pub fn raw(self) -> i32 {
        match self {
            Reporter::Main => MAIN_PROCESS_ID,
            Reporter::ErrorHandler => ERROR_HANDLER_PROCESS_ID,
            Reporter::Process(p) => i32::try_from(p).unwrap_or(i32::MAX),
        }
    }

    /// Decodes a process identifier from the wire.
    pub fn from_raw(raw: i32) -> Result<Self, OutOfRange> {
        match raw {
            MAIN_PROCESS_ID => Ok(Reporter::Main),
            ERROR_HANDLER_PROCESS_ID => Ok(Reporter::ErrorHandler),
            p if p > 0 => Ok(Reporter::Process(p as u32)),
            _ => Err(OutOfRange {
                type_name: "reporter process identifier",
                value: i64::from(raw),
            }),
        }
    }
}

/// `main`, `error handler` or `process <id>`.
impl fmt::Display for Reporter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reporter::Main => f.write_str("main"),
            Reporter::ErrorHandler => f.write_str("error handler"),
            Reporter::Process(p) => write!(f, "process {p}"),
        }
    }
}

/// An error as the runtime reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorReport<'a> {
    /// The error kind.
    pub code: ErrorCode,
    /// Faulting address when known (0 otherwise).
    pub failed_address: u64,
    /// The error message (at most [`MAX_MESSAGE`] bytes).
    pub message: &'a [u8],
}

/// What a record says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body<'a> {
    /// REPORT_APPLICATION_MESSAGE (at most [`MAX_MESSAGE`] bytes).
    ApplicationMessage(&'a [u8]),
    /// The reporter (always a process) missed the deadline at this APEX time.
    DeadlineMissed {
        /// The deadline that passed, ns.
        deadline: i64,
    },
    /// An error handled at partition level.
    PartitionError(ErrorReport<'a>),
    /// An error given to the partition's error handler.
    ProcessError(ErrorReport<'a>),
    /// A service call refused by the rule `rule` (its return code is `rule.code()`);
    /// `name` is the object name the call gave (empty when it gave none).
    RefusedCall {
        /// The rule the call broke.
        rule: Refusal,
        /// The name of the object the call was about (at most [`MAX_MESSAGE`] bytes).
        name: &'a [u8],
    },
}

/// One report record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record<'a> {
    /// APEX time of the event, ns.
    pub time: i64,
    /// Who it is about.
    pub reporter: Reporter,
    /// What happened.
    pub body: Body<'a>,
}

impl<'a> Record<'a> {
    /// The record's kind.
    pub fn kind(&self) -> RecordKind {
        match self.body {
            Body::ApplicationMessage(_) => RecordKind::ApplicationMessage,
            Body::DeadlineMissed { .. } => RecordKind::DeadlineMissed,
            Body::PartitionError(_) => RecordKind::PartitionError,
            Body::ProcessError(_) => RecordKind::ProcessError,
            Body::RefusedCall { .. } => RecordKind::RefusedCall,
        }
    }

    /// The message bytes (empty for a deadline miss).
    pub fn message(&self) -> &'a [u8] {
        match self.body {
            Body::ApplicationMessage(m) => m,
            Body::DeadlineMissed { .. } => &[],
            Body::PartitionError(e) | Body::ProcessError(e) => e.message,
            Body::RefusedCall { name, .. } => name,
        }
    }

    /// The record's text for logs: the message (invalid UTF-8 shown as U+FFFD, trailing NULs
    /// dropped), after the error code and failed address of an error; the deadline of a miss.
    pub fn text(&self) -> impl fmt::Display + '_ {
        RecordText(self)
    }

    /// Bytes of the encoded record.
    pub fn encoded_len(&self) -> usize {
        HEADER_LEN + self.message().len()
    }

    /// Encodes the record into `out`; returns its length.
    pub fn encode(&self, out: &mut [u8]) -> Result<usize, EncodeError> {
        let message = self.message();
        if message.len() > MAX_MESSAGE {
            return Err(EncodeError::Length {
                field: "message",
                len: message.len(),
                max: MAX_MESSAGE,
            });
        }
        if let Reporter::Process(p) = self.reporter {
            if p == 0 || p > i32::MAX as u32 {
                return Err(EncodeError::Value("reporter process identifier"));
            }
        } else if matches!(self.body, Body::DeadlineMissed { .. }) {
            return Err(EncodeError::Value("deadline-miss reporter (not a process)"));
        }
        let (code, detail) = match self.body {
            Body::ApplicationMessage(_) => (0, 0),
            Body::DeadlineMissed { deadline } => (0, deadline as u64),
            Body::PartitionError(e) | Body::ProcessError(e) => (e.code.raw(), e.failed_address),
            Body::RefusedCall { rule, .. } => (rule.code().raw(), u64::from(rule.raw())),
        };
        let mut w = Writer::new(out, self.encoded_len())?;
        w.u16(VERSION);
        w.u16(self.kind().raw() as u16);
        w.u32(message.len() as u32);
        w.i64(self.time);
        w.i32(self.reporter.raw());
        w.u32(code);
        w.u64(detail);
        w.put(message);
        Ok(w.len())
    }

    /// Decodes the record at the start of `bytes`; returns it and its length.
    ///
    /// [`DecodeError::Truncated`] means `bytes` holds a valid beginning of a record but not
    /// all of it (a stream reader waits for more); every other error refuses the record.
    pub fn decode(bytes: &'a [u8]) -> Result<(Record<'a>, usize), DecodeError> {
        let mut r = Reader::new(bytes);
        let version = r.u16()?;
        if version != VERSION {
            return Err(DecodeError::Version {
                found: version,
                expected: VERSION,
            });
        }
        let kind = r.u16()?;
        let kind = RecordKind::from_raw(u32::from(kind))
            .ok_or(DecodeError::UnknownKind(u32::from(kind)))?;
        let len = r.u32()? as usize;
        if len > MAX_MESSAGE {
            return Err(DecodeError::Length {
                field: "message",
                len,
                max: MAX_MESSAGE,
            });
        }
        let time = r.i64()?;
        let reporter = Reporter::from_raw(r.i32()?)?;
        let code = r.u32()?;
        let detail = r.u64()?;
        let message = r.take(len)?;
        let error = |message| -> Result<ErrorReport<'a>, DecodeError> {
            Ok(ErrorReport {
                code: ErrorCode::try_from(code)?,
                failed_address: detail,
                message,
            })
        };
        let body = match kind {
            RecordKind::ApplicationMessage => {
                reserved_zero("error code", code != 0)?;
                reserved_zero("detail", detail != 0)?;
                Body::ApplicationMessage(message)
            }
            RecordKind::DeadlineMissed => {
                reserved_zero("error code", code != 0)?;
                if len != 0 {
                    return Err(DecodeError::Length {
                        field: "deadline-miss message",
                        len,
                        max: 0,
                    });
                }
                if !matches!(reporter, Reporter::Process(_)) {
                    return Err(OutOfRange {
                        type_name: "deadline-miss process identifier",
                        value: i64::from(reporter.raw()),
                    }
                    .into());
                }
                Body::DeadlineMissed {
                    deadline: detail as i64,
                }
            }
            RecordKind::PartitionError => Body::PartitionError(error(message)?),
            RecordKind::ProcessError => Body::ProcessError(error(message)?),
            RecordKind::RefusedCall => {
                let rule = u32::try_from(detail)
                    .ok()
                    .and_then(Refusal::from_raw)
                    .ok_or(OutOfRange {
                        type_name: "refusal rule",
                        value: detail as i64,
                    })?;
                if code != rule.code().raw() {
                    return Err(OutOfRange {
                        type_name: "return code of the refusal rule",
                        value: i64::from(code),
                    }
                    .into());
                }
                Body::RefusedCall {
                    rule,
                    name: message,
                }
            }
        };
        Ok((
            Record {
                time,
                reporter,
                body,
            },
            r.position(),
        ))
    }
}

struct RecordText<'r, 'a>(&'r Record<'a>);

impl fmt::Display for RecordText<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.body {
            Body::ApplicationMessage(_) => {}
            Body::DeadlineMissed { deadline } => {
                return write!(f, "deadline missed (deadline {deadline} ns)")
            }
            Body::PartitionError(e) | Body::ProcessError(e) => {
                write!(f, "{} ({})", e.code.c_name(), e.code.raw())?;
                if e.failed_address != 0 {
                    write!(f, " at {:#x}", e.failed_address)?;
                }
                f.write_str(": ")?;
            }
            Body::RefusedCall { rule, name } => {
                f.write_str(rule.service())?;
                if !name.is_empty() {
                    f.write_str(" \"")?;
                    write_bytes(f, name)?;
                    f.write_str("\"")?;
                }
                return write!(
                    f,
                    " refused with {} (rule {}): {}",
                    rule.code().c_name(),
                    rule.c_name(),
                    rule.rule()
                );
            }
        }
        write_bytes(f, self.0.message())
    }
}

/// Writes message bytes: invalid UTF-8 as U+FFFD, trailing NULs dropped.
fn write_bytes(f: &mut fmt::Formatter<'_>, m: &[u8]) -> fmt::Result {
    let end = m.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    for chunk in m[..end].utf8_chunks() {
        f.write_str(chunk.valid())?;
        if !chunk.invalid().is_empty() {
            f.write_str("\u{FFFD}")?;
        }
    }
    Ok(())
}

fn reserved_zero(field: &'static str, nonzero: bool) -> Result<(), DecodeError> {
    if nonzero {
        Err(DecodeError::Reserved(field))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn reporter() -> impl Strategy<Value = Reporter> {
        prop_oneof![
            Just(Reporter::Main),
            Just(Reporter::ErrorHandler),
            (1u32..=i32::MAX as u32).prop_map(Reporter::Process),
        ]
    }

    fn code() -> impl Strategy<Value = ErrorCode> {
        prop::sample::select(ErrorCode::ALL)
    }

    fn encode(r: &Record<'_>) -> ([u8; MAX_RECORD_LEN], usize) {
        let mut out = [0u8; MAX_RECORD_LEN];
        let n = r.encode(&mut out).expect("fits");
        (out, n)
    }

    proptest! {
        #[test]
        fn every_record_round_trips(
            time in any::<i64>(),
            who in reporter(),
            pid in 1u32..1000,
            code in code(),
            addr in any::<u64>(),
            deadline in any::<i64>(),
            msg in prop::collection::vec(any::<u8>(), 0..=MAX_MESSAGE),
            kind in 0..5u8,
            rule in prop::sample::select(Refusal::ALL),
        ) {
            let e = ErrorReport { code, failed_address: addr, message: &msg };
            let (reporter, body) = match kind {
                0 => (who, Body::ApplicationMessage(&msg)),
                1 => (Reporter::Process(pid), Body::DeadlineMissed { deadline }),
                2 => (who, Body::PartitionError(e)),
                3 => (who, Body::ProcessError(e)),
                _ => (who, Body::RefusedCall { rule, name: &msg }),
            };
            let rec = Record { time, reporter, body };
            let (out, n) = encode(&rec);
            prop_assert_eq!(n, rec.encoded_len());
            prop_assert_eq!(Record::decode(&out[..n]), Ok((rec, n)));
            // Every strict prefix is truncated, never a different record.
            for cut in 0..n {
                let is_truncated = matches!(
                    Record::decode(&out[..cut]),
                    Err(DecodeError::Truncated { .. })
                );
                prop_assert!(is_truncated);
            }
        }

        #[test]
        fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
            if let Ok((rec, n)) = Record::decode(&bytes) {
                prop_assert!(n <= bytes.len());
                prop_assert!(rec.message().len() <= MAX_MESSAGE);
            }
        }
    }

    fn sample() -> ([u8; MAX_RECORD_LEN], usize) {
        encode(&Record {
            time: 5,
            reporter: Reporter::Main,
            body: Body::PartitionError(ErrorReport {
                code: ErrorCode::NumericError,
                failed_address: 0x1234,
                message: b"SIGFPE",
            }),
        })
    }

    #[test]
    fn hostile_records_are_refused_with_their_reason() {
        let (good, n) = sample();
        let patched = |at: usize, b: &[u8]| {
            let mut r = good;
            r[at..at + b.len()].copy_from_slice(b);
            r
        };
        let cases: [(_, DecodeError); 6] = [
            (
                patched(0, &2u16.to_le_bytes()),
                DecodeError::Version {
                    found: 2,
                    expected: VERSION,
                },
            ),
            (patched(2, &9u16.to_le_bytes()), DecodeError::UnknownKind(9)),
            (
                patched(4, &4096u32.to_le_bytes()),
                DecodeError::Length {
                    field: "message",
                    len: 4096,
                    max: MAX_MESSAGE,
                },
            ),
            (
                patched(16, &0i32.to_le_bytes()),
                DecodeError::OutOfRange(OutOfRange {
                    type_name: "reporter process identifier",
                    value: 0,
                }),
            ),
            (
                patched(20, &8u32.to_le_bytes()),
                DecodeError::OutOfRange(OutOfRange {
                    type_name: "ERROR_CODE_TYPE",
                    value: 8,
                }),
            ),
            (
                patched(2, &1u16.to_le_bytes()),
                DecodeError::Reserved("error code"),
            ),
        ];
        for (bytes, want) in cases {
            assert_eq!(Record::decode(&bytes[..n]), Err(want));
        }
        // A deadline miss must name a process and carry no message.
        let mut d = [0u8; MAX_RECORD_LEN];
        let dn = Record {
            time: 1,
            reporter: Reporter::Process(3),
            body: Body::DeadlineMissed { deadline: 7 },
        }
        .encode(&mut d)
        .expect("fits");
        d[16..20].copy_from_slice(&(-1i32).to_le_bytes());
        assert!(matches!(
            Record::decode(&d[..dn]),
            Err(DecodeError::OutOfRange(_))
        ));
    }

    #[test]
    fn text_shows_code_address_and_message() {
        extern crate std;
        use std::string::ToString;
        let (b, n) = sample();
        let (r, _) = Record::decode(&b[..n]).expect("valid");
        assert_eq!(r.text().to_string(), "NUMERIC_ERROR (2) at 0x1234: SIGFPE");
        assert_eq!(r.reporter.to_string(), "main");
        let m = Record {
            time: 0,
            reporter: Reporter::Process(4),
            body: Body::ApplicationMessage(b"a\xffb\0\0"),
        };
        assert_eq!(m.text().to_string(), "a\u{FFFD}b");
        assert_eq!(m.reporter.to_string(), "process 4");
    }

    #[test]
    fn refused_call_names_service_code_and_rule() {
        extern crate std;
        use std::string::ToString;
        let (b, n) = encode(&Record {
            time: 0,
            reporter: Reporter::Main,
            body: Body::RefusedCall {
                rule: Refusal::ProcessPeriodNotMultiple,
                name: b"ping",
            },
        });
        let (r, _) = Record::decode(&b[..n]).expect("valid");
        let text = r.text().to_string();
        assert!(
            text.starts_with(
                "CREATE_PROCESS \"ping\" refused with INVALID_CONFIG (rule \
                 PROCESS_PERIOD_NOT_MULTIPLE): a periodic process's period must be a positive \
                 multiple of the partition period"
            ),
            "{text}"
        );
        // A rule the build does not know, and a return code that is not the rule's, are
        // refused.
        let mut bad = b;
        bad[24..32].copy_from_slice(&99u64.to_le_bytes());
        assert!(matches!(
            Record::decode(&bad[..n]),
            Err(DecodeError::OutOfRange(OutOfRange {
                type_name: "refusal rule",
                ..
            }))
        ));
        let mut bad = b;
        bad[20..24].copy_from_slice(&ReturnCode::InvalidParam.raw().to_le_bytes());
        assert!(matches!(
            Record::decode(&bad[..n]),
            Err(DecodeError::OutOfRange(_))
        ));
        // Every rule has a service, a code other than NO_ERROR and a reason.
        for &rule in Refusal::ALL {
            assert_ne!(rule.code(), ReturnCode::NoError);
            assert!(!rule.rule().is_empty() && !rule.service().is_empty());
        }
    }

    #[test]
    fn encoding_refuses_what_decoding_would() {
        let long = [0u8; MAX_MESSAGE + 1];
        let r = Record {
            time: 0,
            reporter: Reporter::Main,
            body: Body::ApplicationMessage(&long),
        };
        assert!(matches!(
            r.encode(&mut [0u8; 512]),
            Err(EncodeError::Length { .. })
        ));
        for (reporter, body) in [
            (Reporter::Process(0), Body::ApplicationMessage(b"x")),
            (Reporter::Process(1 << 31), Body::ApplicationMessage(b"x")),
            (Reporter::Main, Body::DeadlineMissed { deadline: 1 }),
        ] {
            let r = Record {
                time: 0,
                reporter,
                body,
            };
            assert!(matches!(
                r.encode(&mut [0u8; 512]),
                Err(EncodeError::Value(_))
            ));
        }
        let r = Record {
            time: 0,
            reporter: Reporter::Main,
            body: Body::ApplicationMessage(b"x"),
        };
        assert_eq!(
            r.encode(&mut [0u8; 8]),
            Err(EncodeError::Room {
                needed: HEADER_LEN + 1,
                available: 8
            })
        );
    }
}
