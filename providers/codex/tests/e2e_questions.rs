//! The agent's own questions end to end with the real pinned `codex app-server`: the mock model
//! calls Codex's `request_user_input` tool, the question reaches the host as a
//! `session.permission` of kind `question`, and the host's answer (or dismissal, or an
//! interrupt) goes back to Codex, which hands it to the model as the tool's output.

mod common;

use common::mcp::{last_turn_request, offered_tools};
use common::*;
use mock_llm::{RecordedRequest, ScriptReply};
use pretty_assertions::assert_eq;
use serde_json::{json, Value};

fn ask_color() -> ScriptReply {
    ScriptReply::ToolCall {
        name: "request_user_input".into(),
        arguments: json!({"questions": [{
            "id": "color", "header": "Color", "question": "Which color should the button be?",
            "options": [
                {"label": "Red (Recommended)", "description": "Matches the brand."},
                {"label": "Blue", "description": "Calmer."}
            ]
        }]}),
    }
}

/// The output Codex gave the model for the `request_user_input` call (the request after it).
fn tool_output(request: &RecordedRequest) -> Value {
    let input = request.body["input"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let output = input
        .iter()
        .rev()
        .find(|i| i["type"] == "function_call_output")
        .unwrap_or_else(|| panic!("no tool output in {input:#?}"));
    let text = output["output"].as_str().unwrap_or_default();
    serde_json::from_str(text).unwrap_or_else(|_| json!(text))
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_of_the_agent_is_answered_by_the_user() {
    let Some(rig) = rig().await else { return };
    rig.open("s-q", json!({})).await;
    rig.mock.push_steps([ask_color()]);
    let (_, turn) = rig.start_turn("s-q", "pick a color with me").await;
    let (ask, id) = rig.wait_permission("s-q", None).await;
    assert_eq!(ask.at("/request/kind"), Some(&json!("question")), "{ask}");
    assert_eq!(ask.at("/request/name"), Some(&json!("request_user_input")));
    assert_eq!(
        ask.at("/request/input/questions"),
        Some(&json!([{
            "id": "color", "header": "Color", "question": "Which color should the button be?",
            "options": [
                {"label": "Red (Recommended)", "description": "Matches the brand."},
                {"label": "Blue", "description": "Calmer."}
            ],
            "isOther": true, "isSecret": false
        }])),
        "{ask}"
    );
    // Codex offered the tool (not vacuous: the model could call it).
    assert!(offered_tools(&last_turn_request(&rig.mock)).contains_key("request_user_input"));

    rig.answer_permission(
        "s-q",
        &id,
        json!({"behavior": "allow", "updatedInput": {"answers": {"Color": "Blue"}}}),
    )
    .await;
    rig.wait_resolved("s-q", &id).await;
    let end = rig.turn_end("s-q", &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    assert_eq!(
        tool_output(&last_turn_request(&rig.mock)),
        json!({"answers": {"color": {"answers": ["Blue"]}}})
    );
    rig.finish("s-q").await;
    rig.report("question-answered");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dismissed_question_gets_no_answer_and_the_turn_goes_on() {
    let Some(rig) = rig().await else { return };
    rig.open("s-qd", json!({})).await;
    rig.mock.push_steps([ask_color()]);
    let (_, turn) = rig.start_turn("s-qd", "pick a color with me").await;
    let (_, id) = rig.wait_permission("s-qd", None).await;
    rig.answer_permission(
        "s-qd",
        &id,
        json!({"behavior": "deny", "message": "not now"}),
    )
    .await;
    rig.wait_resolved("s-qd", &id).await;
    let end = rig.turn_end("s-qd", &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    assert_eq!(
        tool_output(&last_turn_request(&rig.mock)),
        json!({"answers": {}})
    );
    rig.finish("s-qd").await;
    rig.report("question-dismissed");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupt_cancels_a_pending_question_and_the_next_turn_works() {
    let Some(rig) = rig().await else { return };
    rig.open("s-qi", json!({})).await;
    rig.mock.push_steps([ask_color()]);
    let (_, turn) = rig.start_turn("s-qi", "pick a color with me").await;
    let (_, id) = rig.wait_permission("s-qi", None).await;
    let answer = rig.interrupt("s-qi").await;
    assert!(answer.is("request.completed"), "{answer}");
    rig.wait_resolved("s-qi", &id).await;
    let end = rig.turn_end("s-qi", &turn).await;
    assert_eq!(end.turn_state(), Some("canceled"), "{end}");

    let run = rig.run_turn("s-qi", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    assert!(last_assistant_text(&rig.timeline("s-qi")).starts_with("hi! (mock reply"));
    rig.finish("s-qi").await;
    rig.report("question-interrupted");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn denying_request_user_input_removes_the_question_tool() {
    let Some(rig) = rig().await else { return };
    rig.open("s-qn", json!({"deniedTools": ["AskUserQuestion"]}))
        .await;
    let run = rig.run_turn("s-qn", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let offered = offered_tools(&last_turn_request(&rig.mock));
    assert!(!offered.contains_key("request_user_input"), "{offered:#?}");
    assert!(offered.contains_key("exec_command"), "{offered:#?}");
    rig.finish("s-qn").await;
    rig.report("question-tool-denied");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_denied_with_interrupt_stops_the_turn() {
    let Some(rig) = rig().await else { return };
    rig.open("s-qx", json!({})).await;
    rig.mock.push_steps([ask_color()]);
    let (_, turn) = rig.start_turn("s-qx", "pick a color with me").await;
    let (_, id) = rig.wait_permission("s-qx", None).await;
    rig.answer_permission(
        "s-qx",
        &id,
        json!({"behavior": "deny", "message": "stop", "interrupt": true}),
    )
    .await;
    rig.wait_resolved("s-qx", &id).await;
    let end = rig.turn_end("s-qx", &turn).await;
    assert_eq!(end.turn_state(), Some("canceled"), "{end}");
    let run = rig.run_turn("s-qx", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish("s-qx").await;
    rig.report("question-denied-interrupt");
}
