// SPDX-License-Identifier: MIT OR Apache-2.0
//! Runtime start-up: the control block (or standalone defaults), the kernel's configuration,
//! the fault handlers and the main process's priority.

use super::fault::{on_fault, thread_fault_setup};
use super::threads::Slot;
use super::{InitError, Runtime, ME};
use partita_apex_core::{
    Kernel, OperatingMode, PartitionConfig, Runner, SchedulingPolicy, StartCondition,
};
use partita_sys::control::{self, ControlBlock};
use partita_sys::shm::SharedMapping;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

impl Runtime {
    pub(super) fn init() -> Result<Runtime, InitError> {
        partita_sys::startup::line_buffer_c_stdout();
        let fd: Option<i32> = std::env::var(control::ENV_CONTROL_FD)
            .ok()
            .and_then(|v| v.parse().ok());
        let (ctl, standalone) = match fd {
            Some(fd) => {
                let m = SharedMapping::map_inherited(fd, control::SIZE, true)
                    .map_err(InitError::ControlBlock)?;
                if !m.view::<ControlBlock>().is_valid() {
                    return Err(InitError::ControlBlockVersion);
                }
                (Some(m), false)
            }
            None => {
                eprintln!(
                    "partita runtime: not started by the partition manager ({} unset): running standalone with a {} ms period",
                    control::ENV_CONTROL_FD,
                    PartitionConfig::default().period / 1_000_000
                );
                (None, true)
            }
        };
        let now = partita_sys::time::monotonic_ns();
        let (cfg, epoch, rt_run, cpus) = match &ctl {
            Some(m) => {
                let c = m.view::<ControlBlock>();
                let ld = |a: &AtomicI64| a.load(Ordering::Acquire);
                let cfg = PartitionConfig {
                    identifier: c.partition_id.load(Ordering::Acquire) as i64,
                    period: ld(&c.period_ns),
                    duration: ld(&c.duration_ns),
                    period_origin: ld(&c.period_origin_ns),
                    cores: c.num_cores.load(Ordering::Acquire).max(1),
                    initial_mode: if c.operating_mode() == Ok(OperatingMode::WarmStart) {
                        OperatingMode::WarmStart
                    } else {
                        OperatingMode::ColdStart
                    },
                    start_condition: StartCondition::from_raw(
                        c.start_condition.load(Ordering::Acquire),
                    )
                    .unwrap_or_default(),
                    policy: if c.process_policy.load(Ordering::Acquire)
                        == control::process_policy::EDF
                    {
                        SchedulingPolicy::Edf
                    } else {
                        SchedulingPolicy::FixedPriority
                    },
                    ..PartitionConfig::default()
                };
                let cfg = PartitionConfig {
                    max_processes: match c.max_processes.load(Ordering::Acquire) {
                        0 => cfg.max_processes,
                        n => n as usize,
                    },
                    stack_total: match c.stack_bytes.load(Ordering::Acquire) {
                        0 => cfg.stack_total,
                        n => n,
                    },
                    ..cfg
                };
                let mask = c.cpus.load(Ordering::Acquire);
                let cpus: Vec<u32> = (0..64).filter(|b| mask & (1 << b) != 0).collect();
                (
                    cfg,
                    c.epoch_ns.load(Ordering::Acquire),
                    c.rt_run_priority.load(Ordering::Acquire),
                    cpus,
                )
            }
            None => {
                // Standalone: PARTITA_PROCESS_POLICY=EDF selects EDF (for tests).
                let edf = std::env::var("PARTITA_PROCESS_POLICY")
                    .is_ok_and(|v| v.eq_ignore_ascii_case("edf"));
                let cfg = PartitionConfig {
                    policy: if edf {
                        SchedulingPolicy::Edf
                    } else {
                        SchedulingPolicy::FixedPriority
                    },
                    ..PartitionConfig::default()
                };
                (cfg, now, 0, Vec::new())
            }
        };
        let cores = cfg.cores;
        let mut kernel = Kernel::new(cfg).map_err(InitError::Configuration)?;
        if let Some(m) = &ctl {
            let c = m.view::<ControlBlock>();
            let traced = crate::trace::open(
                c.trace_capacity.load(Ordering::Acquire),
                c.partition_index.load(Ordering::Acquire),
                c.trace_apex_calls.load(Ordering::Acquire) != 0,
            );
            if traced {
                kernel.set_trace(Box::new(crate::trace::KernelSink));
            }
        }
        let report = if standalone {
            None
        } else {
            partita_sys::startup::inherited_file(control::REPORT_FD)
        };
        // PARTITA_PARK_LOWERING=0/1 overrides the manager's choice (for measurements).
        let park_lowering = match std::env::var("PARTITA_PARK_LOWERING").ok().as_deref() {
            Some("0") => false,
            Some("1") => true,
            _ => ctl.as_ref().is_none_or(|m| {
                m.view::<ControlBlock>()
                    .park_lowering
                    .load(Ordering::Acquire)
                    != 0
            }),
        };
        // APEX time from the counter clock where the manager found the host's counter fit
        // (standalone: where this process finds it fit); PARTITA_COUNTER_CLOCK=0 declines it.
        let counter_clock = std::env::var("PARTITA_COUNTER_CLOCK").as_deref() != Ok("0")
            && match &ctl {
                Some(m) => {
                    m.view::<ControlBlock>().time_source.load(Ordering::Acquire)
                        == control::time_source::COUNTER
                }
                None => partita_sys::time::counter_clock_unsupported().is_none(),
            };
        if counter_clock {
            if let Some(m) = &ctl {
                let c = m.view::<ControlBlock>();
                partita_sys::time::COUNTER_CLOCK.seed(
                    c.clock_seed_tick.load(Ordering::Acquire),
                    c.clock_seed_ns.load(Ordering::Acquire),
                );
            }
            partita_sys::time::COUNTER_CLOCK.enable();
        }
        let rt = Runtime {
            ctl,
            epoch,
            kernel: Mutex::new(kernel),
            slots: RwLock::new(Vec::new()),
            main: Arc::new({
                let s = Slot::new(0, Arc::new(|| {}), 0);
                s.tid.store(partita_sys::sched::gettid(), Ordering::Release);
                s
            }),
            handler: OnceLock::new(),
            designated: (0..cores)
                .map(|c| AtomicU32::new(if c == 0 { 1 } else { 0 }))
                .collect(),
            timer_word: AtomicU32::new(0),
            timer_armed: AtomicI64::new(i64::MAX),
            rt_run,
            park_lowering,
            report: Mutex::new(report),
            standalone,
            idle: AtomicBool::new(false),
        };
        // Pins the main thread to core 0 (see crate::affinity).
        crate::affinity::init(cpus);
        ME.with(|m| m.set(Some(Runner::Main)));
        // Hardware faults of the runtime's threads go to the health monitor.
        if let Err(e) = partita_sys::fault::install_fault_handlers(on_fault) {
            eprintln!(
                "partita runtime: cannot handle hardware faults ({e}); a fault kills the partition"
            );
        }
        thread_fault_setup(0);
        if rt.rt_run > 0 {
            // The main (initialisation) process runs at the running priority. Failure means
            // the host denies SCHED_FIFO: scheduling then relies on futexes alone.
            if partita_sys::sched::set_fifo(0, rt.rt_run).is_err() {
                eprintln!("partita runtime: SCHED_FIFO denied; process preemption is deferred to APEX calls");
            } else {
                rt.main.prio.store(rt.rt_run, Ordering::Release);
            }
        }
        Ok(rt)
    }
}
