// SPDX-License-Identifier: MIT OR Apache-2.0
//! What is particular to a general-purpose partition (`partita:GeneralPurpose`): its
//! namespaces, its binds, its network, and how it starts (NORMAL at once: it has no APEX
//! initialisation). Its time is that of any partition (its windows) plus, on its background
//! core, every gap between windows ([`partita_schedule::CoreTimeline::with_background`]).

use crate::ManagerError;
use partita_config::model::{GeneralPurpose, NetworkLink, NetworkMode};
use partita_config::CompiledPartition;
use partita_sys::spawn::{BindMount, Namespaces};
use std::process::Command;

/// The partition's general-purpose configuration, if it is one.
pub(crate) fn of(spec: &CompiledPartition) -> Option<&GeneralPurpose> {
    spec.general_purpose.as_ref()
}

/// The namespaces of partition `spec` among the run's `ns`: a general-purpose partition with
/// `network="host"` keeps the host's network.
pub(crate) fn namespaces(spec: &CompiledPartition, ns: Namespaces) -> Namespaces {
    match of(spec) {
        Some(g) if g.network == NetworkMode::Host => Namespaces { net: false, ..ns },
        _ => ns,
    }
}

/// The binds of partition `spec`, for the spawn.
pub(crate) fn binds(spec: &CompiledPartition) -> Result<Vec<BindMount>, ManagerError> {
    let Some(g) = of(spec) else {
        return Ok(Vec::new());
    };
    g.binds
        .iter()
        .map(|b| {
            Ok(BindMount {
                source: partita_sys::spawn::cstring(b.source.as_os_str())?,
                target: partita_sys::spawn::cstring(b.target.as_os_str())?,
                read_only: b.read_only,
            })
        })
        .collect()
}

/// The name of the host's end of partition `index`'s link in the run of manager `pid`
/// (at most 15 characters, the kernel's limit).
pub(crate) fn host_interface(pid: u32, index: usize) -> String {
    format!("pt{pid}g{index}")
}

/// The name of the partition's end of its link, inside its network namespace.
pub const PARTITION_INTERFACE: &str = "eth0";

/// Sets up the network of a new incarnation of partition `spec` (index `index`), whose first
/// process `child` waits before `execve` in its own network namespace (`own_net`): the
/// loopback interface up, and with `network="link"` a veth pair with the configured
/// addresses. Uses `ip` (iproute2) and `nsenter` (util-linux).
pub(crate) fn set_up_network(
    spec: &CompiledPartition,
    index: usize,
    child: i32,
    own_net: bool,
) -> Result<(), ManagerError> {
    let Some(g) = of(spec) else {
        return Ok(());
    };
    if g.network == NetworkMode::Host {
        return Ok(());
    }
    let fail = |step: &str, source: NetworkSetupError| ManagerError::Network {
        partition: spec.name.clone(),
        step: step.to_string(),
        source,
    };
    if !own_net {
        return Err(fail("network namespace", NetworkSetupError::NoNamespace));
    }
    let netns = format!("--net=/proc/{child}/ns/net");
    inside(&netns, &["link", "set", "lo", "up"]).map_err(|e| fail("loopback", e))?;
    let Some(link) = g.link else {
        return Ok(());
    };
    let host_if = host_interface(std::process::id(), index);
    let pid = child.to_string();
    let add = [
        "link",
        "add",
        &host_if,
        "type",
        "veth",
        "peer",
        "name",
        PARTITION_INTERFACE,
        "netns",
        &pid,
    ];
    // The link of an earlier incarnation goes with its namespace, which the kernel tears down
    // in the background: remove it and retry for a while.
    let mut attempt = 0;
    loop {
        match ip(&add) {
            Ok(()) => break,
            Err(e) if attempt >= 20 => return Err(fail("veth pair", e)),
            Err(_) => {
                let _ = ip(&["link", "del", &host_if]);
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(25));
            }
        }
    }
    configure(&host_if, &netns, &link).map_err(|e| {
        let _ = ip(&["link", "del", &host_if]);
        fail("addresses", e)
    })
}

/// Why setting up a partition's network failed.
#[derive(Debug, thiserror::Error)]
pub enum NetworkSetupError {
    /// The partition has no network namespace of its own.
    #[error("the partition has no network namespace of its own (namespaces are off)")]
    NoNamespace,
    /// A command could not be started.
    #[error("{command}: {source}")]
    Start {
        /// The command line.
        command: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A command failed.
    #[error("{command}: {stderr} ({status})")]
    Failed {
        /// The command line.
        command: String,
        /// What it wrote on stderr.
        stderr: String,
        /// Its exit status.
        status: std::process::ExitStatus,
    },
}

/// Gives both ends of `link` their addresses and brings them up.
fn configure(host_if: &str, netns: &str, link: &NetworkLink) -> Result<(), NetworkSetupError> {
    ip(&["addr", "add", &link.host.to_string(), "dev", host_if])?;
    ip(&["link", "set", host_if, "up"])?;
    let addr = link.partition.to_string();
    inside(netns, &["addr", "add", &addr, "dev", PARTITION_INTERFACE])?;
    inside(netns, &["link", "set", PARTITION_INTERFACE, "up"])?;
    Ok(())
}

/// Removes the host's end of partition `index`'s link, if it is still there (its namespace
/// removes both ends when its last process ends).
pub(crate) fn remove_link(spec: &CompiledPartition, index: usize) {
    if of(spec).is_some_and(|g| g.link.is_some()) {
        let _ = ip(&["link", "del", &host_interface(std::process::id(), index)]);
    }
}

/// Runs `ip ARGS` in the manager's network namespace.
fn ip(args: &[&str]) -> Result<(), NetworkSetupError> {
    run(Command::new("ip").args(args))
}

/// Runs `ip ARGS` in the network namespace `netns` (an `nsenter --net=` argument).
fn inside(netns: &str, args: &[&str]) -> Result<(), NetworkSetupError> {
    run(Command::new("nsenter").arg(netns).arg("ip").args(args))
}

fn run(cmd: &mut Command) -> Result<(), NetworkSetupError> {
    let command = format!("{cmd:?}");
    let out = cmd
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|source| NetworkSetupError::Start {
            command: command.clone(),
            source,
        })?;
    if out.status.success() {
        return Ok(());
    }
    Err(NetworkSetupError::Failed {
        command,
        stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        status: out.status,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_interface_names_fit_the_kernel_limit() {
        assert!(host_interface(4_194_304, 31).len() <= 15);
        assert_ne!(host_interface(7, 1), host_interface(7, 2));
    }

    #[test]
    fn only_a_host_network_keeps_the_host_namespace() {
        let mut spec = CompiledPartition::new(1, "gp", "/bin/sh");
        assert_eq!(namespaces(&spec, Namespaces::all()), Namespaces::all());
        spec.general_purpose = Some(GeneralPurpose {
            background: vec![0],
            network: NetworkMode::Host,
            link: None,
            binds: Vec::new(),
        });
        let ns = namespaces(&spec, Namespaces::all());
        assert!(!ns.net && ns.pid && ns.mount);
    }
}
