// SPDX-License-Identifier: MIT OR Apache-2.0
//! What the privileged `partita` binary links: the partition manager and the host side of the
//! benchmarks, never the partition runtime. The benchmark partitions are executables of their
//! own (`partita-bench-partitions`), and `partita-sys` builds only the side each crate asks
//! for (`host` for the manager, `partition` for the runtime).

use std::process::Command;

/// `cargo tree -p <package>` with `edges`, one package (or feature) per line.
fn tree(package: &str, edges: &str) -> Vec<String> {
    let out = Command::new(env!("CARGO"))
        .args(["tree", "-p", package, "-e", edges, "--prefix", "none"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// The package names in `cargo tree -e normal` of `package`.
fn packages(package: &str) -> Vec<String> {
    tree(package, "normal")
        .iter()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

const RUNTIME: [&str; 2] = ["partita-apex", "partita-apex-core"];

#[test]
fn the_partita_binary_and_the_bench_link_no_partition_runtime() {
    for p in ["partita", "partita-bench"] {
        let deps = packages(p);
        assert!(deps.iter().any(|d| d == "partita-manager"), "{p}: {deps:?}");
        for r in RUNTIME {
            assert!(!deps.iter().any(|d| d == r), "{p} depends on {r}: {deps:?}");
        }
    }
    // The benchmark partitions are where the runtime is (the check above can see it).
    let deps = packages("partita-bench-partitions");
    assert!(deps.iter().any(|d| d == "partita-apex"), "{deps:?}");
    assert!(!deps.iter().any(|d| d == "partita-manager"), "{deps:?}");
}

#[test]
fn each_side_builds_only_its_system_wrappers() {
    let sys = |package: &str| -> Vec<String> {
        tree(package, "normal,features")
            .into_iter()
            .filter(|l| l.starts_with("partita-sys feature"))
            .collect()
    };
    let host = "partita-sys feature \"host\"";
    let partition = "partita-sys feature \"partition\"";
    let manager = sys("partita");
    assert!(manager.iter().any(|l| l == host), "{manager:?}");
    assert!(!manager.iter().any(|l| l == partition), "{manager:?}");
    let runtime = sys("partita-apex");
    assert!(runtime.iter().any(|l| l == partition), "{runtime:?}");
    assert!(!runtime.iter().any(|l| l == host), "{runtime:?}");
    // The filter compiler is the manager's alone.
    assert!(!packages("partita-apex").iter().any(|d| d == "seccompiler"));
    assert!(packages("partita").iter().any(|d| d == "seccompiler"));
}
