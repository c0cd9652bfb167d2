//! The processes one session's provider spawned, and the session's cancellation token.
//!
//! A provider registers the pid of every process it starts for a session (the CLI, a tool
//! runner). When the session closes — even while `Provider::open` still runs — the core drops
//! the provider's futures and objects (which kills their processes) and then waits, bounded,
//! until every registered pid is gone before it answers the close. The token is cancelled when
//! a close of the session (or of its connection) is admitted; providers may watch it too.

use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How often [`ProcessScope::wait_gone`] looks again.
const POLL: Duration = Duration::from_millis(10);

#[derive(Debug, Clone, Default)]
pub struct ProcessScope {
    pids: Arc<Mutex<Vec<u32>>>,
    token: CancellationToken,
}

impl ProcessScope {
    /// A scope whose token is `token` (the session's).
    pub fn with_token(token: CancellationToken) -> Self {
        Self {
            pids: Arc::default(),
            token,
        }
    }

    /// Records a process spawned for this session. Pids already gone are forgotten, so a long
    /// session that runs many short tools keeps a short list.
    pub fn register(&self, pid: u32) {
        if let Ok(mut pids) = self.pids.lock() {
            pids.retain(|p| alive(*p));
            if !pids.contains(&pid) {
                pids.push(pid);
            }
        }
    }

    /// Forgets a process (it no longer belongs to the session alone: a shared process once
    /// started).
    pub fn forget(&self, pid: u32) {
        if let Ok(mut pids) = self.pids.lock() {
            pids.retain(|p| *p != pid);
        }
    }

    /// The registered processes still alive.
    pub fn live(&self) -> Vec<u32> {
        match self.pids.lock() {
            Ok(mut pids) => {
                pids.retain(|p| alive(*p));
                pids.clone()
            }
            Err(_) => Vec::new(),
        }
    }

    /// Waits until no registered process lives, at most `limit`; false if some still do.
    pub async fn wait_gone(&self, limit: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let live = self.live();
            if live.is_empty() {
                return true;
            }
            if tokio::time::Instant::now() >= deadline {
                tracing::warn!(?live, "processes of a closed session are still alive");
                return false;
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// The session's cancellation token: cancelled once a close of the session is admitted.
    pub fn token(&self) -> CancellationToken {
        self.token.clone()
    }
}

/// True while `pid` exists and is not a zombie (a zombie has exited; only its parent's wait is
/// missing).
fn alive(pid: u32) -> bool {
    let Ok(raw) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if raw <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks that the process exists.
    let exists = unsafe { libc::kill(raw, 0) } == 0
        || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
    exists && !zombie(pid)
}

fn zombie(pid: u32) -> bool {
    i32::try_from(pid)
        .ok()
        .and_then(crate::proc_info::stat)
        .is_some_and(|p| p.is_zombie())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn waits_until_a_killed_process_is_gone() {
        let mut child = tokio::process::Command::new("sleep")
            .arg("30")
            .kill_on_drop(true)
            .spawn()
            .expect("sleep runs");
        let scope = ProcessScope::default();
        scope.register(child.id().expect("pid"));
        assert!(!scope.wait_gone(Duration::from_millis(50)).await);
        child.start_kill().expect("kill");
        assert!(scope.wait_gone(Duration::from_secs(3)).await);
        assert!(scope.live().is_empty());
        let _ = child.wait().await;
    }

    #[tokio::test]
    async fn an_empty_scope_is_gone_at_once() {
        let scope = ProcessScope::default();
        assert!(scope.wait_gone(Duration::ZERO).await);
        scope.register(u32::MAX);
        assert!(scope.live().is_empty(), "an impossible pid is not alive");
    }
}
