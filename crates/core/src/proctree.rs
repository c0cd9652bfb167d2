//! Process-tree lookups for the guard's cleanup and the supervisor's group checks (read through
//! [`crate::proc_info`]): who a guard answers for, whether a process group still has live
//! members, and signalling a process seen in a scan without hitting a recycled pid.

use crate::proc_info::{self, ProcStat};

/// Everything a guard `root` answers for, without `root` itself: its descendants (every process
/// whose parent chain reaches `root`; parents before their children) and any other member of
/// its process group. Zombies included.
pub(crate) fn stoppable(root: libc::pid_t) -> Vec<ProcStat> {
    let procs = proc_info::all();
    let mut out = proc_info::descendants(&procs, root);
    let mut seen: std::collections::HashSet<libc::pid_t> = out.iter().map(|p| p.pid).collect();
    seen.insert(root);
    out.extend(
        procs
            .into_iter()
            .filter(|p| p.pgrp == root && seen.insert(p.pid)),
    );
    out
}

/// True while a process of group `pgid` other than a zombie exists.
pub(crate) fn group_has_live_members(pgid: libc::pid_t) -> bool {
    proc_info::all()
        .iter()
        .any(|p| p.pgrp == pgid && !p.is_zombie())
}

/// Sends `signal` to `p` if its pid still names the process of the scan (same start time).
/// Through a pidfd, so the check and the signal are about one process even if `p` is reaped
/// and its pid reused meanwhile; plain kill(2) on kernels without pidfds (before 5.3).
pub(crate) fn signal(p: &ProcStat, signal: libc::c_int) {
    let same = || proc_info::stat(p.pid).is_some_and(|now| now.start_time == p.start_time);
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
            .cloned()
            .expect("the sleep descends from us");
        assert_eq!(sleep.ppid, me);
        assert!(!sleep.is_zombie());
        // A stale record (another start time) is not signalled.
        signal(
            &ProcStat {
                start_time: sleep.start_time + 1,
                ..sleep.clone()
            },
            libc::SIGKILL,
        );
        assert!(proc_info::stat(pid).is_some_and(|p| !p.is_zombie()));
        signal(&sleep, libc::SIGKILL);
        let status = child.wait().expect("reap");
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(libc::SIGKILL));
    }
}
