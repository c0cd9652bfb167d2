//! Process-tree inspection (read through `agent_bridge_core::proc_info`): which processes
//! descend from a pid, and whether a process recorded earlier is still alive (same pid *and*
//! same start time, so a recycled pid is not mistaken for a survivor; zombies count as gone).

use agent_bridge_core::proc_info::{self, ProcStat};
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
        proc_info::alive(self.pid, self.start_time)
    }

    fn of(stat: ProcStat) -> ProcInfo {
        let args = proc_info::cmdline(stat.pid);
        ProcInfo {
            pid: stat.pid,
            ppid: stat.ppid,
            pgid: stat.pgrp,
            start_time: stat.start_time,
            state: stat.state,
            cmdline: if args.is_empty() {
                stat.comm
            } else {
                args.join(" ")
            },
        }
    }
}

/// Reads one process; `None` when it does not exist (or `/proc` is unreadable).
pub fn read_proc(pid: i32) -> Option<ProcInfo> {
    proc_info::stat(pid).map(ProcInfo::of)
}

/// Every process currently listed in `/proc`.
pub fn all_procs() -> Vec<ProcInfo> {
    proc_info::all().into_iter().map(ProcInfo::of).collect()
}

/// Live (non-zombie) descendants of `pid` (children, grandchildren, ...), parents first.
pub fn descendants(pid: i32) -> Vec<ProcInfo> {
    proc_info::descendants(&proc_info::all(), pid)
        .into_iter()
        .filter(|p| !p.is_zombie())
        .map(ProcInfo::of)
        .collect()
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
        // The child's /proc entry may still show it mid-exec (no arguments yet): read again.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let sleep = loop {
            let kids = descendants(std::process::id() as i32);
            let sleep = kids
                .iter()
                .find(|p| p.pid == child.id() as i32)
                .expect("sleep is a descendant")
                .clone();
            if sleep.cmdline.contains("sleep 5") || std::time::Instant::now() > deadline {
                break sleep;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        };
        assert!(sleep.cmdline.contains("sleep 5"), "{sleep:?}");
        child.kill().expect("kill");
        child.wait().expect("reap");
        assert!(!sleep.is_alive());
    }
}
