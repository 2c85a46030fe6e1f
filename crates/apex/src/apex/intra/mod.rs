// SPDX-License-Identifier: MIT OR Apache-2.0
//! Intra-partition communication (ARINC 653 Part 1, 3.7): the objects the processes of one
//! partition share. Buffers and blackboards carry messages; semaphores, events and mutexes
//! synchronise. Each kind is created during initialisation, named, and found again by name
//! (`get_*_id`).

pub mod blackboard;
pub mod buffer;
pub mod event;
pub mod mutex;
pub mod semaphore;
