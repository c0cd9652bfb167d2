//! The session's [`Inbound`]: the core peer's reader task hands it the agent's
//! `session/update` notifications and `session/request_permission` requests in order; it
//! turns them into [`AgentEvent`]s and sends them into the session's bounded sink, awaiting
//! room (backpressure on the agent through its stdout pipe). `fs/*` and `terminal/*` are not
//! advertised, so they get the peer's default refusal.
//!
//! While a `session/load` replays history (`replaying`), timeline items are kept for the
//! open (replayed before `session.ready`, or dropped with `history: "skip"`); while a restarted
//! agent restores its session (`restoring`) they are dropped: the timeline already has them.

use crate::config::AcpConfig;
use crate::normalize::Normalizer;
use crate::permission::{self, Pending};
use crate::wire::{method, PermissionParams, UpdateParams};
use agent_bridge_core::agent_process::ExitInfo;
use agent_bridge_core::rpc::{Inbound, IncomingRequest, PeerHandle};
use agent_bridge_core::{AgentEvent, SessionSink};
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{ProviderError, TimelineItem};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

/// State shared by the session methods, the turn task and the reader.
#[derive(Debug, Default)]
pub struct Shared {
    pub normalizer: Normalizer,
    pub config: AcpConfig,
    /// Permission id -> the agent request waiting for it.
    pub pending: HashMap<String, Pending>,
    /// Items of a `session/load` replay, in order (latest snapshot per id).
    pub replay: Vec<TimelineItem>,
    pub replaying: bool,
    /// A restarted agent is bringing its native session back ([`crate::restart`]): what it
    /// sends meanwhile (a `session/load` replay of items already shown, usage) is dropped;
    /// config changes are recorded, not reported.
    pub restoring: bool,
    /// Times the agent process was restarted.
    pub restarts: u32,
    pub title: Option<String>,
    /// The session exists (open succeeded): an exit from now on is a runtime failure.
    pub live: bool,
    /// The session is closing (or dropped): the exit is expected.
    pub closing: bool,
    /// Every agent method and update kind seen (logged at close, for the per-agent report).
    pub seen: BTreeSet<String>,
}

pub type SharedState = Arc<Mutex<Shared>>;

pub fn lock(shared: &SharedState) -> MutexGuard<'_, Shared> {
    // A poisoned lock only means a panic elsewhere; the state itself stays usable.
    shared.lock().unwrap_or_else(|p| p.into_inner())
}

/// Sends a session's agent messages into its sink.
pub struct SessionInbound {
    shared: SharedState,
    sink: SessionSink,
    label: String,
}

impl SessionInbound {
    pub fn new(shared: SharedState, sink: SessionSink, label: &str) -> Self {
        Self {
            shared,
            sink,
            label: label.to_string(),
        }
    }

    async fn send(&self, events: Vec<AgentEvent>) {
        for ev in events {
            if !self.sink.send(ev).await {
                return;
            }
        }
    }
}

/// Applies one `session/update` to the shared state; returns the events to send.
pub fn update(shared: &SharedState, params: Value) -> Vec<AgentEvent> {
    let params: UpdateParams = match serde_json::from_value(params) {
        Ok(p) => p,
        Err(e) => {
            tracing::warn!("unreadable session/update ignored: {e}");
            return Vec::new();
        }
    };
    let mut s = lock(shared);
    if let Some(kind) = params.update.get("sessionUpdate").and_then(Value::as_str) {
        s.seen.insert(format!("update {kind}"));
    }
    let out = s.normalizer.update(params.update);
    let mut events = Vec::new();
    if let Some(change) = out.config {
        s.config.apply_update(change);
        if !s.restoring {
            events.push(AgentEvent::Config(s.config.state()));
        }
    }
    if let Some(title) = out.title {
        s.title = Some(title);
    }
    for ev in out.events {
        match ev {
            AgentEvent::Item(_) | AgentEvent::Usage { .. } if s.restoring => {}
            AgentEvent::Item(item) if s.replaying => {
                match s.replay.iter_mut().find(|i| i.id == item.id) {
                    Some(slot) => *slot = item,
                    None => s.replay.push(item),
                }
            }
            ev => events.push(ev),
        }
    }
    events
}

#[async_trait::async_trait]
impl Inbound for SessionInbound {
    async fn notification(&self, _peer: &PeerHandle, m: String, params: Value) {
        lock(&self.shared).seen.insert(format!("notification {m}"));
        if m != method::SESSION_UPDATE {
            tracing::debug!(method = %m, "ACP notification ignored");
            return;
        }
        let events = update(&self.shared, params);
        self.send(events).await;
    }

    async fn request(&self, peer: &PeerHandle, request: IncomingRequest) {
        lock(&self.shared)
            .seen
            .insert(format!("request {}", request.method));
        if request.method != method::REQUEST_PERMISSION {
            tracing::info!(method = %request.method, "ACP agent request not served; refused");
            let refuse = DefaultRefusal;
            refuse.request(peer, request).await;
            return;
        }
        let IncomingRequest {
            id,
            params,
            responder,
            ..
        } = request;
        let params: PermissionParams = match serde_json::from_value(params) {
            Ok(p) => p,
            Err(e) => {
                let error = agent_bridge_core::rpc::rpc_error(
                    -32602,
                    format!("unreadable session/request_permission params: {e}"),
                );
                responder.respond(Err(error)).await;
                return;
            }
        };
        let (item, event, permission) = {
            let mut s = lock(&self.shared);
            let (snapshot, item) = s.normalizer.permission_tool(&params.tool_call);
            let req = permission::request(&params, &id, &snapshot, s.restarts);
            let pending = Pending {
                rpc_id: id.clone(),
                options: params.options.clone(),
                tool_call_id: snapshot.tool_call_id.clone(),
                turn_id: s.normalizer.active_turn().map(str::to_string),
            };
            // Answered later (by id) when the user decides, or cancelled with the turn.
            let _ = responder.detach();
            s.pending.insert(req.id.clone(), pending);
            (item, AgentEvent::Permission(req.clone()), req)
        };
        tracing::debug!(permission = %permission.id, "ACP permission request");
        self.send(vec![item, event]).await;
    }

    async fn closed(&self, _peer: &PeerHandle, exit: Option<ExitInfo>) {
        let expected = {
            let s = lock(&self.shared);
            !s.live || s.closing
        };
        if expected || exit.as_ref().is_some_and(|e| e.expected) {
            return;
        }
        let error = match exit {
            Some(exit) => exit.error(&self.label),
            None => ProviderError::new(format!("{} closed its output unexpectedly", self.label))
                .with_code(ErrorCode::RuntimeExited),
        };
        self.send(vec![AgentEvent::RuntimeFailed(error)]).await;
    }
}

/// The peer's default handling (refuse with -32601), for requests the session does not serve.
struct DefaultRefusal;

#[async_trait::async_trait]
impl Inbound for DefaultRefusal {
    async fn notification(&self, _peer: &PeerHandle, _method: String, _params: Value) {}
}

/// For short-lived agents (catalog, session list): drops notifications; requests get the
/// peer's default refusal.
#[derive(Debug, Default, Clone, Copy)]
pub struct Discard;

#[async_trait::async_trait]
impl Inbound for Discard {
    async fn notification(&self, _peer: &PeerHandle, m: String, _params: Value) {
        tracing::debug!(method = %m, "ACP notification ignored (no session)");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::tests::fixture;
    use agent_bridge_core::rpc::{Dialect, Incoming, JsonRpc};
    use pretty_assertions::assert_eq;

    /// The events of every `session/update` of a recorded `session/load`, fed with the state
    /// `prepare` sets.
    fn replayed(agent: &str, prepare: impl Fn(&mut Shared)) -> (Vec<AgentEvent>, SharedState) {
        let shared = SharedState::default();
        prepare(&mut lock(&shared));
        let mut events = Vec::new();
        for line in fixture(agent, "load-session").lines() {
            if let Ok(Incoming::Notification { method: m, params }) = JsonRpc::v2().decode(line) {
                if m == method::SESSION_UPDATE {
                    events.extend(update(&shared, params));
                }
            }
        }
        (events, shared)
    }

    #[test]
    fn a_restored_sessions_replay_adds_no_item() {
        for agent in ["opencode", "qwen", "claude-agent-acp", "codex-acp"] {
            let (_, opened) = replayed(agent, |s| s.replaying = true);
            assert!(
                !lock(&opened).replay.is_empty(),
                "{agent}: a replay to drop"
            );
            let (events, restored) = replayed(agent, |s| s.restoring = true);
            let reported: Vec<String> = events
                .iter()
                .filter(|e| {
                    matches!(
                        e,
                        AgentEvent::Item(_) | AgentEvent::Usage { .. } | AgentEvent::Config(_)
                    )
                })
                .map(|e| format!("{e:?}"))
                .collect();
            assert_eq!(reported, Vec::<String>::new(), "{agent}");
            assert!(lock(&restored).replay.is_empty(), "{agent}");
        }
    }
}
