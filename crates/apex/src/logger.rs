// SPDX-License-Identifier: MIT OR Apache-2.0
//! A logger for the [`log`] crate that writes through REPORT_APPLICATION_MESSAGE (cargo
//! feature `log`, enabled by `a653rs`), so that partitions that log (as `a653rs` partitions
//! do) keep working: each record becomes one application message in the module's run log,
//! `LEVEL target: message`, the level as a word (`ERROR`, `WARN`, `INFO`, `DEBUG`, `TRACE`).
//!
//! An application message holds at most `MAX_ERROR_MESSAGE_SIZE` (128) bytes. A longer line
//! is cut at a character boundary and ends with [`TRUNCATED_MARKER`], so the cut is visible;
//! [`ApexLogger::truncated`] counts them. A record the runtime could not report (the runtime
//! failed to start) goes to standard error, counted by [`ApexLogger::unreported`].
//!
//! ```no_run
//! use partita_apex::logger::ApexLogger;
//! ApexLogger::install_panic_hook();
//! ApexLogger::install_logger(log::LevelFilter::Info).unwrap();
//! log::info!("started");
//! ```

use crate::apex::hm::{report_application_message, MAX_ERROR_MESSAGE_SIZE};
use log::{LevelFilter, Log, Metadata, Record, SetLoggerError};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};

/// Ends a line cut at the message size limit.
pub const TRUNCATED_MARKER: &str = " [truncated]";

static TRUNCATED: AtomicU64 = AtomicU64::new(0);
static UNREPORTED: AtomicU64 = AtomicU64::new(0);

/// The logger (see the module documentation).
#[derive(Debug, Clone, Copy)]
pub struct ApexLogger;

static LOGGER: ApexLogger = ApexLogger;

impl ApexLogger {
    /// Installs the logger as the `log` crate's logger, with `level` as the maximum level.
    pub fn install_logger(level: LevelFilter) -> Result<(), SetLoggerError> {
        log::set_logger(&LOGGER)?;
        log::set_max_level(level);
        Ok(())
    }

    /// Adds a panic hook that reports the panic (its message and place) as an `ERROR`
    /// application message before the hook installed before it runs.
    pub fn install_panic_hook() {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            // One line: the panic message may span several.
            report_line(&format!("ERROR panic: {info}").replace('\n', " "));
            previous(info);
        }));
    }

    /// Lines cut at the message size limit so far.
    pub fn truncated() -> u64 {
        TRUNCATED.load(Ordering::Relaxed)
    }

    /// Lines the runtime could not report (written to standard error instead) so far.
    pub fn unreported() -> u64 {
        UNREPORTED.load(Ordering::Relaxed)
    }
}

impl Log for ApexLogger {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.level() <= log::max_level()
    }

    fn log(&self, record: &Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let mut line = String::new();
        // Writing to a String cannot fail.
        let _ = write!(
            line,
            "{} {}: {}",
            record.level().as_str(),
            record.target(),
            record.args()
        );
        report_line(&line);
    }

    fn flush(&self) {}
}

/// `line` as an application message: at most `max` bytes, cut at a character boundary with
/// [`TRUNCATED_MARKER`] when longer. Returns the message and whether it was cut.
pub fn fit(line: &str, max: usize) -> (String, bool) {
    if line.len() <= max {
        return (line.to_string(), false);
    }
    let mut end = max.saturating_sub(TRUNCATED_MARKER.len());
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    (format!("{}{TRUNCATED_MARKER}", &line[..end]), true)
}

fn report_line(line: &str) {
    let (message, cut) = fit(line, MAX_ERROR_MESSAGE_SIZE);
    if cut {
        TRUNCATED.fetch_add(1, Ordering::Relaxed);
    }
    if let Err(e) = report_application_message(message.as_bytes()) {
        UNREPORTED.fetch_add(1, Ordering::Relaxed);
        eprintln!("partita logger: REPORT_APPLICATION_MESSAGE refused ({e:?}): {line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lines_pass_unchanged() {
        assert_eq!(fit("INFO x: hi", 128), ("INFO x: hi".to_string(), false));
        let exact = "a".repeat(128);
        assert_eq!(fit(&exact, 128), (exact.clone(), false));
    }

    #[test]
    fn long_lines_are_cut_visibly_at_the_limit() {
        let long = format!("WARN t: {}", "x".repeat(300));
        let (m, cut) = fit(&long, 128);
        assert!(cut);
        assert_eq!(m.len(), 128);
        assert!(m.starts_with("WARN t: xxx"));
        assert!(m.ends_with(TRUNCATED_MARKER));
    }

    #[test]
    fn the_cut_respects_character_boundaries() {
        // 'é' is two bytes: a cut in its middle moves before it.
        let long = format!("INFO t: {}", "é".repeat(100));
        let (m, cut) = fit(&long, 128);
        assert!(cut);
        assert!(m.len() <= 128, "{}", m.len());
        assert!(m.ends_with(TRUNCATED_MARKER));
        let body = m.strip_suffix(TRUNCATED_MARKER).unwrap();
        assert!(body.ends_with('é'));
    }
}
