// SPDX-License-Identifier: MIT OR Apache-2.0
//! The privilege drop of `partita_sys::spawn` seen from inside the child: a copy of
//! `/bin/cat` in a directory only root may enter prints its own `/proc/self/status`.
//! Needs root (prints SKIPPED otherwise).

use partita_sys::spawn::{self, Confinement, Namespaces, SpawnSpec};
use std::ffi::CString;
use std::io::Read;
use std::os::fd::AsRawFd;
use std::os::unix::fs::PermissionsExt;

/// The uid and gid of the confined child: past every partition id block, so that no module
/// running at the same time has a partition under it (its RLIMIT_NPROC counts every task of
/// the uid on the host).
const TEST_ID: u32 = partita_abi::ids::PARTITION_UID_BASE
    + partita_abi::ids::UID_BLOCKS * partita_abi::ids::UID_BLOCK_SIZE;

fn status_of_confined_cat(namespaces: Namespaces) -> String {
    // A directory the partition's uid cannot search: only execveat of a descriptor opened
    // before the privilege drop reaches the program.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("confinement");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let exe = dir.join("cat");
    std::fs::copy("/bin/cat", &exe).unwrap();
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (out_r, out_w) = spawn::pipe().unwrap();
    let devnull = std::fs::File::open("/dev/null").unwrap();
    let path = spawn::cstring(exe.as_os_str()).unwrap();
    let spec = SpawnSpec {
        path: path.clone(),
        cwd: None,
        argv: vec![path, CString::new("/proc/self/status").unwrap()],
        envp: Vec::new(),
        fds: vec![
            (devnull.as_raw_fd(), 0),
            (out_w.as_raw_fd(), 1),
            (out_w.as_raw_fd(), 2),
        ],
        namespaces,
        cpus: Vec::new(),
        rtprio_limit: None,
        creation_notify: None,
        binds: Vec::new(),
        confinement: Confinement {
            ids: Some((TEST_ID, TEST_ID)),
            fifo_priority: None,
            normal_policy: false,
            nproc_limit: Some(64),
            filters: Some(
                partita_sys::seccomp::compile(partita_sys::seccomp::Profile::Apex).unwrap(),
            ),
        },
    };
    let mut child = spawn::spawn(&spec).unwrap();
    drop(out_w);
    child.go().unwrap();
    let exec = child.exec_result();
    let mut out = String::new();
    std::fs::File::from(out_r).read_to_string(&mut out).unwrap();
    let how = partita_sys::proc::wait(child.pid);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(exec.is_ok(), "exec failed: {exec:?}\n{out}");
    assert_eq!(how, Some(partita_sys::proc::ExitKind::Exited(0)), "{out}");
    out
}

fn field<'a>(status: &'a str, name: &str) -> &'a str {
    status
        .lines()
        .find_map(|l| l.strip_prefix(name))
        .map(str::trim)
        .unwrap_or_else(|| panic!("no {name} in\n{status}"))
}

#[test]
fn a_confined_child_has_its_uid_no_capabilities_and_the_filter() {
    if !partita_sys::proc::is_root() {
        assert!(
            std::env::var("PARTITA_REQUIRE_ALL").as_deref() != Ok("1"),
            "required capability missing: root"
        );
        println!("SKIPPED a_confined_child_has_its_uid_no_capabilities_and_the_filter: needs root");
        return;
    }
    for ns in [Namespaces::default(), Namespaces::all()] {
        let s = status_of_confined_cat(ns);
        let ids = [TEST_ID; 4].map(|i| i.to_string()).join("\t");
        assert_eq!(field(&s, "Uid:"), ids, "{s}");
        assert_eq!(field(&s, "Gid:"), ids, "{s}");
        assert_eq!(field(&s, "Groups:"), "", "{s}");
        for cap in ["CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:"] {
            assert_eq!(field(&s, cap), "0000000000000000", "{cap}\n{s}");
        }
        assert_eq!(field(&s, "NoNewPrivs:"), "1", "{s}");
        assert_eq!(field(&s, "Seccomp:"), "2", "{s}");
        assert_eq!(field(&s, "Seccomp_filters:"), "2", "{s}");
        if ns.pid {
            // PID 1 of its own namespace.
            assert_eq!(
                field(&s, "NSpid:").split('\t').next_back(),
                Some("1"),
                "{s}"
            );
        }
    }
}
