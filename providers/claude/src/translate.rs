//! What one Claude Code process says, as events: the core's inbound driver hands
//! [`ClaudeTranslator`] every stdout line of the control dialect; control requests are
//! answered (or kept waiting for the user: permissions), everything else goes through the
//! normalizer, and the translator decides when a turn ends. [`translate_line`] is the pure
//! part (state × line → events), which the fuzz target calls as the reader does.
//!
//! Events go straight into the session's bounded sink: a slow host slows the reader (and so
//! the CLI, through its stdout pipe) down instead of growing a queue. This cannot deadlock:
//! control responses are routed to their waiters by the peer's reader, never through the
//! sink, and the core keeps draining the sink while a session method waits on one. A spare
//! process (see [`crate::warm`]) has no sink until a session takes it; its events are dropped
//! until then.

use crate::control::ControlChannel;
use crate::normalize::NormEvent;
use crate::state::persistence;
use crate::state::SessionState;
use crate::{permissions, wire};
use agent_bridge_core::lifecycle::{lock, SharedState, Translator};
use agent_bridge_core::rpc::{IncomingRequest, PeerHandle};
use agent_bridge_core::{AgentEvent, ChildSession, TurnOutcome};
use serde_json::{json, Value};

/// Names the CLI in errors.
pub const LABEL: &str = "Claude Code";

/// The translator of one process's stdout.
pub struct ClaudeTranslator {
    pub shared: SharedState<SessionState>,
    /// Watches the transcript after a run ends (see [`crate::saved`]).
    pub save: crate::saved::SaveWatch,
}

#[async_trait::async_trait]
impl Translator for ClaudeTranslator {
    async fn notification(
        &self,
        peer: &PeerHandle,
        method: String,
        params: Value,
    ) -> Vec<AgentEvent> {
        let (events, interrupt) = translate_line(&mut lock(&self.shared), &method, params);
        if interrupt {
            // Input queued for a turn the user interrupted: stop its run too.
            let channel = ControlChannel::new(peer.clone());
            if let Err(e) = channel.send(json!({"subtype": "interrupt"})).await {
                tracing::warn!("could not interrupt a queued run: {e}");
            }
        }
        self.save.start_if_needed();
        events
    }

    async fn request(&self, _peer: &PeerHandle, request: IncomingRequest) -> Vec<AgentEvent> {
        let IncomingRequest {
            id,
            params,
            responder,
            ..
        } = request;
        let req = control_request(&id, params);
        if let Some(event) = ask_user(&mut lock(&self.shared), &req) {
            // Answered when the user decides (a line written by the session).
            let _ = responder.detach();
            return vec![event];
        }
        let answer = crate::control::reply_to(&req).map_err(|message| {
            agent_bridge_core::rpc::rpc_error(crate::dialect::CONTROL_ERROR, message)
        });
        responder.respond(answer).await;
        Vec::new()
    }

    fn ended(&self) {
        // The CLI died on its own: what only it could answer is gone.
        let mut s = lock(&self.shared);
        s.dead = true;
        s.turn = None;
        s.permissions.clear();
    }
}

/// A control request of the CLI as the wire type.
pub fn control_request(id: &Value, params: Value) -> wire::ControlRequest {
    wire::ControlRequest {
        request_id: match id {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        },
        request: match params {
            Value::Object(m) => m,
            _ => serde_json::Map::new(),
        },
    }
}

/// A control request that waits for the user (a tool permission, a question, an MCP
/// elicitation): recorded as pending in the running turn; the permission event to publish.
pub fn ask_user(s: &mut SessionState, req: &wire::ControlRequest) -> Option<AgentEvent> {
    let (request, pending) = permissions::asked_by(req)?;
    let turn = s.turn.as_ref().map(|t| t.id.clone());
    s.permissions.insert(req.request_id.clone(), pending, turn);
    Some(AgentEvent::Permission(request))
}

/// Translates one stdout line (a notification of the control dialect): returns what to
/// report, and whether a queued run must be interrupted.
pub fn translate_line(s: &mut SessionState, method: &str, line: Value) -> (Vec<AgentEvent>, bool) {
    let msg = match serde_json::from_value::<wire::CliMessage>(line) {
        Ok(m) => m,
        Err(e) => {
            tracing::warn!("unparsable `{method}` line from claude: {e}");
            return (Vec::new(), false);
        }
    };
    match msg {
        wire::CliMessage::ControlCancelRequest { request_id } => {
            match s.permissions.take(&request_id) {
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
            note_entry(s, &other);
            let events = s.normalizer.handle(&other);
            let mut interrupt = false;
            let out = events
                .into_iter()
                .flat_map(|e| translate(s, e, &mut interrupt))
                .collect();
            (out, interrupt)
        }
    }
}

fn translate(s: &mut SessionState, event: NormEvent, interrupt: &mut bool) -> Vec<AgentEvent> {
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
        NormEvent::CommandsChanged(list) => crate::commands::replace(s, list).into_iter().collect(),
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
        NormEvent::RunEnded {
            outcome,
            usage,
            structured,
        } => {
            // A run ended; the CLI writes its entries to the transcript a moment later. A
            // held handle (and the end of a rewind's `resumeAt`) waits until they are on
            // disk (see `crate::saved`).
            if !s.transcript_saved || s.persistence_held || s.rewound_at.is_some() {
                s.awaiting_save = Some(crate::state::AwaitedEntry(s.last_entry.clone()));
            }
            let mut out = Vec::new();
            out.push(AgentEvent::Usage {
                turn_id: s.turn.as_ref().map(|t| t.id.clone()),
                usage,
            });
            let Some(turn) = s.turn.as_ref() else {
                return out;
            };
            let ends =
                turn.interrupted || turn.any_result_ends || turn.pending.is_empty() || !s.echo_seen;
            if !ends {
                // A steer the CLI queued behind this run is still to come.
                return out;
            }
            let outcome = if turn.interrupted {
                TurnOutcome::Canceled
            } else if s.output_schema
                && structured.is_none()
                && matches!(outcome, TurnOutcome::Completed)
            {
                TurnOutcome::Failed(crate::session::output_schema::no_structured_output())
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

/// Notes the uuid of a main-chain entry (a sub-agent's lines go to its own file).
fn note_entry(s: &mut SessionState, message: &wire::CliMessage) {
    let uuid = match message {
        wire::CliMessage::Assistant(a) if a.parent_tool_use_id.is_none() => a.uuid.as_ref(),
        wire::CliMessage::User(u) if u.parent_tool_use_id.is_none() => u.uuid.as_ref(),
        _ => None,
    };
    if let Some(uuid) = uuid.filter(|u| !u.is_empty()) {
        s.last_entry = Some(uuid.clone());
    }
}
