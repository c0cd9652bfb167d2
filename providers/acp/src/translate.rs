//! What an ACP agent says, as events: the core's inbound driver hands [`AcpTranslator`] the
//! agent's `session/update` notifications and `session/request_permission` requests in order
//! and sends the events it returns into the session's bounded sink, awaiting room
//! (backpressure on the agent through its stdout pipe). `fs/*` and `terminal/*` are not
//! advertised, so they get the default refusal.
//!
//! While a `session/load` replays history ([`Phase::Replaying`]), timeline items are kept for
//! the open (replayed before `session.ready`, or dropped with `history: "skip"`); while a
//! restarted agent restores its session ([`Phase::Restoring`]) they are dropped: the timeline
//! already has them.

use crate::permissions::{self, Pending};
use crate::state::{lock, Phase, SharedState};
use crate::wire::{method, permission, tool_call, update};
use agent_bridge_core::lifecycle::{EventTarget, InboundDriver, Liveness, RefuseAll, Translator};
use agent_bridge_core::rpc::{Inbound, IncomingRequest, PeerHandle};
use agent_bridge_core::{AgentEvent, SessionSink};
use serde_json::Value;
use std::sync::Arc;

/// Translates a session's agent messages (the core's [`InboundDriver`] sends the events).
pub struct AcpTranslator {
    shared: SharedState,
}

impl AcpTranslator {
    pub fn new(shared: SharedState) -> Self {
        AcpTranslator { shared }
    }

    /// The session's inbound: this translator in the core's driver.
    pub fn inbound(
        shared: SharedState,
        sink: SessionSink,
        liveness: Liveness,
        label: &str,
    ) -> Arc<InboundDriver<AcpTranslator>> {
        Arc::new(InboundDriver::new(
            AcpTranslator { shared },
            EventTarget::new(Some(sink)),
            liveness,
            label,
        ))
    }
}

/// Applies one `session/update` to the shared state; returns the events to send.
pub fn update(shared: &SharedState, mut params: Value) -> Vec<AgentEvent> {
    // Only the payload is read: the session is the process's (or the route's), and a
    // `sessionId` or `_meta` a newer agent shapes differently must not lose the update.
    let payload = match params.get_mut("update") {
        Some(u) if u.is_object() => u.take(),
        _ => {
            tracing::warn!("session/update without an update object ignored");
            return Vec::new();
        }
    };
    let mut s = lock(shared);
    let kind = update::kind(&payload);
    if !kind.is_empty() {
        s.seen.insert(format!("update {kind}"));
    }
    let out = s.normalizer.update(payload);
    let mut events = Vec::new();
    if out.events.iter().any(|e| matches!(e, AgentEvent::Item(_))) {
        events.extend(s.normalizer.model_answered());
        if s.phase == Phase::Live {
            if let Some(answered) = s.turn_answered.take() {
                let _ = answered.send(());
            }
        }
    }
    if let Some(change) = out.config {
        s.config.apply_update(change);
        if s.phase != Phase::Restoring {
            events.push(AgentEvent::Config(s.config.state()));
        }
    }
    if let Some(title) = out.title {
        s.title = Some(title);
    }
    for ev in out.events {
        match ev {
            AgentEvent::Item(_) | AgentEvent::Usage { .. } if s.phase == Phase::Restoring => {}
            AgentEvent::Item(item) if s.phase == Phase::Replaying => {
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
impl Translator for AcpTranslator {
    async fn notification(&self, _peer: &PeerHandle, m: String, params: Value) -> Vec<AgentEvent> {
        lock(&self.shared).seen.insert(format!("notification {m}"));
        if m != method::SESSION_UPDATE {
            tracing::debug!(method = %m, "ACP notification ignored");
            return Vec::new();
        }
        update(&self.shared, params)
    }

    async fn request(&self, peer: &PeerHandle, request: IncomingRequest) -> Vec<AgentEvent> {
        lock(&self.shared)
            .seen
            .insert(format!("request {}", request.method));
        if request.method != method::REQUEST_PERMISSION {
            tracing::info!(method = %request.method, "ACP agent request not served; refused");
            RefuseAll.request(peer, request).await;
            return Vec::new();
        }
        let IncomingRequest {
            id,
            params,
            responder,
            ..
        } = request;
        let params = match permission::read(params) {
            Ok(p) => p,
            Err(e) => {
                let error = agent_bridge_core::rpc::rpc_error(
                    agent_bridge_core::rpc::INVALID_PARAMS,
                    format!("unreadable session/request_permission params: {e}"),
                );
                responder.respond(Err(error)).await;
                return Vec::new();
            }
        };
        let (item, event, permission) = {
            let mut s = lock(&self.shared);
            let (snapshot, item) = s.normalizer.permission_tool(&params.tool_call);
            let req = permissions::request(&params, &id, &snapshot, s.restarts);
            let pending = Pending {
                rpc_id: id.clone(),
                options: params.options.clone(),
                tool_call_id: tool_call::id(&snapshot),
            };
            let turn = s.normalizer.active_turn().map(str::to_string);
            // Answered later (by id) when the user decides, or cancelled with the turn.
            let _ = responder.detach();
            s.pending.insert(req.id.clone(), pending, turn);
            (item, AgentEvent::Permission(req.clone()), req)
        };
        tracing::debug!(permission = %permission.id, "ACP permission request");
        vec![item, event]
    }

    fn ended(&self) {
        // The dead agent's requests can no longer be answered.
        lock(&self.shared).pending.clear();
    }
}
