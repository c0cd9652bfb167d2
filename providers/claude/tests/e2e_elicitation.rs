//! End-to-end: MCP elicitation (real bridge, real pinned `claude`, mock model, the MCP stdio
//! server `tests/mock-llm/fixtures/mcp-elicit.mjs`). The model calls the server's tool; the
//! server asks the user (`elicitation/create`); the CLI forwards it as the control request
//! `elicitation`; the bridge raises a `question` permission with one question per form field;
//! the user's answer goes back typed by the schema (`accept` + content) and a dismissal is
//! `decline`. The pinned CLI refuses URL-mode requests itself. The tool's result, which
//! the model sees, says what the server got.

mod common;

use common::*;
use mock_llm::ScriptReply;
use serde_json::{json, Value};

fn call(tool: &str) -> ScriptReply {
    ScriptReply::ToolCall {
        name: format!("mcp__elicit__{tool}"),
        arguments: json!({}),
    }
}

/// Waits for the next elicitation question (a permission not in `seen`), allowing the MCP
/// tool's own permission on the way.
async fn wait_question(rig: &Rig, sid: &str, seen: &mut Vec<String>) -> (Value, String) {
    loop {
        let ask = rig.next_permission(sid, seen).await;
        let id = ask.string_at("/request/id");
        let request = ask.at("/request").cloned().unwrap_or(Value::Null);
        if request["kind"] == "question" {
            return (request, id);
        }
        assert_eq!(request["kind"], "tool", "{request}");
        rig.answer_permission(sid, &id, json!({"behavior": "allow"}))
            .await;
        rig.wait_resolved(sid, &id).await;
    }
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_elicitation_is_a_question_answered_or_declined() {
    let Some(rig) = patient_rig().await else {
        return;
    };
    let node = mock_llm::node_program();
    let server = json!({"type": "stdio", "command": node,
        "args": [mock_llm::mcp_elicit_fixture().display().to_string()]});
    rig.open("s-el", json!({"mcpServers": {"elicit": server}}))
        .await;

    let mut seen = Vec::new();
    // A form: one question per field, the answer typed by the schema.
    rig.mock.push_steps([call("pick"), ScriptReply::Default]);
    let (_, turn) = rig.start_turn("s-el", "pick a color").await;
    let (request, id) = wait_question(&rig, "s-el", &mut seen).await;
    assert_eq!(request["name"], "mcp_elicitation", "{request}");
    assert_eq!(request["title"], "Pick a color for the widget");
    assert_eq!(request["input"]["server"], "elicit");
    let questions = request["input"]["questions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let headers: Vec<&str> = questions
        .iter()
        .filter_map(|q| q["header"].as_str())
        .collect();
    assert_eq!(headers, ["Color", "Count"], "{request}");
    let labels: Vec<&str> = questions[0]["options"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| o["label"].as_str())
        .collect();
    assert_eq!(labels, ["Red", "Blue"]);
    rig.answer_permission(
        "s-el",
        &id,
        json!({"behavior": "allow", "updatedInput": {"answers": {"Color": "Blue", "Count": "3"}}}),
    )
    .await;
    rig.wait_resolved("s-el", &id).await;
    let end = rig.turn_end("s-el", &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end:?}");
    let results = last_tool_results(&rig);
    assert!(
        results.contains(r#"ELICIT action=accept content={\"color\":\"blue\",\"count\":3}"#),
        "the server got the typed answer: {results}"
    );

    // Dismissed: the server is told `decline`; the turn goes on.
    rig.mock.push_steps([call("pick"), ScriptReply::Default]);
    let (_, turn) = rig.start_turn("s-el", "pick again").await;
    let (_, id) = wait_question(&rig, "s-el", &mut seen).await;
    rig.answer_permission("s-el", &id, json!({"behavior": "deny"}))
        .await;
    rig.wait_resolved("s-el", &id).await;
    let end = rig.turn_end("s-el", &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end:?}");
    let results = last_tool_results(&rig);
    assert!(results.contains("ELICIT action=decline"), "{results}");

    // URL mode: claude 2.1.197 declares form-mode elicitation only, so it refuses a URL
    // request itself (the server's tool reports the error) and nobody is asked. The bridge maps
    // URL mode too (Codex forwards it); this checks the pinned CLI still refuses it.
    rig.mock.push_steps([call("visit"), ScriptReply::Default]);
    let (_, turn) = rig.start_turn("s-el", "visit the page").await;
    let end = loop {
        let ask = rig
            .host
            .wait_event(
                |e| {
                    (e.is_for("session.permission", "s-el")
                        && !seen.iter().any(|s| {
                            Some(s.as_str()) == e.at("/request/id").and_then(Value::as_str)
                        }))
                        || (e.is_for("session.turn", "s-el")
                            && e.at("/turnId").and_then(Value::as_str) == Some(turn.as_str())
                            && e.turn_state() != Some("started"))
                },
                STEP,
            )
            .await
            .expect("a permission or the turn end");
        if ask.kind() == "session.turn" {
            break ask;
        }
        let request = ask.at("/request").cloned().unwrap_or(Value::Null);
        assert_eq!(
            request["kind"], "tool",
            "URL mode reached the host: {request}"
        );
        let id = ask.string_at("/request/id");
        seen.push(id.clone());
        rig.answer_permission("s-el", &id, json!({"behavior": "allow"}))
            .await;
    };
    assert_eq!(end.turn_state(), Some("completed"), "{end:?}");
    let results = last_tool_results(&rig);
    assert!(
        results.contains("does not support URL-mode elicitation"),
        "{results}"
    );

    rig.finish("s-el").await;
    rig.report("mcp-elicitation");
}
