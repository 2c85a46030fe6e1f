// SPDX-License-Identifier: MIT OR Apache-2.0
//! Whether a partition's uid reaches the host files its configuration names.
//!
//! Run by root, the manager starts every partition under a uid and gid of its own
//! (`partita_abi::ids`: 61000 + its index in id block 0, or in the block a run takes when
//! another module holds block 0), without capabilities and without supplementary groups. A
//! configured path the partition's process must reach is checked the way the kernel would
//! check it for that uid, from the mode bits (owner class if the uid owns the file, else group
//! class if the gid is its group, else the others class):
//!
//! - **its executable** (the `partita:Executable` path, or `EntryPoint` taken as the path):
//!   execute permission on the file. The directories above it are not walked: the manager
//!   opens the executable itself and the partition executes that descriptor (`execveat`), so
//!   a program in a directory the partition cannot traverse still starts. Without execute
//!   permission for the partition's uid, `execve` fails and the partition never starts.
//! - **an absolute path among its arguments** (`partita:Arg` starting with `/`): search
//!   permission on every existing directory above it (after resolving symbolic links), and,
//!   if it exists, read permission on it (read and search for a directory). A path that does
//!   not exist yet is checked as far as its directories exist. A relative argument lands in
//!   the partition's own run directory (its working directory), which it always reaches.
//!
//! No other configured path is opened by a partition: the files and named pipes of
//! pseudo-partitions are opened by the manager.
//!
//! The answer is about this host, now: `partita check` on another machine, or after the
//! files or their modes change, may answer differently. Only mode bits are read: POSIX ACLs
//! and security modules (SELinux, AppArmor) are not consulted. `partita check` uses it for the
//! `partition-path-unreachable` rule with the uids of id block 0; the manager uses it for the
//! run report's note with the uids it actually assigns.

use std::fmt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// How a partition uses a configured path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathUse {
    /// The program the partition executes.
    Executable,
    /// An absolute path among its arguments.
    Argument,
}

impl fmt::Display for PathUse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PathUse::Executable => "executable",
            PathUse::Argument => "argument",
        })
    }
}

/// The permission a uid lacks on a file or directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lacks {
    /// Search (`x`) on a directory on the way.
    Search,
    /// Read (`r`; and search for a directory) on the path itself.
    Read,
    /// Execute (`x`) on the executable.
    Execute,
}

/// A configured path out of reach of a partition's uid, and the first file or directory that
/// stops it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreachable {
    /// How the partition uses the path.
    pub usage: PathUse,
    /// The path as configured (absolute).
    pub path: PathBuf,
    /// The uid checked.
    pub uid: u32,
    /// The directory or file whose mode stops it (symbolic links resolved).
    pub blocker: PathBuf,
    /// Its mode (permission bits).
    pub mode: u32,
    /// Its owner and group.
    pub owner: (u32, u32),
    /// What the uid lacks there.
    pub lacks: Lacks,
}

impl fmt::Display for Unreachable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verb = match self.lacks {
            Lacks::Search => "does not let it through",
            Lacks::Read => "does not let it read",
            Lacks::Execute => "does not let it execute",
        };
        write!(
            f,
            "{} {} is out of reach of uid {}: {} (mode {:04o}, owner {}:{}) {verb}",
            self.usage,
            self.path.display(),
            self.uid,
            self.blocker.display(),
            self.mode,
            self.owner.0,
            self.owner.1
        )
    }
}

/// The path an argument names, if the partition must reach it on the host: an absolute one
/// (a relative one lands in the partition's run directory).
pub fn argument_path(arg: &str) -> Option<&Path> {
    let p = Path::new(arg);
    p.is_absolute().then_some(p)
}

/// Every configured path partition `index` of `plan` must reach, with how it uses it.
pub fn partition_paths(
    plan: &crate::CompiledPlan,
    index: usize,
) -> impl Iterator<Item = (PathUse, &Path)> {
    let p = plan.partitions.get(index);
    let exe = p.map(|p| (PathUse::Executable, p.executable.as_path()));
    let args = p
        .into_iter()
        .flat_map(|p| p.args.iter().filter_map(|a| argument_path(a)))
        .map(|a| (PathUse::Argument, a));
    exe.into_iter().chain(args)
}

/// Whether `uid`/`gid` (no capabilities, no supplementary groups) reaches `path` for `usage`
/// (see the module documentation); `None` when it does, or when nothing can be said (the
/// caller cannot see that far).
pub fn probe(path: &Path, usage: PathUse, uid: u32, gid: u32) -> Option<Unreachable> {
    let blocked = |blocker: &Path, m: &std::fs::Metadata, lacks| Unreachable {
        usage,
        path: path.to_path_buf(),
        uid,
        blocker: blocker.to_path_buf(),
        mode: m.mode() & 0o7777,
        owner: (m.uid(), m.gid()),
        lacks,
    };
    match usage {
        PathUse::Executable => {
            let m = std::fs::metadata(path).ok()?;
            (!allows(&m, uid, gid, X)).then(|| blocked(path, &m, Lacks::Execute))
        }
        PathUse::Argument => {
            // The longest part of the path that exists, symbolic links resolved: what the
            // kernel walks.
            // Every directory on the way: those above it, and the last existing one when
            // the rest of the path does not exist yet.
            let (real, whole) = existing_prefix(path)?;
            let above = real.ancestors().skip(usize::from(whole));
            for dir in above.collect::<Vec<_>>().into_iter().rev() {
                let m = std::fs::metadata(dir).ok()?;
                if !allows(&m, uid, gid, X) {
                    return Some(blocked(dir, &m, Lacks::Search));
                }
            }
            if !whole {
                return None;
            }
            let m = std::fs::metadata(&real).ok()?;
            let need = if m.is_dir() { R | X } else { R };
            (!allows(&m, uid, gid, need)).then(|| blocked(&real, &m, Lacks::Read))
        }
    }
}

/// Every configured path of `plan` out of reach of its partition's uid in id block `block`,
/// with the partition's index.
pub fn unreachable_paths(plan: &crate::CompiledPlan, block: u32) -> Vec<(usize, Unreachable)> {
    let mut out = Vec::new();
    for i in 0..plan.partitions.len() {
        let (uid, gid) = (
            partita_abi::ids::partition_uid(block, i),
            partita_abi::ids::partition_gid(block, i),
        );
        for (usage, path) in partition_paths(plan, i) {
            if let Some(u) = probe(path, usage, uid, gid) {
                out.push((i, u));
            }
        }
    }
    out
}

const R: u32 = 0o4;
const X: u32 = 0o1;

/// Whether the mode bits of `m` give `uid`/`gid` every permission of `need` (`R`, `X`), in
/// the class the kernel picks: owner, else group, else others.
fn allows(m: &std::fs::Metadata, uid: u32, gid: u32, need: u32) -> bool {
    let mode = m.mode();
    let class = if m.uid() == uid {
        mode >> 6
    } else if m.gid() == gid {
        mode >> 3
    } else {
        mode
    } & 0o7;
    class & need == need
}

/// The canonical form of the longest existing prefix of `path`, and whether that is the whole
/// path; `None` when not even `/` can be resolved.
fn existing_prefix(path: &Path) -> Option<(PathBuf, bool)> {
    let mut rest = Vec::new();
    let mut cur = path;
    loop {
        if let Ok(real) = std::fs::canonicalize(cur) {
            return Some((real, rest.is_empty()));
        }
        rest.push(cur.file_name()?);
        cur = cur.parent()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn set(p: &Path, m: u32) {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap()
    }

    /// A scratch tree: `top` (0755) with `closed/` (0700), `open/` (0711) and files in them.
    fn tree(name: &str) -> PathBuf {
        let top = std::env::temp_dir().join(format!("partita-reach-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&top);
        std::fs::create_dir_all(&top).unwrap();
        let top = top.canonicalize().unwrap();
        std::fs::create_dir_all(top.join("closed/inner")).unwrap();
        std::fs::create_dir_all(top.join("open/sub")).unwrap();
        for (f, m) in [
            ("closed/inner/file", 0o644),
            ("open/readable", 0o644),
            ("open/private", 0o600),
            ("open/prog", 0o755),
            ("open/owner-only-prog", 0o700),
        ] {
            std::fs::write(top.join(f), "x").unwrap();
            set(&top.join(f), m);
        }
        set(&top, 0o755);
        set(&top.join("closed"), 0o700);
        set(&top.join("open"), 0o711);
        set(&top.join("open/sub"), 0o700);
        top
    }

    /// An identity that owns nothing in the tree, and the tree's owner.
    fn stranger(top: &Path) -> ((u32, u32), (u32, u32)) {
        let m = std::fs::metadata(top).unwrap();
        ((m.uid() + 4242, m.gid() + 4242), (m.uid(), m.gid()))
    }

    #[test]
    fn an_argument_needs_every_directory_above_it_and_read_permission() {
        let top = tree("arg");
        let ((uid, gid), (owner, group)) = stranger(&top);
        let arg = |p: &str| probe(&top.join(p), PathUse::Argument, uid, gid);
        let u = arg("closed/inner/file").expect("closed");
        assert_eq!(
            (u.blocker.clone(), u.mode, u.lacks),
            (top.join("closed"), 0o700, Lacks::Search)
        );
        assert_eq!(u.owner, (owner, group));
        assert!(u.to_string().contains(&format!(
            "{} (mode 0700, owner {owner}:{group}) does not let it through",
            top.join("closed").display()
        )));
        assert_eq!(arg("open/readable"), None);
        let u = arg("open/private").expect("private");
        assert_eq!(
            (u.blocker, u.lacks),
            (top.join("open/private"), Lacks::Read)
        );
        // A directory needs read and search; a path not there yet, its directories only.
        assert_eq!(arg("open/sub").map(|u| u.lacks), Some(Lacks::Read));
        assert_eq!(arg("open/not-yet/file"), None);
        assert_eq!(
            arg("closed/not-yet").map(|u| u.blocker),
            Some(top.join("closed"))
        );
        // The owner passes where others do not.
        assert_eq!(
            probe(
                &top.join("closed/inner/file"),
                PathUse::Argument,
                owner,
                group
            ),
            None
        );
        std::fs::remove_dir_all(&top).unwrap();
    }

    #[test]
    fn a_symbolic_link_is_walked_where_it_leads() {
        let top = tree("link");
        let ((uid, gid), _) = stranger(&top);
        std::os::unix::fs::symlink(top.join("closed/inner"), top.join("open-link")).unwrap();
        let u = probe(&top.join("open-link/file"), PathUse::Argument, uid, gid).expect("link");
        assert_eq!(u.blocker, top.join("closed"));
        assert_eq!(u.path, top.join("open-link/file"));
        std::fs::remove_dir_all(&top).unwrap();
    }

    #[test]
    fn an_executable_needs_execute_permission_only() {
        let top = tree("exe");
        let ((uid, gid), (owner, group)) = stranger(&top);
        let exe = |p: &str, uid, gid| probe(&top.join(p), PathUse::Executable, uid, gid);
        // Its directory is not walked: the manager opens it.
        assert_eq!(exe("open/prog", uid, gid), None);
        std::fs::copy(top.join("open/prog"), top.join("closed/prog")).unwrap();
        assert_eq!(exe("closed/prog", uid, gid), None);
        let u = exe("open/owner-only-prog", uid, gid).expect("0700");
        assert_eq!((u.lacks, u.mode), (Lacks::Execute, 0o700));
        assert!(u.to_string().starts_with("executable "), "{u}");
        assert_eq!(exe("open/owner-only-prog", owner, group), None);
        std::fs::remove_dir_all(&top).unwrap();
    }

    #[test]
    fn only_absolute_arguments_are_host_paths() {
        assert_eq!(argument_path("/etc/hosts"), Some(Path::new("/etc/hosts")));
        assert_eq!(argument_path("state.txt"), None);
        assert_eq!(argument_path("--rate"), None);
    }
}
