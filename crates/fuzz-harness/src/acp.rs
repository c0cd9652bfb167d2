//! An ACP agent's output: every line goes through the JSON-RPC 2.0 dialect, as the session's
//! peer reads it. `session/update` notifications feed the provider's [`Normalizer`] (config
//! changes applied to the session's [`AcpConfig`] as the session does); permission requests go
//! through the normalizer and become permission requests. Turns follow the answers: an answer
//! carrying a `stopReason` (a `session/prompt` result) ends the running turn (canceled when
//! `cancelled`), any other answer (a `session/new` or `session/load` result: its modes and
//! models set up the config) starts the next turn when none runs; updates outside a turn are a
//! replay. Everything produced must be events the host accepts ([`check::agent_event`]).

use crate::check;
use agent_bridge_acp::config::AcpConfig;
use agent_bridge_acp::normalize::{prompt_usage, Normalizer};
use agent_bridge_acp::permissions;
use agent_bridge_acp::wire::{method, permission, SessionAnswer};
use agent_bridge_core::rpc::{Dialect, Incoming, JsonRpc};
use agent_bridge_core::AgentEvent;

pub fn run(data: &[u8]) {
    let mut n = Normalizer::new();
    let mut config = AcpConfig::default();
    let mut turns = 0;
    for line in crate::text_lines(data) {
        let events = match JsonRpc::v2().decode(&line) {
            Err(_) => continue,
            Ok(Incoming::Response { result: Err(_), .. }) => continue,
            Ok(Incoming::Response { result: Ok(v), .. }) => {
                if let Some(reason) = v.get("stopReason") {
                    let usage = prompt_usage(v.get("usage"), v.get("_meta"));
                    let mut out = n.end_turn(reason == "cancelled");
                    if let Some(usage) = usage {
                        out.push(AgentEvent::Usage {
                            turn_id: None,
                            usage,
                        });
                    }
                    out
                } else {
                    if let Ok(state) = serde_json::from_value::<SessionAnswer>(v) {
                        config = AcpConfig::new(
                            &state,
                            &["auto".to_string()],
                            &["allow_all".to_string(), "auto_approve".to_string()],
                        );
                    }
                    if n.active_turn().is_none() {
                        turns += 1;
                        n.begin_turn(&format!("turn-{turns}"));
                    }
                    vec![AgentEvent::Config(config.state())]
                }
            }
            Ok(Incoming::Request {
                id,
                method: m,
                params,
            }) => {
                if m != method::REQUEST_PERMISSION {
                    continue;
                }
                let Ok(p) = permission::read(params) else {
                    continue;
                };
                let (snapshot, item) = n.permission_tool(&p.tool_call);
                let request = permissions::request(&p, &id, &snapshot, 0);
                vec![item, AgentEvent::Permission(request)]
            }
            Ok(Incoming::Notification { method: m, params }) => {
                if m != method::SESSION_UPDATE {
                    continue;
                }
                let Some(update) = params.get("update").filter(|u| u.is_object()) else {
                    continue;
                };
                let out = n.update(update.clone());
                let mut events = out.events;
                if let Some(change) = out.config {
                    config.apply_update(change);
                    events.push(AgentEvent::Config(config.state()));
                }
                if let Some(title) = out.title {
                    assert!(!title.trim().is_empty(), "a blank title");
                }
                events
            }
        };
        for ev in &events {
            check::agent_event(ev);
        }
        let _ = n.running_tools();
    }
    for ev in n.end_turn(true) {
        check::agent_event(&ev);
    }
}
