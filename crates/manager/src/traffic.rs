// SPDX-License-Identifier: MIT OR Apache-2.0
//! Per-channel traffic for the run report: messages written and read on each channel of the
//! connection table, read from the channel memory at the end of the run.

use crate::ports::{Channels, Live};
use partita_config::model::Endpoint;
use partita_config::model::PortKind;
use serde::Serialize;

/// One channel's traffic.
#[derive(Debug, Clone, Serialize)]
pub struct ChannelTraffic {
    /// `ChannelIdentifier`.
    pub id: u32,
    /// `sampling` or `queuing`.
    pub kind: &'static str,
    /// The writer: `partition:PORT`, or the pseudo-partition's name.
    pub source: String,
    /// The readers, as `source`.
    pub destinations: Vec<String>,
    /// Messages written (sampling) or sent (queuing).
    pub written: u64,
    /// Queuing: messages received by the reader (`None` for sampling, whose reads do not
    /// consume messages).
    pub received: Option<u64>,
    /// Queuing: messages still in the queue at the end.
    pub pending: Option<u64>,
}

fn end_name(e: &Endpoint, names: &[String]) -> String {
    match e {
        Endpoint::Partition { partition, port } => format!(
            "{}:{port}",
            names.get(*partition).map(String::as_str).unwrap_or("?")
        ),
        Endpoint::Pseudo { name, .. } => format!("{name} (pseudo)"),
    }
}

/// Traffic of every channel; `names` are the partitions' names by index.
pub(crate) fn collect(channels: &Channels, names: &[String]) -> Vec<ChannelTraffic> {
    channels
        .specs()
        .iter()
        .zip(&channels.live)
        .map(|(spec, live)| {
            let (written, received, pending) = match live {
                Live::Sampling(s) => (s.latest_number(), None, None),
                Live::Queuing(q) => {
                    let (sent, received) = q.traffic();
                    (sent, Some(received), Some(q.len() as u64))
                }
            };
            ChannelTraffic {
                id: spec.id,
                kind: match spec.kind {
                    PortKind::Sampling => "sampling",
                    PortKind::Queuing => "queuing",
                },
                source: end_name(&spec.source, names),
                destinations: spec
                    .destinations
                    .iter()
                    .map(|d| end_name(d, names))
                    .collect(),
                written,
                received,
                pending,
            }
        })
        .collect()
}
