//! Shared rig of the end-to-end tests: the real `agent-bridge serve` binary, the real pinned
//! `claude` CLI (passed through `launch`), a mock model server, and a hermetic env per test.

#![allow(dead_code)]

use agent_bridge_conformance::{input, procs, BridgeHost, Event};
use mock_llm::{hermetic, HermeticEnv, MockLlm};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Duration;

pub const PROVIDER: &str = "claude-bridge";
pub const CAPS: &[&str] = &[
    "prompt.message",
    "prompt.command",
    "prompt.image",
    "prompt.steer",
    "session.configure",
    "session.list",
    "permission.tool_policy",
    "session.persistence",
    "session.subsession",
    "permission",
    "session.can_stop_runtime",
];
/// Generous per-step limit; a mock turn takes well under a second.
pub const STEP: Duration = Duration::from_secs(30);

pub struct Rig {
    pub mock: MockLlm,
    pub env: HermeticEnv,
    pub claude: PathBuf,
    /// The CLI's version, for the report of exercised scenarios.
    pub version: String,
    pub host: BridgeHost,
    pub conn: String,
    _root: tempfile::TempDir,
}

/// The rig, or `None` (with a loud SKIPPED line) when the pinned claude is not installed
/// outside CI.
pub async fn rig() -> Option<Rig> {
    let claude = mock_llm::require_cli("claude")?;
    let version = mock_llm::cli_version(&claude).unwrap_or_else(|| "unknown".into());
    let mock = MockLlm::start().await.expect("mock server");
    let root = tempfile::tempdir().expect("temp root");
    let env = hermetic::claude(&mock, root.path()).expect("hermetic env");
    let (host, conn) = connect(&claude, &env).await;
    Some(Rig {
        mock,
        env,
        claude,
        version,
        host,
        conn,
        _root: root,
    })
}

/// `launch` of the connect request: the pinned CLI and the hermetic env.
pub fn launch(claude: &std::path::Path, env: &HermeticEnv) -> Value {
    json!({"command": claude.display().to_string(), "args": [], "env": env.env})
}

/// A fresh bridge connected to the provider.
pub async fn connect(claude: &std::path::Path, env: &HermeticEnv) -> (BridgeHost, String) {
    let host = BridgeHost::spawn().await.expect("bridge");
    host.initialize().await.expect("initialize");
    let (conn, caps) = host
        .connect(PROVIDER, CAPS, Some(launch(claude, env)))
        .await
        .expect("connect");
    assert_eq!(caps.len(), CAPS.len(), "negotiated {caps:?}");
    (host, conn)
}

/// The real `claude` processes under a bridge (not their guards), oldest first. A session's
/// CLI is older than the spare started after it answered, so the first session's is first.
pub fn claude_procs(host: &BridgeHost, claude: &std::path::Path) -> Vec<procs::ProcInfo> {
    let claude = claude.display().to_string();
    let mut found: Vec<procs::ProcInfo> = host
        .descendants()
        .into_iter()
        .filter(|p| p.cmdline.starts_with(&claude))
        .collect();
    found.sort_by_key(|p| (p.start_time, p.pid));
    found
}

/// Records a scenario in the CLI report (`AGENT_BRIDGE_CLI_REPORT`).
pub fn report(claude: &std::path::Path, scenario: &str) {
    let version = mock_llm::cli_version(claude).unwrap_or_else(|| "unknown".into());
    mock_llm::report_ok("claude", &version, scenario);
}

impl Rig {
    /// Records the scenario in the CLI report (`AGENT_BRIDGE_CLI_REPORT`).
    pub fn report(&self, scenario: &str) {
        mock_llm::report_ok("claude", &self.version, scenario);
    }

    /// The real `claude` processes under the bridge, oldest first (see [`claude_procs`]).
    pub fn claude_procs(&self) -> Vec<procs::ProcInfo> {
        claude_procs(&self.host, &self.claude)
    }

    /// The first session's CLI: the oldest `claude` under the bridge.
    pub fn first_session_cli(&self) -> procs::ProcInfo {
        self.claude_procs()
            .into_iter()
            .next()
            .expect("a claude process")
    }

    pub fn cwd(&self) -> PathBuf {
        self.env.workdir.clone()
    }

    /// Opens a session with `patch` merged into the config; returns its open events.
    pub async fn open(&self, session_id: &str, patch: Value) -> Vec<Event> {
        let rid = self.host.unique("open");
        let config = input::session_config(&self.cwd(), patch);
        self.host
            .open_session(&self.conn, input::open(&rid, session_id, config))
            .await
            .expect("session opens")
    }

    /// Sends a prompt and returns (clientMessageId, turnId).
    pub async fn start_turn(&self, session_id: &str, text: &str) -> (String, String) {
        let cmid = self
            .host
            .prompt(&self.conn, session_id, text)
            .await
            .expect("prompt admitted");
        let result = self
            .host
            .prompt_result(session_id, &cmid, STEP)
            .await
            .expect("prompt result");
        assert_eq!(result["type"], "turn", "{result}");
        (
            cmid,
            result["turnId"].as_str().unwrap_or_default().to_string(),
        )
    }

    /// Waits for an event of a session.
    pub async fn wait(&self, session_id: &str, kind: &str, pred: impl Fn(&Event) -> bool) -> Event {
        self.host
            .wait_event(|e| e.is_for(kind, session_id) && pred(e), STEP)
            .await
            .unwrap_or_else(|e| {
                panic!(
                    "no {kind} on {session_id}: {e:#}\nstderr:\n{}",
                    self.host.stderr()
                )
            })
    }

    /// The latest snapshot of every timeline item of a session.
    pub fn timeline(&self, session_id: &str) -> Vec<Value> {
        self.host.timeline(session_id)
    }

    /// Closes the session and checks the protocol invariants of everything seen.
    pub async fn finish(&self, session_id: &str) {
        let rid = self.host.unique("close");
        self.host
            .send(&self.conn, input::close(&rid, session_id))
            .await
            .expect("close admitted");
        let answer = self
            .host
            .wait_answer(&rid, STEP)
            .await
            .expect("close answered");
        assert!(answer.is("request.completed"), "{answer}");
        self.host.assert_invariants();
    }
}

/// Items of one type in a timeline.
pub fn of_type<'a>(timeline: &'a [Value], kind: &str) -> Vec<&'a Value> {
    timeline.iter().filter(|i| i["type"] == kind).collect()
}

/// The last assistant text of a timeline.
pub fn last_assistant_text(timeline: &[Value]) -> String {
    of_type(timeline, "assistant_message")
        .last()
        .and_then(|i| i["text"].as_str())
        .unwrap_or_default()
        .to_string()
}
