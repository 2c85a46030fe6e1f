// SPDX-License-Identifier: MIT OR Apache-2.0
//! Shared helpers of the end-to-end tests: building the C test partitions with `partita cc`,
//! writing module files, running `partita`, and parsing the partitions' reports.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// The `partita` binary under test.
pub fn partita() -> Command {
    Command::new(env!("CARGO_BIN_EXE_partita"))
}

/// Builds the benchmark executables (`partita-bench-partitions`) next to the `partita` binary
/// under test, with the profile it was built with, as `cargo test --workspace` does; a test of
/// this package alone (`cargo test -p partita`) does not build them otherwise. Once per test
/// binary.
pub fn build_bench_partitions() {
    static BUILT: OnceLock<()> = OnceLock::new();
    BUILT.get_or_init(|| {
        build_package("partita-bench-partitions");
    });
}

/// The directory of the `partita` binary under test (`target/<profile>`), where
/// [`build_package`] puts the executables it builds.
pub fn profile_dir() -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_partita"));
    exe.parent().expect("the binary's directory").to_path_buf()
}

/// Builds the executables of workspace package `package` into [`profile_dir`], with the
/// profile the `partita` binary under test was built with.
pub fn build_package(package: &str) {
    let profile_dir = profile_dir();
    let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") => "dev",
        Some(p) => p,
        None => panic!("{}: no profile directory", profile_dir.display()),
    };
    let target_dir = profile_dir.parent().expect("the target directory");
    let out = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "-p", package, "--profile"])
        .arg(profile)
        .arg("--target-dir")
        .arg(target_dir)
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "building {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Holds the end-to-end lock: tests that run modules go one at a time, within a test binary
/// (a mutex) and across test binaries run at the same time (a file lock), because modules use
/// real-time priorities on the same cores and two at once can exhaust a core's real-time
/// budget.
///
/// The file lock is host-wide ([`HOST_LOCK`] in the temporary directory), not per target
/// directory: two worktrees (or checkouts) testing at the same time each run modules on the
/// same CPUs too. Two modules on one CPU break time partitioning: a process of one module,
/// released at its window start, waits behind a computing `SCHED_FIFO` thread of the other at
/// the same priority, possibly for the whole window (seen as releases and time-outs
/// handled one window late and spurious deadline misses in the timing scenarios).
pub struct Serial {
    _guard: MutexGuard<'static, ()>,
    _file: std::fs::File,
}

/// Name of the host-wide end-to-end lock file (see [`Serial`]).
pub const HOST_LOCK: &str = "partita-e2e.lock";

/// Takes the end-to-end lock (see [`Serial`]).
pub fn serial() -> Serial {
    static LOCK: Mutex<()> = Mutex::new(());
    let guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let path = std::env::temp_dir().join(HOST_LOCK);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .or_else(|_| std::fs::File::open(&path))
        .unwrap();
    file.lock().unwrap();
    Serial {
        _guard: guard,
        _file: file,
    }
}

/// Whether the host can run modules with every backend; otherwise the reason. When
/// `PARTITA_REQUIRE_ALL=1` (CI), a missing capability fails the test instead of skipping it.
pub fn capable() -> Result<(), String> {
    let reason = if !is_root() {
        Some("needs root (cgroups, namespaces, SCHED_FIFO)")
    } else if !Path::new("/sys/fs/cgroup/freezer").exists()
        && !Path::new("/sys/fs/cgroup/cgroup.freeze").exists()
        && !Path::new("/sys/fs/cgroup/unified").exists()
    {
        Some("no cgroup freezer")
    } else {
        None
    };
    match reason {
        None => Ok(()),
        Some(r) if std::env::var("PARTITA_REQUIRE_ALL").as_deref() == Ok("1") => {
            panic!("required capability missing: {r}")
        }
        Some(r) => Err(r.to_string()),
    }
}

/// Prints the standard skip line (the test then returns). With `PARTITA_REQUIRE_ALL=1` (CI)
/// a skip is a failure, whatever the missing capability (see [`capable`]).
pub fn skip(test: &str, reason: &str) {
    if std::env::var("PARTITA_REQUIRE_ALL").as_deref() == Ok("1") {
        panic!("{test}: required capability missing: {reason}");
    }
    println!("SKIPPED {test}: {reason}");
    eprintln!("SKIPPED {test}: {reason}");
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .map(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(2) == Some("0"))
                .unwrap_or(false)
        })
        .unwrap_or(false)
}

/// Repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    // Partitions run under their own uids (partita_abi::ids) without capabilities: a test that
    // lets a partition write a file in its scratch directory needs the directory open to them.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o1777)).unwrap();
    d
}

/// Builds the C test partition `tests/partitions/<name>.c` once; returns the executable.
pub fn partition_exe(name: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<Vec<String>>> = OnceLock::new();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("partitions");
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join(name);
    let mut built = BUILT.get_or_init(Default::default).lock().unwrap();
    if !built.iter().any(|b| b == name) {
        let src = repo().join("tests/partitions").join(format!("{name}.c"));
        partita_cc(&src, &exe, &["-O2", "-Wall", "-Werror"]);
        built.push(name.to_string());
    }
    exe
}

/// Builds the C program `src` into `exe` with `partita cc` and the compiler `flags`; a
/// failure (a warning under `-Werror` included) fails the test.
pub fn partita_cc(src: &Path, exe: &Path, flags: &[&str]) {
    let out = partita()
        .arg("cc")
        .args(flags)
        .arg(src)
        .arg("-o")
        .arg(exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "partita cc {}: {}{}",
        src.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// One partition of a generated module.
pub struct Part<'a> {
    pub name: &'a str,
    pub exe: PathBuf,
    /// Windows as (start_ms, duration_ms).
    pub windows: Vec<(u64, u64)>,
    /// Extra arguments after the window-check ones.
    pub extra: Vec<String>,
}

/// Writes a module whose partitions each get the window-check arguments
/// (`NAME FRAME_NS START:DUR,...`) for their own windows; returns its path.
pub fn write_module(dir: &Path, name: &str, frame_ms: u64, parts: &[Part]) -> PathBuf {
    let ns = |ms: u64| ms * 1_000_000;
    let secs = |ms: u64| format!("{}", ms as f64 / 1000.0);
    let mut x = format!(
        "<?xml version=\"1.0\"?>\n<ARINC_653_Module xmlns:partita=\"urn:partita:1\" ModuleName=\"{name}\">\n"
    );
    for (i, p) in parts.iter().enumerate() {
        let wins: Vec<String> = p
            .windows
            .iter()
            .map(|&(s, d)| format!("{}:{}", ns(s), ns(d)))
            .collect();
        x += &format!(
            "  <Partition PartitionIdentifier=\"{}\" PartitionName=\"{}\" Criticality=\"LEVEL_C\" SystemPartition=\"false\" EntryPoint=\"main\">\n    <partita:Executable path=\"{}\">\n      <partita:Arg>{}</partita:Arg><partita:Arg>{}</partita:Arg><partita:Arg>{}</partita:Arg>\n",
            i + 1,
            p.name,
            p.exe.display(),
            p.name,
            ns(frame_ms),
            wins.join(",")
        );
        for e in &p.extra {
            x += &format!("      <partita:Arg>{e}</partita:Arg>\n");
        }
        x += "    </partita:Executable>\n  </Partition>\n";
    }
    x += &format!(
        "  <Module_Schedule MajorFrameSeconds=\"{}\">\n",
        secs(frame_ms)
    );
    let mut wid = 1;
    for (i, p) in parts.iter().enumerate() {
        let dur: u64 = p.windows.iter().map(|w| w.1).sum();
        x += &format!(
            "    <Partition_Schedule PartitionIdentifier=\"{}\" PartitionName=\"{}\" PeriodSeconds=\"{}\" PeriodDurationSeconds=\"{}\">\n",
            i + 1,
            p.name,
            secs(frame_ms),
            secs(dur)
        );
        for &(s, d) in &p.windows {
            x += &format!(
                "      <Window_Schedule WindowIdentifier=\"{wid}\" WindowStartSeconds=\"{}\" WindowDurationSeconds=\"{}\" PartitionPeriodStart=\"{}\"/>\n",
                secs(s),
                secs(d),
                wid == 1 || s == p.windows[0].0
            );
            wid += 1;
        }
        x += "    </Partition_Schedule>\n";
    }
    x += "  </Module_Schedule>\n</ARINC_653_Module>\n";
    let path = dir.join(format!("{name}.xml"));
    std::fs::write(&path, x).unwrap();
    path
}

/// The last CHECK report of every (partition, role): (samples, outside, worst_ns).
pub fn checks(stdout: &str) -> Vec<(String, String, u64, u64, u64)> {
    let mut last: Vec<(String, String, u64, u64, u64)> = Vec::new();
    for line in stdout.lines() {
        let Some(i) = line.find("CHECK ") else {
            continue;
        };
        let f: Vec<&str> = line[i + 6..].split_whitespace().collect();
        if f.len() < 5 {
            continue;
        }
        let num = |s: &str| {
            s.split('=')
                .nth(1)
                .and_then(|v| v.parse().ok())
                .unwrap_or(0)
        };
        let rec = (
            f[0].to_string(),
            f[1].to_string(),
            num(f[2]),
            num(f[3]),
            num(f[4]),
        );
        match last.iter_mut().find(|r| r.0 == rec.0 && r.1 == rec.1) {
            Some(r) => *r = rec,
            None => last.push(rec),
        }
    }
    last
}

/// Runs `cmd` to its end, but fails (after killing it) if it has not ended within `limit`:
/// for runs that a regression could hold forever.
pub fn output_within(cmd: &mut Command, limit: std::time::Duration) -> Output {
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let collect = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut b = Vec::new();
            let _ = r.read_to_end(&mut b);
            b
        })
    };
    let out = collect(Box::new(child.stdout.take().unwrap()));
    let err = collect(Box::new(child.stderr.take().unwrap()));
    let end = std::time::Instant::now() + limit;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if std::time::Instant::now() > end {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{cmd:?} did not end within {limit:?}\n--- stdout\n{}",
                String::from_utf8_lossy(&out.join().unwrap_or_default())
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    }
}

/// Runs `f` once per test binary, in the scratch directory `name` and under the end-to-end
/// lock, when the host can run modules ([`capable`]; otherwise the skip line and `None`).
/// Every test of a file that shares one run calls it; the first one runs.
pub fn once<T>(
    cell: &'static OnceLock<Option<T>>,
    name: &str,
    f: impl FnOnce(&Path) -> T,
) -> Option<&'static T> {
    let _serial = serial();
    cell.get_or_init(|| match capable() {
        Ok(()) => Some(f(&scratch(name))),
        Err(r) => {
            skip(name, &r);
            None
        }
    })
    .as_ref()
}

/// Runs `module` for `duration` with `partita run`, its report in `dir/report.json` and the
/// log option `log.0` naming `dir/<log.1>`; checks that the run succeeded and left no process
/// whose command line contains `token`. Returns the output and the report.
pub fn run_reported(
    dir: &Path,
    module: &Path,
    duration: &str,
    log: (&str, &str),
    token: &str,
) -> (Output, serde_json::Value) {
    let out = partita()
        .args(["run", "--duration", duration, log.0])
        .arg(dir.join(log.1))
        .arg("--json")
        .arg(dir.join("report.json"))
        .arg(module)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(processes_with(token).is_empty(), "partitions left behind");
    let report = std::fs::read_to_string(dir.join("report.json")).unwrap();
    (out, serde_json::from_str(&report).unwrap())
}

/// The `key=value` fields of every line of `stdout` that contains `prefix` (of what follows
/// it), in output order: the report lines of the test partitions.
pub fn tagged_fields<'a>(stdout: &'a str, prefix: &str) -> Vec<Vec<(&'a str, &'a str)>> {
    stdout
        .lines()
        .filter_map(|l| l.find(prefix).map(|i| &l[i + prefix.len()..]))
        .map(|rest| {
            rest.split_whitespace()
                .filter_map(|kv| kv.split_once('='))
                .collect()
        })
        .collect()
}

/// The integer field `k` of a line from [`tagged_fields`].
pub fn field(l: &[(&str, &str)], k: &str) -> i64 {
    l.iter()
        .find(|(key, _)| *key == k)
        .unwrap_or_else(|| panic!("no {k} in {l:?}"))
        .1
        .parse()
        .unwrap_or_else(|_| panic!("{k} is not an integer in {l:?}"))
}

/// Text of a finished command, for assertion messages.
pub fn text(o: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// PIDs of live processes whose command line contains `token`.
pub fn processes_with(token: &str) -> Vec<i32> {
    let mut v = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        if let Ok(cmd) = std::fs::read(e.path().join("cmdline")) {
            if String::from_utf8_lossy(&cmd).contains(token) {
                // Zombies have no cmdline left; a live match is a leftover.
                v.push(pid);
            }
        }
    }
    v
}

/// Waits (up to 10 s) until no process holds `token` and no cgroup of the run of manager
/// `pid` is left; whether that happened.
pub fn wait_gone(token: &str, pid: u32) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::time::Instant::now() < deadline {
        if processes_with(token).is_empty() && cgroups_of(pid).is_empty() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    false
}

/// The directory `leaf` (`NN-<partition name>`) in the run directory of manager `pid`
/// (`/run/partita/<pid>-<start>`, see crates/manager/src/rundir.rs), which exists from the
/// run's set-up on.
pub fn partition_run_dir(pid: u32, leaf: &str) -> PathBuf {
    let base = Path::new(partita_manager::rundir::BASE);
    std::fs::read_dir(base)
        .unwrap_or_else(|e| panic!("{}: {e}", base.display()))
        .flatten()
        .find(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!("{pid}-"))
        })
        .unwrap_or_else(|| panic!("no run directory of manager {pid} in {}", base.display()))
        .path()
        .join(leaf)
}

/// cgroup directories of the run of manager `pid` (named `partita/<pid>-<time>`) still present.
pub fn cgroups_of(pid: u32) -> Vec<PathBuf> {
    partita_cgroups()
        .into_iter()
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&format!("{pid}-")))
        })
        .collect()
}

/// cgroup directories left under any `partita/` hierarchy.
pub fn partita_cgroups() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for e in std::fs::read_dir("/sys/fs/cgroup")
        .into_iter()
        .flatten()
        .flatten()
    {
        let p = e.path().join("partita");
        if let Ok(rd) = std::fs::read_dir(&p) {
            for r in rd.flatten() {
                if r.path().is_dir() {
                    v.push(r.path());
                }
            }
        }
    }
    v
}
