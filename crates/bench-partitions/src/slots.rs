// SPDX-License-Identifier: MIT OR Apache-2.0
//! A counting partition of `partita bench slots`: one process increments a counter as fast as
//! it can and, every [`CHUNK`] iterations, reads the APEX clock and books the iterations since
//! the last reading to the window the reading falls in.

use crate::PartitionError;
use partita_apex::apex;
use partita_apex::core::OperatingMode;
use partita_bench_protocol::args::SlotsPartitionArgs;
use partita_bench_protocol::slots::SlotsResult;

/// Iterations between two clock readings (about a microsecond of work).
pub const CHUNK: u64 = 1024;

/// What the counting loop books into the windows.
#[derive(Debug, Clone)]
pub struct Ledger {
    frame: i64,
    offset: i64,
    window: i64,
    /// Per window: iterations, first and last reading.
    counts: Vec<u64>,
    first: Vec<i64>,
    last: Vec<i64>,
    outside: u64,
}

impl Ledger {
    /// A ledger of `windows` windows at `offset` of every `frame`, `window` long (ns).
    pub fn new(frame: i64, offset: i64, window: i64, windows: usize) -> Ledger {
        Ledger {
            frame,
            offset,
            window,
            counts: vec![0; windows],
            first: vec![i64::MAX; windows],
            last: vec![i64::MIN; windows],
            outside: 0,
        }
    }

    /// Books `n` iterations at APEX time `t`; `false` once `t` is past the last window.
    pub fn book(&mut self, t: i64, n: u64) -> bool {
        let rel = t - self.offset;
        if rel < 0 {
            return true;
        }
        let k = (rel / self.frame) as usize;
        if k >= self.counts.len() {
            return false;
        }
        if rel % self.frame >= self.window {
            self.outside += 1;
        }
        self.counts[k] += n;
        self.first[k] = self.first[k].min(t);
        self.last[k] = self.last[k].max(t);
        true
    }

    /// The result.
    pub fn result(&self) -> SlotsResult {
        SlotsResult {
            error: None,
            counts: self.counts.clone(),
            effective_ns: self
                .first
                .iter()
                .zip(&self.last)
                .map(|(&a, &b)| if b > a { b - a } else { 0 })
                .collect(),
            outside: self.outside,
            chunk: CHUNK,
        }
    }
}

/// A counting partition ([`SlotsPartitionArgs`]), run by the partition manager: one process
/// at the lowest priority counts until the last window has passed, then writes the result
/// file. A set-up error is written there too.
pub fn partition_main(words: &[String]) -> Result<(), PartitionError> {
    let args = SlotsPartitionArgs::parse(words)?;
    set_up(&args).inspect_err(|e| {
        let r = SlotsResult {
            error: Some(e.to_string()),
            ..SlotsResult::default()
        };
        partita_bench_protocol::write_result_or_say(&args.result, &r);
    })
}

fn set_up(args: &SlotsPartitionArgs) -> Result<(), PartitionError> {
    let rt = crate::runtime()?;
    let attrs = apex::process::ProcessAttributes {
        name: apex::name("counter"),
        entry: 0,
        stack_size: 64 * 1024,
        base_priority: 1,
        period: apex::INFINITE_TIME_VALUE,
        time_capacity: apex::INFINITE_TIME_VALUE,
        deadline: apex::process::DeadlineType::Soft,
    };
    let a = args.clone();
    let pid = apex::process::create_process(&attrs, move || {
        // Let the main thread become the APEX timer thread first (a process that never
        // blocks would starve it: see `crate::switch::partition_main`).
        std::thread::sleep(std::time::Duration::from_millis(1));
        let mut ledger = Ledger::new(a.major_frame_ns, a.offset_ns, a.window_ns, a.windows);
        let mut count = 0u64;
        loop {
            for _ in 0..CHUNK {
                count = std::hint::black_box(count + 1);
            }
            if !ledger.book(rt.now(), CHUNK) {
                break;
            }
        }
        std::hint::black_box(count);
        partita_bench_protocol::write_result_or_say(&a.result, &ledger.result());
        // Done: nothing more to do until the manager stops the module.
        let _ = apex::process::suspend_self(apex::INFINITE_TIME_VALUE);
    })
    .map_err(PartitionError::apex("CREATE_PROCESS"))?;
    apex::process::start(pid).map_err(PartitionError::apex("START"))?;
    apex::partition::set_partition_mode(OperatingMode::Normal)
        .map_err(PartitionError::apex("SET_PARTITION_MODE"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ledger_books_iterations_to_the_window_of_the_reading() {
        // Windows of 10 at offset 5 of every 100; 3 windows.
        let mut l = Ledger::new(100, 5, 10, 3);
        assert!(l.book(2, 7)); // before the first window: not booked
        assert!(l.book(6, 1));
        assert!(l.book(14, 2));
        assert!(l.book(20, 4)); // past the window's end: booked, counted outside
        assert!(l.book(107, 8));
        assert!(l.book(290, 16)); // window 2 (starts at 205), outside
        assert!(!l.book(305, 1)); // past the last window
        let r = l.result();
        assert_eq!(r.counts, [7, 8, 16]);
        assert_eq!(r.effective_ns, [14, 0, 0]);
        assert_eq!(r.outside, 2);
    }
}
