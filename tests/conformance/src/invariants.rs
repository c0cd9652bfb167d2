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

fn answer(conn: &mut Connection, rid: &str, kind: &str, out: &mut Vec<String>) {
    let Some(req) = conn.requests.get_mut(rid) else {
        if conn.refused.contains(rid) {
            out.push(format!(
                "answer for request `{rid}`, whose input was refused at admission"
            ));
        } else {
            out.push(format!(
                "answer for request `{rid}`, which the host never sent"
            ));
        }
        return;
    };
    if req.answered {
        out.push(format!(
            "second answer for request `{rid}` (`{}`)",
            req.input_type
        ));
        return;
    }
    req.answered = true;
    if !req.kind.accepts(kind) {
        out.push(format!(
            "`{}` request `{rid}` answered with `{kind}`",
            req.input_type
        ));
    }
    if req.kind == ReqKind::Configure && kind == "request.completed" && !req.config_seen {
        out.push(format!(
            "configure `{rid}` completed without a session.config before request.completed"
        ));
    }
    if req.kind == ReqKind::Open && kind == "request.failed" && req.opened {
        out.push(format!("open `{rid}` failed after its session.opened"));
    }
}

fn on_opened(
    conn: &mut Connection,
    sid: &str,
    request_id: Option<&str>,
    event: &Value,
    out: &mut Vec<String>,
) {
    if conn
        .sessions
        .get(sid)
        .is_some_and(|sess| sess.phase != Phase::Closed)
    {
        out.push(format!("session `{sid}` opened twice"));
    }
    if let Some(rid) = request_id {
        match conn.requests.get_mut(rid) {
            Some(req)
                if req.kind == ReqKind::Open
                    && req.session.as_deref() == Some(sid)
                    && !req.answered =>
            {
                req.opened = true
            }
            Some(req) => out.push(format!(
                "session.opened carries requestId `{rid}` of a `{}` request for {:?}",
                req.input_type, req.session
            )),
            None => out.push(format!(
                "session.opened carries requestId `{rid}`, which the host never sent"
            )),
        }
    } else if event.get("parentSessionId").is_none() {
        out.push("session.opened without requestId nor parentSessionId".into());
    }
    let phase = match request_id {
        Some(rid) => Phase::Opening {
            request_id: Some(rid.to_string()),
            saw_config: false,
        },
        None => Phase::Ready,
    };
    let session = Session {
        phase,
        turns: HashMap::new(),
        active: None,
        item_turn: HashMap::new(),
        permissions: HashSet::new(),
    };
    conn.sessions.insert(sid.to_string(), session);
}

fn on_ready(conn: &mut Connection, sid: &str, request_id: Option<&str>, out: &mut Vec<String>) {
    if let Some(rid) = request_id {
        answer(conn, rid, "session.ready", out);
    }
    let Some(session) = conn.sessions.get_mut(sid) else {
        return;
    };
    match &session.phase {
        Phase::Opening {
            request_id: expected,
            saw_config,
            ..
        } => {
            if expected.as_deref() != request_id {
                out.push(format!("session.ready requestId {request_id:?} differs from session.opened's {expected:?}"));
            }
            if !saw_config {
                out.push("session.ready before any session.config".into());
            }
            session.phase = Phase::Ready;
        }
        Phase::Ready if request_id.is_none() => {}
        Phase::Ready | Phase::Closed => {
            out.push("session.ready for a session that is not opening".into())
        }
    }
}

fn on_item(session: &mut Session, event: &Value, out: &mut Vec<String>) {
    if let Phase::Opening {
        saw_config: false, ..
    } = session.phase
    {
        out.push("timeline.item during open before session.config".into());
    }
    let Some(id) = event.get("item").and_then(|i| s(i, "id")) else {
        return;
    };
    match (session.item_turn.get(id), &session.active) {
        (Some(turn), _) => {
            if session.turns.get(turn) == Some(&TurnPhase::Ended) {
                out.push(format!(
                    "timeline.item `{id}` of turn `{turn}` updated after the turn's terminal state"
                ));
            }
        }
        (None, Some(active)) => {
            session.item_turn.insert(id.to_string(), active.clone());
        }
        (None, None) => {}
    }
}

fn on_prompt_result(conn: &mut Connection, sid: &str, event: &Value, out: &mut Vec<String>) {
    let Some(cmid) = s(event, "clientMessageId") else {
        return;
    };
    match conn.prompts.get_mut(&(sid.to_string(), cmid.to_string())) {
        Some(count) => {
            *count += 1;
            if *count > 1 {
                out.push(format!(
                    "prompt_result #{count} for clientMessageId `{cmid}` (exactly one allowed)"
                ));
            }
        }
        None => out.push(format!(
            "prompt_result for clientMessageId `{cmid}`, which the host never sent"
        )),
    }
    let Some(session) = conn.sessions.get_mut(sid) else {
        return;
    };
    if matches!(session.phase, Phase::Opening { .. }) {
        out.push("prompt_result before session.ready".into());
    }
    let result = event.get("result");
    let rtype = result.and_then(|r| s(r, "type")).unwrap_or("");
    let turn = result.and_then(|r| s(r, "turnId"));
    match (rtype, turn) {
        ("turn", Some(turn)) => match session.turns.get(turn) {
            None => {
                session.turns.insert(turn.to_string(), TurnPhase::Announced);
            }
            Some(_) => out.push(format!(
                "prompt_result announces turn `{turn}`, which already started"
            )),
        },
        ("steer", Some(turn)) => {
            if session.active.as_deref() != Some(turn) {
                out.push(format!(
                    "steer result names turn `{turn}`, but the active turn is {:?}",
                    session.active
                ));
            }
        }
        _ => {}
    }
}

fn on_turn(session: &mut Session, event: &Value, out: &mut Vec<String>) {
    let (Some(turn), Some(state)) = (s(event, "turnId"), s(event, "state")) else {
        return;
    };
    if matches!(session.phase, Phase::Opening { .. }) {
        out.push("session.turn before session.ready".into());
    }
    let phase = session.turns.get(turn).copied();
    if state == "started" {
        match phase {
            None | Some(TurnPhase::Announced) => {}
            Some(_) => out.push(format!("turn `{turn}` started twice")),
        }
        if let Some(active) = &session.active {
            out.push(format!(
                "turn `{turn}` started while turn `{active}` is still active"
            ));
        }
        session.turns.insert(turn.to_string(), TurnPhase::Active);
        session.active = Some(turn.to_string());
        return;
    }
    match phase {
        Some(TurnPhase::Active) => {}
        Some(TurnPhase::Ended) => {
            out.push(format!("second terminal state `{state}` for turn `{turn}`"))
        }
        None | Some(TurnPhase::Announced) => out.push(format!(
            "terminal `{state}` for turn `{turn}`, which never started"
        )),
    }
    session.turns.insert(turn.to_string(), TurnPhase::Ended);
    if session.active.as_deref() == Some(turn) {
        session.active = None;
    }
}

fn on_closed(conn: &mut Connection, sid: &str, out: &mut Vec<String>) {
    if let Some(session) = conn.sessions.get_mut(sid) {
        if let Some(turn) = &session.active {
            out.push(format!(
                "session.closed while turn `{turn}` has no terminal state"
            ));
        }
        session.phase = Phase::Closed;
        session.active = None;
    }
    for ((psid, cmid), count) in &conn.prompts {
        if psid == sid && *count == 0 {
            out.push(format!(
                "session.closed while prompt `{cmid}` has no prompt_result"
            ));
        }
    }
}

#[cfg(test)]
#[path = "invariants_tests.rs"]
mod tests;
