//! The per-event rules of [`InvariantChecker`](super::InvariantChecker), one function per
//! event kind that needs more than a lookup.

use super::{s, Connection, Phase, ReqKind, Session, TurnPhase};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

pub(super) fn answer(conn: &mut Connection, rid: &str, kind: &str, out: &mut Vec<String>) {
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

pub(super) fn on_opened(
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

pub(super) fn on_ready(
    conn: &mut Connection,
    sid: &str,
    request_id: Option<&str>,
    out: &mut Vec<String>,
) {
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

pub(super) fn on_item(session: &mut Session, event: &Value, out: &mut Vec<String>) {
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

pub(super) fn on_prompt_result(
    conn: &mut Connection,
    sid: &str,
    event: &Value,
    out: &mut Vec<String>,
) {
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
        ("steer", Some(turn)) if session.active.as_deref() != Some(turn) => {
            out.push(format!(
                "steer result names turn `{turn}`, but the active turn is {:?}",
                session.active
            ));
        }
        _ => {}
    }
}

pub(super) fn on_turn(session: &mut Session, event: &Value, out: &mut Vec<String>) {
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

pub(super) fn on_closed(conn: &mut Connection, sid: &str, out: &mut Vec<String>) {
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
