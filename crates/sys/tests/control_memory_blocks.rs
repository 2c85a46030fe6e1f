// SPDX-License-Identifier: MIT OR Apache-2.0
//! The memory block table of the control block (ARINC 653 Part 2 memory blocks): what the
//! manager writes is what the runtime reads, and only that.

use partita_abi::MemoryBlockMode;
use partita_sys::control::{self, ControlBlock};
use partita_sys::shm::{PrivateMapping, SharedMapping};
use std::sync::atomic::Ordering;

#[test]
fn memory_block_table_keeps_names_sizes_and_modes() {
    let m = SharedMapping::create("partita-test-memblocks", control::SIZE).unwrap();
    let c = m.view::<ControlBlock>();
    assert_eq!(c.memory_blocks().count(), 0);
    let long = "a_name_of_exactly_thirty_chars";
    c.set_memory_blocks(&[
        ("table", 4096, MemoryBlockMode::ReadWrite),
        (long, 1 << 20, MemoryBlockMode::Read),
    ]);
    let t: Vec<(Vec<u8>, u64, MemoryBlockMode)> = c
        .memory_blocks()
        .map(|b| (b.name.as_bytes().to_vec(), b.size, b.mode))
        .collect();
    assert_eq!(
        t,
        vec![
            (b"table".to_vec(), 4096, MemoryBlockMode::ReadWrite),
            (long.as_bytes().to_vec(), 1 << 20, MemoryBlockMode::Read),
        ]
    );
    // An entry whose mode is not a MEMORY_BLOCK_MODE_TYPE value (the partition cannot write
    // the table, but the runtime checks anyway) is left out; a count above the table's size
    // is clamped.
    c.memory_block_modes[0].store(7, Ordering::Relaxed);
    assert_eq!(c.memory_blocks().count(), 1);
    c.memory_block_count.store(1000, Ordering::Relaxed);
    assert_eq!(
        c.memory_blocks().count(),
        control::memory_blocks::MAX_BLOCKS - 1
    );
}

#[test]
fn private_mappings_are_writable_only_when_asked() {
    let rw = PrivateMapping::anonymous(8192, true).unwrap();
    assert_eq!(rw.len(), 8192);
    let ro = PrivateMapping::anonymous(4096, false).unwrap();
    assert_ne!(rw.as_ptr(), ro.as_ptr());
    // /proc/self/maps shows the protections the mappings got.
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let perms = |p: *mut u8| {
        let a = p as usize;
        maps.lines()
            .find(|l| {
                let (range, _) = l.split_once(' ').unwrap();
                let (lo, hi) = range.split_once('-').unwrap();
                let (lo, hi) = (
                    usize::from_str_radix(lo, 16).unwrap(),
                    usize::from_str_radix(hi, 16).unwrap(),
                );
                (lo..hi).contains(&a)
            })
            .map(|l| l.split_whitespace().nth(1).unwrap().to_string())
            .unwrap()
    };
    assert!(perms(rw.as_ptr()).starts_with("rw"), "{maps}");
    assert!(perms(ro.as_ptr()).starts_with("r-"), "{maps}");
}
