// SPDX-License-Identifier: MIT OR Apache-2.0
//! Example partitions written against the `a653rs` traits, in the shape of a653rs-linux's
//! examples (the `#[partition]` macro of `a653rs`, a logger for `log`), run on Partita by
//! naming `partita_apex::a653rs::Partita` as the hypervisor. The executables are in
//! `src/bin/`, their modules in `examples/a653rs/` (see `docs/a653rs.md`):
//!
//! - `a653rs-hello` / `a653rs-hello-listener`: a message over a sampling port;
//! - `a653rs-ping-sampling` / `a653rs-pong-sampling`: timed round trips over sampling ports;
//! - `a653rs-ping-queuing` / `a653rs-pong-queuing`: timed round trips over queuing ports;
//! - `a653rs-tank-simulator` / `a653rs-tank-controller`: a tank simulation and its level
//!   controller, the controller (a system partition) switching the module schedule.
//!
//! This library holds the message layouts the two sides of each example share.

/// A ping request or its echo: a sequence number and the requester's send time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ping {
    /// Sequence number (from 1).
    pub seq: u32,
    /// APEX time of the request, ns.
    pub sent_ns: u64,
}

impl Ping {
    /// Bytes on the wire.
    pub const LEN: usize = 12;

    /// The message bytes.
    pub fn encode(&self) -> [u8; Self::LEN] {
        let mut b = [0u8; Self::LEN];
        b[..4].copy_from_slice(&self.seq.to_le_bytes());
        b[4..].copy_from_slice(&self.sent_ns.to_le_bytes());
        b
    }

    /// The ping in `b`, if it has the ping's length.
    pub fn decode(b: &[u8]) -> Option<Self> {
        let b: &[u8; Self::LEN] = b.try_into().ok()?;
        Some(Self {
            seq: u32::from_le_bytes(b[..4].try_into().ok()?),
            sent_ns: u64::from_le_bytes(b[4..].try_into().ok()?),
        })
    }
}

/// The tank simulator's output: the fill level in per mille and the simulation step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TankLevel {
    /// Simulation step (from 1).
    pub step: u32,
    /// Fill level, 0..=1000.
    pub level: u32,
}

impl TankLevel {
    /// Bytes on the wire.
    pub const LEN: usize = 8;

    /// The message bytes.
    pub fn encode(&self) -> [u8; Self::LEN] {
        let mut b = [0u8; Self::LEN];
        b[..4].copy_from_slice(&self.step.to_le_bytes());
        b[4..].copy_from_slice(&self.level.to_le_bytes());
        b
    }

    /// The level in `b`, if it has the right length.
    pub fn decode(b: &[u8]) -> Option<Self> {
        let b: &[u8; Self::LEN] = b.try_into().ok()?;
        Some(Self {
            step: u32::from_le_bytes(b[..4].try_into().ok()?),
            level: u32::from_le_bytes(b[4..].try_into().ok()?),
        })
    }
}

/// The controller's command to the drain valve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Valve {
    /// Drain closed: the tank fills.
    Closed = 0,
    /// Drain open: the tank empties faster than it fills.
    Open = 1,
}

impl Valve {
    /// The command byte.
    pub fn encode(self) -> [u8; 1] {
        [self as u8]
    }

    /// The command in `b`, if it is one.
    pub fn decode(b: &[u8]) -> Option<Self> {
        match b {
            [0] => Some(Valve::Closed),
            [1] => Some(Valve::Open),
            _ => None,
        }
    }

    /// `open` or `closed`.
    pub fn word(self) -> &'static str {
        match self {
            Valve::Closed => "closed",
            Valve::Open => "open",
        }
    }
}

/// The fill level after one simulation step: `inflow` per step, `outflow` more when the
/// drain is open, clamped to 0..=1000.
pub fn tank_step(level: u32, valve: Valve, inflow: u32, outflow: u32) -> u32 {
    let filled = (level + inflow).min(1000);
    match valve {
        Valve::Closed => filled,
        Valve::Open => filled.saturating_sub(outflow),
    }
}

/// The controller's rule: open the drain above `high`, close it below `low`, otherwise keep
/// the last command (a hysteresis band).
pub fn control(level: u32, last: Valve, low: u32, high: u32) -> Valve {
    if level > high {
        Valve::Open
    } else if level < low {
        Valve::Closed
    } else {
        last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_and_refuse_wrong_lengths() {
        let p = Ping {
            seq: 7,
            sent_ns: 123_456_789,
        };
        assert_eq!(Ping::decode(&p.encode()), Some(p));
        assert_eq!(Ping::decode(&p.encode()[..11]), None);
        let t = TankLevel {
            step: 3,
            level: 999,
        };
        assert_eq!(TankLevel::decode(&t.encode()), Some(t));
        assert_eq!(TankLevel::decode(&[0; 9]), None);
        assert_eq!(Valve::decode(&Valve::Open.encode()), Some(Valve::Open));
        assert_eq!(Valve::decode(&[2]), None);
    }

    #[test]
    fn the_controlled_tank_stays_within_its_band() {
        let (mut level, mut valve) = (500, Valve::Closed);
        let (mut opened, mut closed) = (0, 0);
        for _ in 0..200 {
            // The controller acts on the level of the previous step (one period late).
            let next = control(level, valve, 200, 800);
            match (valve, next) {
                (Valve::Closed, Valve::Open) => opened += 1,
                (Valve::Open, Valve::Closed) => closed += 1,
                _ => {}
            }
            valve = next;
            level = tank_step(level, valve, 50, 120);
            assert!((100..=900).contains(&level), "{level}");
        }
        assert!(opened > 3 && closed > 3, "{opened} {closed}");
    }
}
