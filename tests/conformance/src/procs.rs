//! Process-tree inspection through `/proc` (Linux): which processes descend from a pid, and
//! whether a process recorded earlier is still alive (same pid *and* same start time, so a
//! recycled pid is not mistaken for a survivor; zombies count as gone).

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

/// One process as seen in `/proc/<pid>/stat` and `/proc/<pid>/cmdline`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcInfo {
    pub pid: i32,
    pub ppid: i32,
    /// Process group id.
    pub pgid: i32,
    /// Start time in clock ticks since boot (field 22 of `stat`): identifies the process.
    pub start_time: u64,
    /// State letter (`R`, `S`, `Z`, ...).
    pub state: char,
    /// The command line, arguments joined by spaces (the `comm` name for kernel threads).
    pub cmdline: String,
}

impl ProcInfo {
    /// True while the very same process (pid + start time) exists and is not a zombie.
    pub fn is_alive(&self) -> bool {
        match read_proc(self.pid) {
            Some(now) => now.start_time == self.start_time && !matches!(now.state, 'Z' | 'X' | 'x'),
            None => false,
        }
    }
}

/// Reads one process; `None` when it does not exist (or `/proc` is unreadable).
pub fn read_proc(pid: i32) -> Option<ProcInfo> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid pgrp ...`: comm may hold spaces and parentheses; cut at the last ')'.
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let comm = stat.get(open + 1..close)?.to_string();
    let rest: Vec<&str> = stat.get(close + 1..)?.split_whitespace().collect();
    // rest[0] = state (field 3), rest[1] = ppid (4), rest[2] = pgrp (5), rest[19] = starttime (22).
    let state = rest.first()?.chars().next()?;
    let ppid = rest.get(1)?.parse().ok()?;
    let pgid = rest.get(2)?.parse().ok()?;
    let start_time = rest.get(19)?.parse().ok()?;
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline"))
        .ok()
        .map(|raw| {
            raw.split(|b| *b == 0)
                .filter(|part| !part.is_empty())
                .map(|part| String::from_utf8_lossy(part).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|s| !s.is_empty())
        .unwrap_or(comm);
    Some(ProcInfo {
        pid,
        ppid,
        pgid,
        start_time,
        state,
        cmdline,
    })
}

/// Every process currently listed in `/proc`.
pub fn all_procs() -> Vec<ProcInfo> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|entry| entry.ok())
        .filter_map(|entry| {
            entry
                .file_name()
                .to_str()
                .and_then(|name| name.parse::<i32>().ok())
        })
        .filter_map(read_proc)
        .collect()
}

/// Live (non-zombie) descendants of `pid` (children, grandchildren, ...), parents first.
pub fn descendants(pid: i32) -> Vec<ProcInfo> {
    let procs = all_procs();
    let mut children: HashMap<i32, Vec<&ProcInfo>> = HashMap::new();
    for p in &procs {
        children.entry(p.ppid).or_default().push(p);
    }
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut queue = vec![pid];
    while let Some(parent) = queue.pop() {
        for child in children.get(&parent).map(Vec::as_slice).unwrap_or(&[]) {
            if seen.insert(child.pid) {
                queue.push(child.pid);
                if !matches!(child.state, 'Z' | 'X' | 'x') {
                    out.push((*child).clone());
                }
            }
        }
    }
    out
}

/// The processes of `recorded` that are still alive.
pub fn survivors(recorded: &[ProcInfo]) -> Vec<ProcInfo> {
    recorded.iter().filter(|p| p.is_alive()).cloned().collect()
}

/// Waits until every recorded process is gone; returns those still alive after `timeout`.
pub async fn wait_gone(recorded: &[ProcInfo], timeout: Duration) -> Vec<ProcInfo> {
    let deadline = Instant::now() + timeout;
    loop {
        let alive = survivors(recorded);
        if alive.is_empty() || Instant::now() >= deadline {
            return alive;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// SIGKILLs every recorded process that is still alive (cleanup after a failed test).
pub fn kill_all(recorded: &[ProcInfo]) {
    for p in survivors(recorded) {
        // SAFETY: kill(2) has no memory-safety preconditions.
        unsafe {
            libc::kill(p.pid, libc::SIGKILL);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sees_own_process_and_a_spawned_child() {
        let me = read_proc(std::process::id() as i32).expect("own /proc entry");
        assert!(me.is_alive());
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .expect("spawn sleep");
        let kids = descendants(std::process::id() as i32);
        let sleep = kids
            .iter()
            .find(|p| p.pid == child.id() as i32)
            .expect("sleep is a descendant")
            .clone();
        assert!(sleep.cmdline.contains("sleep 5"), "{sleep:?}");
        child.kill().expect("kill");
        child.wait().expect("reap");
        assert!(!sleep.is_alive());
    }
}
