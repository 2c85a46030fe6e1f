// SPDX-License-Identifier: MIT OR Apache-2.0
//! The flagship example (`examples/flagship`), which `partita run` builds and runs when it is
//! given no file: its configuration passes `partita check` cleanly, and a short run shows every
//! partition at work — the control loop, the ports between partitions, the health monitor's
//! logbook read by the system partition, the switch from the initialisation schedule — and
//! leaves nothing behind.

mod common;

use common::*;
use std::process::Stdio;

const PARTITIONS: [&str; 4] = ["fcs", "nav", "video", "health"];

/// `examples/flagship/module.xml` next to freshly built executables passes `partita check`
/// without warnings, and the check shows both schedules and both channels.
#[test]
fn flagship_module_passes_check() {
    let dir = scratch("flagship-check");
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    let module = dir.join("module.xml");
    std::fs::copy(repo().join("examples/flagship/module.xml"), &module).unwrap();
    for p in PARTITIONS {
        let cc = partita()
            .args(["cc", "-O2", "-Wall", "-Werror"])
            .arg(repo().join(format!("examples/flagship/{p}.c")))
            .arg("-o")
            .arg(dir.join("bin").join(p))
            .output()
            .unwrap();
        assert!(cc.status.success(), "partita cc {p}.c: {}", text(&cc));
    }
    let out = partita().arg("check").arg(&module).output().unwrap();
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(!all.to_lowercase().contains("warning"), "{all}");
    assert!(
        all.contains("Schedule 1 \"initialisation\" (initial)"),
        "{all}"
    );
    assert!(all.contains("Schedule 2 \"running\""), "{all}");
    assert!(all.contains("fcs:ATTITUDE -> nav:ATTITUDE"), "{all}");
    assert!(all.contains("nav:NAV_CMD -> fcs:NAV_CMD"), "{all}");
    assert!(
        all.contains("video:VIDEO_TLM -> ground(udp 127.0.0.1:6530)"),
        "{all}"
    );
}

/// Lines of `partition`'s output (the module log prefixes each with the partition name).
fn lines_of<'a>(stdout: &'a str, partition: &str) -> Vec<&'a str> {
    let tag = format!("{partition}: ");
    stdout
        .lines()
        .filter_map(|l| l.split_once(" | ").map(|(_, rest)| rest))
        .filter(|l| l.starts_with(&tag))
        .collect()
}

/// The number after `word` in `line` ("... 49 control cycles ..." for "control cycles").
fn count_before(line: &str, word: &str) -> Option<u64> {
    let i = line.find(word)?;
    line[..i].split_whitespace().last()?.parse().ok()
}

#[test]
fn default_module_is_the_flagship_and_runs_cleanly() {
    let _g = serial();
    if let Err(r) = capable() {
        return skip("default_module_is_the_flagship_and_runs_cleanly", &r);
    }
    let dir = scratch("flagship-run");
    let cache = dir.join("cache");
    let child = partita()
        .env("XDG_CACHE_HOME", &cache)
        .args(["run", "--duration", "3s", "--json"])
        .arg(dir.join("report.json"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    for p in PARTITIONS {
        assert!(
            cache.join("partita/flagship/bin").join(p).is_file(),
            "{p} not built in the cache"
        );
    }
    let stdout = String::from_utf8_lossy(&out.stdout);

    // Every partition initialised and did its work.
    for p in PARTITIONS {
        assert!(
            lines_of(&stdout, p)
                .iter()
                .any(|l| l.contains("initialised at")),
            "{p} did not initialise\n{all}"
        );
    }
    // health: the built-in test passed and asked for the running schedule.
    let health = lines_of(&stdout, "health");
    assert!(
        health
            .iter()
            .any(|l| l.contains("PBIT passed") && l.contains("SET_MODULE_SCHEDULE(running)")),
        "{all}"
    );
    // fcs: the control loop ran, attitude was published, nav's waypoint arrived (NAV_CMD).
    let fcs = lines_of(&stdout, "fcs");
    let status = fcs
        .iter()
        .rfind(|l| l.contains("control cycles"))
        .unwrap_or_else(|| panic!("no fcs status line\n{all}"));
    assert!(
        count_before(status, "control cycles").unwrap() >= 40,
        "{status}"
    );
    assert!(
        count_before(status, "attitude msgs").unwrap() >= 20,
        "{status}"
    );
    assert!(count_before(status, "waypoints").unwrap() >= 1, "{status}");
    assert!(!status.contains("(cmd   0.0)"), "{status}");
    // nav: the attitude messages arrived through the sampling port, valid.
    let nav = lines_of(&stdout, "nav");
    let seen = nav
        .iter()
        .find(|l| l.starts_with("nav: attitude #"))
        .unwrap_or_else(|| panic!("nav read no attitude\n{all}"));
    assert!(seen.contains("VALID"), "{seen}");
    assert!(count_before(seen, "valid,").unwrap() >= 20, "{seen}");
    assert!(
        nav.iter()
            .any(|l| l.contains("waypoint 1: heading 30 deg sent on NAV_CMD (rc 0")),
        "{all}"
    );
    // video: frames encoded; frame 30's error went to its error handler.
    let video = lines_of(&stdout, "video");
    assert!(
        video
            .iter()
            .any(|l| l.contains("frame 50:") && l.contains("49 frames encoded")),
        "{all}"
    );
    assert!(
        video
            .iter()
            .any(|l| l.contains("error handler: APPLICATION_ERROR")
                && l.contains("frame 30: camera checksum mismatch")),
        "{all}"
    );
    // health read the others' status and that error from the logbook.
    assert!(
        health.iter().any(|l| l.contains("schedule 2;")
            && l.contains("fcs NORMAL")
            && l.contains("video NORMAL")),
        "{all}"
    );
    assert!(
        health.iter().any(|l| l.contains("logbook #")
            && l.contains("video APPLICATION_ERROR, level PROCESS, action ERROR_HANDLER")),
        "{all}"
    );

    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["module"], "flagship", "{report}");
    let switches = report["schedule_switches"].as_array().unwrap();
    assert_eq!(switches.len(), 1, "{report}");
    assert_eq!(switches[0]["from_name"], "initialisation");
    assert_eq!(switches[0]["to_name"], "running");
    assert_eq!(switches[0]["requested_by"], "health");
    assert_eq!(report["final_schedule"], 2);
    for p in report["partitions"].as_array().unwrap() {
        assert_eq!(p["mode"], "NORMAL", "{p}");
        assert_eq!(p["restarts"], 0, "{p}");
        assert!(p["windows"].as_u64().unwrap() >= 20, "{p}");
        assert!(p["exit"].is_null(), "{p}");
    }
    // The run report's channel traffic: the attitude stream and nav's waypoints.
    let channels = report["channels"].as_array().unwrap();
    assert_eq!(channels.len(), 3, "{report}");
    assert_eq!(channels[0]["source"], "fcs:ATTITUDE");
    assert_eq!(channels[0]["destinations"][0], "nav:ATTITUDE");
    assert!(channels[0]["written"].as_u64().unwrap() >= 50, "{report}");
    assert_eq!(channels[1]["source"], "nav:NAV_CMD");
    let sent = channels[1]["written"].as_u64().unwrap();
    assert!(sent >= 1, "{report}");
    assert_eq!(channels[1]["received"].as_u64().unwrap(), sent, "{report}");
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("channel 1 (sampling): fcs:ATTITUDE -> nav:ATTITUDE"),
        "{all}"
    );
    let records = report["hm"]["records"].as_array().unwrap();
    assert!(
        records
            .iter()
            .any(|r| r["partition"] == "video" && r["code"] == "APPLICATION_ERROR"),
        "{report}"
    );
    assert!(report["leftovers"].as_array().unwrap().is_empty());
    assert!(
        cgroups_of(pid).is_empty(),
        "cgroups left: {:?}",
        cgroups_of(pid)
    );
}
