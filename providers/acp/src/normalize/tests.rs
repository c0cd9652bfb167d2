//! The normalizer against the recorded ACP transcripts of the five pinned agents
//! (`tests/fixtures/*-acp-*.jsonl`, copied from `shared/fixtures`): the final timeline (the
//! last snapshot of every item, in order of first appearance) and the other events, per
//! transcript.

use super::Normalizer;
use crate::wire::method;
use agent_bridge_core::rpc::{Dialect, Incoming, JsonRpc};
use agent_bridge_core::AgentEvent;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};

pub(crate) fn fixture(agent: &str, scenario: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/{agent}-acp-{scenario}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Feeds every `session/update` of a transcript (inside the turn `turn-1`, or as a replay
/// when `replay`) and returns the final timeline and the other events.
fn run(transcript: &str, replay: bool) -> Value {
    let mut n = Normalizer::new();
    if !replay {
        n.begin_turn("turn-1");
    }
    let mut order: Vec<String> = Vec::new();
    let mut items: std::collections::HashMap<String, Value> = Default::default();
    let mut other = Vec::new();
    let mut seen_update = false;
    for line in transcript.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(Incoming::Notification { method: m, params }) = JsonRpc::v2().decode(line) else {
            continue;
        };
        if m != method::SESSION_UPDATE {
            continue;
        }
        seen_update = true;
        let out = n.update(params["update"].clone());
        for e in out.events {
            match e {
                AgentEvent::Item(item) => {
                    if !items.contains_key(&item.id) {
                        order.push(item.id.clone());
                    }
                    items.insert(item.id.clone(), json!(item));
                }
                AgentEvent::Usage { usage, .. } => other.push(json!({ "usage": usage })),
                AgentEvent::Commands(c) => other.push(json!({ "commands": c.len() })),
                e => other.push(json!(format!("{e:?}"))),
            }
        }
        if let Some(c) = out.config {
            other.push(json!(format!("config: {c:?}")
                .chars()
                .take(80)
                .collect::<String>()));
        }
        if let Some(t) = out.title {
            other.push(json!({ "title": t }));
        }
    }
    assert!(seen_update, "the transcript has updates");
    let end = n.end_turn(false);
    json!({
        "timeline": order.iter().map(|id| items[id].clone()).collect::<Vec<_>>(),
        "other": other,
        "endTurn": end.len(),
    })
}

macro_rules! fixture_snapshots {
    ($($name:ident: $agent:literal $scenario:literal $replay:literal;)*) => {$(
        #[test]
        fn $name() {
            let view = run(&fixture($agent, $scenario), $replay);
            insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!(stringify!($name), view); });
        }
    )*};
}

fixture_snapshots! {
        gemini_tool_permission: "gemini" "tool-permission-prompt" false;
    gemini_tool_bypass: "gemini" "tool-bypass" false;
    gemini_cancel: "gemini" "cancel" false;
    qwen_tool_bypass: "qwen" "tool-bypass" false;
    qwen_tool_permission: "qwen" "tool-permission-prompt" false;
    qwen_load_session: "qwen" "load-session" true;
    opencode_tool_permission: "opencode" "tool-permission-prompt" false;
    opencode_load_session: "opencode" "load-session" true;
    opencode_tool_detail: "opencode" "tool-detail" false;
    claude_acp_tool_bypass: "claude-agent-acp" "tool-bypass" false;
    claude_acp_tool_permission: "claude-agent-acp" "tool-permission-prompt" false;
    claude_acp_load_session: "claude-agent-acp" "load-session" true;
    codex_acp_tool_bypass: "codex-acp" "tool-bypass" false;
    codex_acp_load_session: "codex-acp" "load-session" true;
}

#[test]
fn chunks_grow_one_message_until_something_else_comes() {
    let mut n = Normalizer::new();
    n.begin_turn("t");
    let chunk = |text: &str| json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}});
    let a = n.update(chunk("Hel")).events;
    let b = n.update(chunk("lo")).events;
    let (AgentEvent::Item(a), AgentEvent::Item(b)) = (&a[0], &b[0]) else {
        panic!("items");
    };
    assert_eq!(a.id, b.id);
    assert_eq!(json!(b)["text"], "Hello");
    n.update(
        json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "hmm"}}),
    );
    let c = n.update(chunk("again")).events;
    let AgentEvent::Item(c) = &c[0] else {
        panic!("item")
    };
    assert_ne!(c.id, a.id, "a new message after a thought");
    assert_eq!(json!(c)["text"], "again");
}

#[test]
fn a_live_turn_drops_the_echo_of_the_prompt_and_unknown_kinds() {
    let mut n = Normalizer::new();
    n.begin_turn("t");
    let echo = n.update(json!({"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "say hi"}}));
    assert!(echo.events.is_empty());
    let unknown = n.update(json!({"sessionUpdate": "compaction_update", "x": 1}));
    assert!(unknown.events.is_empty() && unknown.config.is_none());
    let again = n.update(json!({"sessionUpdate": "compaction_update", "x": 2}));
    assert!(again.events.is_empty());
}

#[test]
fn a_canceled_turn_cancels_its_running_tools() {
    let mut n = Normalizer::new();
    n.begin_turn("t");
    n.update(
        json!({"sessionUpdate": "tool_call", "toolCallId": "c1", "kind": "execute",
        "title": "sleep 10", "status": "in_progress"}),
    );
    assert_eq!(n.running_tools(), 1);
    let end = n.end_turn(true);
    let AgentEvent::Item(item) = &end[0] else {
        panic!("item")
    };
    assert_eq!(json!(item)["status"], "canceled");
    assert_eq!(n.active_turn(), None);
}

#[test]
fn the_recorded_initialize_answers_are_read() {
    // (agent, loadSession, list, resume, close, image)
    let expect = [
        ("gemini", true, false, false, false, true),
        ("qwen", true, true, true, false, true),
        ("opencode", true, true, true, true, true),
        ("claude-agent-acp", true, true, true, true, true),
        ("codex-acp", true, true, true, true, true),
    ];
    for (agent, load, list, resume, close, image) in expect {
        let init = fixture(agent, "say-hi")
            .lines()
            .find_map(|l| match JsonRpc::v2().decode(l) {
                Ok(Incoming::Response { result: Ok(v), .. })
                    if v.get("protocolVersion").is_some() =>
                {
                    serde_json::from_value::<crate::wire::InitializeResult>(v).ok()
                }
                _ => None,
            })
            .unwrap_or_else(|| panic!("{agent}: an initialize answer"));
        let c = &init.agent_capabilities;
        assert_eq!(init.protocol_version, Some(1), "{agent}");
        assert_eq!(
            (
                c.load_session,
                c.session("list"),
                c.session("resume"),
                c.session("close"),
                c.prompt_capabilities.image
            ),
            (load, list, resume, close, image),
            "{agent}"
        );
    }
}

#[test]
fn no_tool_call_is_kept_after_its_turn_however_many_turns_run() {
    let mut n = Normalizer::new();
    // A replay's tool call, then turns with a tool call each.
    n.update(
        json!({"sessionUpdate": "tool_call", "toolCallId": "old", "kind": "read",
        "title": "a.txt", "status": "completed"}),
    );
    for t in 0..50 {
        n.begin_turn(&format!("t{t}"));
        n.update(
            json!({"sessionUpdate": "tool_call", "toolCallId": format!("c{t}"),
            "kind": "execute", "title": "ls", "status": "in_progress"}),
        );
        n.update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": format!("c{t}"),
            "status": "completed", "content": [{"type": "content",
            "content": {"type": "text", "text": "x".repeat(1000)}}]}),
        );
        assert_eq!(n.tools_kept(), 1);
        n.end_turn(false);
        assert_eq!(n.tools_kept(), 0, "turn {t}");
    }
}

/// A replay where the session can be rewound: each replayed user message carries the revert
/// token of its `messageId`; a pending revert leaves its turns (from its message on) out,
/// config updates aside, until a live turn begins.
#[test]
fn a_replay_tags_user_messages_and_leaves_out_a_pending_revert() {
    let mut n = Normalizer::new();
    n.replay_revert.tokens = Some(crate::opencode::revert::token);
    n.replay_revert.cut_at(Some("msg_2".into()));
    let user = |id: &str, text: &str| json!({"sessionUpdate": "user_message_chunk", "messageId": id, "content": {"type": "text", "text": text}});
    let agent = |id: &str| json!({"sessionUpdate": "agent_message_chunk", "messageId": id, "content": {"type": "text", "text": "ok"}});
    let kept = n.update(user("msg_1", "first")).events;
    let AgentEvent::Item(row) = &kept[0] else {
        panic!("a row: {kept:?}")
    };
    assert_eq!(row.revert_token, Some(json!({"messageID": "msg_1"})));
    assert_eq!(n.update(agent("msg_1a")).events.len(), 1);
    assert!(n.update(user("msg_2", "reverted")).events.is_empty());
    assert!(n.update(agent("msg_2a")).events.is_empty());
    assert!(n.update(user("msg_3", "later")).events.is_empty());
    let mode = n.update(json!({"sessionUpdate": "current_mode_update", "currentModeId": "plan"}));
    assert!(mode.config.is_some(), "the session's config still follows");
    n.begin_turn("t");
    assert_eq!(
        n.update(agent("msg_4a")).events.len(),
        1,
        "a live turn shows"
    );

    let mut plain = Normalizer::new();
    let AgentEvent::Item(row) = &plain.update(user("msg_1", "first")).events[0] else {
        panic!("a row")
    };
    assert_eq!(row.revert_token, None, "no tokens where nothing rewinds");
}

/// An agent newer than the crate: every recorded update with fields the crate does not know,
/// and between them kinds, content blocks and payloads it cannot read. The timeline is the
/// same as the recorded one's: nothing fails the turn.
#[test]
fn a_newer_agents_lines_degrade_and_leave_the_timeline_as_it_was() {
    let recorded = fixture("gemini", "tool-bypass");
    let newer: Vec<Value> = vec![
        json!({"sessionUpdate": "hologram_update", "beam": {"x": 1}}),
        json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "hologram", "data": "…"}}),
        json!({"sessionUpdate": "usage_update", "used": 12}),
        json!("not an object"),
    ];
    let mut lines = Vec::new();
    for line in recorded.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(mut v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if v["method"] == method::SESSION_UPDATE {
            v["params"]["update"]["futureField"] = json!({"nested": [1, 2]});
            v["params"]["_meta"] = json!({"vendor": true});
            lines.push(v.to_string());
            for n in &newer {
                lines.push(
                    json!({"jsonrpc": "2.0", "method": "session/update",
                        "params": {"sessionId": "s", "update": n}})
                    .to_string(),
                );
            }
        } else {
            lines.push(line.to_string());
        }
    }
    assert_eq!(run(&lines.join("\n"), false), run(&recorded, false));
}

/// A plan entry the crate cannot read (a status of a newer schema) is left out of the list;
/// the others show.
#[test]
fn a_plan_entry_of_a_newer_status_is_left_out() {
    let mut n = Normalizer::new();
    n.begin_turn("t");
    let out = n.update(json!({"sessionUpdate": "plan", "entries": [
        {"content": "known", "status": "in_progress", "priority": "high"},
        {"content": "newer", "status": "someday", "priority": "high"}]}));
    let AgentEvent::Item(item) = &out.events[0] else {
        panic!("a todo: {:?}", out.events)
    };
    let row = json!(item);
    let texts: Vec<&str> = row["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|i| i["text"].as_str())
        .collect();
    assert_eq!(texts, vec!["known"], "{row}");
}

#[test]
fn an_unknown_tool_kind_is_a_generic_tool() {
    let mut n = Normalizer::new();
    n.begin_turn("t");
    let out = n.update(json!({"sessionUpdate": "tool_call", "toolCallId": "c1",
        "kind": "browse", "status": "in_progress", "title": "open page",
        "rawInput": {"url": "https://example.org"}}));
    let AgentEvent::Item(item) = &out.events[0] else {
        panic!("an item: {:?}", out.events)
    };
    let row = json!(item);
    assert_eq!(row["name"], "other");
    assert_eq!(row["status"], "running");
    assert_eq!(row["detail"]["type"], "unknown", "{row}");
}

/// Deep Agents Code announces `call_…` and asks under a hex id without a kind: the permission
/// is the announced call's (a shell command, one timeline item); an unknown id whose input
/// matches no waiting call stays its own.
#[test]
fn a_permission_asked_under_another_id_is_the_announced_calls() {
    let mut n = Normalizer::new();
    n.begin_turn("t");
    n.update(
        json!({"sessionUpdate": "tool_call", "toolCallId": "call_mock0001",
        "kind": "execute", "status": "pending", "title": "touch a.txt",
        "rawInput": {"command": "touch a.txt"}}),
    );
    let asked = |id: &str, command: &str| -> crate::wire::acp::ToolCallUpdate {
        serde_json::from_value(
            json!({"toolCallId": id, "title": format!("Execute: `{command}`"),
            "rawInput": {"command": command}}),
        )
        .expect("tool call update")
    };
    let (snapshot, item) = n.permission_tool(&asked("0bb50f17", "touch a.txt"));
    assert_eq!(snapshot.tool_call_id.0.as_ref(), "call_mock0001");
    let AgentEvent::Item(item) = item else {
        panic!("an item: {item:?}")
    };
    let row = json!(item);
    assert_eq!(row["id"], "tool:call_mock0001", "{row}");
    assert_eq!(row["detail"]["type"], "shell", "{row}");
    let (other, _) = n.permission_tool(&asked("9f00", "rm b.txt"));
    assert_eq!(
        other.tool_call_id.0.as_ref(),
        "9f00",
        "no waiting call with that input"
    );
}

/// OpenHands announces the shell call, then asks about its pseudo call "Confirm Agent
/// Actions" (`confirmation-<session>`, kind `other`, no input): the permission is the
/// announced call's, which keeps its own title, kind and command. With no call waiting, or
/// with a pseudo call that carries an input, the request stays its own.
#[test]
fn a_confirmation_of_the_waiting_calls_is_the_newest_ones() {
    let confirm = |input: Option<Value>| -> crate::wire::acp::ToolCallUpdate {
        let mut v = json!({"toolCallId": "confirmation-s1", "title": "Confirm Agent Actions",
            "kind": "other", "status": "pending"});
        if let Some(input) = input {
            v["rawInput"] = input;
        }
        serde_json::from_value(v).expect("tool call update")
    };
    let mut n = Normalizer::new();
    n.begin_turn("t");
    let (alone, _) = n.permission_tool(&confirm(None));
    assert_eq!(
        alone.tool_call_id.0.as_ref(),
        "confirmation-s1",
        "nothing waits"
    );

    let mut n = Normalizer::new();
    n.begin_turn("t");
    n.update(
        json!({"sessionUpdate": "tool_call", "toolCallId": "call_mock0001",
        "kind": "execute", "status": "in_progress", "title": "touch a.txt",
        "rawInput": {"command": "touch a.txt", "is_input": false}}),
    );
    let (snapshot, item) = n.permission_tool(&confirm(None));
    assert_eq!(snapshot.tool_call_id.0.as_ref(), "call_mock0001");
    let AgentEvent::Item(item) = item else {
        panic!("an item: {item:?}")
    };
    let row = json!(item);
    assert_eq!(row["id"], "tool:call_mock0001", "{row}");
    assert_eq!(row["status"], "running", "{row}");
    assert_eq!(row["detail"]["type"], "shell", "{row}");
    assert_eq!(row["detail"]["command"], "touch a.txt", "{row}");
    let (own, _) = n.permission_tool(&confirm(Some(json!({"command": "rm b"}))));
    assert_eq!(
        own.tool_call_id.0.as_ref(),
        "confirmation-s1",
        "it has an input"
    );

    // A restarted agent's replay left the killed turn's call waiting; the next turn asks again.
    let mut n = Normalizer::new();
    n.update(
        json!({"sessionUpdate": "tool_call", "toolCallId": "call_done",
        "kind": "execute", "status": "completed", "title": "ls", "rawInput": {"command": "ls"}}),
    );
    n.update(
        json!({"sessionUpdate": "tool_call", "toolCallId": "call_killed",
        "kind": "execute", "status": "in_progress", "title": "touch k.txt",
        "rawInput": {"command": "touch k.txt"}}),
    );
    n.begin_turn("after-restart");
    let (again, _) = n.permission_tool(&confirm(None));
    assert_eq!(again.tool_call_id.0.as_ref(), "call_killed");
    n.end_turn(false);
    n.begin_turn("later");
    let (later, _) = n.permission_tool(&confirm(None));
    assert_eq!(
        later.tool_call_id.0.as_ref(),
        "confirmation-s1",
        "kept for one turn only"
    );
}
