// SPDX-License-Identifier: MIT OR Apache-2.0
//! Pseudo-partitions end to end: a UDP source and destination (datagrams echoed through a
//! partition), a named-pipe source and a file destination (length-prefixed records copied
//! through a partition; an oversized record is counted, not forwarded), and a sampling port
//! recorded into a file.

mod common;

use common::*;
use std::io::{BufRead, BufReader, Write};
use std::net::UdpSocket;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

fn free_udp_port() -> u16 {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn records(b: &[u8]) -> Vec<Vec<u8>> {
    let mut v = Vec::new();
    let mut i = 0;
    while i + 4 <= b.len() {
        let n = u32::from_le_bytes(b[i..i + 4].try_into().unwrap()) as usize;
        assert!(i + 4 + n <= b.len(), "truncated record in {b:?}");
        v.push(b[i + 4..i + 4 + n].to_vec());
        i += 4 + n;
    }
    assert_eq!(i, b.len(), "trailing bytes");
    v
}

#[test]
fn udp_fifo_and_file_pseudo_partitions() {
    let _s = serial();
    if let Err(r) = capable() {
        return skip("udp_fifo_and_file_pseudo_partitions", &r);
    }
    let exe = partition_exe("ports_echo");
    let dir = scratch("ports-pseudo");
    let (p_in, p_out) = (free_udp_port(), free_udp_port());
    let fifo = dir.join("in.fifo");
    let file = dir.join("out.bin");
    let samples = dir.join("samples.bin");
    partita_sys::port::mkfifo(&fifo).unwrap();
    let xml = format!(
        r#"<?xml version="1.0"?>
<ARINC_653_Module xmlns:partita="urn:partita:1" ModuleName="pseudo">
  <Partition PartitionIdentifier="1" PartitionName="echo" Criticality="LEVEL_C" SystemPartition="false" EntryPoint="main">
    <partita:Executable path="{exe}"/>
    <Queuing_Port Name="CMD_IN" MaxMessageSize="64" Direction="DESTINATION" MaxNbMessages="16"/>
    <Queuing_Port Name="ECHO_OUT" MaxMessageSize="80" Direction="SOURCE" MaxNbMessages="16"/>
    <Queuing_Port Name="FIFO_IN" MaxMessageSize="64" Direction="DESTINATION" MaxNbMessages="16"/>
    <Queuing_Port Name="FILE_OUT" MaxMessageSize="64" Direction="SOURCE" MaxNbMessages="16"/>
    <Sampling_Port Name="SAMP_OUT" MaxMessageSize="32" Direction="SOURCE"/>
  </Partition>
  <Module_Schedule MajorFrameSeconds="0.02">
    <Partition_Schedule PartitionIdentifier="1" PeriodSeconds="0.02" PeriodDurationSeconds="0.015">
      <Window_Schedule WindowIdentifier="1" WindowStartSeconds="0" WindowDurationSeconds="0.015" PartitionPeriodStart="true"/>
    </Partition_Schedule>
  </Module_Schedule>
  <Connection_Table>
    <Channel ChannelIdentifier="1"><Source><Pseudo_Partition Name="ground" partita:Udp="127.0.0.1:{p_in}"/></Source>
      <Destination><Standard_Partition PartitionIdentifier="1" PortName="CMD_IN"/></Destination></Channel>
    <Channel ChannelIdentifier="2"><Source><Standard_Partition PartitionIdentifier="1" PortName="ECHO_OUT"/></Source>
      <Destination><Pseudo_Partition Name="ground_rx" partita:Udp="127.0.0.1:{p_out}"/></Destination></Channel>
    <Channel ChannelIdentifier="3"><Source><Pseudo_Partition Name="pipe" partita:Fifo="{fifo}"/></Source>
      <Destination><Standard_Partition PartitionIdentifier="1" PortName="FIFO_IN"/></Destination></Channel>
    <Channel ChannelIdentifier="4"><Source><Standard_Partition PartitionIdentifier="1" PortName="FILE_OUT"/></Source>
      <Destination><Pseudo_Partition Name="recorder" partita:File="{file}"/></Destination></Channel>
    <Channel ChannelIdentifier="5"><Source><Standard_Partition PartitionIdentifier="1" PortName="SAMP_OUT"/></Source>
      <Destination><Pseudo_Partition Name="sampler" partita:File="{samples}"/></Destination></Channel>
  </Connection_Table>
</ARINC_653_Module>
"#,
        exe = exe.display(),
        fifo = fifo.display(),
        file = file.display(),
        samples = samples.display(),
    );
    let path = dir.join("module.xml");
    std::fs::write(&path, xml).unwrap();
    let rx = UdpSocket::bind(("127.0.0.1", p_out)).unwrap();
    rx.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
    let mut child = partita()
        .arg("run")
        .arg(&path)
        .args(["--duration", "3s"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let err_thread = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).unwrap();
        s
    });
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut out = String::new();
    for l in lines.by_ref() {
        let l = l.unwrap();
        out += &l;
        out.push('\n');
        if l.contains("echo ready") {
            break;
        }
    }
    assert!(out.contains("echo ready"), "{out}");
    // UDP in, echo out, in order.
    let tx = UdpSocket::bind("127.0.0.1:0").unwrap();
    for i in 0..20 {
        tx.send_to(format!("hello {i}").as_bytes(), ("127.0.0.1", p_in))
            .unwrap();
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut got = Vec::new();
    let mut buf = [0u8; 256];
    while got.len() < 20 {
        match rx.recv(&mut buf) {
            Ok(n) => got.push(String::from_utf8_lossy(&buf[..n]).into_owned()),
            Err(e) => panic!("echo {} missing: {e}\n{out}", got.len()),
        }
    }
    let want: Vec<String> = (0..20).map(|i| format!("echo:hello {i}")).collect();
    assert_eq!(got, want);
    // A burst larger than the queue: what does not fit is dropped, counted, and the
    // partition's next RECEIVE reports the overflow (INVALID_CONFIG with the message).
    for i in 0..100 {
        tx.send_to(format!("burst {i}").as_bytes(), ("127.0.0.1", p_in))
            .unwrap();
    }
    rx.set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let mut burst = Vec::new();
    while let Ok(n) = rx.recv(&mut buf) {
        burst.push(String::from_utf8_lossy(&buf[..n]).into_owned());
    }
    let numbers: Vec<u32> = burst
        .iter()
        .map(|m| m.strip_prefix("echo:burst ").unwrap().parse().unwrap())
        .collect();
    assert!(!numbers.is_empty() && numbers.len() < 100, "{numbers:?}");
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{numbers:?}");
    // Records into the pipe: two good ones around an oversized one.
    let mut w = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    let mut rec = |b: &[u8]| {
        let mut v = (b.len() as u32).to_le_bytes().to_vec();
        v.extend_from_slice(b);
        w.write_all(&v).unwrap();
    };
    rec(b"first record");
    rec(&[7u8; 100]);
    rec(b"second record");
    drop(w);
    for l in lines {
        out += &l.unwrap();
        out.push('\n');
    }
    let status = child.wait().unwrap();
    out += &err_thread.join().unwrap();
    assert!(status.success(), "{out}");
    assert!(!out.contains("ERROR"), "{out}");
    let copied = records(&std::fs::read(&file).unwrap());
    assert_eq!(
        copied,
        vec![b"first record".to_vec(), b"second record".to_vec()],
        "{out}"
    );
    assert!(
        out.contains("pseudo-partition pipe (source of channel 3")
            && out.contains("2 in, 0 out, 0 dropped, 1 empty, too long or inconsistent"),
        "the oversized record must be counted:\n{out}"
    );
    assert!(
        out.contains("pseudo-partition ground (source of channel 1, udp 127.0.0.1:"),
        "{out}"
    );
    let ticks: Vec<u64> = records(&std::fs::read(&samples).unwrap())
        .iter()
        .map(|r| {
            String::from_utf8_lossy(r)
                .strip_prefix("tick ")
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("bad sample {r:?}"))
        })
        .collect();
    assert!(ticks.len() > 10, "{ticks:?}");
    assert!(ticks.windows(2).all(|w| w[0] < w[1]), "{ticks:?}");
}

/// A module of two partitions running `exe`, `writer` (port OUT, in the first 8 ms of a 20 ms
/// frame) and `reader` (port IN, from 10 ms to 18 ms), joined by channel 1 from OUT to IN and
/// to any further `destinations`. `port` is the port element and its attributes besides name
/// and direction (`("Queuing_Port", r#"MaxMessageSize="4" MaxNbMessages="8""#)`).
fn writer_reader_module(
    name: &str,
    exe: &Path,
    writer_args: &[&str],
    reader_args: &[&str],
    port: (&str, &str),
    destinations: &str,
) -> String {
    let args = |a: &[&str]| {
        a.iter()
            .map(|a| format!("<partita:Arg>{a}</partita:Arg>"))
            .collect::<String>()
    };
    let (element, attrs) = port;
    format!(
        r#"<?xml version="1.0"?>
<ARINC_653_Module xmlns:partita="urn:partita:1" ModuleName="{name}">
  <Partition PartitionIdentifier="1" PartitionName="writer" Criticality="LEVEL_C" SystemPartition="false" EntryPoint="main">
    <partita:Executable path="{exe}">{wargs}</partita:Executable>
    <{element} Name="OUT" Direction="SOURCE" {attrs}/>
  </Partition>
  <Partition PartitionIdentifier="2" PartitionName="reader" Criticality="LEVEL_C" SystemPartition="false" EntryPoint="main">
    <partita:Executable path="{exe}">{rargs}</partita:Executable>
    <{element} Name="IN" Direction="DESTINATION" {attrs}/>
  </Partition>
  <Module_Schedule MajorFrameSeconds="0.02">
    <Partition_Schedule PartitionIdentifier="1" PeriodSeconds="0.02" PeriodDurationSeconds="0.008">
      <Window_Schedule WindowIdentifier="1" WindowStartSeconds="0" WindowDurationSeconds="0.008" PartitionPeriodStart="true"/>
    </Partition_Schedule>
    <Partition_Schedule PartitionIdentifier="2" PeriodSeconds="0.02" PeriodDurationSeconds="0.008">
      <Window_Schedule WindowIdentifier="2" WindowStartSeconds="0.01" WindowDurationSeconds="0.008" PartitionPeriodStart="true"/>
    </Partition_Schedule>
  </Module_Schedule>
  <Connection_Table>
    <Channel ChannelIdentifier="1"><Source><Standard_Partition PartitionIdentifier="1" PortName="OUT"/></Source>
      <Destination><Standard_Partition PartitionIdentifier="2" PortName="IN"/></Destination>{destinations}</Channel>
  </Connection_Table>
</ARINC_653_Module>
"#,
        exe = exe.display(),
        wargs = args(writer_args),
        rargs = args(reader_args),
    )
}

/// A partition restart (COLD_START) keeps its peer's channel working (no message lost or
/// repeated across the restart) and refuses the port identifier of the previous incarnation.
#[test]
fn restart_keeps_channels_and_refuses_stale_port_ids() {
    let _s = serial();
    if let Err(r) = capable() {
        return skip("restart_keeps_channels_and_refuses_stale_port_ids", &r);
    }
    let exe = partition_exe("ports_restart");
    let dir = scratch("ports-restart");
    // A relative path: in the writer's own run directory (its working directory, kept
    // across its restart), which its uid reaches wherever the checkout is.
    let xml = writer_reader_module(
        "restart",
        &exe,
        &["writer", "port-id"],
        &["reader"],
        ("Queuing_Port", r#"MaxMessageSize="4" MaxNbMessages="8""#),
        "",
    );
    let path = dir.join("module.xml");
    std::fs::write(&path, xml).unwrap();
    let json = dir.join("report.json");
    let o = partita()
        .arg("run")
        .arg(&path)
        .args(["--duration", "2s", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(!out.contains("ERROR"), "{out}");
    assert!(out.contains("WRITER restarting"), "{out}");
    assert!(out.contains("WRITER done"), "{out}");
    assert!(out.contains("READER got 100 in order"), "{out}");
    // INVALID_PARAM (3) for the identifier of the previous incarnation.
    let stale = out
        .lines()
        .find(|l| l.contains("STALE"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(stale.ends_with("rc=3"), "{stale}");
    // Each partition holds only its own channel ends (directory, data area, read state), and
    // cannot map its peer's memory writable.
    let access: Vec<&str> = out.lines().filter(|l| l.contains("ACCESS")).collect();
    assert_eq!(access.len(), 3, "{out}");
    for l in access {
        assert!(
            l.ends_with("ACCESS fds=3 peer_writable=no own_writable=yes"),
            "{l}\n{out}"
        );
    }
    // The data area belongs to the writer (partition 0), the read state to the reader
    // (partition 1), both mode 0644: their uids as the run assigned them (in id block 0, or
    // another when a module running at the same time holds it).
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let uid = |i: usize| {
        report["partitions"][i]["uid"]
            .as_u64()
            .unwrap_or_else(|| panic!("no uid for partition {i}: {report}"))
    };
    let (w, r) = (uid(0), uid(1));
    assert_ne!(w, r, "{report}");
    let owners = format!("OWNERS data={w}:{w}/644 state={r}:{r}/644");
    assert_eq!(
        out.lines().filter(|l| l.ends_with(&owners)).count(),
        3,
        "{owners}\n{out}"
    );
    assert!(out.contains("1 restarts"), "{out}");
}

/// A partition that corrupts its own sampling channel's data area (an inconsistent published
/// slot, a counter it keeps changing) holds neither its reader partition nor the manager's
/// bridge: the reader goes on reading (INVALID) in every period, the bridge forwards only the
/// good messages and counts the inconsistent one (`tests/partitions/sampling_corrupter.c`).
#[test]
fn a_partition_that_corrupts_its_sampling_channel_holds_no_reader() {
    let _s = serial();
    if let Err(r) = capable() {
        return skip(
            "a_partition_that_corrupts_its_sampling_channel_holds_no_reader",
            &r,
        );
    }
    let exe = partition_exe("sampling_corrupter");
    let dir = scratch("ports-corrupt");
    let samples = dir.join("samples.bin");
    let xml = writer_reader_module(
        "corrupt",
        &exe,
        &["corrupt"],
        &["read"],
        (
            "Sampling_Port",
            r#"MaxMessageSize="16" RefreshRateSeconds="1""#,
        ),
        &format!(
            r#"
      <Destination><Pseudo_Partition Name="sampler" partita:File="{}"/></Destination>"#,
            samples.display()
        ),
    );
    let path = dir.join("module.xml");
    std::fs::write(&path, xml).unwrap();
    // A bridge held by the channel would never let the run end.
    let o = output_within(
        partita().arg("run").arg(&path).args(["--duration", "3s"]),
        std::time::Duration::from_secs(60),
    );
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(!out.contains("ERROR"), "{out}");
    assert!(out.contains("CORRUPTED addr="), "{out}");
    // The reader saw valid messages, then the corrupt one as INVALID (0: whatever the slot
    // held), and kept its periods going long after the corruption (period 21 of ~150).
    let reads: Vec<&str> = out.lines().filter(|l| l.contains("READ rc=")).collect();
    assert!(
        reads
            .first()
            .is_some_and(|l| l.contains("READ rc=0 validity=1") && l.ends_with("text=good")),
        "{out}"
    );
    assert!(
        reads
            .last()
            .is_some_and(|l| l.contains("READ rc=0 validity=0")),
        "{out}"
    );
    assert!(out.contains("PERIODS 100"), "the reader was held:\n{out}");
    assert!(out.contains("ALIVE 100"), "{out}");
    // The bridge forwarded only good messages and counted the inconsistent one.
    let recs = records(&std::fs::read(&samples).unwrap());
    assert!(!recs.is_empty(), "{out}");
    assert!(
        recs.iter().all(|r| r.starts_with(b"good ")),
        "{recs:?}\n{out}"
    );
    let note = out
        .lines()
        .find(|l| l.contains("pseudo-partition sampler"))
        .unwrap_or_else(|| panic!("no bridge note\n{out}"));
    assert!(
        note.contains(", 0 dropped, 1 empty, too long or inconsistent, 0 I/O errors"),
        "{note}"
    );
}
