// SPDX-License-Identifier: MIT OR Apache-2.0
//! SFPBench's published figures for the tests `bench sfp` measures, printed beside ours.
//!
//! Source: the SFPBench paper (a benchmark framework for ARINC 653 RTOSes), Tables 2
//! (grey-box applications), 3 (APEX calls) and 4 (complete applications), measured on an
//! undisclosed ARINC 653 RTOS on a P2020RDB-PC board (PowerPC e500 at 1.2 GHz), in
//! microseconds. Their applications' data sets are not published: the application rows
//! compare in kind, not in size.

use serde::Serialize;

/// One published row.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct SfpPublished {
    /// The paper's table (2, 3 or 4).
    pub table: u8,
    /// The paper's name of the test.
    pub name: &'static str,
    /// Best case, us.
    pub bcet_us: f64,
    /// Worst case, us.
    pub wcet_us: f64,
    /// Average, us.
    pub average_us: f64,
    /// Standard deviation, us.
    pub stddev_us: f64,
}

const fn row(table: u8, name: &'static str, v: [f64; 4]) -> SfpPublished {
    SfpPublished {
        table,
        name,
        bcet_us: v[0],
        wcet_us: v[1],
        average_us: v[2],
        stddev_us: v[3],
    }
}

/// Tables 2, 3 and 4: the rows of tests we measure the same way (its SAMPLE APEX APP A and
/// B are one whole run each, 0.7 and 0.5 s; ours are per iteration: not comparable).
pub const SFP_PUBLISHED: [SfpPublished; 37] = [
    row(2, "Process Switch", [1.50, 17.20, 1.63, 0.85]),
    row(2, "Mutex Acquire", [1.00, 12.62, 1.05, 1.23]),
    row(2, "Mutex Release", [1.05, 15.04, 1.05, 0.17]),
    row(2, "Mutex Acquire 2", [0.36, 1.49, 0.36, 0.00]),
    row(2, "Mutex Release 2", [0.38, 2.70, 0.38, 0.01]),
    row(2, "Mutex Workload", [1.89, 2.41, 1.94, 0.01]),
    row(2, "Sem Wait", [1.57, 11.08, 1.58, 0.17]),
    row(2, "Sem Signal", [1.00, 11.72, 1.00, 0.01]),
    row(2, "Priority Sem", [0.58, 16.17, 0.69, 0.01]),
    row(2, "Sem Signal 2", [0.37, 1.70, 0.52, 0.29]),
    row(2, "Sem Wait 2", [0.45, 2.60, 1.25, 0.81]),
    row(2, "Sem Workload", [1.84, 6.08, 4.01, 2.11]),
    row(2, "Partition Switch", [22.16, 40.74, 22.44, 5.68]),
    row(3, "SEMAPHORE_CREATE", [4.56, 34.06, 13.38, 0.00]),
    row(3, "BUFFER_CREATE", [4.46, 6.53, 5.18, 0.00]),
    row(3, "BB_CREATE", [3.78, 5.53, 4.65, 0.00]),
    row(3, "CREATE_EVENT", [4.38, 7.92, 5.43, 0.00]),
    row(3, "PARTITION_STATUS", [0.29, 2.25, 0.78, 0.84]),
    row(3, "PREEMPTION_LOCK", [1.48, 3.97, 2.10, 1.07]),
    row(3, "PREEMPTION_UNLOCK", [1.72, 1.73, 1.72, 0.05]),
    row(3, "DISPLAY_BB(16)", [0.41, 1.52, 0.68, 0.47]),
    row(3, "READ_BB(16)", [0.78, 1.96, 1.11, 0.48]),
    row(3, "SEND_BUFFER(16)", [1.20, 3.01, 1.79, 0.73]),
    row(3, "SEMAPHORE_SIGNAL", [0.40, 1.05, 0.56, 0.27]),
    row(3, "MY_ID", [0.57, 1.06, 0.69, 0.21]),
    row(3, "PROCESS_ID", [0.45, 0.53, 0.48, 0.03]),
    row(3, "PROCESS_STATUS", [0.89, 2.21, 1.22, 0.56]),
    row(3, "SEMAPHORE_ID", [0.42, 0.78, 0.59, 0.13]),
    row(3, "SEMAPHORE_STATUS", [0.50, 1.49, 0.76, 0.42]),
    row(3, "EVENT_SET", [0.38, 1.00, 0.68, 0.29]),
    row(3, "EVENT_ID", [0.56, 1.40, 0.87, 0.31]),
    row(3, "EVENT_STATUS", [0.40, 1.38, 0.64, 0.42]),
    row(4, "SOBEL", [5240.64, 5251.12, 5242.86, 2.89]),
    row(4, "ADPCM", [356.32, 390.72, 364.85, 8.53]),
    row(4, "DIJKSTRA", [30.95, 58.18, 33.38, 5.78]),
    row(4, "APEX APP 1", [7.70, 37.93, 8.65, 4.12]),
    row(4, "APEX APP 2", [11.17, 35.97, 12.53, 4.29]),
];

/// The published row `name`.
pub fn sfp_published(name: &str) -> Option<&'static SfpPublished> {
    SFP_PUBLISHED.iter().find(|p| p.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_is_ordered_and_named_once() {
        for p in SFP_PUBLISHED {
            assert!(
                p.bcet_us <= p.average_us && p.average_us <= p.wcet_us,
                "{}",
                p.name
            );
            assert_eq!(
                SFP_PUBLISHED.iter().filter(|q| q.name == p.name).count(),
                1,
                "{}",
                p.name
            );
        }
        assert_eq!(SFP_PUBLISHED.iter().filter(|p| p.table == 2).count(), 13);
        assert_eq!(sfp_published("ADPCM").map(|p| p.wcet_us), Some(390.72));
    }
}
