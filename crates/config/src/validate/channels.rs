// SPDX-License-Identifier: MIT OR Apache-2.0
//! Connection table rules: channels, their endpoints and pseudo-partition transports.

use crate::diag::{Pos, Rule};
use crate::model::{Port, PortDirection, PortKind};
use crate::raw::{val, RawChannel, RawEndpoint, RawPseudo, RawSide};
use crate::suggest::closest;
use std::collections::{BTreeSet, HashMap};

use super::{parse_udp, Validator};

impl Validator<'_, '_, '_> {
    pub(super) fn channels(&mut self) {
        let raw = self.raw;
        let mut ids: HashMap<u32, Pos> = HashMap::new();
        let mut connected: BTreeSet<(usize, String)> = BTreeSet::new();
        // Destination port -> (channel id, position) of the first channel feeding it.
        let mut fed: HashMap<(usize, String), (String, Pos)> = HashMap::new();
        // Queuing source port -> first channel reading it.
        let mut q_sources: HashMap<(usize, String), (String, Pos)> = HashMap::new();
        for ch in &raw.channels {
            let label = ch
                .id
                .as_ref()
                .map(|i| i.value.to_string())
                .unwrap_or_else(|| "?".to_string());
            if let Some(id) = &ch.id {
                if let Some(&first) = ids.get(&id.value) {
                    self.sink
                        .emit(
                            Rule::DuplicateChannelId,
                            id.pos,
                            format!("channel identifier {} is used twice", id.value),
                        )
                        .with_hint("every channel needs its own ChannelIdentifier")
                        .with_related(first, "first defined here");
                } else {
                    ids.insert(id.value, id.pos);
                }
            }
            self.channel_shape(ch, &label);
            let sources: Vec<ResolvedEnd> = self.resolve_side(&ch.sources, true, &label);
            let dests: Vec<ResolvedEnd> = self.resolve_side(&ch.destinations, false, &label);
            for e in sources.iter().chain(&dests) {
                if let Some((idx, port)) = &e.port {
                    connected.insert((*idx, port.name.clone()));
                }
            }
            let all_ends = sources.len() + dests.len();
            let std_ends: Vec<&ResolvedEnd> = sources
                .iter()
                .chain(&dests)
                .filter(|e| !e.is_pseudo)
                .collect();
            if all_ends > 0 && std_ends.is_empty() {
                self.sink
                    .emit(
                        Rule::ChannelEndpoints,
                        ch.pos,
                        format!("channel {label} connects only pseudo partitions"),
                    )
                    .with_hint(
                        "at least one end of a channel must be a port of a Standard_Partition",
                    );
            }
            // Kind and size, relative to a reference port (the source if it is a partition).
            let reference = sources
                .iter()
                .chain(&dests)
                .find_map(|e| e.port.as_ref().map(|p| (e, p.1.clone())));
            let Some((ref_end, ref_port)) = reference else {
                continue;
            };
            let mut kind_ok = true;
            for e in sources.iter().chain(&dests) {
                let Some((_, port)) = &e.port else { continue };
                if std::ptr::eq(e, ref_end) {
                    continue;
                }
                if port.kind != ref_port.kind {
                    kind_ok = false;
                    self.sink
                        .emit(
                            Rule::ChannelKindMismatch,
                            e.pos,
                            format!(
                                "channel {label} connects {} port \"{}\" with {} port \"{}\"",
                                kind_word(port.kind),
                                port.name,
                                kind_word(ref_port.kind),
                                ref_port.name
                            ),
                        )
                        .with_hint(
                            "both ends of a channel must be sampling ports, or both queuing ports",
                        )
                        .with_related(ref_end.pos, "the other end");
                } else if port.max_message_size != ref_port.max_message_size {
                    self.sink
                        .emit(
                            Rule::MessageSizeMismatch,
                            e.pos,
                            format!(
                                "port \"{}\" has MaxMessageSize {} but port \"{}\" of channel {label} has {}",
                                port.name, port.max_message_size, ref_port.name, ref_port.max_message_size
                            ),
                        )
                        .with_hint("give all ports of a channel the same MaxMessageSize")
                        .with_related(ref_end.pos, "the other end");
                }
            }
            if !kind_ok {
                continue;
            }
            let kind = ref_port.kind;
            // Several Source elements in one channel.
            if ch.sources.len() > 1 {
                let rule = match kind {
                    PortKind::Sampling => Rule::SamplingMultipleSources,
                    PortKind::Queuing => Rule::QueuingMultipleSources,
                };
                self.sink
                    .emit(
                        rule,
                        ch.sources[1].pos,
                        format!(
                            "{} channel {label} has {} sources; a channel has exactly one",
                            kind_word(kind),
                            ch.sources.len()
                        ),
                    )
                    .with_hint("split it into one channel per source")
                    .with_related(ch.sources[0].pos, "first source here");
            }
            if kind == PortKind::Queuing && ch.destinations.len() > 1 {
                self.sink
                    .emit(
                        Rule::QueuingMultipleDestinations,
                        ch.destinations[1].pos,
                        format!(
                            "queuing channel {label} has {} destinations; queuing channels are one-to-one",
                            ch.destinations.len()
                        ),
                    )
                    .with_hint("use sampling ports for multicast, or one queuing channel (and source port) per destination")
                    .with_related(ch.destinations[0].pos, "first destination here");
            }
            // Ports used by several channels.
            for e in &dests {
                let Some((idx, port)) = &e.port else { continue };
                let idx = *idx;
                let key = (idx, port.name.clone());
                if let Some((other, first)) = fed.get(&key) {
                    let rule = match kind {
                        PortKind::Sampling => Rule::SamplingMultipleSources,
                        PortKind::Queuing => Rule::QueuingMultipleSources,
                    };
                    self.sink
                        .emit(
                            rule,
                            e.pos,
                            format!(
                                "{} destination port {}:{} is already fed by channel {other}",
                                kind_word(kind),
                                self.partition_name(idx),
                                port.name
                            ),
                        )
                        .with_hint("a destination port receives from exactly one source")
                        .with_related(*first, "first channel here");
                } else {
                    fed.insert(key, (label.clone(), e.pos));
                }
            }
            if kind == PortKind::Queuing {
                for e in &sources {
                    let Some((idx, port)) = &e.port else { continue };
                    let idx = *idx;
                    let key = (idx, port.name.clone());
                    if let Some((other, first)) = q_sources.get(&key) {
                        self.sink
                            .emit(
                                Rule::QueuingMultipleDestinations,
                                e.pos,
                                format!(
                                    "queuing source port {}:{} already feeds channel {other}",
                                    self.partition_name(idx),
                                    port.name
                                ),
                            )
                            .with_hint("a queuing port has exactly one destination; declare one source port per channel")
                            .with_related(*first, "first channel here");
                    } else {
                        q_sources.insert(key, (label.clone(), e.pos));
                    }
                }
            }
        }
        for (i, ports) in self.ports.clone().iter().enumerate() {
            for (pos, port) in ports {
                if !connected.contains(&(i, port.name.clone())) {
                    self.sink
                        .emit(
                            Rule::PortNotConnected,
                            *pos,
                            format!(
                                "port \"{}\" of partition {} is not connected to any channel",
                                port.name,
                                self.partition_name(i)
                            ),
                        )
                        .with_hint("connect it in the Connection_Table, or remove it");
                }
            }
        }
    }

    /// Source / Destination counts and one partition per side.
    fn channel_shape(&mut self, ch: &RawChannel, label: &str) {
        if ch.sources.is_empty() {
            self.sink
                .emit(
                    Rule::ChannelEndpoints,
                    ch.pos,
                    format!("channel {label} has no Source"),
                )
                .with_hint("add <Source><Standard_Partition PartitionIdentifier=\"...\" PortName=\"...\"/></Source>");
        }
        if ch.destinations.is_empty() {
            self.sink
                .emit(
                    Rule::ChannelEndpoints,
                    ch.pos,
                    format!("channel {label} has no Destination"),
                )
                .with_hint("add <Destination><Standard_Partition PartitionIdentifier=\"...\" PortName=\"...\"/></Destination>");
        }
        for side in ch.sources.iter().chain(&ch.destinations) {
            if side.endpoints.len() != 1 {
                self.sink
                    .emit(
                        Rule::ChannelEndpoints,
                        side.pos,
                        format!(
                            "a channel side holds {} partitions; exactly one Standard_Partition or Pseudo_Partition is expected",
                            side.endpoints.len()
                        ),
                    )
                    .with_hint("for multicast, repeat the <Destination> element, one per destination");
            }
        }
    }

    fn resolve_side(&mut self, sides: &[RawSide], source: bool, label: &str) -> Vec<ResolvedEnd> {
        let mut out = Vec::new();
        for side in sides {
            for e in &side.endpoints {
                match e {
                    RawEndpoint::Standard { target, port } => {
                        let idx = self.resolve(
                            target,
                            Rule::ChannelUnknownPartition,
                            &format!("channel {label}"),
                        );
                        let mut found = None;
                        if let (Some(idx), Some(pname)) = (idx, port) {
                            found = self.lookup_port(idx, pname, source, label);
                        }
                        out.push(ResolvedEnd {
                            pos: e.pos(),
                            port: found,
                            is_pseudo: false,
                        });
                    }
                    RawEndpoint::Pseudo(p) => {
                        self.pseudo(p);
                        out.push(ResolvedEnd {
                            pos: p.pos,
                            port: None,
                            is_pseudo: true,
                        });
                    }
                }
            }
        }
        out
    }

    fn lookup_port(
        &mut self,
        idx: usize,
        pname: &crate::raw::Sp<String>,
        source: bool,
        label: &str,
    ) -> Option<(usize, Port)> {
        let ports: Vec<(Pos, Port)> = self.ports.get(idx)?.clone();
        match ports.iter().find(|(_, p)| p.name == pname.value) {
            None => {
                let declared = self.raw.partitions.get(idx).is_some_and(|p| {
                    p.ports
                        .iter()
                        .any(|x| x.name.as_ref().map(|n| &n.value) == Some(&pname.value))
                });
                if declared {
                    // The port exists but could not be read completely; already reported.
                    return None;
                }
                let names: Vec<&str> = ports.iter().map(|(_, p)| p.name.as_str()).collect();
                let hint = match closest(&pname.value, names.iter().copied()) {
                    Some(s) => format!("did you mean \"{s}\"?"),
                    None if names.is_empty() => {
                        format!("partition {} declares no ports", self.partition_name(idx))
                    }
                    None => format!(
                        "ports of partition {}: {}",
                        self.partition_name(idx),
                        names.join(", ")
                    ),
                };
                self.sink
                    .emit(
                        Rule::ChannelUnknownPort,
                        pname.pos,
                        format!(
                            "channel {label} refers to port \"{}\", which partition {} does not declare",
                            pname.value,
                            self.partition_label(idx)
                        ),
                    )
                    .with_hint(hint);
                None
            }
            Some((ppos, port)) => {
                let want = if source {
                    PortDirection::Source
                } else {
                    PortDirection::Destination
                };
                if port.direction != want {
                    self.sink
                        .emit(
                            Rule::ChannelDirection,
                            pname.pos,
                            format!(
                                "port \"{}\" of partition {} is a {} port but is used as the {} of channel {label}",
                                port.name,
                                self.partition_name(idx),
                                port.direction,
                                if source { "source" } else { "destination" }
                            ),
                        )
                        .with_hint("the Source of a channel must be a SOURCE port and each Destination a DESTINATION port")
                        .with_related(*ppos, "port declared here");
                }
                Some((idx, port.clone()))
            }
        }
    }

    fn pseudo(&mut self, p: &RawPseudo) {
        let given: Vec<(&str, &crate::raw::Sp<String>)> = [
            ("partita:Udp", &p.udp),
            ("partita:File", &p.file),
            ("partita:Fifo", &p.fifo),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| (k, v)))
        .collect();
        let name = val(&p.name).unwrap_or_default();
        match given.as_slice() {
            [] => {
                self.sink
                    .emit(
                        Rule::PseudoPartitionEndpoint,
                        p.pos,
                        format!("pseudo partition \"{name}\" says nothing about where its messages go"),
                    )
                    .with_hint("add exactly one of partita:Udp=\"host:port\", partita:File=\"path\" or partita:Fifo=\"path\" (xmlns:partita=\"urn:partita:1\")");
            }
            [(key, v)] => {
                let problem = if *key == "partita:Udp" {
                    parse_udp(&v.value).err().map(|e| e.to_string())
                } else if v.value.trim().is_empty() {
                    Some("the path is empty".to_string())
                } else {
                    None
                };
                if let Some(why) = problem {
                    self.sink
                        .emit(
                            Rule::PseudoPartitionEndpoint,
                            v.pos,
                            format!("{key}=\"{}\" of pseudo partition \"{name}\": {why}", v.value),
                        )
                        .with_hint("partita:Udp takes host:port, e.g. 127.0.0.1:5000 or [::1]:5000; File and Fifo take a path");
                }
            }
            [_, (key, v), ..] => {
                self.sink
                    .emit(
                        Rule::PseudoPartitionEndpoint,
                        v.pos,
                        format!("pseudo partition \"{name}\" has more than one endpoint ({key} is the second)"),
                    )
                    .with_hint("keep exactly one of partita:Udp, partita:File, partita:Fifo");
            }
        }
    }
}

/// A resolved channel endpoint.
struct ResolvedEnd {
    pos: Pos,
    /// Partition index and port (standard endpoints whose port exists).
    port: Option<(usize, Port)>,
    is_pseudo: bool,
}

fn kind_word(kind: PortKind) -> &'static str {
    match kind {
        PortKind::Sampling => "sampling",
        PortKind::Queuing => "queuing",
    }
}
