// SPDX-License-Identifier: MIT OR Apache-2.0
//! GUEST CODE (test guest): the APEX kernel (`partita-apex-core`, no_std + alloc) inside the
//! VM, on the guest's heap and clock. Two processes: HI (priority 9) waits 3 ms, LO (2) runs
//! meanwhile; when the guest's clock passes the kernel's next event, HI runs again. Prints one
//! line per step; exits 0 when every decision is the expected one, else the failed step.
#![no_std]
#![no_main]

use partita_apex_core::{
    name, CallOutcome, DeadlineType, Kernel, OperatingMode, PartitionConfig, Priority,
    ProcessAttributes, ProcessId, Runner, INFINITE_TIME_VALUE,
};
use partita_kvm_guest as rt;

const MS: i64 = 1_000_000;

fn now() -> i64 {
    i64::try_from(rt::now_ns()).unwrap_or(i64::MAX)
}

fn process(k: &mut Kernel, label: &str, priority: Priority) -> Option<ProcessId> {
    let attrs = ProcessAttributes {
        name: name(label),
        entry: 0,
        stack_size: 4096,
        base_priority: priority,
        period: INFINITE_TIME_VALUE,
        time_capacity: INFINITE_TIME_VALUE,
        deadline: DeadlineType::Hard,
    };
    let p = k.create_process(now(), Runner::Main, &attrs).ok()?;
    k.start(now(), Runner::Main, p).ok()?;
    Some(p)
}

fn main(_memory_end: u64, _free_start: u64) -> u64 {
    let cfg = PartitionConfig {
        period: 10 * MS,
        duration: 5 * MS,
        max_processes: 4,
        stack_total: 1 << 20,
        ..PartitionConfig::default()
    };
    let Ok(mut k) = Kernel::new(cfg) else {
        return 10;
    };
    let (Some(lo), Some(hi)) = (process(&mut k, "LO", 2), process(&mut k, "HI", 9)) else {
        return 11;
    };
    if k.set_partition_mode(now(), Runner::Main, OperatingMode::Normal)
        .is_err()
    {
        return 12;
    }
    if k.running(0) != Some(Runner::Process(hi)) {
        return 13;
    }
    rt::println!("apex kernel in the guest: HI runs first");
    let waited_at = now();
    if k.timed_wait(waited_at, Runner::Process(hi), 3 * MS) != Ok(CallOutcome::Blocked) {
        return 14;
    }
    if k.running(0) != Some(Runner::Process(lo)) {
        return 15;
    }
    rt::println!("apex kernel in the guest: HI waits 3 ms, LO runs");
    let Some(due) = k.next_event_time() else {
        return 16;
    };
    if due < waited_at + 3 * MS {
        return 17;
    }
    while now() < due {
        core::hint::spin_loop();
    }
    k.advance(now());
    if k.running(0) != Some(Runner::Process(hi)) {
        return 18;
    }
    rt::println!(
        "apex kernel in the guest: HI runs again after {} us",
        (now() - waited_at) / 1000
    );
    0
}

rt::entry!(main);
