// SPDX-License-Identifier: MIT OR Apache-2.0
//! Known names per place: the attributes and child elements each element may carry.

// Known names per place: (unqualified, partita-qualified).
pub(super) const ROOT_ATTRS: (&[&str], &[&str]) =
    (&["ModuleName", "ModuleVersion", "ModuleId"], &[]);
pub(super) const ROOT_CHILDREN: (&[&str], &[&str]) = (
    &[
        "Partition",
        "Partition_Memory",
        "Module_Schedule",
        "Connection_Table",
        "System_HM_Table",
        "Module_HM_Table",
        "Partition_HM_Table",
    ],
    &["Backend"],
);
pub(super) const PARTITION_ATTRS: (&[&str], &[&str]) = (
    &[
        "PartitionIdentifier",
        "PartitionName",
        "Criticality",
        "SystemPartition",
        "EntryPoint",
    ],
    &[],
);
pub(super) const PARTITION_CHILDREN: (&[&str], &[&str]) = (
    &["Sampling_Port", "Queuing_Port"],
    &[
        "Executable",
        "Resources",
        "Process",
        "ProcessScheduling",
        "GeneralPurpose",
    ],
);
pub(super) const SAMPLING_ATTRS: (&[&str], &[&str]) = (
    &["Name", "MaxMessageSize", "Direction", "RefreshRateSeconds"],
    &[],
);
pub(super) const QUEUING_ATTRS: (&[&str], &[&str]) = (
    &["Name", "MaxMessageSize", "Direction", "MaxNbMessages"],
    &[],
);
pub(super) const EXECUTABLE_ATTRS: (&[&str], &[&str]) = (&["path"], &[]);
pub(super) const EXECUTABLE_CHILDREN: (&[&str], &[&str]) = (&[], &["Arg"]);
pub(super) const RESOURCES_ATTRS: (&[&str], &[&str]) =
    (&["memoryBytes", "maxProcesses", "stackBytes", "cores"], &[]);
pub(super) const PROCESS_ATTRS: (&[&str], &[&str]) = (
    &[
        "name",
        "periodSeconds",
        "wcetSeconds",
        "deadlineSeconds",
        "priority",
    ],
    &[],
);
pub(super) const GENERAL_PURPOSE_ATTRS: (&[&str], &[&str]) =
    (&["background", "network", "hostAddress", "address"], &[]);
pub(super) const GENERAL_PURPOSE_CHILDREN: (&[&str], &[&str]) = (&[], &["Bind"]);
pub(super) const BIND_ATTRS: (&[&str], &[&str]) = (&["source", "target", "access"], &[]);
pub(super) const POLICY_ATTRS: (&[&str], &[&str]) = (&["policy"], &[]);
pub(super) const BACKEND_ATTRS: (&[&str], &[&str]) = (&["name"], &[]);
pub(super) const NO_NAMES: (&[&str], &[&str]) = (&[], &[]);
pub(super) const REF_ATTRS: (&[&str], &[&str]) = (&["PartitionIdentifier", "PartitionName"], &[]);
pub(super) const MEMORY_CHILDREN: (&[&str], &[&str]) = (&["Memory_Requirements"], &[]);
pub(super) const MEMREQ_ATTRS: (&[&str], &[&str]) = (
    &[
        "RegionName",
        "Type",
        "SizeBytes",
        "Access",
        "PhysicalAddress",
    ],
    &[],
);
pub(super) const SCHEDULE_ATTRS: (&[&str], &[&str]) = (
    &[
        "ScheduleIdentifier",
        "ScheduleName",
        "MajorFrameSeconds",
        "InitialModuleSchedule",
    ],
    &[],
);
pub(super) const SCHEDULE_CHILDREN: (&[&str], &[&str]) = (&["Partition_Schedule"], &[]);
pub(super) const PSCHED_ATTRS: (&[&str], &[&str]) = (
    &[
        "PartitionIdentifier",
        "PartitionName",
        "PeriodSeconds",
        "PeriodDurationSeconds",
        "ScheduleChangeAction",
        "SetModuleSchedule",
    ],
    &[],
);
pub(super) const PSCHED_CHILDREN: (&[&str], &[&str]) = (&["Window_Schedule"], &[]);
pub(super) const WINDOW_ATTRS: (&[&str], &[&str]) = (
    &[
        "WindowIdentifier",
        "WindowStartSeconds",
        "WindowDurationSeconds",
        "PartitionPeriodStart",
    ],
    &["Core"],
);
pub(super) const CTABLE_CHILDREN: (&[&str], &[&str]) = (&["Channel"], &[]);
pub(super) const CHANNEL_ATTRS: (&[&str], &[&str]) = (&["ChannelIdentifier", "ChannelName"], &[]);
pub(super) const CHANNEL_CHILDREN: (&[&str], &[&str]) = (&["Source", "Destination"], &[]);
pub(super) const SIDE_CHILDREN: (&[&str], &[&str]) =
    (&["Standard_Partition", "Pseudo_Partition"], &[]);
pub(super) const STANDARD_ATTRS: (&[&str], &[&str]) =
    (&["PartitionIdentifier", "PartitionName", "PortName"], &[]);
pub(super) const PSEUDO_ATTRS: (&[&str], &[&str]) = (
    &["Name", "PortName", "PhysicalAddress", "Procedure"],
    &["Udp", "File", "Fifo"],
);
pub(super) const HM_TABLE_CHILDREN: (&[&str], &[&str]) = (&["System_State_Entry"], &[]);
pub(super) const STATE_ATTRS: (&[&str], &[&str]) = (&["SystemState", "Description"], &[]);
pub(super) const SYSTEM_STATE_CHILDREN: (&[&str], &[&str]) = (&["Error_ID_Level"], &[]);
pub(super) const ACTION_STATE_CHILDREN: (&[&str], &[&str]) = (&["Error_ID_Action"], &[]);
pub(super) const ERROR_LEVEL_ATTRS: (&[&str], &[&str]) = (
    &["ErrorIdentifier", "Description", "ErrorLevel", "ErrorCode"],
    &[],
);
pub(super) const MODULE_ACTION_ATTRS: (&[&str], &[&str]) =
    (&["ErrorIdentifier", "Description", "Action"], &[]);
pub(super) const PARTITION_ACTION_ATTRS: (&[&str], &[&str]) = (
    &["ErrorIdentifier", "Description", "Action", "ErrorCode"],
    &[],
);
