//! Waiting for and stopping a [`ManagedChild`].
//!
//! The group's id is the leader's pid, so the group is signalled only while the leader is not
//! reaped: a running leader, or a zombie one, still holds the id. [`ManagedChild::wait`] uses
//! that: it first waits for the leader's exit *without* reaping it (`waitid(WNOWAIT)`),
//! SIGKILLs whatever is left in the group while the zombie still holds the id, and only then
//! reaps. With the guard the group is already empty by then (the guard exits only once its
//! tree is gone); the kill covers a guard that was SIGKILLed from outside, and direct spawns.

use super::{ManagedChild, STOP_GRACE};
use std::process::ExitStatus;
use std::time::Duration;
use tokio::io::AsyncWriteExt;

/// What `waitid(WNOWAIT)` says about the leader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Leader {
    Running,
    /// Exited, not reaped: its pid (the group's id) is still ours.
    Zombie,
    /// Not ours to look at any more (reaped, or the platform cannot tell).
    Unknown,
}

impl ManagedChild {
    /// Waits for the process to exit; whatever it left in its group is SIGKILLed before the
    /// leader is reaped.
    pub async fn wait(&mut self) -> std::io::Result<ExitStatus> {
        if let Some(s) = self.exited {
            return Ok(s);
        }
        self.leader_exit().await;
        self.signal_group(libc::SIGKILL);
        let s = self.child.wait().await?;
        self.exited = Some(s);
        Ok(s)
    }

    /// Non-blocking exit check (like [`wait`](Self::wait), the group goes before the reap).
    pub fn try_exited(&mut self) -> Option<ExitStatus> {
        if self.exited.is_none() {
            if self.leader() == Leader::Zombie {
                self.signal_group(libc::SIGKILL);
            }
            if let Ok(Some(s)) = self.child.try_wait() {
                self.exited = Some(s);
            }
        }
        self.exited
    }

    /// Waits until the leader has exited, without reaping it.
    async fn leader_exit(&self) {
        let mut sigchld =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::child()).ok();
        while self.leader() == Leader::Running {
            // The timeout covers a SIGCHLD that arrived before the check above.
            let tick = Duration::from_millis(100);
            match sigchld.as_mut() {
                Some(s) => {
                    let _ = tokio::time::timeout(tick, s.recv()).await;
                }
                None => tokio::time::sleep(tick / 5).await,
            }
        }
    }

    #[cfg(target_os = "linux")]
    fn leader(&self) -> Leader {
        let Some(pid) = self.pid.filter(|_| self.leader_unreaped()) else {
            return Leader::Unknown;
        };
        // SAFETY: a zeroed siginfo_t is a valid out-buffer; WNOWAIT leaves the child waitable.
        unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
            if libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) != 0 {
                Leader::Unknown
            } else if info.si_pid() == 0 {
                Leader::Running
            } else {
                Leader::Zombie
            }
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn leader(&self) -> Leader {
        Leader::Unknown
    }

    /// True until the leader is reaped: only then does its pid, the group's id, still name
    /// our process group (a zombie leader holds it too); after that it may be anyone's.
    pub(super) fn leader_unreaped(&self) -> bool {
        self.exited.is_none() && self.child.id().is_some()
    }

    /// Signals the whole process group, unless the leader was reaped.
    fn signal_group(&self, signal: i32) {
        if let (Some(pid), true) = (self.pid, self.leader_unreaped()) {
            // SAFETY: plain syscall on the group we created, whose leader is not reaped.
            unsafe {
                libc::kill(-(pid as libc::pid_t), signal);
            }
        }
    }

    /// Starts an immediate kill without waiting: the guard's kill request (it SIGKILLs the CLI
    /// and every descendant, then exits), else SIGKILL to the group. Nothing once reaped.
    fn start_kill(&self) {
        match (self.pid, self.guarded) {
            (Some(pid), true) if self.leader_unreaped() => {
                // SAFETY: plain syscall on our unreaped child.
                unsafe {
                    libc::kill(pid as libc::pid_t, crate::guard::KILL_SIGNAL);
                }
            }
            _ => self.signal_group(libc::SIGKILL),
        }
    }

    /// Graceful stop: close stdin (the caller may have sent the agent's own stop request
    /// first), wait `STOP_GRACE`, SIGTERM the group, wait `STOP_GRACE`, [`kill`](Self::kill).
    pub async fn shutdown(&mut self) {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.shutdown().await;
        }
        self.shutdown_after_stdin_closed().await;
    }

    /// Like [`shutdown`](Self::shutdown), for callers that closed stdin themselves.
    pub async fn shutdown_after_stdin_closed(&mut self) {
        self.stdin.take();
        if tokio::time::timeout(STOP_GRACE, self.wait()).await.is_ok() {
            return;
        }
        self.signal_group(libc::SIGTERM);
        if tokio::time::timeout(STOP_GRACE, self.wait()).await.is_ok() {
            return;
        }
        self.kill().await;
    }

    /// Immediate kill (see [`kill`](Self::kill)) without waiting; nothing once reaped.
    pub fn kill_now(&mut self) {
        self.start_kill();
    }

    /// Kills the CLI and what it started, then waits (briefly) until the leader is reaped, so
    /// a caller that reports "stopped" afterwards is telling the truth: the guard exits only
    /// once its tree is gone; without a guard, the group is SIGKILLed and waited for.
    pub async fn kill(&mut self) {
        if !self.leader_unreaped() {
            return;
        }
        self.start_kill();
        if self.guarded {
            let limit = crate::guard::CLEANUP_LIMIT + Duration::from_millis(500);
            if tokio::time::timeout(limit, self.wait()).await.is_ok() {
                return;
            }
            // The guard did not answer: SIGKILL its group, the guard included.
            self.signal_group(libc::SIGKILL);
        } else {
            self.wait_group_gone().await;
        }
        let _ = tokio::time::timeout(Duration::from_secs(2), self.wait()).await;
    }

    /// Waits (at most 500 ms) until no process of the group is left but the unreaped leader,
    /// so the members the SIGKILL reached are really gone, not merely signalled.
    async fn wait_group_gone(&self) {
        #[cfg(target_os = "linux")]
        if let Some(pid) = self.pid {
            let deadline = tokio::time::Instant::now() + Duration::from_millis(500);
            while self.leader_unreaped()
                && crate::proctree::group_has_live_members(pid as libc::pid_t)
                && tokio::time::Instant::now() < deadline
            {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
    }
}

impl Drop for ManagedChild {
    fn drop(&mut self) {
        self.start_kill();
    }
}
