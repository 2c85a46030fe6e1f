// SPDX-License-Identifier: MIT OR Apache-2.0
//! The port attacks of the hostile-partition suite: mapping a neighbour's port buffer, and
//! writing to the attacker's own read-only port mapping (`tests/partitions/port_attacker.c`).

use super::*;

/// The attacker's `RESULT <what> ...` line.
fn result_line(run: &Run, what: &str) -> String {
    let key = format!("RESULT {what} ");
    run.log("attacker")
        .lines()
        .find(|l| l.starts_with(&key))
        .unwrap_or_else(|| panic!("no `{key}` line\n{}", run.context()))
        .to_string()
}

#[test]
fn a_neighbours_port_buffer_cannot_be_mapped() {
    let _g = serial();
    neighbours_port_buffer("a_neighbours_port_buffer_cannot_be_mapped", true);
}

/// The same without namespaces: the attacker sees every process of the host, and its uid
/// alone keeps it out of their descriptors.
#[test]
fn without_namespaces_its_uid_alone_keeps_a_partition_from_a_neighbours_port_buffer() {
    let _g = serial();
    neighbours_port_buffer(
        "without_namespaces_its_uid_alone_keeps_a_partition_from_a_neighbours_port_buffer",
        false,
    );
}

fn neighbours_port_buffer(test: &str, namespaces: bool) {
    let Some(run) = suite_with(
        test,
        "port_attacker",
        Setup {
            pidfile: true,
            args: vec!["neighbour"],
            run_args: if namespaces {
                vec![]
            } else {
                vec!["--no-namespaces"]
            },
        },
    ) else {
        return;
    };
    assert_eq!(
        run.report["namespaces"] != "none",
        namespaces,
        "{}",
        run.context()
    );
    // ENOENT: the pid does not exist in its PID namespace; EACCES: the process belongs to
    // another uid.
    let errno = if namespaces { 2 } else { 13 };
    let log = run.log("attacker");
    assert!(log.contains("ATTACK returned"), "{}", run.context());
    // Through /proc/<pid>/fd of `far` (which holds channel 1's data area read-write) and of
    // the manager (which holds every channel's memory).
    for who in ["far", "manager"] {
        assert_eq!(
            result_line(&run, &format!("proc-fd-{who}")),
            format!("RESULT proc-fd-{who} opened=0 foreign=0 errno={errno}"),
            "{}",
            run.context()
        );
    }
    assert_eq!(
        result_line(&run, "map-files-far"),
        format!("RESULT map-files-far rc=-1 errno={errno}")
    );
    // Every process it can list (with namespaces: itself only; without: the host's):
    // whatever it opens there is its own, never a process of another uid (a module running
    // at the same time has its partitions in another id block).
    let ns = result_line(&run, "ns-view");
    assert!(ns.ends_with(" foreign=0"), "{ns}\n{}", run.context());
    if namespaces {
        assert!(ns.contains(" pids=1 "), "{ns}");
        assert!(ns.contains(" same-uid=0 "), "{ns}");
    } else {
        let pids: u64 = ns
            .split_whitespace()
            .find_map(|f| f.strip_prefix("pids=")?.parse().ok())
            .unwrap_or(0);
        assert!(pids > 3, "{ns}");
    }
    assert!(!ns.contains(" opened=0 "), "its own descriptors: {ns}");
    // Guessed paths: memfds have no path.
    let guesses: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("RESULT path "))
        .collect();
    assert_eq!(guesses.len(), 5, "{}", run.context());
    for g in guesses {
        assert!(g.ends_with(" rc=-1 errno=2"), "{g}\n{}", run.context());
    }
    assert_eq!(
        result_line(&run, "dev-shm"),
        "RESULT dev-shm manager-objects=0"
    );
    // A memfd of the same name is a new empty file.
    assert_eq!(
        result_line(&run, "memfd-same-name"),
        "RESULT memfd-same-name rc=0 size=0"
    );
    // Its descriptors: the only Partita memory it holds is its control block, its own
    // channel 2 (read-only) and perhaps its port directory (the runtime closes it once
    // read) — no descriptor of channel 1.
    let names: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("FD ") && l.contains("memfd:"))
        .map(|l| {
            l.split_whitespace()
                .nth(2)
                .unwrap_or("")
                .trim_start_matches("/memfd:")
        })
        .collect();
    assert!(names.contains(&"partita-sampling-2"), "{}", run.context());
    for n in &names {
        assert!(
            [
                "partita-ctl-attacker",
                "partita-ports-1",
                "partita-sampling-2"
            ]
            .contains(n),
            "it holds {n}\n{}",
            run.context()
        );
    }
    // Descriptor numbers it was not given (channel 1 is at 17 and 18 in `far` and `next`).
    let fd_tries: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("RESULT mmap-fd-"))
        .collect();
    assert!(fd_tries.len() >= 6, "{}", run.context());
    for t in &fd_tries {
        assert!(t.ends_with(" rc=-1 errno=9"), "{t}\n{}", run.context());
    }
    for n in [18, 19] {
        assert!(
            fd_tries
                .iter()
                .any(|t| t.starts_with(&format!("RESULT mmap-fd-{n} "))),
            "descriptor {n} was open\n{}",
            run.context()
        );
    }
    // Its own channel still works, and nothing was recorded against it (failed opens are
    // ordinary errors).
    assert!(log.contains("READ later rc=0 msg=m"), "{}", run.context());
    assert!(
        hm::records(&run, "attacker").is_empty(),
        "{}",
        run.context()
    );
}

#[test]
fn a_write_to_its_own_read_only_port_mapping_is_a_memory_violation() {
    let _g = serial();
    let Some(run) = suite_with(
        "a_write_to_its_own_read_only_port_mapping_is_a_memory_violation",
        "port_attacker",
        Setup {
            pidfile: true,
            args: vec!["readonly"],
            ..Setup::default()
        },
    ) else {
        return;
    };
    let log = run.log("attacker");
    // The runtime mapped the writer's data area read-only and shared.
    let addr = log
        .lines()
        .find_map(|l| l.strip_prefix("MAP addr="))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no MAP line\n{}", run.context()))
        .to_string();
    assert!(
        log.contains(&format!("MAP addr={addr} perms=r--s ")),
        "{}",
        run.context()
    );
    assert!(log.contains("READ before rc=0 msg=m"), "{}", run.context());
    // It cannot make the mapping or another one writable: the descriptor is O_RDONLY and
    // the memfd belongs to the writer's uid (mode 0644).
    for what in [
        "mprotect-write",
        "reopen-rw",
        "mmap-shared-write",
        "mmap-then-mprotect-write",
    ] {
        assert_eq!(
            result_line(&run, what),
            format!("RESULT {what} rc=-1 errno=13"),
            "{}",
            run.context()
        );
    }
    // A private copy is writable, and changes nothing for anybody.
    assert_eq!(
        result_line(&run, "mmap-private-write"),
        "RESULT mmap-private-write rc=0 errno=0"
    );
    assert!(
        log.contains("READ after-private rc=0 msg=m"),
        "{}",
        run.context()
    );
    // The write faults: MEMORY_VIOLATION (SIGSEGV, SEGV_ACCERR) of the attack process,
    // recorded at partition level, the process stopped.
    assert!(log.contains("WRITING"), "{}", run.context());
    assert!(!log.contains("write-returned"), "{}", run.context());
    let mv = hm::logged(
        &run,
        "attacker",
        "MEMORY_VIOLATION",
        "runtime-error",
        &[&format!("at {addr}: SIGSEGV (si_code 2)")],
    );
    assert_eq!(mv.len(), 1, "{}", run.context());
    assert!(
        mv[0]["process"].as_i64().is_some_and(|p| p >= 0)
            && mv[0]["state"] == "PROCESS_EXECUTION"
            && mv[0]["level"] == "PARTITION",
        "{}",
        run.context()
    );
    assert_eq!(hm::records(&run, "attacker").len(), 1, "{}", run.context());
    // The channel was not written: the attacker keeps reading far's messages, newer ones.
    let later = log
        .lines()
        .find_map(|l| l.strip_prefix("LATER "))
        .unwrap_or_else(|| panic!("no LATER line\n{}", run.context()));
    let nums: Vec<i64> = later
        .split_whitespace()
        .filter_map(|f| f.split('=').nth(1)?.parse().ok())
        .collect();
    assert!(
        nums.len() == 2 && nums[0] >= 0 && nums[1] > nums[0],
        "{later}\n{}",
        run.context()
    );
}

/// The port thread's CPU time and the periods it was measured over, from the last
/// `PORTS cpu_us=<t> periods=<n>` line of `tests/partitions/port_flood.c`.
fn port_thread_cpu(out: &str) -> (u64, u64) {
    let l = out
        .lines()
        .rev()
        .find_map(|l| l.split_once("PORTS ").map(|(_, r)| r))
        .unwrap_or_else(|| panic!("no PORTS line\n{out}"));
    let field = |k: &str| -> u64 {
        l.split_whitespace()
            .find_map(|f| f.strip_prefix(k))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{k} in {l:?}"))
    };
    (field("cpu_us="), field("periods="))
}

/// A peer in a window at the same time on another core (outside the single-core suite
/// above) that calls FUTEX_WAKE on its channel's word in a loop cannot keep the neighbour's
/// port thread, which runs above its processes, busy: that thread's CPU time stays a small
/// share of the neighbour's windows, as with a peer that only spins. Before the port thread
/// budgeted such wake-ups it took ~75 % of every window.
#[test]
fn a_peer_on_another_core_cannot_flood_a_port_thread() {
    let _g = serial();
    let test = "a_peer_on_another_core_cannot_flood_a_port_thread";
    if let Err(r) = capable() {
        return skip(test, &r);
    }
    if partita_sys::sched::online_cpus() < 2 {
        return skip(test, "needs two CPUs (the peers run at the same time)");
    }
    let exe = partition_exe("port_flood");
    let dir = scratch("iso-port-flood");
    let mut share = Vec::new();
    for mode in ["spin", "flood"] {
        let xml = format!(
            r#"<?xml version="1.0"?>
<ARINC_653_Module xmlns:partita="urn:partita:1" ModuleName="flood">
  <Partition PartitionIdentifier="1" PartitionName="peer" Criticality="LEVEL_C" SystemPartition="false" EntryPoint="main">
    <partita:Executable path="{exe}"><partita:Arg>{mode}</partita:Arg></partita:Executable>
    <Queuing_Port Name="OUT" MaxMessageSize="16" Direction="SOURCE" MaxNbMessages="8"/>
  </Partition>
  <Partition PartitionIdentifier="2" PartitionName="victim" Criticality="LEVEL_C" SystemPartition="false" EntryPoint="main">
    <partita:Executable path="{exe}"><partita:Arg>victim</partita:Arg></partita:Executable>
    <Queuing_Port Name="IN" MaxMessageSize="16" Direction="DESTINATION" MaxNbMessages="8"/>
  </Partition>
  <Module_Schedule MajorFrameSeconds="0.02">
    <Partition_Schedule PartitionIdentifier="1" PeriodSeconds="0.02" PeriodDurationSeconds="0.01">
      <Window_Schedule WindowIdentifier="1" WindowStartSeconds="0" WindowDurationSeconds="0.01" PartitionPeriodStart="true" partita:Core="1"/>
    </Partition_Schedule>
    <Partition_Schedule PartitionIdentifier="2" PeriodSeconds="0.02" PeriodDurationSeconds="0.01">
      <Window_Schedule WindowIdentifier="2" WindowStartSeconds="0" WindowDurationSeconds="0.01" PartitionPeriodStart="true" partita:Core="0"/>
    </Partition_Schedule>
  </Module_Schedule>
  <Connection_Table>
    <Channel ChannelIdentifier="1"><Source><Standard_Partition PartitionIdentifier="1" PortName="OUT"/></Source>
      <Destination><Standard_Partition PartitionIdentifier="2" PortName="IN"/></Destination></Channel>
  </Connection_Table>
</ARINC_653_Module>
"#,
            exe = exe.display()
        );
        let path = dir.join(format!("{mode}.xml"));
        std::fs::write(&path, xml).unwrap();
        let o = output_within(
            partita().arg("run").arg(&path).args(["--duration", "3s"]),
            Duration::from_secs(60),
        );
        let out = text(&o);
        assert!(o.status.success(), "{out}");
        assert!(!out.contains("ERROR"), "{out}");
        let (cpu_us, periods) = port_thread_cpu(&out);
        assert!(periods >= 100, "{out}");
        // Of the victim's window time (10 ms a period).
        let pct = cpu_us as f64 / (periods * 10_000) as f64 * 100.0;
        println!("{mode}: port thread {cpu_us} us over {periods} windows ({pct:.2} %)");
        if mode == "flood" {
            assert!(out.contains("FLOODING addr="), "{out}");
            assert!(
                out.contains("partita runtime: port IN: its peer woke the port thread"),
                "the flood was not noticed:\n{out}"
            );
        }
        share.push((pct, out));
    }
    for (pct, out) in &share {
        assert!(
            *pct < 5.0,
            "port thread took {pct:.1} % of the windows\n{out}"
        );
    }
}
