//! A process and everything under it, read from `/proc`: its descendants, their summed
//! memory, which child started last (a bridge's newest CLI is its spare), and whether a process
//! seen earlier still runs.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// One `/proc/PID/stat` line's fields this module needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stat {
    ppid: u32,
    /// Clock ticks after boot when the process started.
    start: u64,
    /// Exited, not reaped yet (state `Z`).
    zombie: bool,
}

/// Parses `/proc/PID/stat` text (the command name may hold spaces and parentheses).
fn parse_stat(text: &str) -> Option<Stat> {
    let rest = text.get(text.rfind(')')? + 1..)?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Some(Stat {
        ppid: fields.get(1)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
        zombie: *fields.first()? == "Z",
    })
}

fn stat_of(pid: u32) -> Option<Stat> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Every live process's stat, by pid.
fn all_stats() -> BTreeMap<u32, Stat> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return BTreeMap::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            Some((pid, stat_of(pid)?))
        })
        .collect()
}

/// `root` and all its descendants, from a pid -> stat table.
fn tree_in(stats: &BTreeMap<u32, Stat>, root: u32) -> BTreeSet<u32> {
    let mut tree = BTreeSet::from([root]);
    loop {
        let before = tree.len();
        for (pid, stat) in stats {
            if tree.contains(&stat.ppid) {
                tree.insert(*pid);
            }
        }
        if tree.len() == before {
            return tree;
        }
    }
}

/// `root` and every live process under it.
pub fn tree(root: u32) -> BTreeSet<u32> {
    tree_in(&all_stats(), root)
}

/// A process as told apart over time: a recycled pid has another start time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ProcId {
    pub pid: u32,
    /// Clock ticks after boot when it started.
    pub start: u64,
}

/// Every live process under `root` (not `root` itself).
pub fn descendants(root: u32) -> Vec<ProcId> {
    let stats = all_stats();
    tree_in(&stats, root)
        .into_iter()
        .filter(|pid| *pid != root)
        .filter_map(|pid| {
            let stat = stats.get(&pid).filter(|s| !s.zombie)?;
            Some(ProcId {
                pid,
                start: stat.start,
            })
        })
        .collect()
}

/// The parent of a live process.
pub fn parent(pid: u32) -> Option<u32> {
    stat_of(pid).map(|s| s.ppid)
}

/// True while that very process runs (a zombie has stopped).
pub fn alive(p: ProcId) -> bool {
    stat_of(p.pid).is_some_and(|s| s.start == p.start && !s.zombie)
}

/// True while `pid` has a child process.
pub fn has_children(pid: u32) -> bool {
    all_stats().values().any(|s| s.ppid == pid)
}

/// The subtree of `root`'s child that started last (none when it has no child).
pub fn newest_child_tree(root: u32) -> BTreeSet<u32> {
    let stats = all_stats();
    stats
        .iter()
        .filter(|(_, s)| s.ppid == root)
        .max_by_key(|(pid, s)| (s.start, **pid))
        .map(|(pid, _)| tree_in(&stats, *pid))
        .unwrap_or_default()
}

/// The resident set size of a process, in bytes (`VmRSS`), and its peak (`VmHWM`).
pub fn rss_bytes(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .map(|kb| kb * 1024)
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// CPU time (user + system) a process used so far, in seconds. `/proc` counts in USER_HZ
/// ticks, which Linux fixes at 100 per second for this interface.
pub fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces) start at field 3 (`state`).
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) as f64 / 100.0)
}

/// Summed memory of some processes, in bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TreeMemory {
    /// Resident now (`VmRSS`).
    pub rss: u64,
    /// Each process's own peak (`VmHWM`) summed: an upper bound of the tree's peak.
    pub peak: u64,
}

/// The memory of `pids` (processes gone meanwhile count nothing).
pub fn memory(pids: &BTreeSet<u32>) -> TreeMemory {
    pids.iter()
        .filter_map(|pid| rss_bytes(*pid))
        .fold(TreeMemory::default(), |sum, (rss, peak)| TreeMemory {
            rss: sum.rss + rss,
            peak: sum.peak + peak,
        })
}

/// The summed resident memory of `pid` and its descendants now, in bytes.
pub fn tree_rss(pid: u32) -> u64 {
    memory(&tree(pid)).rss
}

/// Samples the resident memory of `pid`'s whole tree every 10 ms until finished; returns the
/// peak (an npm launcher, the native CLI and its helpers come and go).
pub struct TreeSampler {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<u64>,
}

impl TreeSampler {
    pub fn start(pid: u32) -> anyhow::Result<TreeSampler> {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("bench-tree-rss".into())
            .spawn(move || {
                let mut peak = 0;
                while !flag.load(Ordering::Relaxed) {
                    peak = peak.max(tree_rss(pid));
                    std::thread::sleep(Duration::from_millis(10));
                }
                peak
            })?;
        Ok(TreeSampler { stop, thread })
    }

    pub fn finish(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn cpu_time_of_this_process_is_readable() {
        let spent = cpu_seconds(std::process::id()).expect("/proc stat");
        assert!(spent >= 0.0);
    }

    #[test]
    fn rss_of_this_process_is_readable() {
        let (rss, peak) = rss_bytes(std::process::id()).expect("/proc status");
        assert!(rss > 0 && peak >= rss);
    }

    #[test]
    fn stat_lines_with_odd_command_names_parse() {
        let line =
            "4242 (node (x) y) S 17 4242 4242 0 -1 4194560 1 0 0 0 3 1 0 0 20 0 11 0 987654 1 2";
        assert_eq!(
            parse_stat(line),
            Some(Stat {
                ppid: 17,
                start: 987654,
                zombie: false
            })
        );
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn a_tree_holds_grandchildren_and_nothing_else() {
        let stat = |ppid, start| Stat {
            ppid,
            start,
            zombie: false,
        };
        let stats = BTreeMap::from([
            (1, stat(0, 1)),
            (10, stat(1, 5)),
            (11, stat(10, 6)),
            (12, stat(11, 7)),
            (20, stat(1, 8)),
        ]);
        assert_eq!(tree_in(&stats, 10), BTreeSet::from([10, 11, 12]));
        assert_eq!(tree_in(&stats, 12), BTreeSet::from([12]));
    }

    #[test]
    fn this_process_and_a_child_are_found() {
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .expect("sleep");
        // Let it exec (before that it is a copy of this process).
        std::thread::sleep(Duration::from_millis(100));
        let me = std::process::id();
        assert!(tree(me).contains(&me) && tree(me).contains(&child.id()));
        assert!(has_children(me));
        let seen = descendants(me);
        let sleeper = seen.iter().find(|p| p.pid == child.id()).copied();
        assert!(sleeper.is_some_and(alive), "{seen:?}");
        assert!(memory(&tree(me)).rss > 0);
        let alone = rss_bytes(child.id()).expect("rss").0;
        assert_eq!(tree(child.id()), BTreeSet::from([child.id()]));
        assert_eq!(tree_rss(child.id()), alone);
        let _ = child.kill();
        let _ = child.wait();
        assert!(sleeper.is_some_and(|p| !alive(p)), "a reaped child is gone");
    }
}
