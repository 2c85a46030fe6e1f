// SPDX-License-Identifier: MIT OR Apache-2.0
//! cgroups: v1 controllers (freezer, cpuacct, cpuset, memory, pids) and the v2 hierarchy.
//!
//! Partita creates one cgroup per partition in each hierarchy it uses, below
//! `partita/<run-id>/`. The hot-path operations (freeze, thaw, CPU usage) keep their control
//! file open and write or read it with a single `pwrite`/`pread`.

use crate::{Result, SysError};
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Where the cgroup hierarchies are mounted on this host.
#[derive(Debug, Clone, Default)]
pub struct Mounts {
    /// cgroup v2 mount point, if any.
    pub v2: Option<PathBuf>,
    /// v1 `freezer` controller mount point.
    pub freezer: Option<PathBuf>,
    /// v1 `cpuacct` controller mount point.
    pub cpuacct: Option<PathBuf>,
    /// v1 `cpuset` controller mount point.
    pub cpuset: Option<PathBuf>,
    /// v1 `memory` controller mount point.
    pub memory: Option<PathBuf>,
    /// v1 `pids` controller mount point.
    pub pids: Option<PathBuf>,
    /// The cgroup v2 mount has `favordynmods`: moving a task between cgroups does not wait
    /// for an RCU grace period while it holds the kernel's global cgroup lock.
    pub v2_favordynmods: bool,
}

impl Mounts {
    /// Reads `/proc/self/mounts`.
    pub fn detect() -> Self {
        let text = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
        Self::parse(&text)
    }

    /// Parses the text of a `mounts` file.
    pub fn parse(text: &str) -> Self {
        let mut m = Mounts::default();
        for line in text.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() < 4 {
                continue;
            }
            let (dir, fstype, opts) = (PathBuf::from(f[1]), f[2], f[3]);
            if fstype == "cgroup2" && m.v2.is_none() {
                m.v2 = Some(dir);
                m.v2_favordynmods = opts.split(',').any(|o| o == "favordynmods");
            } else if fstype == "cgroup" {
                for o in opts.split(',') {
                    let slot = match o {
                        "freezer" => &mut m.freezer,
                        "cpuacct" => &mut m.cpuacct,
                        "cpuset" => &mut m.cpuset,
                        "memory" => &mut m.memory,
                        "pids" => &mut m.pids,
                        _ => continue,
                    };
                    if slot.is_none() {
                        *slot = Some(dir.clone());
                    }
                }
            }
        }
        m
    }
}

/// One cgroup directory.
#[derive(Debug, Clone)]
pub struct Cgroup {
    dir: PathBuf,
}

impl Cgroup {
    /// Creates the directory (and missing parents).
    pub fn create(dir: impl Into<PathBuf>) -> Result<Self> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir)
            .map_err(|e| SysError::io(format!("mkdir {}", dir.display()), e))?;
        Ok(Cgroup { dir })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes `value` to the control file `name`.
    pub fn write(&self, name: &str, value: &str) -> Result<()> {
        let p = self.dir.join(name);
        std::fs::write(&p, value).map_err(|e| SysError::io(format!("write {}", p.display()), e))
    }

    /// Reads the control file `name`.
    pub fn read(&self, name: &str) -> Result<String> {
        let p = self.dir.join(name);
        std::fs::read_to_string(&p).map_err(|e| SysError::io(format!("read {}", p.display()), e))
    }

    /// Moves process `pid` (all its threads) into this cgroup.
    pub fn add_process(&self, pid: i32) -> Result<()> {
        self.write("cgroup.procs", &pid.to_string())
    }

    /// The processes in this cgroup.
    pub fn processes(&self) -> Vec<i32> {
        self.read("cgroup.procs")
            .map(|s| s.lines().filter_map(|l| l.trim().parse().ok()).collect())
            .unwrap_or_default()
    }

    /// Opens control file `name` for repeated `pwrite`/`pread` on the hot path.
    pub fn open(&self, name: &str, write: bool) -> Result<File> {
        let p = self.dir.join(name);
        OpenOptions::new()
            .read(true)
            .write(write)
            .open(&p)
            .map_err(|e| SysError::io(format!("open {}", p.display()), e))
    }

    /// Removes the (empty) cgroup directory; a missing directory is not an error.
    pub fn remove(&self) -> Result<()> {
        match std::fs::remove_dir(&self.dir) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                Err(SysError::io(format!("rmdir {}", self.dir.display()), e))
            }
            _ => Ok(()),
        }
    }
}

/// Which freezer a [`Freezer`] drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FreezerKind {
    /// cgroup v1 `freezer.state` (FROZEN/THAWED).
    V1,
    /// cgroup v2 `cgroup.freeze` (1/0).
    V2,
}

/// The freezer of one cgroup, with its control file kept open.
#[derive(Debug)]
pub struct Freezer {
    kind: FreezerKind,
    ctl: File,
    group: Cgroup,
}

impl Freezer {
    /// Opens the freezer of `group`.
    pub fn open(group: &Cgroup, kind: FreezerKind) -> Result<Self> {
        let name = match kind {
            FreezerKind::V1 => "freezer.state",
            FreezerKind::V2 => "cgroup.freeze",
        };
        Ok(Freezer {
            kind,
            ctl: group.open(name, true)?,
            group: group.clone(),
        })
    }

    /// Requests the freeze. The kernel marks every task and kicks the running ones; a task
    /// that was preempted by the caller cannot execute another user instruction.
    pub fn freeze(&self) -> Result<()> {
        let v: &[u8] = match self.kind {
            FreezerKind::V1 => b"FROZEN",
            FreezerKind::V2 => b"1",
        };
        self.ctl
            .write_at(v, 0)
            .map(|_| ())
            .map_err(|e| SysError::io("freeze", e))
    }

    /// Thaws the cgroup.
    pub fn thaw(&self) -> Result<()> {
        let v: &[u8] = match self.kind {
            FreezerKind::V1 => b"THAWED",
            FreezerKind::V2 => b"0",
        };
        self.ctl
            .write_at(v, 0)
            .map(|_| ())
            .map_err(|e| SysError::io("thaw", e))
    }

    /// Whether every task of the cgroup is frozen now.
    pub fn is_frozen(&self) -> bool {
        match self.kind {
            FreezerKind::V1 => {
                let mut buf = [0u8; 16];
                let n = self.ctl.read_at(&mut buf, 0).unwrap_or(0);
                buf[..n].starts_with(b"FROZEN")
            }
            FreezerKind::V2 => self
                .group
                .read("cgroup.events")
                .map(|s| s.lines().any(|l| l.trim() == "frozen 1"))
                .unwrap_or(false),
        }
    }

    /// Which freezer this is.
    pub fn kind(&self) -> FreezerKind {
        self.kind
    }
}

/// The `cpuacct.usage` counter of one v1 cgroup (total CPU time of its tasks, ns).
#[derive(Debug)]
pub struct CpuUsage {
    file: File,
}

impl CpuUsage {
    /// Opens `cpuacct.usage` of `group`.
    pub fn open(group: &Cgroup) -> Result<Self> {
        Ok(CpuUsage {
            file: group.open("cpuacct.usage", false)?,
        })
    }

    /// Current total CPU time in ns.
    pub fn read_ns(&self) -> u64 {
        let mut buf = [0u8; 32];
        let n = self.file.read_at(&mut buf, 0).unwrap_or(0);
        std::str::from_utf8(&buf[..n])
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mounts_are_found_with_their_options() {
        let text = "cgroup /sys/fs/cgroup/freezer cgroup rw,relatime,freezer 0 0\n\
                    cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,cpu,cpuacct 0 0\n\
                    cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n";
        let m = Mounts::parse(text);
        assert_eq!(m.freezer, Some(PathBuf::from("/sys/fs/cgroup/freezer")));
        assert_eq!(m.cpuacct, Some(PathBuf::from("/sys/fs/cgroup/cpu,cpuacct")));
        assert_eq!(m.v2, Some(PathBuf::from("/sys/fs/cgroup/unified")));
        assert!(m.memory.is_none());
        assert!(!m.v2_favordynmods);
        let m = Mounts::parse("cgroup2 /sys/fs/cgroup cgroup2 rw,nsdelegate,favordynmods 0 0\n");
        assert_eq!(m.v2, Some(PathBuf::from("/sys/fs/cgroup")));
        assert!(m.v2_favordynmods);
    }
}
