//! `prompt.output_schema` end to end: the real pinned `codex` against the mock model server.
//! The prompt's `outputSchema` goes to `turn/start.outputSchema`; Codex sends it to the model
//! as the answer's format (`text.format`, strict JSON schema), the turn's final
//! `assistant_message` is the JSON object; a schema the model API cannot satisfy (OpenAI's strict
//! mode refuses it, as the mock does) fails the turn with those words.

mod common;
use common::*;
use serde_json::{json, Value};

const SCHEMA_SPEC: RigSpec = RigSpec {
    provider: PROVIDER,
    caps: &["prompt.message", "prompt.output_schema"],
    cli: "codex",
    hermetic: mock_llm::hermetic::codex,
};

/// Sends `text` with `schema` as the prompt's output schema; returns the turn id.
async fn prompt_with_schema(rig: &Rig, sid: &str, text: &str, schema: Value) -> String {
    let cmid = rig.host.unique("msg");
    rig.send(
        json!({"type": "session.prompt", "sessionId": sid, "prompt": {
        "clientMessageId": cmid, "delivery": "auto",
        "input": {"type": "message", "content": [{"type": "text", "text": text}]},
        "outputSchema": schema}}),
    )
    .await;
    let result = rig.prompt_result(sid, &cmid).await;
    assert_eq!(result["type"], "turn", "{result}");
    result["turnId"].as_str().unwrap_or_default().to_string()
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_answer_follows_the_prompt_output_schema() {
    let Some(rig) = Rig::start(SCHEMA_SPEC).await else {
        return;
    };
    let sid = "s-schema";
    rig.open(sid, json!({})).await;
    let schema = json!({"type": "object", "additionalProperties": false,
        "required": ["summary", "status"],
        "properties": {"summary": {"type": "string"},
            "status": {"type": "string", "enum": ["ok", "action_required"]}}});
    let turn = prompt_with_schema(&rig, sid, "summarize the repository", schema.clone()).await;
    let end = rig.turn_end(sid, &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    let request = rig.last_model_request();
    assert_eq!(
        request.body.pointer("/text/format/schema"),
        Some(&schema),
        "the schema reaches the model"
    );
    assert_eq!(
        request.body.pointer("/text/format/strict"),
        Some(&json!(true))
    );
    let text = last_assistant_text(&rig.timeline(sid));
    let answer: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("the final assistant_message is JSON ({e}): {text}"));
    assert!(answer["summary"].is_string(), "{answer}");
    assert_eq!(answer["status"], "ok", "{answer}");

    // A schema strict mode cannot guarantee: the API refuses it, Codex fails the turn.
    let loose = json!({"type": "object", "properties": {"summary": {"type": "string"}}});
    let turn = prompt_with_schema(&rig, sid, "summarize again", loose).await;
    let end = rig.turn_end(sid, &turn).await;
    assert_eq!(end.turn_state(), Some("failed"), "{end}");
    let message = end
        .at("/error/message")
        .and_then(Value::as_str)
        .unwrap_or_default();
    assert!(
        message.contains(
            "Invalid schema for response_format 'codex_output_schema': In context=(), 'additionalProperties' is required to be supplied and to be false."
        ),
        "the CLI's words: {end}"
    );
    rig.finish(sid).await;
    rig.report("output-schema");
}
