//! The processes one session's provider spawned, and the session's cancellation token.
//!
//! A provider registers the pid of every process it starts for a session (the CLI's guard, a
//! tool runner) as soon as it is spawned. When the session closes — even while
//! `Provider::open` still runs — the core takes a census of everything those processes started
//! (their descendants and process-group members, each by pid *and* start time), drops the
//! provider's futures and objects (which kills their processes) and then waits, bounded, until
//! every process of the census is gone before it answers the close. A process whose guard is
//! gone (killed before it could stop its tree) has nobody left to stop it: the scope kills it.
//! The token is cancelled when a close of the session (or of its connection) is admitted;
//! providers may watch it too.

use crate::proc_info::{self, Pid, ProcStat};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How often [`ProcessScope::wait_gone`] looks again.
const POLL: Duration = Duration::from_millis(10);

/// One process, told apart from a later one with a recycled pid by its start time.
#[derive(Debug, Clone)]
struct Member(ProcStat);

impl PartialEq for Member {
    fn eq(&self, other: &Member) -> bool {
        self.0.pid == other.0.pid && self.0.start_time == other.0.start_time
    }
}

impl Member {
    /// Running (not a zombie), and not a recycled pid.
    fn alive(&self) -> bool {
        proc_info::alive(self.0.pid, self.0.start_time)
    }

    /// Still this process, a zombie included: its pid (and group id) is not anyone else's.
    fn exists(&self) -> bool {
        proc_info::stat(self.0.pid).is_some_and(|p| p.start_time == self.0.start_time)
    }
}

#[derive(Debug, Default)]
struct Members {
    /// What the provider registered.
    roots: Vec<Member>,
    /// What the roots started, as the censuses saw it.
    family: Vec<Member>,
}

#[derive(Debug, Clone, Default)]
pub struct ProcessScope {
    members: Arc<Mutex<Members>>,
    token: CancellationToken,
}

impl ProcessScope {
    /// A scope whose token is `token` (the session's).
    pub fn with_token(token: CancellationToken) -> Self {
        Self {
            members: Arc::default(),
            token,
        }
    }

    /// Records a process spawned for this session. Processes already gone are forgotten, so a
    /// long session that runs many short tools keeps a short list.
    pub fn register(&self, pid: u32) {
        let Some(stat) = Pid::try_from(pid).ok().and_then(proc_info::stat) else {
            return;
        };
        let zombie = stat.is_zombie();
        let member = Member(stat);
        if let Ok(mut m) = self.members.lock() {
            m.roots.retain(Member::alive);
            if !m.roots.contains(&member) && !zombie {
                m.roots.push(member);
            }
        }
    }

    /// Forgets a process (it no longer belongs to the session alone: a shared process once
    /// started).
    pub fn forget(&self, pid: u32) {
        if let Ok(mut m) = self.members.lock() {
            m.roots.retain(|p| u32::try_from(p.0.pid).ok() != Some(pid));
        }
    }

    /// The pids of the registered processes, and of what the census saw them start, still
    /// alive.
    pub fn live(&self) -> Vec<u32> {
        match self.members.lock() {
            Ok(mut m) => {
                m.roots.retain(Member::alive);
                m.family.retain(Member::alive);
                m.roots
                    .iter()
                    .chain(m.family.iter())
                    .filter_map(|p| u32::try_from(p.0.pid).ok())
                    .collect()
            }
            Err(_) => Vec::new(),
        }
    }

    /// Records everything the registered processes started: every process whose parent chain
    /// reaches one of them, and the members of their process groups (read from `/proc`, off
    /// the async runtime). Call it before the session's processes are killed: a process whose
    /// parent died is found only by its parent chain.
    pub async fn census(&self) {
        let members = self.members.clone();
        let _ = tokio::task::spawn_blocking(move || census(&members)).await;
    }

    /// Waits until no process of the scope lives, at most `limit`; false if some still do.
    /// Each look takes a census first (what a root started meanwhile counts too); a process
    /// whose every root is gone is killed (its guard did not live to stop it).
    pub async fn wait_gone(&self, limit: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            self.census().await;
            let orphans = match self.members.lock() {
                Ok(mut m) => {
                    m.roots.retain(Member::alive);
                    m.family.retain(Member::alive);
                    if m.roots.is_empty() {
                        m.family.clone()
                    } else {
                        Vec::new()
                    }
                }
                Err(_) => Vec::new(),
            };
            for orphan in &orphans {
                crate::proctree::signal(&orphan.0, libc::SIGKILL);
            }
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

/// Adds what the roots started to the family (blocking: reads `/proc`).
fn census(members: &Mutex<Members>) {
    let roots: Vec<Member> = match members.lock() {
        Ok(m) => m.roots.clone(),
        Err(_) => return,
    };
    let mut seen = Vec::new();
    for root in &roots {
        let found = crate::proctree::stoppable(root.0.pid);
        // Only if the root was itself all along: a pid (the group id) is not reused while
        // its process exists, even as a zombie.
        if root.exists() {
            seen.extend(found.into_iter().filter(|p| !p.is_zombie()).map(Member));
        }
    }
    if let Ok(mut m) = members.lock() {
        for p in seen {
            if !m.family.contains(&p) && !m.roots.contains(&p) {
                m.family.push(p);
            }
        }
    }
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

    /// The root dies without stopping what it started (a guard SIGKILLed): the census taken
    /// before still knows the orphan, and the scope kills it before it says "gone".
    #[tokio::test]
    async fn an_orphan_of_the_census_is_waited_for_and_killed() {
        let mut root = tokio::process::Command::new("sh")
            .args(["-c", "sleep 30 & echo $!; wait"])
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("sh runs");
        let mut out = tokio::io::BufReader::new(root.stdout.take().expect("stdout"));
        let mut line = String::new();
        tokio::io::AsyncBufReadExt::read_line(&mut out, &mut line)
            .await
            .expect("the sleep's pid");
        let sleep: Pid = line.trim().parse().expect("a pid");
        let sleep = proc_info::stat(sleep).expect("the sleep runs");
        let scope = ProcessScope::default();
        scope.register(root.id().expect("pid"));
        scope.census().await;
        assert_eq!(scope.live().len(), 2, "the root and its child");
        root.kill().await.expect("kill the root alone");
        assert!(scope.wait_gone(Duration::from_secs(3)).await);
        assert!(!proc_info::alive(sleep.pid, sleep.start_time));
    }

    #[tokio::test]
    async fn an_empty_scope_is_gone_at_once() {
        let scope = ProcessScope::default();
        assert!(scope.wait_gone(Duration::ZERO).await);
        scope.register(u32::MAX);
        assert!(scope.live().is_empty(), "an impossible pid is not alive");
    }
}
