// SPDX-License-Identifier: MIT OR Apache-2.0
//! The test guests of crates/kvm-guest, each run in its own VM, end in the typed outcome they
//! are written for. Needs /dev/kvm (prints SKIPPED otherwise).

mod common;

use common::{config, guest, hypervisor, run_to_end, vm};
use partita_abi::vm::{IMAGE_BASE, MAX_MEMORY, MAX_WRITE, MIN_MEMORY, PAGE_SIZE, TIME_PAGE};
use partita_kvm::{
    BadHypercall, BadHypercallReason, Exit, Fault, Hypercall, ImageError, Kicker, Vm, VmConfig,
    VmError,
};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// How far apart the guest's clock and the host's may be: the TSC set and paired with the
/// monotonic clock a few microseconds apart, a TSC frequency known to the kHz.
const CLOCK_SLACK_NS: u64 = 2_000_000;

/// The longest a kick may take to stop a running guest. Generous: a kick is a signal to a
/// running thread, but the machine may be loaded.
const KICK_BOUND: Duration = Duration::from_secs(2);

/// The hello guest's first line.
fn hello_line(vm: &Vm) -> String {
    format!(
        "hello from the guest: memory {:#x}, free from {:#x}\n",
        vm.memory_size(),
        vm.image_end()
    )
}

fn hello_output(vm: &Vm) -> Vec<u8> {
    let mut expected = hello_line(vm).into_bytes();
    expected.extend((0..5000usize).map(|i| (i * 7 % 256) as u8));
    expected
}

fn assert_ended(vm: &mut Vm) {
    assert!(
        matches!(vm.run(), Err(VmError::Ended(_))),
        "an ended guest must not run again"
    );
}

#[test]
fn hello_writes_its_output_intact_reads_the_time_and_exits() {
    let Some(hv) = hypervisor("hello_writes_its_output_intact_reads_the_time_and_exits") else {
        return;
    };
    let cfg = config();
    let mut vm = Vm::new(&hv, &guest("hello"), &cfg).expect("vm");
    let started = partita_sys::time::monotonic_ns() - cfg.time_base_ns;
    let mut output = Vec::new();
    let mut echoes = Vec::new();
    let end = loop {
        match vm.run().expect("run") {
            Exit::Hypercall(Hypercall::Write(b)) => output.extend(b),
            Exit::Hypercall(Hypercall::Echo(t)) => {
                echoes.push((t, partita_sys::time::monotonic_ns() - cfg.time_base_ns))
            }
            other => break other,
        }
    };
    assert_eq!(end, Exit::Exited { code: 0 });
    assert_eq!(
        output,
        hello_output(&vm),
        "the output, {} bytes over two write calls, arrives intact",
        output.len()
    );
    assert!(output.len() as u64 > MAX_WRITE);
    let [(t0, host_at_t0), (t1, host_at_t1)] = echoes[..] else {
        panic!("two time reports expected: {echoes:?}");
    };
    assert!(
        (started.saturating_sub(CLOCK_SLACK_NS)..=host_at_t0 + CLOCK_SLACK_NS).contains(&t0),
        "guest time {t0} ns outside the host's {started}..{host_at_t0} ns"
    );
    assert!((t0..=host_at_t1 + CLOCK_SLACK_NS).contains(&t1));
    assert_ended(&mut vm);
}

/// Kicks through `kicker` after `delay`; the instant of the kick comes back on the channel.
fn kick_after(kicker: Kicker, delay: Duration) -> mpsc::Receiver<Instant> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        thread::sleep(delay);
        let at = Instant::now();
        kicker.kick().expect("kick");
        let _ = tx.send(at);
    });
    rx
}

fn read_counter(vm: &Vm, addr: u64) -> u64 {
    let mut b = [0u8; 8];
    vm.read_memory(addr, &mut b).expect("counter");
    u64::from_le_bytes(b)
}

#[test]
fn a_spinning_guest_is_stopped_by_the_kick_resumed_and_stopped_again() {
    let Some(hv) = hypervisor("a_spinning_guest_is_stopped_by_the_kick_resumed_and_stopped_again")
    else {
        return;
    };
    let mut vm = vm(&hv, "spinner");
    let Exit::Hypercall(Hypercall::Echo(counter)) = vm.run().expect("run") else {
        panic!("the spinner reports its counter first");
    };
    assert!((IMAGE_BASE..vm.image_end()).contains(&counter));
    let mut seen = 0;
    for round in 0..2 {
        let kicked = kick_after(vm.kicker(), Duration::from_millis(50));
        assert_eq!(vm.run().expect("run"), Exit::Kicked, "round {round}");
        let stopped = Instant::now();
        let at = kicked.recv().expect("kick instant");
        assert!(
            stopped.saturating_duration_since(at) < KICK_BOUND,
            "round {round}: stopped {:?} after the kick",
            stopped.saturating_duration_since(at)
        );
        let now = read_counter(&vm, counter);
        assert!(now > seen, "round {round}: the guest ran ({seen} -> {now})");
        seen = now;
        // Stopped means stopped: the counter does not move while the guest is out.
        thread::sleep(Duration::from_millis(10));
        assert_eq!(read_counter(&vm, counter), now);
    }
    // A kick while the guest is not running stops the next run before it enters.
    vm.kicker().kick().expect("kick");
    assert_eq!(vm.run().expect("run"), Exit::Kicked);
    assert_eq!(read_counter(&vm, counter), seen);
}

#[test]
fn a_wild_write_is_a_page_fault_at_its_address() {
    let Some(hv) = hypervisor("a_wild_write_is_a_page_fault_at_its_address") else {
        return;
    };
    let mut vm = vm(&hv, "wild_write");
    let o = run_to_end(&mut vm, 10);
    let Some(Exit::Fault(f)) = o.end else {
        panic!("a page fault expected: {o:?}");
    };
    assert_eq!(f.vector, 14, "{f}");
    assert_eq!(f.address, Some(vm.memory_size() + 0x10_0000), "{f}");
    // Error code: not present (bit 0 clear), write (bit 1), user mode (bit 2).
    assert_eq!(f.error_code.map(|e| e & 7), Some(6), "{f}");
    assert!(f.from_user, "{f}");
    assert!((IMAGE_BASE..vm.image_end()).contains(&f.rip), "{f}");
    assert_ended(&mut vm);
}

#[test]
fn invalid_opcode_and_division_by_zero_are_faults_with_their_vectors() {
    let Some(hv) = hypervisor("invalid_opcode_and_division_by_zero_are_faults_with_their_vectors")
    else {
        return;
    };
    for (name, vector) in [("invalid_opcode", 6), ("divide", 0)] {
        let mut vm = vm(&hv, name);
        let o = run_to_end(&mut vm, 10);
        match o.end {
            Some(Exit::Fault(Fault {
                vector: v,
                error_code: None,
                rip,
                address: None,
                from_user: true,
            })) if v == vector => {
                assert!(
                    (IMAGE_BASE..vm.image_end()).contains(&rip),
                    "{name}: rip {rip:#x}"
                )
            }
            other => panic!("{name}: fault {vector} expected, got {other:?}"),
        }
        assert_ended(&mut vm);
    }
}

/// Port output and `cli` from user mode (IOPL 0, no I/O permission bitmap): #GP with error
/// code 0, from the instruction itself. So a guest can neither reach a port nor mask
/// interrupts (and the kick needs no guest interrupt).
#[test]
fn port_io_and_cli_from_user_mode_are_general_protection_faults() {
    let Some(hv) = hypervisor("port_io_and_cli_from_user_mode_are_general_protection_faults")
    else {
        return;
    };
    for name in ["port_io", "cli_spin"] {
        let mut vm = vm(&hv, name);
        let o = run_to_end(&mut vm, 10);
        match o.end {
            Some(Exit::Fault(f)) if f.vector == 13 && f.error_code == Some(0) && f.from_user => {
                assert!((IMAGE_BASE..vm.image_end()).contains(&f.rip), "{name}: {f}")
            }
            other => panic!("{name}: #GP expected, got {other:?}"),
        }
        assert_ended(&mut vm);
    }
}

/// A guest cannot reach its system tables (they are kernel-only pages), so it cannot break
/// its own fault path; the monitor can. With the system area zeroed, the guest's next fault
/// finds no gate, nor for the fault that follows, nor for the double fault: a triple fault.
#[test]
fn a_guest_whose_fault_path_is_broken_ends_in_a_triple_fault() {
    let Some(hv) = hypervisor("a_guest_whose_fault_path_is_broken_ends_in_a_triple_fault") else {
        return;
    };
    let mut vm = vm(&hv, "invalid_opcode");
    let system_area = vec![0u8; (TIME_PAGE - PAGE_SIZE) as usize];
    vm.write_memory(PAGE_SIZE, &system_area)
        .expect("zero the system area");
    let o = run_to_end(&mut vm, 10);
    assert_eq!(o.end, Some(Exit::TripleFault), "{o:?}");
    assert_ended(&mut vm);
    // Contained: the next VM runs normally.
    let mut good = common::vm(&hv, "hello");
    let o = run_to_end(&mut good, 100);
    assert_eq!(o.end, Some(Exit::Exited { code: 0 }));
    assert_eq!(o.output, hello_output(&good));
}

#[test]
fn a_faulting_guest_does_not_affect_the_next_vm() {
    let Some(hv) = hypervisor("a_faulting_guest_does_not_affect_the_next_vm") else {
        return;
    };
    for name in ["wild_write", "port_io", "divide"] {
        let mut bad = vm(&hv, name);
        let o = run_to_end(&mut bad, 10);
        assert!(
            matches!(o.end, Some(Exit::Fault(_) | Exit::TripleFault)),
            "{name}: {o:?}"
        );
        let mut good = vm(&hv, "hello");
        let o = run_to_end(&mut good, 100);
        assert_eq!(o.end, Some(Exit::Exited { code: 0 }), "after {name}");
        assert_eq!(o.output, hello_output(&good), "after {name}");
    }
}

#[test]
fn a_hypercall_flood_is_answered_in_order_and_still_stopped_by_the_kick() {
    let Some(hv) =
        hypervisor("a_hypercall_flood_is_answered_in_order_and_still_stopped_by_the_kick")
    else {
        return;
    };
    let mut vm = vm(&hv, "flood");
    let kicked = kick_after(vm.kicker(), Duration::from_millis(200));
    let mut next = 0u64;
    loop {
        match vm.run().expect("run") {
            Exit::Hypercall(Hypercall::Echo(v)) => {
                assert_eq!(v, next, "echoes in order");
                next += 1;
            }
            Exit::Kicked => break,
            other => panic!("echo or kick expected, got {other:?}"),
        }
    }
    let stopped = Instant::now();
    let at = kicked.recv().expect("kick instant");
    assert!(stopped.saturating_duration_since(at) < KICK_BOUND);
    assert!(next > 0, "the guest made hypercalls");
    println!("{next} hypercalls in 200 ms");
    // Resumed after the kick, it goes on where it was.
    match vm.run().expect("run") {
        Exit::Hypercall(Hypercall::Echo(v)) => assert_eq!(v, next),
        other => panic!("the flood goes on, got {other:?}"),
    }
}

#[test]
fn bad_hypercalls_are_refused_with_their_reason() {
    let Some(hv) = hypervisor("bad_hypercalls_are_refused_with_their_reason") else {
        return;
    };
    let mut vm = vm(&hv, "bad_hypercalls");
    let o = run_to_end(&mut vm, 20);
    assert_eq!(
        o.end,
        Some(Exit::Exited { code: 0 }),
        "the guest saw every refusal it could: {o:?}"
    );
    let outside = vm.memory_size() + 0x1000;
    let reasons: Vec<BadHypercallReason> = o
        .others
        .iter()
        .map(|e| match e {
            Exit::BadHypercall(BadHypercall { reason, rip }) => {
                assert!((IMAGE_BASE..vm.image_end()).contains(rip), "rip {rip:#x}");
                *reason
            }
            other => panic!("only refusals expected, got {other:?}"),
        })
        .collect();
    assert_eq!(
        reasons,
        vec![
            BadHypercallReason::BufferOutside {
                addr: outside,
                len: 16
            },
            BadHypercallReason::UnknownNumber(99),
            BadHypercallReason::BlockOutside { addr: outside },
            BadHypercallReason::Misaligned {
                addr: vm.image_end() + 4
            },
            BadHypercallReason::TooLong {
                len: MAX_WRITE + 1,
                max: MAX_WRITE
            },
        ]
    );
}

#[test]
fn an_image_that_does_not_fit_and_bad_sizes_are_refused_before_the_vm_starts() {
    let Some(hv) =
        hypervisor("an_image_that_does_not_fit_and_bad_sizes_are_refused_before_the_vm_starts")
    else {
        return;
    };
    let image = guest("hello");
    let odd = VmConfig {
        memory_size: (8 << 20) + 4096,
        ..config()
    };
    assert!(matches!(
        Vm::new(&hv, &image, &odd),
        Err(VmError::MemorySize { .. })
    ));
    let mut big = image.clone();
    big.segments[0].mem_size = 8 << 20;
    assert!(matches!(
        Vm::new(&hv, &big, &config()),
        Err(VmError::Image(ImageError::SegmentOutside { .. }))
    ));
}

#[test]
fn the_apex_kernel_runs_inside_the_guest_on_its_heap_and_clock() {
    let Some(hv) = hypervisor("the_apex_kernel_runs_inside_the_guest_on_its_heap_and_clock") else {
        return;
    };
    let mut vm = vm(&hv, "apex_kernel");
    let o = run_to_end(&mut vm, 20);
    let text = String::from_utf8_lossy(&o.output).into_owned();
    assert_eq!(o.end, Some(Exit::Exited { code: 0 }), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(lines[0], "apex kernel in the guest: HI runs first");
    assert_eq!(lines[1], "apex kernel in the guest: HI waits 3 ms, LO runs");
    let waited: u64 = lines[2]
        .strip_prefix("apex kernel in the guest: HI runs again after ")
        .and_then(|s| s.strip_suffix(" us"))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(waited >= 3000, "the guest's clock ran {waited} us");
}

#[test]
fn the_smallest_and_the_largest_guest_memory_run() {
    let Some(hv) = hypervisor("the_smallest_and_the_largest_guest_memory_run") else {
        return;
    };
    for memory_size in [MIN_MEMORY, MAX_MEMORY] {
        let cfg = VmConfig {
            memory_size,
            ..config()
        };
        let mut vm = Vm::new(&hv, &guest("hello"), &cfg).expect("vm");
        let o = run_to_end(&mut vm, 100);
        assert_eq!(o.end, Some(Exit::Exited { code: 0 }), "{memory_size:#x}");
        assert_eq!(o.output, hello_output(&vm), "{memory_size:#x}");
        assert!(hello_line(&vm).contains(&format!("memory {memory_size:#x}")));
    }
}
