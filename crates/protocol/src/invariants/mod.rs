//! [`InvariantChecker`]: the protocol rules that span several events, checked continuously as
//! inputs go out and events come in (see the crate docs for the list).

use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// What answers a request, by input type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ReqKind {
    Catalog,
    Sessions,
    Open,
    CanStop,
    Configure,
    /// interrupt, close, revert, archive, unarchive: `request.completed` / `request.failed`.
    Plain,
}

impl ReqKind {
    fn of(input_type: &str) -> ReqKind {
        match input_type {
            "catalog" => ReqKind::Catalog,
            "sessions" => ReqKind::Sessions,
            "session.open" => ReqKind::Open,
            "session.can_stop_runtime" => ReqKind::CanStop,
            "session.configure" => ReqKind::Configure,
            _ => ReqKind::Plain,
        }
    }

    fn accepts(self, answer: &str) -> bool {
        answer == "request.failed"
            || matches!(
                (self, answer),
                (ReqKind::Catalog, "catalog")
                    | (ReqKind::Sessions, "sessions")
                    | (ReqKind::Open, "session.ready")
                    | (ReqKind::CanStop, "session.can_stop_runtime")
                    | (ReqKind::Configure | ReqKind::Plain, "request.completed")
            )
    }
}

#[derive(Debug)]
struct Request {
    kind: ReqKind,
    input_type: String,
    session: Option<String>,
    answered: bool,
    /// configure: a `session.config` for the session arrived after the input was sent.
    config_seen: bool,
    /// open: `session.opened` arrived for it.
    opened: bool,
}

#[derive(Debug, PartialEq, Eq)]
enum Phase {
    /// Between `session.opened` and `session.ready`.
    Opening {
        request_id: Option<String>,
        saw_config: bool,
    },
    Ready,
    Closed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TurnPhase {
    /// Announced by a `prompt_result {type: "turn"}`, not started yet.
    Announced,
    Active,
    Ended,
}

#[derive(Debug)]
struct Session {
    phase: Phase,
    turns: HashMap<String, TurnPhase>,
    active: Option<String>,
    /// Timeline item id -> the turn that was active when it first appeared.
    item_turn: HashMap<String, String>,
    permissions: HashSet<String>,
}

#[derive(Debug, Default)]
struct Connection {
    closed: bool,
    requests: HashMap<String, Request>,
    refused: HashSet<String>,
    sessions: HashMap<String, Session>,
    /// (sessionId, clientMessageId) of admitted prompts -> prompt results seen.
    prompts: HashMap<(String, String), u32>,
}

/// Checks the cross-event invariants of the protocol. Feed it every admitted input
/// ([`on_input`](Self::on_input), then [`on_refused`](Self::on_refused) if admission failed)
/// and every event in arrival order ([`on_event`](Self::on_event)).
#[derive(Debug, Default)]
pub struct InvariantChecker {
    connections: HashMap<String, Connection>,
    violations: Vec<String>,
    stopping: bool,
}

fn s<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

impl InvariantChecker {
    pub fn new() -> Self {
        Self::default()
    }

    /// Violations found so far.
    pub fn violations(&self) -> &[String] {
        &self.violations
    }

    /// Records a violation found outside the checker (schema, stdout hygiene, ...).
    pub fn report(&mut self, violation: String) {
        self.violations.push(violation);
    }

    /// A connection was opened (`provider/connect` answered).
    pub fn on_connect(&mut self, connection_id: &str) {
        self.connections
            .insert(connection_id.to_string(), Connection::default());
    }

    /// `provider/close` answered: nothing may arrive for the connection any more.
    pub fn on_connection_closed(&mut self, connection_id: &str) {
        if let Some(conn) = self.connections.get_mut(connection_id) {
            conn.closed = true;
        }
    }

    /// The host asked the bridge to stop (stdin closed, `shutdown`, a signal): work still in
    /// flight no longer has to complete.
    pub fn on_stopping(&mut self) {
        self.stopping = true;
    }

    /// An input is about to be sent on `connection_id`.
    pub fn on_input(&mut self, connection_id: &str, input: &Value) {
        let conn = self
            .connections
            .entry(connection_id.to_string())
            .or_default();
        let input_type = s(input, "type").unwrap_or("");
        let session = s(input, "sessionId").map(str::to_string);
        if let Some(rid) = s(input, "requestId") {
            let kind = ReqKind::of(input_type);
            conn.refused.remove(rid);
            let request = Request {
                kind,
                input_type: input_type.to_string(),
                session: session.clone(),
                answered: false,
                config_seen: false,
                opened: false,
            };
            conn.requests.insert(rid.to_string(), request);
        }
        if input_type == "session.prompt" {
            if let (Some(sid), Some(cmid)) = (
                session,
                input.get("prompt").and_then(|p| s(p, "clientMessageId")),
            ) {
                conn.prompts.insert((sid, cmid.to_string()), 0);
            }
        }
    }

    /// The bridge refused the input sent last with this content (admission error).
    pub fn on_refused(&mut self, connection_id: &str, input: &Value) {
        let Some(conn) = self.connections.get_mut(connection_id) else {
            return;
        };
        if let Some(rid) = s(input, "requestId") {
            conn.requests.remove(rid);
            conn.refused.insert(rid.to_string());
        }
        if let (Some(sid), Some(cmid)) = (
            s(input, "sessionId"),
            input.get("prompt").and_then(|p| s(p, "clientMessageId")),
        ) {
            conn.prompts.remove(&(sid.to_string(), cmid.to_string()));
        }
    }

    /// One `provider/event` arrived (`seq` is its index, for messages).
    pub fn on_event(&mut self, seq: usize, connection_id: &str, event: &Value) {
        let mut found = Vec::new();
        self.check_event(connection_id, event, &mut found);
        let kind = s(event, "type").unwrap_or("?");
        for v in found {
            self.violations.push(format!(
                "event #{seq} `{kind}` on {connection_id}: {v} -- {event}"
            ));
        }
    }

    fn check_event(&mut self, connection_id: &str, event: &Value, out: &mut Vec<String>) {
        let Some(conn) = self.connections.get_mut(connection_id) else {
            out.push("event for a connection the host never opened".into());
            return;
        };
        if conn.closed {
            out.push("event after `provider/close` of its connection".into());
            return;
        }
        let kind = s(event, "type").unwrap_or("");
        let request_id = s(event, "requestId");
        match kind {
            "catalog"
            | "sessions"
            | "request.completed"
            | "request.failed"
            | "session.can_stop_runtime" => {
                if let Some(rid) = request_id {
                    answer(conn, rid, kind, out);
                } else {
                    out.push("answer without `requestId`".into());
                }
            }
            _ => {}
        }
        let Some(sid) = s(event, "sessionId") else {
            return;
        };
        if kind == "session.opened" {
            on_opened(conn, sid, request_id, event, out);
            return;
        }
        match conn.sessions.get(sid) {
            None => {
                out.push(format!("event for session `{sid}` that was never opened"));
                return;
            }
            Some(session) if session.phase == Phase::Closed => {
                out.push(format!(
                    "event for session `{sid}` after its `session.closed`"
                ));
                return;
            }
            Some(_) => {}
        }
        match kind {
            "session.ready" => return on_ready(conn, sid, request_id, out),
            "session.prompt_result" => return on_prompt_result(conn, sid, event, out),
            "session.closed" => return on_closed(conn, sid, out),
            "session.config" => {
                for req in conn.requests.values_mut() {
                    if req.kind == ReqKind::Configure
                        && !req.answered
                        && req.session.as_deref() == Some(sid)
                    {
                        req.config_seen = true;
                    }
                }
            }
            _ => {}
        }
        let Some(session) = conn.sessions.get_mut(sid) else {
            return;
        };
        match kind {
            "session.config" => {
                if let Phase::Opening { saw_config, .. } = &mut session.phase {
                    *saw_config = true;
                }
            }
            "timeline.item" => on_item(session, event, out),
            "session.turn" => on_turn(session, event, out),
            "session.usage" => {
                if let Some(turn) = s(event, "turnId") {
                    if session.turns.get(turn) == Some(&TurnPhase::Ended) {
                        out.push(format!("usage for turn `{turn}` after its terminal state"));
                    }
                }
            }
            "session.permission" => {
                if let Some(pid) = event.get("request").and_then(|r| s(r, "id")) {
                    if !session.permissions.insert(pid.to_string()) {
                        out.push(format!("permission `{pid}` requested twice"));
                    }
                }
            }
            "session.permission_resolved" => {
                if let Some(pid) = s(event, "permissionId") {
                    if !session.permissions.remove(pid) {
                        out.push(format!(
                            "permission_resolved for `{pid}`, which is not pending"
                        ));
                    }
                }
            }
            _ => {}
        }
    }

    /// Violations plus everything still owed: unanswered requests, prompts without a result,
    /// turns without a terminal state. Work in flight is excused once the host stopped the bridge
    /// or closed the connection.
    pub fn final_report(&self) -> Vec<String> {
        let mut out = self.violations.clone();
        if self.stopping {
            return out;
        }
        let mut ids: Vec<&String> = self.connections.keys().collect();
        ids.sort();
        for cid in ids {
            let Some(conn) = self.connections.get(cid) else {
                continue;
            };
            if conn.closed {
                continue;
            }
            let closed = |sid: Option<&str>| {
                sid.and_then(|sid| conn.sessions.get(sid))
                    .is_some_and(|sess| sess.phase == Phase::Closed)
            };
            for (rid, req) in &conn.requests {
                if !req.answered && !closed(req.session.as_deref()) {
                    out.push(format!(
                        "{cid}: `{}` request `{rid}` was never answered",
                        req.input_type
                    ));
                }
            }
            for ((sid, cmid), count) in &conn.prompts {
                if *count == 0 && !closed(Some(sid)) {
                    out.push(format!("{cid}: prompt `{cmid}` of session `{sid}` never got a session.prompt_result"));
                }
            }
            for (sid, sess) in &conn.sessions {
                for (turn, phase) in &sess.turns {
                    match phase {
                        TurnPhase::Ended => {}
                        TurnPhase::Announced => out.push(format!(
                            "{cid}: turn `{turn}` of `{sid}` was announced but never started"
                        )),
                        TurnPhase::Active => out.push(format!(
                            "{cid}: turn `{turn}` of `{sid}` never reached a terminal state"
                        )),
                    }
                }
            }
        }
        out
    }
}

mod rules;
mod tally;
use rules::{answer, on_closed, on_item, on_opened, on_prompt_result, on_ready, on_turn};
pub use tally::Tally;

#[cfg(test)]
mod tests;
