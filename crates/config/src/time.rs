// SPDX-License-Identifier: MIT OR Apache-2.0
//! Exact decimal-seconds arithmetic.
//!
//! Configuration times are written as decimal seconds (`"0.05"`, `"1"`, `".25"`) and converted
//! to integer nanoseconds without ever going through floating point, so `"0.1"` is exactly
//! 100 000 000 ns. At most nine decimal places are accepted; exponent forms (`"1e-3"`) are
//! rejected.
//!
//! Every time and duration, in the configuration and on the command line, is at most
//! [`MAX_SECONDS`] (365 days): a larger value is refused where it is parsed, never wrapped,
//! saturated or truncated, and sums of a few thousand such values still fit in 64-bit
//! nanoseconds.

use partita_schedule::Nanos;

/// Nanoseconds in one second.
pub const NANOS_PER_SECOND: Nanos = 1_000_000_000;

/// Maximum number of decimal places of a time (nanosecond resolution).
pub const MAX_DECIMALS: usize = 9;

/// Largest time or duration accepted anywhere, in seconds: 365 days.
pub const MAX_SECONDS: u64 = 365 * 24 * 3600;

/// [`MAX_SECONDS`] in nanoseconds.
pub const MAX_NANOS: Nanos = MAX_SECONDS * NANOS_PER_SECOND;

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
    /// The value is larger than [`MAX_SECONDS`].
    #[error("the value is larger than the maximum of {MAX_SECONDS} s (365 days)")]
    TooLarge,
    /// A command-line duration has a unit other than ns, us, ms, s, m, min, h.
    #[error("unknown unit `{0}` (ns, us, ms, s, m, min, h)")]
    UnknownUnit(String),
    /// A command-line duration is finer than a nanosecond (`1.5ns`).
    #[error("finer than a nanosecond")]
    SubNanosecond,
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
    let (int, frac) = split_decimal(text)?;
    if frac.len() > MAX_DECIMALS {
        return Err(TimeError::TooPrecise(frac.len()));
    }
    let seconds = decimal_digits(int, MAX_SECONDS)?;
    let mut nanos: Nanos = 0;
    for i in 0..MAX_DECIMALS {
        let d = frac.as_bytes().get(i).map_or(0, |d| d - b'0');
        nanos = nanos * 10 + Nanos::from(d);
    }
    let total = seconds * NANOS_PER_SECOND + nanos;
    if total > MAX_NANOS {
        return Err(TimeError::TooLarge);
    }
    Ok(total)
}

/// The integer and fraction digits of a non-negative decimal number (white space around it
/// ignored, optional leading `+`).
fn split_decimal(text: &str) -> Result<(&str, &str), TimeError> {
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
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
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
    Ok((int, frac))
}

/// The value of the ASCII digits `digits`, refused as [`TimeError::TooLarge`] past `max`.
fn decimal_digits(digits: &str, max: u64) -> Result<u64, TimeError> {
    let mut v: u64 = 0;
    for d in digits.bytes() {
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(d - b'0')))
            .filter(|&v| v <= max)
            .ok_or(TimeError::TooLarge)?;
    }
    Ok(v)
}

/// Parses a command-line duration: a decimal number and a unit (`"5s"`, `"500ms"`, `"2m"`,
/// `"1.5h"`, `"250us"`, `"10ns"`; no unit means seconds), exactly into nanoseconds. Refuses
/// values above [`MAX_SECONDS`] and values finer than a nanosecond.
///
/// ```
/// use partita_config::time::{parse_duration, TimeError};
/// assert_eq!(parse_duration("1.5ms"), Ok(1_500_000));
/// assert_eq!(parse_duration("18446744073709551616s"), Err(TimeError::TooLarge));
/// ```
pub fn parse_duration(text: &str) -> Result<Nanos, TimeError> {
    let s = text.trim();
    let (number, unit) = match s.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, "s"),
    };
    let scale: Nanos = match unit {
        "ns" => 1,
        "us" => 1_000,
        "ms" => 1_000_000,
        "s" => NANOS_PER_SECOND,
        "m" | "min" => 60 * NANOS_PER_SECOND,
        "h" => 3600 * NANOS_PER_SECOND,
        _ => return Err(TimeError::UnknownUnit(unit.to_string())),
    };
    let (int, frac) = split_decimal(number)?;
    let whole = decimal_digits(int, MAX_NANOS / scale)? * scale;
    // The fraction, exactly: its significant digits times the scale must be whole nanoseconds.
    let frac = frac.trim_end_matches('0');
    if frac.len() > 18 {
        return Err(TimeError::SubNanosecond);
    }
    let numerator = u128::from(decimal_digits(frac, u64::MAX)?) * u128::from(scale);
    let denominator = 10u128.pow(frac.len() as u32);
    if numerator % denominator != 0 {
        return Err(TimeError::SubNanosecond);
    }
    let total = u128::from(whole) + numerator / denominator;
    match Nanos::try_from(total) {
        Ok(ns) if ns <= MAX_NANOS => Ok(ns),
        _ => Err(TimeError::TooLarge),
    }
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
        assert_eq!(parse_seconds("31536000"), Ok(MAX_NANOS));
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
            parse_seconds("31536000.000000001"),
            Err(TimeError::TooLarge)
        );
        assert_eq!(
            parse_seconds("18446744073.709551616"),
            Err(TimeError::TooLarge)
        );
        assert_eq!(
            parse_seconds("99999999999999999999999"),
            Err(TimeError::TooLarge)
        );
        assert_eq!(parse_seconds("inf"), Err(TimeError::InvalidChar('i')));
    }

    #[test]
    fn parses_command_line_durations() {
        assert_eq!(parse_duration("5"), Ok(5 * NANOS_PER_SECOND));
        assert_eq!(parse_duration("500ms"), Ok(500_000_000));
        assert_eq!(parse_duration("2m"), Ok(120 * NANOS_PER_SECOND));
        assert_eq!(parse_duration("1.5h"), Ok(5400 * NANOS_PER_SECOND));
        assert_eq!(parse_duration("0.001us"), Ok(1));
        assert_eq!(parse_duration(" 10ns "), Ok(10));
        assert_eq!(parse_duration("8760h"), Ok(MAX_NANOS));
        assert_eq!(parse_duration("0s"), Ok(0));
        assert_eq!(
            parse_duration("1.50000000000000000000000s"),
            Ok(1_500_000_000)
        );
        for too_large in [
            "18446744073709551616s",
            "18446744073s",
            "8760.001h",
            "31536001",
        ] {
            assert_eq!(
                parse_duration(too_large),
                Err(TimeError::TooLarge),
                "{too_large}"
            );
        }
        assert_eq!(parse_duration("1.5ns"), Err(TimeError::SubNanosecond));
        assert_eq!(
            parse_duration("0.0000000001s"),
            Err(TimeError::SubNanosecond)
        );
        assert_eq!(parse_duration("-1s"), Err(TimeError::Negative));
        assert_eq!(
            parse_duration("5d"),
            Err(TimeError::UnknownUnit("d".into()))
        );
        assert_eq!(parse_duration("s"), Err(TimeError::Empty));
        assert_eq!(parse_duration("1,5s"), Err(TimeError::InvalidChar(',')));
        assert_eq!(
            parse_duration("NaNs"),
            Err(TimeError::UnknownUnit("NaNs".into()))
        );
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
