// SPDX-License-Identifier: MIT OR Apache-2.0
//! The port directory: what the partition manager tells a partition's runtime about its
//! ports (names, kinds, directions, sizes, and the descriptor numbers of their shared memory).
//!
//! It travels in a read-only memfd passed as descriptor [`PORT_DIR_FD`] (named by the
//! environment variable [`ENV_PORTS_FD`]), as text: a first line `partita-ports 1`, then one
//! line per port:
//!
//! ```text
//! port <S|Q> <SOURCE|DESTINATION> <max size> <capacity> <refresh ns|-1> <data fd> <state fd|-1> <channel id> <name as hex>
//! ```
//!
//! `capacity` is `MaxNbMessages` for queuing ports (0 for sampling ports). The name is
//! hex-encoded so that any configured name survives the format.

use partita_abi::port::PORT_DIRECTORY_HEADER as HEADER;
pub use partita_abi::port::{ENV_PORTS_FD, FIRST_PORT_FD, PORT_DIR_FD};

/// One port of a partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortEntry {
    /// Port name.
    pub name: String,
    /// `true` for a sampling port, `false` for a queuing port.
    pub sampling: bool,
    /// `true` when the partition writes.
    pub source: bool,
    /// `MaxMessageSize`.
    pub max_message_size: u32,
    /// `MaxNbMessages` (queuing), 0 for sampling ports.
    pub capacity: u32,
    /// `RefreshRateSeconds` in ns (sampling destinations), if any.
    pub refresh_ns: Option<i64>,
    /// Descriptor of the channel's data area (read-write for a source, read-only otherwise).
    pub data_fd: i32,
    /// Descriptor of the queue's read state (read-write for a destination, read-only for a
    /// source); none for sampling ports.
    pub state_fd: Option<i32>,
    /// `ChannelIdentifier`.
    pub channel: u32,
}

/// Serialises a directory.
pub fn encode(entries: &[PortEntry]) -> String {
    let mut s = format!("{HEADER}\n");
    for e in entries {
        let hex: String = e.name.bytes().map(|b| format!("{b:02x}")).collect();
        s += &format!(
            "port {} {} {} {} {} {} {} {} {}\n",
            if e.sampling { "S" } else { "Q" },
            if e.source { "SOURCE" } else { "DESTINATION" },
            e.max_message_size,
            e.capacity,
            e.refresh_ns.unwrap_or(-1),
            e.data_fd,
            e.state_fd.unwrap_or(-1),
            e.channel,
            if hex.is_empty() { "-".into() } else { hex }
        );
    }
    s
}

/// Why a port directory could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DirectoryError {
    /// The first line is not the format header.
    #[error("port directory does not start with `{HEADER}`")]
    MissingHeader,
    /// A port line is malformed.
    #[error("port directory line {line}: `{text}`")]
    BadLine {
        /// Line number, from 1 (the header is line 1).
        line: usize,
        /// The line as found.
        text: String,
    },
}

/// Parses a directory; the error names the offending line.
pub fn decode(text: &str) -> Result<Vec<PortEntry>, DirectoryError> {
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return Err(DirectoryError::MissingHeader);
    }
    let mut v = Vec::new();
    for (n, line) in lines.enumerate() {
        if line.is_empty() {
            continue;
        }
        let bad = || DirectoryError::BadLine {
            line: n + 2,
            text: line.to_string(),
        };
        let f: Vec<&str> = line.split(' ').collect();
        if f.len() != 10 || f[0] != "port" {
            return Err(bad());
        }
        let num = |s: &str| s.parse::<i64>().map_err(|_| bad());
        let name_hex = if f[9] == "-" { "" } else { f[9] };
        if name_hex.len() % 2 != 0 {
            return Err(bad());
        }
        let bytes: Result<Vec<u8>, _> = (0..name_hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&name_hex[i..i + 2], 16))
            .collect();
        let name = String::from_utf8(bytes.map_err(|_| bad())?).map_err(|_| bad())?;
        let refresh = num(f[5])?;
        let state = num(f[7])?;
        v.push(PortEntry {
            name,
            sampling: match f[1] {
                "S" => true,
                "Q" => false,
                _ => return Err(bad()),
            },
            source: match f[2] {
                "SOURCE" => true,
                "DESTINATION" => false,
                _ => return Err(bad()),
            },
            max_message_size: u32::try_from(num(f[3])?).map_err(|_| bad())?,
            capacity: u32::try_from(num(f[4])?).map_err(|_| bad())?,
            refresh_ns: (refresh >= 0).then_some(refresh),
            data_fd: i32::try_from(num(f[6])?).map_err(|_| bad())?,
            state_fd: (state >= 0)
                .then(|| i32::try_from(state).map_err(|_| bad()))
                .transpose()?,
            channel: u32::try_from(num(f[8])?).map_err(|_| bad())?,
        });
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let e = vec![
            PortEntry {
                name: "a port/ü".into(),
                sampling: true,
                source: false,
                max_message_size: 64,
                capacity: 0,
                refresh_ns: Some(20_000_000),
                data_fd: 17,
                state_fd: None,
                channel: 3,
            },
            PortEntry {
                name: "Q".into(),
                sampling: false,
                source: true,
                max_message_size: 8,
                capacity: 4,
                refresh_ns: None,
                data_fd: 18,
                state_fd: Some(19),
                channel: 4,
            },
        ];
        assert_eq!(decode(&encode(&e)).unwrap(), e);
        assert_eq!(decode("nope"), Err(DirectoryError::MissingHeader));
        let short = "port X SOURCE 1 0 -1 17 -1 1 41";
        assert_eq!(
            decode(&format!("partita-ports 1\n{short}")),
            Err(DirectoryError::BadLine {
                line: 2,
                text: short.into()
            })
        );
    }
}
