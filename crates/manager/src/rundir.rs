// SPDX-License-Identifier: MIT OR Apache-2.0
//! The run directory: the one place on the host file system a run gives its partitions.
//!
//! A partition runs under its own uid without capabilities, so it reaches only what that uid
//! may reach: not a file beside a checkout in a directory other users cannot traverse (root's
//! home, any `mktemp -d`). Each run therefore creates `<base>/<run>/` (`<base>` is
//! [`BASE`] for root, `$TMPDIR/partita-<uid>` otherwise; `<run>` is `<manager pid>-<start µs>`
//! as for its cgroups), root's and traversable only, holding one directory per partition,
//! `NN-<name>`, owned by the partition's uid and gid, mode 0700. It is the partition's working
//! directory (relative paths in its arguments land there) and is named in its environment as
//! `PARTITA_RUN_DIR`. It lives from set-up to tear-down: a restart keeps it, so an
//! incarnation finds what the previous one wrote; the tear-down removes it, and the
//! directories of runs whose manager died are reclaimed with their cgroups
//! (crate::reclaim).

use crate::report::{Note, NoteKind};
use partita_config::reach::Lacks;
use partita_sys::isolation::{partition_gid, partition_uid};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Where root's runs keep their run directories.
pub const BASE: &str = "/run/partita";

/// The environment variable that names a partition's directory.
pub const ENV_RUN_DIR: &str = "PARTITA_RUN_DIR";

/// Where this process's runs keep their run directories.
pub(crate) fn base() -> PathBuf {
    if partita_sys::proc::is_root() {
        PathBuf::from(BASE)
    } else {
        std::env::temp_dir().join(format!("partita-{}", current_uid()))
    }
}

/// The uid of this process (owner of its base directory when not root).
fn current_uid() -> u32 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").map_or(0, |m| m.uid())
}

/// A run's directory and its partitions' ones.
#[derive(Debug)]
pub(crate) struct RunDir {
    root: PathBuf,
    /// One per partition, in plan order.
    partitions: Vec<PathBuf>,
}

impl RunDir {
    /// Creates `<base>/<run>/` and, for every partition (`leaves[i]` names partition `i`'s
    /// directory), its own directory; with `owned`, each is given to the partition's uid and
    /// gid.
    pub fn create(run: &str, leaves: &[String], owned: bool) -> std::io::Result<RunDir> {
        let base = base();
        std::fs::create_dir_all(&base)?;
        if owned {
            // Every partition uid traverses it (root's umask may be stricter).
            std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o755))?;
        }
        let root = base.join(run);
        std::fs::create_dir(&root)?;
        let mut dir = RunDir {
            root,
            partitions: Vec::new(),
        };
        // Others may traverse it to their own directory, not list it.
        std::fs::set_permissions(&dir.root, std::fs::Permissions::from_mode(0o711))?;
        for (i, leaf) in leaves.iter().enumerate() {
            let d = dir.root.join(leaf);
            std::fs::create_dir(&d)?;
            dir.partitions.push(d.clone());
            std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o700))?;
            if owned {
                std::os::unix::fs::chown(&d, Some(partition_uid(i)), Some(partition_gid(i)))?;
            }
        }
        Ok(dir)
    }

    /// Partition `i`'s directory.
    pub fn of(&self, i: usize) -> Option<&Path> {
        self.partitions.get(i).map(PathBuf::as_path)
    }

    /// The run's directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Removes the run directory and everything in it.
    pub fn remove(&self) -> std::io::Result<()> {
        match std::fs::remove_dir_all(&self.root) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

/// Notes for the report: every configured path a partition must reach (its executable, the
/// absolute paths among its arguments) that its uid in this run's id block cannot reach. The
/// same probe as `partita check`'s `partition-path-unreachable` rule (`partita_config::reach`),
/// with the uids this run assigns.
pub(crate) fn unreachable_paths(plan: &partita_config::CompiledPlan) -> Vec<Note> {
    let block = partita_sys::isolation::uid_block();
    partita_config::reach::unreachable_paths(plan, block)
        .into_iter()
        .map(|(i, u)| {
            let fix = match u.lacks {
                Lacks::Search => "pass a path relative to its run directory, its working directory",
                Lacks::Read => "let others read it",
                Lacks::Execute => "let others execute it",
            };
            let name = plan.partitions.get(i).map_or("?", |p| p.name.as_str());
            Note::new(
                NoteKind::UnreachablePath,
                format!("partition {name}: {u}; {fix} (docs/host-files.md)"),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    #[test]
    fn each_partition_gets_its_own_directory_until_the_run_removes_it() {
        let run = format!("{}-test-rundir", std::process::id());
        let leaves = vec!["00-a".to_string(), "01-b".to_string()];
        let owned = partita_sys::proc::is_root();
        let d = RunDir::create(&run, &leaves, owned).unwrap();
        assert_eq!(d.root(), base().join(&run));
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode(d.root()), 0o711);
        for (i, leaf) in leaves.iter().enumerate() {
            let p = d.of(i).unwrap();
            assert_eq!(p, d.root().join(leaf));
            assert_eq!(mode(p), 0o700);
            if owned {
                assert_eq!(std::fs::metadata(p).unwrap().uid(), partition_uid(i));
                assert_eq!(std::fs::metadata(p).unwrap().gid(), partition_gid(i));
            }
        }
        assert!(d.of(2).is_none());
        std::fs::write(d.of(0).unwrap().join("kept"), "x").unwrap();
        d.remove().unwrap();
        assert!(!d.root().exists());
        d.remove().unwrap();
    }
}
