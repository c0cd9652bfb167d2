//! The end-to-end rig of the provider suites (Claude, Codex): the real `agent-bridge serve`
//! binary, a real pinned CLI passed through the connect request's `launch`, the mock model
//! server and a hermetic environment per test.
//!
//! A suite describes its provider once in a [`RigSpec`] (provider id, capabilities, CLI name,
//! hermetic-env recipe) and starts an [`AgentRig`] per test. The rig derefs to a [`Bridge`]
//! (host + connection + working directory), which carries the session helpers every test uses;
//! [`AgentRig::reconnect`] gives another [`Bridge`] (a fresh bridge process on the same CLI
//! environment) for resume tests.

use crate::procs::ProcInfo;
use crate::{input, BridgeHost, Event, HostOptions, TurnRun};
use mock_llm::{HermeticEnv, HermeticError, MockLlm, RecordedRequest};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Generous per-step limit; a mock turn takes well under a second.
pub const STEP: Duration = Duration::from_secs(30);

/// What a provider suite tells the rig about its provider.
#[derive(Debug, Clone, Copy)]
pub struct RigSpec {
    /// The provider id of the connect request (`claude-bridge`).
    pub provider: &'static str,
    /// The capabilities asked for; all of them must be negotiated.
    pub caps: &'static [&'static str],
    /// The pinned CLI's executable name (`claude`), also its name in the CLI report.
    pub cli: &'static str,
    /// The hermetic-env recipe of that CLI (`mock_llm::hermetic::claude`).
    pub hermetic: fn(&MockLlm, &Path) -> Result<HermeticEnv, HermeticError>,
}

impl RigSpec {
    /// `launch` of the connect request: the pinned CLI and the hermetic env.
    pub fn launch(&self, cli: &Path, env: &HermeticEnv) -> Value {
        json!({"command": cli.display().to_string(), "args": [], "env": env.env})
    }

    /// A fresh bridge connected to the provider with `launch`; every capability negotiated.
    pub async fn connect(&self, launch: Value, cwd: &Path) -> Bridge {
        self.connect_with(launch, cwd, HostOptions::default()).await
    }

    /// [`RigSpec::connect`] with the bridge started from `options` (its environment, say).
    pub async fn connect_with(&self, launch: Value, cwd: &Path, options: HostOptions) -> Bridge {
        let host = BridgeHost::spawn_with(options).await.expect("bridge");
        host.initialize().await.expect("initialize");
        let (conn, caps) = host
            .connect(self.provider, self.caps, Some(launch))
            .await
            .expect("connect");
        assert_eq!(caps.len(), self.caps.len(), "negotiated {caps:?}");
        Bridge {
            host,
            conn,
            cwd: cwd.to_path_buf(),
        }
    }
}

/// Records a scenario in the CLI report (`AGENT_BRIDGE_CLI_REPORT`) for the CLI at `path`.
pub fn report(cli: &str, path: &Path, scenario: &str) {
    let version = mock_llm::cli_version(path)
        .or_else(|| mock_llm::package_version(path))
        .unwrap_or_else(|| "unknown".into());
    mock_llm::report_ok(cli, &version, scenario);
}

/// One test's rig: mock server, hermetic env, the pinned CLI, a connected bridge.
pub struct AgentRig {
    pub spec: RigSpec,
    pub mock: MockLlm,
    pub env: HermeticEnv,
    /// The pinned CLI.
    pub cli: PathBuf,
    /// The CLI's version, for the report of exercised scenarios.
    pub version: String,
    bridge: Bridge,
    options: HostOptions,
    _root: tempfile::TempDir,
}

impl std::ops::Deref for AgentRig {
    type Target = Bridge;
    fn deref(&self) -> &Bridge {
        &self.bridge
    }
}

impl AgentRig {
    /// The rig with the CLI launched as is, or `None` (with a loud SKIPPED line) when the pinned
    /// CLI is not installed outside CI (in CI a missing CLI fails the test).
    pub async fn start(spec: RigSpec) -> Option<AgentRig> {
        AgentRig::start_with(spec, |cli, env| spec.launch(cli, env)).await
    }

    /// [`AgentRig::start`] with another `launch` (a wrapper around the CLI, say), made from the
    /// CLI's path and the hermetic env.
    pub async fn start_with(
        spec: RigSpec,
        launch: impl FnOnce(&Path, &HermeticEnv) -> Value,
    ) -> Option<AgentRig> {
        AgentRig::start_in(spec, HostOptions::default(), launch).await
    }

    /// [`AgentRig::start_with`] with the bridge started from `options` (its environment, say);
    /// [`AgentRig::reconnect`] uses them too.
    pub async fn start_in(
        spec: RigSpec,
        options: HostOptions,
        launch: impl FnOnce(&Path, &HermeticEnv) -> Value,
    ) -> Option<AgentRig> {
        let cli = mock_llm::require_cli(spec.cli)?;
        let version = mock_llm::cli_version(&cli)
            .or_else(|| mock_llm::package_version(&cli))
            .unwrap_or_else(|| "unknown".into());
        let mock = MockLlm::start().await.expect("mock server");
        let root = tempfile::tempdir().expect("temp root");
        let env = (spec.hermetic)(&mock, root.path()).expect("hermetic env");
        let bridge = spec
            .connect_with(launch(&cli, &env), &env.workdir, options.clone())
            .await;
        Some(AgentRig {
            spec,
            mock,
            env,
            cli,
            version,
            bridge,
            options,
            _root: root,
        })
    }

    /// A fresh bridge process connected to the same CLI with the same environment (same HOME
    /// and config dir: what the first one persisted is there).
    pub async fn reconnect(&self) -> Bridge {
        let launch = self.spec.launch(&self.cli, &self.env);
        self.spec
            .connect_with(launch, &self.env.workdir, self.options.clone())
            .await
    }

    /// Records the scenario in the CLI report (`AGENT_BRIDGE_CLI_REPORT`).
    /// How the rig's bridge was started (its environment, say).
    pub fn options(&self) -> &HostOptions {
        &self.options
    }

    pub fn report(&self, scenario: &str) {
        mock_llm::report_ok(self.spec.cli, &self.version, scenario);
    }

    /// The last request the CLI made to the model.
    pub fn last_model_request(&self) -> RecordedRequest {
        self.mock
            .model_requests()
            .into_iter()
            .last()
            .expect("a model request")
    }

    /// The processes under the bridge started from the CLI's path (not their guards), oldest
    /// first: the path is the command, or the script its interpreter runs (a Python venv's
    /// entry point reads `<venv>/bin/python <cli>`).
    pub fn cli_procs(&self) -> Vec<ProcInfo> {
        let cli = self.cli.display().to_string();
        self.procs_where(|p| {
            p.cmdline.starts_with(&cli) || p.cmdline.split(' ').nth(1) == Some(cli.as_str())
        })
    }
}

/// A bridge process connected to the provider, and the working directory of its sessions.
pub struct Bridge {
    pub host: BridgeHost,
    pub conn: String,
    cwd: PathBuf,
}

impl Bridge {
    /// A bridge already connected as `conn`, its sessions working in `cwd` (the demo's rig).
    pub fn new(host: BridgeHost, conn: String, cwd: PathBuf) -> Bridge {
        Bridge { host, conn, cwd }
    }

    /// The working directory of the sessions (the hermetic env's `workdir`).
    pub fn cwd(&self) -> PathBuf {
        self.cwd.clone()
    }

    /// Panics with `what`, the error and the bridge's stderr.
    fn fail(&self, what: &str, e: impl std::fmt::Display) -> ! {
        panic!("{what}: {e:#}\nstderr:\n{}", self.host.stderr())
    }

    /// Sends an input on the connection; it must be admitted.
    pub async fn send(&self, input: Value) {
        if let Err(e) = self.host.send(&self.conn, input).await {
            self.fail("input admitted", e)
        }
    }

    /// Sends the input `make(requestId)` with a fresh request id `<prefix>-N`; returns its
    /// answer (waited for up to [`STEP`]).
    pub async fn ask(&self, prefix: &str, make: impl FnOnce(&str) -> Value) -> Event {
        let rid = self.host.unique(prefix);
        self.send(make(&rid)).await;
        match self.host.wait_answer(&rid, STEP).await {
            Ok(answer) => answer,
            Err(e) => self.fail("answered", e),
        }
    }

    /// Opens a session with `patch` merged into the config; returns its open events.
    pub async fn open(&self, session_id: &str, patch: Value) -> Vec<Event> {
        let rid = self.host.unique("open");
        let config = input::session_config(&self.cwd, patch);
        self.open_input(input::open(&rid, session_id, config)).await
    }

    /// Resumes `persistence` (history `replay`) as `session_id`, with `patch` merged into the
    /// config; returns its open events.
    pub async fn resume(&self, session_id: &str, patch: Value, persistence: Value) -> Vec<Event> {
        let rid = self.host.unique("open");
        let config = input::session_config(&self.cwd, patch);
        let resume = input::resume(&rid, session_id, config, persistence, "replay");
        self.open_input(resume).await
    }

    async fn open_input(&self, open: Value) -> Vec<Event> {
        match self.host.open_session(&self.conn, open).await {
            Ok(events) => events,
            Err(e) => self.fail("session opens", e),
        }
    }

    /// Sends a prompt and returns (clientMessageId, turnId); the result must be a turn.
    pub async fn start_turn(&self, session_id: &str, text: &str) -> (String, String) {
        let cmid = self
            .host
            .prompt(&self.conn, session_id, text)
            .await
            .expect("prompt admitted");
        let result = self.prompt_result(session_id, &cmid).await;
        assert_eq!(result["type"], "turn", "{result}");
        (
            cmid,
            result["turnId"].as_str().unwrap_or_default().to_string(),
        )
    }

    /// The `result` of the prompt `client_message_id` (waited for up to [`STEP`]).
    pub async fn prompt_result(&self, session_id: &str, client_message_id: &str) -> Value {
        match self
            .host
            .prompt_result(session_id, client_message_id, STEP)
            .await
        {
            Ok(result) => result,
            Err(e) => self.fail("prompt result", e),
        }
    }

    /// Runs a whole turn (up to [`STEP`] per step); its end state is for the caller to check.
    pub async fn run_turn(&self, session_id: &str, text: &str) -> TurnRun {
        match self.host.run_turn(&self.conn, session_id, text, STEP).await {
            Ok(run) => run,
            Err(e) => self.fail(&format!("turn `{text}` on {session_id}"), e),
        }
    }

    /// Waits for an event of a session.
    pub async fn wait(&self, session_id: &str, kind: &str, pred: impl Fn(&Event) -> bool) -> Event {
        match self
            .host
            .wait_event(|e| e.is_for(kind, session_id) && pred(e), STEP)
            .await
        {
            Ok(event) => event,
            Err(e) => self.fail(&format!("no {kind} on {session_id}"), e),
        }
    }

    /// Waits until assistant text of the session's latest turn is streaming (a partial row
    /// exists that came after the latest prompt's result): an earlier turn's reply does not
    /// count.
    pub async fn wait_streaming(&self, session_id: &str) -> Event {
        let since = self
            .host
            .session_events(session_id)
            .iter()
            .filter(|e| e.is("session.prompt_result"))
            .map(|e| e.seq)
            .max()
            .unwrap_or(0);
        self.wait(session_id, "timeline.item", |e| {
            e.seq > since && e.item_type() == Some("assistant_message")
        })
        .await
    }

    /// Waits for the end of a turn (up to [`STEP`]); returns its state.
    pub async fn turn_end(&self, session_id: &str, turn_id: &str) -> Event {
        self.turn_end_within(session_id, turn_id, STEP).await
    }

    /// Waits for the end of a turn (up to `limit`); returns its state.
    pub async fn turn_end_within(&self, session_id: &str, turn_id: &str, limit: Duration) -> Event {
        match self.host.wait_turn_end(session_id, turn_id, limit).await {
            Ok(end) => end,
            Err(e) => self.fail("turn end", e),
        }
    }

    /// Interrupts the session; returns the answer to the interrupt.
    pub async fn interrupt(&self, session_id: &str) -> Event {
        self.ask("int", |rid| input::interrupt(rid, session_id))
            .await
    }

    /// Steers the running turn with `text`; returns the steer's prompt result.
    pub async fn steer(&self, session_id: &str, text: &str) -> Value {
        let cmid = self.host.unique("steer");
        self.send(input::steer(session_id, &cmid, text)).await;
        self.prompt_result(session_id, &cmid).await
    }

    /// Waits for a `session.permission` of the session whose id is not `other_than`; returns it
    /// and its permission id.
    pub async fn wait_permission(
        &self,
        session_id: &str,
        other_than: Option<&str>,
    ) -> (Event, String) {
        let ask = self
            .wait(session_id, "session.permission", |e| {
                other_than.is_none_or(|id| e.at("/request/id").and_then(Value::as_str) != Some(id))
            })
            .await;
        let id = ask.string_at("/request/id");
        (ask, id)
    }

    /// Waits for a `session.permission` of the session whose id is not in `seen` (then added
    /// to it): the next one asked, however many came before.
    pub async fn next_permission(&self, session_id: &str, seen: &mut Vec<String>) -> Event {
        let ask = self
            .wait(session_id, "session.permission", |e| {
                let id = e.at("/request/id").and_then(Value::as_str).unwrap_or("");
                !seen.iter().any(|s| s == id)
            })
            .await;
        seen.push(ask.string_at("/request/id"));
        ask
    }

    /// Sends `session.configure` with `changes` (`{"model": ..., "providerOptions": ...}`); its
    /// answer (`request.completed` or `request.failed`).
    pub async fn configure(&self, session_id: &str, changes: Value) -> Event {
        self.ask("cfg", |rid| input::configure(rid, session_id, changes))
            .await
    }

    /// The newest `session.config` of a session.
    pub fn committed_config(&self, session_id: &str) -> Event {
        match self
            .host
            .session_events(session_id)
            .into_iter()
            .rfind(|e| e.is("session.config"))
        {
            Some(config) => config,
            None => self.fail("a session.config", anyhow::anyhow!("none for {session_id}")),
        }
    }

    /// Answers the permission `permission_id` with `response` (`{"behavior": "allow"}`).
    pub async fn answer_permission(&self, session_id: &str, permission_id: &str, response: Value) {
        self.send(input::permission(session_id, permission_id, response))
            .await;
    }

    /// Waits for the `session.permission_resolved` of `permission_id`.
    pub async fn wait_resolved(&self, session_id: &str, permission_id: &str) -> Event {
        self.wait(session_id, "session.permission_resolved", |e| {
            e.at("/permissionId").and_then(Value::as_str) == Some(permission_id)
        })
        .await
    }

    /// The latest snapshot of every timeline item of a session.
    pub fn timeline(&self, session_id: &str) -> Vec<Value> {
        self.host.timeline(session_id)
    }

    /// The processes under the bridge for which `pred` holds, oldest first.
    pub fn procs_where(&self, pred: impl Fn(&ProcInfo) -> bool) -> Vec<ProcInfo> {
        let mut found: Vec<ProcInfo> = self.host.descendants().into_iter().filter(pred).collect();
        found.sort_by_key(|p| (p.start_time, p.pid));
        found
    }

    /// Closes the session (it must complete) and checks the protocol invariants of everything
    /// seen.
    pub async fn finish(&self, session_id: &str) {
        let answer = self.ask("close", |rid| input::close(rid, session_id)).await;
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

/// The backpressure check of a provider's reader with a stand-in CLI that prints `count` events
/// before it answers `call`: with nobody draining, the sink `rx` fills to exactly `capacity`
/// events (waited for, up to 10 s) and the answer has not overtaken them; draining then yields all `count`
/// events in order (each within 10 s, checked by `check(n, event)`), and the answer follows
/// within 10 s. Returns the answer.
pub async fn drain_behind_full_sink<T, R>(
    rx: &mut mpsc::Receiver<T>,
    capacity: usize,
    call: JoinHandle<R>,
    count: usize,
    mut check: impl FnMut(usize, T),
) -> R {
    // Nobody drains: the sink fills up and the answer waits behind the rest.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while rx.len() < capacity && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(rx.len(), capacity);
    assert!(
        !call.is_finished(),
        "the answer must not overtake the events"
    );

    // Draining (as the core does while a method runs) lets everything through, in order.
    for n in 0..count {
        let event = tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .expect("events keep coming")
            .expect("the sink stays open");
        check(n, event);
    }
    tokio::time::timeout(Duration::from_secs(10), call)
        .await
        .expect("the answer arrives")
        .expect("the call task")
}
