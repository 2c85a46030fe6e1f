// SPDX-License-Identifier: MIT OR Apache-2.0
//! Port stress test: 10^6 queuing messages (two channels, 16..512 and 16..64 bytes, blocking
//! sends and receives) and 5·10^5 sampling messages (16..256 bytes) between two partitions on
//! two cores, whose windows stop and resume them every 10 ms, while the test also stops
//! (SIGSTOP) and resumes (SIGCONT) them at random extra points. The reader checks every
//! queuing message's sequence number and checksum (no loss, duplication, reordering or
//! tearing) and that sampled messages are intact and never go back in sequence.
//!
//! `PORTS_STRESS_N` overrides the number of messages per queuing channel (default 500000).

mod common;

use common::*;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn module(dir: &Path, exe: &Path, n: u64) -> std::path::PathBuf {
    let part = |i: u32, role: &str, d: &str| {
        let sfx = if d == "SOURCE" { "OUT" } else { "IN" };
        let refresh = if d == "SOURCE" {
            ""
        } else {
            " RefreshRateSeconds=\"1\""
        };
        format!(
            "  <Partition PartitionIdentifier=\"{i}\" PartitionName=\"{role}\" Criticality=\"LEVEL_C\" SystemPartition=\"false\" EntryPoint=\"main\">\n    <partita:Executable path=\"{}\"><partita:Arg>{role}</partita:Arg><partita:Arg>{n}</partita:Arg></partita:Executable>\n    <Queuing_Port Name=\"Q1_{sfx}\" MaxMessageSize=\"512\" Direction=\"{d}\" MaxNbMessages=\"64\"/>\n    <Queuing_Port Name=\"Q2_{sfx}\" MaxMessageSize=\"64\" Direction=\"{d}\" MaxNbMessages=\"256\"/>\n    <Sampling_Port Name=\"S_{sfx}\" MaxMessageSize=\"256\" Direction=\"{d}\"{refresh}/>\n  </Partition>\n",
            exe.display()
        )
    };
    let mut x = String::from(
        "<?xml version=\"1.0\"?>\n<ARINC_653_Module xmlns:partita=\"urn:partita:1\" ModuleName=\"ports-stress\">\n",
    );
    x += &part(1, "writer", "SOURCE");
    x += &part(2, "reader", "DESTINATION");
    x += "  <Module_Schedule MajorFrameSeconds=\"0.01\">\n";
    for (i, role, start, core) in [(1, "writer", "0", 0), (2, "reader", "0.002", 1)] {
        x += &format!(
            "    <Partition_Schedule PartitionIdentifier=\"{i}\" PartitionName=\"{role}\" PeriodSeconds=\"0.01\" PeriodDurationSeconds=\"0.007\">\n      <Window_Schedule WindowIdentifier=\"{i}\" WindowStartSeconds=\"{start}\" WindowDurationSeconds=\"0.007\" PartitionPeriodStart=\"true\" partita:Core=\"{core}\"/>\n    </Partition_Schedule>\n"
        );
    }
    x += "  </Module_Schedule>\n  <Connection_Table>\n";
    for (id, p) in [(1, "Q1"), (2, "Q2"), (3, "S")] {
        x += &format!(
            "    <Channel ChannelIdentifier=\"{id}\"><Source><Standard_Partition PartitionIdentifier=\"1\" PortName=\"{p}_OUT\"/></Source><Destination><Standard_Partition PartitionIdentifier=\"2\" PortName=\"{p}_IN\"/></Destination></Channel>\n"
        );
    }
    x += "  </Connection_Table>\n</ARINC_653_Module>\n";
    let path = dir.join("module.xml");
    std::fs::write(&path, x).unwrap();
    path
}

/// xorshift.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn field(line: &str, key: &str) -> u64 {
    line.split_whitespace()
        .find_map(|f| f.strip_prefix(key)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
        .unwrap_or(u64::MAX)
}

#[test]
fn million_messages_with_random_stops() {
    let _s = serial();
    if let Err(r) = capable() {
        return skip("million_messages_with_random_stops", &r);
    }
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        // One partition per core: with both on one core the queues' capacity per window
        // bounds the throughput to a few 10^4 messages per second.
        return skip(
            "million_messages_with_random_stops",
            "needs two cores to move 10^6 messages within a minute",
        );
    }
    let n: u64 = std::env::var("PORTS_STRESS_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(500_000);
    let exe = partition_exe("ports_stress");
    let dir = scratch("ports-stress");
    let xml = module(&dir, &exe, n);
    let mut child = partita()
        .arg("run")
        .arg(&xml)
        .args(["--duration", "55s"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let stops = Arc::new(AtomicU64::new(0));
    // Random extra stops and resumes of both partitions.
    let stopper = {
        let (done, stops, token) = (done.clone(), stops.clone(), exe.display().to_string());
        std::thread::spawn(move || {
            let mut rng = Rng(0x5eed_1234_abcd);
            while !done.load(Ordering::Acquire) {
                std::thread::sleep(Duration::from_micros(200 + rng.next() % 3000));
                let pids = processes_with(&token);
                if pids.is_empty() {
                    continue;
                }
                let pid = pids[(rng.next() % pids.len() as u64) as usize];
                if partita_sys::proc::kill(pid, 19).is_ok() {
                    stops.fetch_add(1, Ordering::Relaxed);
                    std::thread::sleep(Duration::from_micros(rng.next() % 2000));
                    let _ = partita_sys::proc::kill(pid, 18);
                }
            }
        })
    };
    let start = Instant::now();
    let mut out = String::new();
    let mut reader_done = None;
    let mut writer_done = None;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        out.push_str(&line);
        out.push('\n');
        if line.contains("READER DONE") {
            reader_done = Some(line.clone());
        }
        if line.contains("WRITER DONE") {
            writer_done = Some(line.clone());
        }
        if reader_done.is_some() && writer_done.is_some() {
            done.store(true, Ordering::Release);
            let _ = partita_sys::proc::kill(child.id() as i32, 2);
        }
    }
    done.store(true, Ordering::Release);
    stopper.join().unwrap();
    let status = child.wait().unwrap();
    let elapsed = start.elapsed();
    let errors: Vec<&str> = out.lines().filter(|l| l.contains("ERROR")).collect();
    let stops = stops.load(Ordering::Relaxed);
    println!(
        "ports stress: {} queuing + {n} sampling messages in {:.1} s, {stops} random stops, manager {status}",
        2 * n,
        elapsed.as_secs_f64()
    );
    assert!(errors.is_empty(), "errors:\n{}\n{out}", errors.join("\n"));
    let r = reader_done.unwrap_or_else(|| panic!("the reader did not finish:\n{out}"));
    assert!(writer_done.is_some(), "the writer did not finish:\n{out}");
    assert_eq!(field(&r, "q1"), n, "{r}");
    assert_eq!(field(&r, "q2"), n, "{r}");
    assert_eq!(field(&r, "errors"), 0, "{r}");
    assert!(field(&r, "sampling") > 0, "{r}");
    assert!(stops > 10, "only {stops} random stops");
}
