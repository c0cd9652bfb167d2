//! The stdout handler of one Claude Code process (the core peer's [`Inbound`]): answers the
//! CLI's control requests (the peer routes control responses), feeds everything else to the normalizer, decides when a turn ends, and
//! reports the process dying.
//!
//! Events go straight into the session's bounded [`SessionSink`]: a slow host slows the reader
//! (and so the CLI, through its stdout pipe) down instead of growing a queue. This cannot
//! deadlock: control responses are routed to their waiters by the peer's reader, never through
//! the sink, and the core keeps draining the sink while a session method waits on one. Once the
//! runtime shuts down, a send waiting on a full sink is abandoned. A spare process (see
//! [`crate::warm`]) has no sink until a session takes it; its events are dropped until then.

use crate::control::ControlChannel;
use crate::normalize::NormEvent;
use crate::session::Shared;
use crate::{permissions, wire};
use agent_bridge_core::agent_process::ExitInfo;
use agent_bridge_core::rpc::{Inbound, IncomingRequest, PeerHandle};
use agent_bridge_core::{AgentEvent, ChildSession, SessionSink, TurnOutcome};
use agent_bridge_protocol::ErrorCode;
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
    pub events: EventTarget,
    /// Watches the transcript after a run ends (see [`crate::saved`]).
    pub save: crate::saved::SaveWatch,
    /// Becomes true when the runtime shuts down: pending events are dropped then.
    pub stop: watch::Receiver<bool>,
}

#[async_trait::async_trait]
impl Inbound for Reader {
    async fn notification(&self, peer: &PeerHandle, method: String, params: Value) {
        let (events, interrupt) = self.handle_message(&method, params);
        if interrupt {
            // Input queued for a turn the user interrupted: stop its run too.
            let channel = ControlChannel::new(peer.clone());
            if let Err(e) = channel.send(json!({"subtype": "interrupt"})).await {
                tracing::warn!("could not interrupt a queued run: {e}");
            }
        }
        for ev in events {
            self.report(ev).await;
        }
        self.save.start_if_needed();
    }

    async fn request(&self, _peer: &PeerHandle, request: IncomingRequest) {
        let IncomingRequest {
            id,
            params,
            responder,
            ..
        } = request;
        let request_id = match &id {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let req = wire::ControlRequest {
            request_id: request_id.clone(),
            request: match params {
                Value::Object(m) => m,
                _ => serde_json::Map::new(),
            },
        };
        if let Some((request, pending)) = permissions::asked_by(&req) {
            // Answered when the user decides (a line written by the session).
            let _ = responder.detach();
            if let Ok(mut s) = self.shared.lock() {
                s.permissions.insert(request_id, pending);
            }
            self.report(AgentEvent::Permission(request)).await;
            return;
        }
        let answer = crate::control::reply_to(&req).map_err(|message| {
            agent_bridge_core::rpc::rpc_error(crate::dialect::CONTROL_ERROR, message)
        });
        responder.respond(answer).await;
    }

    async fn closed(&self, _peer: &PeerHandle, exit: Option<ExitInfo>) {
        let closing = self.shared.lock().map(|s| s.closing).unwrap_or(true);
        if closing || exit.as_ref().is_some_and(|e| e.expected) {
            return;
        }
        // The CLI died on its own (the process owner already stopped its group): report it.
        if let Ok(mut s) = self.shared.lock() {
            s.dead = true;
            s.turn = None;
            s.permissions.clear();
        }
        let error = match exit {
            Some(exit) => exit.error(LABEL),
            None => ProviderError::new(format!("{LABEL} closed its output unexpectedly"))
                .with_code(ErrorCode::RuntimeExited),
        };
        self.report(AgentEvent::RuntimeFailed(error)).await;
    }
}

/// Names the CLI in errors.
pub const LABEL: &str = "Claude Code";

impl Reader {
    /// Sends one event into the bounded sink, waiting while it is full, unless the runtime is
    /// shutting down (nobody will read it then).
    async fn report(&self, event: AgentEvent) {
        if *self.stop.borrow() {
            return;
        }
        let mut stop = self.stop.clone();
        tokio::select! {
            biased;
            _ = self.events.send(event) => {}
            _ = stop.wait_for(|s| *s) => {}
        }
    }

    /// Handles one stdout line (a notification of the control dialect); returns what to
    /// report, and whether a queued run must be interrupted.
    pub fn handle_message(&self, method: &str, line: Value) -> (Vec<AgentEvent>, bool) {
        let msg = match serde_json::from_value::<wire::CliMessage>(line) {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!("unparsable `{method}` line from claude: {e}");
                return (Vec::new(), false);
            }
        };
        match msg {
            wire::CliMessage::ControlCancelRequest { request_id } => {
                let removed = self
                    .shared
                    .lock()
                    .ok()
                    .and_then(|mut s| s.permissions.remove(&request_id));
                match removed {
                    Some(_) => (
                        vec![AgentEvent::PermissionResolved {
                            permission_id: request_id,
                        }],
                        false,
                    ),
                    None => (Vec::new(), false),
                }
            }
            // The dialect routes these as answers and requests; never here.
            wire::CliMessage::ControlResponse(_) | wire::CliMessage::ControlRequest(_) => {
                (Vec::new(), false)
            }
            other => {
                let Ok(mut s) = self.shared.lock() else {
                    return (Vec::new(), false);
                };
                note_entry(&mut s, &other);
                let events = s.normalizer.handle(&other);
                let mut interrupt = false;
                let out = events
                    .into_iter()
                    .flat_map(|e| self.translate(&mut s, e, &mut interrupt))
                    .collect();
                (out, interrupt)
            }
        }
    }

    fn translate(&self, s: &mut Shared, event: NormEvent, interrupt: &mut bool) -> Vec<AgentEvent> {
        match event {
            NormEvent::Item(item) => vec![AgentEvent::Item(item)],
            NormEvent::Notice(notice) => vec![AgentEvent::Notice(notice)],
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
                    if s.transcript_saved {
                        out.push(AgentEvent::Persistence(persistence(
                            &info.session_id,
                            &s.cwd,
                        )));
                    } else {
                        s.persistence_held = true;
                    }
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
            NormEvent::CommandsChanged(list) => {
                crate::commands::replace(s, list).into_iter().collect()
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
                    s.normalizer.set_interrupted();
                    *interrupt = true;
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
                // A run ended; the CLI writes its entries to the transcript a moment later. A
                // held handle (and the end of a rewind's `resumeAt`) waits until they are on
                // disk (see `crate::saved`).
                if !s.transcript_saved || s.persistence_held || s.rewound_at.is_some() {
                    s.awaiting_save = Some(crate::saved::AwaitedEntry(s.last_entry.clone()));
                }
                let mut out = Vec::new();
                out.push(AgentEvent::Usage {
                    turn_id: s.turn.as_ref().map(|t| t.id.clone()),
                    usage,
                });
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

/// Notes the uuid of a main-chain entry (a sub-agent's lines go to its own file).
fn note_entry(s: &mut Shared, message: &wire::CliMessage) {
    let uuid = match message {
        wire::CliMessage::Assistant(a) if a.parent_tool_use_id.is_none() => a.uuid.as_ref(),
        wire::CliMessage::User(u) if u.parent_tool_use_id.is_none() => u.uuid.as_ref(),
        _ => None,
    };
    if let Some(uuid) = uuid.filter(|u| !u.is_empty()) {
        s.last_entry = Some(uuid.clone());
    }
}

/// The persistence handle of a native session.
pub fn persistence(session_id: &str, cwd: &str) -> ProviderPersistence {
    persistence_at(session_id, cwd, None)
}

/// The handle of a native session rewound to `resume_at` (see [`crate::rewind`]).
pub fn persistence_at(session_id: &str, cwd: &str, resume_at: Option<&str>) -> ProviderPersistence {
    let mut data = json!({"sessionId": session_id, "cwd": cwd});
    if let Some(at) = resume_at {
        data["resumeAt"] = json!(at);
    }
    ProviderPersistence { version: 1, data }
}
