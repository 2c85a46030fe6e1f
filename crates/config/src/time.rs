// SPDX-License-Identifier: MIT OR Apache-2.0
//! Exact decimal-seconds arithmetic.
//!
//! Configuration times are written as decimal seconds (`"0.05"`, `"1"`, `".25"`) and converted
//! to integer nanoseconds without ever going through floating point, so `"0.1"` is exactly
//! 100 000 000 ns. At most nine decimal places are accepted; exponent forms (`"1e-3"`) are
//! rejected.

use partita_schedule::Nanos;

/// Nanoseconds in one second.
pub const NANOS_PER_SECOND: Nanos = 1_000_000_000;

/// Maximum number of decimal places of a time (nanosecond resolution).
pub const MAX_DECIMALS: usize = 9;

/// Why a time string was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeError {
    /// The value is empty (or only white space).
    #[error("the value is empty")]
    Empty,
    /// The value is negative.
    #[error("times cannot be negative")]
    Negative,
    /// The value uses exponent notation (`1e-3`).
    #[error("exponent notation is not supported")]
    Exponent,
    /// The value has more than nine decimal places.
    #[error("{0} decimal places; at most 9 (nanoseconds) are allowed")]
    TooPrecise(usize),
    /// The value contains a character that is not part of a decimal number.
    #[error("unexpected character {0:?}")]
    InvalidChar(char),
    /// The value has no digits (`"."`, `"+"`).
    #[error("no digits")]
    NoDigits,
    /// The value does not fit in 64-bit nanoseconds (about 584 years).
    #[error("the value is too large")]
    Overflow,
}

/// Parses decimal seconds (`"0.05"`, `"2"`, `"1."`, `".5"`, optional leading `+`, surrounding
/// white space ignored) exactly into nanoseconds.
///
/// ```
/// use partita_config::time::parse_seconds;
/// assert_eq!(parse_seconds("0.05"), Ok(50_000_000));
/// assert_eq!(parse_seconds("1.000000001"), Ok(1_000_000_001));
/// assert!(parse_seconds("1e-3").is_err());
/// ```
pub fn parse_seconds(text: &str) -> Result<Nanos, TimeError> {
    let s = text.trim();
    if s.is_empty() {
        return Err(TimeError::Empty);
    }
    if s.starts_with('-') {
        return Err(TimeError::Negative);
    }
    let s = s.strip_prefix('+').unwrap_or(s);
    if s.contains(['e', 'E']) && s.chars().all(|c| c.is_ascii_digit() || "eE.+-".contains(c)) {
        return Err(TimeError::Exponent);
    }
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, f),
        None => (s, ""),
    };
    if let Some(c) = int
        .chars()
        .chain(frac.chars())
        .find(|c| !c.is_ascii_digit())
    {
        return Err(TimeError::InvalidChar(c));
    }
    if int.is_empty() && frac.is_empty() {
        return Err(TimeError::NoDigits);
    }
    if frac.len() > MAX_DECIMALS {
        return Err(TimeError::TooPrecise(frac.len()));
    }
    let mut seconds: Nanos = 0;
    for d in int.bytes() {
        seconds = seconds
            .checked_mul(10)
            .and_then(|v| v.checked_add(Nanos::from(d - b'0')))
            .ok_or(TimeError::Overflow)?;
    }
    let mut nanos: Nanos = 0;
    for i in 0..MAX_DECIMALS {
        let d = frac.as_bytes().get(i).map_or(0, |d| d - b'0');
        nanos = nanos * 10 + Nanos::from(d);
    }
    seconds
        .checked_mul(NANOS_PER_SECOND)
        .and_then(|v| v.checked_add(nanos))
        .ok_or(TimeError::Overflow)
}

/// Formats nanoseconds as canonical decimal seconds (`50_000_000` → `"0.05"`), the inverse of
/// [`parse_seconds`].
pub fn format_seconds(ns: Nanos) -> String {
    let (s, frac) = (ns / NANOS_PER_SECOND, ns % NANOS_PER_SECOND);
    if frac == 0 {
        return s.to_string();
    }
    let digits = format!("{frac:09}");
    format!("{s}.{}", digits.trim_end_matches('0'))
}

/// Formats nanoseconds for humans with a unit (`"50ms"`, `"1.5s"`, `"250us"`, `"0"`).
pub fn format_duration(ns: Nanos) -> String {
    fn scaled(ns: Nanos, unit: Nanos, decimals: usize, suffix: &str) -> String {
        let whole = ns / unit;
        let frac = ns % unit;
        if frac == 0 {
            return format!("{whole}{suffix}");
        }
        let digits = format!("{frac:0decimals$}");
        format!("{whole}.{}{suffix}", digits.trim_end_matches('0'))
    }
    match ns {
        0 => "0".to_string(),
        n if n >= NANOS_PER_SECOND => scaled(n, NANOS_PER_SECOND, 9, "s"),
        n if n >= 1_000_000 => scaled(n, 1_000_000, 6, "ms"),
        n if n >= 1_000 => scaled(n, 1_000, 3, "us"),
        n => format!("{n}ns"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_exact_values() {
        assert_eq!(parse_seconds("0"), Ok(0));
        assert_eq!(parse_seconds("1"), Ok(NANOS_PER_SECOND));
        assert_eq!(parse_seconds("0.1"), Ok(100_000_000));
        assert_eq!(parse_seconds("0.05"), Ok(50_000_000));
        assert_eq!(parse_seconds(" 0.020 "), Ok(20_000_000));
        assert_eq!(parse_seconds("+2.5"), Ok(2_500_000_000));
        assert_eq!(parse_seconds(".5"), Ok(500_000_000));
        assert_eq!(parse_seconds("3."), Ok(3 * NANOS_PER_SECOND));
        assert_eq!(parse_seconds("0.000000001"), Ok(1));
        assert_eq!(parse_seconds("007.000000100"), Ok(7_000_000_100));
        assert_eq!(parse_seconds("18446744073.709551615"), Ok(u64::MAX));
    }

    #[test]
    fn rejects_bad_values() {
        assert_eq!(parse_seconds(""), Err(TimeError::Empty));
        assert_eq!(parse_seconds("  "), Err(TimeError::Empty));
        assert_eq!(parse_seconds("-1"), Err(TimeError::Negative));
        assert_eq!(parse_seconds("1e-3"), Err(TimeError::Exponent));
        assert_eq!(parse_seconds("5E2"), Err(TimeError::Exponent));
        assert_eq!(
            parse_seconds("0.0000000001"),
            Err(TimeError::TooPrecise(10))
        );
        assert_eq!(parse_seconds("1.2.3"), Err(TimeError::InvalidChar('.')));
        assert_eq!(parse_seconds("10ms"), Err(TimeError::InvalidChar('m')));
        assert_eq!(parse_seconds("1,5"), Err(TimeError::InvalidChar(',')));
        assert_eq!(parse_seconds("."), Err(TimeError::NoDigits));
        assert_eq!(parse_seconds("+"), Err(TimeError::NoDigits));
        assert_eq!(
            parse_seconds("18446744073.709551616"),
            Err(TimeError::Overflow)
        );
        assert_eq!(
            parse_seconds("99999999999999999999999"),
            Err(TimeError::Overflow)
        );
        assert_eq!(parse_seconds("inf"), Err(TimeError::InvalidChar('i')));
    }

    #[test]
    fn formats() {
        assert_eq!(format_seconds(0), "0");
        assert_eq!(format_seconds(50_000_000), "0.05");
        assert_eq!(format_seconds(1_000_000_001), "1.000000001");
        assert_eq!(format_duration(50_000_000), "50ms");
        assert_eq!(format_duration(1_500_000), "1.5ms");
        assert_eq!(format_duration(2 * NANOS_PER_SECOND), "2s");
        assert_eq!(format_duration(250_000), "250us");
        assert_eq!(format_duration(12), "12ns");
    }
}
