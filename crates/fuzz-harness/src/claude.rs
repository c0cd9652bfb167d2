//! Claude Code's stream-json: every line goes through the provider's control dialect, as the
//! session's reader gets it. Stream lines feed a live and a replaying [`Normalizer`]; the
//! CLI's `can_use_tool` and `elicitation` requests become permission requests (an allow and a
//! deny of each become answer lines), its other requests answers. What comes out must be events
//! the host accepts ([`check::agent_event`]); answers must be lines of JSON. An answer to the bridge's interrupt (`bridge-interrupt-*`) marks the run interrupted,
//! as the session does when it sends one.

use crate::check;
use agent_bridge_claude::dialect::{ControlDialect, CONTROL_ERROR};
use agent_bridge_claude::normalize::{Mode, NormEvent, Normalizer};
use agent_bridge_claude::wire::{CliMessage, ControlRequest};
use agent_bridge_claude::{control, permissions, reader};
use agent_bridge_core::rpc::{rpc_error, Dialect, Incoming};
use agent_bridge_core::{AgentEvent, ChildSession};
use agent_bridge_protocol::ProviderPermissionResponse;
use serde_json::Value;

const CWD: &str = "/w";

pub fn run(data: &[u8]) {
    let mut live = Normalizer::new(check::SESSION, Mode::Live);
    let mut replay = Normalizer::new(check::SESSION, Mode::Replay);
    for line in crate::text_lines(data) {
        match ControlDialect.decode(&line) {
            Err(_) => {}
            Ok(Incoming::Response { id, .. }) => {
                if id
                    .as_str()
                    .is_some_and(|i| i.starts_with("bridge-interrupt"))
                {
                    live.set_interrupted();
                }
            }
            Ok(Incoming::Request { id, params, .. }) => request(id, params),
            Ok(Incoming::Notification { params, .. }) => {
                let Ok(msg) = serde_json::from_value::<CliMessage>(params) else {
                    continue;
                };
                if matches!(
                    msg,
                    CliMessage::ControlCancelRequest { .. }
                        | CliMessage::ControlRequest(_)
                        | CliMessage::ControlResponse(_)
                ) {
                    continue;
                }
                live.handle(&msg).into_iter().for_each(norm_event);
                replay.handle(&msg).into_iter().for_each(norm_event);
                let _ = (live.running_tools(), live.background_tasks());
            }
        }
    }
    replay.finish_replay().into_iter().for_each(norm_event);
}

/// A control request of the CLI, as the reader serves it.
fn request(id: Value, params: Value) {
    let req = ControlRequest {
        request_id: match &id {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        },
        request: match params {
            Value::Object(m) => m,
            _ => serde_json::Map::new(),
        },
    };
    if let Some((request, pending)) = permissions::asked_by(&req) {
        check::permission(request);
        for response in [
            ProviderPermissionResponse::deny("no"),
            ProviderPermissionResponse::Allow {
                selected_action_id: None,
                updated_input: None,
                updated_permissions: None,
            },
        ] {
            let line = agent_bridge_claude::wire::control_success_line(
                &pending.request_id,
                permissions::answer(&pending, &response).response,
            );
            assert!(serde_json::from_str::<Value>(&line).is_ok(), "{line:.300}");
        }
        return;
    }
    let answer = control::reply_to(&req).map_err(|m| rpc_error(CONTROL_ERROR, m));
    let line = ControlDialect.encode_response(&id, &answer);
    assert!(!line.contains('\n'));
    assert!(
        serde_json::from_str::<Value>(&line).is_ok(),
        "answer: {line:.300}"
    );
}

/// One normalizer event, as the reader translates it for the core.
fn norm_event(ev: NormEvent) {
    let ev = match ev {
        NormEvent::Item(item) => AgentEvent::Item(item),
        NormEvent::ChildItem {
            child_session_id,
            item,
        } => AgentEvent::ChildItem {
            child_session_id,
            item,
        },
        NormEvent::ChildOpened {
            child_session_id,
            title,
            description,
        } => AgentEvent::ChildOpened(ChildSession {
            session_id: child_session_id,
            title,
            description,
            cwd: CWD.into(),
            items: Vec::new(),
        }),
        NormEvent::Init(info) => {
            AgentEvent::Persistence(reader::persistence(&info.session_id, CWD))
        }
        NormEvent::Usage(usage) => AgentEvent::Usage {
            turn_id: Some("t1".into()),
            usage,
        },
        NormEvent::RunEnded { outcome, usage } => {
            check::agent_event(&AgentEvent::Usage {
                turn_id: Some("t1".into()),
                usage,
            });
            AgentEvent::TurnEnded {
                turn_id: "t1".into(),
                outcome,
            }
        }
        NormEvent::CommandsChanged(commands) => AgentEvent::Commands(commands),
        NormEvent::Notice(notice) => AgentEvent::Notice(notice),
        NormEvent::ModeChanged(_) | NormEvent::Echo { .. } => return,
    };
    check::agent_event(&ev);
}
