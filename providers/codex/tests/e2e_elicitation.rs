//! MCP elicitation end to end with the real pinned `codex app-server`: the mock model calls a
//! tool of the MCP stdio server `tests/mock-llm/fixtures/mcp-elicit.mjs`, the server asks the
//! user (`elicitation/create`), Codex forwards it as `mcpServer/elicitation/request`, and the
//! bridge raises a `question` permission with one question per form field (or the URL). The
//! answer goes back typed by the schema (`accept` + content), a dismissal is `decline`, an
//! interrupt is `cancel`; the tool's output, which the model sees, says what the server got.

mod common;

use common::mcp::last_turn_request;
use common::*;
use mock_llm::ScriptReply;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};

fn call(tool: &str) -> ScriptReply {
    ScriptReply::NamespacedToolCall {
        namespace: "mcp__elicit".into(),
        name: tool.into(),
        arguments: json!({}),
    }
}

fn server() -> Value {
    json!({"elicit": {"type": "stdio", "command": mock_llm::node_program(),
        "args": [mock_llm::mcp_elicit_fixture().display().to_string()]}})
}

/// Every tool output Codex gave the model in the turn's last request, as one text.
fn tool_outputs(rig: &Rig) -> String {
    let request = last_turn_request(&rig.mock);
    request.body["input"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| i["type"] == "function_call_output")
        .map(|i| i["output"].to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Waits for the next elicitation question (a permission not in `seen`). Codex's own approval
/// of the MCP tool call may come first: it is a tool permission, allowed for the session, and
/// its request is kept in `approvals`.
async fn wait_question(
    rig: &Rig,
    sid: &str,
    seen: &mut Vec<String>,
    approvals: &mut Vec<Value>,
) -> (Value, String) {
    loop {
        let ask = rig.next_permission(sid, seen).await;
        let id = ask.string_at("/request/id");
        let request = ask.at("/request").cloned().unwrap_or(Value::Null);
        if request["name"] == "mcp_elicitation" {
            return (request, id);
        }
        approvals.push(request);
        rig.answer_permission(
            sid,
            &id,
            json!({"behavior": "allow", "selectedActionId": "allow_session"}),
        )
        .await;
        rig.wait_resolved(sid, &id).await;
    }
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_elicitation_is_a_question_answered_declined_or_visited() {
    // `auto`: in `full-access` (approval policy `never`) Codex declines every elicitation itself.
    let Some(rig) = rig().await else { return };
    rig.open("s-el", json!({"mcpServers": server(), "mode": "auto"}))
        .await;
    let (mut seen, mut approvals) = (Vec::new(), Vec::new());

    // A form: one question per field; the answer typed by the schema.
    rig.mock.push_steps([call("pick"), ScriptReply::Default]);
    let (_, turn) = rig.start_turn("s-el", "pick a color").await;
    let (request, id) = wait_question(&rig, "s-el", &mut seen, &mut approvals).await;
    assert_eq!(request["kind"], "question", "{request}");
    assert_eq!(request["title"], "Pick a color for the widget");
    assert_eq!(request["input"]["server"], "elicit");
    assert_eq!(
        request["input"]["questions"],
        json!([
            {"id": "color", "header": "Color", "question": "Which color?",
             "options": [{"label": "Red", "description": ""}, {"label": "Blue", "description": ""}],
             "isOther": false, "isSecret": false},
            {"id": "count", "header": "Count", "question": "How many widgets?", "options": [],
             "isOther": true, "isSecret": false}
        ]),
        "{request}"
    );
    rig.answer_permission(
        "s-el",
        &id,
        json!({"behavior": "allow", "updatedInput": {"answers": {"Color": "Blue", "Count": "3"}}}),
    )
    .await;
    rig.wait_resolved("s-el", &id).await;
    let end = rig.turn_end("s-el", &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    let outputs = tool_outputs(&rig);
    assert!(
        outputs.contains(r#"ELICIT action=accept content={\"color\":\"blue\",\"count\":3}"#),
        "the server got the typed answer: {outputs}"
    );
    // In `auto` mode Codex first asked to run the tool (an elicitation of its own): a tool
    // permission, not a question, offering "allow for this session".
    assert_eq!(approvals.len(), 1, "{approvals:#?}");
    assert_eq!(approvals[0]["kind"], "tool");
    assert_eq!(approvals[0]["name"], "mcp__elicit__pick");
    let actions: Vec<&str> = approvals[0]["actions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a["id"].as_str())
        .collect();
    assert_eq!(actions, ["allow_once", "allow_session", "deny"]);

    // Dismissed: the server is told `decline`; the turn goes on.
    rig.mock.push_steps([call("pick"), ScriptReply::Default]);
    let (_, turn) = rig.start_turn("s-el", "pick again").await;
    let (_, id) = wait_question(&rig, "s-el", &mut seen, &mut approvals).await;
    rig.answer_permission("s-el", &id, json!({"behavior": "deny"}))
        .await;
    rig.wait_resolved("s-el", &id).await;
    let end = rig.turn_end("s-el", &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    let outputs = tool_outputs(&rig);
    assert!(outputs.contains("ELICIT action=decline"), "{outputs}");
    assert_eq!(
        approvals.len(),
        1,
        "allowed for the session: not asked again"
    );

    // URL mode: the question carries the address; answering it accepts.
    rig.mock.push_steps([call("visit"), ScriptReply::Default]);
    let (_, turn) = rig.start_turn("s-el", "visit the page").await;
    let (request, id) = wait_question(&rig, "s-el", &mut seen, &mut approvals).await;
    assert_eq!(request["metadata"]["mode"], "url", "{request}");
    assert_eq!(request["metadata"]["url"], "http://127.0.0.1:9/continue");
    rig.answer_permission("s-el", &id, json!({"behavior": "allow"}))
        .await;
    rig.wait_resolved("s-el", &id).await;
    let end = rig.turn_end("s-el", &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    let outputs = tool_outputs(&rig);
    assert!(
        outputs.contains("ELICIT action=accept content={}"),
        "{outputs}"
    );

    rig.finish("s-el").await;
    rig.report("mcp-elicitation");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupt_cancels_a_pending_elicitation() {
    let Some(rig) = rig().await else { return };
    rig.open("s-eli", json!({"mcpServers": server(), "mode": "auto"}))
        .await;
    let mut seen = Vec::new();
    rig.mock.push_steps([call("pick"), ScriptReply::Default]);
    let (_, turn) = rig.start_turn("s-eli", "pick a color").await;
    let (_, id) = wait_question(&rig, "s-eli", &mut seen, &mut Vec::new()).await;
    rig.interrupt("s-eli").await;
    rig.wait_resolved("s-eli", &id).await;
    let end = rig.turn_end("s-eli", &turn).await;
    assert_eq!(end.turn_state(), Some("canceled"), "{end}");
    // The session goes on.
    let run = rig.run_turn("s-eli", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish("s-eli").await;
    rig.report("mcp-elicitation-interrupted");
}
