// SPDX-License-Identifier: MIT OR Apache-2.0
//! A fuzz harness on stable Rust for the configuration front end (XML → diagnostics →
//! validated model → compiled plan) and the plan-file loader.
//!
//! Every input is derived from a seed and its index alone (so `--seed S --start I --inputs 1`
//! reproduces input `I`): a file of the corpus (the rule fixtures, the good fixtures, the
//! examples, and the plans compiled from them) with one to four mutations (byte flips, line
//! duplication, deep nesting, huge and edge numbers, hostile attribute values, truncation,
//! deletion, splices from another file). Each input runs under `catch_unwind`, timed and with
//! its peak allocation measured ([`partita_sys::alloc_meter::AllocMeter`]); a panic, an input
//! slower than the time limit, an allocation above the bound, or a broken invariant (a plan
//! produced despite errors, a plan that does not survive its own file format) is a failure,
//! and the input is written to the failures directory. A watchdog thread ends the run (exit
//! status 3) if one input takes four times the time limit or allocates four times the bound,
//! writing the input first.

use partita_config::{check_bytes, plan_to_bytes, read_plan, CheckOptions, PLAN_HEADER_LEN};
use partita_sys::alloc_meter::AllocMeter;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The files mutations start from.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    /// XML configurations.
    pub xml: Vec<Vec<u8>>,
    /// Plan files compiled from the configurations that check without error.
    pub plans: Vec<Vec<u8>>,
}

impl Corpus {
    /// The repository's own corpus: rule fixtures, good fixtures and example modules.
    pub fn default_dirs() -> Vec<PathBuf> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut dirs = vec![
            root.join("crates/config/tests/fixtures"),
            root.join("crates/config/tests/fixtures/good"),
        ];
        if let Ok(entries) = std::fs::read_dir(root.join("examples")) {
            let mut examples: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
            examples.sort();
            dirs.extend(examples.into_iter().filter(|p| p.is_dir()));
        }
        dirs
    }

    /// Reads every `*.xml` file of `dirs` (not recursively) and compiles the plans.
    pub fn load(dirs: &[PathBuf]) -> std::io::Result<Corpus> {
        let mut corpus = Corpus::default();
        for dir in dirs {
            let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "xml"))
                .collect();
            files.sort();
            for f in files {
                let bytes = std::fs::read(&f)?;
                let outcome = check_bytes(&bytes, &f, &NO_EXECUTABLES);
                if let Some(plan) = outcome.plan.as_ref().and_then(|p| plan_to_bytes(p).ok()) {
                    corpus.plans.push(plan);
                }
                corpus.xml.push(bytes);
            }
        }
        Ok(corpus)
    }
}

const NO_EXECUTABLES: CheckOptions = CheckOptions {
    check_executables: false,
};

/// Largest input generated: twice the largest file the front end reads in full.
const MAX_INPUT_BYTES: usize = 2 * partita_config::limits::MAX_READ_BYTES as usize;

/// Numbers that sit on or across a bound somewhere.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999999999",
    "0x",
    "0xFFFFFFFFFFFFFFFF",
    "1e308",
    "NaN",
    "31536000",
    "31536000.000000001",
    "18446744073.709551616",
    "0.0000000001",
    "0.000000001",
    "1099511627776",
    "1099511627777",
    "8192",
    "8193",
    "512",
    "513",
    "1023",
    "1024",
];

/// Attribute values that have broken parsers and file systems elsewhere.
const VALUES: &[&str] = &[
    "",
    " ",
    "../../x",
    "..",
    ".",
    "a/b",
    "&#10;",
    "&#9;x",
    "&amp;",
    "&lt;a&gt;",
    "true",
    "LEVEL_A",
    "SOURCE",
    "DESTINATION",
    "0-1023",
    "0,0,0",
    "1023-0",
    "127.0.0.1:0",
    "[::1]:65536",
    "/dev/zero",
    "/proc/self/mem",
    "\u{e9}\u{20ac}",
];

fn pick<'a>(rng: &mut fastrand::Rng, items: &[&'a str]) -> &'a str {
    items[rng.usize(..items.len())]
}

/// Start offsets of the lines of `b`.
fn line_starts(b: &[u8]) -> Vec<usize> {
    std::iter::once(0)
        .chain(
            b.iter()
                .enumerate()
                .filter(|(_, &c)| c == b'\n')
                .map(|(i, _)| i + 1),
        )
        .filter(|&i| i < b.len())
        .collect()
}

/// A random range of whole lines (one to eight).
fn line_range(rng: &mut fastrand::Rng, b: &[u8]) -> std::ops::Range<usize> {
    let starts = line_starts(b);
    if starts.is_empty() {
        return 0..b.len();
    }
    let first = rng.usize(..starts.len());
    let last = (first + rng.usize(1..=8)).min(starts.len());
    starts[first]..starts.get(last).copied().unwrap_or(b.len())
}

/// Applies one random mutation to `b`.
fn mutate_once(rng: &mut fastrand::Rng, corpus: &Corpus, b: &mut Vec<u8>) {
    let at = |rng: &mut fastrand::Rng, b: &Vec<u8>| rng.usize(..=b.len());
    match rng.u8(..10) {
        0 => {
            for _ in 0..rng.usize(1..=8) {
                if !b.is_empty() {
                    let i = rng.usize(..b.len());
                    b[i] = if rng.bool() {
                        b[i] ^ (1 << rng.u8(..8))
                    } else {
                        rng.u8(..)
                    };
                }
            }
        }
        1 => {
            let r = line_range(rng, b);
            let copies = if rng.u8(..16) == 0 {
                rng.usize(100..=5000)
            } else {
                rng.usize(1..=8)
            };
            let chunk = b[r.clone()].to_vec();
            // Inputs grow to a little past the largest file the front end reads, no further.
            let room = MAX_INPUT_BYTES.saturating_sub(b.len()) / chunk.len().max(1);
            let copies = copies.min(room);
            let tail = b.split_off(r.end);
            for _ in 0..copies {
                b.extend_from_slice(&chunk);
            }
            b.extend_from_slice(&tail);
        }
        2 => {
            let depth = *[8usize, 31, 32, 33, 1000, 200_000]
                .get(rng.usize(..6))
                .unwrap_or(&33);
            let name = pick(rng, &["a", "Partition", "Module_Schedule", "partita:Arg"]);
            let mut s = format!("<{name}>").repeat(depth);
            if rng.bool() {
                s.push_str(&format!("</{name}>").repeat(depth));
            }
            let i = at(rng, b);
            b.splice(i..i, s.into_bytes());
        }
        3 => {
            // Replace a run of digits with an edge number.
            let digits: Vec<usize> = (0..b.len()).filter(|&i| b[i].is_ascii_digit()).collect();
            if let Some(&start) = digits.get(rng.usize(..digits.len().max(1))) {
                let end = (start..b.len())
                    .find(|&i| !(b[i].is_ascii_digit() || b[i] == b'.'))
                    .unwrap_or(b.len());
                b.splice(start..end, pick(rng, NUMBERS).bytes());
            }
        }
        4 => {
            // Replace an attribute value.
            let quotes: Vec<usize> = b
                .windows(2)
                .enumerate()
                .filter(|(_, w)| w == b"=\"")
                .map(|(i, _)| i + 2)
                .collect();
            if let Some(&start) = quotes.get(rng.usize(..quotes.len().max(1))) {
                let end = (start..b.len()).find(|&i| b[i] == b'"').unwrap_or(b.len());
                let value = if rng.u8(..8) == 0 {
                    "A".repeat(rng.usize(4000..=5000))
                } else {
                    pick(rng, VALUES).to_string()
                };
                b.splice(start..end, value.into_bytes());
            }
        }
        5 => {
            let i = rng.usize(..=b.len());
            b.truncate(i);
        }
        6 => {
            let r = line_range(rng, b);
            b.drain(r);
        }
        7 => {
            if let Some(other) = corpus.xml.get(rng.usize(..corpus.xml.len().max(1))) {
                let r = line_range(rng, other);
                let i = at(rng, b);
                b.splice(i..i, other[r].iter().copied());
            }
        }
        8 => {
            let (r1, r2) = (line_range(rng, b), line_range(rng, b));
            if r1.end <= r2.start {
                let second = b[r2.clone()].to_vec();
                let first = b[r1.clone()].to_vec();
                b.splice(r2, first);
                b.splice(r1, second);
            }
        }
        _ => {
            let junk = pick(
                rng,
                &[
                    "<",
                    ">",
                    "\"",
                    "'",
                    "&",
                    "<!--",
                    "]]>",
                    "<?",
                    "/>",
                    "\0",
                    "\u{feff}",
                    "<!DOCTYPE x [<!ENTITY e \"e\">]>",
                ],
            );
            let i = at(rng, b);
            b.splice(i..i, junk.bytes());
        }
    }
}

/// What an input is fed to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// `check_bytes` (parse, validate, compile), then the plan's own file format.
    Config,
    /// `read_plan`.
    Plan,
}

/// Input number `index` of the campaign with `seed`.
pub fn input(seed: u64, index: u64, corpus: &Corpus) -> (Target, Vec<u8>) {
    let mut rng = fastrand::Rng::with_seed(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let plan_input = !corpus.plans.is_empty() && rng.u8(..4) == 0;
    let files = if plan_input {
        &corpus.plans
    } else {
        &corpus.xml
    };
    let Some(base) = files.get(rng.usize(..files.len().max(1))) else {
        return (Target::Config, Vec::new());
    };
    let mut b = base.clone();
    if plan_input {
        let mut payload = b.split_off(PLAN_HEADER_LEN.min(b.len()));
        for _ in 0..rng.usize(1..=4) {
            mutate_once(&mut rng, corpus, &mut payload);
        }
        if rng.u8(..8) != 0 {
            // A consistent header, so that the mutation reaches the JSON decoder and the
            // plan's invariants instead of stopping at the hash.
            b.truncate(12);
            b.extend_from_slice(&Sha256::digest(&payload));
            b.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        } else if !b.is_empty() {
            let i = rng.usize(..b.len());
            b[i] = rng.u8(..);
        }
        b.extend_from_slice(&payload);
        return (Target::Plan, b);
    }
    for _ in 0..rng.usize(1..=4) {
        mutate_once(&mut rng, corpus, &mut b);
    }
    (Target::Config, b)
}

/// An invariant of the front end or the plan file format that an input broke.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Broken {
    /// The checker produced a plan and errors, or neither.
    #[error("a plan exactly when there is no error")]
    PlanWithErrors,
    /// A diagnostic points at line or column 0.
    #[error("diagnostic without a position: {0}")]
    DiagnosticWithoutPosition(String),
    /// A plan could not be written in the plan file format.
    #[error("plan_to_bytes: {0}")]
    PlanNotWritten(String),
    /// A compiled plan read back from its file differs.
    #[error("the plan changes through its file format")]
    CompiledPlanChanged,
    /// A compiled plan's file is refused by the loader.
    #[error("a compiled plan is refused by read_plan: {0}")]
    CompiledPlanRefused(String),
    /// A plan file the loader accepted does not read back the same once written again.
    #[error("an accepted plan does not survive its file format")]
    AcceptedPlanChanged,
}

/// Runs one input through its target: whether the target accepted it (a compiled plan, an
/// accepted plan file), or the invariant it broke.
pub fn exercise(target: Target, bytes: &[u8]) -> Result<bool, Broken> {
    match target {
        Target::Config => {
            let outcome = check_bytes(bytes, "fuzz/module.xml", &NO_EXECUTABLES);
            if outcome.plan.is_some() == outcome.has_errors() {
                return Err(Broken::PlanWithErrors);
            }
            if let Some(d) = outcome
                .diagnostics
                .iter()
                .find(|d| d.line == 0 || d.column == 0)
            {
                return Err(Broken::DiagnosticWithoutPosition(d.to_string()));
            }
            if let Some(plan) = &outcome.plan {
                let file =
                    plan_to_bytes(plan).map_err(|e| Broken::PlanNotWritten(e.to_string()))?;
                match read_plan(&file) {
                    Ok(back) if &back == plan => {}
                    Ok(_) => return Err(Broken::CompiledPlanChanged),
                    Err(e) => return Err(Broken::CompiledPlanRefused(e.to_string())),
                }
            }
            Ok(outcome.plan.is_some())
        }
        Target::Plan => {
            if let Ok(plan) = read_plan(bytes) {
                let file =
                    plan_to_bytes(&plan).map_err(|e| Broken::PlanNotWritten(e.to_string()))?;
                if read_plan(&file).ok().as_ref() != Some(&plan) {
                    return Err(Broken::AcceptedPlanChanged);
                }
                return Ok(true);
            }
            Ok(false)
        }
    }
}

/// How one input went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// No failure; whether the target accepted the input.
    Passed(bool),
    /// It panicked (the message).
    Panic(String),
    /// An invariant broke.
    Invariant(Broken),
}

/// Runs `f` under `catch_unwind`, with the panic message as the verdict.
pub fn guarded(f: impl FnOnce() -> Result<bool, Broken>) -> Verdict {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(accepted)) => Verdict::Passed(accepted),
        Ok(Err(why)) => Verdict::Invariant(why),
        Err(payload) => Verdict::Panic(
            payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(no message)".into()),
        ),
    }
}

/// A fuzz run.
#[derive(Debug, Clone)]
pub struct Campaign {
    /// Seed of every input.
    pub seed: u64,
    /// Index of the first input.
    pub start: u64,
    /// Number of inputs.
    pub inputs: u64,
    /// An input taking longer is a hang.
    pub time_limit: Duration,
    /// An input allocating more (peak, above what was allocated before it) is a failure.
    pub alloc_limit: usize,
    /// Where failing inputs are written (`<kind>-<seed>-<index>.xml|.plan` and `.txt`).
    pub failures_dir: PathBuf,
}

/// The figures of a run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// Seed.
    pub seed: u64,
    /// Inputs run.
    pub inputs: u64,
    /// Of which XML configurations.
    pub config_inputs: u64,
    /// Of which plan files.
    pub plan_inputs: u64,
    /// Of which produced a compiled plan (configurations) or were accepted (plan files).
    pub accepted: u64,
    /// Wall-clock time of the run, in seconds.
    pub seconds: f64,
    /// Panics.
    pub panics: u64,
    /// Inputs slower than the time limit.
    pub hangs: u64,
    /// Inputs whose peak allocation passed the bound.
    pub allocation_failures: u64,
    /// Broken invariants.
    pub invariant_failures: u64,
    /// Highest peak allocation of one input, in bytes.
    pub peak_allocation: usize,
    /// Slowest input, in milliseconds.
    pub slowest_ms: f64,
    /// Largest input, in bytes.
    pub largest_input: usize,
    /// Files written for failing inputs.
    pub saved: Vec<PathBuf>,
}

impl Report {
    /// Number of failures of every kind.
    pub fn failures(&self) -> u64 {
        self.panics + self.hangs + self.allocation_failures + self.invariant_failures
    }
}

fn save(
    dir: &Path,
    kind: &str,
    seed: u64,
    index: u64,
    target: Target,
    bytes: &[u8],
    why: &str,
) -> PathBuf {
    let ext = match target {
        Target::Config => "xml",
        Target::Plan => "plan",
    };
    let path = dir.join(format!("{kind}-{seed}-{index}.{ext}"));
    let _ = std::fs::create_dir_all(dir);
    let _ = std::fs::write(&path, bytes);
    let _ = std::fs::write(path.with_extension("txt"), format!("{why}\n"));
    path
}

/// State the watchdog reads.
struct Current {
    running: AtomicBool,
    finished: AtomicBool,
    started_us: AtomicU64,
    index: AtomicU64,
    baseline: AtomicU64,
    input: Mutex<(Target, Vec<u8>)>,
}

/// Runs the campaign over `corpus`, measuring allocations with `meter` (which must be the
/// process's global allocator).
pub fn run(c: &Campaign, corpus: &Corpus, meter: &'static AllocMeter) -> Report {
    let clock = Instant::now();
    let cur = Arc::new(Current {
        running: AtomicBool::new(false),
        finished: AtomicBool::new(false),
        started_us: AtomicU64::new(0),
        index: AtomicU64::new(0),
        baseline: AtomicU64::new(0),
        input: Mutex::new((Target::Config, Vec::new())),
    });
    let watchdog = {
        let (cur, c) = (cur.clone(), c.clone());
        std::thread::spawn(move || {
            while !cur.finished.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(10));
                if !cur.running.load(Ordering::Relaxed) {
                    continue;
                }
                let index = cur.index.load(Ordering::Relaxed);
                let started = cur.started_us.load(Ordering::Relaxed);
                let ran = (clock.elapsed().as_micros() as u64).saturating_sub(started);
                let grown =
                    (meter.current() as u64).saturating_sub(cur.baseline.load(Ordering::Relaxed));
                let why = if ran > 4 * c.time_limit.as_micros() as u64 {
                    format!("still running after {} ms", ran / 1000)
                } else if grown > 4 * c.alloc_limit as u64 {
                    format!("{grown} bytes allocated and growing")
                } else {
                    continue;
                };
                // Still the same input (not the next one, started meanwhile)?
                let same = cur.running.load(Ordering::Relaxed)
                    && cur.index.load(Ordering::Relaxed) == index
                    && cur.started_us.load(Ordering::Relaxed) == started;
                if !same {
                    continue;
                }
                let (target, bytes) = cur
                    .input
                    .lock()
                    .map(|g| g.clone())
                    .unwrap_or((Target::Config, Vec::new()));
                let path = save(&c.failures_dir, "hang", c.seed, index, target, &bytes, &why);
                eprintln!(
                    "partita-fuzz: input {index}: {why}; written to {}",
                    path.display()
                );
                std::process::exit(3);
            }
        })
    };
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut r = Report {
        seed: c.seed,
        ..Report::default()
    };
    for index in c.start..c.start + c.inputs {
        let (target, bytes) = input(c.seed, index, corpus);
        if let Ok(mut g) = cur.input.lock() {
            g.0 = target;
            g.1.clone_from(&bytes);
        }
        r.largest_input = r.largest_input.max(bytes.len());
        let baseline = meter.current();
        cur.baseline.store(baseline as u64, Ordering::Relaxed);
        cur.index.store(index, Ordering::Relaxed);
        cur.started_us
            .store(clock.elapsed().as_micros() as u64, Ordering::Relaxed);
        meter.reset_peak();
        cur.running.store(true, Ordering::Relaxed);
        let t0 = Instant::now();
        let verdict = guarded(|| exercise(target, &bytes));
        let took = t0.elapsed();
        cur.running.store(false, Ordering::Relaxed);
        let peak = meter.peak().saturating_sub(baseline);
        r.inputs += 1;
        match target {
            Target::Config => r.config_inputs += 1,
            Target::Plan => r.plan_inputs += 1,
        }
        r.accepted += u64::from(verdict == Verdict::Passed(true));
        r.peak_allocation = r.peak_allocation.max(peak);
        r.slowest_ms = r.slowest_ms.max(took.as_secs_f64() * 1e3);
        let failure = match verdict {
            Verdict::Panic(m) => {
                r.panics += 1;
                Some(("panic", format!("panic: {m}")))
            }
            Verdict::Invariant(m) => {
                r.invariant_failures += 1;
                Some(("invariant", m.to_string()))
            }
            Verdict::Passed(_) if took > c.time_limit => {
                r.hangs += 1;
                Some(("hang", format!("took {took:?}")))
            }
            Verdict::Passed(_) if peak > c.alloc_limit => {
                r.allocation_failures += 1;
                Some(("alloc", format!("peak allocation {peak} bytes")))
            }
            Verdict::Passed(_) => None,
        };
        if let Some((kind, why)) = failure {
            r.saved.push(save(
                &c.failures_dir,
                kind,
                c.seed,
                index,
                target,
                &bytes,
                &why,
            ));
        }
    }
    std::panic::set_hook(hook);
    cur.finished.store(true, Ordering::Relaxed);
    let _ = watchdog.join();
    r.seconds = clock.elapsed().as_secs_f64();
    r
}
