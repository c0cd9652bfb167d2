use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;

#[test]
fn anthropic_skips_trailing_system_messages_and_reminders() {
    let body = json!({
        "model": "claude-opus-4-8",
        "stream": true,
        "tools": [{"name": "Bash", "input_schema": {"type": "object"}},
                  {"type": "web_search_20250305", "name": "web_search"}],
        "messages": [
            {"role": "user", "content": [
                {"type": "text", "text": "<system-reminder>you may run `ls`</system-reminder>"},
                {"type": "text", "text": "please run `echo hello`"}]},
            {"role": "system", "content": "agent listing"}
        ]
    });
    let conv = extract(Family::Anthropic, &body);
    assert_eq!(conv.prompt.as_deref(), Some("please run `echo hello`"));
    assert_eq!(conv.tool_result, None);
    assert_eq!(conv.tools.len(), 1);
    assert_eq!(conv.tools[0].name, "Bash");
    assert!(conv.stream);
    assert_eq!(conv.model.as_deref(), Some("claude-opus-4-8"));
}

#[test]
fn anthropic_tool_result_is_found_behind_system_messages() {
    let body = json!({"messages": [
        {"role": "user", "content": "please run `echo hello`"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
            "content": [{"type": "text", "text": "hello"}]}]},
        {"role": "system", "content": "skills"}
    ]});
    let conv = extract(Family::Anthropic, &body);
    assert_eq!(conv.tool_result.as_deref(), Some("hello"));
}

#[test]
fn responses_input_items() {
    let body = json!({
        "stream": true,
        "tools": [{"type": "function", "name": "exec_command", "parameters": {"type": "object",
            "properties": {"cmd": {"type": "string"}}}}, {"type": "web_search"}],
        "input": [
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "rules"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context/>"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "run `echo hello`"}]},
            {"type": "function_call", "call_id": "c1", "name": "exec_command", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "Output:\nhello"}
        ]
    });
    let conv = extract(Family::OpenaiResponses, &body);
    assert_eq!(
        conv.tools
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["exec_command"]
    );
    assert_eq!(conv.tool_result.as_deref(), Some("Output:\nhello"));
    assert_eq!(conv.prompt.as_deref(), Some("run `echo hello`"));
    let text_input = extract(Family::OpenaiResponses, &json!({"input": "say hi"}));
    assert_eq!(text_input.prompt.as_deref(), Some("say hi"));
}

#[test]
fn chat_messages_and_schema() {
    let body = json!({
        "tools": [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}],
        "messages": [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": [{"type": "text", "text": "hello there"}]},
            {"role": "assistant", "content": null, "tool_calls": []},
            {"role": "tool", "tool_call_id": "c", "content": "hello\n"}
        ],
        "response_format": {"type": "json_schema", "json_schema": {"schema": {"type": "object"}}}
    });
    let conv = extract(Family::OpenaiChat, &body);
    assert_eq!(conv.tools[0].name, "bash");
    assert_eq!(conv.tool_result.as_deref(), Some("hello\n"));
    assert_eq!(conv.prompt.as_deref(), Some("hello there"));
    assert_eq!(conv.json_schema, Some(json!({"type": "object"})));
}

#[test]
fn chat_reminder_only_user_messages_are_skipped() {
    // Kimi Code: a reminder-only user message after the prompt and after the tool result.
    let reminder = json!({"role": "user", "content": [{"type": "text",
        "text": "<system-reminder>Today is 2026-12-07. Permission mode: manual.</system-reminder>"}]});
    let body = json!({
        "tools": [{"type": "function", "function": {"name": "Bash", "parameters": {"type": "object"}}}],
        "messages": [
            {"role": "user", "content": "please run `touch a.txt`"},
            reminder,
            {"role": "assistant", "content": null, "tool_calls": []},
            {"role": "tool", "tool_call_id": "c", "content": "done\n"},
            reminder
        ]
    });
    let conv = extract(Family::OpenaiChat, &body);
    assert_eq!(conv.tool_result.as_deref(), Some("done\n"));
    assert_eq!(conv.prompt.as_deref(), Some("please run `touch a.txt`"));
}

#[test]
fn gemini_contents_function_response_and_schema() {
    let body = json!({
        "contents": [
            {"role": "user", "parts": [{"text": "please run `echo hello`"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "run_shell_command", "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "run_shell_command",
                "response": {"output": "<untrusted_context>\nOutput: hello\n</untrusted_context>"}}}]}
        ],
        "tools": [{"functionDeclarations": [{"name": "run_shell_command",
            "parametersJsonSchema": {"type": "object"}}]}],
        "generationConfig": {"responseJsonSchema": {"type": "object"}}
    });
    let conv = extract(Family::Gemini, &body);
    assert_eq!(conv.tools[0].name, "run_shell_command");
    assert_eq!(
        conv.tool_result.as_deref(),
        Some("<untrusted_context>\nOutput: hello\n</untrusted_context>")
    );
    assert_eq!(conv.prompt.as_deref(), Some("please run `echo hello`"));
    assert!(conv.json_schema.is_some());
}

#[test]
fn unknown_shapes_give_an_empty_conversation() {
    assert_eq!(
        extract(Family::Anthropic, &json!("x")),
        Conversation::default()
    );
    assert_eq!(
        extract(Family::Gemini, &json!({"contents": 3})),
        Conversation::default()
    );
    assert_eq!(strip_reminders("a<system-reminder>b"), "a");
}

#[test]
fn carried_over_context_is_history_not_the_prompt() {
    let body = json!({"messages": [{"role": "user", "content":
        "<agent-bridge-context>\nuser: please run `touch killed.txt`\n</agent-bridge-context>\n\nsay hi"}]});
    let conv = extract(Family::Anthropic, &body);
    assert_eq!(conv.prompt.as_deref(), Some("say hi"));
    assert_eq!(without_carried_context("a<agent-bridge-context>b"), "a");
    assert_eq!(without_carried_context("no envelope"), "no envelope");
}
