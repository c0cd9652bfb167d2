//! `codex app-server`'s output: every line goes through the bare JSON-RPC dialect, as the
//! session's peer reads it, then through the session's own translation on a live session's
//! state ([`translate::notification`] for notifications, `serverRequest/resolved` included;
//! [`translate::ask`] and [`translate::hold`] for approval and user-input requests, as the
//! translator serves them). Answers bind the thread (`thread/start`, `thread/resume`: also
//! replayed as history and summarized; a transcript that starts later binds the first
//! `threadId` it names) and Codex's turn id (`turn/start`), as the session's calls do. The
//! core's turn `turn-1` runs from the start, and the next one begins when a turn ends.
//! Everything produced must be events the host accepts ([`check::agent_event`]).

use crate::check;
use agent_bridge_codex::history;
use agent_bridge_codex::normalize::Normalizer;
use agent_bridge_codex::state::{self, lock, SharedState};
use agent_bridge_codex::translate;
use agent_bridge_codex::wire::thread::Thread;
use agent_bridge_core::rpc::{Dialect, Incoming, JsonRpc};
use agent_bridge_core::AgentEvent;
use agent_bridge_protocol::{ProviderEvent, TimelineItem};
use serde_json::Value;

const CWD: &str = "/w";

pub fn run(data: &[u8]) {
    let shared = state::shared(Normalizer::unbound(check::SESSION, CWD));
    let mut turns = 1;
    lock(&shared).normalizer.begin_turn("turn-1");
    for line in crate::text_lines(data) {
        let events = match JsonRpc::bare().decode(&line) {
            Err(_) => continue,
            Ok(Incoming::Response { result, .. }) => {
                if let Ok(v) = result {
                    answer(&shared, &v);
                }
                continue;
            }
            Ok(Incoming::Request { id, method, params }) => {
                match translate::ask(&shared, &id, &method, params) {
                    Ok((request, item_id, asked)) => {
                        translate::hold(&shared, request, id, item_id, asked)
                    }
                    Err(_) => continue,
                }
            }
            Ok(Incoming::Notification { method, params }) => {
                {
                    let mut s = lock(&shared);
                    if s.normalizer.thread_id().is_empty() {
                        if let Some(thread) = params.get("threadId").and_then(Value::as_str) {
                            s.normalizer.bind_thread(thread, CWD);
                        }
                    }
                }
                translate::notification(&shared, &method, params)
            }
        };
        let mut s = lock(&shared);
        for ev in &events {
            check::agent_event(ev);
            if matches!(ev, AgentEvent::TurnEnded { .. }) && s.normalizer.active_turn().is_none() {
                turns += 1;
                s.normalizer.begin_turn(&format!("turn-{turns}"));
            }
        }
        let _ = s.normalizer.running_tools();
    }
}

/// The answer to one of the session's calls.
fn answer(shared: &SharedState, v: &Value) {
    let mut s = lock(shared);
    let n = &mut s.normalizer;
    if let Some(thread) = v.get("thread") {
        if let Ok(thread) = serde_json::from_value::<Thread>(thread.clone()) {
            if n.thread_id().is_empty() {
                n.bind_thread(&thread.id, thread.cwd.as_deref().unwrap_or(CWD));
            }
            for item in history::replay(&thread.turns, &|_| None) {
                timeline(item);
            }
            let summary = history::summary(&thread);
            check::event(ProviderEvent::Sessions {
                request_id: "r1".into(),
                sessions: vec![summary],
            });
        }
    }
    if let Some(native) = v.pointer("/turn/id").and_then(Value::as_str) {
        if let Some((core, _)) = n.active_turn() {
            let core = core.to_string();
            n.bind_native(&core, native);
        }
    }
}

fn timeline(item: TimelineItem) {
    check::agent_event(&AgentEvent::Item(item));
}
