//! The workspace's one reader of `/proc` (Linux): a process's `stat` line, its command line and
//! environment, its memory, and who descends from whom. The guard's cleanup, the supervisor,
//! the conformance host and the dev tools (bench, soak) all read processes through here.
//! Elsewhere than on Linux there is no `/proc`: every read finds nothing.

use std::collections::{HashMap, HashSet};

/// A process id as `/proc` and `libc` spell it.
pub type Pid = i32;

/// One process as `/proc/<pid>/stat` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcStat {
    pub pid: Pid,
    pub ppid: Pid,
    /// The process group.
    pub pgrp: Pid,
    /// The state letter (`R`, `S`, `Z`, ...).
    pub state: char,
    /// Clock ticks after boot when it started (field 22): with the pid, identifies the process
    /// (a recycled pid has another start time).
    pub start_time: u64,
    /// CPU time in user and in kernel mode, in clock ticks (fields 14 and 15).
    pub utime: u64,
    pub stime: u64,
    /// The command name (`comm`, at most 15 bytes).
    pub comm: String,
}

impl ProcStat {
    /// Exited and not reaped yet, or dead (`Z`, `X`).
    pub fn is_zombie(&self) -> bool {
        matches!(self.state, 'Z' | 'X' | 'x')
    }

    /// CPU time used so far (user + kernel), in seconds. `/proc` counts in USER_HZ ticks,
    /// which Linux fixes at 100 per second for this interface.
    pub fn cpu_seconds(&self) -> f64 {
        (self.utime + self.stime) as f64 / 100.0
    }
}

/// Parses the text of `/proc/<pid>/stat`: `pid (comm) state ppid pgrp ...`, where `comm` may hold
/// spaces and parentheses (so the fields are counted from the last `)`).
pub fn parse_stat(text: &str) -> Option<ProcStat> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let pid = text.get(..open)?.trim().parse().ok()?;
    let comm = text.get(open + 1..close)?.to_string();
    // rest[0] is field 3 (state).
    let rest: Vec<&str> = text.get(close + 1..)?.split_whitespace().collect();
    let field = |n: usize| rest.get(n - 3).copied();
    Some(ProcStat {
        pid,
        ppid: field(4)?.parse().ok()?,
        pgrp: field(5)?.parse().ok()?,
        state: field(3)?.chars().next()?,
        utime: field(14)?.parse().ok()?,
        stime: field(15)?.parse().ok()?,
        start_time: field(22)?.parse().ok()?,
        comm,
    })
}

/// One process's stat; `None` when it does not exist (any more).
pub fn stat(pid: Pid) -> Option<ProcStat> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Every process listed in `/proc` right now.
pub fn all() -> Vec<ProcStat> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .filter_map(stat)
        .collect()
}

/// True while that very process (same pid and start time) runs; a zombie has stopped.
pub fn alive(pid: Pid, start_time: u64) -> bool {
    stat(pid).is_some_and(|now| now.start_time == start_time && !now.is_zombie())
}

/// The processes of `procs` under `root` (not `root` itself): every one whose parent chain
/// reaches `root`, parents before their children. Zombies included.
pub fn descendants(procs: &[ProcStat], root: Pid) -> Vec<ProcStat> {
    let mut children: HashMap<Pid, Vec<&ProcStat>> = HashMap::new();
    for p in procs {
        children.entry(p.ppid).or_default().push(p);
    }
    let mut out: Vec<ProcStat> = Vec::new();
    let mut seen = HashSet::from([root]);
    let mut parents = vec![root];
    let mut next = 0;
    while let Some(&parent) = parents.get(next) {
        next += 1;
        for child in children.get(&parent).map(Vec::as_slice).unwrap_or(&[]) {
            if seen.insert(child.pid) {
                parents.push(child.pid);
                out.push((*child).clone());
            }
        }
    }
    out
}

/// A `/proc/<pid>/<file>` of NUL-separated strings (`cmdline`, `environ`); empty when it cannot
/// be read (gone, or another user's `environ`).
fn nul_separated(pid: Pid, file: &str) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/{file}"))
        .map(|bytes| {
            bytes
                .split(|b| *b == 0)
                .filter(|s| !s.is_empty())
                .map(|s| String::from_utf8_lossy(s).into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The arguments a process was started with (empty for a kernel thread or a zombie).
pub fn cmdline(pid: Pid) -> Vec<String> {
    nul_separated(pid, "cmdline")
}

/// A process's environment as `KEY=value` strings, as it was at its start.
pub fn environ(pid: Pid) -> Vec<String> {
    nul_separated(pid, "environ")
}

/// A process's memory, in bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Memory {
    /// Resident now (`VmRSS`).
    pub rss: u64,
    /// Its peak resident size (`VmHWM`).
    pub peak: u64,
}

/// Parses the text of `/proc/<pid>/status` for [`Memory`].
pub fn parse_memory(status: &str) -> Option<Memory> {
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kb| kb.parse::<u64>().ok())
            .map(|kb| kb * 1024)
    };
    Some(Memory {
        rss: field("VmRSS:")?,
        peak: field("VmHWM:")?,
    })
}

/// A process's memory; `None` when it is gone (or a zombie, which has none).
pub fn memory(pid: Pid) -> Option<Memory> {
    parse_memory(&std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::time::Duration;

    fn me() -> Pid {
        std::process::id() as Pid
    }

    #[test]
    fn stat_lines_with_odd_command_names_parse() {
        let line =
            "4242 (node (x) y) S 17 4242 4242 0 -1 4194560 1 0 0 0 3 1 0 0 20 0 11 0 987654 1 2";
        let stat = parse_stat(line).expect("parses");
        assert_eq!(
            stat,
            ProcStat {
                pid: 4242,
                ppid: 17,
                pgrp: 4242,
                state: 'S',
                start_time: 987654,
                utime: 3,
                stime: 1,
                comm: "node (x) y".into(),
            }
        );
        assert_eq!(stat.cpu_seconds(), 0.04);
        assert!(!stat.is_zombie());
        assert_eq!(parse_stat("garbage"), None);
        assert_eq!(parse_stat("1 (x) Z 0"), None, "a cut line");
    }

    #[test]
    fn memory_comes_from_status() {
        let status = "Name:\tx\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n";
        assert_eq!(
            parse_memory(status),
            Some(Memory {
                rss: 1024 * 1024,
                peak: 2048 * 1024
            })
        );
        assert_eq!(parse_memory("Name:\tx\n"), None);
        let own = memory(me()).expect("own status");
        assert!(own.rss > 0 && own.peak >= own.rss, "{own:?}");
    }

    #[test]
    fn a_tree_holds_grandchildren_parents_first_and_nothing_else() {
        let p = |pid, ppid| ProcStat {
            pid,
            ppid,
            pgrp: pid,
            state: 'S',
            start_time: 1,
            utime: 0,
            stime: 0,
            comm: String::new(),
        };
        let procs = [p(12, 11), p(1, 0), p(11, 10), p(10, 1), p(20, 1)];
        let pids = |root| -> Vec<Pid> { descendants(&procs, root).iter().map(|p| p.pid).collect() };
        assert_eq!(pids(10), vec![11, 12]);
        assert_eq!(pids(1), vec![10, 20, 11, 12]);
        assert_eq!(pids(12), Vec::<Pid>::new());
    }

    #[test]
    fn a_child_is_seen_with_its_arguments_and_environment_until_reaped() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .env("PROC_INFO_TEST", "yes")
            .spawn()
            .expect("sleep");
        let pid = child.id() as Pid;
        // Let it exec (before that it is a copy of this process).
        std::thread::sleep(Duration::from_millis(100));
        let found = descendants(&all(), me());
        let sleep = found
            .iter()
            .find(|p| p.pid == pid)
            .expect("a descendant")
            .clone();
        assert_eq!((sleep.ppid, sleep.comm.as_str()), (me(), "sleep"));
        assert_eq!(cmdline(pid), vec!["sleep", "30"]);
        assert!(environ(pid).contains(&"PROC_INFO_TEST=yes".to_string()));
        assert!(alive(pid, sleep.start_time));
        assert!(!alive(pid, sleep.start_time + 1), "another start time");
        assert!(stat(me()).is_some_and(|s| s.cpu_seconds() >= 0.0));
        let _ = child.kill();
        let _ = child.wait();
        assert!(!alive(pid, sleep.start_time), "a reaped child is gone");
        assert!(cmdline(pid).is_empty());
    }
}
