//! MCP elicitation end to end, for every provider whose CLI forwards it (Claude Code's control
//! request `elicitation`, Codex's `mcpServer/elicitation/request`): the mock model calls a tool
//! of the MCP stdio server `tests/mock-llm/fixtures/mcp-elicit.mjs`, the server asks the user
//! (`elicitation/create`), and the bridge raises a `question` permission with one question per
//! form field. The answer goes back typed by the schema (`accept` + content), a dismissal is
//! `decline`, an interrupt `cancel`; the tool's result, which the model sees, says what the
//! server got. A provider's test file calls these with its [`ElicitationCase`].

use crate::{AgentRig, Event};
use mock_llm::ScriptReply;
use serde_json::{json, Value};

/// How a CLI treats URL-mode elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlMode {
    /// Forwarded: the question carries the address; answering it accepts.
    Asked,
    /// Refused by the CLI itself (the tool reports it); nobody is asked.
    RefusedByCli,
}

/// What differs per provider in the elicitation scenarios.
#[derive(Debug, Clone, Copy)]
pub struct ElicitationCase {
    /// How the model calls tool `tool` of the MCP server named `elicit`.
    pub call: fn(&str) -> ScriptReply,
    /// The mode the session opens in (`None`: the default), one in which the CLI forwards
    /// elicitations instead of declining them itself.
    pub mode: Option<&'static str>,
    /// The answer to the CLI's own permission to call the MCP tool.
    pub allow_tool: fn() -> Value,
    /// When the CLI asks for the MCP tool once per session: the actions it offers.
    pub tool_asked_once_with: Option<&'static [&'static str]>,
    pub url_mode: UrlMode,
}

const SID: &str = "elicit";

fn server() -> Value {
    json!({"elicit": {"type": "stdio", "command": mock_llm::node_program(),
        "args": [mock_llm::mcp_elicit_fixture().display().to_string()]}})
}

async fn open(rig: &AgentRig, sid: &str, case: ElicitationCase) {
    let mut patch = json!({ "mcpServers": server() });
    if let Some(mode) = case.mode {
        patch["mode"] = json!(mode);
    }
    rig.open(sid, patch).await;
}

/// The output of the last tool result the CLI gave the model.
fn last_tool_result(rig: &AgentRig) -> String {
    rig.mock
        .model_requests()
        .iter()
        .rev()
        .find_map(|r| r.tool_result())
        .unwrap_or_default()
}

/// Waits for the next elicitation question (a permission not in `seen`), allowing the CLI's
/// own permissions for the MCP tool on the way (kept in `tool_asks`).
async fn wait_question(
    rig: &AgentRig,
    sid: &str,
    case: ElicitationCase,
    seen: &mut Vec<String>,
    tool_asks: &mut Vec<Value>,
) -> (Value, String) {
    loop {
        let ask = rig.next_permission(sid, seen).await;
        let id = ask.string_at("/request/id");
        let request = ask.at("/request").cloned().unwrap_or(Value::Null);
        if request["name"] == "mcp_elicitation" {
            return (request, id);
        }
        assert_eq!(request["kind"], "tool", "{request}");
        tool_asks.push(request);
        rig.answer_permission(sid, &id, (case.allow_tool)()).await;
        rig.wait_resolved(sid, &id).await;
    }
}

async fn completed(rig: &AgentRig, sid: &str, turn: &str) {
    let end: Event = rig.turn_end(sid, turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
}

/// A form answered (typed by its schema), the same form dismissed (`decline`), and a URL-mode
/// request as the CLI treats it.
pub async fn answered_declined_and_url(rig: &AgentRig, case: ElicitationCase) {
    open(rig, SID, case).await;
    let (mut seen, mut tool_asks) = (Vec::new(), Vec::new());

    // A form: one question per field; the answer typed by the schema.
    rig.mock
        .push_steps([(case.call)("pick"), ScriptReply::Default]);
    let (_, turn) = rig.start_turn(SID, "pick a color").await;
    let (request, id) = wait_question(rig, SID, case, &mut seen, &mut tool_asks).await;
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
    let answers = json!({"Color": "Blue", "Count": "3"});
    rig.answer_permission(
        SID,
        &id,
        json!({"behavior": "allow", "updatedInput": {"answers": answers}}),
    )
    .await;
    rig.wait_resolved(SID, &id).await;
    completed(rig, SID, &turn).await;
    let result = last_tool_result(rig);
    assert!(
        result.contains(r#"ELICIT action=accept content={"color":"blue","count":3}"#),
        "the server got the typed answer: {result}"
    );

    // Dismissed: the server is told `decline`; the turn goes on.
    rig.mock
        .push_steps([(case.call)("pick"), ScriptReply::Default]);
    let (_, turn) = rig.start_turn(SID, "pick again").await;
    let (_, id) = wait_question(rig, SID, case, &mut seen, &mut tool_asks).await;
    rig.answer_permission(SID, &id, json!({"behavior": "deny"}))
        .await;
    rig.wait_resolved(SID, &id).await;
    completed(rig, SID, &turn).await;
    let result = last_tool_result(rig);
    assert!(result.contains("ELICIT action=decline"), "{result}");

    if let Some(actions) = case.tool_asked_once_with {
        assert_eq!(tool_asks.len(), 1, "asked once a session: {tool_asks:#?}");
        assert_eq!(tool_asks[0]["name"], "mcp__elicit__pick");
        let offered: Vec<&str> = tool_asks[0]["actions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a["id"].as_str())
            .collect();
        assert_eq!(offered, actions);
    }

    rig.mock
        .push_steps([(case.call)("visit"), ScriptReply::Default]);
    let (_, turn) = rig.start_turn(SID, "visit the page").await;
    match case.url_mode {
        UrlMode::Asked => {
            let (request, id) = wait_question(rig, SID, case, &mut seen, &mut tool_asks).await;
            assert_eq!(request["metadata"]["mode"], "url", "{request}");
            assert_eq!(request["metadata"]["url"], "http://127.0.0.1:9/continue");
            rig.answer_permission(SID, &id, json!({"behavior": "allow"}))
                .await;
            rig.wait_resolved(SID, &id).await;
            completed(rig, SID, &turn).await;
            let result = last_tool_result(rig);
            assert!(
                result.contains("ELICIT action=accept content={}"),
                "{result}"
            );
        }
        UrlMode::RefusedByCli => {
            // Only the tool's own permission may come; the URL request never reaches the host.
            let end = url_turn_without_question(rig, &turn, case, &mut seen).await;
            assert_eq!(end.turn_state(), Some("completed"), "{end}");
            let result = last_tool_result(rig);
            assert!(
                result.contains("does not support URL-mode elicitation"),
                "{result}"
            );
        }
    }
    rig.finish(SID).await;
}

/// The end of the URL-mode turn of a CLI that refuses URL mode, allowing its tool permissions
/// and failing on any question.
async fn url_turn_without_question(
    rig: &AgentRig,
    turn: &str,
    case: ElicitationCase,
    seen: &mut Vec<String>,
) -> Event {
    loop {
        let event = rig
            .host
            .wait_event(
                |e| {
                    (e.is_for("session.permission", SID)
                        && !seen.iter().any(|s| {
                            Some(s.as_str()) == e.at("/request/id").and_then(Value::as_str)
                        }))
                        || (e.is_for("session.turn", SID)
                            && e.at("/turnId").and_then(Value::as_str) == Some(turn)
                            && e.turn_state() != Some("started"))
                },
                crate::rig::STEP,
            )
            .await
            .expect("a permission or the turn's end");
        if event.kind() == "session.turn" {
            return event;
        }
        let request = event.at("/request").cloned().unwrap_or(Value::Null);
        assert_eq!(
            request["kind"], "tool",
            "URL mode reached the host: {request}"
        );
        let id = event.string_at("/request/id");
        seen.push(id.clone());
        rig.answer_permission(SID, &id, (case.allow_tool)()).await;
    }
}

/// An interrupt while the question waits: it is resolved (the server told `cancel`), the turn
/// ends canceled, and the session goes on.
pub async fn an_interrupt_cancels_a_pending_elicitation(rig: &AgentRig, case: ElicitationCase) {
    let sid = "elicit-interrupted";
    open(rig, sid, case).await;
    rig.mock
        .push_steps([(case.call)("pick"), ScriptReply::Default]);
    let (_, turn) = rig.start_turn(sid, "pick a color").await;
    let (_, id) = wait_question(rig, sid, case, &mut Vec::new(), &mut Vec::new()).await;
    rig.interrupt(sid).await;
    rig.wait_resolved(sid, &id).await;
    let end = rig.turn_end(sid, &turn).await;
    assert_eq!(end.turn_state(), Some("canceled"), "{end}");
    let run = rig.run_turn(sid, "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish(sid).await;
}
