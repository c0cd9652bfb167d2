//! Claude Code's stream-json: every line goes through the provider's control dialect and the
//! session's own translation, as the reader gets it ([`translate::translate_line`] on a live
//! session's state, a turn running; the CLI's `can_use_tool` and `elicitation` requests
//! through [`translate::ask_user`], an allow and a deny of each becoming answer lines; its other
//! requests answered by [`control::reply_to`]). Stream lines also feed a replaying
//! [`Normalizer`], as a reopen reads a transcript. What comes out must be events the host
//! accepts ([`check::agent_event`]); answers must be lines of JSON. An answer to the bridge's
//! interrupt (`bridge-interrupt-*`) marks the run interrupted, as the session does when it
//! sends one.

use crate::check;
use agent_bridge_claude::dialect::{ControlDialect, CONTROL_ERROR};
use agent_bridge_claude::launch::LaunchOptions;
use agent_bridge_claude::normalize::{Mode, NormEvent, Normalizer};
use agent_bridge_claude::session::{RunningTurn, SessionState};
use agent_bridge_claude::wire::CliMessage;
use agent_bridge_claude::{control, permissions, state, translate};
use agent_bridge_core::rpc::{rpc_error, Dialect, Incoming};
use agent_bridge_core::{AgentEvent, ChildSession};
use agent_bridge_protocol::ProviderPermissionResponse;
use serde_json::Value;

const CWD: &str = "/w";

/// Every line through the session's own translation ([`translate::translate_line`], the state a
/// live process has, a turn running), and a replaying normalizer as a reopen reads the
/// transcript.
pub fn run(data: &[u8]) {
    let opts = LaunchOptions {
        cwd: CWD.into(),
        mode: "default".into(),
        ..LaunchOptions::default()
    };
    let mut live = SessionState::new(check::SESSION, &opts);
    live.turn = Some(RunningTurn {
        id: "t1".into(),
        pending: Default::default(),
        any_result_ends: false,
        interrupted: false,
    });
    let mut replay = Normalizer::new(check::SESSION, Mode::Replay);
    for line in crate::text_lines(data) {
        match ControlDialect.decode(&line) {
            Err(_) => {}
            Ok(Incoming::Response { id, .. }) => {
                if id
                    .as_str()
                    .is_some_and(|i| i.starts_with("bridge-interrupt"))
                {
                    live.normalizer.set_interrupted();
                }
            }
            Ok(Incoming::Request { id, params, .. }) => request(&mut live, id, params),
            Ok(Incoming::Notification { method, params, .. }) => {
                if let Ok(msg) = serde_json::from_value::<CliMessage>(params.clone()) {
                    if !matches!(
                        msg,
                        CliMessage::ControlCancelRequest { .. }
                            | CliMessage::ControlRequest(_)
                            | CliMessage::ControlResponse(_)
                    ) {
                        replay.handle(&msg).into_iter().for_each(norm_event);
                    }
                }
                let (events, _) = translate::translate_line(&mut live, &method, params);
                events.iter().for_each(check::agent_event);
                let _ = (
                    live.normalizer.running_tools(),
                    live.normalizer.background_tasks(),
                );
            }
        }
    }
    replay.finish_replay().into_iter().for_each(norm_event);
}

/// A control request of the CLI, as the session's reader serves it.
fn request(live: &mut SessionState, id: Value, params: Value) {
    let req = translate::control_request(&id, params);
    if let Some(event) = translate::ask_user(live, &req) {
        check::agent_event(&event);
        let pending = live
            .permissions
            .take(&req.request_id)
            .map(|p| p.native)
            .expect("the permission just asked is pending");
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
        NormEvent::Init(info) => AgentEvent::Persistence(state::persistence(&info.session_id, CWD)),
        NormEvent::Usage(usage) => AgentEvent::Usage {
            turn_id: Some("t1".into()),
            usage,
        },
        NormEvent::RunEnded { outcome, usage, .. } => {
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
