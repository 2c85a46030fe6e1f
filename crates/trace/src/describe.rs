// SPDX-License-Identifier: MIT OR Apache-2.0
//! An event's arguments under their names, decoded to the ARINC 653 names where they are
//! enumerations (`state=RUNNING`, `reason=PERIODIC_RELEASE`): shared by the CSV rows, the
//! Perfetto `args` and the summary.

use crate::timeline::{mode_name, reason_name, state_name, Trace};
use partita_abi::trace::{Event, EventKind, PORT_CREATED_QUEUING};
use partita_abi::{ErrorCode, ErrorLevel, HmAction, ReturnCode, StartCondition, Validity};

/// One decoded argument.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A number.
    Int(i64),
    /// A name or text.
    Text(String),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Text(t) => f.write_str(t),
        }
    }
}

fn int(v: u64) -> Value {
    Value::Int(i64::try_from(v).unwrap_or(i64::MAX))
}

fn time(trace: &Trace, t: u64) -> Value {
    Value::Int(trace.since_epoch(t))
}

fn named<E>(raw: u64, from: fn(u32) -> Option<E>, name: fn(E) -> &'static str) -> Value {
    match u32::try_from(raw).ok().and_then(from) {
        Some(e) => Value::Text(name(e).to_string()),
        None => int(raw),
    }
}

fn code(raw: u64) -> Value {
    named(raw, ReturnCode::from_raw, ReturnCode::name)
}

/// Text packed little-endian into a u64, NUL-padded (a kernel task state such as `R+`).
pub fn packed_text(v: u64) -> String {
    let bytes = v.to_le_bytes();
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// The arguments of `e`, named, times as ns after the epoch.
pub fn args(trace: &Trace, e: &Event) -> Vec<(&'static str, Value)> {
    let (b, c, d) = (e.b(), e.c(), e.d());
    let schedule_name = |s: u64| {
        trace
            .meta
            .schedules
            .get(s as usize)
            .map_or_else(|| int(s), |s| Value::Text(s.name.clone()))
    };
    match e.kind {
        EventKind::WindowStart => vec![
            ("planned_start_ns", time(trace, e.a)),
            ("schedule", schedule_name(b)),
            ("window", int(c)),
        ],
        EventKind::WindowEnd => vec![
            ("planned_end_ns", time(trace, e.a)),
            ("schedule", schedule_name(b)),
            ("window", int(c)),
        ],
        EventKind::PartitionMode => vec![
            ("mode", Value::Text(mode_name(e.a))),
            (
                "start_condition",
                named(b, StartCondition::from_raw, StartCondition::name),
            ),
        ],
        EventKind::ScheduleSwitch => vec![("to", schedule_name(e.a)), ("from", schedule_name(b))],
        EventKind::HealthMonitor => vec![
            ("error", named(e.a, ErrorCode::from_raw, ErrorCode::name)),
            ("level", named(b, ErrorLevel::from_raw, ErrorLevel::name)),
            ("action", named(c, HmAction::from_raw, HmAction::name)),
        ],
        EventKind::PartitionSpawned => vec![("host_pid", int(e.a)), ("incarnation", int(b))],
        EventKind::Lost | EventKind::Refused => vec![("count", int(e.a))],
        EventKind::KernelSwitch => vec![
            ("prev_tid", int(e.a)),
            ("next_tid", int(b)),
            ("prev_state", Value::Text(packed_text(c))),
        ],
        EventKind::KernelWakeup => vec![("tid", int(e.a)), ("target_core", int(b))],
        EventKind::ProcessCreated => vec![
            ("host_tid", int(e.a)),
            (
                "name",
                Value::Text(String::from_utf8_lossy(e.name()).into_owned()),
            ),
        ],
        EventKind::ProcessState => vec![
            ("state", Value::Text(state_name(e.a))),
            ("reason", Value::Text(reason_name(b))),
        ],
        EventKind::DeadlineMiss => vec![("deadline_ns", int(e.a))],
        EventKind::PortCreated => vec![
            ("port_id", int(crate::timeline::port_id(e.a))),
            (
                "kind",
                Value::Text(
                    if e.a & PORT_CREATED_QUEUING != 0 {
                        "queuing"
                    } else {
                        "sampling"
                    }
                    .into(),
                ),
            ),
            (
                "name",
                Value::Text(String::from_utf8_lossy(e.name()).into_owned()),
            ),
        ],
        EventKind::PortWrite => vec![
            ("port", Value::Text(trace.port_name(e.partition, e.a))),
            ("bytes", int(b)),
            ("return_code", code(c)),
        ],
        EventKind::PortRead => vec![
            ("port", Value::Text(trace.port_name(e.partition, e.a))),
            ("bytes", int(b)),
            ("return_code", code(c)),
            ("validity", named(d, Validity::from_raw, Validity::name)),
        ],
        EventKind::ApexEnter => vec![("service", int(e.a))],
        EventKind::ApexExit => vec![("service", int(e.a)), ("return_code", code(b))],
        EventKind::Application => vec![("stream", int(e.a)), ("value", int(b))],
    }
}

/// The arguments as `name=value` words separated by spaces.
pub fn args_text(trace: &Trace, e: &Event) -> String {
    args(trace, e)
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}
