//! The hand-written Paseo schema (`schema/paseo-events.schema.json`) accepts good events: one of
//! every event, timeline item and tool detail kind the spec defines (also those no provider of
//! ours emits), and the events recorded from real claude-bridge and codex-bridge runs
//! (`schema/fixtures/real-runs.json`), which pass our own schema and round trip as well.

use agent_bridge_conformance::{paseo_schema, validate::validate_event};
use serde_json::{json, Value};

const REAL_RUNS: &str = include_str!("../schema/fixtures/real-runs.json");

fn item(item: Value) -> Value {
    json!({"type": "timeline.item", "sessionId": "s", "item": item, "timestamp": "2026-01-01T00:00:00Z"})
}

fn tool(status: &str, error: Value, detail: Value) -> Value {
    item(
        json!({"type": "tool_call", "id": "t", "callId": "c", "name": "Tool",
        "detail": detail, "status": status, "error": error, "metadata": {"k": 1}}),
    )
}

fn good_events() -> Vec<Value> {
    let model = json!({"id": "m", "label": "M", "aliases": ["mm"], "isSelectable": true,
        "description": "d", "isDefault": true, "metadata": {"x": [1]}, "contextWindowMaxTokens": 1000,
        "thinkingOptions": [{"id": "low", "label": "Low", "description": "d", "isDefault": true, "metadata": {}}],
        "defaultThinkingOptionId": "low"});
    let mode = json!({"id": "auto", "label": "Auto", "description": "d", "icon": "i", "colorTier": "safe", "isUnattended": false});
    let error = json!({"message": "m", "code": "c", "diagnostic": "d"});
    let persistence = json!({"version": 0, "data": null});
    vec![
        json!({"type": "catalog", "requestId": "r", "catalog": {"models": [model], "modes": [mode],
            "thinkingOptions": [], "defaultModel": "m", "defaultMode": "auto", "defaultThinkingOption": "low"}}),
        json!({"type": "catalog", "requestId": "r", "catalog": {"models": [], "modes": []}}),
        json!({"type": "sessions", "requestId": "r", "sessions": [{"persistence": {"version": 3, "data": {"id": "x"}},
            "cwd": "/w", "title": "t", "description": "d", "updatedAt": "2026-01-01T00:00:00Z",
            "firstPromptPreview": "\u{e9}".repeat(160), "lastPromptPreview": "\u{1F389}".repeat(80)}]}),
        json!({"type": "request.completed", "requestId": "r"}),
        json!({"type": "request.failed", "requestId": "r", "error": error}),
        json!({"type": "session.opened", "requestId": "r", "sessionId": "s", "capabilities": [], "restoration": "core",
            "persistence": persistence, "title": "t", "description": "d", "cwd": "/w"}),
        json!({"type": "session.opened", "sessionId": "child", "parentSessionId": "s", "capabilities": ["prompt.message"],
            "restoration": "parent", "cwd": "/w"}),
        json!({"type": "session.ready", "requestId": "r", "sessionId": "s"}),
        json!({"type": "session.ready", "sessionId": "child"}),
        json!({"type": "session.closed", "sessionId": "s"}),
        json!({"type": "session.closed", "sessionId": "s", "error": {"message": "gone"}}),
        json!({"type": "session.runtime_failed", "sessionId": "s", "error": error}),
        json!({"type": "session.persistence", "sessionId": "s", "persistence": {"version": 1, "data": [1, "two"]}}),
        json!({"type": "session.prompt_result", "sessionId": "s", "clientMessageId": "m", "result": {"type": "turn", "turnId": "t"}}),
        json!({"type": "session.prompt_result", "sessionId": "s", "clientMessageId": "m", "result": {"type": "steer", "turnId": "t"}}),
        json!({"type": "session.prompt_result", "sessionId": "s", "clientMessageId": "m", "result": {"type": "completed"}}),
        json!({"type": "session.prompt_result", "sessionId": "s", "clientMessageId": "m", "result": {"type": "failed", "error": {"message": "busy"}}}),
        json!({"type": "session.turn", "sessionId": "s", "turnId": "t", "state": "started"}),
        json!({"type": "session.turn", "sessionId": "s", "turnId": "t", "state": "completed"}),
        json!({"type": "session.turn", "sessionId": "s", "turnId": "t", "state": "canceled"}),
        json!({"type": "session.turn", "sessionId": "s", "turnId": "t", "state": "failed", "error": error}),
        json!({"type": "session.usage", "sessionId": "s", "usage": {}}),
        json!({"type": "session.usage", "sessionId": "s", "turnId": "t", "usage": {"inputTokens": 1, "cachedInputTokens": 0,
            "outputTokens": 2, "totalCostUsd": 0.5, "contextWindowMaxTokens": 10, "contextWindowUsedTokens": 3}}),
        json!({"type": "session.config", "sessionId": "s", "config": {"model": "m", "mode": "auto", "thinkingOption": "low",
            "models": [model], "modes": [mode], "thinkingOptions": [{"id": "low", "label": "Low"}],
            "controls": [
                {"type": "toggle", "key": "fast", "label": "Fast mode", "icon": "Zap", "defaultValue": false},
                {"type": "select", "key": "approval", "label": "Approvals", "icon": "Shield", "defaultValue": "ask",
                 "choices": [{"value": "ask", "label": "Ask"}, {"value": "auto", "label": "Auto accept"}]}],
            "providerOptions": {"fast": true, "approval": "ask"}}}),
        json!({"type": "session.config", "sessionId": "s", "config": {"models": [], "modes": [], "thinkingOptions": [],
            "settings": [{"type": "toggle", "id": "t", "label": "T", "description": "d", "value": true},
                         {"type": "select", "id": "s", "label": "S", "value": null, "options": [{"label": "A", "value": "a"}]}]}}),
        json!({"type": "session.commands", "sessionId": "s", "commands": [{"name": "compact", "description": "d", "argumentHint": "[x]"}]}),
        json!({"type": "session.permission", "sessionId": "s", "request": {"id": "p", "name": "Bash", "kind": "tool",
            "title": "t", "description": "d", "input": {"command": "ls"}, "detail": {"type": "shell", "command": "ls"},
            "suggestions": [{"mode": "acceptEdits"}], "metadata": {},
            "actions": [{"id": "a", "label": "Allow", "behavior": "allow", "variant": "primary", "intent": "implement"},
                        {"id": "d", "label": "Deny", "behavior": "deny", "variant": "danger", "intent": "dismiss"}]}}),
        json!({"type": "session.permission", "sessionId": "s", "request": {"id": "p", "name": "ExitPlanMode", "kind": "plan"}}),
        json!({"type": "session.permission_resolved", "sessionId": "s", "permissionId": "p"}),
        json!({"type": "session.notice", "sessionId": "s", "notice": {"id": "n", "severity": "warning", "title": "t", "description": "d", "dismissed": false}}),
        json!({"type": "session.can_stop_runtime", "requestId": "r", "sessionId": "s", "canStop": true}),
        item(
            json!({"type": "user_message", "id": "u", "text": "hi", "messageId": "m", "clientMessageId": "c", "revertToken": {"at": 1}}),
        ),
        item(json!({"type": "assistant_message", "id": "a", "text": "", "messageId": "m"})),
        item(json!({"type": "reasoning", "id": "r", "text": "hmm", "revertToken": null})),
        item(
            json!({"type": "todo", "id": "todo", "items": [{"text": "x", "completed": false, "id": "1", "status": "in_progress", "activeForm": "Doing x"}]}),
        ),
        item(json!({"type": "error", "id": "e", "message": "m"})),
        item(json!({"type": "notification", "id": "n", "level": "info", "message": "m"})),
        item(json!({"type": "compaction", "id": "c", "status": "loading"})),
        item(
            json!({"type": "compaction", "id": "c", "status": "completed", "trigger": "manual", "preTokens": 1200}),
        ),
        item(
            json!({"type": "plugin", "id": "p", "pluginId": "my-plugin", "kind": "review-verdict", "version": 1, "data": {"verdict": "ship"}}),
        ),
        tool(
            "running",
            Value::Null,
            json!({"type": "shell", "command": "ls", "cwd": "/w", "exitCode": null}),
        ),
        tool(
            "completed",
            Value::Null,
            json!({"type": "shell", "command": "ls", "output": "a\n", "exitCode": 0}),
        ),
        tool(
            "failed",
            json!({"message": "exit 1"}),
            json!({"type": "shell", "command": "false", "exitCode": 1}),
        ),
        tool(
            "failed",
            json!("denied"),
            json!({"type": "read", "filePath": "/w/a", "content": "x", "offset": 1, "limit": 2}),
        ),
        tool(
            "canceled",
            Value::Null,
            json!({"type": "edit", "filePath": "/w/a", "oldString": "a", "newString": "b", "unifiedDiff": "@@"}),
        ),
        tool(
            "completed",
            Value::Null,
            json!({"type": "write", "filePath": "/w/a", "content": "x"}),
        ),
        tool(
            "completed",
            Value::Null,
            json!({"type": "search", "query": "q", "toolName": "web_search", "content": "c",
            "filePaths": ["/w/a"], "webResults": [{"title": "t", "url": "https://x"}], "annotations": ["a"], "numFiles": 1,
            "numMatches": 2, "durationMs": 3, "durationSeconds": 0.5, "truncated": false, "mode": "files_with_matches"}),
        ),
        tool(
            "completed",
            Value::Null,
            json!({"type": "fetch", "url": "https://x", "prompt": "p", "result": "r", "code": 200,
            "codeText": "OK", "bytes": 10, "durationMs": 5}),
        ),
        tool(
            "running",
            Value::Null,
            json!({"type": "worktree_setup", "worktreePath": "/w", "branchName": "b", "log": "",
            "commands": [{"index": 1, "command": "npm ci", "cwd": "/w", "log": "", "status": "running", "exitCode": null, "durationMs": 0}],
            "truncated": false}),
        ),
        tool(
            "completed",
            Value::Null,
            json!({"type": "sub_agent", "subAgentType": "Explore", "description": "d", "childSessionId": "child",
            "log": "[Read] a", "actions": [{"index": 1, "toolName": "Read", "summary": "a"}]}),
        ),
        tool(
            "completed",
            Value::Null,
            json!({"type": "plain_text", "label": "l", "text": "t", "icon": "mic_vocal"}),
        ),
        tool("completed", Value::Null, json!({"type": "plain_text"})),
        tool(
            "completed",
            Value::Null,
            json!({"type": "plan", "text": "1. do it"}),
        ),
        tool(
            "completed",
            Value::Null,
            json!({"type": "unknown", "input": {"a": 1}, "output": null}),
        ),
    ]
}

#[test]
fn accepts_every_kind_the_spec_defines() {
    let mut wrong = Vec::new();
    for event in good_events() {
        let problems = paseo_schema::check(&event);
        if !problems.is_empty() {
            wrong.push(format!("{event}\n  {problems:#?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn accepts_events_recorded_from_real_runs() {
    let runs: Value = serde_json::from_str(REAL_RUNS).expect("real-runs.json is JSON");
    let mut seen = 0;
    let mut wrong = Vec::new();
    for provider in ["claude-bridge", "codex-bridge"] {
        let events = runs[provider].as_array().expect("events of the provider");
        assert!(events.len() > 10, "{provider}: {} events", events.len());
        for event in events {
            seen += 1;
            let problems = validate_event(event);
            if !problems.is_empty() {
                wrong.push(format!("{provider}: {event}\n  {problems:#?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(seen > 50, "{seen} events");
}

/// The bridge's preview cutter keeps within the limit Paseo measures (UTF-16 code units).
#[test]
fn previews_cut_by_the_bridge_fit() {
    let long = "\u{1F389} party ".repeat(60);
    let preview = agent_bridge_protocol::prompt_preview(&long);
    let event = json!({"type": "sessions", "requestId": "r", "sessions": [{"persistence": {"version": 0, "data": null},
        "cwd": "/w", "firstPromptPreview": preview, "lastPromptPreview": preview}]});
    assert_eq!(validate_event(&event), Vec::<String>::new());
}
