// SPDX-License-Identifier: MIT OR Apache-2.0
//! Generic waiting queue (FIFO or PRIORITY discipline) used by the
//! intra-partition objects.

use crate::process::Process;
use crate::types::QueuingDiscipline;
use alloc::vec::Vec;

/// The object a process waits on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ObjRef {
    Semaphore(usize),
    Event(usize),
    BufferSend(usize),
    BufferRecv(usize),
    Blackboard(usize),
    Mutex(usize),
    Port(usize),
}

/// Processes (by index) in arrival order. With the PRIORITY discipline the
/// head is the first arrived among those with the highest *current* priority,
/// so priority changes while waiting are honoured.
#[derive(Debug, Clone)]
pub(crate) struct WaitQueue {
    discipline: QueuingDiscipline,
    entries: Vec<u32>,
}

impl WaitQueue {
    /// Queue able to hold `cap` processes without reallocating.
    pub fn new(discipline: QueuingDiscipline, cap: usize) -> Self {
        Self {
            discipline,
            entries: Vec::with_capacity(cap),
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn push(&mut self, idx: usize) {
        debug_assert!(!self.contains(idx));
        self.entries.push(idx as u32);
    }

    pub fn contains(&self, idx: usize) -> bool {
        self.entries.contains(&(idx as u32))
    }

    /// Removes `idx` if present.
    pub fn remove(&mut self, idx: usize) -> bool {
        if let Some(p) = self.entries.iter().position(|&e| e as usize == idx) {
            self.entries.remove(p);
            true
        } else {
            false
        }
    }

    fn head_pos(&self, procs: &[Process]) -> Option<usize> {
        match self.discipline {
            QueuingDiscipline::Fifo => (!self.entries.is_empty()).then_some(0),
            QueuingDiscipline::Priority => {
                let mut best: Option<(usize, i32)> = None;
                for (pos, &e) in self.entries.iter().enumerate() {
                    let prio = procs[e as usize].current_priority;
                    match best {
                        Some((_, bp)) if bp >= prio => {}
                        _ => best = Some((pos, prio)),
                    }
                }
                best.map(|(p, _)| p)
            }
        }
    }

    /// The process to serve next, without removing it.
    pub fn peek(&self, procs: &[Process]) -> Option<usize> {
        self.head_pos(procs).map(|p| self.entries[p] as usize)
    }

    /// Removes and returns the process to serve next.
    pub fn pop(&mut self, procs: &[Process]) -> Option<usize> {
        let pos = self.head_pos(procs)?;
        Some(self.entries.remove(pos) as usize)
    }

    /// Pops the front entry in arrival order (ignoring the discipline).
    pub fn pop_front(&mut self) -> Option<usize> {
        (!self.entries.is_empty()).then(|| self.entries.remove(0) as usize)
    }
}
