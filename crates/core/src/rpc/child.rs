//! Whether the agent's process has exited before the bridge took in its exit.
//!
//! The keeper task reaps the process and only then reports the exit; on a loaded machine that
//! can come well after the process died (`kill -9` of an idle agent, then a prompt at once). A
//! call made in between would be queued for a dead process and its turn started, to fail a
//! moment later with "exited unexpectedly". `waitid(WNOWAIT)` looks at the child's state
//! without reaping it (the keeper still does), so such a call fails at once as closed, which
//! the session takes as a death raced by the call: it restarts the agent and makes the call
//! again.

/// True when `pid`, a child of this process, has exited and was not reaped yet. False for a
/// running child and for a pid that is not (or no longer) a child of this process.
pub fn exited_unreaped(pid: u32) -> bool {
    let id: libc::id_t = pid;
    // SAFETY: an all-zero siginfo_t is valid, and waitid only writes into the one we pass;
    // WNOWAIT leaves the child waitable, WNOHANG returns at once.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let found = libc::waitid(
            libc::P_PID,
            id,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        found == 0 && info.si_pid() != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn until(what: &str, pred: impl Fn() -> bool) {
        let start = Instant::now();
        while !pred() {
            assert!(start.elapsed() < Duration::from_secs(10), "never: {what}");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn a_child_is_seen_exited_before_it_is_reaped_and_stays_waitable() {
        let mut running = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("sleep starts");
        assert!(!exited_unreaped(running.id()));
        let mut done = std::process::Command::new("true")
            .spawn()
            .expect("true starts");
        until("`true` has exited", || exited_unreaped(done.id()));
        // Still the keeper's to reap.
        assert!(done.wait().expect("reaped").success());
        assert!(!exited_unreaped(done.id()), "a reaped pid is no child");
        assert!(!exited_unreaped(1), "init is no child of the test");
        running.kill().expect("kill");
        running.wait().expect("reaped");
    }
}
