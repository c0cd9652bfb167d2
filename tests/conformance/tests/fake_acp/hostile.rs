//! An agent that misbehaves: a prompt answered with an error, updates for another session or
//! none, requests the bridge does not serve or that name no session, a mode it refuses, a
//! `session/new` it refuses.

use super::{modes, say, FakeRig};
use agent_bridge_conformance::rig::last_assistant_text;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};

/// Every answer the bridge gave to the fake's requests, in order (results and errors).
fn answers(rig: &FakeRig) -> Vec<Value> {
    rig.received()
        .into_iter()
        .filter(|m| m["msg"].get("method").is_none() && m["msg"].get("id").is_some())
        .map(|m| m["msg"].clone())
        .collect()
}

/// A `session/prompt` answered with a JSON-RPC error fails the turn with the agent's message;
/// the next turn works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_answered_with_an_error_fails_the_turn() {
    let rig = FakeRig::start(json!({"turns": [{
        "match": "overload",
        "steps": [say("partial"), {"fail": {"code": -32603, "message": "model overloaded"}}]
    }]}))
    .await;
    rig.open("s", json!({})).await;
    let run = rig.run_turn("s", "overload it").await;
    assert_eq!(run.state(), "failed", "{:?}", run.end);
    let end = run.end.clone();
    assert!(
        end.string_at("/error/message").contains("model overloaded"),
        "{end}"
    );
    let run = rig.run_turn("s", "again").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish("s").await;
}

/// An update naming another session shows nowhere; one naming none goes to every session of
/// the process (core's `ByParam` route: a notification without `sessionId` is for all), here
/// the one session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_update_for_another_session_shows_nowhere() {
    let stray = |sid: Option<&str>, text: &str| -> Value {
        let mut params = json!({"update": {"sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": text}}});
        if let Some(sid) = sid {
            params["sessionId"] = json!(sid);
        }
        json!({"raw": json!({"jsonrpc": "2.0", "method": "session/update", "params": params}).to_string()})
    };
    let rig = FakeRig::start(json!({"turns": [{
        "match": "stray",
        "steps": [stray(Some("fake-999"), "STRAY-OTHER"), stray(None, "STRAY-NONE"), say("mine")]
    }]}))
    .await;
    rig.open("s", json!({})).await;
    let run = rig.run_turn("s", "stray updates").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    assert_eq!(last_assistant_text(&rig.timeline("s")), "STRAY-NONEmine");
    let shown = rig
        .host
        .events()
        .iter()
        .any(|e| e.event.to_string().contains("STRAY-OTHER"));
    assert!(!shown, "another session's update was shown");
    rig.finish("s").await;
}

/// Requests the bridge does not serve (`fs/*`, `terminal/*`, unknown methods) are answered
/// with "Method not found", and the turn goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_the_bridge_does_not_serve_are_refused() {
    let rig = FakeRig::start(json!({"turns": [{
        "match": "ask",
        "steps": [
            {"request": {"method": "fs/read_text_file", "params": {"sessionId": "fake-1", "path": "/etc/hostname"}}},
            {"request": {"method": "terminal/create", "params": {"sessionId": "fake-1", "command": "ls"}}},
            {"request": {"method": "x_vendor/whatever", "params": {}}},
            say("after"),
        ]
    }]}))
    .await;
    rig.open("s", json!({})).await;
    let run = rig.run_turn("s", "ask the client").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    assert_eq!(last_assistant_text(&rig.timeline("s")), "after");
    let answers = answers(&rig);
    let codes: Vec<Value> = answers.iter().map(|a| a["error"]["code"].clone()).collect();
    assert_eq!(
        codes,
        vec![json!(-32601), json!(-32601), json!(-32601)],
        "{answers:#?}"
    );
    rig.finish("s").await;
}

/// A permission request naming no session is refused (an error answer); nobody is asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permission_request_naming_no_session_is_refused() {
    let rig = FakeRig::start(json!({"turns": [{
        "match": "orphan",
        "steps": [
            {"request": {"method": "session/request_permission", "params": {
                "toolCall": {"toolCallId": "o1", "title": "rm -rf /", "kind": "execute"},
                "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}]}}},
            say("went on"),
        ]
    }]}))
    .await;
    rig.open("s", json!({})).await;
    let run = rig.run_turn("s", "orphan permission").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let asked = rig.host.events().iter().any(|e| e.is("session.permission"));
    assert!(!asked, "nobody is asked");
    let answers = answers(&rig);
    assert_eq!(answers.len(), 1, "{answers:#?}");
    assert!(answers[0].get("error").is_some(), "refused: {answers:#?}");
    rig.finish("s").await;
}

/// The agent refusing `session/set_mode`: the configure fails and the committed mode stays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mode_the_agent_refuses_fails_the_configure() {
    let rig = FakeRig::start(json!({"modes": modes(), "refuse": ["session/set_mode"]})).await;
    rig.open("s", json!({})).await;
    let answer = rig.configure("s", json!({"mode": "yolo"})).await;
    assert!(answer.is("request.failed"), "{answer}");
    assert_eq!(
        rig.committed_config("s").at("/config/mode"),
        Some(&json!("ask"))
    );
    let run = rig.run_turn("s", "still fine").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish("s").await;
}

/// The agent refusing `session/new`: the open fails, nothing of the session is left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_refusing_session_new_fails_the_open() {
    let rig = FakeRig::start(json!({"refuse": ["session/new"]})).await;
    let rid = rig.host.unique("open");
    let config = agent_bridge_conformance::input::session_config(&rig.cwd(), json!({}));
    rig.send(agent_bridge_conformance::input::open(&rid, "s", config))
        .await;
    let answer = rig
        .host
        .wait_answer(&rid, agent_bridge_conformance::rig::STEP)
        .await
        .expect("an answer");
    assert!(answer.is("request.failed"), "{answer}");
    rig.host.assert_invariants();
}
