// SPDX-License-Identifier: MIT OR Apache-2.0
//! The module file as text: where its partitions and processes are (for error messages), and
//! writing a synthesised `Module_Schedule` back into it while keeping every other byte.

use partita_config::model::{ValidatedModule, PARTITA_NS};
use partita_config::time::format_seconds;
use partita_schedule::{FramePlan, Nanos};
use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Positions found in the module text.
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    partitions: HashMap<u32, (u32, u32)>,
    processes: HashMap<(u32, String), (u32, u32)>,
    schedules: Vec<Range<usize>>,
    root_close: Option<usize>,
    indent: String,
    prefix_in_root: Option<String>,
}

impl SourceMap {
    /// Reads the positions from `text` (which must be well-formed XML; a file that validated
    /// is). Returns `None` when it does not parse.
    pub fn new(text: &str) -> Option<SourceMap> {
        let doc = roxmltree::Document::parse(text).ok()?;
        let root = doc.root_element();
        let pos = |n: roxmltree::Node| {
            let p = doc.text_pos_at(n.range().start);
            (p.row, p.col)
        };
        let mut map = SourceMap {
            prefix_in_root: root.lookup_prefix(PARTITA_NS).map(str::to_string),
            ..SourceMap::default()
        };
        let close = text[..root.range().end].rfind("</");
        map.root_close = close.filter(|&c| c > root.range().start);
        for c in root.children().filter(|c| c.is_element()) {
            let ns = c.tag_name().namespace();
            match c.tag_name().name() {
                "Partition" if ns != Some(PARTITA_NS) => {
                    if map.indent.is_empty() {
                        let start = c.range().start;
                        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
                        let lead = &text[line_start..start];
                        if lead.chars().all(|ch| ch == ' ' || ch == '\t') {
                            map.indent = lead.to_string();
                        }
                    }
                    let Some(id) = c
                        .attribute("PartitionIdentifier")
                        .and_then(|v| v.trim().parse().ok())
                    else {
                        continue;
                    };
                    map.partitions.insert(id, pos(c));
                    for pr in c.children().filter(|x| {
                        x.is_element()
                            && x.tag_name().namespace() == Some(PARTITA_NS)
                            && x.tag_name().name() == "Process"
                    }) {
                        if let Some(name) = pr.attribute("name") {
                            map.processes.insert((id, name.to_string()), pos(pr));
                        }
                    }
                }
                "Module_Schedule" if ns != Some(PARTITA_NS) => map.schedules.push(c.range()),
                _ => {}
            }
        }
        if map.indent.is_empty() {
            map.indent = "  ".into();
        }
        Some(map)
    }

    /// Line and column of the partition with this identifier (1:1 when unknown).
    pub fn partition_pos(&self, id: u32) -> (u32, u32) {
        self.partitions.get(&id).copied().unwrap_or((1, 1))
    }

    /// Line and column of a `partita:Process`.
    pub fn process_pos(&self, partition_id: u32, name: &str) -> Option<(u32, u32)> {
        self.processes
            .get(&(partition_id, name.to_string()))
            .copied()
    }

    /// Number of `Module_Schedule` elements in the file.
    pub fn schedule_count(&self) -> usize {
        self.schedules.len()
    }

    /// `text` with its `Module_Schedule` elements replaced by `schedule` (the first one takes
    /// its place, the others are removed), or `schedule` inserted before the root's end tag.
    pub fn splice(&self, text: &str, schedule: &str) -> String {
        let mut out = String::with_capacity(text.len() + schedule.len());
        if let Some(first) = self.schedules.first() {
            // Remove every schedule after the first, replace the first.
            let mut cursor = 0;
            for (i, r) in self.schedules.iter().enumerate() {
                out.push_str(&text[cursor..r.start]);
                if i == 0 {
                    out.push_str(schedule.trim_start());
                } else {
                    // Drop the blank line the removed element leaves when it stood alone.
                    trim_trailing_blank(&mut out);
                }
                cursor = r.end;
            }
            let _ = first;
            out.push_str(&text[cursor..]);
            return out;
        }
        let close = self.root_close.unwrap_or(text.len());
        let line_start = text[..close].rfind('\n').map_or(0, |i| i + 1);
        let at = if text[line_start..close].trim().is_empty() {
            line_start
        } else {
            close
        };
        out.push_str(&text[..at]);
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&self.indent);
        out.push_str(schedule.trim_start());
        out.push('\n');
        out.push_str(&text[at..]);
        out
    }

    /// Renders a `Module_Schedule` for `plan` (windows of module partition indices).
    /// `timing[i]` is the (`PeriodSeconds`, `PeriodDurationSeconds`) of partition `i`.
    pub fn render_schedule(
        &self,
        module: &ValidatedModule,
        plan: &FramePlan,
        timing: &[(usize, Nanos, Nanos)],
        comment: &str,
    ) -> String {
        let i1 = &self.indent;
        let i2 = format!("{i1}{i1}");
        let i3 = format!("{i2}{i1}");
        let (prefix, declare) = match &self.prefix_in_root {
            Some(p) => (p.clone(), false),
            None => ("partita".to_string(), true),
        };
        let multi = plan.windows.iter().any(|w| w.core != 0);
        let mut s = String::new();
        s.push_str(&format!(
            "<Module_Schedule MajorFrameSeconds=\"{}\"",
            format_seconds(plan.major_frame)
        ));
        if declare && multi {
            s.push_str(&format!(" xmlns:{prefix}=\"{PARTITA_NS}\""));
        }
        s.push_str(&format!(">\n{i2}<!-- {} -->\n", comment.replace("--", "-")));
        for &(idx, period, duration) in timing {
            let p = &module.partitions[idx];
            s.push_str(&format!(
                "{i2}<Partition_Schedule PartitionIdentifier=\"{}\" PartitionName=\"{}\" PeriodSeconds=\"{}\" PeriodDurationSeconds=\"{}\">\n",
                p.id,
                xml_escape(&p.name),
                format_seconds(period),
                format_seconds(duration)
            ));
            let mut ws: Vec<_> = plan.windows.iter().filter(|w| w.partition == idx).collect();
            ws.sort_by_key(|w| (w.offset, w.core));
            for w in ws {
                s.push_str(&format!(
                    "{i3}<Window_Schedule WindowIdentifier=\"{}\" WindowStartSeconds=\"{}\" WindowDurationSeconds=\"{}\"",
                    w.id,
                    format_seconds(w.offset),
                    format_seconds(w.duration)
                ));
                if w.period_start {
                    s.push_str(" PartitionPeriodStart=\"true\"");
                }
                if multi {
                    s.push_str(&format!(" {prefix}:Core=\"{}\"", w.core));
                }
                s.push_str("/>\n");
            }
            s.push_str(&format!("{i2}</Partition_Schedule>\n"));
        }
        s.push_str(&format!("{i1}</Module_Schedule>"));
        s
    }
}

/// `text` with every relative path it names (`EntryPoint` of a partition without
/// `partita:Executable`, `partita:Executable path`, `partita:File` and `partita:Fifo` of a
/// pseudo-partition) rewritten so that it still names the same file when the text is stored
/// in `to_dir` instead of `from_dir` (paths are relative to the configuration's directory).
/// Both directories must exist; absolute paths and every other byte are kept.
pub fn rebase_paths(text: &str, from_dir: &Path, to_dir: &Path) -> std::io::Result<String> {
    let (from, to) = (from_dir.canonicalize()?, to_dir.canonicalize()?);
    let up = relative_dir(&to, &from);
    if up.as_os_str().is_empty() {
        return Ok(text.to_string());
    }
    let Ok(doc) = roxmltree::Document::parse(text) else {
        return Ok(text.to_string());
    };
    let ext = |n: &roxmltree::Node, name: &str| {
        n.is_element()
            && n.tag_name().namespace() == Some(PARTITA_NS)
            && n.tag_name().name() == name
    };
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for n in doc.descendants().filter(|n| n.is_element()) {
        let std_name = (n.tag_name().namespace() != Some(PARTITA_NS)).then(|| n.tag_name().name());
        let keys: &[(Option<&str>, &str)] = match std_name {
            Some("Partition") if !n.children().any(|c| ext(&c, "Executable")) => {
                &[(None, "EntryPoint")]
            }
            Some("Pseudo_Partition") => &[(Some(PARTITA_NS), "File"), (Some(PARTITA_NS), "Fifo")],
            None if ext(&n, "Executable") => &[(None, "path")],
            _ => &[],
        };
        for a in n.attributes() {
            let relative = !a.value().is_empty() && !Path::new(a.value()).is_absolute();
            if relative && keys.contains(&(a.namespace(), a.name())) {
                let moved = up.join(a.value());
                edits.push((a.range_value(), xml_escape(&moved.to_string_lossy())));
            }
        }
    }
    let mut out = text.to_string();
    edits.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
    for (range, value) in edits {
        out.replace_range(range, &value);
    }
    Ok(out)
}

/// The relative path that leads from directory `from` to directory `to` (both canonical).
fn relative_dir(from: &Path, to: &Path) -> PathBuf {
    let (a, b): (Vec<_>, Vec<_>) = (from.components().collect(), to.components().collect());
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..a.len() {
        out.push("..");
    }
    for c in &b[common..] {
        out.push(c);
    }
    out
}

fn trim_trailing_blank(out: &mut String) {
    let trimmed = out.trim_end_matches([' ', '\t']).len();
    if out[..trimmed].ends_with('\n') {
        out.truncate(trimmed - 1);
    }
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "<?xml version=\"1.0\"?>\n<ARINC_653_Module ModuleName=\"M\" xmlns:partita=\"urn:partita:1\">\n  <Partition PartitionIdentifier=\"1\" PartitionName=\"A\" Criticality=\"LEVEL_A\">\n    <partita:Process name=\"x\" periodSeconds=\"0.01\"/>\n  </Partition>\n  <Module_Schedule MajorFrameSeconds=\"1\"/>\n  <Module_Schedule MajorFrameSeconds=\"2\"/>\n</ARINC_653_Module>\n";

    #[test]
    fn positions_and_splice() {
        let m = SourceMap::new(TEXT).unwrap();
        assert_eq!(m.partition_pos(1), (3, 3));
        assert_eq!(m.process_pos(1, "x"), Some((4, 5)));
        assert_eq!(m.schedule_count(), 2);
        let out = m.splice(TEXT, "<NEW/>");
        assert!(out.contains("  <NEW/>\n</ARINC_653_Module>"), "{out}");
        assert!(!out.contains("MajorFrameSeconds"));
        assert!(out.starts_with("<?xml version=\"1.0\"?>\n<ARINC_653_Module"));
    }

    #[test]
    fn insert_when_absent() {
        let text = "<ARINC_653_Module ModuleName=\"M\">\n    <Partition PartitionIdentifier=\"1\"/>\n</ARINC_653_Module>";
        let m = SourceMap::new(text).unwrap();
        let out = m.splice(text, "<NEW/>");
        assert_eq!(
            out,
            "<ARINC_653_Module ModuleName=\"M\">\n    <Partition PartitionIdentifier=\"1\"/>\n    <NEW/>\n</ARINC_653_Module>"
        );
    }
}

#[cfg(test)]
mod rebase_tests {
    use super::rebase_paths;

    #[test]
    fn relative_paths_follow_the_file_and_nothing_else_changes() {
        let base = std::env::temp_dir().join(format!("partita-rebase-{}", std::process::id()));
        let (from, to) = (base.join("a/b"), base.join("c"));
        std::fs::create_dir_all(&from).unwrap();
        std::fs::create_dir_all(&to).unwrap();
        let text = r#"<ARINC_653_Module xmlns:p="urn:partita:1">
<Partition EntryPoint="run.sh"/>
<Partition EntryPoint="main"><p:Executable path='x&apos;y'/></Partition>
<Partition EntryPoint="/abs/prog"/>
<Pseudo_Partition Name="N" p:File="log/out" p:Fifo="f"/>
</ARINC_653_Module>"#;
        let moved = rebase_paths(text, &from, &to).unwrap();
        let expected = text
            .replace("\"run.sh\"", "\"../a/b/run.sh\"")
            .replace("'x&apos;y'", "'../a/b/x&apos;y'")
            .replace("\"log/out\"", "\"../a/b/log/out\"")
            .replace("\"f\"", "\"../a/b/f\"");
        assert_eq!(moved, expected);
        assert_eq!(rebase_paths(text, &from, &from).unwrap(), text);
        assert!(rebase_paths(text, &from, &base.join("missing")).is_err());
        std::fs::remove_dir_all(&base).unwrap();
    }
}
