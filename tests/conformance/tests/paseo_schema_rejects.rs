//! The hand-written Paseo schema (`schema/paseo-events.schema.json`) refuses known-bad events,
//! each for the reason given, and the host's per-event validation reports what only it
//! catches (our own generated schema lets those through).

use agent_bridge_conformance::{paseo_schema, validate::validate_event};
use serde_json::{json, Value};

fn tool(status: &str, detail: Value) -> Value {
    json!({"type": "timeline.item", "sessionId": "s", "item": {
        "type": "tool_call", "id": "i", "callId": "c", "name": "Bash",
        "detail": detail, "status": status, "error": null}})
}

fn remove(mut event: Value, pointer: &str) -> Value {
    let (parent, key) = pointer.rsplit_once('/').expect("a pointer");
    if let Some(obj) = event.pointer_mut(parent).and_then(Value::as_object_mut) {
        obj.remove(key);
    }
    event
}

fn config(config: Value) -> Value {
    json!({"type": "session.config", "sessionId": "s", "config": config})
}

/// (what is wrong, the event, a fragment the failure must contain: the instance path or the
/// missing key).
fn bad_events() -> Vec<(&'static str, Value, &'static str)> {
    let turn = json!({"type": "session.turn", "sessionId": "s", "turnId": "t", "state": "started"});
    let opened = json!({"type": "session.opened", "requestId": "r", "sessionId": "s",
        "capabilities": ["prompt.message"], "restoration": "core", "cwd": "/w"});
    let shell = json!({"type": "shell", "command": "ls"});
    let state = json!({"models": [], "modes": [], "thinkingOptions": [], "controls": [],
        "providerOptions": {}});
    let mut no_choices = state.clone();
    no_choices["controls"] =
        json!([{"type": "select", "key": "k", "label": "K", "defaultValue": "a"}]);
    vec![
        (
            "missing sessionId",
            remove(turn.clone(), "/sessionId"),
            "\"sessionId\" is a required",
        ),
        (
            "empty sessionId",
            json!({"type": "session.ready", "sessionId": ""}),
            "/sessionId",
        ),
        (
            "missing turnId",
            remove(turn.clone(), "/turnId"),
            "\"turnId\" is a required",
        ),
        (
            "unknown turn state",
            json!({"type": "session.turn", "sessionId": "s", "turnId": "t", "state": "done"}),
            "/state",
        ),
        (
            "null for an optional error",
            json!({"type": "session.turn", "sessionId": "s", "turnId": "t", "state": "failed", "error": null}),
            "/error",
        ),
        (
            "null for an optional title",
            {
                let mut e = opened.clone();
                e["title"] = Value::Null;
                e
            },
            "/title",
        ),
        (
            "missing cwd",
            remove(opened.clone(), "/cwd"),
            "\"cwd\" is a required",
        ),
        (
            "unknown restoration",
            {
                let mut e = opened.clone();
                e["restoration"] = json!("child");
                e
            },
            "/restoration",
        ),
        (
            "capabilities not an array",
            {
                let mut e = opened;
                e["capabilities"] = json!("prompt.message");
                e
            },
            "/capabilities",
        ),
        (
            "unknown event type",
            json!({"type": "session.deleted", "sessionId": "s"}),
            "/type",
        ),
        (
            "no type",
            json!({"sessionId": "s"}),
            "\"type\" is a required",
        ),
        (
            "extra key on a closed event",
            json!({"type": "request.completed", "requestId": "r", "sessionId": "s"}),
            "Additional properties",
        ),
        (
            "unknown item kind",
            json!({"type": "timeline.item", "sessionId": "s", "item": {"type": "thought", "id": "i", "text": "x"}}),
            "/item/type",
        ),
        (
            "item without id",
            json!({"type": "timeline.item", "sessionId": "s", "item": {"type": "reasoning", "text": "x"}}),
            "\"id\" is a required",
        ),
        (
            "extra key on an item",
            json!({"type": "timeline.item", "sessionId": "s", "item": {"type": "assistant_message", "id": "i", "text": "x", "delta": "x"}}),
            "Additional properties",
        ),
        (
            "timestamp not a string",
            json!({"type": "timeline.item", "sessionId": "s", "timestamp": 12, "item": {"type": "reasoning", "id": "i", "text": "x"}}),
            "/timestamp",
        ),
        (
            "tool_call failed without error",
            remove(tool("failed", shell.clone()), "/item/error"),
            "\"error\" is a required",
        ),
        (
            "tool_call running without error",
            remove(tool("running", shell.clone()), "/item/error"),
            "\"error\" is a required",
        ),
        (
            "tool_call completed with an error",
            {
                let mut e = tool("completed", shell.clone());
                e["item"]["error"] = json!("boom");
                e
            },
            "/item/error",
        ),
        (
            "unknown tool_call status",
            tool("done", shell.clone()),
            "/item/status",
        ),
        (
            "unknown tool detail kind",
            tool("running", json!({"type": "bash", "command": "ls"})),
            "/item/detail/type",
        ),
        (
            "shell detail without command",
            tool("running", json!({"type": "shell"})),
            "\"command\" is a required",
        ),
        (
            "exitCode as a string",
            tool(
                "completed",
                json!({"type": "shell", "command": "ls", "exitCode": "0"}),
            ),
            "/item/detail/exitCode",
        ),
        (
            "worktree command without exitCode",
            tool(
                "running",
                json!({"type": "worktree_setup", "worktreePath": "/w", "branchName": "b", "log": "",
            "commands": [{"index": 1, "command": "npm ci", "cwd": "/w", "log": "", "status": "running"}]}),
            ),
            "\"exitCode\" is a required",
        ),
        (
            "todo entry without completed",
            json!({"type": "timeline.item", "sessionId": "s", "item": {"type": "todo", "id": "i", "items": [{"text": "x"}]}}),
            "\"completed\" is a required",
        ),
        (
            "unknown prompt result",
            json!({"type": "session.prompt_result", "sessionId": "s", "clientMessageId": "m", "result": {"type": "queued"}}),
            "/result/type",
        ),
        (
            "failed prompt result without error",
            json!({"type": "session.prompt_result", "sessionId": "s", "clientMessageId": "m", "result": {"type": "failed"}}),
            "\"error\" is a required",
        ),
        (
            "turn result without turnId",
            json!({"type": "session.prompt_result", "sessionId": "s", "clientMessageId": "m", "result": {"type": "turn"}}),
            "\"turnId\" is a required",
        ),
        (
            "usage as strings",
            json!({"type": "session.usage", "sessionId": "s", "usage": {"inputTokens": "12"}}),
            "/usage/inputTokens",
        ),
        (
            "negative persistence version",
            json!({"type": "session.persistence", "sessionId": "s", "persistence": {"version": -1, "data": {}}}),
            "/persistence/version",
        ),
        (
            "persistence without data",
            json!({"type": "session.persistence", "sessionId": "s", "persistence": {"version": 1}}),
            "\"data\" is a required",
        ),
        (
            "request.failed error without message",
            json!({"type": "request.failed", "requestId": "r", "error": {"code": "x"}}),
            "\"message\" is a required",
        ),
        (
            "config without thinkingOptions",
            config(remove(state.clone(), "/thinkingOptions")),
            "\"thinkingOptions\" is a required",
        ),
        (
            "config with neither settings nor controls",
            config(remove(
                remove(state.clone(), "/controls"),
                "/providerOptions",
            )),
            "/config",
        ),
        (
            "select control without choices",
            config(no_choices),
            "\"choices\" is a required",
        ),
        (
            "prompt preview over 160 characters",
            json!({"type": "sessions", "requestId": "r", "sessions": [{"persistence": {"version": 0, "data": null}, "cwd": "/w", "firstPromptPreview": "x".repeat(161)}]}),
            "/sessions/0/firstPromptPreview",
        ),
        (
            "prompt preview of 100 emoji (200 UTF-16 units)",
            json!({"type": "sessions", "requestId": "r", "sessions": [{"persistence": {"version": 0, "data": null}, "cwd": "/w", "lastPromptPreview": "\u{1F389}".repeat(100)}]}),
            "200 UTF-16 code units",
        ),
        (
            "canStop not a boolean",
            json!({"type": "session.can_stop_runtime", "requestId": "r", "sessionId": "s", "canStop": "yes"}),
            "/canStop",
        ),
        (
            "unknown notice severity",
            json!({"type": "session.notice", "sessionId": "s", "notice": {"id": "n", "severity": "fatal", "title": "t"}}),
            "/notice/severity",
        ),
        (
            "unknown permission kind",
            json!({"type": "session.permission", "sessionId": "s", "request": {"id": "p", "name": "Bash", "kind": "shell"}}),
            "/request/kind",
        ),
        (
            "command with an empty name",
            json!({"type": "session.commands", "sessionId": "s", "commands": [{"name": "", "description": "d"}]}),
            "/commands/0/name",
        ),
    ]
}

#[test]
fn refuses_every_known_bad_event_for_its_reason() {
    let mut wrong = Vec::new();
    for (what, event, expected) in bad_events() {
        let problems = paseo_schema::check(&event);
        if !problems.iter().any(|p| p.contains(expected)) {
            wrong.push(format!(
                "{what}: expected a failure naming `{expected}`, got {problems:#?}\n  {event}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_failure_names_the_instance_and_the_schema_path() {
    let event = json!({"type": "session.turn", "sessionId": "s", "turnId": "t", "state": "done"});
    let problems = paseo_schema::check(&event);
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert!(problems[0].contains("at `/state`"), "{}", problems[0]);
    assert!(
        problems[0].contains("schema `/allOf/10/then/$ref/properties/state/enum`"),
        "{}",
        problems[0]
    );
}

/// What our own generated schema lets through reaches the host's report through the
/// hand-written one: the two are both applied to every event.
#[test]
fn the_host_reports_what_only_the_hand_written_schema_refuses() {
    for event in [
        json!({"type": "session.ready", "sessionId": ""}),
        json!({"type": "sessions", "requestId": "r", "sessions": [{"persistence": {"version": 0, "data": null}, "cwd": "/w", "lastPromptPreview": "x".repeat(200)}]}),
        json!({"type": "sessions", "requestId": "r", "sessions": [{"persistence": {"version": 0, "data": null}, "cwd": "/w", "lastPromptPreview": "\u{1F389}".repeat(100)}]}),
    ] {
        let problems = validate_event(&event);
        assert!(
            !problems.is_empty() && problems.iter().all(|p| p.starts_with("paseo schema:")),
            "{event}: {problems:#?}"
        );
    }
}

#[test]
fn every_event_type_has_its_own_definition() {
    let doc = paseo_schema::document();
    let types = doc
        .pointer("/properties/type/enum")
        .and_then(Value::as_array)
        .expect("the event types");
    assert_eq!(
        types.len(),
        19,
        "every ProviderEvent of spec 2.11 plus can_stop_runtime"
    );
    for t in types {
        let def = format!("/$defs/event.{}", t.as_str().unwrap_or_default());
        assert!(doc.pointer(&def).is_some(), "no {def}");
    }
}
