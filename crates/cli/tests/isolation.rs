// SPDX-License-Identifier: MIT OR Apache-2.0
//! The hostile-partition suite: each test runs one module twice in the same test, once with
//! a harmless partition (`quiet`) and once with a hostile one in the same windows, and checks
//! that the attack fails or is contained, that it is recorded, and that two well-behaved
//! neighbours keep their message stream and their window-start lateness:
//!
//! - `far` (window 0–20 ms of a 100 ms frame) and `next` (window 80–95 ms, right after the
//!   attacker's 50–80 ms) must be unchanged: same stream, lateness p90 within max(2×,
//!   +200 µs) of the baseline (p90: a run has ~25 activations, so a p99 would be the single
//!   worst one, at the mercy of any other real-time work on the machine). `next` is the one
//!   an attacker with many runnable tasks would delay: they must all reach the freezer before
//!   `next` may run, which the scheduler's freeze lead makes happen in the attacker's own
//!   window (crates/manager/src/lead.rs). A bomb at its task limit would also make the kernel
//!   work in the neighbours' windows (RCU callbacks freeing its failed `clone()`s, 1.4–3 ms at
//!   a time) if the kernel saw its attempts: the manager refuses them first
//!   (crates/manager/src/creation.rs).
//!
//! The neighbours are `tests/partitions/steady.c`; the attackers are the other C files named
//! below. The module also has two channels: `far` sends a numbered message to `next` at
//! every activation (queuing channel 1: `next`'s stream over its own channel must be complete
//! and in order, as long with the attacker as without) and writes it to the attacker's
//! sampling port (channel 2, used by the port attacks only).
//!
//! Each run keeps the health monitor's logbook (`--hm-log`); the `hm` helpers read it (and,
//! for what the logbook does not hold — the priority watch's reason, the end-of-run task-limit
//! totals — the manager's log lines). The neighbours must have no logbook record in any run.

mod common;
/// The port attacks (`tests/partitions/port_attacker.c`).
#[path = "isolation/ports.rs"]
mod ports;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

const FRAME_MS: u64 = 100;
const RUN: &str = "2500ms";
/// Memory limit of the attacker partition (bytes).
const ATTACKER_MEMORY: u64 = 64 << 20;

/// What one run left behind.
struct Run {
    log_dir: PathBuf,
    stdout: String,
    report: serde_json::Value,
    /// The HM logbook, read back with `partita hm-log --json`.
    logbook: Vec<serde_json::Value>,
}

impl Run {
    /// Partition `name`'s log.
    fn log(&self, name: &str) -> String {
        std::fs::read_to_string(partita_manager::partition_log(&self.log_dir, name))
            .unwrap_or_default()
    }

    /// The manager's events (`module.log`).
    fn module_log(&self) -> String {
        std::fs::read_to_string(partita_manager::module_log(&self.log_dir)).unwrap_or_default()
    }

    fn partition(&self, name: &str) -> &serde_json::Value {
        self.report["partitions"]
            .as_array()
            .and_then(|a| a.iter().find(|p| p["name"] == name))
            .unwrap_or_else(|| panic!("no partition {name} in {}", self.report))
    }

    /// `(seq, late_ns)` of every STEADY line of neighbour `name`.
    fn stream(&self, name: &str) -> Vec<(u64, u64)> {
        self.log(name)
            .lines()
            .filter_map(|l| {
                let l = l.strip_prefix("STEADY ")?;
                let mut seq = None;
                let mut late = None;
                for f in l.split_whitespace() {
                    if let Some(v) = f.strip_prefix("seq=") {
                        seq = v.parse().ok();
                    } else if let Some(v) = f.strip_prefix("late_ns=") {
                        late = v.parse().ok();
                    }
                }
                Some((seq?, late?))
            })
            .collect()
    }

    /// Sequence numbers of the messages neighbour `name` received over its channel.
    fn port_stream(&self, name: &str) -> Vec<u64> {
        self.log(name)
            .lines()
            .filter_map(|l| l.strip_prefix("PORTMSG seq=")?.trim().parse().ok())
            .collect()
    }

    fn context(&self) -> String {
        format!(
            "--- report\n{}\n--- logbook\n{}\n--- module.log\n{}\n--- stdout (tail)\n{}",
            self.report,
            self.logbook
                .iter()
                .map(|r| r.to_string())
                .collect::<Vec<_>>()
                .join("\n"),
            self.module_log(),
            self.stdout
                .lines()
                .rev()
                .take(60)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect::<Vec<_>>()
                .join("\n")
        )
    }
}

/// The health-monitor records the suite asserts on.
mod hm {
    use super::Run;
    use serde_json::Value;

    /// Logbook records of partition `part`.
    pub fn records<'a>(run: &'a Run, part: &str) -> Vec<&'a Value> {
        run.logbook
            .iter()
            .filter(|r| r["partition"] == part)
            .collect()
    }

    /// Logbook records of `part` with error `code` and `detection` whose message contains
    /// every one of `words`.
    pub fn logged<'a>(
        run: &'a Run,
        part: &str,
        code: &str,
        detection: &str,
        words: &[&str],
    ) -> Vec<&'a Value> {
        records(run, part)
            .into_iter()
            .filter(|r| {
                r["code"] == code
                    && r["detection"] == detection
                    && words
                        .iter()
                        .all(|w| r["message"].as_str().unwrap_or("").contains(w))
            })
            .collect()
    }

    /// Manager events about partition `part` (module log lines naming it): what the logbook
    /// does not hold (the priority watch's reason for a kill, the end-of-run task-limit totals).
    pub fn manager_events(run: &Run, part: &str) -> Vec<String> {
        let key = format!("partition {part}");
        run.module_log()
            .lines()
            .filter(|l| l.contains(&key))
            .map(str::to_string)
            .collect()
    }

    /// Whether a manager event about `part` contains every one of `words`.
    pub fn event(run: &Run, part: &str, words: &[&str]) -> bool {
        manager_events(run, part)
            .iter()
            .any(|l| words.iter().all(|w| l.contains(w)))
    }
}

/// Writes the module: `far`, the attacker slot (`exe`, with `extra` arguments and a memory
/// limit), `next`, and the suite's two channels (see the top of the file).
fn module(dir: &Path, name: &str, exe: PathBuf, extra: Vec<String>, token: &str) -> PathBuf {
    let steady = partition_exe("steady");
    let role = |r: &str| vec![token.to_string(), r.to_string()];
    let path = write_module(
        dir,
        name,
        FRAME_MS,
        &[
            Part {
                name: "far",
                exe: steady.clone(),
                windows: vec![(0, 20)],
                extra: role("send"),
            },
            Part {
                name: "attacker",
                exe,
                windows: vec![(50, 30)],
                extra,
            },
            Part {
                name: "next",
                exe: steady,
                windows: vec![(80, 15)],
                extra: role("recv"),
            },
        ],
    );
    // The attacker gets a memory limit (partita:Resources), and the partitions their ports;
    // the rest of the module is as written by the shared helper.
    let mut xml = std::fs::read_to_string(&path).unwrap();
    let after_executable = |xml: &str, part: &str| {
        let start = xml
            .find(&format!("PartitionName=\"{part}\""))
            .expect("partition");
        start + xml[start..].find("</partita:Executable>").unwrap() + 21
    };
    let mut add = |part: &str, text: &str| {
        let at = after_executable(&xml, part);
        xml = format!("{}\n    {text}{}", &xml[..at], &xml[at..]);
    };
    add(
        "attacker",
        &format!("<partita:Resources memoryBytes=\"{ATTACKER_MEMORY}\"/>"),
    );
    add(
        "far",
        "<Queuing_Port Name=\"FAR_OUT\" MaxMessageSize=\"16\" Direction=\"SOURCE\" MaxNbMessages=\"8\"/>\n    <Sampling_Port Name=\"FAR_SAMPLE\" MaxMessageSize=\"16\" Direction=\"SOURCE\" RefreshRateSeconds=\"1\"/>",
    );
    add(
        "next",
        "<Queuing_Port Name=\"NEXT_IN\" MaxMessageSize=\"16\" Direction=\"DESTINATION\" MaxNbMessages=\"8\"/>",
    );
    add(
        "attacker",
        "<Sampling_Port Name=\"ATK_IN\" MaxMessageSize=\"16\" Direction=\"DESTINATION\" RefreshRateSeconds=\"1\"/>",
    );
    let end = xml.find("</ARINC_653_Module>").unwrap();
    xml.insert_str(
        end,
        "  <Connection_Table>\n    <Channel ChannelIdentifier=\"1\"><Source><Standard_Partition PartitionIdentifier=\"1\" PortName=\"FAR_OUT\"/></Source><Destination><Standard_Partition PartitionIdentifier=\"3\" PortName=\"NEXT_IN\"/></Destination></Channel>\n    <Channel ChannelIdentifier=\"2\"><Source><Standard_Partition PartitionIdentifier=\"1\" PortName=\"FAR_SAMPLE\"/></Source><Destination><Standard_Partition PartitionIdentifier=\"2\" PortName=\"ATK_IN\"/></Destination></Channel>\n  </Connection_Table>\n",
    );
    std::fs::write(&path, xml).unwrap();
    path
}

/// Runs `module`; if `pidfile` is given, writes "<host pid of neighbour far> <host pid of
/// the manager>" into the file of that name in the attacker's run directory (its working
/// directory, which its uid reaches wherever the checkout is) once the module runs (the
/// attacker reads it).
fn run(dir: &Path, module: &Path, token: &str, pidfile: Option<&str>, args: &[&str]) -> Run {
    let stem = module.file_stem().unwrap().to_string_lossy().to_string();
    let log_dir = dir.join(format!("logs-{stem}"));
    let json = log_dir.join("report.json");
    let hm_log = dir.join(format!("hm-{stem}.log"));
    let _ = std::fs::remove_dir_all(&log_dir);
    let _ = std::fs::remove_file(&hm_log);
    let mut child = partita()
        .args(["run", "--duration", RUN, "--log-dir"])
        .arg(&log_dir)
        .arg("--json")
        .arg(&json)
        .arg("--hm-log")
        .arg(&hm_log)
        .args(args)
        .arg(module)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(name) = pidfile {
        let t0 = Instant::now();
        let far = loop {
            let found = processes_with(token).into_iter().find(|&p| {
                std::fs::read(format!("/proc/{p}/cmdline"))
                    .map(|c| String::from_utf8_lossy(&c).contains("far\0"))
                    .unwrap_or(false)
            });
            if let Some(p) = found {
                break p;
            }
            if t0.elapsed() > Duration::from_secs(20) || child.try_wait().unwrap().is_some() {
                let _ = child.kill();
                let out = child.wait_with_output().unwrap();
                panic!("neighbour `far` never seen running\n{}", text(&out));
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let pf = partition_run_dir(child.id(), "01-attacker").join(name);
        let tmp = pf.with_extension("tmp");
        std::fs::write(&tmp, format!("{far} {}\n", child.id())).unwrap();
        std::fs::rename(&tmp, &pf).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let report = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(
        processes_with(token).is_empty(),
        "leftover processes: {:?}",
        processes_with(token)
    );
    let lb = partita()
        .args(["hm-log", "--json"])
        .arg(&hm_log)
        .output()
        .unwrap();
    assert!(lb.status.success(), "{}", text(&lb));
    let run = Run {
        log_dir,
        stdout: String::from_utf8_lossy(&out.stdout).into(),
        report,
        logbook: serde_json::from_slice(&lb.stdout).unwrap(),
    };
    // Whatever the attacker does, the neighbours have nothing to record.
    for n in ["far", "next"] {
        assert!(
            hm::records(&run, n).is_empty(),
            "{n} has health-monitor records\n{}",
            run.context()
        );
    }
    run
}

/// Percentile `q` (0..=100) of `v`.
fn percentile(mut v: Vec<u64>, q: usize) -> u64 {
    v.sort_unstable();
    v[((v.len() * q).div_ceil(100))
        .saturating_sub(1)
        .min(v.len() - 1)]
}

/// Neighbour `name` kept its stream (asserted), and its lateness p90 stays within
/// max(2 × baseline, baseline + `slack_ns`): `Ok((baseline p90, attack p90))`, or the
/// explanation.
fn check_neighbour(
    base: &Run,
    attack: &Run,
    name: &str,
    slack_ns: u64,
) -> Result<(u64, u64), String> {
    let b = base.stream(name);
    let a = attack.stream(name);
    for (run, s) in [(base, &b), (attack, &a)] {
        if s.len() < 10 {
            return Err(format!("{name}: only {} activations", s.len()));
        }
        let seqs: Vec<u64> = s.iter().map(|x| x.0).collect();
        let expect: Vec<u64> = (0..s.len() as u64).collect();
        assert_eq!(
            seqs,
            expect,
            "{name}: message stream has gaps or repeats\n{}",
            run.context()
        );
    }
    if a.len() + 3 < b.len() {
        return Err(format!(
            "{name}: {} activations with the attacker, {} without",
            a.len(),
            b.len()
        ));
    }
    // The first activation includes the partition's start-up.
    let late = |s: &[(u64, u64)], q| percentile(s[1..].iter().map(|x| x.1).collect(), q);
    let (lb, la) = (late(&b, 90), late(&a, 90));
    let bound = (2 * lb).max(lb + slack_ns);
    if la > bound {
        return Err(format!(
            "{name}: window-start lateness p90 {la} ns with the attacker, {lb} ns without (bound {bound})"
        ));
    }
    Ok((lb, la))
}

/// With the suite's channels: `next`'s stream over channel 1 is complete and in order in
/// both runs (asserted: no port error of `far` or `next`, messages 0, 1, 2, ...), and as long
/// with the attacker as without (within 3 messages; else the explanation).
fn check_port_stream(base: &Run, attack: &Run) -> Result<(), String> {
    let b = base.port_stream("next");
    let a = attack.port_stream("next");
    for (run, s) in [(base, &b), (attack, &a)] {
        for n in ["far", "next"] {
            assert!(
                !run.log(n).contains("PORTERR"),
                "{n}: port error\n{}",
                run.context()
            );
        }
        let expect: Vec<u64> = (0..s.len() as u64).collect();
        assert_eq!(
            s,
            &expect,
            "next: stream over channel 1 has gaps or repeats\n{}",
            run.context()
        );
        if s.len() < 10 {
            return Err(format!("next: only {} messages over channel 1", s.len()));
        }
    }
    if a.len() + 3 < b.len() {
        return Err(format!(
            "next: {} messages over channel 1 with the attacker, {} without",
            a.len(),
            b.len()
        ));
    }
    Ok(())
}

/// How a suite test runs its attacker.
#[derive(Default)]
struct Setup {
    /// The attacker gets the pid file (host pids of `far` and of the manager).
    pidfile: bool,
    /// Attacker arguments after the pid file.
    args: Vec<&'static str>,
    /// More `partita run` options (both runs).
    run_args: Vec<&'static str>,
}

/// Runs the baseline and the attack (the module with the suite's channels), checks both
/// neighbours; returns the attack run.
fn suite(test: &str, attacker: &str, with_pidfile: bool) -> Option<Run> {
    suite_with(
        test,
        attacker,
        Setup {
            pidfile: with_pidfile,
            ..Setup::default()
        },
    )
}

/// [`suite`] with attacker arguments and `partita run` options.
///
/// `PARTITA_ISOLATION_BACKEND=<backend>` runs every attacker that does not choose its backend
/// with that one (the spinner and the bombs run with every backend anyway).
fn suite_with(test: &str, attacker: &str, mut setup: Setup) -> Option<Run> {
    if let Ok(b) = std::env::var("PARTITA_ISOLATION_BACKEND") {
        if !setup.run_args.contains(&"--backend") {
            setup.run_args.push("--backend");
            setup.run_args.push(Box::leak(b.into_boxed_str()));
        }
    }
    if let Err(r) = capable() {
        skip(test, &r);
        return None;
    }
    let dir = scratch(&format!(
        "iso-{attacker}-{}{}",
        setup.args.join("-"),
        setup.run_args.join("")
    ));
    let token = format!("tok-iso-{attacker}-{}", std::process::id());
    let pidfile = "neighbour.pid";
    let mut extra = Vec::new();
    if setup.pidfile {
        extra.push(pidfile.to_string());
    }
    extra.extend(setup.args.iter().map(|a| a.to_string()));
    let quiet = module(
        &dir,
        "baseline",
        partition_exe("quiet"),
        extra.clone(),
        &token,
    );
    let hostile = module(&dir, "hostile", partition_exe(attacker), extra, &token);
    let pf = setup.pidfile.then_some(pidfile);
    // Lateness is a timing figure: on a machine shared with other real-time work (other
    // modules at the same priorities), one pair of runs may be disturbed from outside. The
    // pair is run again (at most four times in all) before the bound counts as broken; the
    // streams and records are checked strictly on every attempt.
    let mut attempt = 1;
    let (attack, far, next) = loop {
        let base = run(&dir, &quiet, &token, pf, &setup.run_args);
        let attack = run(&dir, &hostile, &token, pf, &setup.run_args);
        let r = check_neighbour(&base, &attack, "far", 200_000)
            .and_then(|far| {
                check_neighbour(&base, &attack, "next", 200_000).map(|next| (far, next))
            })
            .and_then(|r| check_port_stream(&base, &attack).map(|()| r));
        match r {
            Ok((far, next)) => break (attack, far, next),
            Err(e) if attempt < 4 => {
                // The logs of the disturbed pair stay for a look.
                let mut kept = Vec::new();
                for r in [&base, &attack] {
                    let to = r.log_dir.with_extension(format!("retry{attempt}"));
                    let _ = std::fs::remove_dir_all(&to);
                    if std::fs::rename(&r.log_dir, &to).is_ok() {
                        kept.push(to.display().to_string());
                    }
                }
                println!(
                    "RETRY {test} (attempt {attempt}): {e} (logs: {})",
                    kept.join(", ")
                );
                attempt += 1;
            }
            Err(e) => panic!("{e}\n{}", attack.context()),
        }
    };
    println!(
        "FIGURES {test}: lateness p90 far {:.1} -> {:.1} us, next {:.1} -> {:.1} us; attacker overrun max {:.1} us; switch lateness max {:.1} us",
        far.0 as f64 / 1e3,
        far.1 as f64 / 1e3,
        next.0 as f64 / 1e3,
        next.1 as f64 / 1e3,
        attack.partition("attacker")["overrun"]["max"].as_f64().unwrap_or(0.0) / 1e3,
        attack.report["cores"][0]["timer_lateness"]["max"].as_f64().unwrap_or(0.0) / 1e3,
    );
    Some(attack)
}

/// The partition-switch backends the attackers that work on the switch itself (spinning, many
/// tasks) are run with: each holds a partition in its own way, and each must hold it in time.
const BACKENDS: &[&str] = &["freezer-v1", "freezer-v2", "signals"];

/// [`suite_with`] with `partita run --backend backend`.
fn suite_on(test: &str, attacker: &str, backend: &'static str) -> Option<Run> {
    suite_with(
        &format!("{test} ({backend})"),
        attacker,
        Setup {
            run_args: vec!["--backend", backend],
            ..Setup::default()
        },
    )
}

#[test]
fn a_spinner_with_every_signal_blocked_keeps_to_its_windows() {
    let _g = serial();
    for backend in BACKENDS {
        let Some(run) = suite_on(
            "a_spinner_with_every_signal_blocked_keeps_to_its_windows",
            "spin_blocked",
            backend,
        ) else {
            return;
        };
        spinner_kept_to_its_windows(&run, backend);
    }
}

fn spinner_kept_to_its_windows(run: &Run, backend: &str) {
    assert_eq!(run.report["backend"], backend, "{}", run.context());
    let p = run.partition("attacker");
    assert!(p["exit"].is_null(), "{}", run.context());
    assert!(
        run.log("attacker").contains("SPIN blocked every signal"),
        "{}",
        run.context()
    );
    assert!(p["windows"].as_u64().unwrap() >= 20, "{}", run.context());
    // Held to its windows, it does nothing the health monitor would record.
    assert!(hm::records(run, "attacker").is_empty(), "{}", run.context());
}

#[test]
fn a_spinner_cannot_raise_itself_above_the_scheduler() {
    let _g = serial();
    // The control block's layout, for the forged broker requests (see rt_spinner.c).
    use partita_sys::control::ControlBlock;
    use std::mem::offset_of;
    let layout = [
        partita_sys::control::SIZE,
        offset_of!(ControlBlock, raise_request),
        offset_of!(ControlBlock, raise_tid),
        offset_of!(ControlBlock, raise_priority),
        offset_of!(ControlBlock, raise_done),
        offset_of!(ControlBlock, raise_result),
    ];
    let args: Vec<&'static str> = layout
        .iter()
        .map(|v| &*Box::leak(v.to_string().into_boxed_str()))
        .collect();
    let Some(run) = suite_with(
        "a_spinner_cannot_raise_itself_above_the_scheduler",
        "rt_spinner",
        Setup {
            args,
            ..Setup::default()
        },
    ) else {
        return;
    };
    let log = run.log("attacker");
    // Raise broker: no partition holds CAP_SYS_NICE, on any host; RLIMIT_RTPRIO is at most the
    // runtime's timer priority (0 where it cannot be set). The kernel refuses the raise, the
    // attacker spins at its own priority, held to its windows (the neighbour's lateness and
    // stream were compared by `suite`), and the priority watch never had to kill it.
    assert!(
        log.contains("RTSPIN sched_setparam(99) = -1 errno 1"),
        "{}",
        run.context()
    );
    assert!(
        !hm::event(&run, "attacker", &["real-time priority to"]),
        "{}",
        run.context()
    );
    // The forged broker requests are refused (EPERM, ESRCH: the manager never trusts the
    // control block) and recorded as ILLEGAL_REQUESTs.
    assert!(
        log.contains("RTSPIN broker priority 99 = 1"),
        "{}",
        run.context()
    );
    assert!(
        log.contains("RTSPIN broker foreign thread = 3"),
        "{}",
        run.context()
    );
    for why in ["priority 99 is outside", "is not one of the partition's"] {
        assert_eq!(
            hm::logged(&run, "attacker", "ILLEGAL_REQUEST", "illegal-call", &[why]).len(),
            1,
            "{why}\n{}",
            run.context()
        );
    }
}

#[test]
fn a_fork_bomb_stops_at_the_task_limit() {
    bomb_stops_at_the_task_limit(
        "a_fork_bomb_stops_at_the_task_limit",
        "fork_bomb",
        "FORKBOMB refused after",
    );
}

#[test]
fn a_thread_bomb_stops_at_the_task_limit() {
    bomb_stops_at_the_task_limit(
        "a_thread_bomb_stops_at_the_task_limit",
        "thread_bomb",
        "THREADBOMB refused after",
    );
}

/// A fork or thread bomb (attacker `mode`) of test `name` is refused at the task limit: the
/// attacker logs `refused`, the manager the refused creations, and the health monitor
/// ILLEGAL_REQUEST `task-limit` records and nothing else about it.
fn bomb_stops_at_the_task_limit(name: &str, mode: &str, refused: &str) {
    let _g = serial();
    for backend in BACKENDS {
        let Some(run) = suite_on(name, mode, backend) else {
            return;
        };
        bomb_contained(&run, backend, refused);
    }
}

fn bomb_contained(run: &Run, backend: &str, refused: &str) {
    assert_eq!(run.report["backend"], backend, "{}", run.context());
    assert!(run.log("attacker").contains(refused), "{}", run.context());
    // Its many runnable tasks were held ahead of its boundaries (the freeze lead; with the
    // signals backend, watched through its CPU time).
    let attacker = run.partition("attacker");
    assert!(
        attacker["frozen_ahead_windows"].as_u64().unwrap() > 0,
        "{}",
        run.context()
    );
    // Contained: the creations fail with EAGAIN inside the partition, which carries on; the
    // health monitor records the refused creations (ILLEGAL_REQUEST, detection task-limit, at
    // most one record a second) and nothing else about the attacker.
    assert!(
        hm::event(run, "attacker", &["task limit", "refused"]),
        "{}",
        run.context()
    );
    let limit_records = hm::logged(
        run,
        "attacker",
        "ILLEGAL_REQUEST",
        "task-limit",
        &["refused"],
    );
    assert!(!limit_records.is_empty(), "{}", run.context());
    assert_eq!(
        hm::records(run, "attacker").len(),
        limit_records.len(),
        "{}",
        run.context()
    );
}

#[test]
fn a_partition_allocating_without_end_dies_at_its_memory_limit() {
    let _g = serial();
    let Some(run) = suite(
        "a_partition_allocating_without_end_dies_at_its_memory_limit",
        "memory_hog",
        false,
    ) else {
        return;
    };
    let oom = hm::logged(
        &run,
        "attacker",
        "MEMORY_VIOLATION",
        "memory-limit",
        &[&format!("memory limit {ATTACKER_MEMORY} bytes exceeded")],
    );
    assert!(!oom.is_empty(), "{}", run.context());
    assert!(
        oom.iter()
            .all(|r| r["level"] == "PARTITION" && r["partition_id"] == 2),
        "{}",
        run.context()
    );
    // The manager's log line says it too.
    assert!(
        hm::event(
            &run,
            "attacker",
            &["SIGKILL", "MEMORY_VIOLATION", "memory limit"]
        ),
        "{}",
        run.context()
    );
    // It got no further than its limit.
    let biggest = run
        .log("attacker")
        .lines()
        .filter_map(|l| {
            l.strip_prefix("MEMHOG ")?
                .strip_suffix(" MiB")?
                .parse::<u64>()
                .ok()
        })
        .max()
        .unwrap_or(0);
    assert!(biggest < ATTACKER_MEMORY >> 20, "{}", run.context());
}

/// Attacks refused by the seccomp filter: the runtime raises ILLEGAL_REQUEST naming the call.
const TRAPPED: &[&str] = &[
    "kill",
    "tkill",
    "ptrace",
    "process_vm_readv",
    "sched_setscheduler",
    "setpriority",
    "sched_setaffinity",
    "mount",
    "unshare",
    "setuid",
    "bpf",
    "perf_event_open",
    "init_module",
    "socket",
];

#[test]
fn forbidden_calls_are_refused_and_recorded() {
    let _g = serial();
    let Some(run) = suite("forbidden_calls_are_refused_and_recorded", "attacker", true) else {
        return;
    };
    let log = run.log("attacker");
    assert!(log.contains("ATTACKS done"), "{}", run.context());
    for call in TRAPPED {
        let what = format!("forbidden system call {call} (");
        let recs = hm::logged(
            &run,
            "attacker",
            "ILLEGAL_REQUEST",
            "runtime-error",
            &[&what],
        );
        assert!(
            !recs.is_empty(),
            "{call}: no ILLEGAL_REQUEST record\n{}",
            run.context()
        );
        // Raised in an attack process (not the main one), in NORMAL mode.
        assert!(
            recs.iter()
                .all(|r| r["process"].as_i64().is_some_and(|p| p >= 0)
                    && r["state"] == "PROCESS_EXECUTION"),
            "{call}\n{}",
            run.context()
        );
        assert!(
            !log.contains(&format!("RESULT {call} ")),
            "{call} returned\n{}",
            run.context()
        );
    }
    // Both kill attempts (a neighbour's pid, -1) trapped.
    let kills = hm::logged(
        &run,
        "attacker",
        "ILLEGAL_REQUEST",
        "runtime-error",
        &["forbidden system call kill ("],
    );
    assert_eq!(kills.len(), 2, "{}", run.context());
    // Refused by the kernel, not by the filter: the neighbour's /proc entry does not exist
    // in the attacker's PID namespace; the cgroup files belong to root.
    assert!(
        log.contains("RESULT proc-mem rc=-1 errno=2"),
        "{}",
        run.context()
    );
    assert!(
        log.contains("RESULT cgroup-escape rc=-1 errno=13"),
        "{}",
        run.context()
    );
    // The control: a signal to itself works.
    assert!(log.contains("RESULT self-signal rc=0"), "{}", run.context());
    // A priority above the partition's limit: refused by the kernel on every host (no
    // CAP_SYS_NICE; see docs/priority-raising.md).
    assert!(
        log.contains("RESULT rt-priority-99 rc=-1 errno=1"),
        "{}",
        run.context()
    );
}

#[test]
fn a_partition_crashing_in_a_loop_is_restarted_without_disturbing_the_others() {
    let _g = serial();
    let Some(run) = suite(
        "a_partition_crashing_in_a_loop_is_restarted_without_disturbing_the_others",
        "crasher",
        false,
    ) else {
        return;
    };
    let restarts = run.partition("attacker")["restarts"].as_u64().unwrap();
    assert!(restarts >= 3, "{restarts} restarts\n{}", run.context());
    // MEMORY_VIOLATION (5) reached its error handler in each incarnation.
    let crashes = run
        .log("attacker")
        .lines()
        .filter(|l| l.contains("CRASHER error 5, restarting"))
        .count() as u64;
    // (The last restart may have been cut short by the end of the run.)
    assert!(crashes >= 3 && crashes + 1 >= restarts, "{}", run.context());
    // Each crash is recorded, at process level (its error handler got it).
    let recorded = hm::logged(&run, "attacker", "MEMORY_VIOLATION", "process-error", &[]);
    assert!(
        recorded.len() as u64 >= crashes
            && recorded
                .iter()
                .all(|r| r["level"] == "PROCESS" && r["action"] == "ERROR_HANDLER"),
        "{} records for {crashes} crashes\n{}",
        recorded.len(),
        run.context()
    );
    // The restarts it asked for are the manager's events.
    assert!(
        hm::event(&run, "attacker", &["restarts in COLD_START"]),
        "{}",
        run.context()
    );
}

#[test]
fn a_plain_program_sees_only_itself_and_dies_of_a_forbidden_call() {
    let _g = serial();
    let Some(run) = suite(
        "a_plain_program_sees_only_itself_and_dies_of_a_forbidden_call",
        "proc_view",
        false,
    ) else {
        return;
    };
    let log = run.log("attacker");
    // Its own PID namespace: /proc lists itself only, as PID 1; its own uid, no capability
    // at all (CAP_SYS_NICE included: see docs/priority-raising.md).
    // As the run assigned it (id block 0, or another when a module running at the same
    // time holds it).
    let uid = run.partition("attacker")["uid"]
        .as_u64()
        .unwrap_or_else(|| panic!("no uid: {}", run.context()));
    assert!(
        log.contains(&format!("PROCVIEW processes=1 pid=1 uid={uid} gid={uid}")),
        "{}",
        run.context()
    );
    let none = "0000000000000000";
    for cap in ["CapBnd", "CapEff"] {
        assert!(
            log.lines()
                .any(|l| l.starts_with(&format!("PROCVIEW {cap}")) && l.ends_with(none)),
            "{cap}\n{}",
            run.context()
        );
    }
    assert!(log.contains("PROCVIEW NoNewPrivs:\t1"), "{}", run.context());
    assert!(log.contains("PROCVIEW Seccomp:\t2"), "{}", run.context());
    assert!(!log.contains("ptrace returned"), "{}", run.context());
    let died = hm::logged(
        &run,
        "attacker",
        "ILLEGAL_REQUEST",
        "process-died",
        &["SIGSYS"],
    );
    assert_eq!(died.len(), 1, "{}", run.context());
    assert!(
        hm::event(&run, "attacker", &["SIGSYS", "ILLEGAL_REQUEST"]),
        "{}",
        run.context()
    );
}
