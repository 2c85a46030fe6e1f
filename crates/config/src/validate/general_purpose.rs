// SPDX-License-Identifier: MIT OR Apache-2.0
//! General-purpose partition rules (`partita:GeneralPurpose`): nothing of the APEX runtime,
//! background cores, the network link and the binds.

use crate::diag::{Pos, Rule};
use crate::model::{Bind, GeneralPurpose, InterfaceAddress, NetworkLink, NetworkMode};
use crate::raw::{val, RawGeneralPurpose, Sp};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use super::{ScheduleFacts, Validator};

/// Why an interface address is not usable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum AddressError {
    #[error("expected an IPv4 address with its prefix length, such as 10.0.0.2/24")]
    NoPrefix,
    #[error("\"{0}\" is not an IPv4 address")]
    NotIpv4(String),
    #[error("prefix length \"{0}\" is not a number from 1 to 30")]
    BadPrefix(String),
    #[error("{0} is the network or broadcast address of its subnet, not a host address")]
    NotHost(String),
}

/// Parses `a.b.c.d/prefix` (prefix 1..=30: a link needs two host addresses).
pub(crate) fn parse_interface_address(text: &str) -> Result<InterfaceAddress, AddressError> {
    let (addr, prefix) = text.trim().split_once('/').ok_or(AddressError::NoPrefix)?;
    let address: std::net::Ipv4Addr = addr
        .parse()
        .map_err(|_| AddressError::NotIpv4(addr.to_string()))?;
    let prefix: u8 = prefix
        .parse()
        .ok()
        .filter(|p| (1..=30).contains(p))
        .ok_or_else(|| AddressError::BadPrefix(prefix.to_string()))?;
    let a = InterfaceAddress { address, prefix };
    let host_bits = u32::from(address) & !(u32::MAX << (32 - u32::from(prefix)));
    if host_bits == 0 || host_bits == !(u32::MAX << (32 - u32::from(prefix))) {
        return Err(AddressError::NotHost(a.to_string()));
    }
    Ok(a)
}

/// Whether two subnets share an address.
fn overlap(a: &InterfaceAddress, b: &InterfaceAddress) -> bool {
    let shorter = a.prefix.min(b.prefix);
    let mask = u32::MAX << (32 - u32::from(shorter));
    u32::from(a.address) & mask == u32::from(b.address) & mask
}

impl<'r> Validator<'r, '_, '_> {
    /// The `partita:GeneralPurpose` of partition `i`, if it has one.
    pub(super) fn general(&self, i: usize) -> Option<&'r RawGeneralPurpose> {
        let raw: &'r crate::raw::RawModule = self.raw;
        raw.partitions.get(i)?.general_purpose.as_ref()
    }

    /// Whether partition `i` gets background time on some core.
    pub(super) fn has_background(&self, i: usize) -> bool {
        self.general(i)
            .and_then(|g| g.background.as_ref())
            .is_some_and(|b| !b.value.is_empty())
    }

    /// Every general-purpose rule (after the schedules: `facts` has each partition's window
    /// cores).
    pub(super) fn general_purpose(&mut self, facts: &ScheduleFacts) {
        let mut background_owner: HashMap<u32, (usize, Pos)> = HashMap::new();
        let mut links: Vec<(usize, Pos, InterfaceAddress)> = Vec::new();
        for i in 0..self.raw.partitions.len() {
            let Some(gp) = self.general(i) else { continue };
            self.apex_features(i, gp.pos);
            self.background(i, facts, &mut background_owner);
            if let Some((pos, link)) = self.link(i) {
                for (j, other_pos, other) in &links {
                    if overlap(&link.host, other) {
                        let msg = format!(
                            "the link of partition {} ({}) overlaps the link of partition {} ({}): the host could not tell where to route",
                            self.partition_name(i),
                            link.host,
                            self.partition_name(*j),
                            other
                        );
                        self.sink
                            .emit(Rule::NetworkLink, pos, msg)
                            .with_hint("give every link a subnet of its own, e.g. 10.77.1.0/24 and 10.77.2.0/24")
                            .with_related(*other_pos, "the other link");
                    }
                }
                links.push((i, pos, link.host));
            }
            self.binds(i);
        }
    }

    /// Rule `general-purpose-apex`.
    fn apex_features(&mut self, i: usize, gp_pos: Pos) {
        let raw = self.raw;
        let p = &raw.partitions[i];
        let mut found: Vec<(Pos, String)> = Vec::new();
        for port in &p.ports {
            let name = port.name.as_ref().map_or("", |n| n.value.as_str());
            found.push((port.pos, format!("port \"{name}\"")));
        }
        if let Some(pol) = &p.process_policy {
            found.push((pol.pos, "partita:ProcessScheduling".to_string()));
        }
        if let Some(pr) = p.processes.first() {
            let pos = pr.name.as_ref().map_or(p.pos, |n| n.pos);
            found.push((pos, "partita:Process".to_string()));
        }
        if let Some(sys) = p.system.as_ref().filter(|s| s.value) {
            found.push((sys.pos, "SystemPartition=\"true\"".to_string()));
        }
        let id = val(&p.id);
        for m in &raw.memories {
            if m.target.id.as_ref().map(|s| s.value) != id || id.is_none() {
                continue;
            }
            for r in &m.requirements {
                if let Some(n) = &r.name {
                    found.push((n.pos, format!("memory block \"{}\"", n.value)));
                }
            }
        }
        for (pos, what) in found {
            let msg = format!(
                "general-purpose partition {} declares {what}, which only the APEX runtime serves",
                self.partition_name(i)
            );
            self.sink
                .emit(Rule::GeneralPurposeApex, pos, msg)
                .with_hint("a general-purpose partition runs ordinary Linux programs without the APEX runtime: remove it, or make the partition an APEX partition (without partita:GeneralPurpose)")
                .with_related(gp_pos, "partita:GeneralPurpose here");
        }
    }

    /// Rule `background-core`.
    fn background(
        &mut self,
        i: usize,
        facts: &ScheduleFacts,
        owner: &mut HashMap<u32, (usize, Pos)>,
    ) {
        let Some(bg) = self.general(i).and_then(|g| g.background.clone()) else {
            return;
        };
        let allowed = self
            .raw
            .partitions
            .get(i)
            .and_then(|p| p.resources.as_ref())
            .and_then(|r| val(&r.cores));
        for &core in &bg.value {
            if let Some(&(j, first)) = owner.get(&core) {
                let msg = format!(
                    "partition {} gets the idle time of core {core} as background, but partition {} already does",
                    self.partition_name(i),
                    self.partition_name(j)
                );
                self.sink
                    .emit(Rule::BackgroundCore, bg.pos, msg)
                    .with_hint("the idle time of a core goes to one general-purpose partition: give the other one windows, or another core")
                    .with_related(first, "first background of that core here");
            } else {
                owner.insert(core, (i, bg.pos));
            }
            if let Some(list) = allowed.as_ref().filter(|l| !l.contains(&core)) {
                let shown: Vec<String> = list.iter().map(u32::to_string).collect();
                let msg = format!(
                    "partition {} has background on core {core}, which is not in its cores list ({})",
                    self.partition_name(i),
                    shown.join(",")
                );
                self.sink
                    .emit(Rule::BackgroundCore, bg.pos, msg)
                    .with_hint("add the core to partita:Resources cores, or move the background");
            }
        }
        let mut cores: BTreeSet<u32> = bg.value.iter().copied().collect();
        if let Some(w) = facts.window_cores.get(i) {
            cores.extend(w.iter().copied());
        }
        if cores.len() > 1 {
            let shown: Vec<String> = cores.iter().map(u32::to_string).collect();
            let msg = format!(
                "partition {} has background time and runs on cores {}: it is held and released as a whole, so its background on one core would let it run on the other while another partition's window is open there",
                self.partition_name(i),
                shown.join(",")
            );
            self.sink
                .emit(Rule::BackgroundCore, bg.pos, msg)
                .with_hint("keep a general-purpose partition with background time on one core: its windows and its background on the same core");
        }
    }

    /// Rule `network-link`; the link of partition `i` (where its `hostAddress` is) when it
    /// is well-formed.
    fn link(&mut self, i: usize) -> Option<(Pos, NetworkLink)> {
        let gp = self.general(i)?;
        let mode = val(&gp.network).unwrap_or(NetworkMode::None);
        let (host, addr) = (gp.host_address.clone(), gp.address.clone());
        let gp_pos = gp.pos;
        let name = self.partition_name(i);
        if mode != NetworkMode::Link {
            for a in [&host, &addr].into_iter().flatten() {
                let msg = format!(
                    "partition {name} has network=\"{mode}\": the address {} is for network=\"link\" only",
                    a.value
                );
                self.sink
                    .emit(Rule::NetworkLink, a.pos, msg)
                    .with_hint("write network=\"link\" to give the partition a link to the host, or remove the address");
            }
            return None;
        }
        let (Some(host), Some(addr)) = (host, addr) else {
            self.sink
                .emit(
                    Rule::NetworkLink,
                    gp_pos,
                    format!("partition {name} has network=\"link\" but not both hostAddress and address"),
                )
                .with_hint("give both ends of the link, e.g. hostAddress=\"10.77.0.1/24\" address=\"10.77.0.2/24\"");
            return None;
        };
        let parsed = |s: &Sp<String>| parse_interface_address(&s.value).map_err(|e| (s.pos, e));
        let (h, a) = match (parsed(&host), parsed(&addr)) {
            (Ok(h), Ok(a)) => (h, a),
            (h, a) => {
                for (pos, e) in [h.err(), a.err()].into_iter().flatten() {
                    self.sink
                        .emit(Rule::NetworkLink, pos, format!("partition {name}: {e}"))
                        .with_hint(
                            "write an IPv4 address and its prefix length, such as 10.77.0.2/24",
                        );
                }
                return None;
            }
        };
        if h.address == a.address || h.prefix != a.prefix || h.network() != a.network() {
            let msg = format!(
                "partition {name}: the link's ends {h} and {a} must be two different host addresses of one subnet"
            );
            self.sink
                .emit(Rule::NetworkLink, addr.pos, msg)
                .with_hint(
                    "use one subnet and prefix for both ends, e.g. 10.77.0.1/24 and 10.77.0.2/24",
                )
                .with_related(host.pos, "the host's end");
            return None;
        }
        Some((
            host.pos,
            NetworkLink {
                host: h,
                partition: a,
            },
        ))
    }

    /// Rule `bind-path`.
    fn binds(&mut self, i: usize) {
        let Some(gp) = self.general(i) else { return };
        let binds: Vec<_> = gp
            .binds
            .iter()
            .map(|b| (b.source.clone(), b.target.clone()))
            .collect();
        let name = self.partition_name(i);
        let mut targets: HashMap<String, Pos> = HashMap::new();
        for (source, target) in binds {
            for (what, p) in [("source", &source), ("target", &target)] {
                let Some(p) = p else { continue };
                let problem = if !Path::new(&p.value).is_absolute() {
                    Some("is not an absolute path")
                } else if self.ctx.check_executables && std::fs::metadata(&p.value).is_err() {
                    Some("does not exist on this host")
                } else {
                    None
                };
                if let Some(problem) = problem {
                    self.sink
                        .emit(
                            Rule::BindPath,
                            p.pos,
                            format!("partition {name}: bind {what} \"{}\" {problem}", p.value),
                        )
                        .with_hint("a bind shows an existing host path (source) at an existing absolute path (target) in the partition's mount namespace");
                }
            }
            if let Some(t) = target {
                if let Some(&first) = targets.get(&t.value) {
                    self.sink
                        .emit(
                            Rule::BindPath,
                            t.pos,
                            format!("partition {name}: \"{}\" is bound twice", t.value),
                        )
                        .with_hint("bind each target once")
                        .with_related(first, "first bound here");
                } else {
                    targets.insert(t.value.clone(), t.pos);
                }
            }
        }
    }

    /// The typed `partita:GeneralPurpose` of partition `i` (no error was reported).
    pub(super) fn build_general_purpose(&self, i: usize) -> Option<GeneralPurpose> {
        let gp = self.general(i)?;
        let network = val(&gp.network).unwrap_or(NetworkMode::None);
        let link = match (network, &gp.host_address, &gp.address) {
            (NetworkMode::Link, Some(h), Some(a)) => Some(NetworkLink {
                host: parse_interface_address(&h.value).ok()?,
                partition: parse_interface_address(&a.value).ok()?,
            }),
            _ => None,
        };
        let binds = gp
            .binds
            .iter()
            .map(|b| {
                Some(Bind {
                    source: val(&b.source)?.into(),
                    target: val(&b.target)?.into(),
                    read_only: val(&b.access) != Some(crate::model::MemoryAccess::ReadWrite),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(GeneralPurpose {
            background: val(&gp.background).unwrap_or_default(),
            network,
            link,
            binds,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interface_addresses_are_host_addresses_with_a_prefix() {
        let a = parse_interface_address("10.77.0.2/24").unwrap();
        assert_eq!(a.to_string(), "10.77.0.2/24");
        assert_eq!(a.network(), std::net::Ipv4Addr::new(10, 77, 0, 0));
        assert_eq!(
            parse_interface_address("10.77.0.2"),
            Err(AddressError::NoPrefix)
        );
        assert!(matches!(
            parse_interface_address("10.77.0/24"),
            Err(AddressError::NotIpv4(_))
        ));
        assert!(matches!(
            parse_interface_address("10.77.0.2/31"),
            Err(AddressError::BadPrefix(_))
        ));
        assert!(matches!(
            parse_interface_address("10.77.0.0/24"),
            Err(AddressError::NotHost(_))
        ));
        assert!(matches!(
            parse_interface_address("10.77.0.255/24"),
            Err(AddressError::NotHost(_))
        ));
    }

    #[test]
    fn subnets_overlap_when_the_shorter_prefix_contains_both() {
        let p = |s| parse_interface_address(s).unwrap();
        assert!(overlap(&p("10.77.0.1/24"), &p("10.77.0.9/24")));
        assert!(overlap(&p("10.77.0.1/16"), &p("10.77.3.1/24")));
        assert!(!overlap(&p("10.77.0.1/24"), &p("10.77.1.1/24")));
    }
}
