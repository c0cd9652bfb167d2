//! `session/request_permission` through the bridge: the agent's options as actions, allow,
//! deny, the `allow_always` option chosen by its action id, an interrupt answering a pending
//! request `cancelled`, and a mode in which the agent does not ask.

use super::{modes, say, FakeRig};
use agent_bridge_conformance::rig::{last_assistant_text, of_type};
use pretty_assertions::assert_eq;
use serde_json::{json, Value};

/// A turn that asks before `touch f` (not in mode `yolo`), with `options` (none: the fake's
/// allow once / always / reject once).
pub fn asking(options: Option<Value>) -> Value {
    let call = json!({"toolCallId": "t1", "title": "touch f", "kind": "execute",
        "rawInput": {"command": "touch f"}});
    let mut permission = json!({
        "toolCall": call,
        "unlessMode": "yolo",
        "onAllow": [
            {"update": {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed",
                "content": [{"type": "content", "content": {"type": "text", "text": "touched"}}]}},
            say("ran it"),
        ],
        "onReject": [
            {"update": {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "failed"}},
            say("did not run it"),
        ],
    });
    if let Some(options) = options {
        permission["options"] = options;
    }
    json!({
        "modes": modes(),
        "turns": [{
            "match": "touch",
            "steps": [
                {"update": {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "touch f",
                    "kind": "execute", "status": "pending", "rawInput": {"command": "touch f"}}},
                {"permission": permission},
            ]
        }]
    })
}

/// Runs the asking turn, answers its permission with `response`; returns the rig, the
/// permission event and the turn's end.
async fn answered(
    scenario: Value,
    response: Value,
) -> (
    FakeRig,
    agent_bridge_conformance::Event,
    agent_bridge_conformance::Event,
) {
    let rig = FakeRig::start(scenario).await;
    rig.open("s", json!({})).await;
    let (_, turn) = rig.start_turn("s", "please touch f").await;
    let (ask, pid) = rig.wait_permission("s", None).await;
    rig.answer_permission("s", &pid, response).await;
    let end = rig.turn_end("s", &turn).await;
    (rig, ask, end)
}

fn chosen(rig: &FakeRig) -> Vec<Value> {
    rig.answers()
        .into_iter()
        .map(|a| a["outcome"].clone())
        .collect()
}

/// Allowed: the agent's options are the actions, `allow_once` is chosen, the call completes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permission_allowed_runs_the_call() {
    let (rig, ask, end) = answered(asking(None), json!({"behavior": "allow"})).await;
    let actions: Vec<(Value, Value)> = ask
        .at("/request/actions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|a| (a["id"].clone(), a["behavior"].clone()))
        .collect();
    assert_eq!(
        actions,
        vec![
            (json!("allow"), json!("allow")),
            (json!("always"), json!("allow")),
            (json!("reject"), json!("deny"))
        ]
    );
    assert_eq!(
        ask.at("/request/detail/type"),
        Some(&json!("shell")),
        "{ask}"
    );
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    assert_eq!(
        chosen(&rig),
        vec![json!({"outcome": "selected", "optionId": "allow"})]
    );
    let timeline = rig.timeline("s");
    let tools = of_type(&timeline, "tool_call");
    assert_eq!(tools.len(), 1, "{timeline:#?}");
    assert_eq!(tools[0]["status"], "completed", "{}", tools[0]);
    assert_eq!(last_assistant_text(&timeline), "ran it");
    rig.finish("s").await;
}

/// Denied: `reject_once` is chosen, the call fails, the turn still completes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permission_denied_fails_the_call() {
    let (rig, _, end) = answered(asking(None), json!({"behavior": "deny", "message": "no"})).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    assert_eq!(
        chosen(&rig),
        vec![json!({"outcome": "selected", "optionId": "reject"})]
    );
    let timeline = rig.timeline("s");
    assert_eq!(of_type(&timeline, "tool_call")[0]["status"], "failed");
    assert_eq!(last_assistant_text(&timeline), "did not run it");
    rig.finish("s").await;
}

/// The `allow_always` action chosen by its id is the option sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allow_always_is_the_option_chosen() {
    let (rig, _, end) = answered(
        asking(None),
        json!({"behavior": "allow", "selectedActionId": "always"}),
    )
    .await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    assert_eq!(
        chosen(&rig),
        vec![json!({"outcome": "selected", "optionId": "always"})]
    );
    rig.finish("s").await;
}

/// A deny naming an allow action is still a deny (the reject option); an agent offering only
/// `*_always` options gets those.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_answer_s_behavior_wins_over_a_mismatched_action() {
    let (rig, _, end) = answered(
        asking(None),
        json!({"behavior": "deny", "selectedActionId": "allow"}),
    )
    .await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    assert_eq!(
        chosen(&rig),
        vec![json!({"outcome": "selected", "optionId": "reject"})]
    );
    rig.finish("s").await;

    let only_always = json!([
        {"optionId": "yes-always", "name": "Always", "kind": "allow_always"},
        {"optionId": "never", "name": "Never", "kind": "reject_always"},
    ]);
    let (rig, _, end) = answered(asking(Some(only_always)), json!({"behavior": "allow"})).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    assert_eq!(
        chosen(&rig),
        vec![json!({"outcome": "selected", "optionId": "yes-always"})]
    );
    rig.finish("s").await;
}

/// An interrupt while the permission is pending answers it `cancelled`, resolves it and
/// cancels the turn; the next turn works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupt_with_a_pending_permission_answers_it_cancelled() {
    let rig = FakeRig::start(asking(None)).await;
    rig.open("s", json!({})).await;
    let (_, turn) = rig.start_turn("s", "please touch f").await;
    let (_, pid) = rig.wait_permission("s", None).await;
    let answer = rig.interrupt("s").await;
    assert!(answer.is("request.completed"), "{answer}");
    rig.wait_resolved("s", &pid).await;
    let end = rig.turn_end("s", &turn).await;
    assert_eq!(end.turn_state(), Some("canceled"), "{end}");
    assert_eq!(chosen(&rig), vec![json!({"outcome": "cancelled"})]);
    let run = rig.run_turn("s", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish("s").await;
}

/// Opened in the agent's unattended mode (`unattendedModes` of the entry), the agent does not
/// ask and the call runs; the mode is marked unattended in the catalog.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_unattended_mode_runs_without_asking() {
    let rig = FakeRig::start_with(asking(None), json!({"unattendedModes": ["yolo"]})).await;
    rig.open("s", json!({"mode": "yolo"})).await;
    let run = rig.run_turn("s", "please touch f").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let asked = rig
        .host
        .session_events("s")
        .iter()
        .any(|e| e.is("session.permission"));
    assert!(!asked, "the unattended mode asked");
    assert_eq!(last_assistant_text(&rig.timeline("s")), "ran it");
    let answer = rig
        .ask("cat", |rid| {
            json!({"type": "catalog", "requestId": rid, "cwd": rig.cwd().display().to_string()})
        })
        .await;
    assert!(answer.is("catalog"), "{answer}");
    let modes = answer.at("/catalog/modes").cloned().unwrap_or_default();
    let yolo = modes
        .as_array()
        .into_iter()
        .flatten()
        .find(|m| m["id"] == "yolo")
        .cloned()
        .unwrap_or_default();
    assert_eq!(yolo["isUnattended"], json!(true), "{modes:#}");
    rig.finish("s").await;
}
