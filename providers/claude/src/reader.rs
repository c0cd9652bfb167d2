//! The stdout reader of one Claude Code process: answers the CLI's control requests, routes
//! control responses, feeds everything else to the normalizer, decides when a turn ends, and
//! reports the process dying.
//!
//! Events go straight into the session's bounded [`SessionSink`]: a slow host slows the reader
//! (and so the CLI, through its stdout pipe) down instead of growing a queue. This cannot
//! deadlock: control responses are routed to their waiters by the reader itself, never through
//! the sink, and the core keeps draining the sink while a session method waits on one. Once the
//! runtime shuts down, a send waiting on a full sink is abandoned. A spare process (see
//! [`crate::warm`]) has no sink until a session takes it; its events are dropped until then.

use crate::control::ControlChannel;
use crate::normalize::NormEvent;
use crate::session::Shared;
use crate::{permissions, wire};
use agent_bridge_core::codec::Line;
use agent_bridge_core::supervisor::{ManagedChild, StdoutLines};
use agent_bridge_core::{AgentEvent, ChildSession, SessionSink, TurnOutcome};
use agent_bridge_protocol::{ProviderError, ProviderPersistence};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use tokio::sync::watch;

/// Where a runtime's events go: the session's bounded sink, or nowhere while the process is a
/// spare that belongs to no session yet.
#[derive(Debug, Clone, Default)]
pub struct EventTarget(Arc<Mutex<Option<SessionSink>>>);

impl EventTarget {
    pub fn new(sink: Option<SessionSink>) -> Self {
        EventTarget(Arc::new(Mutex::new(sink)))
    }

    /// Binds the runtime to a session (a spare being taken).
    pub fn attach(&self, sink: SessionSink) {
        if let Ok(mut s) = self.0.lock() {
            *s = Some(sink);
        }
    }

    /// The session's sink, once there is one.
    pub fn sink(&self) -> Option<SessionSink> {
        self.0.lock().ok().and_then(|s| s.clone())
    }

    /// Sends one event, waiting while the sink is full; dropped when no session is attached.
    pub async fn send(&self, event: AgentEvent) -> bool {
        match self.sink() {
            Some(sink) => sink.send(event).await,
            None => {
                tracing::debug!("event of an unattached claude process dropped");
                false
            }
        }
    }
}

pub struct Reader {
    pub shared: Arc<Mutex<Shared>>,
    pub channel: ControlChannel,
    pub events: EventTarget,
    /// Becomes true when the runtime shuts down: pending events are dropped then.
    pub stop: watch::Receiver<bool>,
    pub child: Arc<tokio::sync::Mutex<ManagedChild>>,
    pub stderr: agent_bridge_core::supervisor::StderrTail,
}

impl Reader {
    pub async fn run(mut self, mut lines: StdoutLines) {
        while let Some(line) = lines.next_line().await {
            match line {
                Line::Text(text) => {
                    if text.trim().is_empty() {
                        continue;
                    }
                    for ev in self.handle_line(&text) {
                        self.report(ev).await;
                    }
                }
                Line::Oversize { len } => tracing::warn!("skipped a {len}-byte line from claude"),
                Line::InvalidUtf8 => tracing::warn!("skipped a non-UTF-8 line from claude"),
            }
        }
        self.channel.fail_all();
        let closing = self.shared.lock().map(|s| s.closing).unwrap_or(true);
        if closing {
            return;
        }
        // The CLI died on its own: reap it, kill whatever it left in its group, report it.
        let status = {
            let mut child = self.child.lock().await;
            child.kill_now();
            tokio::time::timeout(std::time::Duration::from_secs(2), child.wait())
                .await
                .ok()
                .and_then(Result::ok)
        };
        if let Ok(mut s) = self.shared.lock() {
            s.dead = true;
            s.turn = None;
            s.permissions.clear();
        }
        let exit = status
            .map(|s| s.to_string())
            .unwrap_or_else(|| "unknown exit status".into());
        let error = ProviderError::new(format!("Claude Code exited unexpectedly ({exit})"))
            .with_code("runtime_exited")
            .with_diagnostic(self.stderr.text());
        self.report(AgentEvent::RuntimeFailed(error)).await;
    }

    /// Sends one event into the bounded sink, waiting while it is full, unless the runtime is
    /// shutting down (nobody will read it then).
    async fn report(&mut self, event: AgentEvent) {
        if *self.stop.borrow() {
            return;
        }
        let events = &self.events;
        let stop = &mut self.stop;
        tokio::select! {
            biased;
            _ = events.send(event) => {}
            _ = stop.wait_for(|s| *s) => {}
        }
    }

    /// Handles one stdout line; returns what to report.
    pub fn handle_line(&self, text: &str) -> Vec<AgentEvent> {
        let msg = match wire::CliMessage::parse(text) {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!("unparsable line from claude ({e}): {text:.200}");
                return Vec::new();
            }
        };
        match msg {
            wire::CliMessage::ControlResponse(env) => {
                let body = env.response;
                let result = if body.subtype == "success" {
                    Ok(body.response.unwrap_or(Value::Null))
                } else {
                    Err(body
                        .error
                        .unwrap_or_else(|| "control request failed".into()))
                };
                if !self.channel.resolve(&body.request_id, result.clone()) {
                    if let Err(e) = result {
                        tracing::warn!(request = %body.request_id, "claude refused a control request: {e}");
                    }
                }
                Vec::new()
            }
            wire::CliMessage::ControlRequest(req) => self.control_request(req),
            wire::CliMessage::ControlCancelRequest { request_id } => {
                let removed = self
                    .shared
                    .lock()
                    .ok()
                    .and_then(|mut s| s.permissions.remove(&request_id));
                match removed {
                    Some(_) => vec![AgentEvent::PermissionResolved {
                        permission_id: request_id,
                    }],
                    None => Vec::new(),
                }
            }
            other => {
                let Ok(mut s) = self.shared.lock() else {
                    return Vec::new();
                };
                let events = s.normalizer.handle(&other);
                events
                    .into_iter()
                    .flat_map(|e| self.translate(&mut s, e))
                    .collect()
            }
        }
    }

    fn control_request(&self, req: wire::ControlRequest) -> Vec<AgentEvent> {
        if req.subtype() == "can_use_tool" {
            let (request, pending) = permissions::from_can_use_tool(&req);
            if let Ok(mut s) = self.shared.lock() {
                s.permissions.insert(req.request_id.clone(), pending);
            }
            return vec![AgentEvent::Permission(request)];
        }
        if let Err(e) = self.channel.write(crate::control::reply_to(&req)) {
            tracing::warn!("could not answer a claude control request: {e}");
        }
        Vec::new()
    }

    fn translate(&self, s: &mut Shared, event: NormEvent) -> Vec<AgentEvent> {
        match event {
            NormEvent::Item(item) => vec![AgentEvent::Item(item)],
            NormEvent::ChildItem {
                child_session_id,
                item,
            } => vec![AgentEvent::ChildItem {
                child_session_id,
                item,
            }],
            NormEvent::ChildOpened {
                child_session_id,
                title,
                description,
            } => vec![AgentEvent::ChildOpened(ChildSession {
                session_id: child_session_id,
                title,
                description,
                cwd: s.cwd.clone(),
                items: Vec::new(),
            })],
            NormEvent::Init(info) => {
                let mut out = Vec::new();
                if !info.session_id.is_empty()
                    && s.native_session_id.as_deref() != Some(info.session_id.as_str())
                {
                    s.native_session_id = Some(info.session_id.clone());
                    out.push(AgentEvent::Persistence(persistence(
                        &info.session_id,
                        &s.cwd,
                    )));
                }
                let before = s.config_state();
                if let Some(model) = &info.model {
                    s.config.model = crate::catalog::catalog_model_id(
                        &s.config.models,
                        model,
                        Some(&s.config.model),
                    );
                }
                if let Some(mode) = info.permission_mode {
                    s.config.mode = mode;
                }
                let after = s.config_state();
                if after != before && !s.configuring {
                    out.push(AgentEvent::Config(after));
                }
                out
            }
            NormEvent::ModeChanged(mode) => {
                if s.config.mode == mode {
                    return Vec::new();
                }
                s.config.mode = mode;
                if s.configuring {
                    return Vec::new();
                }
                vec![AgentEvent::Config(s.config_state())]
            }
            NormEvent::Echo { uuid } => {
                s.echo_seen = true;
                if let Some(turn) = s.turn.as_mut() {
                    turn.pending.remove(&uuid);
                }
                if s.canceled_inputs.remove(&uuid) {
                    // Input queued for a turn the user interrupted: stop its run too.
                    s.normalizer.set_interrupted();
                    if let Err(e) = self.channel.send(json!({"subtype": "interrupt"})) {
                        tracing::warn!("could not interrupt a queued run: {e}");
                    }
                }
                Vec::new()
            }
            NormEvent::Usage(usage) => {
                vec![AgentEvent::Usage {
                    turn_id: s.turn.as_ref().map(|t| t.id.clone()),
                    usage,
                }]
            }
            NormEvent::RunEnded { outcome, usage } => {
                let mut out = vec![AgentEvent::Usage {
                    turn_id: s.turn.as_ref().map(|t| t.id.clone()),
                    usage,
                }];
                let Some(turn) = s.turn.as_ref() else {
                    return out;
                };
                let ends = turn.interrupted
                    || turn.any_result_ends
                    || turn.pending.is_empty()
                    || !s.echo_seen;
                if !ends {
                    // A steer the CLI queued behind this run is still to come.
                    return out;
                }
                let outcome = if turn.interrupted {
                    TurnOutcome::Canceled
                } else {
                    outcome
                };
                if let Some(turn) = s.turn.take() {
                    if turn.interrupted {
                        s.canceled_inputs.extend(turn.pending);
                    }
                    out.push(AgentEvent::TurnEnded {
                        turn_id: turn.id,
                        outcome,
                    });
                }
                out
            }
        }
    }
}

/// The persistence handle of a native session.
pub fn persistence(session_id: &str, cwd: &str) -> ProviderPersistence {
    ProviderPersistence {
        version: 1,
        data: json!({"sessionId": session_id, "cwd": cwd}),
    }
}
