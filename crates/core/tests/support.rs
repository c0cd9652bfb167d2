//! A deterministic fake agent and an in-process host for the core's state-machine tests.

#![allow(dead_code)]

use agent_bridge_core::lifecycle::shared::{ProcessDeaths, SharedDeath};
use agent_bridge_core::registry::ProviderEntry;
use agent_bridge_core::server::{serve, ServerConfig};
use agent_bridge_core::supervisor::LaunchOverride;
use agent_bridge_core::*;
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::*;
use async_trait::async_trait;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use tokio::sync::mpsc;

/// What the fake session does when called.
#[derive(Debug, Clone, Default)]
pub struct Behaviour {
    /// `interrupt` succeeds but never ends the turn (the core must end it itself).
    pub ignore_interrupt: bool,
    /// `configure` never returns.
    pub hang_configure: bool,
    /// `catalog`, `list_sessions` and `catalog_cache_key` never return.
    pub hang_provider_requests: bool,
    /// `catalog` and `list_sessions` take this long (an ACP agent started for the query).
    pub slow_provider_requests: Option<Duration>,
    /// `configure` ends the native turn (as if the CLI's result arrived meanwhile) and reports
    /// it through the sink before returning.
    pub configure_ends_turn: bool,
    /// `abandon_turn` reports a notice `abandoned:<pending ids>` (so a test sees its place in
    /// the event order).
    pub notice_on_abandon: bool,
    /// `open` streams this many history items (`h0`, `h1`, ...) through its sink first.
    pub open_items: usize,
    /// `open` never returns.
    pub hang_open: bool,
    /// `open` starts `sleep 60` (registered in the session's scope, logged as `spawned PID`)
    /// and never returns; the process dies when the open is dropped.
    pub spawn_in_open: bool,
    /// The session can restart its runtime (`can_restart`); `restart` logs `restart`, takes
    /// the new sink and hands it to the test like an opened session's.
    pub restartable: bool,
    /// `restart` fails (with code `session_not_found`) this many times, then works.
    pub failing_restarts: u32,
    /// `restart` reports a notice `fresh` through its new sink before it returns.
    pub notice_on_restart: bool,
    /// `restart` cannot bring the native session back: it answers `Restarted::Fresh`.
    pub fresh_restarts: bool,
    /// Every session is on one shared process: its launch's crash-loop count, and the serial
    /// of the process now (the test bumps it when "the process" restarts).
    pub shared: Option<(ProcessDeaths, Arc<AtomicU64>)>,
}

pub struct FakeProvider {
    pub behaviour: Behaviour,
    /// Hands every opened session's sink to the test.
    pub sinks: mpsc::UnboundedSender<(String, SessionSink)>,
    pub calls: Arc<Mutex<Vec<String>>>,
}

struct FakeSession {
    session_id: String,
    sinks: mpsc::UnboundedSender<(String, SessionSink)>,
    behaviour: Behaviour,
    calls: Arc<Mutex<Vec<String>>>,
    sink: Option<SessionSink>,
    /// The turn the native agent is running, as it knows it.
    native_turn: Option<String>,
    /// A `gone` prompt already found the runtime dead once.
    went: bool,
}

#[async_trait]
impl Provider for FakeProvider {
    fn capabilities(&self) -> Vec<Capability> {
        vec![
            Capability::PromptMessage,
            Capability::PromptSteer,
            Capability::SessionConfigure,
            Capability::SessionList,
            Capability::Permission,
        ]
    }
    async fn availability(
        &self,
        _: &ProviderContext,
        _: &ProviderCatalogOptions,
    ) -> ProviderAvailability {
        ProviderAvailability::available()
    }
    async fn catalog_cache_key(
        &self,
        _: &ProviderContext,
        _: &ProviderCatalogOptions,
    ) -> Option<String> {
        if self.behaviour.hang_provider_requests {
            std::future::pending::<()>().await;
        }
        None
    }
    async fn catalog(
        &self,
        _: &ProviderContext,
        _: CatalogQuery,
    ) -> Result<ProviderCatalog, ProviderError> {
        if self.behaviour.hang_provider_requests {
            std::future::pending::<()>().await;
        }
        if let Some(took) = self.behaviour.slow_provider_requests {
            tokio::time::sleep(took).await;
        }
        Ok(ProviderCatalog::default())
    }
    async fn list_sessions(
        &self,
        _: &ProviderContext,
        _: SessionsQuery,
    ) -> Result<Vec<ProviderSessionSummary>, ProviderError> {
        if self.behaviour.hang_provider_requests {
            std::future::pending::<()>().await;
        }
        if let Some(took) = self.behaviour.slow_provider_requests {
            tokio::time::sleep(took).await;
        }
        Ok(vec![])
    }
    async fn open(
        &self,
        _: &ProviderContext,
        req: OpenRequest,
        sink: SessionSink,
    ) -> Result<OpenedSession, ProviderError> {
        if req.config.cwd == "/fail" {
            return Err(ProviderError::new("cannot open"));
        }
        for i in 0..self.behaviour.open_items {
            let text = format!("history row {i} {}", "x".repeat(200));
            if !sink
                .item_body(
                    format!("h{i}"),
                    ItemBody::AssistantMessage {
                        text,
                        message_id: None,
                    },
                )
                .await
            {
                return Err(ProviderError::new("the session went away while opening"));
            }
        }
        if self.behaviour.spawn_in_open {
            let child = tokio::process::Command::new("sleep")
                .arg("60")
                .kill_on_drop(true)
                .spawn()
                .expect("sleep runs");
            let pid = child.id().expect("pid");
            req.scope.register(pid);
            self.calls.lock().unwrap().push(format!("spawned {pid}"));
            std::future::pending::<()>().await;
            drop(child);
        }
        if self.behaviour.hang_open {
            std::future::pending::<()>().await;
        }
        let _ = self.sinks.send((req.session_id.clone(), sink.clone()));
        let session = FakeSession {
            session_id: req.session_id.clone(),
            sinks: self.sinks.clone(),
            behaviour: self.behaviour.clone(),
            calls: self.calls.clone(),
            sink: Some(sink),
            native_turn: None,
            went: false,
        };
        Ok(OpenedSession::new(
            Box::new(session),
            ProviderConfigState::default(),
        ))
    }
}

impl FakeSession {
    fn log(&self, s: String) {
        self.calls.lock().unwrap().push(s);
    }
}

#[async_trait]
impl AgentSession for FakeSession {
    async fn start_turn(&mut self, turn: TurnRequest) -> Result<(), ProviderError> {
        self.log(format!("start_turn {}", turn.text));
        if let PromptInput::Message { content } = &turn.prompt.input {
            if content.len() > 1 {
                // What the agent gets besides the user's text (a carried-over context).
                let parts: Vec<String> = content.iter().filter_map(|c| c.as_text()).collect();
                self.log(format!("prompt parts {}", parts.join(" | ")));
            }
        }
        if turn.text == "refuse" {
            return Err(ProviderError::new("refused to start"));
        }
        if turn.text == "gone" && !self.went {
            // The runtime died a moment ago and nobody reported it yet.
            self.went = true;
            return Err(
                ProviderError::new("cli exited (signal: 9)").with_code(ErrorCode::RuntimeExited)
            );
        }
        self.native_turn = Some(turn.turn_id.clone());
        if turn.text == "vanish" {
            self.sink = None;
        }
        if let (Some(n), Some(sink)) = (
            turn.text
                .strip_prefix("flood ")
                .and_then(|n| n.parse::<usize>().ok()),
            &self.sink,
        ) {
            // More events than the sink holds, sent from inside the call.
            for i in 0..n {
                sink.item_body(
                    format!("flood:{i}"),
                    ItemBody::Reasoning {
                        text: i.to_string(),
                    },
                )
                .await;
            }
            sink.turn_ended(turn.turn_id.clone(), TurnOutcome::Completed)
                .await;
        }
        Ok(())
    }
    async fn steer(&mut self, turn_id: &str, turn: TurnRequest) -> Result<(), ProviderError> {
        self.log(format!("steer {}", turn.text));
        if self.native_turn.as_deref() != Some(turn_id) {
            return Err(
                ProviderError::new("no active turn to steer").with_code(ErrorCode::NoActiveTurn)
            );
        }
        Ok(())
    }
    async fn interrupt(&mut self, turn_id: &str) -> Result<(), ProviderError> {
        self.log("interrupt".into());
        if let (false, Some(sink)) = (self.behaviour.ignore_interrupt, self.sink.clone()) {
            let turn_id = turn_id.to_string();
            tokio::spawn(async move { sink.turn_ended(turn_id, TurnOutcome::Canceled).await });
        }
        Ok(())
    }
    async fn abandon_turn(&mut self, turn_id: &str, pending: Vec<String>) {
        self.log(format!("abandon {turn_id} {}", pending.join(",")));
        if self.native_turn.as_deref() == Some(turn_id) {
            self.native_turn = None;
        }
        if let (true, Some(sink)) = (self.behaviour.notice_on_abandon, &self.sink) {
            let notice = ProviderNotice {
                id: format!("abandoned:{}", pending.join(",")),
                severity: Severity::Info,
                title: "abandoned".into(),
                description: None,
                dismissed: None,
            };
            sink.send(AgentEvent::Notice(notice)).await;
        }
    }
    async fn respond_permission(
        &mut self,
        id: &str,
        r: ProviderPermissionResponse,
    ) -> Result<(), ProviderError> {
        self.log(format!(
            "permission {id} {}",
            if r.is_allow() { "allow" } else { "deny" }
        ));
        Ok(())
    }
    async fn configure(
        &mut self,
        changes: ProviderConfigChanges,
    ) -> Result<ProviderConfigState, ProviderError> {
        if self.behaviour.hang_configure {
            self.log("configure hangs".into());
            std::future::pending::<()>().await;
        }
        if self.behaviour.configure_ends_turn {
            if let (Some(turn), Some(sink)) = (self.native_turn.take(), &self.sink) {
                sink.turn_ended(turn, TurnOutcome::Completed).await;
            }
        }
        match changes.model {
            Some(Some(m)) if m == "bad" => Err(ProviderError::new("unknown model bad")),
            Some(Some(m)) => Ok(ProviderConfigState {
                model: Some(m),
                ..Default::default()
            }),
            _ => Ok(ProviderConfigState::default()),
        }
    }
    fn can_restart(&self) -> bool {
        self.behaviour.restartable
    }
    fn shared_death(&self) -> Option<SharedDeath> {
        let (deaths, serial) = self.behaviour.shared.as_ref()?;
        Some(SharedDeath {
            deaths: deaths.clone(),
            serial: serial.load(Ordering::SeqCst),
        })
    }
    async fn restart(&mut self, sink: SessionSink) -> Result<Restarted, ProviderError> {
        self.log("restart".into());
        if self.behaviour.failing_restarts > 0 {
            self.behaviour.failing_restarts -= 1;
            return Err(
                ProviderError::new("No conversation found").with_code(ErrorCode::SessionNotFound)
            );
        }
        self.native_turn = None;
        if self.behaviour.notice_on_restart {
            let notice = ProviderNotice {
                id: "fresh".into(),
                severity: Severity::Warning,
                title: "a new conversation".into(),
                description: None,
                dismissed: None,
            };
            sink.send(AgentEvent::Notice(notice)).await;
        }
        let _ = self.sinks.send((self.session_id.clone(), sink.clone()));
        self.sink = Some(sink);
        if self.behaviour.fresh_restarts {
            return Ok(Restarted::Fresh {
                reason: "No conversation found".into(),
            });
        }
        Ok(Restarted::Resumed)
    }
    async fn close(&mut self) {
        self.log("close".into());
    }
}

/// An in-process bridge with the fake provider, driven over a duplex pipe.
pub struct Host {
    pub to_bridge: DuplexStream,
    pub from_bridge: Lines<BufReader<DuplexStream>>,
    pub sinks: mpsc::UnboundedReceiver<(String, SessionSink)>,
    pub calls: Arc<Mutex<Vec<String>>>,
    pub seen: Vec<Value>,
    next_id: u64,
}

impl Host {
    pub async fn start(behaviour: Behaviour) -> Host {
        let (sinks_tx, sinks) = mpsc::unbounded_channel();
        let calls = Arc::new(Mutex::new(Vec::new()));
        let provider = FakeProvider {
            behaviour,
            sinks: sinks_tx,
            calls: calls.clone(),
        };
        let manifest = agent_bridge_core::registry::ProviderManifest {
            id: "fake".into(),
            label: "Fake".into(),
            description: None,
            agent: "fake".into(),
            command: vec![],
            env: Default::default(),
            options: Default::default(),
            capabilities: None,
            icon: None,
        };
        let entry = Arc::new(ProviderEntry::new(&manifest, None, Arc::new(provider)));
        assert_eq!(entry.command, LaunchOverride::default());
        let config = ServerConfig {
            name: "test".into(),
            version: "0".into(),
            plugin_dir: std::env::temp_dir(),
            providers: vec![entry],
            spares: agent_bridge_core::spares::Spares::from_env(),
        };
        let (host_in, bridge_out) = tokio::io::duplex(1 << 20);
        let (bridge_in, host_out) = tokio::io::duplex(1 << 20);
        tokio::spawn(serve(
            config,
            bridge_in,
            bridge_out,
            tokio_util::sync::CancellationToken::new(),
        ));
        let mut host = Host {
            to_bridge: host_out,
            from_bridge: BufReader::new(host_in).lines(),
            sinks,
            calls,
            seen: vec![],
            next_id: 1,
        };
        host.request(
            "initialize",
            json!({"apiVersion": 1, "host": {"name": "core-tests", "version": "0"}}),
        )
        .await;
        let r = host.request("provider/connect", json!({"providerId": "fake", "request": {"versions": [1],
            "capabilities": ["prompt.message", "prompt.steer", "session.configure", "session.list", "permission"]}})).await;
        assert_eq!(r["result"]["connectionId"], "c1");
        host
    }

    /// Waits (up to 10 s) until the fake provider logged `entry`: the point a test needs the
    /// agent to have reached, instead of a guessed sleep.
    pub async fn reached(&self, entry: &str) {
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
        while !self.calls.lock().unwrap().iter().any(|c| c == entry) {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the fake never logged {entry:?}: {:?}",
                self.calls.lock().unwrap()
            );
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        }
    }

    pub async fn line(&mut self, v: Value) {
        self.to_bridge
            .write_all(format!("{v}\n").as_bytes())
            .await
            .unwrap();
    }

    /// Sends a request and returns its response (events read meanwhile are kept in `seen`).
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.line(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let v = self.read().await;
            if v["id"] == json!(id) {
                return v;
            }
            self.seen.push(v);
        }
    }

    /// Sends several `provider/send` requests in one write (so the bridge admits them all
    /// before a session actor runs again) and returns their responses.
    pub async fn send_all(&mut self, inputs: &[Value]) -> Vec<Value> {
        let mut ids = vec![];
        let mut text = String::new();
        for input in inputs {
            let id = self.next_id;
            self.next_id += 1;
            ids.push(json!(id));
            let line = json!({"jsonrpc": "2.0", "id": id, "method": "provider/send",
                "params": {"connectionId": "c1", "input": input}});
            text.push_str(&format!("{line}\n"));
        }
        self.to_bridge.write_all(text.as_bytes()).await.unwrap();
        let mut answers = vec![Value::Null; ids.len()];
        let mut missing = ids.len();
        while missing > 0 {
            let v = self.read().await;
            match ids
                .iter()
                .position(|id| v["id"] == *id && v.get("method").is_none())
            {
                Some(i) => {
                    answers[i] = v;
                    missing -= 1;
                }
                None => self.seen.push(v),
            }
        }
        answers
    }

    pub async fn send(&mut self, input: Value) -> Value {
        self.request(
            "provider/send",
            json!({"connectionId": "c1", "input": input}),
        )
        .await
    }

    async fn read(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(120), self.from_bridge.next_line())
            .await
            .expect("bridge went silent")
            .unwrap()
            .expect("bridge closed");
        serde_json::from_str(&line).unwrap()
    }

    /// Next event (from `seen` first), skipping responses.
    pub async fn event(&mut self) -> Value {
        loop {
            let v = if self.seen.is_empty() {
                self.read().await
            } else {
                self.seen.remove(0)
            };
            if v["method"] == "provider/event" {
                return v["params"]["event"].clone();
            }
        }
    }

    /// Reads events until one of `kind` arrives; returns every event read, that one last.
    pub async fn until(&mut self, kind: &str) -> Vec<Value> {
        let mut out = vec![];
        loop {
            let e = self.event().await;
            let done = e["type"] == kind;
            out.push(e);
            if done {
                return out;
            }
        }
    }

    pub async fn open(&mut self, session_id: &str) -> SessionSink {
        let r = self.send(json!({"type": "session.open", "requestId": format!("open-{session_id}"), "sessionId": session_id,
            "config": {"cwd": "/", "env": {}, "mcpServers": {}, "persist": false}, "history": "skip"})).await;
        assert_eq!(r["result"], Value::Null, "{r}");
        self.until("session.ready").await;
        self.sinks.recv().await.expect("sink").1
    }

    pub async fn prompt(
        &mut self,
        session_id: &str,
        cmid: &str,
        text: &str,
        delivery: &str,
    ) -> Value {
        self.send(prompt_input(session_id, cmid, text, delivery))
            .await
    }
}

/// A `session.prompt` input with a text message.
pub fn prompt_input(session_id: &str, cmid: &str, text: &str, delivery: &str) -> Value {
    json!({"type": "session.prompt", "sessionId": session_id, "prompt": {"clientMessageId": cmid,
        "delivery": delivery, "input": {"type": "message", "content": [{"type": "text", "text": text}]}}})
}

pub fn kinds(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| e["type"].as_str().unwrap_or("?").to_string())
        .collect()
}
