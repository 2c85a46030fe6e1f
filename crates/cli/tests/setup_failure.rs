// SPDX-License-Identifier: MIT OR Apache-2.0
//! A run whose set-up fails after the partitions' cgroups exist (here: a pseudo-partition
//! address the bridge cannot bind) ends with exit code 4 and leaves nothing behind: the
//! manager's run value tears down whatever it had created.

mod common;
use common::*;

#[test]
fn a_failed_set_up_leaves_no_cgroup_behind() {
    let _g = serial();
    if let Err(r) = capable() {
        return skip("a_failed_set_up_leaves_no_cgroup_behind", &r);
    }
    let dir = scratch("setup-failure");
    let exe = partition_exe("quiet");
    // 192.0.2.1 (TEST-NET-1) is no address of this host: binding it fails.
    let xml = format!(
        r#"<?xml version="1.0"?>
<ARINC_653_Module xmlns:partita="urn:partita:1" ModuleName="setup-failure">
  <Partition PartitionIdentifier="1" PartitionName="P" Criticality="LEVEL_C" SystemPartition="false" EntryPoint="main">
    <partita:Executable path="{exe}"/>
    <Queuing_Port Name="IN" MaxMessageSize="64" Direction="DESTINATION" MaxNbMessages="4"/>
  </Partition>
  <Module_Schedule MajorFrameSeconds="0.02">
    <Partition_Schedule PartitionIdentifier="1" PeriodSeconds="0.02" PeriodDurationSeconds="0.01">
      <Window_Schedule WindowIdentifier="1" WindowStartSeconds="0" WindowDurationSeconds="0.01" PartitionPeriodStart="true"/>
    </Partition_Schedule>
  </Module_Schedule>
  <Connection_Table>
    <Channel ChannelIdentifier="1"><Source><Pseudo_Partition Name="ground" partita:Udp="192.0.2.1:9"/></Source>
      <Destination><Standard_Partition PartitionIdentifier="1" PortName="IN"/></Destination></Channel>
  </Connection_Table>
</ARINC_653_Module>
"#,
        exe = exe.display()
    );
    let module = dir.join("module.xml");
    std::fs::write(&module, xml).unwrap();
    let child = partita()
        .args(["run", "--duration", "1s"])
        .arg(&module)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("bind UDP 192.0.2.1:9"),
        "{}",
        text(&out)
    );
    assert!(
        cgroups_of(pid).is_empty(),
        "cgroups left: {:?}",
        cgroups_of(pid)
    );
}
