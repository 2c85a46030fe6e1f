// SPDX-License-Identifier: MIT OR Apache-2.0
//! Input bounds of the configuration front end: every configuration is held to them before
//! (or while) it is parsed, so that no input can exhaust the stack, the memory or the time of
//! `partita check` / `partita run`, and no value wraps, saturates or truncates silently.
//!
//! | bound | value | rule |
//! |---|---:|---|
//! | configuration file size | [`MAX_FILE_BYTES`] (4 MiB) | `xml-too-large` |
//! | element nesting depth | [`MAX_NESTING_DEPTH`] (32) | `xml-too-deep` |
//! | XML nodes (elements, text, comments, ...) | [`MAX_NODES`] (200 000) | `xml-too-large` |
//! | one attribute value or `partita:Arg` text | [`MAX_VALUE_BYTES`] (4096) | `xml-too-large` |
//! | any time (`...Seconds`) | [`crate::time::MAX_SECONDS`] (one year) | `bad-time` |
//! | any byte size (`memoryBytes`, `stackBytes`, `SizeBytes`) | [`MAX_SIZE_BYTES`] (1 TiB) | `bad-number` |
//! | periods of a partition in a major frame | [`MAX_PERIODS_PER_FRAME`] (1 000 000) | `too-many-periods` |
//!
//! The ARINC 653 system limits (`SYSTEM_LIMIT_*` of `ARINC653.h`: message size, messages
//! per queue, partitions, ports per partition) are in [`system`] (rule `system-limit`).
//!
//! A partition without a configured memory limit gets [`DEFAULT_MEMORY_BYTES`] (1 GiB).
//!
//! A module needs about six levels of nesting and a few hundred nodes; the bounds leave a wide
//! margin while keeping the parser's recursion (roxmltree's tokenizer recurses once per nested
//! element) and its node table small.

/// The ARINC 653 system limits of `include/ARINC653.h` (`SYSTEM_LIMIT_*`) that a configuration
/// must respect, enforced by the `system-limit` rule and by the plan loader, so that `check`
/// refuses what the partition runtime would refuse. `crates/config/tests/bounds.rs` checks
/// that they equal the header's constants.
pub mod system {
    /// `SYSTEM_LIMIT_MESSAGE_SIZE`: the largest `MaxMessageSize` of a port, bytes.
    pub const MESSAGE_SIZE: u32 = 8192;
    /// `SYSTEM_LIMIT_NUMBER_OF_MESSAGES`: the largest `MaxNbMessages` of a queuing port.
    pub const NUMBER_OF_MESSAGES: u32 = 512;
    /// `SYSTEM_LIMIT_NUMBER_OF_PARTITIONS`: the most partitions in a module.
    pub const NUMBER_OF_PARTITIONS: usize = 32;
    /// `SYSTEM_LIMIT_NUMBER_OF_SAMPLING_PORTS`: the most sampling ports of a partition.
    pub const NUMBER_OF_SAMPLING_PORTS: usize = 512;
    /// `SYSTEM_LIMIT_NUMBER_OF_QUEUING_PORTS`: the most queuing ports of a partition.
    pub const NUMBER_OF_QUEUING_PORTS: usize = 512;
}

/// Largest configuration file read (bytes).
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// Deepest element nesting accepted (the root element is depth 1).
pub const MAX_NESTING_DEPTH: usize = 32;

/// Most XML nodes in one configuration.
pub const MAX_NODES: u32 = 200_000;

/// Longest attribute value (or `partita:Arg` text), in bytes: `PATH_MAX` on Linux.
pub const MAX_VALUE_BYTES: usize = 4096;

/// Most periods of one partition in a major frame (`MajorFrameSeconds / PeriodSeconds`): the
/// per-period supply check walks every period, so a one-year frame of 1 ms periods would take
/// minutes and gigabytes (rule `too-many-periods`).
pub const MAX_PERIODS_PER_FRAME: u64 = 1_000_000;

/// Largest byte size (`memoryBytes`, `stackBytes`, `SizeBytes`): 1 TiB. Sums of sizes are
/// checked too.
pub const MAX_SIZE_BYTES: u64 = 1 << 40;

/// Memory limit of a partition whose configuration gives none (neither
/// `partita:Resources memoryBytes` nor `Partition_Memory`): 1 GiB. A partition is never run
/// without a limit, so one that allocates without end is killed inside its own cgroup
/// (MEMORY_VIOLATION) instead of exhausting the host.
pub const DEFAULT_MEMORY_BYTES: u64 = 1 << 30;

/// Why `name` cannot be used as a name (rule `unsafe-name`), or `None` when it can. Names
/// become file names (`--log-dir D/<partition>.log`), cgroup directory names and
/// shared-memory object names, so they are held to ASCII letters, digits, `_`, `-` and `.`,
/// not empty and not starting with `.` (which excludes `.`, `..` and hidden files); `/`, NUL,
/// control characters and white space can never reach the file system.
pub fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("the name is empty".into());
    }
    if name.starts_with('.') {
        return Some("a name cannot start with `.`".into());
    }
    name.chars()
        .find(|&c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .map(|c| format!("the character {c:?} is not allowed in a name"))
}

/// Largest file [`read_bounded`] returns in full: an XML configuration or a plan file (whose
/// JSON payload is larger than the XML it was compiled from).
pub const MAX_READ_BYTES: u64 = 4 * MAX_FILE_BYTES;

/// Reads at most [`MAX_READ_BYTES`] + 1 bytes of `path`, so that a huge file (or a device such
/// as `/dev/zero`) cannot exhaust the memory; the caller sees a file larger than the bound
/// and refuses it.
pub fn read_bounded(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_READ_BYTES + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Byte offset of the first start tag that is nested deeper than [`MAX_NESTING_DEPTH`], found
/// by a linear scan that never recurses. The scan follows XML's lexical structure (comments,
/// CDATA sections, processing instructions, the document type declaration and quoted
/// attribute values hide `<` and `>`), so it counts exactly the elements an XML parser would
/// descend into; on malformed input it may count differently only after the point where the
/// parser stops with a syntax error.
pub(crate) fn first_too_deep(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let find = |from: usize, pat: &[u8]| -> usize {
        b.get(from..)
            .and_then(|rest| rest.windows(pat.len()).position(|w| w == pat))
            .map_or(b.len(), |i| from + i + pat.len())
    };
    let mut depth = 0usize;
    let mut i = 0usize;
    while i < b.len() {
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        let rest = &b[i..];
        if rest.starts_with(b"<!--") {
            i = find(i + 4, b"-->");
        } else if rest.starts_with(b"<![CDATA[") {
            i = find(i + 9, b"]]>");
        } else if rest.starts_with(b"<?") {
            i = find(i + 2, b"?>");
        } else if rest.starts_with(b"<!") {
            // Document type declaration: ends at the first `>` outside its `[...]` subset.
            let mut j = i + 2;
            let mut in_subset = false;
            while j < b.len() && (in_subset || b[j] != b'>') {
                match b[j] {
                    b'[' => in_subset = true,
                    b']' => in_subset = false,
                    _ => {}
                }
                j += 1;
            }
            i = j + 1;
        } else if rest.starts_with(b"</") {
            depth = depth.saturating_sub(1);
            i = find(i + 2, b">");
        } else {
            // Start tag: up to the first `>` outside a quoted attribute value.
            let start = i;
            let mut j = i + 1;
            let mut quote = None;
            while j < b.len() {
                match (quote, b[j]) {
                    (None, b'>') => break,
                    (None, q @ (b'"' | b'\'')) => quote = Some(q),
                    (Some(q), c) if c == q => quote = None,
                    _ => {}
                }
                j += 1;
            }
            let self_closing = j > i + 1 && b.get(j - 1) == Some(&b'/');
            if !self_closing {
                depth += 1;
                if depth > MAX_NESTING_DEPTH {
                    return Some(start);
                }
            }
            i = j + 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(n: usize) -> String {
        format!("{}{}", "<a>".repeat(n), "</a>".repeat(n))
    }

    #[test]
    fn counts_only_real_elements() {
        assert_eq!(first_too_deep(&nested(MAX_NESTING_DEPTH)), None);
        assert_eq!(
            first_too_deep(&nested(MAX_NESTING_DEPTH + 1)),
            Some(3 * MAX_NESTING_DEPTH)
        );
        let hidden = "<a>".repeat(100);
        for wrapped in [
            format!("<r><!--{hidden}--></r>"),
            format!("<r><![CDATA[{hidden}]]></r>"),
            format!("<?pi {hidden}?><r/>"),
            format!("<!DOCTYPE r [{hidden}]><r/>"),
            format!("<r x=\"{hidden}\" y='>{hidden}'/>"),
            "<r/>".repeat(1000),
            format!("<r>{}</r>", "<b/>".repeat(1000)),
        ] {
            assert_eq!(first_too_deep(&wrapped), None, "{wrapped}");
        }
    }

    #[test]
    fn names_safe_for_the_file_system() {
        for good in ["P1", "NAV_FILTER", "a-b.c", "x.."] {
            assert_eq!(name_problem(good), None, "{good}");
        }
        for bad in [
            "", ".", "..", ".hidden", "../x", "a/b", "a\0b", "a b", "a\tb", "é", "a\\b",
        ] {
            assert!(name_problem(bad).is_some(), "{bad:?}");
        }
    }

    #[test]
    fn unterminated_constructs_end_the_scan() {
        for text in [
            "<a",
            "<!--",
            "<![CDATA[",
            "<?",
            "<!DOCTYPE [",
            "</",
            "<a x='",
        ] {
            assert_eq!(first_too_deep(text), None, "{text}");
        }
        assert!(first_too_deep(&"<a>".repeat(200_000)).is_some());
    }
}
