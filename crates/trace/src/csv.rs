// SPDX-License-Identifier: MIT OR Apache-2.0
//! CSV: one row per event, in time order, with the stable columns of [`COLUMNS`] and RFC 4180
//! quoting (a field holding a comma, a quote or a line break is quoted, quotes doubled; lines
//! end in CRLF).
//!
//! The quoting is a few lines written here rather than the `csv` crate: the rows are flat
//! text and numbers, and the trace crate stays on std + serde.

use crate::describe::args_text;
use crate::timeline::Trace;
use partita_abi::trace::{NO_CORE, NO_PROCESS};
use std::io::{self, Write};

/// The header row.
pub const COLUMNS: [&str; 8] = [
    "time_ns",
    "since_epoch_ns",
    "kind",
    "core",
    "partition",
    "process",
    "process_name",
    "args",
];

/// `field` quoted when it needs it (RFC 4180).
pub fn quote(field: &str) -> std::borrow::Cow<'_, str> {
    if field.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", field.replace('"', "\"\"")).into()
    } else {
        field.into()
    }
}

fn row(out: &mut impl Write, fields: &[&str]) -> io::Result<()> {
    let line: Vec<_> = fields.iter().map(|f| quote(f)).collect();
    write!(out, "{}\r\n", line.join(","))
}

/// Writes `trace` as CSV.
pub fn write(trace: &Trace, out: &mut impl Write) -> io::Result<()> {
    row(out, &COLUMNS)?;
    for e in &trace.events {
        let core = if e.core == NO_CORE {
            String::new()
        } else {
            e.core.to_string()
        };
        let process = if e.process == NO_PROCESS {
            String::new()
        } else {
            e.process.to_string()
        };
        row(
            out,
            &[
                &e.time_ns.to_string(),
                &trace.since_epoch(e.time_ns).to_string(),
                e.kind.name(),
                &core,
                &trace.partition_name(e.partition),
                &process,
                &trace.process_name(e.partition, e.process),
                &args_text(trace, e),
            ],
        )?;
    }
    Ok(())
}
