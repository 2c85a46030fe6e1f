// SPDX-License-Identifier: MIT OR Apache-2.0
//! The parser and its attribute readers: typed values, positions and the diagnostics of
//! unknown, missing or malformed attributes and elements.

use crate::diag::{Pos, Rule, Sink};
use crate::limits::{name_problem, MAX_SIZE_BYTES, MAX_VALUE_BYTES};
use crate::model::PARTITA_NS;
use crate::suggest::closest;
use crate::time::{parse_seconds, TimeError};
use partita_schedule::Nanos;
use roxmltree::{Document, Node};

use super::{parse_uint, Opt, RawModule, RawPartitionRef, Sp};

const XSI_NS: &str = "http://www.w3.org/2001/XMLSchema-instance";
const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";
const BOOL_VALUES: &[(&str, bool)] = &[("true", true), ("false", false), ("1", true), ("0", false)];

/// The name of an element: standard (any namespace but ours) or partita extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Name<'n> {
    Std(&'n str),
    Ext(&'n str),
}

pub(super) fn element_name<'n>(n: Node<'_, 'n>) -> Name<'n> {
    let tag = n.tag_name();
    if tag.namespace() == Some(PARTITA_NS) {
        Name::Ext(tag.name())
    } else {
        Name::Std(tag.name())
    }
}

pub(super) fn display(ext: bool, local: &str) -> String {
    if ext {
        format!("partita:{local}")
    } else {
        local.to_string()
    }
}

/// An attribute value as written.
pub(super) struct AttrVal {
    /// Display name (`partita:Core`).
    name: String,
    pub(super) text: String,
    pub(super) pos: Pos,
}
/// Reads a document into the raw model. Returns `None` when the root element is wrong.
pub(crate) fn parse_document(doc: &Document<'_>, sink: &mut Sink) -> Option<RawModule> {
    let mut p = Parser {
        _doc: std::marker::PhantomData,
        sink,
        lines: LineIndex::new(doc.input_text()),
    };
    p.module(doc.root_element())
}

/// Byte offsets of the line starts, so that a position costs a binary search instead of a scan
/// from the start of the file (`Document::text_pos_at`), which made large files quadratic.
pub(crate) struct LineIndex<'i> {
    text: &'i str,
    starts: Vec<usize>,
}

impl<'i> LineIndex<'i> {
    pub(crate) fn new(text: &'i str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { text, starts }
    }

    /// 1-based line and column (in characters) of `byte`, as `Document::text_pos_at` gives.
    pub(crate) fn pos(&self, byte: usize) -> Pos {
        let byte = byte.min(self.text.len());
        let line = self.starts.partition_point(|&s| s <= byte);
        let start = self.starts[line - 1];
        let column = self.text.get(start..byte).map_or(0, |t| t.chars().count()) + 1;
        Pos {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(column).unwrap_or(u32::MAX),
        }
    }
}

pub(super) struct Parser<'d, 'i, 's> {
    _doc: std::marker::PhantomData<&'d Document<'i>>,
    pub(super) sink: &'s mut Sink,
    lines: LineIndex<'i>,
}

impl<'d, 'i> Parser<'d, 'i, '_> {
    fn pos(&self, byte: usize) -> Pos {
        self.lines.pos(byte)
    }

    pub(super) fn node_pos(&self, n: Node<'_, '_>) -> Pos {
        self.pos(n.range().start)
    }

    /// Warns about every attribute of `n` not in `known`.
    pub(super) fn check_attrs(&mut self, n: Node<'d, 'i>, known: (&[&str], &[&str])) {
        let elem = display(matches!(element_name(n), Name::Ext(_)), n.tag_name().name());
        for a in n.attributes() {
            let (ext, local) = match a.namespace() {
                None => (false, a.name()),
                Some(PARTITA_NS) => (true, a.name()),
                Some(XSI_NS) | Some(XML_NS) => continue,
                Some(_) => (false, a.name()),
            };
            let foreign = a.namespace().is_some() && !ext;
            let ok = !foreign && if ext { known.1 } else { known.0 }.contains(&local);
            if ok {
                continue;
            }
            let shown = if foreign {
                format!("{{{}}}{local}", a.namespace().unwrap_or_default())
            } else {
                display(ext, local)
            };
            let pos = self.pos(a.range().start);
            let hint = suggestion_hint(ext, local, known, "attribute");
            self.sink
                .emit(
                    Rule::UnknownAttribute,
                    pos,
                    format!("unknown attribute `{shown}` on `{elem}` (ignored)"),
                )
                .with_hint(hint);
        }
    }

    pub(super) fn unknown_element(
        &mut self,
        n: Node<'d, 'i>,
        parent: &str,
        known: (&[&str], &[&str]),
    ) {
        let (ext, local) = match element_name(n) {
            Name::Std(l) => (false, l),
            Name::Ext(l) => (true, l),
        };
        let pos = self.node_pos(n);
        let hint = suggestion_hint(ext, local, known, "element");
        self.sink
            .emit(
                Rule::UnknownElement,
                pos,
                format!(
                    "unknown element `{}` in `{parent}` (ignored)",
                    display(ext, local)
                ),
            )
            .with_hint(hint);
    }

    pub(super) fn duplicate_element(&mut self, n: Node<'d, 'i>, first: Pos, what: &str) {
        let pos = self.node_pos(n);
        self.sink
            .emit(
                Rule::DuplicateElement,
                pos,
                format!("`{what}` may appear only once here"),
            )
            .with_hint("merge the two elements into one")
            .with_related(first, "first one here");
    }

    pub(super) fn elements(n: Node<'d, 'i>) -> impl Iterator<Item = Node<'d, 'i>> {
        n.children().filter(|c| c.is_element())
    }

    /// Reads attribute `key` (`"partita:X"` for extension attributes) of `n`.
    pub(super) fn get(&mut self, n: Node<'d, 'i>, key: &str, required: bool) -> Option<AttrVal> {
        let attr = match key.strip_prefix("partita:") {
            Some(local) => n.attribute_node((PARTITA_NS, local)),
            None => n.attribute_node(key),
        };
        match attr {
            Some(a) if !self.value_within_bound(a.value(), self.pos(a.range().start), key) => None,
            Some(a) => Some(AttrVal {
                name: key.to_string(),
                text: a.value().to_string(),
                pos: self.pos(a.range().start),
            }),
            None => {
                if required {
                    let elem =
                        display(matches!(element_name(n), Name::Ext(_)), n.tag_name().name());
                    let pos = self.node_pos(n);
                    self.sink
                        .emit(
                            Rule::MissingAttribute,
                            pos,
                            format!("`{elem}` is missing the required attribute `{key}`"),
                        )
                        .with_hint(format!("add {key}=\"...\""));
                }
                None
            }
        }
    }

    /// `false` (with an `xml-too-large` diagnostic) when `value` is longer than
    /// [`MAX_VALUE_BYTES`].
    pub(super) fn value_within_bound(&mut self, value: &str, pos: Pos, what: &str) -> bool {
        if value.len() <= MAX_VALUE_BYTES {
            return true;
        }
        self.sink
            .emit(
                Rule::XmlTooLarge,
                pos,
                format!(
                    "`{what}` is {} bytes long; at most {MAX_VALUE_BYTES} are accepted",
                    value.len()
                ),
            )
            .with_hint("names, paths and arguments are short; is the value complete?");
        false
    }

    /// A name (module, partition, port, schedule, process, channel): the `unsafe-name` rule
    /// holds it to characters that are safe in file, cgroup and shared-memory object names.
    /// The value is kept either way, so that no other rule reports a missing name.
    pub(super) fn name(&mut self, n: Node<'d, 'i>, key: &str, required: bool) -> Opt<String> {
        let v = self.string(n, key, required)?;
        if let Some(why) = name_problem(&v.value) {
            self.sink
                .emit(
                    Rule::UnsafeName,
                    v.pos,
                    format!("`{key}` = {:?}: {why}", v.value),
                )
                .with_hint("names use ASCII letters, digits, `_`, `-` and `.` (not first)");
        }
        Some(v)
    }

    pub(super) fn string(&mut self, n: Node<'d, 'i>, key: &str, required: bool) -> Opt<String> {
        self.get(n, key, required).map(|v| Sp {
            value: v.text,
            pos: v.pos,
        })
    }

    pub(super) fn uint(
        &mut self,
        n: Node<'d, 'i>,
        key: &str,
        required: bool,
        min: u64,
        max: u64,
    ) -> Opt<u64> {
        let v = self.get(n, key, required)?;
        match parse_uint(&v.text) {
            Ok(x) if x >= min && x <= max => Some(Sp {
                value: x,
                pos: v.pos,
            }),
            Ok(x) => {
                let msg = if x < min {
                    format!("`{}` must be at least {min}; found {x}", v.name)
                } else {
                    format!("`{}` must be at most {max}; found {x}", v.name)
                };
                self.sink.emit(Rule::BadNumber, v.pos, msg);
                None
            }
            Err(why) => {
                self.sink
                    .emit(
                        Rule::BadNumber,
                        v.pos,
                        format!("`{}` = \"{}\": {why}", v.name, v.text),
                    )
                    .with_hint("write a decimal integer (or hexadecimal with a 0x prefix)");
                None
            }
        }
    }

    pub(super) fn u32(&mut self, n: Node<'d, 'i>, key: &str, required: bool, min: u32) -> Opt<u32> {
        self.uint(n, key, required, u64::from(min), u64::from(u32::MAX))
            .map(|s| Sp {
                value: s.value as u32,
                pos: s.pos,
            })
    }

    pub(super) fn u64(&mut self, n: Node<'d, 'i>, key: &str, required: bool, min: u64) -> Opt<u64> {
        self.uint(n, key, required, min, u64::MAX)
    }

    /// A byte size, at most [`MAX_SIZE_BYTES`].
    pub(super) fn size(
        &mut self,
        n: Node<'d, 'i>,
        key: &str,
        required: bool,
        min: u64,
    ) -> Opt<u64> {
        self.uint(n, key, required, min, MAX_SIZE_BYTES)
    }

    pub(super) fn time(&mut self, n: Node<'d, 'i>, key: &str, required: bool) -> Opt<Nanos> {
        let v = self.get(n, key, required)?;
        match parse_seconds(&v.text) {
            Ok(ns) => Some(Sp {
                value: ns,
                pos: v.pos,
            }),
            Err(e) => {
                let (rule, hint) = match &e {
                    TimeError::Exponent => (
                        Rule::TimeExponent,
                        "write the time as plain decimal seconds, e.g. 0.001 instead of 1e-3"
                            .to_string(),
                    ),
                    TimeError::TooPrecise(_) => (
                        Rule::TimePrecision,
                        "times are exact nanoseconds: use at most 9 decimal places".to_string(),
                    ),
                    _ => (
                        Rule::BadTime,
                        "write non-negative decimal seconds, e.g. 0.05 for 50 ms".to_string(),
                    ),
                };
                self.sink
                    .emit(
                        rule,
                        v.pos,
                        format!("`{}` = \"{}\" is not a valid time: {e}", v.name, v.text),
                    )
                    .with_hint(hint);
                None
            }
        }
    }

    pub(super) fn choice<E: Copy>(
        &mut self,
        n: Node<'d, 'i>,
        key: &str,
        required: bool,
        values: &[(&str, E)],
    ) -> Opt<E> {
        let v = self.get(n, key, required)?;
        let t = v.text.trim();
        if let Some((_, e)) = values.iter().find(|(s, _)| *s == t) {
            return Some(Sp {
                value: *e,
                pos: v.pos,
            });
        }
        let allowed: Vec<&str> = values.iter().map(|(s, _)| *s).collect();
        let d = self.sink.emit(
            Rule::BadEnum,
            v.pos,
            format!(
                "`{}` = \"{}\" is not one of {}",
                v.name,
                v.text,
                allowed.join(", ")
            ),
        );
        match closest(t, allowed.iter().copied()) {
            Some(s) => d.with_hint(format!("did you mean `{s}`?")),
            None => d.with_hint(format!("write one of: {}", allowed.join(", "))),
        };
        None
    }

    pub(super) fn boolean(&mut self, n: Node<'d, 'i>, key: &str) -> Opt<bool> {
        self.choice(n, key, false, BOOL_VALUES)
    }

    pub(super) fn partition_ref(&mut self, n: Node<'d, 'i>) -> RawPartitionRef {
        RawPartitionRef {
            pos: self.node_pos(n),
            id: self.u32(n, "PartitionIdentifier", true, 0),
            name: self.name(n, "PartitionName", false),
        }
    }
}

/// The hint of an unknown element or attribute: a close known name, or the list of names
/// allowed at that place.
fn suggestion_hint(ext: bool, local: &str, known: (&[&str], &[&str]), what: &str) -> String {
    // Same name, wrong namespace.
    if !ext && known.1.contains(&local) {
        return format!(
            "`{local}` is a partita extension: write `partita:{local}` and declare xmlns:partita=\"{PARTITA_NS}\" on the root element"
        );
    }
    if ext && known.0.contains(&local) {
        return format!("`{local}` is a standard {what}: write it without the `partita:` prefix");
    }
    let candidates: Vec<String> = known
        .0
        .iter()
        .map(|s| s.to_string())
        .chain(known.1.iter().map(|s| display(true, s)))
        .collect();
    let locals: Vec<&str> = known.0.iter().chain(known.1.iter()).copied().collect();
    if let Some(best) = closest(local, locals.iter().copied()) {
        let idx = locals.iter().position(|l| *l == best).unwrap_or(0);
        if let Some(shown) = candidates.get(idx) {
            return format!("did you mean `{shown}`?");
        }
    }
    if candidates.is_empty() {
        format!("no {what}s are expected here")
    } else {
        format!("known {what}s here: {}", candidates.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::LineIndex;

    #[test]
    fn line_index_matches_roxmltree() {
        let text = "<a>\n  <b x=\"é€\"/>\r\n\t<c>ü</c>\n\n<d/></a>";
        let doc = roxmltree::Document::parse(text).unwrap();
        let idx = LineIndex::new(text);
        for (byte, _) in text.char_indices().chain([(text.len(), ' ')]) {
            let tp = doc.text_pos_at(byte);
            let p = idx.pos(byte);
            assert_eq!((p.line, p.column), (tp.row, tp.col), "byte {byte}");
        }
    }
}
