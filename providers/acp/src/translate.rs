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

use crate::normalize::prompt_usage;
use crate::permissions::{self, Pending};
use crate::state::{lock, Phase, SharedState};
use crate::wire::{method, permission, tool_call, update, PromptResult};
use agent_bridge_core::lifecycle::{EventTarget, InboundDriver, Liveness, RefuseAll, Translator};
use agent_bridge_core::rpc::{Inbound, IncomingRequest, PeerHandle};
use agent_bridge_core::{AgentEvent, SessionSink, TurnOutcome};
use agent_bridge_protocol::{ErrorCode, ProviderError, ProviderUsage, TimelineItem};
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

/// The agent's answer to `session/prompt`: how it ends the turn, and the usage it reports.
pub fn prompt_answer(v: Value) -> (TurnOutcome, Option<ProviderUsage>) {
    let result: PromptResult = serde_json::from_value(v).unwrap_or_default();
    let usage = prompt_usage(result.usage.as_ref(), result.meta.as_ref());
    (outcome(&result), usage)
}

/// How a `session/prompt` answer ends the turn.
pub fn outcome(result: &PromptResult) -> TurnOutcome {
    match result.stop_reason.as_deref() {
        Some("cancelled") => TurnOutcome::Canceled,
        Some("refusal") => TurnOutcome::Failed(
            ProviderError::new("the agent refused to continue").with_code(ErrorCode::Refusal),
        ),
        // end_turn, max_tokens, max_turn_requests (a stop, with whatever was produced).
        _ => TurnOutcome::Completed,
    }
}

/// How a turn the bridge sent `session/cancel` for ends: ACP has the agent answer its prompt
/// `cancelled` then, so the host's interrupt ends the turn canceled even when the agent answers
/// `end_turn` anyway (OpenHands 1.16.0 lets the model request in flight finish and answers
/// `end_turn` with the full reply: the reply is shown, the turn is canceled). A failure stays one.
pub fn after_cancel(outcome: TurnOutcome, cancelled: bool) -> TurnOutcome {
    match outcome {
        TurnOutcome::Completed if cancelled => TurnOutcome::Canceled,
        other => other,
    }
}

/// The events that end turn `turn_id` (`None` when it is no longer the running turn: a
/// restart or a cancel ended it already): the normalizer's closing snapshots, the turn's
/// revert-tagged user row, its usage, then `TurnEnded`.
pub fn turn_end(
    shared: &SharedState,
    turn_id: String,
    outcome: TurnOutcome,
    usage: Option<ProviderUsage>,
    tagged: Option<TimelineItem>,
) -> Option<Vec<AgentEvent>> {
    let mut events = {
        let mut s = lock(shared);
        if s.normalizer.active_turn() != Some(turn_id.as_str()) {
            return None;
        }
        s.normalizer.end_turn(outcome == TurnOutcome::Canceled)
    };
    if let Some(row) = tagged {
        events.push(AgentEvent::Item(row));
    }
    if let Some(usage) = usage {
        events.push(AgentEvent::Usage {
            turn_id: Some(turn_id.clone()),
            usage,
        });
    }
    events.push(AgentEvent::TurnEnded { turn_id, outcome });
    Some(events)
}

/// One `session/request_permission` of the agent (its JSON-RPC id `id`): the permission's
/// tool call and the permission request, kept pending (within the running turn) until the
/// user answers by id. `Err` when the params cannot be read.
pub fn permission(
    shared: &SharedState,
    id: Value,
    params: Value,
) -> Result<Vec<AgentEvent>, String> {
    let params = permission::read(params).map_err(|e| e.to_string())?;
    let mut s = lock(shared);
    let (snapshot, item) = s.normalizer.permission_tool(&params.tool_call);
    let req = permissions::request(&params, &id, &snapshot, s.restarts);
    let pending = Pending {
        rpc_id: id,
        options: params.options.clone(),
        tool_call_id: tool_call::id(&snapshot),
    };
    let turn = s.normalizer.active_turn().map(str::to_string);
    tracing::debug!(permission = %req.id, "ACP permission request");
    s.pending.insert(req.id.clone(), pending, turn);
    Ok(vec![item, AgentEvent::Permission(req)])
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
        match permission(&self.shared, id, params) {
            Ok(events) => {
                // Answered later (by id) when the user decides, or cancelled with the turn.
                let _ = responder.detach();
                events
            }
            Err(e) => {
                let error = agent_bridge_core::rpc::rpc_error(
                    agent_bridge_core::rpc::INVALID_PARAMS,
                    format!("unreadable session/request_permission params: {e}"),
                );
                responder.respond(Err(error)).await;
                Vec::new()
            }
        }
    }

    fn ended(&self) {
        // The dead agent's requests can no longer be answered.
        lock(&self.shared).pending.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn stop_reasons_end_the_turn() {
        let r = |s: &str| PromptResult {
            stop_reason: Some(s.into()),
            ..Default::default()
        };
        assert_eq!(outcome(&r("end_turn")), TurnOutcome::Completed);
        assert_eq!(outcome(&r("cancelled")), TurnOutcome::Canceled);
        // An agent that answers end_turn after the bridge's session/cancel: canceled.
        assert_eq!(
            after_cancel(outcome(&r("end_turn")), true),
            TurnOutcome::Canceled
        );
        assert_eq!(
            after_cancel(outcome(&r("end_turn")), false),
            TurnOutcome::Completed
        );
        let refused = after_cancel(outcome(&r("refusal")), true);
        assert!(matches!(refused, TurnOutcome::Failed(_)), "{refused:?}");
        assert!(matches!(outcome(&r("refusal")), TurnOutcome::Failed(_)));
    }
}
