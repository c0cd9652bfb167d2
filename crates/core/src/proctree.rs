//! Process-tree lookups through `/proc` (Linux), for the guard's cleanup and the supervisor's
//! group checks: who descends from a pid, who is in a process group, and signalling a process
//! seen in a scan without hitting a recycled pid.

use std::collections::{HashMap, HashSet};

/// One process as `/proc/<pid>/stat` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Proc {
    pub pid: libc::pid_t,
    pub ppid: libc::pid_t,
    pub pgrp: libc::pid_t,
    /// Clock ticks since boot (field 22): with the pid, identifies the process.
    pub start_time: u64,
    /// Exited, not yet reaped.
    pub zombie: bool,
}

/// Reads one process; `None` when it does not exist (any more).
pub(crate) fn read(pid: libc::pid_t) -> Option<Proc> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid pgrp ...`: comm may hold spaces and parentheses; cut at the last ')'.
    let rest: Vec<&str> = stat
        .get(stat.rfind(')')? + 1..)?
        .split_whitespace()
        .collect();
    let state = rest.first()?.chars().next()?;
    Some(Proc {
        pid,
        ppid: rest.get(1)?.parse().ok()?,
        pgrp: rest.get(2)?.parse().ok()?,
        start_time: rest.get(19)?.parse().ok()?,
        zombie: matches!(state, 'Z' | 'X' | 'x'),
    })
}

/// Every process listed in `/proc` right now.
pub(crate) fn all() -> Vec<Proc> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .filter_map(read)
        .collect()
}

/// Everything a guard `root` answers for, without `root` itself: its descendants (every process
/// whose parent chain reaches `root`; parents before their children) and any other member of
/// its process group. Zombies included.
pub(crate) fn stoppable(root: libc::pid_t) -> Vec<Proc> {
    let procs = all();
    let mut children: HashMap<libc::pid_t, Vec<Proc>> = HashMap::new();
    for p in &procs {
        children.entry(p.ppid).or_default().push(*p);
    }
    let mut out = Vec::new();
    let mut seen = HashSet::from([root]);
    let mut next = 0;
    let mut parents = vec![root];
    while let Some(&parent) = parents.get(next) {
        next += 1;
        for child in children.get(&parent).map(Vec::as_slice).unwrap_or(&[]) {
            if seen.insert(child.pid) {
                parents.push(child.pid);
                out.push(*child);
            }
        }
    }
    out.extend(
        procs
            .into_iter()
            .filter(|p| p.pgrp == root && seen.insert(p.pid)),
    );
    out
}

/// True while a process of group `pgid` other than a zombie exists.
pub(crate) fn group_has_live_members(pgid: libc::pid_t) -> bool {
    all().iter().any(|p| p.pgrp == pgid && !p.zombie)
}

/// Sends `signal` to `p` if its pid still names the process of the scan (same start time).
/// Through a pidfd, so the check and the signal are about one process even if `p` is reaped
/// and its pid reused meanwhile; plain kill(2) on kernels without pidfds (before 5.3).
pub(crate) fn signal(p: &Proc, signal: libc::c_int) {
    let same = || read(p.pid).is_some_and(|now| now.start_time == p.start_time);
    // SAFETY: pidfd_open takes a pid and flags, no pointers.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, p.pid, 0) } as libc::c_int;
    if fd < 0 {
        let no_pidfd = std::io::Error::last_os_error().raw_os_error() == Some(libc::ENOSYS);
        if no_pidfd && same() {
            // SAFETY: kill(2) has no memory-safety preconditions.
            unsafe { libc::kill(p.pid, signal) };
        }
        return;
    }
    if same() {
        // SAFETY: `fd` is the pidfd opened above; a null siginfo means "as kill(2) would".
        unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                fd,
                signal,
                std::ptr::null::<libc::siginfo_t>(),
                0,
            )
        };
    }
    // SAFETY: `fd` is ours and closed once.
    unsafe { libc::close(fd) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_descendants_and_signals_them() {
        let me = std::process::id() as libc::pid_t;
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("spawn sleep");
        let pid = child.id() as libc::pid_t;
        let found = stoppable(me);
        let sleep = found
            .iter()
            .find(|p| p.pid == pid)
            .copied()
            .expect("the sleep descends from us");
        assert_eq!(sleep.ppid, me);
        assert!(!sleep.zombie);
        // A stale record (another start time) is not signalled.
        signal(
            &Proc {
                start_time: sleep.start_time + 1,
                ..sleep
            },
            libc::SIGKILL,
        );
        assert!(read(pid).is_some_and(|p| !p.zombie));
        signal(&sleep, libc::SIGKILL);
        let status = child.wait().expect("reap");
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(libc::SIGKILL));
    }
}
