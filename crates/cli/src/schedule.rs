// SPDX-License-Identifier: MIT OR Apache-2.0
//! `partita schedule`: synthesise a module schedule from the partitions' process sets, check it
//! independently, write it back into the module, report; `--experiment` compares the
//! algorithms on random process sets.
//!
//! Exit statuses ([`ExitStatus`]): configuration or input errors (every one named with
//! file:line), bad command line, unreadable or unwritable file, no schedulable table
//! ([`ExitStatus::Unschedulable`]), and the synthesised schedule failing `partita check` or
//! the checker ([`ExitStatus::ScheduleDefect`], a defect: please report).

use crate::exit::ExitStatus;
use partita_synth::checker::{self, HostReserve};
use partita_synth::doc::SourceMap;
use partita_synth::{experiment, report, svg, Algorithm, Params, Synthesis};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Options of `partita schedule`.
pub struct Options {
    /// Module file (absent with `--experiment`).
    pub file: Option<PathBuf>,
    /// `seed`, `prm`, `ours` or `all`.
    pub algorithm: String,
    /// Host reserve per micro-period.
    pub host_reserve: Option<Duration>,
    /// Switch cost per window.
    pub switch_cost: Option<Duration>,
    /// Cores to schedule on.
    pub cores: Option<Vec<u32>>,
    /// Write the module with its new schedule here.
    pub output: Option<PathBuf>,
    /// Rewrite the input file.
    pub in_place: bool,
    /// Gantt chart SVG.
    pub gantt: Option<PathBuf>,
    /// Print the report as JSON.
    pub json: bool,
    /// Do not check that executables exist.
    pub no_executables: bool,
    /// Run the experiment instead.
    pub experiment: bool,
    /// Experiment: sets per utilisation level.
    pub sets: usize,
    /// Experiment: seed.
    pub seed: u64,
    /// Experiment: output directory.
    pub out: PathBuf,
}

fn ns(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Runs the command; returns the exit code.
pub fn main(o: &Options) -> ExitStatus {
    let params = Params {
        switch_cost: o.switch_cost.map_or(Params::default().switch_cost, ns),
        host_reserve: o.host_reserve.map(ns),
    };
    if o.experiment {
        return run_experiment(o, params);
    }
    let Some(file) = &o.file else {
        eprintln!("partita schedule: give a module file (or --experiment)");
        return ExitStatus::BadCommandLine;
    };
    let algorithms: Vec<Algorithm> = match o.algorithm.as_str() {
        "seed" => vec![Algorithm::Seed],
        "prm" => vec![Algorithm::Prm],
        "ours" => vec![Algorithm::Ours],
        "all" => vec![Algorithm::Ours, Algorithm::Seed, Algorithm::Prm],
        other => {
            eprintln!("partita schedule: unknown algorithm `{other}` (seed, prm, ours, all)");
            return ExitStatus::BadCommandLine;
        }
    };
    if o.in_place && o.output.is_some() {
        eprintln!("partita schedule: give either -o FILE or --in-place, not both");
        return ExitStatus::BadCommandLine;
    }
    let read = partita_config::limits::read_bounded(file).and_then(|b| {
        String::from_utf8(b)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error()))
    });
    let text = match read {
        Ok(t) => t,
        Err(e) => {
            eprintln!("partita: {}: {e}", file.display());
            return ExitStatus::FileError;
        }
    };
    let copts = partita_config::CheckOptions {
        check_executables: !o.no_executables,
    };
    let (module, diags) = partita_config::validate_for_synthesis(&text, file, &copts);
    if !diags.is_empty() {
        eprint!("{}", partita_config::render_diagnostics(&diags));
    }
    let Some(module) = module else {
        eprintln!("{}", partita_config::count_line(&diags));
        return ExitStatus::ConfigurationErrors;
    };
    let Some(map) = SourceMap::new(&text) else {
        eprintln!("partita: {}: not well-formed XML", file.display());
        return ExitStatus::ConfigurationErrors;
    };
    let set = match partita_synth::model::task_set(&module, &map, o.cores.as_deref()) {
        Ok(s) => s,
        Err(errors) => {
            for e in &errors {
                eprintln!("error: {e}");
            }
            eprintln!("{} error(s): nothing synthesised", errors.len());
            return ExitStatus::ConfigurationErrors;
        }
    };
    // Synthesise with every requested algorithm; verify each with the checker.
    let mut results: Vec<(Synthesis, report::Report)> = Vec::new();
    let mut failures = Vec::new();
    for &alg in &algorithms {
        match partita_synth::synthesize(&set, alg, &params) {
            Ok(syn) => {
                let parts: Vec<checker::CheckedPartition> = set
                    .partitions
                    .iter()
                    .map(|p| checker::CheckedPartition {
                        index: p.index,
                        name: &p.name,
                        tasks: &p.tasks,
                    })
                    .collect();
                let verdict = checker::check(&syn.plan, &parts, syn.switch_cost, &reserves(&syn));
                let rep = report::build(&set, &syn, &verdict);
                results.push((syn, rep));
            }
            Err(e) => failures.push(e),
        }
    }
    let mut out_json = serde_json::Map::new();
    for (_, rep) in &results {
        if o.json {
            out_json.insert(
                rep.algorithm.clone(),
                serde_json::to_value(rep).unwrap_or_default(),
            );
        } else {
            print!("{}", report::render(rep));
        }
    }
    for e in &failures {
        eprintln!("partita schedule: {e}");
    }
    let Some((chosen, rep)) = results.first() else {
        eprintln!(
            "partita schedule: no schedulable table found (utilisation {:.3}); lower WCETs, lengthen periods, reduce --host-reserve or --switch-cost, or add cores",
            set.utilisation()
        );
        return ExitStatus::Unschedulable;
    };
    if !rep.checked {
        eprintln!(
            "partita schedule: internal error: the {} schedule fails the independent checker: {:?}",
            chosen.algorithm, rep.violations
        );
        return ExitStatus::ScheduleDefect;
    }
    // Render, splice, re-check the whole module as `partita check` would.
    let comment = format!(
        "generated by partita schedule, algorithm {}, switch cost {} ns per window, host reserve {} ns per micro-period of {} ns",
        chosen.algorithm,
        chosen.switch_cost,
        chosen.cores.first().map_or(0, |c| c.2),
        chosen.cores.first().map_or(0, |c| c.1),
    );
    let xml = map.render_schedule(&module, &chosen.plan, &chosen.timing, &comment);
    let new_text = map.splice(&text, &xml);
    let target: Option<PathBuf> = if o.in_place {
        Some(file.clone())
    } else {
        o.output.clone()
    };
    // Relative paths in the module are relative to its directory: keep them naming the same
    // files from the output file's directory.
    let dir_of = |p: &std::path::Path| match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let new_text = match &target {
        Some(t) => match partita_synth::doc::rebase_paths(&new_text, &dir_of(file), &dir_of(t)) {
            Ok(moved) => moved,
            Err(e) => {
                eprintln!("partita: {}: {e}", dir_of(t).display());
                return ExitStatus::FileError;
            }
        },
        None => new_text,
    };
    let check_path = target.clone().unwrap_or_else(|| file.clone());
    let outcome = partita_config::check_str_with(&new_text, &check_path, &copts);
    let Some(compiled) = outcome.plan.as_ref() else {
        eprint!(
            "{}",
            partita_config::render_diagnostics(&outcome.diagnostics)
        );
        eprintln!(
            "partita schedule: internal error: the module with the synthesised schedule does not pass partita check"
        );
        return ExitStatus::ScheduleDefect;
    };
    match checker::check_compiled(compiled, chosen.switch_cost, &reserves(chosen)) {
        Ok(v) if v.ok() => {}
        Ok(v) => {
            eprintln!(
                "partita schedule: internal error: the compiled plan fails the checker: {:?}",
                v.violations
            );
            return ExitStatus::ScheduleDefect;
        }
        Err(e) => {
            eprintln!("partita schedule: internal error: {e}");
            return ExitStatus::ScheduleDefect;
        }
    }
    if map.schedule_count() > 1 {
        eprintln!(
            "partita schedule: note: the file had {} Module_Schedule elements; all were replaced by the synthesised one",
            map.schedule_count()
        );
    }
    if let Some(path) = &target {
        if let Err(e) = std::fs::write(path, &new_text) {
            eprintln!("partita: {}: {e}", path.display());
            return ExitStatus::FileError;
        }
        if !o.json {
            println!(
                "wrote {} ({} schedule, {} windows)",
                path.display(),
                chosen.algorithm,
                chosen.plan.windows.len()
            );
        }
    } else if !o.json {
        println!("{xml}");
    }
    if let Some(g) = &o.gantt {
        let names: Vec<(usize, String)> = set
            .partitions
            .iter()
            .map(|p| (p.index, p.name.clone()))
            .collect();
        let title = format!(
            "{}: {} schedule, one major frame",
            module.name, chosen.algorithm
        );
        let s = svg::gantt(&chosen.plan, &names, chosen.switch_cost, &title);
        if let Err(e) = std::fs::write(g, s) {
            eprintln!("partita: {}: {e}", g.display());
            return ExitStatus::FileError;
        }
    }
    if o.json {
        out_json.insert("chosen".into(), chosen.algorithm.name().into());
        if target.is_none() {
            out_json.insert("module_schedule".into(), xml.into());
        }
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::Value::Object(out_json)).unwrap_or_default()
        );
    }
    ExitStatus::Success
}

fn reserves(syn: &Synthesis) -> Vec<HostReserve> {
    syn.cores
        .iter()
        .map(|&(core, period, reserve)| HostReserve {
            core,
            period,
            reserve,
        })
        .collect()
}

fn run_experiment(o: &Options, params: Params) -> ExitStatus {
    let opts = experiment::Options {
        sets: o.sets,
        seed: o.seed,
        params,
    };
    let started = std::time::Instant::now();
    let outcome = experiment::run(&opts);
    print!("{}", experiment::render(&outcome));
    println!("({:.1} s)", started.elapsed().as_secs_f64());
    if let Err(e) = std::fs::create_dir_all(&o.out) {
        eprintln!("partita: {}: {e}", o.out.display());
        return ExitStatus::FileError;
    }
    let write = |name: &str, body: String| -> Result<PathBuf, ExitStatus> {
        let p: PathBuf = Path::new(&o.out).join(name);
        std::fs::write(&p, body).map_err(|e| {
            eprintln!("partita: {}: {e}", p.display());
            ExitStatus::FileError
        })?;
        Ok(p)
    };
    let json = serde_json::to_string_pretty(&outcome).unwrap_or_default();
    let (j, s) = match (
        write("experiment.json", json),
        write("experiment.svg", experiment::plot(&outcome)),
    ) {
        (Ok(j), Ok(s)) => (j, s),
        _ => return ExitStatus::FileError,
    };
    println!("wrote {} and {}", j.display(), s.display());
    ExitStatus::Success
}
