//! An ACP agent's output: every line goes through the JSON-RPC 2.0 dialect, as the session's
//! peer reads it, then through the session's own translation on a live session's state:
//! `session/update` notifications through [`translate::update`] (config changes, replay and
//! restore phases as the provider applies them), permission requests through
//! [`translate::permission`]. Turns follow the answers: an answer carrying a `stopReason` (a
//! `session/prompt` result) ends the running turn through [`translate::prompt_answer`] and
//! [`translate::turn_end`], as the session's turn task does; any other answer (a
//! `session/new` or `session/load` result: its modes and models set up the config) starts the
//! next turn when none runs; updates outside a turn are a replay. Everything produced must be
//! events the host accepts ([`check::agent_event`]).

use crate::check;
use agent_bridge_acp::config::AcpConfig;
use agent_bridge_acp::state::{lock, SessionState, SharedState};
use agent_bridge_acp::translate;
use agent_bridge_acp::wire::{method, SessionAnswer};
use agent_bridge_core::rpc::{Dialect, Incoming, JsonRpc};
use agent_bridge_core::AgentEvent;

pub fn run(data: &[u8]) {
    let shared: SharedState = agent_bridge_core::lifecycle::shared(SessionState::default());
    let mut turns = 0;
    for line in crate::text_lines(data) {
        let events = match JsonRpc::v2().decode(&line) {
            Err(_) => continue,
            Ok(Incoming::Response { result: Err(_), .. }) => continue,
            Ok(Incoming::Response { result: Ok(v), .. }) => {
                if v.get("stopReason").is_some() {
                    let running = lock(&shared).normalizer.active_turn().map(str::to_string);
                    let Some(turn) = running else { continue };
                    let (outcome, usage) = translate::prompt_answer(v);
                    translate::turn_end(&shared, turn, outcome, usage, None).unwrap_or_default()
                } else {
                    let mut s = lock(&shared);
                    if let Ok(state) = serde_json::from_value::<SessionAnswer>(v) {
                        s.config = AcpConfig::new(
                            &state,
                            &["auto".to_string()],
                            &["allow_all".to_string(), "auto_approve".to_string()],
                        );
                    }
                    if s.normalizer.active_turn().is_none() {
                        turns += 1;
                        s.normalizer.begin_turn(&format!("turn-{turns}"));
                    }
                    vec![AgentEvent::Config(s.config.state())]
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
                translate::permission(&shared, id, params).unwrap_or_default()
            }
            Ok(Incoming::Notification { method: m, params }) => {
                if m != method::SESSION_UPDATE {
                    continue;
                }
                let events = translate::update(&shared, params);
                if let Some(title) = lock(&shared).title.as_deref() {
                    assert!(!title.trim().is_empty(), "a blank title");
                }
                events
            }
        };
        for ev in &events {
            check::agent_event(ev);
        }
        let _ = lock(&shared).normalizer.running_tools();
    }
    for ev in lock(&shared).normalizer.end_turn(true) {
        check::agent_event(&ev);
    }
}
