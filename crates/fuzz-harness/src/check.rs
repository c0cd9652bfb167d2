//! The properties every target checks on what it produced; each panics when one fails.
//!
//! An event is checked as the host receives it: normalized and rendered by the core's
//! [`render_event`] into one `provider/event` line, which must be one line of JSON that parses
//! back into the same event (so Paseo's schema, which the protocol types mirror, accepts it).

use agent_bridge_core::emitter::render_event;
use agent_bridge_core::timeline::has_id;
use agent_bridge_core::{AgentEvent, TurnOutcome};
use agent_bridge_protocol::jsonrpc::{Outgoing, RequestId, RpcError, RpcErrorCode};
use agent_bridge_protocol::{
    ItemBody, ProviderEvent, ProviderPermissionRequest, Restoration, TimelineItem, ToolStatus,
    TurnState,
};
use serde_json::Value;

/// The session id the normalizer targets report under.
pub const SESSION: &str = "s1";

/// Every error code of the wire contract (`docs/wire.md`).
pub const CONTRACT_CODES: [RpcErrorCode; 7] = [
    RpcErrorCode::ParseError,
    RpcErrorCode::InvalidRequest,
    RpcErrorCode::MethodNotFound,
    RpcErrorCode::InvalidParams,
    RpcErrorCode::CapabilityNotNegotiated,
    RpcErrorCode::Unavailable,
    RpcErrorCode::Internal,
];

/// Parses one written line: exactly one line of JSON.
fn one_json_line(line: &str) -> Value {
    assert!(!line.contains('\n'), "a written line contains a newline");
    match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => panic!("a written line is not JSON ({e}): {line:.300}"),
    }
}

/// An error answer: its code is one of `allowed` (all in the contract), its message says
/// something, and the response line is one JSON-RPC 2.0 line carrying the same error.
pub fn rpc_error(id: Option<RequestId>, err: &RpcError, allowed: &[RpcErrorCode]) {
    assert!(
        allowed.iter().any(|c| c.code() == err.code),
        "error code {} is not one of {:?}: {}",
        err.code,
        allowed,
        err.message
    );
    assert!(!err.message.trim().is_empty(), "an error without a message");
    let out = Outgoing::error(id.clone(), err.clone());
    let line = match serde_json::to_string(&out) {
        Ok(l) => l,
        Err(e) => panic!("an error response does not serialize: {e}"),
    };
    let v = one_json_line(&line);
    assert_eq!(v["jsonrpc"], "2.0");
    assert_eq!(v["id"], serde_json::to_value(&id).unwrap_or(Value::Null));
    let back: Result<RpcError, _> = serde_json::from_value(v["error"].clone());
    assert_eq!(
        back.ok().as_ref(),
        Some(err),
        "the error does not round-trip"
    );
}

/// The tool-call rule Paseo's schema checks, once the core normalized an item: `error` is
/// `null` unless the status is `failed`, and then it is present.
pub fn item(item: &TimelineItem) {
    assert!(
        !item.id.trim().is_empty(),
        "a row without an id reached the host"
    );
    let mut item = item.clone();
    item.normalize();
    if let ItemBody::ToolCall(call) = &item.body {
        assert_eq!(
            call.status == ToolStatus::Failed,
            !call.error.is_null(),
            "tool call {} is {:?} with error {}",
            call.call_id,
            call.status,
            call.error
        );
    }
}

thread_local! {
    static EVENTS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many events this thread has checked (so a replay can tell it was not vacuous).
pub fn events_checked() -> usize {
    EVENTS.with(|c| c.get())
}

/// One event as the host gets it: one line, and parsed back it is the same event.
pub fn event(event: ProviderEvent) {
    EVENTS.with(|c| c.set(c.get() + 1));
    if let ProviderEvent::TimelineItem { item: i, .. } = &event {
        item(i);
    }
    let Some(line) = render_event("c1", event) else {
        panic!("an event does not serialize");
    };
    let v = one_json_line(&line);
    assert_eq!(v["method"], "provider/event");
    let sent = v["params"]["event"].clone();
    let parsed: ProviderEvent = match serde_json::from_value(sent.clone()) {
        Ok(e) => e,
        Err(e) => panic!("a sent event does not parse back ({e}): {line:.300}"),
    };
    let again = serde_json::to_value(&parsed).unwrap_or(Value::Null);
    assert_eq!(again, sent, "a sent event does not round-trip");
}

/// A permission request, as `session.permission`.
pub fn permission(request: ProviderPermissionRequest) {
    event(ProviderEvent::SessionPermission {
        session_id: SESSION.into(),
        request,
    });
}

/// What an agent reported, as the events the core makes of it.
pub fn agent_event(ev: &AgentEvent) {
    let session_id = SESSION.to_string();
    let ev = ev.clone();
    match ev {
        // A row without an id is dropped by the core, as here.
        AgentEvent::Item(item) | AgentEvent::ChildItem { item, .. } if !has_id(&item) => {}
        AgentEvent::ChildOpened(mut child) if !child.items.iter().all(has_id) => {
            child.items.retain(has_id);
            agent_event(&AgentEvent::ChildOpened(child));
        }
        AgentEvent::Item(item) => event(ProviderEvent::TimelineItem {
            session_id,
            item,
            timestamp: None,
        }),
        AgentEvent::ChildItem {
            child_session_id,
            item,
        } => {
            assert!(!child_session_id.is_empty(), "a child item without a child");
            event(ProviderEvent::TimelineItem {
                session_id: child_session_id,
                item,
                timestamp: None,
            })
        }
        AgentEvent::ChildOpened(child) => {
            for item in child.items {
                event(ProviderEvent::TimelineItem {
                    session_id: child.session_id.clone(),
                    item,
                    timestamp: None,
                });
            }
            event(ProviderEvent::SessionOpened {
                request_id: None,
                session_id: child.session_id,
                parent_session_id: Some(session_id),
                capabilities: vec![],
                restoration: Restoration::Parent,
                persistence: None,
                title: child.title,
                description: child.description,
                cwd: child.cwd,
            })
        }
        AgentEvent::ChildClosed { child_session_id } => event(ProviderEvent::SessionClosed {
            session_id: child_session_id,
            error: None,
        }),
        AgentEvent::TurnEnded { turn_id, outcome } => {
            let (state, error) = match outcome {
                TurnOutcome::Completed => (TurnState::Completed, None),
                TurnOutcome::Canceled => (TurnState::Canceled, None),
                TurnOutcome::Failed(e) => (TurnState::Failed, Some(e)),
            };
            event(ProviderEvent::SessionTurn {
                session_id,
                turn_id,
                state,
                error,
            })
        }
        AgentEvent::Usage { turn_id, usage } => event(ProviderEvent::SessionUsage {
            session_id,
            turn_id,
            usage,
        }),
        AgentEvent::Config(config) => event(ProviderEvent::SessionConfig { session_id, config }),
        AgentEvent::Commands(commands) => event(ProviderEvent::SessionCommands {
            session_id,
            commands,
        }),
        AgentEvent::Permission(request) => permission(request),
        AgentEvent::PermissionResolved { permission_id } => {
            event(ProviderEvent::SessionPermissionResolved {
                session_id,
                permission_id,
            })
        }
        AgentEvent::Notice(notice) => event(ProviderEvent::SessionNotice { session_id, notice }),
        AgentEvent::Persistence(persistence) => event(ProviderEvent::SessionPersistence {
            session_id,
            persistence,
        }),
        AgentEvent::RuntimeFailed(error) => {
            event(ProviderEvent::SessionRuntimeFailed { session_id, error })
        }
    }
}
