use super::*;
use crate::conversation::{Conversation, ToolDecl};
use pretty_assertions::assert_eq;
use serde_json::json;

fn with_tools(prompt: &str) -> Conversation {
    Conversation {
        prompt: Some(prompt.into()),
        tools: vec![ToolDecl {
            name: "Bash".into(),
            schema: json!({"properties": {"command": {}}}),
        }],
        ..Conversation::default()
    }
}

#[test]
fn steps_are_consumed_only_by_requests_with_tools() {
    let mut state = ScriptState::default();
    state.push(Script::steps([
        ScriptReply::Text("first".into()),
        ScriptReply::Shell("ls".into()),
    ]));
    let title_call = Conversation {
        prompt: Some("x".into()),
        ..Conversation::default()
    };
    assert_eq!(
        state.decide(&title_call, 1),
        Reply::Text("hi! (mock reply 1)".into())
    );
    assert_eq!(state.pending_steps(), 2);
    assert_eq!(
        state.decide(&with_tools("x"), 2),
        Reply::Text("first".into())
    );
    assert_eq!(
        state.decide(&with_tools("x"), 3),
        Reply::ToolCall {
            name: "Bash".into(),
            arguments: json!({"command": "ls"}),
            namespace: None,
        }
    );
    assert_eq!(
        state.decide(&with_tools("x"), 4),
        Reply::Text("hi! (mock reply 4)".into())
    );
}

#[test]
fn rules_match_the_prompt_and_expire() {
    let mut state = ScriptState::default();
    let script = Script::from_json(
        r#"{"rules": [{"match": "(?i)^deploy", "reply": {"error": {"status": 529}}, "times": 1}],
            "steps": []}"#,
    )
    .unwrap();
    state.push(script);
    assert_eq!(
        state.decide(&with_tools("Deploy it"), 1),
        Reply::Error {
            status: 529,
            message: "mock error".into()
        }
    );
    assert_eq!(
        state.decide(&with_tools("Deploy it"), 2),
        Reply::Text("hi! (mock reply 2)".into())
    );
}

#[test]
fn json_form_parses_every_step_kind() {
    let script = Script::from_json(
        r#"{"steps": [{"text": "a"}, {"shell": "ls"}, {"tool_call": {"name": "Read", "arguments": {"p": 1}}},
                      {"slow_text": {"text": "abcd", "chunks": 2, "interval_ms": 5}},
                      {"error": {"status": 500, "message": "boom"}}, "default"]}"#,
    )
    .unwrap();
    assert_eq!(script.steps.len(), 6);
    let slow = script.steps[3].resolve(&Conversation::default(), 1);
    assert_eq!(
        slow,
        Reply::SlowText {
            chunks: vec!["ab".into(), "cd".into()],
            interval: std::time::Duration::from_millis(5)
        }
    );
    assert!(Script::from_json(r#"{"rules": [{"match": "(", "reply": "default"}]}"#).is_err());
}
