// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita trace FILE`: converts a trace written by `partita run --trace` to Perfetto JSON,
//! CSV, a text summary or an SVG timeline, of the whole run or of a span, core or partition.
//!
//! Exit codes: 0 success; 2 bad command line (also a selection the trace cannot satisfy: an
//! unknown partition or core, an empty span); 3 unreadable/unwritable file or corrupt plan
//! (here: a trace file that cannot be read, is not a trace or is corrupt, or an output that
//! cannot be written).

use crate::exit::ExitStatus;
use partita_trace::{Format, Selection, Span, Trace, ViewError};
use std::io::Write;
use std::path::{Path, PathBuf};

/// What `partita trace` was asked.
pub struct Options {
    /// The trace file.
    pub file: PathBuf,
    /// The output format.
    pub format: Format,
    /// Where to write (default: stdout).
    pub output: Option<PathBuf>,
    /// What to convert.
    pub selection: Selection,
}

/// A command-line time after the epoch: a duration (`20ms`), negative with a leading `-`.
pub fn parse_offset(s: &str) -> Result<i64, crate::DurationError> {
    let t = s.trim();
    let (sign, rest) = match t.strip_prefix('-') {
        Some(r) => (-1, r),
        None => (1, t),
    };
    let d = crate::parse_duration(rest)?;
    Ok(sign * i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// The span from `--from`/`--to` or `--frames`.
pub fn span(from: Option<i64>, to: Option<i64>, frames: Option<Span>) -> Span {
    match frames {
        Some(f) => f,
        None if from.is_none() && to.is_none() => Span::All,
        None => Span::Time {
            from_ns: from,
            to_ns: to,
        },
    }
}

/// `partita trace`.
pub fn main(o: &Options) -> ExitStatus {
    let trace = match Trace::read(&o.file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("partita trace: {e}");
            return ExitStatus::FileError;
        }
    };
    let part = match trace.select(&o.selection) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("partita trace: {}: {e}", o.file.display());
            return status_of(&e);
        }
    };
    let written = match &o.output {
        Some(path) => write_file(path, &part, o.format),
        None => {
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            partita_trace::convert(&part, o.format, &mut out)
                .and_then(|()| out.flush().map_err(ViewError::from))
        }
    };
    match written {
        Ok(()) => {
            if let Some(path) = &o.output {
                eprintln!(
                    "wrote {} ({} events{})",
                    path.display(),
                    part.events.len(),
                    if part.lost() + part.refused() > 0 || part.truncated_tail > 0 {
                        ", incomplete trace: see `partita trace FILE` for what is missing"
                    } else {
                        ""
                    }
                );
            }
            ExitStatus::Success
        }
        Err(e @ (ViewError::NoSchedule { .. } | ViewError::TooManyFrames { .. })) => {
            eprintln!("partita trace: {}: {e}", o.file.display());
            ExitStatus::FileError
        }
        Err(e) => {
            eprintln!(
                "partita trace: {}: {e}",
                o.output
                    .as_deref()
                    .map_or_else(|| "stdout".into(), |p| p.display().to_string())
            );
            ExitStatus::FileError
        }
    }
}

/// A selection the trace cannot satisfy is a bad command line; the rest is the file's fault.
fn status_of(e: &ViewError) -> ExitStatus {
    match e {
        ViewError::UnknownPartition { .. }
        | ViewError::UnknownCore { .. }
        | ViewError::EmptySpan { .. }
        | ViewError::BadFrames { .. } => ExitStatus::BadCommandLine,
        ViewError::Trace(_)
        | ViewError::NoSchedule { .. }
        | ViewError::TooManyFrames { .. }
        | ViewError::Write(_) => ExitStatus::FileError,
    }
}

fn write_file(path: &Path, trace: &Trace, format: Format) -> Result<(), ViewError> {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    partita_trace::convert(trace, format, &mut out)?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_may_be_negative() {
        assert_eq!(parse_offset("20ms").unwrap(), 20_000_000);
        assert_eq!(parse_offset("-1.5ms").unwrap(), -1_500_000);
        assert!(parse_offset("soon").is_err());
    }

    #[test]
    fn the_span_comes_from_frames_or_times() {
        assert_eq!(span(None, None, None), Span::All);
        assert_eq!(
            span(Some(1), None, None),
            Span::Time {
                from_ns: Some(1),
                to_ns: None
            }
        );
        let f = Span::Frames { first: 1, end: 2 };
        assert_eq!(span(None, None, Some(f)), f);
    }
}
