//! The processes under the bridge during a soak: a recorder that notes every one it sees (to
//! find the orphans once the bridge exited), and the session's CLI to kill. A session's
//! processes are told apart by a variable the soak puts in the session's `config.env`, which
//! every process of its CLI inherits.

use crate::host::proc_tree::{alive, descendants, parent, ProcId};
use agent_bridge_core::proc_info;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The variable naming the soak session a CLI works for.
pub const SESSION_VAR: &str = "AGENT_BRIDGE_SOAK_SESSION";

/// How often the recorder reads the tree.
const EVERY: Duration = Duration::from_millis(100);

/// What to kill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum KillTarget {
    /// The CLI the guard started (its own children are the guard's to stop).
    Cli,
    /// The session's guard (`agent-bridge __guard`) alone.
    Guard,
    /// The CLI and every process it started.
    Tree,
}

/// The arguments of a process (empty when it is gone).
fn cmdline(pid: u32) -> Vec<String> {
    i32::try_from(pid)
        .map(proc_info::cmdline)
        .unwrap_or_default()
}

fn is_guard(pid: u32) -> bool {
    cmdline(pid).get(1).map(String::as_str) == Some(agent_bridge_core::guard::GUARD_ARG)
}

fn command_line(pid: u32) -> String {
    let mut line = cmdline(pid).join(" ");
    line.truncate(160);
    line
}

/// Records every process under a root until stopped.
pub struct Recorder {
    seen: Arc<Mutex<BTreeMap<ProcId, String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    root: u32,
}

impl Recorder {
    pub fn start(root: u32) -> anyhow::Result<Recorder> {
        let seen = Arc::new(Mutex::new(BTreeMap::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (s, flag) = (seen.clone(), stop.clone());
        let thread = std::thread::Builder::new()
            .name("soak-procs".into())
            .spawn(move || {
                while !flag.load(Ordering::Relaxed) {
                    record(&s, root);
                    std::thread::sleep(EVERY);
                }
            })?;
        Ok(Recorder {
            seen,
            stop,
            thread: Some(thread),
            root,
        })
    }

    /// Reads the tree now (also done before a kill, so what it kills is on record).
    pub fn snapshot(&self) {
        record(&self.seen, self.root);
    }

    /// Stops recording; returns how many processes were seen.
    pub fn finish(&mut self) -> usize {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<ProcId, String>> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The recorded processes still running after `grace` (pid and command line).
    pub fn survivors(&self, grace: Duration) -> Vec<String> {
        let deadline = std::time::Instant::now() + grace;
        loop {
            let left: Vec<String> = self
                .lock()
                .iter()
                .filter(|(p, _)| alive(**p))
                .map(|(p, cmd)| format!("{} {cmd}", p.pid))
                .collect();
            if left.is_empty() || std::time::Instant::now() >= deadline {
                return left;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.finish();
    }
}

fn record(seen: &Mutex<BTreeMap<ProcId, String>>, root: u32) {
    let found = descendants(root);
    let mut seen = seen.lock().unwrap_or_else(|p| p.into_inner());
    for p in found {
        seen.entry(p).or_insert_with(|| command_line(p.pid));
    }
}

/// The processes of soak session `session` under `root` that `target` names.
pub fn session_targets(root: u32, session: &str, target: KillTarget) -> Vec<ProcId> {
    let mark = format!("{SESSION_VAR}={session}");
    let mine: Vec<ProcId> = descendants(root)
        .into_iter()
        .filter(|p| {
            i32::try_from(p.pid)
                .map(proc_info::environ)
                .is_ok_and(|env| env.contains(&mark))
        })
        .collect();
    let (guards, cli): (Vec<ProcId>, Vec<ProcId>) = mine.into_iter().partition(|p| is_guard(p.pid));
    match target {
        KillTarget::Guard => guards,
        KillTarget::Tree => cli,
        // The topmost: its parent is not one of the CLI's processes.
        KillTarget::Cli => cli
            .iter()
            .filter(|p| parent(p.pid).is_none_or(|pp| !cli.iter().any(|c| c.pid == pp)))
            .copied()
            .take(1)
            .collect(),
    }
}

/// SIGKILLs the processes (those still running); returns how many were signalled.
pub fn kill(procs: &[ProcId]) -> usize {
    procs
        .iter()
        .filter(|p| alive(**p))
        .filter(|p| {
            let Ok(pid) = libc::pid_t::try_from(p.pid) else {
                return false;
            };
            // SAFETY: kill(2) on a pid read from /proc just now whose start time still matches.
            unsafe { libc::kill(pid, libc::SIGKILL) == 0 }
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn a_session_cli_is_found_by_its_variable_and_killed() {
        let mut child = Command::new("sleep")
            .arg("30")
            .env(SESSION_VAR, "soak-test-a")
            .spawn()
            .expect("sleep");
        std::thread::sleep(Duration::from_millis(100));
        let me = std::process::id();
        let mut rec = Recorder::start(me).expect("recorder");
        rec.snapshot();
        assert!(session_targets(me, "soak-test-b", KillTarget::Cli).is_empty());
        let found = session_targets(me, "soak-test-a", KillTarget::Cli);
        assert_eq!(
            found.iter().map(|p| p.pid).collect::<Vec<_>>(),
            vec![child.id()]
        );
        assert!(session_targets(me, "soak-test-a", KillTarget::Guard).is_empty());
        assert!(!rec.survivors(Duration::ZERO).is_empty());
        assert_eq!(kill(&found), 1);
        let _ = child.wait();
        assert!(rec.finish() >= 1);
        let left = rec.survivors(Duration::from_secs(2));
        assert!(left.iter().all(|l| !l.contains("sleep 30")), "{left:?}");
    }
}
