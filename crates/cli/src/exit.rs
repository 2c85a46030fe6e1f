// SPDX-License-Identifier: MIT OR Apache-2.0
//! The exit statuses of `partita`: one enum, from which `partita --help` prints its list and
//! against which a test checks the README's "Exit codes" section and the docs.
//!
//! Two commands pass another program's status through instead: `partita cc` exits with the C
//! compiler's status, and a command line clap rejects exits with clap's 2 (the same as
//! [`ExitStatus::BadCommandLine`]).

use std::process::ExitCode;

/// How `partita` ended. The number is the process exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ExitStatus {
    /// 0: the command did what it was asked.
    Success = 0,
    /// 1: the configuration has errors (every diagnostic is printed with file:line).
    ConfigurationErrors = 1,
    /// 2: the command line is wrong (for `partita trace`, also a selection the trace cannot
    /// satisfy: an unknown partition or core, an empty span).
    BadCommandLine = 2,
    /// 3: a file could not be read or written, or a plan, logbook or trace file is corrupt.
    FileError = 3,
    /// 4: the module could not be run (backend unavailable, system error).
    CannotRun = 4,
    /// 5: the module ran, but a partition could not be started or something was left behind.
    PartitionFailure = 5,
    /// 6: the module ran with window overruns and `--fail-on overrun` (or its alias
    /// `--fail-on-overrun`) was given.
    Overruns = 6,
    /// 7: the health monitor shut the module down (module-level SHUTDOWN action).
    HmShutdown = 7,
    /// 8: `partita schedule` found no schedulable table.
    Unschedulable = 8,
    /// 9: `partita schedule`: the synthesised schedule failed its own checks (a defect).
    ScheduleDefect = 9,
    /// 10: a partition's process ended (crashed or exited) before the module stopped, and
    /// `--fail-on exit` was given.
    PartitionEnded = 10,
    /// 11: a partition was restarted and `--fail-on restart` was given.
    PartitionRestarted = 11,
    /// 12: a process missed its deadline and `--fail-on deadline` was given.
    DeadlineMissed = 12,
    /// 13: the health monitor recorded an error and `--fail-on hm` was given.
    HmEvents = 13,
    /// 14: a partition never reached NORMAL mode and `--fail-on start` was given.
    NeverNormal = 14,
}

impl ExitStatus {
    /// Every status, in the order of their numbers.
    pub const ALL: [ExitStatus; 15] = [
        ExitStatus::Success,
        ExitStatus::ConfigurationErrors,
        ExitStatus::BadCommandLine,
        ExitStatus::FileError,
        ExitStatus::CannotRun,
        ExitStatus::PartitionFailure,
        ExitStatus::Overruns,
        ExitStatus::HmShutdown,
        ExitStatus::Unschedulable,
        ExitStatus::ScheduleDefect,
        ExitStatus::PartitionEnded,
        ExitStatus::PartitionRestarted,
        ExitStatus::DeadlineMissed,
        ExitStatus::HmEvents,
        ExitStatus::NeverNormal,
    ];

    /// The process exit status.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The one-line meaning printed by `--help` and written in the README.
    pub fn meaning(self) -> &'static str {
        match self {
            ExitStatus::Success => "success",
            ExitStatus::ConfigurationErrors => "configuration errors",
            ExitStatus::BadCommandLine => "bad command line",
            ExitStatus::FileError => "unreadable/unwritable file or corrupt plan",
            ExitStatus::CannotRun => "the module could not be run",
            ExitStatus::PartitionFailure => {
                "a partition could not start or something was left behind"
            }
            ExitStatus::Overruns => "window overruns with --fail-on overrun (or --fail-on-overrun)",
            ExitStatus::HmShutdown => {
                "the health monitor shut the module down (module SHUTDOWN action)"
            }
            ExitStatus::Unschedulable => "partita schedule found no schedulable table",
            ExitStatus::ScheduleDefect => {
                "partita schedule: the synthesised schedule failed its own checks (a defect)"
            }
            ExitStatus::PartitionEnded => {
                "a partition process ended before the module stopped, with --fail-on exit"
            }
            ExitStatus::PartitionRestarted => "a partition was restarted, with --fail-on restart",
            ExitStatus::DeadlineMissed => "a process missed its deadline, with --fail-on deadline",
            ExitStatus::HmEvents => "the health monitor recorded an error, with --fail-on hm",
            ExitStatus::NeverNormal => {
                "a partition never reached NORMAL mode, with --fail-on start"
            }
        }
    }

    /// The status `partita run --fail-on` exits with when it finds `concern`.
    pub fn of_concern(concern: partita_manager::Concern) -> ExitStatus {
        use partita_manager::Concern;
        match concern {
            Concern::Exit => ExitStatus::PartitionEnded,
            Concern::Restart => ExitStatus::PartitionRestarted,
            Concern::Deadline => ExitStatus::DeadlineMissed,
            Concern::Hm => ExitStatus::HmEvents,
            Concern::Start => ExitStatus::NeverNormal,
            Concern::Overrun => ExitStatus::Overruns,
        }
    }

    /// The status with number `code`, if it is one of `partita`'s.
    pub fn from_code(code: u8) -> Option<ExitStatus> {
        ExitStatus::ALL.into_iter().find(|s| s.code() == code)
    }

    /// The "Exit codes" list of `partita --help`: one `N  meaning` line per status.
    pub fn help() -> String {
        let mut text = String::from("Exit codes:");
        for s in ExitStatus::ALL {
            text.push_str(&format!("\n  {}  {}", s.code(), s.meaning()));
        }
        text
    }
}

impl From<ExitStatus> for ExitCode {
    fn from(s: ExitStatus) -> ExitCode {
        ExitCode::from(s.code())
    }
}

#[cfg(test)]
mod tests {
    //! The documentation of the exit codes agrees with [`ExitStatus`].
    //!
    //! Format the README's section must have: a Markdown heading whose text is "Exit codes"
    //! (any level); up to the next heading, either a Markdown list with one item per status,
    //! `- N meaning`, or one paragraph of `N meaning` items separated by `;`. Every status
    //! appears once, and its meaning is [`ExitStatus::meaning`] word for word (backticks,
    //! line breaks and a final period are ignored). In `docs/*.md`, a paragraph starting with
    //! "Exit codes:" or a section headed "Exit codes" lists statuses the same way (a subset is
    //! fine), and "exit code N" names a status that exists.

    use super::ExitStatus;
    use std::path::Path;

    fn workspace() -> &'static Path {
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
    }

    /// Backticks removed, whitespace collapsed, a final period dropped.
    fn normalise(s: &str) -> String {
        let s = s.replace('`', "");
        let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
        s.strip_suffix('.').unwrap_or(&s).to_string()
    }

    fn is_heading(line: &str) -> bool {
        line.trim_start().starts_with('#')
    }

    /// An item that is not `N meaning`.
    #[derive(Debug, thiserror::Error)]
    enum ItemError {
        #[error("`{0}` is not `N meaning`")]
        NotNumberAndMeaning(String),
        #[error("`{0}` does not start with an exit code")]
        NoExitCode(String),
    }

    /// The `N meaning` items of a section body (see the module documentation).
    fn items(body: &str) -> Result<Vec<(u8, String)>, ItemError> {
        let lines: Vec<&str> = body.lines().collect();
        let is_item =
            |l: &str| l.trim_start().starts_with("- ") || l.trim_start().starts_with("* ");
        let raw: Vec<String> = if lines.iter().any(|l| is_item(l)) {
            let mut list: Vec<String> = Vec::new();
            for l in &lines {
                let t = l.trim();
                if is_item(l) {
                    list.push(t[2..].to_string());
                } else if l.starts_with(char::is_whitespace) && !t.is_empty() {
                    // An item's continuation line (indented).
                    if let Some(last) = list.last_mut() {
                        last.push(' ');
                        last.push_str(t);
                    }
                }
            }
            list
        } else {
            let paragraph: Vec<&str> = lines
                .iter()
                .skip_while(|l| l.trim().is_empty())
                .take_while(|l| !l.trim().is_empty())
                .copied()
                .collect();
            paragraph.join(" ").split(';').map(str::to_string).collect()
        };
        raw.iter()
            .map(|item| {
                let item = normalise(item);
                let (n, meaning) = item
                    .split_once(' ')
                    .ok_or_else(|| ItemError::NotNumberAndMeaning(item.clone()))?;
                let n: u8 = n.parse().map_err(|_| ItemError::NoExitCode(item.clone()))?;
                Ok((n, meaning.to_string()))
            })
            .collect()
    }

    /// Checks documented items against the enum; with `complete`, every status must appear.
    fn check(items: &[(u8, String)], complete: bool, place: &str) -> Vec<String> {
        let mut problems = Vec::new();
        for (n, meaning) in items {
            match ExitStatus::from_code(*n) {
                None => problems.push(format!("{place}: exit code {n} does not exist")),
                Some(s) if meaning != s.meaning() => problems.push(format!(
                    "{place}: exit code {n} says `{meaning}`, ExitStatus::{s:?} says `{}`",
                    s.meaning()
                )),
                Some(_) => {}
            }
        }
        if complete {
            for s in ExitStatus::ALL {
                let times = items.iter().filter(|(n, _)| *n == s.code()).count();
                if times != 1 {
                    problems.push(format!(
                        "{place}: exit code {} ({}) is listed {times} times, not once",
                        s.code(),
                        s.meaning()
                    ));
                }
            }
        }
        problems
    }

    /// The bodies of the sections headed "Exit codes" in `text`.
    fn headed_sections(text: &str) -> Vec<String> {
        let lines: Vec<&str> = text.lines().collect();
        let mut sections = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            if is_heading(l) && normalise(l.trim_start_matches('#')) == "Exit codes" {
                let body: Vec<&str> = lines[i + 1..]
                    .iter()
                    .take_while(|l| !is_heading(l))
                    .copied()
                    .collect();
                sections.push(body.join("\n"));
            }
        }
        sections
    }

    #[test]
    fn numbers_are_the_discriminants_in_order() {
        for (i, s) in ExitStatus::ALL.into_iter().enumerate() {
            assert_eq!(usize::from(s.code()), i, "{s:?}");
            assert_eq!(ExitStatus::from_code(s.code()), Some(s));
            assert!(
                !s.meaning().contains(';'),
                "{s:?}: a meaning may not hold `;`"
            );
        }
        assert_eq!(ExitStatus::from_code(ExitStatus::ALL.len() as u8), None);
    }

    #[test]
    fn every_concern_has_its_own_status_naming_its_fail_on_word() {
        use partita_manager::Concern;
        let mut codes: Vec<u8> = Concern::ALL
            .iter()
            .map(|c| ExitStatus::of_concern(*c).code())
            .collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), Concern::ALL.len());
        for c in Concern::ALL {
            let meaning = ExitStatus::of_concern(c).meaning();
            assert!(
                meaning.contains(&format!("--fail-on {}", c.name())),
                "{c:?}: {meaning}"
            );
        }
    }

    #[test]
    fn help_lists_every_status() {
        let help = ExitStatus::help();
        for s in ExitStatus::ALL {
            let line = format!("  {}  {}", s.code(), s.meaning());
            assert!(
                help.lines().any(|l| l == line),
                "{line:?} missing from:\n{help}"
            );
        }
    }

    #[test]
    fn readme_exit_codes_agree_with_the_enum() {
        let text = std::fs::read_to_string(workspace().join("README.md")).expect("README.md");
        let sections = headed_sections(&text);
        assert_eq!(
            sections.len(),
            1,
            "README.md needs one section headed `Exit codes`"
        );
        let items = items(&sections[0]).unwrap_or_else(|e| panic!("README.md: {e}"));
        let problems = check(&items, true, "README.md");
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn docs_exit_codes_agree_with_the_enum() {
        let mut problems = Vec::new();
        let mut lists = 0;
        let dir = workspace().join("docs");
        for entry in std::fs::read_dir(&dir).expect("docs/") {
            let path = entry.expect("docs entry").path();
            if path.extension().and_then(|e| e.to_str()) != Some("md") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("doc");
            let place = format!(
                "docs/{}",
                path.file_name().and_then(|n| n.to_str()).unwrap_or("?")
            );
            let mut bodies = headed_sections(&text);
            for (i, l) in text.lines().enumerate() {
                if let Some(rest) = l.trim_start().strip_prefix("Exit codes:") {
                    let more: Vec<&str> = text
                        .lines()
                        .skip(i + 1)
                        .take_while(|l| !l.trim().is_empty())
                        .collect();
                    bodies.push(format!("{rest}\n{}", more.join("\n")));
                }
            }
            for body in bodies {
                lists += 1;
                match items(&body) {
                    Ok(items) => problems.extend(check(&items, false, &place)),
                    Err(e) => problems.push(format!("{place}: {e}")),
                }
            }
            let words: Vec<String> = normalise(&text.to_lowercase())
                .split(' ')
                .map(|w| {
                    w.trim_matches(|c: char| !c.is_ascii_alphanumeric())
                        .to_string()
                })
                .collect();
            for w in words.windows(3) {
                if w[0] == "exit" && w[1] == "code" {
                    if let Ok(n) = w[2].parse::<u8>() {
                        if ExitStatus::from_code(n).is_none() {
                            problems.push(format!("{place}: exit code {n} does not exist"));
                        }
                    }
                }
            }
        }
        assert!(
            lists > 0,
            "no exit code list found under docs/ (the test reads nothing)"
        );
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn the_parser_reads_both_forms_and_finds_disagreement() {
        let list = "Intro.\n\n- 0 success\n- 1 configuration\n  errors.\n";
        assert_eq!(
            items(list).unwrap(),
            vec![(0, "success".into()), (1, "configuration errors".into())]
        );
        let paragraph = "0 success; 8 `partita schedule` found no\nschedulable table.";
        assert_eq!(
            items(paragraph).unwrap(),
            vec![
                (0, "success".into()),
                (8, "partita schedule found no schedulable table".into())
            ]
        );
        assert_eq!(
            check(&items("7 no schedulable table").unwrap(), false, "x").len(),
            1
        );
        assert_eq!(check(&items("10 success").unwrap(), false, "x").len(), 1);
        assert_eq!(
            check(&items("0 success").unwrap(), true, "x").len(),
            ExitStatus::ALL.len() - 1
        );
    }
}
