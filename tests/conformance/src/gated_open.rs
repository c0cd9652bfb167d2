//! A close that lands while a session is opening, forced instead of timed. The CLI runs
//! behind a [`Gate`]: a shell wrapper that, once armed, starts the CLI at once but holds the
//! bridge's input back until the gate opens. The session's handshake (`initialize`) therefore
//! cannot be answered before the test has sent the close, whatever the load of the machine,
//! and the close is sent only once the CLI itself runs. The CLI's guard is frozen (SIGSTOP)
//! when the close is sent, the extreme of a guard starved of CPU: its tree cannot be gone
//! before the bridge makes it go (the guard and its group killed from outside; the helper
//! that left the group survives that), so a close answered without waiting for every
//! process of the session is seen every time, not only under load.

use crate::procs::{self, ProcInfo};
use crate::rig::{Bridge, STEP};
use crate::{input, Event};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The wrapper: `sh gate.sh CLI ARGS...`. Unarmed it is the CLI (availability probes, the
/// connect); armed, stdin reaches the CLI only once `open` exists next to the script, and a
/// helper that left the process group (`setsid`, as an MCP server may) runs beside it.
const SCRIPT: &str = r#"#!/bin/sh
dir=${0%/*}
cli=$1
shift
if [ ! -e "$dir/armed" ]; then exec "$cli" "$@"; fi
/usr/bin/setsid /bin/sleep 600 </dev/null >/dev/null 2>&1 &
{ while [ ! -e "$dir/open" ]; do /bin/sleep 0.02; done; exec /bin/cat; } | "$cli" "$@"
"#;

/// A gate in front of a CLI's input (see the module doc).
pub struct Gate {
    dir: tempfile::TempDir,
}

impl Gate {
    pub fn new() -> Gate {
        let dir = tempfile::tempdir().expect("gate folder");
        std::fs::write(dir.path().join("gate.sh"), SCRIPT).expect("gate script");
        Gate { dir }
    }

    /// `launch` of the connect request: the CLI at `cli` behind the gate, in `env`.
    pub fn launch(&self, cli: &Path, env: &mock_llm::HermeticEnv) -> Value {
        let script = self.script().display().to_string();
        json!({"command": "/bin/sh", "args": [script, cli.display().to_string()], "env": env.env})
    }

    fn script(&self) -> PathBuf {
        self.dir.path().join("gate.sh")
    }

    /// From now on a started CLI waits for [`Gate::open`] before it hears anything.
    pub fn arm(&self) {
        std::fs::write(self.dir.path().join("armed"), "").expect("arm the gate");
    }

    /// Lets every waiting and later CLI hear the bridge.
    pub fn open(&self) {
        std::fs::write(self.dir.path().join("open"), "").expect("open the gate");
    }
}

impl Default for Gate {
    fn default() -> Self {
        Gate::new()
    }
}

/// `session.open` behind an armed, closed gate; once `cli_up` holds for the processes under
/// the bridge (the CLI itself runs, its handshake unanswered), `session.close`. The close must
/// be answered `request.completed` with no process of the session left, neither the CLI nor
/// its guard nor the wrapper; the open `request.failed` (it cannot have finished); nothing of
/// the session follows. Then, the gate opened, a session opens through the same wrapper (so
/// the first one really was waiting for its handshake).
pub async fn close_during_gated_open(b: &Bridge, gate: &Gate, cli_up: impl Fn(&ProcInfo) -> bool) {
    let sid = "gated-open-close";
    gate.arm();
    let open_rid = b.host.unique("open");
    let config = input::session_config(&b.cwd(), json!({}));
    b.send(input::open(&open_rid, sid, config)).await;
    let recorded = wait_until_up(b, &cli_up).await;
    let guards: Vec<&ProcInfo> = recorded
        .iter()
        .filter(|p| p.cmdline.contains("__guard"))
        .collect();
    assert!(
        !guards.is_empty(),
        "the CLI runs under a guard: {recorded:#?}"
    );

    for guard in &guards {
        // SAFETY: kill(2) has no memory-safety preconditions.
        unsafe { libc::kill(guard.pid, libc::SIGSTOP) };
    }
    let close_rid = b.host.unique("close");
    b.send(input::close(&close_rid, sid)).await;
    let answer = match b.host.wait_answer(&close_rid, STEP).await {
        Ok(answer) => answer,
        Err(e) => panic!("the close is answered: {e:#}\nstderr:\n{}", b.host.stderr()),
    };
    // Looked at first, as soon as the answer is in.
    let alive = b.host.descendants();
    let survivors = procs::survivors(&recorded);
    // A failed run leaves nothing behind.
    procs::kill_all(&survivors);
    assert!(
        alive.is_empty() && survivors.is_empty(),
        "the close during open was answered while processes of the session lived: under the \
         bridge {alive:#?}, of those seen at the close {survivors:#?}\nstderr:\n{}",
        b.host.stderr()
    );
    assert!(answer.is("request.completed"), "{answer}");
    let open_answer = match b.host.wait_answer(&open_rid, STEP).await {
        Ok(answer) => answer,
        Err(e) => panic!("the open is answered: {e:#}\nstderr:\n{}", b.host.stderr()),
    };
    assert!(open_answer.is("request.failed"), "{open_answer}");
    assert_eq!(
        open_answer.at("/error/code"),
        Some(&json!("canceled")),
        "{open_answer}"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let events: Vec<Event> = b.host.session_events(sid);
    assert!(
        events.is_empty(),
        "a canceled open announced its session: {events:?}"
    );
    assert!(b.host.descendants().is_empty(), "a process started again");

    gate.open();
    let opened = b.open("gated-open-after", json!({})).await;
    assert!(opened.iter().any(|e| e.is("session.ready")), "{opened:?}");
    b.finish("gated-open-after").await;
    b.host.assert_invariants();
}

/// Waits until `cli_up` holds for a process under the bridge and the wrapper's helper runs;
/// returns every process seen then.
async fn wait_until_up(b: &Bridge, cli_up: &impl Fn(&ProcInfo) -> bool) -> Vec<ProcInfo> {
    let deadline = Instant::now() + STEP;
    loop {
        let found = b.host.descendants();
        let helper = found.iter().any(|p| p.cmdline == "/bin/sleep 600");
        if helper && found.iter().any(cli_up) {
            return found;
        }
        assert!(
            Instant::now() < deadline,
            "the CLI did not start behind the gate: {found:#?}\nstderr:\n{}",
            b.host.stderr()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
