use super::*;
use crate::reply::Reply;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};

fn ctx() -> Ctx {
    Ctx {
        model: "m".into(),
        seq: 1,
        created: 0,
    }
}

fn tool() -> Reply {
    Reply::ToolCall {
        name: "Bash".into(),
        arguments: json!({"command": "echo hello"}),
        namespace: None,
    }
}

/// (event name, data) of each frame; `event` is "" for data-only frames.
fn parse(frames: &[Frame]) -> Vec<(String, Value)> {
    frames
        .iter()
        .map(|f| {
            assert!(
                f.data.ends_with("\n\n"),
                "frame must end with a blank line: {:?}",
                f.data
            );
            let mut event = String::new();
            let mut data = Value::Null;
            for line in f.data.lines() {
                if let Some(e) = line.strip_prefix("event: ") {
                    event = e.to_string();
                } else if let Some(d) = line.strip_prefix("data: ") {
                    data = serde_json::from_str(d).unwrap_or(Value::String(d.to_string()));
                }
            }
            (event, data)
        })
        .collect()
}

fn names(frames: &[Frame]) -> Vec<String> {
    parse(frames).into_iter().map(|(e, _)| e).collect()
}

#[test]
fn anthropic_text_and_tool_streams() {
    let frames = anthropic::stream(&Reply::Text("hi! there".into()), &ctx());
    assert_eq!(
        names(&frames),
        [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    let parsed = parse(&frames);
    let text: String = parsed
        .iter()
        .filter_map(|(_, d)| d.pointer("/delta/text").and_then(Value::as_str))
        .collect();
    assert_eq!(text, "hi! there");
    assert_eq!(parsed[5].1["delta"]["stop_reason"], "end_turn");
    assert_eq!(parsed[5].1["usage"]["output_tokens"], OUTPUT_TOKENS);

    let parsed = parse(&anthropic::stream(&tool(), &ctx()));
    assert_eq!(parsed[1].1["content_block"]["type"], "tool_use");
    assert_eq!(parsed[1].1["content_block"]["input"], json!({}));
    let partial = parsed[2].1["delta"]["partial_json"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(partial).unwrap(),
        json!({"command": "echo hello"})
    );
    assert_eq!(parsed[4].1["delta"]["stop_reason"], "tool_use");
    assert_eq!(
        anthropic::body(&tool(), &ctx())["content"][0]["input"]["command"],
        "echo hello"
    );
}

#[test]
fn responses_text_and_function_call_streams() {
    let parsed = parse(&openai_responses::stream(
        &Reply::Text("hi!".into()),
        &ctx(),
    ));
    let events: Vec<&str> = parsed.iter().map(|(e, _)| e.as_str()).collect();
    assert_eq!(events.first(), Some(&"response.created"));
    assert!(events.contains(&"response.output_text.delta"));
    for (e, d) in &parsed {
        assert_eq!(d["type"], json!(e), "data.type mirrors the event name");
    }
    let done = &parsed[parsed.len() - 2].1;
    assert_eq!(done["item"]["type"], "message");
    assert_eq!(done["item"]["content"][0]["text"], "hi!");
    let completed = &parsed.last().unwrap().1;
    assert_eq!(completed["type"], "response.completed");
    assert_eq!(
        completed["response"]["usage"]["input_tokens_details"]["cached_tokens"],
        0
    );

    let parsed = parse(&openai_responses::stream(&tool(), &ctx()));
    let done = &parsed[parsed.len() - 2].1;
    assert_eq!(done["type"], "response.output_item.done");
    assert_eq!(done["item"]["type"], "function_call");
    assert_eq!(done["item"]["name"], "Bash");
    assert_eq!(done["item"]["call_id"], "call_mock0001");
    assert_eq!(done["item"]["arguments"], r#"{"command":"echo hello"}"#);
}

#[test]
fn chat_stream_has_tool_calls_usage_and_done() {
    let frames = openai_chat::stream(&tool(), &ctx());
    let parsed = parse(&frames);
    assert_eq!(
        parsed[0].1["choices"][0]["delta"]["tool_calls"][0]["function"]["name"],
        "Bash"
    );
    assert_eq!(
        parsed[1].1["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"],
        r#"{"command":"echo hello"}"#
    );
    assert_eq!(parsed[2].1["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(
        parsed[3].1["usage"]["total_tokens"],
        INPUT_TOKENS + OUTPUT_TOKENS
    );
    assert_eq!(frames.last().unwrap().data, "data: [DONE]\n\n");

    let parsed = parse(&openai_chat::stream(&Reply::Text("hi!".into()), &ctx()));
    let text: String = parsed
        .iter()
        .filter_map(|(_, d)| {
            d.pointer("/choices/0/delta/content")
                .and_then(Value::as_str)
        })
        .collect();
    assert_eq!(text, "hi!");
}

#[test]
fn gemini_stream_sets_finish_reason_on_the_last_chunk_only() {
    let parsed = parse(&gemini::stream(&Reply::Text("hello".into()), &ctx()));
    assert_eq!(parsed.len(), 2);
    assert!(parsed[0].1["candidates"][0].get("finishReason").is_none());
    assert_eq!(parsed[1].1["candidates"][0]["finishReason"], "STOP");
    assert_eq!(
        parsed[1].1["usageMetadata"]["totalTokenCount"],
        INPUT_TOKENS + OUTPUT_TOKENS
    );
    let parsed = parse(&gemini::stream(&tool(), &ctx()));
    assert_eq!(
        parsed[0].1["candidates"][0]["content"]["parts"][0]["functionCall"],
        json!({"name": "Bash", "args": {"command": "echo hello"}})
    );
    assert_eq!(
        gemini::array_body(&Reply::Text("hello".into()), &ctx())
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn slow_text_carries_delays_between_chunks() {
    let slow = Reply::slow(3, std::time::Duration::from_millis(150));
    let deltas = text_deltas(&slow);
    assert_eq!(deltas.len(), 3);
    assert_eq!(deltas[0].1, std::time::Duration::ZERO);
    assert_eq!(deltas[2].1, std::time::Duration::from_millis(150));
    let frames = openai_chat::stream(&slow, &ctx());
    assert_eq!(frames.iter().filter(|f| !f.delay.is_zero()).count(), 2);
    assert_eq!(text_deltas(&Reply::Text(String::new())).len(), 1);
    assert_eq!(
        text_deltas(&Reply::Text("é".into())),
        vec![("é".to_string(), std::time::Duration::ZERO)]
    );
}

#[test]
fn a_namespaced_call_carries_its_namespace_on_the_responses_wire_only() {
    let call = crate::script::Script::from_json(
        r#"{"steps": [{"namespaced_tool_call": {"namespace": "multi_agent_v1",
            "name": "spawn_agent", "arguments": {"message": "look around"}}}]}"#,
    )
    .unwrap();
    let mut state = crate::script::ScriptState::default();
    state.push(call);
    let conv = crate::conversation::Conversation {
        tools: vec![crate::conversation::ToolDecl {
            name: "exec_command".into(),
            schema: json!({}),
        }],
        ..Default::default()
    };
    let reply = state.decide(&conv, 1);
    let parsed = parse(&openai_responses::stream(&reply, &ctx()));
    let added = &parsed[1].1;
    assert_eq!(added["item"]["namespace"], "multi_agent_v1");
    let done = &parsed[parsed.len() - 2].1;
    assert_eq!(done["item"]["namespace"], "multi_agent_v1");
    assert_eq!(done["item"]["name"], "spawn_agent");
    assert_eq!(done["item"]["arguments"], r#"{"message":"look around"}"#);
    assert_eq!(
        openai_responses::body(&reply, &ctx())["output"][0]["namespace"],
        "multi_agent_v1"
    );
    // Families without namespaces get a plain call of the tool.
    let anthropic = parse(&anthropic::stream(&reply, &ctx()));
    assert!(anthropic
        .iter()
        .any(|(_, d)| d["content_block"]["name"] == "spawn_agent"));
    // A plain call has no namespace field.
    let plain = parse(&openai_responses::stream(&tool(), &ctx()));
    assert!(plain[plain.len() - 2].1["item"].get("namespace").is_none());
}
