//! End-to-end: the agent's own questions (real bridge, real pinned `claude`, mock model). The
//! model calls `AskUserQuestion`; the bridge raises a `question` permission with the questions
//! and options; an answer reaches the model natively (the tool's result), a dismissal denies
//! the tool, an interrupt cancels the turn and settles the question.

mod common;

use common::*;
use mock_llm::ScriptReply;
use serde_json::{json, Value};
use std::time::Duration;

fn ask_fruit() -> ScriptReply {
    ScriptReply::ToolCall {
        name: "AskUserQuestion".into(),
        arguments: json!({"questions": [{
            "question": "Which fruit?",
            "header": "Fruit",
            "options": [
                {"label": "Apple", "description": "red"},
                {"label": "Pear", "description": "green"}
            ],
            "multiSelect": false
        }]}),
    }
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_is_answered_dismissed_or_interrupted() {
    let Some(rig) = patient_rig().await else {
        return;
    };
    rig.open("s-q", json!({})).await;

    // Answered: the question and its options reach the host; the answer reaches the model.
    rig.mock.push_steps([ask_fruit(), ScriptReply::Default]);
    let (_, turn) = rig.start_turn("s-q", "ask me about fruit").await;
    let (ask, id) = rig.wait_permission("s-q", None).await;
    let request = ask.at("/request").cloned().unwrap_or(Value::Null);
    assert_eq!(request["kind"], "question", "{request}");
    assert_eq!(request["name"], "AskUserQuestion");
    assert_eq!(request["title"], "Which fruit?");
    let labels: Vec<&str> = request["input"]["questions"][0]["options"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| o["label"].as_str())
        .collect();
    assert_eq!(labels, ["Apple", "Pear"]);
    rig.answer_permission(
        "s-q",
        &id,
        json!({"behavior": "allow", "updatedInput": {"answers": {"Which fruit?": "Pear"}}}),
    )
    .await;
    rig.wait_resolved("s-q", &id).await;
    let end = rig.turn_end("s-q", &turn).await;
    assert_eq!(end.turn_state(), Some("completed"));
    let results = last_tool_results(&rig);
    assert!(
        results.contains(r#"\"Which fruit?\"=\"Pear\""#),
        "the model got the answer: {results}"
    );

    // Dismissed: the tool is denied with a message the model sees; the turn goes on.
    rig.mock.push_steps([ask_fruit(), ScriptReply::Default]);
    let (_, turn) = rig.start_turn("s-q", "ask me again").await;
    let (_, id2) = rig.wait_permission("s-q", Some(&id)).await;
    rig.answer_permission("s-q", &id2, json!({"behavior": "deny"}))
        .await;
    rig.wait_resolved("s-q", &id2).await;
    let end = rig.turn_end("s-q", &turn).await;
    assert_eq!(end.turn_state(), Some("completed"));
    let results = last_tool_results(&rig);
    assert!(
        results.contains("dismissed the question"),
        "the model was told: {results}"
    );

    // Interrupted while the question waits: the turn is canceled, the question settled.
    rig.mock.push_steps([ask_fruit(), ScriptReply::Default]);
    let (_, turn) = rig.start_turn("s-q", "one more question").await;
    let (_, id3) = rig
        .host
        .wait_event(
            |e| {
                e.is_for("session.permission", "s-q")
                    && ![id.as_str(), id2.as_str()]
                        .contains(&e.at("/request/id").and_then(Value::as_str).unwrap_or(""))
            },
            STEP,
        )
        .await
        .map(|e| {
            let pid = e.string_at("/request/id");
            (e, pid)
        })
        .expect("third question");
    let answer = rig.interrupt("s-q").await;
    assert!(answer.is("request.completed"), "{answer}");
    let end = rig
        .turn_end_within("s-q", &turn, Duration::from_secs(20))
        .await;
    assert_eq!(end.turn_state(), Some("canceled"));
    rig.wait_resolved("s-q", &id3).await;
    rig.finish("s-q").await;
    rig.report("ask-user-question");
}
