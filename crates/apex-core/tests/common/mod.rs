// SPDX-License-Identifier: MIT OR Apache-2.0
//! Shared helpers for the kernel tests (simulated clock: plain `i64` times).
#![allow(dead_code)]

use partita_apex_core::*;

pub const MS: i64 = 1_000_000;
pub const MAIN: Runner = Runner::Main;

/// Partition period 10 ms, origin 0, one core.
pub fn cfg() -> PartitionConfig {
    PartitionConfig {
        period: 10 * MS,
        duration: 5 * MS,
        max_processes: 16,
        stack_total: 1 << 20,
        ..PartitionConfig::default()
    }
}

pub fn kernel() -> Kernel {
    Kernel::new(cfg()).unwrap()
}

pub fn attrs(n: &str, prio: Priority, period: i64, capacity: i64) -> ProcessAttributes {
    ProcessAttributes {
        name: name(n),
        entry: 0x1000,
        stack_size: 4096,
        base_priority: prio,
        period,
        time_capacity: capacity,
        deadline: DeadlineType::Hard,
    }
}

/// Creates an aperiodic process with infinite capacity.
pub fn aperiodic(k: &mut Kernel, n: &str, prio: Priority) -> ProcessId {
    k.create_process(
        0,
        MAIN,
        &attrs(n, prio, INFINITE_TIME_VALUE, INFINITE_TIME_VALUE),
    )
    .unwrap()
}

/// Creates and starts (during initialisation) an aperiodic process.
pub fn spawn(k: &mut Kernel, n: &str, prio: Priority) -> ProcessId {
    let p = aperiodic(k, n, prio);
    k.start(0, MAIN, p).unwrap();
    p
}

pub fn normal(k: &mut Kernel, now: i64) {
    k.set_partition_mode(now, MAIN, OperatingMode::Normal)
        .unwrap();
}

pub fn pr(p: ProcessId) -> Runner {
    Runner::Process(p)
}

/// The process running on core 0.
pub fn cur(k: &Kernel) -> Option<ProcessId> {
    match k.running(0) {
        Some(Runner::Process(p)) => Some(p),
        _ => None,
    }
}

pub fn state(k: &Kernel, p: ProcessId) -> ProcessState {
    k.get_process_status(p).unwrap().process_state
}

pub fn effects(k: &mut Kernel) -> Vec<Effect> {
    k.drain_effects().collect()
}

pub fn misses(k: &mut Kernel) -> Vec<(ProcessId, i64)> {
    k.drain_effects()
        .filter_map(|e| match e {
            Effect::DeadlineMissed { process, deadline } => Some((process, deadline)),
            _ => None,
        })
        .collect()
}
