// SPDX-License-Identifier: MIT OR Apache-2.0
//! Plans built in code: the builder's timing, and the checks every plan passes before the
//! manager runs it.

use partita_config::model::{Channel, Endpoint, PortKind};
use partita_config::{CompiledPartition, Inconsistency, PlanBuilder};
use partita_schedule::{FramePlan, Window};

fn window(id: u32, partition: usize, offset: u64, duration: u64) -> Window {
    Window {
        id,
        partition,
        core: 1,
        offset,
        duration,
        period_start: id == 1 || partition == 1,
    }
}

fn frame() -> FramePlan {
    FramePlan {
        major_frame: 10_000_000,
        windows: vec![
            window(1, 0, 0, 2_000_000),
            window(2, 1, 2_000_000, 3_000_000),
            window(3, 0, 5_000_000, 1_000_000),
        ],
    }
}

fn end(partition: usize, port: &str) -> Endpoint {
    Endpoint::Partition {
        partition,
        port: port.into(),
    }
}

fn queue(capacity: Option<u32>) -> Channel {
    Channel {
        id: 7,
        name: None,
        kind: PortKind::Queuing,
        max_message_size: 32,
        max_nb_messages: capacity,
        source: end(0, "QO"),
        destinations: vec![end(1, "QI")],
    }
}

fn builder() -> PlanBuilder {
    PlanBuilder::new("built", frame())
        .partition(CompiledPartition::new(1, "A", "/bin/true"))
        .partition(CompiledPartition {
            stack_size: Some(65536),
            ..CompiledPartition::new(2, "B", "/bin/true")
        })
}

#[test]
fn a_built_plan_times_each_partition_once_per_major_frame() {
    let plan = builder().channel(queue(Some(4))).build().expect("valid");
    assert_eq!(plan.major_frame(), 10_000_000);
    let a = plan.initial_timing(0);
    assert_eq!(
        (a.period, a.duration, a.period_origin),
        (10_000_000, 3_000_000, 0)
    );
    let b = plan.initial_timing(1);
    assert_eq!(
        (b.period, b.duration, b.period_origin),
        (10_000_000, 3_000_000, 2_000_000)
    );
    assert_eq!(plan.partitions[1].index, 1);
    assert_eq!(plan.partitions[1].stack_size, Some(65536));
    assert_eq!(plan.cores_of(0), vec![1], "the cores of its windows");
    assert!(plan.check_consistency().is_ok());
}

#[test]
fn channels_the_manager_cannot_create_are_refused() {
    assert_eq!(
        builder().channel(queue(None)).build(),
        Err(Inconsistency::Queue(7)),
        "a queue without capacity"
    );
    let mut two = queue(Some(4));
    two.destinations.push(end(0, "X"));
    assert_eq!(builder().channel(two).build(), Err(Inconsistency::Queue(7)));
    let mut empty = queue(Some(4));
    empty.max_message_size = 0;
    assert_eq!(
        builder().channel(empty).build(),
        Err(Inconsistency::MessageSize(7))
    );
    let mut far = queue(Some(4));
    far.destinations = vec![end(2, "QI")];
    assert_eq!(
        builder().channel(far).build(),
        Err(Inconsistency::ChannelPartition { channel: 7 })
    );
}

#[test]
fn a_plan_without_partitions_or_with_a_window_for_a_missing_one_is_refused() {
    assert_eq!(
        PlanBuilder::new("empty", frame()).build(),
        Err(Inconsistency::NoPartition)
    );
    assert_eq!(
        PlanBuilder::new("one", frame())
            .partition(CompiledPartition::new(1, "A", "/bin/true"))
            .build(),
        Err(Inconsistency::SchedulePartition { schedule: 0 })
    );
}
