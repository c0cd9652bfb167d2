//! `codex app-server`'s output: every line goes through the bare JSON-RPC dialect, as the
//! session's peer reads it. Notifications feed the provider's [`Normalizer`] (the session's
//! `serverRequest/resolved` handling first); approval and user-input requests become permission requests;
//! answers bind the thread (`thread/start`, `thread/resume`: also replayed as history and
//! summarized; a transcript that starts later binds the first `threadId` it names) and Codex's
//! turn id (`turn/start`). The core's turn `turn-1` runs from the
//! start, and the next one begins when a turn ends. Everything produced must be events the host
//! accepts ([`check::agent_event`]).

use crate::check;
use agent_bridge_codex::history;
use agent_bridge_codex::normalize::Normalizer;
use agent_bridge_codex::wire::notify::{Notification, ServerRequest};
use agent_bridge_codex::wire::thread::Thread;
use agent_bridge_codex::{permissions, questions};
use agent_bridge_core::rpc::{Dialect, Incoming, JsonRpc};
use agent_bridge_core::AgentEvent;
use agent_bridge_protocol::{ProviderEvent, TimelineItem};
use serde_json::Value;

const CWD: &str = "/w";

pub fn run(data: &[u8]) {
    let mut n = Normalizer::unbound(check::SESSION, CWD);
    let mut turns = 1;
    n.begin_turn("turn-1");
    for line in crate::text_lines(data) {
        let events = match JsonRpc::bare().decode(&line) {
            Err(_) => continue,
            Ok(Incoming::Response { result, .. }) => {
                if let Ok(v) = result {
                    answer(&mut n, &v);
                }
                continue;
            }
            Ok(Incoming::Request { id, method, params }) => {
                match ServerRequest::parse(&method, params) {
                    ServerRequest::CommandApproval(p) => {
                        check::permission(permissions::command_request(&p, permission_id(&id)))
                    }
                    ServerRequest::FileChangeApproval(p) => {
                        check::permission(permissions::file_change_request(
                            &p,
                            permission_id(&id),
                            n.tool(&p.item_id),
                        ))
                    }
                    ServerRequest::UserInput(p) => {
                        check::permission(questions::request(&p, permission_id(&id)))
                    }
                    ServerRequest::McpElicitation(p) => {
                        let id = permission_id(&id);
                        match permissions::mcp_tool_approval(&p, id.clone()) {
                            Some(request) => check::permission(request),
                            None => check::permission(permissions::elicitation(&p).permission(id)),
                        }
                    }
                    ServerRequest::Other(_) => {}
                }
                continue;
            }
            Ok(Incoming::Notification { method, params }) => {
                if n.thread_id().is_empty() {
                    if let Some(thread) = params.get("threadId").and_then(Value::as_str) {
                        n.bind_thread(thread, CWD);
                    }
                }
                if method == "serverRequest/resolved" {
                    match Notification::parse(&method, params) {
                        Notification::RequestResolved(r) => {
                            vec![AgentEvent::PermissionResolved {
                                permission_id: permission_id(&r.request_id),
                            }]
                        }
                        _ => Vec::new(),
                    }
                } else {
                    n.notification(&method, params)
                }
            }
        };
        for ev in &events {
            check::agent_event(ev);
            if matches!(ev, AgentEvent::TurnEnded { .. }) && n.active_turn().is_none() {
                turns += 1;
                n.begin_turn(&format!("turn-{turns}"));
            }
        }
        let _ = n.running_tools();
    }
}

/// The id of a permission asked by the session's first app-server (no restart yet).
fn permission_id(rpc_id: &Value) -> String {
    permissions::permission_id(0, rpc_id)
}

/// The answer to one of the session's calls.
fn answer(n: &mut Normalizer, v: &Value) {
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
