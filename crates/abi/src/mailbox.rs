// SPDX-License-Identifier: MIT OR Apache-2.0
//! The system-partition service mailbox of the control block ([`crate::control::Mailbox`]):
//! request codes and arguments (partition → manager) and reply payloads (manager →
//! partition).
//!
//! A request is a [`RequestCode`] and [`ARGS`] 64-bit arguments; a reply is a
//! `RETURN_CODE_TYPE` and a payload of at most [`REPLY_BYTES`] bytes made of little-endian
//! 64-bit words (the READ_HM_LOG message bytes follow its header words). Both are versioned
//! with the control block ([`crate::control::VERSION`]). The manager decodes requests with
//! [`Request::decode`] (the partition is untrusted); the runtime decodes replies with the
//! `decode` of each reply type, which validates every enumerated value too.

use crate::wire::{Reader, Writer};
use crate::{abi_enum, DecodeError, EncodeError, OutOfRange};
use crate::{ErrorCode, ErrorLevel, HmAction, OperatingMode, StartCondition, SystemState};
use crate::{HM_LOG_MESSAGE_SIZE, HM_LOG_NO_PROCESS};

/// [`crate::control::Mailbox::state`]: nothing posted.
pub const IDLE: u32 = 0;
/// [`crate::control::Mailbox::state`]: a request is posted and not answered yet.
pub const POSTED: u32 = 1;
/// [`crate::control::Mailbox::state`]: the manager answered (the partition sets it back to
/// [`IDLE`]).
pub const REPLIED: u32 = 2;
/// Number of request arguments.
pub const ARGS: usize = 4;
/// Size of the reply payload in 64-bit words.
pub const REPLY_WORDS: usize = 40;
/// Size of the reply payload in bytes.
pub const REPLY_BYTES: usize = REPLY_WORDS * 8;
/// Partition identifier of a logbook entry about the whole module.
pub const MODULE_PARTITION_ID: i32 = -1;

abi_enum! {
    /// The services a partition may request through the mailbox.
    "MAILBOX_REQUEST" RequestCode {
        /// GET_A_PARTITION_STATUS: `args[0]` = partition identifier.
        GetAPartitionStatus = 1 => "GET_A_PARTITION_STATUS",
        /// SET_A_PARTITION_MODE: `args[0]` = partition identifier, `args[1]` = operating mode.
        SetAPartitionMode = 2 => "SET_A_PARTITION_MODE",
        /// GET_HM_LOG_STATUS: no arguments.
        GetHmLogStatus = 3 => "GET_HM_LOG_STATUS",
        /// READ_HM_LOG: `args[0]` = entry index.
        ReadHmLog = 4 => "READ_HM_LOG",
    }
}

/// A decoded request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    /// GET_A_PARTITION_STATUS of a partition identifier.
    GetAPartitionStatus {
        /// The partition asked about.
        partition: i32,
    },
    /// SET_A_PARTITION_MODE.
    SetAPartitionMode {
        /// The partition to set.
        partition: i32,
        /// The mode wanted.
        mode: OperatingMode,
    },
    /// GET_HM_LOG_STATUS.
    GetHmLogStatus,
    /// READ_HM_LOG of an entry index (>= 0).
    ReadHmLog {
        /// The entry index.
        index: i64,
    },
}

fn int<T: TryFrom<i64>>(what: &'static str, v: i64) -> Result<T, OutOfRange> {
    T::try_from(v).map_err(|_| OutOfRange {
        type_name: what,
        value: v,
    })
}

impl Request {
    /// The request's code.
    pub fn code(&self) -> RequestCode {
        match self {
            Request::GetAPartitionStatus { .. } => RequestCode::GetAPartitionStatus,
            Request::SetAPartitionMode { .. } => RequestCode::SetAPartitionMode,
            Request::GetHmLogStatus => RequestCode::GetHmLogStatus,
            Request::ReadHmLog { .. } => RequestCode::ReadHmLog,
        }
    }

    /// The arguments as posted (unused ones are 0).
    pub fn args(&self) -> [i64; ARGS] {
        match *self {
            Request::GetAPartitionStatus { partition } => [i64::from(partition), 0, 0, 0],
            Request::SetAPartitionMode { partition, mode } => {
                [i64::from(partition), i64::from(mode.raw()), 0, 0]
            }
            Request::GetHmLogStatus => [0; ARGS],
            Request::ReadHmLog { index } => [index, 0, 0, 0],
        }
    }

    /// Decodes a posted request: every argument is checked, unused ones must be 0.
    pub fn decode(code: u32, args: [i64; ARGS]) -> Result<Request, DecodeError> {
        let code = RequestCode::from_raw(code).ok_or(DecodeError::UnknownKind(code))?;
        let (req, used) = match code {
            RequestCode::GetAPartitionStatus => (
                Request::GetAPartitionStatus {
                    partition: int("partition identifier", args[0])?,
                },
                1,
            ),
            RequestCode::SetAPartitionMode => {
                let raw: u32 = int(<OperatingMode as crate::CEnum>::C_TYPE, args[1])?;
                (
                    Request::SetAPartitionMode {
                        partition: int("partition identifier", args[0])?,
                        mode: OperatingMode::try_from(raw)?,
                    },
                    2,
                )
            }
            RequestCode::GetHmLogStatus => (Request::GetHmLogStatus, 0),
            RequestCode::ReadHmLog => {
                if args[0] < 0 {
                    return Err(OutOfRange {
                        type_name: "logbook index",
                        value: args[0],
                    }
                    .into());
                }
                (Request::ReadHmLog { index: args[0] }, 1)
            }
        };
        if args[used..].iter().any(|&a| a != 0) {
            return Err(DecodeError::Reserved("unused request argument"));
        }
        Ok(req)
    }
}

fn flag(what: &'static str, v: i64) -> Result<bool, OutOfRange> {
    match v {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(OutOfRange {
            type_name: what,
            value: v,
        }),
    }
}

fn enum_word<T: TryFrom<u32, Error = OutOfRange> + crate::CEnum>(v: i64) -> Result<T, OutOfRange> {
    T::try_from(int::<u32>(T::C_TYPE, v)?)
}

/// Status of a partition as the manager sees it (GET_A_PARTITION_STATUS reply: twelve words
/// in field order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct APartitionStatus {
    /// Partition period, ns.
    pub period: i64,
    /// Partition duration, ns.
    pub duration: i64,
    /// Partition identifier.
    pub identifier: i32,
    /// Current preemption lock level.
    pub lock_level: i32,
    /// Operating mode (IDLE when it has no process).
    pub operating_mode: OperatingMode,
    /// Start condition of its current incarnation.
    pub start_condition: StartCondition,
    /// Cores assigned.
    pub num_assigned_cores: u32,
    /// Restarts carried out.
    pub restarts: u32,
    /// Health-monitor events recorded for it.
    pub hm_events: i64,
    /// Windows it was scheduled in.
    pub windows: i64,
    /// Whether its Linux process exists.
    pub has_process: bool,
    /// Whether it is a system partition.
    pub system: bool,
}

impl APartitionStatus {
    /// Bytes of the encoded reply.
    pub const LEN: usize = 12 * 8;

    /// Encodes the reply; returns its length.
    pub fn encode(&self, out: &mut [u8]) -> Result<usize, EncodeError> {
        let mut w = Writer::new(out, Self::LEN)?;
        for v in [
            self.period,
            self.duration,
            i64::from(self.identifier),
            i64::from(self.lock_level),
            i64::from(self.operating_mode.raw()),
            i64::from(self.start_condition.raw()),
            i64::from(self.num_assigned_cores),
            i64::from(self.restarts),
            self.hm_events,
            self.windows,
            i64::from(self.has_process),
            i64::from(self.system),
        ] {
            w.i64(v);
        }
        Ok(w.len())
    }

    /// Decodes the reply, checking every value.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        Ok(APartitionStatus {
            period: r.i64()?,
            duration: r.i64()?,
            identifier: int("partition identifier", r.i64()?)?,
            lock_level: int("LOCK_LEVEL_TYPE", r.i64()?)?,
            operating_mode: enum_word(r.i64()?)?,
            start_condition: enum_word(r.i64()?)?,
            num_assigned_cores: int("NUM_CORES_TYPE", r.i64()?)?,
            restarts: int("restart count", r.i64()?)?,
            hm_events: r.i64()?,
            windows: r.i64()?,
            has_process: flag("has-process flag", r.i64()?)?,
            system: flag("system-partition flag", r.i64()?)?,
        })
    }
}

/// Counters of the module logbook (GET_HM_LOG_STATUS reply: five words in field order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HmLogStatus {
    /// Records made since the module started (the next record's index).
    pub total: i64,
    /// Index of the oldest record still readable.
    pub first_index: i64,
    /// Records readable.
    pub kept: i64,
    /// Records no longer readable (evicted; still in the manager's log file, if any).
    pub evicted: i64,
    /// Records the manager keeps readable.
    pub capacity: i64,
}

impl HmLogStatus {
    /// Bytes of the encoded reply.
    pub const LEN: usize = 5 * 8;

    /// Encodes the reply; returns its length.
    pub fn encode(&self, out: &mut [u8]) -> Result<usize, EncodeError> {
        let mut w = Writer::new(out, Self::LEN)?;
        for v in [
            self.total,
            self.first_index,
            self.kept,
            self.evicted,
            self.capacity,
        ] {
            w.i64(v);
        }
        Ok(w.len())
    }

    /// Decodes the reply.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        Ok(HmLogStatus {
            total: r.i64()?,
            first_index: r.i64()?,
            kept: r.i64()?,
            evicted: r.i64()?,
            capacity: r.i64()?,
        })
    }
}

/// One logbook record (READ_HM_LOG reply: ten words in field order, `length` among them
/// last, then the message bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HmLogEntry {
    /// Index (sequence number within the run).
    pub index: i64,
    /// Time since the module epoch, ns.
    pub time: i64,
    /// Partition identifier, [`MODULE_PARTITION_ID`] for a module-wide error.
    pub partition_id: i32,
    /// APEX process as in report records ([`crate::MAIN_PROCESS_ID`],
    /// [`crate::ERROR_HANDLER_PROCESS_ID`]), [`HM_LOG_NO_PROCESS`] for none.
    pub process_id: i32,
    /// System state.
    pub system_state: SystemState,
    /// Error code.
    pub error_code: ErrorCode,
    /// Level it was handled at.
    pub level: ErrorLevel,
    /// Action taken.
    pub action: HmAction,
    /// Error identifier matched in the HM tables.
    pub identifier: u32,
    /// Significant bytes of `message`.
    pub length: usize,
    /// Message bytes (`length` significant, zero padded).
    pub message: [u8; HM_LOG_MESSAGE_SIZE],
}

impl HmLogEntry {
    /// Bytes of the header words before the message.
    pub const HEADER_LEN: usize = 10 * 8;

    /// The significant message bytes.
    pub fn message(&self) -> &[u8] {
        &self.message[..self.length.min(HM_LOG_MESSAGE_SIZE)]
    }

    /// Builds an entry whose message is the first [`HM_LOG_MESSAGE_SIZE`] bytes of `message`.
    pub fn with_message(mut self, message: &[u8]) -> Self {
        let n = message.len().min(HM_LOG_MESSAGE_SIZE);
        self.message = [0; HM_LOG_MESSAGE_SIZE];
        self.message[..n].copy_from_slice(&message[..n]);
        self.length = n;
        self
    }

    /// Encodes the reply; returns its length.
    pub fn encode(&self, out: &mut [u8]) -> Result<usize, EncodeError> {
        if self.length > HM_LOG_MESSAGE_SIZE {
            return Err(EncodeError::Length {
                field: "logbook message",
                len: self.length,
                max: HM_LOG_MESSAGE_SIZE,
            });
        }
        let mut w = Writer::new(out, Self::HEADER_LEN + self.length)?;
        for v in [
            self.index,
            self.time,
            i64::from(self.partition_id),
            i64::from(self.process_id),
            i64::from(self.system_state.raw()),
            i64::from(self.error_code.raw()),
            i64::from(self.level.raw()),
            i64::from(self.action.raw()),
            i64::from(self.identifier),
            self.length as i64,
        ] {
            w.i64(v);
        }
        w.put(self.message());
        Ok(w.len())
    }

    /// Decodes the reply, checking every value.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let index = r.i64()?;
        let time = r.i64()?;
        let partition_id: i32 = int("partition identifier", r.i64()?)?;
        if partition_id < MODULE_PARTITION_ID {
            return Err(OutOfRange {
                type_name: "partition identifier",
                value: i64::from(partition_id),
            }
            .into());
        }
        let process_id: i32 = int("process identifier", r.i64()?)?;
        if process_id < HM_LOG_NO_PROCESS {
            return Err(OutOfRange {
                type_name: "process identifier",
                value: i64::from(process_id),
            }
            .into());
        }
        let system_state = enum_word(r.i64()?)?;
        let error_code = enum_word(r.i64()?)?;
        let level = enum_word(r.i64()?)?;
        let action = enum_word(r.i64()?)?;
        let identifier = int("error identifier", r.i64()?)?;
        let len = r.i64()?;
        let length = usize::try_from(len)
            .ok()
            .filter(|&l| l <= HM_LOG_MESSAGE_SIZE)
            .ok_or(DecodeError::Length {
                field: "logbook message",
                len: usize::try_from(len).unwrap_or(usize::MAX),
                max: HM_LOG_MESSAGE_SIZE,
            })?;
        let mut message = [0u8; HM_LOG_MESSAGE_SIZE];
        message[..length].copy_from_slice(r.take(length)?);
        Ok(HmLogEntry {
            index,
            time,
            partition_id,
            process_id,
            system_state,
            error_code,
            level,
            action,
            identifier,
            length,
            message,
        })
    }
}

const _: () = assert!(HmLogEntry::HEADER_LEN + HM_LOG_MESSAGE_SIZE <= REPLY_BYTES);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CEnum;
    use proptest::prelude::*;

    fn pick<T: CEnum + core::fmt::Debug>() -> impl Strategy<Value = T> {
        prop::sample::select(
            T::C_VALUES
                .iter()
                .map(|&(_, v)| v)
                .collect::<std::vec::Vec<_>>(),
        )
    }

    extern crate std;

    proptest! {
        #[test]
        fn requests_round_trip(partition in any::<i32>(), mode in pick::<OperatingMode>(), index in 0..i64::MAX, which in 0..4u8) {
            let req = match which {
                0 => Request::GetAPartitionStatus { partition },
                1 => Request::SetAPartitionMode { partition, mode },
                2 => Request::GetHmLogStatus,
                _ => Request::ReadHmLog { index },
            };
            prop_assert_eq!(Request::decode(req.code().raw(), req.args()), Ok(req));
        }

        #[test]
        fn hostile_requests_never_panic(code in any::<u32>(), args in any::<[i64; ARGS]>()) {
            if let Ok(req) = Request::decode(code, args) {
                prop_assert_eq!(req.args(), args);
                prop_assert_eq!(req.code().raw(), code);
            }
        }

        #[test]
        fn partition_status_round_trips(
            period in any::<i64>(), duration in any::<i64>(), identifier in any::<i32>(),
            lock_level in any::<i32>(), operating_mode in pick::<OperatingMode>(),
            start_condition in pick::<StartCondition>(), num_assigned_cores in any::<u32>(),
            restarts in any::<u32>(), hm_events in any::<i64>(), windows in any::<i64>(),
            has_process in any::<bool>(), system in any::<bool>(),
        ) {
            let s = APartitionStatus { period, duration, identifier, lock_level, operating_mode,
                start_condition, num_assigned_cores, restarts, hm_events, windows, has_process, system };
            let mut out = [0u8; REPLY_BYTES];
            let n = s.encode(&mut out).expect("fits");
            prop_assert_eq!(APartitionStatus::decode(&out[..n]), Ok(s));
            let truncated = matches!(APartitionStatus::decode(&out[..n - 1]), Err(DecodeError::Truncated { .. }));
            prop_assert!(truncated);
        }

        #[test]
        fn log_status_round_trips(w in any::<[i64; 5]>()) {
            let s = HmLogStatus { total: w[0], first_index: w[1], kept: w[2], evicted: w[3], capacity: w[4] };
            let mut out = [0u8; REPLY_BYTES];
            let n = s.encode(&mut out).expect("fits");
            prop_assert_eq!(HmLogStatus::decode(&out[..n]), Ok(s));
        }

        #[test]
        fn log_entries_round_trip(
            index in any::<i64>(), time in any::<i64>(), partition_id in -1..i32::MAX,
            process_id in -3..i32::MAX, system_state in pick::<SystemState>(),
            error_code in pick::<ErrorCode>(), level in pick::<ErrorLevel>(),
            action in pick::<HmAction>(), identifier in any::<u32>(),
            msg in prop::collection::vec(any::<u8>(), 0..=HM_LOG_MESSAGE_SIZE),
        ) {
            let e = HmLogEntry { index, time, partition_id, process_id, system_state, error_code,
                level, action, identifier, length: 0, message: [0; HM_LOG_MESSAGE_SIZE] }
                .with_message(&msg);
            let mut out = [0u8; REPLY_BYTES];
            let n = e.encode(&mut out).expect("fits");
            prop_assert_eq!(HmLogEntry::decode(&out[..n]), Ok(e));
            prop_assert_eq!(e.message(), &msg[..]);
        }

        #[test]
        fn hostile_replies_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..REPLY_BYTES)) {
            let _ = APartitionStatus::decode(&bytes);
            let _ = HmLogStatus::decode(&bytes);
            if let Ok(e) = HmLogEntry::decode(&bytes) {
                prop_assert!(e.length <= HM_LOG_MESSAGE_SIZE);
            }
        }
    }

    #[test]
    fn bad_requests_say_why() {
        assert_eq!(
            Request::decode(9, [0; ARGS]),
            Err(DecodeError::UnknownKind(9))
        );
        assert_eq!(
            Request::decode(2, [1, 4, 0, 0]),
            Err(DecodeError::OutOfRange(OutOfRange {
                type_name: "OPERATING_MODE_TYPE",
                value: 4
            }))
        );
        assert_eq!(
            Request::decode(1, [i64::from(i32::MAX) + 1, 0, 0, 0]),
            Err(DecodeError::OutOfRange(OutOfRange {
                type_name: "partition identifier",
                value: i64::from(i32::MAX) + 1
            }))
        );
        assert_eq!(
            Request::decode(3, [0, 0, 0, 7]),
            Err(DecodeError::Reserved("unused request argument"))
        );
        assert!(matches!(
            Request::decode(4, [-1, 0, 0, 0]),
            Err(DecodeError::OutOfRange(_))
        ));
    }

    #[test]
    fn bad_replies_say_why() {
        let mut out = [0u8; REPLY_BYTES];
        let s = APartitionStatus {
            period: 1,
            duration: 1,
            identifier: 1,
            lock_level: 0,
            operating_mode: OperatingMode::Normal,
            start_condition: StartCondition::NormalStart,
            num_assigned_cores: 1,
            restarts: 0,
            hm_events: 0,
            windows: 0,
            has_process: true,
            system: false,
        };
        let n = s.encode(&mut out).expect("fits");
        out[32..40].copy_from_slice(&9i64.to_le_bytes());
        assert_eq!(
            APartitionStatus::decode(&out[..n]),
            Err(DecodeError::OutOfRange(OutOfRange {
                type_name: "OPERATING_MODE_TYPE",
                value: 9
            }))
        );
        let mut e = [0u8; REPLY_BYTES];
        e[32..40].copy_from_slice(&1i64.to_le_bytes()); // system state
        e[72..80].copy_from_slice(&241i64.to_le_bytes()); // length
        assert!(matches!(
            HmLogEntry::decode(&e),
            Err(DecodeError::Length { len: 241, .. })
        ));
    }
}
