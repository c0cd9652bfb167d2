//! The normalizer against the real app-server transcripts (`tests/fixtures`, copied from
//! `shared/fixtures`, recorded from codex 0.171.0) and a few synthetic notifications for item
//! types the transcripts do not contain.

use super::Normalizer;
use agent_bridge_core::rpc::{Dialect, Incoming, JsonRpc};

fn parse_line(line: &str) -> Result<Incoming, agent_bridge_core::rpc::DecodeError> {
    JsonRpc::bare().decode(line)
}
use agent_bridge_core::{AgentEvent, TurnOutcome};
use pretty_assertions::assert_eq;
use serde_json::{json, Value};

pub(crate) fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/codex-appserver-{name}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A serializable view of the events, for snapshots.
pub(crate) fn view(events: &[AgentEvent]) -> Value {
    Value::Array(
        events
            .iter()
            .map(|e| match e {
                AgentEvent::Item(item) => json!({ "item": item }),
                AgentEvent::ChildItem {
                    child_session_id,
                    item,
                } => json!({ "childItem": { "child": child_session_id, "item": item } }),
                AgentEvent::ChildOpened(c) => json!({ "childOpened": {
                    "sessionId": c.session_id, "title": c.title, "description": c.description } }),
                AgentEvent::ChildClosed { child_session_id } => {
                    json!({ "childClosed": child_session_id })
                }
                AgentEvent::TurnEnded { turn_id, outcome } => json!({ "turnEnded": {
                    "turnId": turn_id,
                    "outcome": match outcome {
                        TurnOutcome::Completed => json!("completed"),
                        TurnOutcome::Canceled => json!("canceled"),
                        TurnOutcome::Failed(e) => json!({ "failed": e }),
                    }
                } }),
                AgentEvent::Usage { turn_id, usage } => {
                    json!({ "usage": { "turnId": turn_id, "usage": usage } })
                }
                other => json!({ "other": format!("{other:?}") }),
            })
            .collect(),
    )
}

/// Feeds a transcript as a session would: the core's turn `turn-1` is active from the start and
/// the `turn/start` answer binds Codex's turn id.
fn run(n: &mut Normalizer, transcript: &str) -> Vec<AgentEvent> {
    n.begin_turn("turn-1");
    let mut out = Vec::new();
    for line in transcript.lines().filter(|l| !l.trim().is_empty()) {
        match parse_line(line).expect("fixture line parses") {
            Incoming::Response { result: Ok(v), .. } => {
                if let Some(id) = v.pointer("/turn/id").and_then(Value::as_str) {
                    n.bind_native("turn-1", id);
                }
            }
            Incoming::Response { .. } | Incoming::Request { .. } => {}
            Incoming::Notification { method, params } => {
                out.extend(n.notification(&method, params))
            }
        }
    }
    out
}

const THREAD: &str = "01a22cc6-84d8-7f00-95c6-d1b473be0982";

#[test]
fn say_hi_streams_one_growing_message_and_ends_the_turn() {
    let mut n = Normalizer::new("s1", THREAD, "/home/dev/fx/work-codex");
    let events = run(&mut n, &fixture("say-hi"));
    insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!("say_hi", view(&events)); });
    // The last text snapshot carries the whole message; the turn ends completed.
    let texts: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Item(i) => match &i.body {
                agent_bridge_protocol::ItemBody::AssistantMessage { text, .. } => {
                    Some(text.clone())
                }
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(
        texts.last().map(String::as_str),
        Some("hi! (mock reply 10)")
    );
    assert!(matches!(
        events.last(),
        Some(AgentEvent::TurnEnded { turn_id, outcome: TurnOutcome::Completed }) if turn_id == "turn-1"
    ));
    assert_eq!(n.active_turn(), None);
}

#[test]
fn tool_bypass_becomes_a_shell_call_with_output_and_exit_code() {
    let mut n = Normalizer::new("s1", THREAD, "/home/dev/fx/work-codex");
    let events = run(&mut n, &fixture("tool-bypass"));
    insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!("tool_bypass", view(&events)); });
    let done = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Item(i) if i.id == "call_ccb0a5b0830b4a398b92" => Some(i),
            _ => None,
        })
        .next_back()
        .expect("shell item");
    assert_eq!(
        serde_json::to_value(done).unwrap(),
        json!({
            "id": "call_ccb0a5b0830b4a398b92",
            "type": "tool_call",
            "callId": "call_ccb0a5b0830b4a398b92",
            "name": "shell",
            "detail": {"type": "shell", "command": "echo hello", "cwd": "/home/dev/fx/work-codex",
                       "output": "hello\n", "exitCode": 0},
            "metadata": {"rawCommand": "/bin/bash -lc 'echo hello'", "durationMs": 0},
            "status": "completed",
            "error": null
        })
    );
}

#[test]
fn interrupt_ends_the_turn_canceled() {
    let mut n = Normalizer::new("s1", THREAD, "/home/dev/fx/work-codex");
    let events = run(&mut n, &fixture("interrupt"));
    insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!("interrupt", view(&events)); });
    assert!(matches!(
        events.last(),
        Some(AgentEvent::TurnEnded {
            outcome: TurnOutcome::Canceled,
            ..
        })
    ));
}

#[test]
fn permission_prompt_transcript_runs_the_approved_command() {
    let mut n = Normalizer::new("s1", "01a22cc6-8da8-7112-818c-ddae2bd55936", "/w");
    let events = run(&mut n, &fixture("tool-permission-prompt"));
    insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!("tool_permission_prompt", view(&events)); });
}

#[test]
fn items_of_a_turn_that_is_not_ours_are_dropped() {
    let mut n = Normalizer::new("s1", THREAD, "/w");
    // No turn started by the core: nothing of the transcript's turn is reported.
    let mut out = Vec::new();
    for line in fixture("say-hi").lines() {
        if let Ok(Incoming::Notification { method, params }) = parse_line(line) {
            out.extend(n.notification(&method, params));
        }
    }
    let kinds: Vec<&str> = out
        .iter()
        .map(|e| match e {
            AgentEvent::Item(i) => match &i.body {
                agent_bridge_protocol::ItemBody::Notification { .. } => "notification",
                _ => "item",
            },
            AgentEvent::Usage { turn_id: None, .. } => "usage-without-turn",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, vec!["notification", "usage-without-turn"]);
}

fn note(method: &str, params: Value) -> (String, Value) {
    (method.to_string(), params)
}

#[test]
fn reasoning_plan_diff_file_change_mcp_and_web_search() {
    let mut n = Normalizer::new("s1", "th", "/w");
    n.begin_turn("turn-1");
    let t = |extra: Value| {
        let mut base = json!({"threadId": "th", "turnId": "nt"});
        if let (Some(b), Value::Object(e)) = (base.as_object_mut(), extra) {
            b.extend(e);
        }
        base
    };
    let script = vec![
        note(
            "turn/started",
            json!({"threadId": "th", "turn": {"id": "nt", "items": [], "status": "inProgress"}}),
        ),
        note(
            "item/started",
            t(json!({"item": {"type": "reasoning", "id": "r1", "summary": [], "content": []}})),
        ),
        note(
            "item/reasoning/summaryTextDelta",
            t(json!({"itemId": "r1", "delta": "Think", "summaryIndex": 0})),
        ),
        note(
            "item/reasoning/summaryTextDelta",
            t(json!({"itemId": "r1", "delta": "ing", "summaryIndex": 0})),
        ),
        note(
            "item/reasoning/summaryPartAdded",
            t(json!({"itemId": "r1", "summaryIndex": 1})),
        ),
        note(
            "item/reasoning/summaryTextDelta",
            t(json!({"itemId": "r1", "delta": "More", "summaryIndex": 1})),
        ),
        note(
            "turn/plan/updated",
            t(json!({"plan": [
            {"step": "Read", "status": "completed"}, {"step": "Edit", "status": "inProgress"}, {"step": "Test", "status": "pending"}]})),
        ),
        note(
            "item/started",
            t(
                json!({"item": {"type": "fileChange", "id": "p1", "status": "inProgress", "changes": [
            {"path": "a.txt", "kind": {"type": "update", "move_path": null}, "diff": "@@ -1 +1 @@\n-a\n+b\n"}]}}),
            ),
        ),
        note(
            "item/completed",
            t(
                json!({"item": {"type": "fileChange", "id": "p1", "status": "completed", "changes": [
            {"path": "a.txt", "kind": {"type": "update", "move_path": null}, "diff": "@@ -1 +1 @@\n-a\n+b\n"}]}}),
            ),
        ),
        note(
            "turn/diff/updated",
            t(
                json!({"diff": "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n"}),
            ),
        ),
        note(
            "item/completed",
            t(
                json!({"item": {"type": "mcpToolCall", "id": "m1", "server": "docs", "tool": "lookup",
            "status": "failed", "arguments": {"q": 1}, "error": {"message": "boom"}}}),
            ),
        ),
        note(
            "item/completed",
            t(
                json!({"item": {"type": "webSearch", "id": "w1", "query": "rust serde",
            "action": {"type": "search", "query": "rust serde"}}}),
            ),
        ),
        note(
            "item/completed",
            t(json!({"item": {"type": "futureThing", "id": "f1"}})),
        ),
        note("some/new/notification", json!({"x": 1})),
        note(
            "turn/completed",
            json!({"threadId": "th", "turn": {"id": "nt", "items": [], "status": "failed",
            "error": {"message": "Unauthorized: bad key", "codexErrorInfo": "unauthorized", "additionalDetails": "401"}}}),
        ),
    ];
    let mut out = Vec::new();
    for (m, p) in script {
        out.extend(n.notification(&m, p));
    }
    insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!("synthetic_items", view(&out)); });
}

#[test]
fn sub_agents_open_child_sessions_and_route_their_items() {
    let mut n = Normalizer::new("s1", "th", "/w");
    n.begin_turn("turn-1");
    let mut out = n.notification(
        "turn/started",
        json!({"threadId": "th", "turn": {"id": "nt", "items": [], "status": "inProgress"}}),
    );
    out.extend(n.notification("item/started", json!({"threadId": "th", "turnId": "nt", "item": {
        "type": "collabAgentToolCall", "id": "c1", "tool": "spawnAgent", "status": "inProgress",
        "senderThreadId": "th", "receiverThreadIds": ["child-th"], "prompt": "look around", "model": "m"}})));
    out.extend(n.notification(
        "item/completed",
        json!({"threadId": "child-th", "turnId": "ct", "item": {
        "type": "agentMessage", "id": "cm", "text": "found it"}}),
    ));
    out.extend(n.notification(
        "item/completed",
        json!({"threadId": "other-th", "turnId": "x", "item": {
        "type": "agentMessage", "id": "om", "text": "not ours"}}),
    ));
    insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!("sub_agent", view(&out)); });
    assert_eq!(n.running_tools(), 1);
}

#[test]
fn a_sub_agent_child_closes_when_the_sub_agent_ends() {
    let spawn = |n: &mut Normalizer, child: &str| {
        n.notification(
            "item/completed",
            json!({"threadId": "th", "turnId": "nt", "item": {
            "type": "collabAgentToolCall", "id": format!("spawn-{child}"), "tool": "spawnAgent",
            "status": "completed", "senderThreadId": "th", "receiverThreadIds": [child],
            "agentsStates": {child: {"status": "pendingInit"}}}}),
        )
    };
    let closed = |out: &[AgentEvent]| -> Vec<String> {
        out.iter()
            .filter_map(|e| match e {
                AgentEvent::ChildClosed { child_session_id } => Some(child_session_id.clone()),
                _ => None,
            })
            .collect()
    };
    let mut n = Normalizer::new("s1", "th", "/w");
    n.begin_turn("turn-1");
    n.notification(
        "turn/started",
        json!({"threadId": "th", "turn": {"id": "nt", "items": [], "status": "inProgress"}}),
    );
    for child in ["a", "b", "c"] {
        spawn(&mut n, child);
    }
    // `closeAgent` ends its receivers: started it closes nothing and opens nothing.
    let close = |status: &str| {
        json!({"threadId": "th", "turnId": "nt", "item": {
        "type": "collabAgentToolCall", "id": "close-a", "tool": "closeAgent", "status": status,
        "senderThreadId": "th", "receiverThreadIds": ["a"], "agentsStates": {}}})
    };
    let started = n.notification("item/started", close("inProgress"));
    assert!(closed(&started).is_empty());
    assert!(!started
        .iter()
        .any(|e| matches!(e, AgentEvent::ChildOpened(_))));
    assert_eq!(
        closed(&n.notification("item/completed", close("completed"))),
        ["s1:codex-agent:a"]
    );
    // Its unload afterwards closes nothing twice.
    let unloaded = |t: &str| json!({"threadId": t, "status": {"type": "notLoaded"}});
    assert!(closed(&n.notification("thread/status/changed", unloaded("a"))).is_empty());
    // An unloaded child thread has ended; an idle one has not.
    let idle = json!({"threadId": "b", "status": {"type": "idle"}});
    assert!(closed(&n.notification("thread/status/changed", idle)).is_empty());
    assert_eq!(
        closed(&n.notification("thread/status/changed", unloaded("b"))),
        ["s1:codex-agent:b"]
    );
    // A state of `shutdown` reported by any collab call ends it too.
    let waited = json!({"threadId": "th", "turnId": "nt", "item": {
        "type": "collabAgentToolCall", "id": "wait-1", "tool": "wait", "status": "completed",
        "senderThreadId": "th", "receiverThreadIds": ["c"], "agentsStates": {"c": {"status": "shutdown"}}}});
    assert_eq!(
        closed(&n.notification("item/completed", waited)),
        ["s1:codex-agent:c"]
    );
    // The main thread's unload is not a child's.
    assert!(closed(&n.notification("thread/status/changed", unloaded("th"))).is_empty());
}

#[test]
fn retries_show_one_notice_withdrawn_when_the_turn_ends() {
    let mut n = Normalizer::new("s1", "th", "/w");
    n.begin_turn("turn-1");
    let retry = |msg: &str| {
        json!({"threadId": "th", "turnId": "nt", "willRetry": true, "error": {
            "message": msg, "codexErrorInfo": {"responseStreamDisconnected": {"httpStatusCode": null}},
            "additionalDetails": "Connection failed: error sending request"}})
    };
    let mut out = n.notification(
        "turn/started",
        json!({"threadId": "th", "turn": {"id": "nt", "items": [], "status": "inProgress"}}),
    );
    out.extend(n.notification("error", retry("Reconnecting... 1/5")));
    out.extend(n.notification("error", retry("Reconnecting... waiting for network")));
    out.extend(n.notification(
        "turn/completed",
        json!({"threadId": "th", "turn": {"id": "nt", "items": [], "status": "interrupted"}}),
    ));
    let notices: Vec<_> = out
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Notice(n) => Some(n.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(notices.len(), 3, "{notices:?}");
    assert!(notices.iter().all(|x| x.id == notices[0].id));
    assert!(agent_bridge_core::retry_notice::is_retry(&notices[0]));
    assert_eq!(
        notices[1].description.as_deref(),
        Some("Reconnecting... waiting for network: Connection failed: error sending request")
    );
    assert_eq!(notices[2].dismissed, Some(true));
    assert!(
        matches!(
            out.last(),
            Some(AgentEvent::TurnEnded {
                outcome: TurnOutcome::Canceled,
                ..
            })
        ),
        "the notice is withdrawn before the turn ends"
    );
}
