use super::*;
use crate::conversation::{Conversation, ToolDecl};
use pretty_assertions::assert_eq;
use serde_json::json;

fn conv(prompt: &str, tools: &[(&str, serde_json::Value)]) -> Conversation {
    Conversation {
        prompt: Some(prompt.to_string()),
        tools: tools
            .iter()
            .map(|(n, s)| ToolDecl {
                name: n.to_string(),
                schema: s.clone(),
            })
            .collect(),
        ..Conversation::default()
    }
}

fn bash_schema() -> serde_json::Value {
    json!({"type": "object", "properties": {"command": {"type": "string"},
        "description": {"type": "string"}}, "required": ["command"]})
}

#[test]
fn plain_prompt_says_hi_with_the_counter() {
    assert_eq!(
        default_reply(&conv("say hi", &[]), 3),
        Reply::Text("hi! (mock reply 3)".into())
    );
}

#[test]
fn run_backticks_calls_the_declared_shell_tool_shaped_by_its_schema() {
    let c = conv(
        "please run `echo hello` now",
        &[("Read", json!({})), ("Bash", bash_schema())],
    );
    assert_eq!(
        default_reply(&c, 1),
        Reply::ToolCall {
            name: "Bash".into(),
            arguments: json!({"command": "echo hello", "description": "Run echo hello"}),
            namespace: None,
        }
    );
    let exec =
        json!({"type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]});
    let c = conv("run `echo hello`", &[("exec_command", exec)]);
    assert_eq!(
        default_reply(&c, 1),
        Reply::ToolCall {
            name: "exec_command".into(),
            arguments: json!({"cmd": "echo hello"}),
            namespace: None,
        }
    );
}

#[test]
fn run_without_a_shell_tool_is_a_plain_answer() {
    // e.g. OpenCode's tool-less title call
    assert_eq!(
        default_reply(&conv("run `ls`", &[]), 7),
        Reply::Text("hi! (mock reply 7)".into())
    );
}

#[test]
fn tool_result_gets_the_final_answer_quoting_the_output() {
    let mut c = conv("run `echo hello`", &[("Bash", bash_schema())]);
    c.tool_result = Some("hello\n".into());
    assert_eq!(
        default_reply(&c, 1),
        Reply::Text("Done. The command printed: hello".into())
    );
}

#[test]
fn slow_prompt_streams_forty_chunks() {
    match default_reply(&conv("please be SLOW", &[]), 1) {
        Reply::SlowText { chunks, interval } => {
            assert_eq!(chunks.len(), SLOW_CHUNKS);
            assert_eq!(interval, SLOW_INTERVAL);
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn schema_request_without_tools_gets_synthesized_json() {
    let mut c = conv("classify", &[]);
    c.json_schema = Some(json!({"type": "object", "properties": {
        "complexity_score": {"type": "integer", "minimum": 1}}}));
    assert_eq!(
        default_reply(&c, 1),
        Reply::Text(r#"{"complexity_score":1}"#.into())
    );
}

#[test]
fn tool_output_is_unwrapped_for_every_cli() {
    // Claude, OpenCode
    assert_eq!(clean_tool_output("hello\n"), "hello");
    // Codex exec_command
    assert_eq!(
        clean_tool_output("Chunk ID: 7fb41f\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 2\nOutput:\nhello"),
        "hello"
    );
    // Gemini run_shell_command
    assert_eq!(
        clean_tool_output(
            "<untrusted_context>\nOutput: hello\nProcess Group PGID: 10610\n</untrusted_context>"
        ),
        "hello"
    );
    // Qwen run_shell_command
    assert_eq!(
        clean_tool_output("Command: echo hello\nDirectory: (root)\nOutput: hello\nError: (none)\nExit Code: 0\nSignal: 0\nProcess Group PGID: 13433"),
        "hello"
    );
    // multi-line output is kept
    assert_eq!(clean_tool_output("Output: a\nb\nExit Code: 0"), "a\nb");
}

#[test]
fn run_command_takes_the_last_match() {
    assert_eq!(run_command("run `a` then run `b`").as_deref(), Some("b"));
    assert_eq!(run_command("run `` nothing"), None);
    assert_eq!(run_command("no command"), None);
}

#[test]
fn a_strict_answer_schema_binds_the_answer_even_with_tools() {
    let mut c = conv("summarize", &[("exec_command", bash_schema())]);
    c.strict_schema = Some("codex_output_schema".into());
    c.json_schema = Some(json!({"type": "object", "additionalProperties": false,
        "required": ["summary"], "properties": {"summary": {"type": "string"}}}));
    let Reply::Text(text) = default_reply(&c, 1) else {
        panic!("JSON text")
    };
    let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert!(value["summary"].is_string(), "{value}");
    // OpenAI's strict mode refuses what it cannot guarantee, naming where.
    c.json_schema = Some(json!({"type": "object", "required": ["a"],
        "properties": {"a": {"type": "string"}}}));
    assert_eq!(
        default_reply(&c, 1),
        Reply::Error {
            status: 400,
            message: "Invalid schema for response_format 'codex_output_schema': In context=(), 'additionalProperties' is required to be supplied and to be false.".into()
        }
    );
    c.json_schema = Some(json!({"type": "object", "additionalProperties": false,
        "required": [], "properties": {"a": {"type": "string"}}}));
    let Reply::Error { message, .. } = default_reply(&c, 1) else {
        panic!("refused")
    };
    assert!(message.ends_with("Missing 'a'."), "{message}");
}
