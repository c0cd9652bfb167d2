//! `prompt.output_schema` end to end: the real pinned `claude` against the mock model server.
//! Claude Code takes the schema as `--json-schema` (the bridge restarts the CLI with
//! `--resume` when a prompt's schema differs from the running CLI's) and offers the model a
//! `StructuredOutput` tool whose input schema it is; the run's structured answer becomes the
//! turn's final `assistant_message` (the JSON object, as codex-bridge gives it). A model whose
//! answers never fit fails the turn with the CLI's words; one that never calls the tool (the
//! CLI then reports success without an answer) fails it with the bridge's.

mod common;
use common::*;
use serde_json::{json, Value};

/// Sends `text` with `schema` (if any) as the prompt's output schema; returns the turn id.
async fn prompt(rig: &Rig, sid: &str, text: &str, schema: Option<&Value>) -> String {
    let cmid = rig.host.unique("msg");
    let mut prompt = json!({"clientMessageId": cmid, "delivery": "auto",
        "input": {"type": "message", "content": [{"type": "text", "text": text}]}});
    if let Some(schema) = schema {
        prompt["outputSchema"] = schema.clone();
    }
    rig.send(json!({"type": "session.prompt", "sessionId": sid, "prompt": prompt}))
        .await;
    let result = rig.prompt_result(sid, &cmid).await;
    assert_eq!(result["type"], "turn", "{result}");
    result["turnId"].as_str().unwrap_or_default().to_string()
}

fn schema() -> Value {
    json!({"type": "object", "additionalProperties": false,
        "required": ["city", "population"],
        "properties": {"city": {"type": "string"}, "population": {"type": "integer"}}})
}

/// The `StructuredOutput` tool of the last model request, if it offered one.
fn structured_tool(rig: &Rig) -> Option<Value> {
    let request = rig.last_model_request();
    request
        .body
        .get("tools")
        .and_then(Value::as_array)?
        .iter()
        .find(|t| t["name"] == "StructuredOutput")
        .cloned()
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_answer_follows_the_prompt_output_schema_and_the_conversation_goes_on() {
    let Some(rig) = rig().await else {
        return;
    };
    let sid = "s-schema";
    rig.open(sid, json!({})).await;
    let turn = prompt(&rig, sid, "say hi MARK-BEFORE-7", None).await;
    assert_eq!(
        rig.turn_end(sid, &turn).await.turn_state(),
        Some("completed")
    );
    assert!(structured_tool(&rig).is_none(), "no schema, no tool");

    let turn = prompt(&rig, sid, "which city is biggest", Some(&schema())).await;
    let end = rig.turn_end(sid, &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    let tool = structured_tool(&rig).expect("the schema reaches the model as the tool");
    assert_eq!(
        tool["input_schema"]["required"],
        schema()["required"],
        "{tool}"
    );
    assert_eq!(
        tool["input_schema"]["properties"],
        schema()["properties"],
        "{tool}"
    );
    let body = rig.last_model_request().body.to_string();
    assert!(
        body.contains("MARK-BEFORE-7"),
        "the restarted CLI resumed the conversation: {body}"
    );
    let text = last_assistant_text(&rig.timeline(sid));
    let answer: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("the final assistant_message is JSON ({e}): {text}"));
    assert!(answer["city"].is_string(), "{answer}");
    assert!(answer["population"].is_i64(), "{answer}");

    // The next prompt without a schema: no tool, an ordinary answer, the same conversation.
    let turn = prompt(&rig, sid, "say hi again", None).await;
    let end = rig.turn_end(sid, &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    assert!(structured_tool(&rig).is_none(), "the schema is gone");
    let body = rig.last_model_request().body.to_string();
    assert!(body.contains("MARK-BEFORE-7"), "{body}");
    let text = last_assistant_text(&rig.timeline(sid));
    assert!(serde_json::from_str::<Value>(&text).is_err(), "{text}");
    rig.finish(sid).await;
    rig.report("output-schema");
}

/// The failed turn's error message.
fn error_message(end: &agent_bridge_conformance::Event) -> String {
    end.at("/error/message")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_whose_output_cannot_satisfy_the_schema_fails() {
    let Some(rig) = rig().await else {
        return;
    };
    let sid = "s-schema-fail";
    rig.open(sid, json!({})).await;
    // Every answer the model gives breaks the schema: the CLI gives up after its retries.
    let turn = prompt(&rig, sid, "BAD-STRUCTURED-OUTPUT please", Some(&schema())).await;
    let end = rig.turn_end(sid, &turn).await;
    assert_eq!(end.turn_state(), Some("failed"), "{end}");
    assert!(
        error_message(&end).contains("Failed to provide valid structured output"),
        "the CLI's words: {end}"
    );
    // The model never calls the tool: the CLI reports success without an answer.
    let turn = prompt(&rig, sid, "NO-STRUCTURED-OUTPUT please", Some(&schema())).await;
    let end = rig.turn_end(sid, &turn).await;
    assert_eq!(end.turn_state(), Some("failed"), "{end}");
    assert!(
        error_message(&end).contains("without a structured answer"),
        "{end}"
    );
    // The session goes on.
    let turn = prompt(&rig, sid, "say hi", None).await;
    assert_eq!(
        rig.turn_end(sid, &turn).await.turn_state(),
        Some("completed")
    );
    rig.finish(sid).await;
    rig.report("output-schema-failures");
}
