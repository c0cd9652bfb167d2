//! Rewinding the conversation (`session.revert`, scope `conversation`) end to end, for every
//! provider that declares it (Claude Code resumes before the message, Codex rolls the thread
//! back): every user message carries a revert token; a revert to one drops that turn and the
//! later ones from what the model sees next, live, for a command turn, and after a reopen
//! (the replayed messages carry tokens too). A provider's test file calls these with its
//! [`RewindCase`]; what only one CLI can (Claude Code's `files` scope) stays with it.

use crate::{AgentRig, Bridge, Event};
use serde_json::{json, Value};

/// What differs per provider in the rewind scenarios.
#[derive(Debug, Clone, Copy)]
pub struct RewindCase {
    /// Installs a custom command whose prompt is `Say <text>` where the CLI finds it (the
    /// session's folder or the CLI's config folder); returns the name a `session.command`
    /// runs it by.
    pub install_command: fn(&AgentRig, &str) -> String,
    /// The CLI restores files too (else the `files` scope is refused at admission).
    pub files_scope: bool,
}

/// The body of the last model request of a turn (one that offers tools, not a side call such
/// as a title), as text.
pub fn last_turn_body(rig: &AgentRig) -> String {
    rig.mock
        .model_requests()
        .into_iter()
        .rev()
        .find(|r| !r.tool_names().is_empty())
        .map(|r| r.body.to_string())
        .expect("a model request of a turn")
}

/// The revert token of the user message whose text is `text`.
pub fn token_of(bridge: &Bridge, session_id: &str, text: &str) -> Value {
    let timeline = bridge.timeline(session_id);
    timeline
        .iter()
        .find(|i| i["type"] == "user_message" && i["text"] == text)
        .and_then(|i| i.get("revertToken").cloned())
        .filter(|t| !t.is_null())
        .unwrap_or_else(|| panic!("no revert token on `{text}`: {timeline:#?}"))
}

async fn revert(bridge: &Bridge, session_id: &str, token: Value) {
    let answer = revert_in(bridge, session_id, token, "conversation").await;
    assert!(answer.is("request.completed"), "{answer}");
}

/// Asks for a revert to `token` in `scope`; returns the answer.
pub async fn revert_in(bridge: &Bridge, session_id: &str, token: Value, scope: &str) -> Event {
    let sid = session_id.to_string();
    let scope = scope.to_string();
    bridge
        .ask("rev", move |rid| {
            json!({"type": "session.revert", "requestId": rid, "sessionId": sid, "token": token, "scope": scope})
        })
        .await
}

pub async fn completed_turn(bridge: &Bridge, session_id: &str, text: &str) {
    let run = bridge.run_turn(session_id, text).await;
    assert_eq!(run.state(), "completed", "{text}: {:?}", run.end);
}

/// The session's newest persistence handle (at open or published later).
pub fn latest_persistence(rig: &AgentRig, session_id: &str) -> Value {
    rig.host
        .session_events(session_id)
        .iter()
        .rev()
        .find_map(|e: &Event| match e.kind() {
            "session.persistence" | "session.opened" => e.at("/persistence").cloned(),
            _ => None,
        })
        .filter(|p| !p.is_null())
        .expect("a persistence handle")
}

/// Three turns, back to the second: it and the third are gone from what the model sees, the
/// first stays. After a close and a reopen with replay, the replayed first message's token
/// still rewinds.
pub async fn a_rewind_drops_the_later_turns_from_what_the_model_sees(
    rig: &AgentRig,
    case: RewindCase,
) {
    let sid = "rewind";
    rig.open(sid, json!({})).await;
    for text in ["first ALPHA-1", "second BRAVO-2", "third CHARLIE-3"] {
        completed_turn(rig, sid, text).await;
    }
    let body = last_turn_body(rig);
    assert!(
        body.contains("ALPHA-1") && body.contains("BRAVO-2"),
        "not vacuous"
    );

    revert(rig, sid, token_of(rig, sid, "second BRAVO-2")).await;
    completed_turn(rig, sid, "fourth DELTA-4").await;
    let body = last_turn_body(rig);
    assert!(
        body.contains("ALPHA-1") && body.contains("DELTA-4"),
        "{body}"
    );
    assert!(
        !body.contains("BRAVO-2") && !body.contains("CHARLIE-3"),
        "{body}"
    );

    if !case.files_scope {
        let first = token_of(rig, sid, "first ALPHA-1");
        let refused = rig
            .host
            .send(&rig.conn, json!({"type": "session.revert", "requestId": "rev-files", "sessionId": sid, "token": first, "scope": "files"}))
            .await;
        assert!(refused.is_err(), "files scope admitted");
    }
    rig.finish(sid).await;

    // After a reopen the replayed user messages carry tokens that still rewind.
    let persistence = latest_persistence(rig, sid);
    let bridge = rig.reconnect().await;
    let again = "rewind-reopened";
    bridge.resume(again, json!({}), persistence).await;
    let texts: Vec<Value> = bridge
        .timeline(again)
        .into_iter()
        .filter(|i| i["type"] == "user_message")
        .map(|i| i["text"].clone())
        .collect();
    assert_eq!(texts, vec![json!("first ALPHA-1"), json!("fourth DELTA-4")]);
    revert(&bridge, again, token_of(&bridge, again, "first ALPHA-1")).await;
    completed_turn(&bridge, again, "fifth ECHO-5").await;
    let body = last_turn_body(rig);
    assert!(body.contains("ECHO-5"), "{body}");
    for gone in ["ALPHA-1", "BRAVO-2", "CHARLIE-3", "DELTA-4"] {
        assert!(!body.contains(gone), "{gone} still sent: {body}");
    }
    bridge.finish(again).await;
}

/// A custom command's turn carries a revert token like a prompt's; back to before it, it and
/// the later turn are gone, the first stays.
pub async fn a_command_turn_carries_a_revert_token_and_rewinds(rig: &AgentRig, case: RewindCase) {
    let sid = "rewind-command";
    let command = (case.install_command)(rig, "COMMAND-MARK-31");
    rig.open(sid, json!({})).await;
    completed_turn(rig, sid, "first KEEP-ME-1").await;
    let cmid = rig.host.unique("cmd");
    rig.send(crate::input::command(sid, &cmid, &command, ""))
        .await;
    let result = rig.prompt_result(sid, &cmid).await;
    assert_eq!(result["type"], "turn", "{result}");
    let turn_id = result["turnId"].as_str().unwrap_or_default().to_string();
    let end = rig.turn_end(sid, &turn_id).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    let row = rig
        .timeline(sid)
        .into_iter()
        .find(|i| i["id"] == format!("user:{turn_id}"))
        .expect("the command turn's user row");
    let token = row["revertToken"].clone();
    assert!(!token.is_null(), "{row}");
    completed_turn(rig, sid, "after AFTER-ME-3").await;
    assert!(
        last_turn_body(rig).contains("COMMAND-MARK-31"),
        "not vacuous"
    );

    revert(rig, sid, token).await;
    completed_turn(rig, sid, "next NEXT-4").await;
    let body = last_turn_body(rig);
    assert!(
        body.contains("KEEP-ME-1") && body.contains("NEXT-4"),
        "{body}"
    );
    assert!(
        !body.contains("COMMAND-MARK-31") && !body.contains("AFTER-ME-3"),
        "{body}"
    );
    rig.finish(sid).await;
}
