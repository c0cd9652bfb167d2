//! Normalizer tests on the real CLI transcripts (`insta` snapshots) plus targeted cases.

use super::tests_support::run;
use super::*;
use crate::wire::CliMessage;
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::ToolStatus;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};

fn outcome_json(o: &TurnOutcome) -> Value {
    match o {
        TurnOutcome::Completed => json!("completed"),
        TurnOutcome::Canceled => json!("canceled"),
        TurnOutcome::Failed(e) => json!({"failed": e}),
    }
}

/// A serializable view of the events, for snapshots.
fn events_json(events: &[NormEvent]) -> Value {
    Value::Array(
        events
            .iter()
            .map(|e| match e {
                NormEvent::Item(item) => json!({"item": item}),
                NormEvent::ChildOpened { child_session_id, title, description } => {
                    json!({"childOpened": {"id": child_session_id, "title": title, "description": description}})
                }
                NormEvent::ChildItem { child_session_id, item } => json!({"childItem": {"child": child_session_id, "item": item}}),
                NormEvent::Init(i) => json!({"init": {"sessionId": i.session_id, "model": i.model, "mode": i.permission_mode, "commands": i.slash_commands.len()}}),
                NormEvent::ModeChanged(m) => json!({"mode": m}),
                NormEvent::CommandsChanged(c) => json!({"commandsChanged": c}),
                NormEvent::Echo { uuid } => json!({"echo": uuid}),
                NormEvent::Usage(u) => json!({"usage": u}),
                NormEvent::Notice(n) => json!({"notice": n}),
                NormEvent::RunEnded { outcome, usage, .. } => json!({"runEnded": {"outcome": outcome_json(outcome), "usage": usage}}),
            })
            .collect(),
    )
}

fn items(events: &[NormEvent]) -> Vec<TimelineItem> {
    events
        .iter()
        .filter_map(|e| match e {
            NormEvent::Item(i) => Some(i.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn say_hi_snapshot() {
    let events = run("claude-say-hi");
    insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!("say_hi", events_json(&events)); });
    let last = events.last().cloned();
    assert!(matches!(
        last,
        Some(NormEvent::RunEnded {
            outcome: TurnOutcome::Completed,
            ..
        })
    ));
}

#[test]
fn tool_bypass_snapshot() {
    let events = run("claude-tool-bypass");
    insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!("tool_bypass", events_json(&events)); });
    let last_tool = items(&events)
        .into_iter()
        .rfind(|i| matches!(i.body, ItemBody::ToolCall(_)))
        .map(|i| i.body);
    let Some(ItemBody::ToolCall(call)) = last_tool else {
        panic!("no tool call")
    };
    assert_eq!(call.status, ToolStatus::Completed);
    assert_eq!(
        call.detail,
        ToolCallDetail::Shell {
            command: "echo hello".into(),
            cwd: None,
            output: Some("hello".into()),
            exit_code: Some(Some(0))
        }
    );
}

#[test]
fn permission_prompt_snapshot_denied_tool_fails() {
    let events = run("claude-tool-permission-prompt");
    insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!("tool_permission_prompt", events_json(&events)); });
    let calls: Vec<ToolCall> = items(&events)
        .into_iter()
        .filter_map(|i| match i.body {
            ItemBody::ToolCall(c) => Some(c),
            _ => None,
        })
        .collect();
    let denied = calls
        .iter()
        .rfind(|c| c.call_id == "toolu_f97d57a3514d42319de5")
        .cloned();
    let allowed = calls
        .iter()
        .rfind(|c| c.call_id == "toolu_a17ecf40781b41b6a400")
        .cloned();
    assert_eq!(
        denied.map(|c| (c.status, c.error)),
        Some((ToolStatus::Failed, json!("denied by test")))
    );
    assert_eq!(allowed.map(|c| c.status), Some(ToolStatus::Completed));
}

#[test]
fn interrupt_snapshot_streams_one_growing_row() {
    let events = run("claude-interrupt");
    insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!("interrupt", events_json(&events)); });
    let rows: Vec<TimelineItem> = items(&events)
        .into_iter()
        .filter(|i| i.id == "msg_a768b21fd64b46e49cfdccad:0")
        .collect();
    let texts: Vec<String> = rows
        .iter()
        .map(|i| match &i.body {
            ItemBody::AssistantMessage { text, .. } => text.clone(),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(texts.first().map(String::as_str), Some("word0"));
    assert_eq!(
        texts.last().map(String::as_str),
        Some("word0 word1 word2 word3 word4 word5")
    );
    assert!(
        texts
            .windows(2)
            .all(|w| w[1].starts_with(&w[0]) && w[1].len() > w[0].len()),
        "rows must only grow: {texts:?}"
    );
    let ends: Vec<Value> = events
        .iter()
        .filter_map(|e| match e {
            NormEvent::RunEnded { outcome, .. } => Some(outcome_json(outcome)),
            _ => None,
        })
        .collect();
    // The aborted run is a cancellation (terminal_reason aborted_streaming), the next succeeds.
    assert_eq!(ends, vec![json!("canceled"), json!("completed")]);
}

#[test]
fn resume_snapshot() {
    insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!("resume", events_json(&run("claude-resume"))); });
}

fn feed(n: &mut Normalizer, lines: &[Value]) -> Vec<NormEvent> {
    let mut out = Vec::new();
    for l in lines {
        let msg: CliMessage = serde_json::from_value(l.clone()).expect("line parses");
        out.extend(n.handle(&msg));
    }
    out
}

#[test]
fn subagent_output_goes_to_a_child_session_and_the_parent_row_logs_it() {
    let mut n = Normalizer::new("S", Mode::Live);
    let events = feed(
        &mut n,
        &[
            json!({"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Agent","input":{"description":"Greet","prompt":"run it","subagent_type":"general-purpose"}}]},"parent_tool_use_id":null}),
            json!({"type":"system","subtype":"task_started","task_id":"a1","tool_use_id":"t1","task_type":"local_agent"}),
            json!({"type":"user","message":{"role":"user","content":[{"type":"text","text":"run it"}]},"parent_tool_use_id":"t1","uuid":"u1"}),
            json!({"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"echo sub"}}]},"parent_tool_use_id":"t1"}),
            json!({"type":"user","message":{"role":"user","content":[{"tool_use_id":"t2","type":"tool_result","content":"sub","is_error":false}]},"parent_tool_use_id":"t1"}),
            json!({"type":"system","subtype":"task_notification","task_id":"a1","status":"completed"}),
            json!({"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":[{"type":"text","text":"done"}]}]},"parent_tool_use_id":null}),
        ],
    );
    insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!("subagent", events_json(&events)); });
    assert_eq!(n.background_tasks(), 0);
    let Some(ItemBody::ToolCall(parent)) = items(&events).last().map(|i| i.body.clone()) else {
        panic!("no parent row")
    };
    assert_eq!(parent.status, ToolStatus::Completed);
    let ToolCallDetail::SubAgent {
        child_session_id,
        log,
        ..
    } = parent.detail
    else {
        panic!("not a sub_agent")
    };
    assert_eq!(child_session_id.as_deref(), Some("S/agent/t1"));
    assert_eq!(log, "[Bash] echo sub");
    let child_rows = events.iter().filter(|e| matches!(e, NormEvent::ChildItem { child_session_id, .. } if child_session_id == "S/agent/t1")).count();
    assert_eq!(child_rows, 3, "prompt, running and completed shell rows");
}

#[test]
fn todo_write_is_one_todo_row_updated_in_place() {
    let mut n = Normalizer::new("S", Mode::Live);
    let todo = |status: &str| json!({"type":"assistant","message":{"id":format!("m-{status}"),"content":[{"type":"tool_use","id":format!("t-{status}"),"name":"TodoWrite","input":{"todos":[{"content":"A","status":status,"activeForm":"Doing A"}]}}]}});
    let events = feed(&mut n, &[todo("in_progress"), todo("completed")]);
    let rows = items(&events);
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r.id == "todo"));
    let ItemBody::Todo { items: last } = &rows[1].body else {
        panic!("not a todo")
    };
    assert!(last[0].completed);
}

#[test]
fn interrupted_run_cancels_running_tools_and_error_results() {
    let mut n = Normalizer::new("S", Mode::Live);
    feed(
        &mut n,
        &[
            json!({"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"sleep 9"}}]}}),
        ],
    );
    n.set_interrupted();
    let events = feed(
        &mut n,
        &[
            json!({"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"rejected","is_error":true}]}}),
            json!({"type":"result","subtype":"error_during_execution","is_error":true,"terminal_reason":"aborted_tools"}),
        ],
    );
    let Some(ItemBody::ToolCall(call)) = items(&events).first().map(|i| i.body.clone()) else {
        panic!("no row")
    };
    assert_eq!(call.status, ToolStatus::Canceled);
    assert!(matches!(
        events.last(),
        Some(NormEvent::RunEnded {
            outcome: TurnOutcome::Canceled,
            ..
        })
    ));
}

#[test]
fn api_error_fails_the_run_with_the_cli_message() {
    let mut n = Normalizer::new("S", Mode::Live);
    let events = feed(
        &mut n,
        &[
            json!({"type":"result","subtype":"success","is_error":true,"result":"Invalid API key · Please run /login","api_error_status":401}),
        ],
    );
    let Some(NormEvent::RunEnded {
        outcome: TurnOutcome::Failed(e),
        ..
    }) = events.last()
    else {
        panic!("{events:?}")
    };
    assert_eq!(e.message, "Invalid API key · Please run /login");
    assert_eq!(
        e.diagnostic.as_deref(),
        Some("Invalid API key · Please run /login\napi_error_status: 401")
    );
    assert_eq!(e.code, Some(ErrorCode::ApiError));
}

#[test]
fn compaction_goes_loading_then_completed_and_swallows_the_summary() {
    let mut n = Normalizer::new("S", Mode::Live);
    let events = feed(
        &mut n,
        &[
            json!({"type":"system","subtype":"status","status":"compacting"}),
            json!({"type":"system","subtype":"status","status":null,"compact_result":"success"}),
            json!({"type":"system","subtype":"compact_boundary","compact_metadata":{"trigger":"manual","pre_tokens":18}}),
            json!({"type":"user","message":{"role":"user","content":"This session is being continued from a previous conversation"}}),
        ],
    );
    insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!("compaction", events_json(&events)); });
    assert_eq!(items(&events).len(), 2);
}

#[test]
fn thinking_then_text_of_one_message_are_two_rows() {
    let mut n = Normalizer::new("S", Mode::Live);
    let se = |event: Value| json!({"type":"stream_event","event":event,"parent_tool_use_id":null});
    let events = feed(
        &mut n,
        &[
            se(
                json!({"type":"message_start","message":{"id":"m1","usage":{"input_tokens":10,"cache_read_input_tokens":3,"output_tokens":1}}}),
            ),
            se(
                json!({"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}),
            ),
            se(
                json!({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me"}}),
            ),
            se(
                json!({"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"s"}}),
            ),
            json!({"type":"assistant","message":{"id":"m1","content":[{"type":"thinking","thinking":"Let me think.","signature":"s"}]}}),
            se(
                json!({"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}),
            ),
            se(
                json!({"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"reply"}}),
            ),
            json!({"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"reply"}]}}),
            se(json!({"type":"message_delta","usage":{"output_tokens":5}})),
        ],
    );
    insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!("thinking_text", events_json(&events)); });
    let ids: Vec<String> = items(&events).into_iter().map(|i| i.id).collect();
    assert_eq!(ids, vec!["m1:0", "m1:0", "m1:1"]);
}

/// `system/commands_changed` as claude 2.1.197 prints it after `/reload-skills` picked up a
/// project command (trimmed to three entries).
#[test]
fn commands_changed_carries_the_whole_new_list() {
    let line = r#"{"type":"system","subtype":"commands_changed","commands":[{"name":"existing","description":"hello (project)","argumentHint":""},{"name":"fresh","description":"Brand new command (project)","argumentHint":""},{"name":"loop","description":"Run a prompt or slash command on a recurring interval (e.g. /loop 5m /foo, defaults to 10m)","argumentHint":"[interval] <prompt>","aliases":["proactive"]}],"uuid":"5d0c1e2f-0000-4000-8000-000000000001","session_id":"6abab2af-6c90-4d2d-8b06-116349facffa"}"#;
    let msg = CliMessage::parse(line).expect("a system line");
    let mut n = Normalizer::new("s", Mode::Live);
    insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!("commands_changed", events_json(&n.handle(&msg))); });
}

#[test]
fn api_retries_show_one_notice_withdrawn_when_the_api_answers() {
    let mut n = Normalizer::new("s1", Mode::Live);
    let line = |v: Value| serde_json::from_value::<CliMessage>(v).expect("a CLI line");
    // As Claude Code 2.1.197 prints them with ANTHROPIC_BASE_URL refusing connections.
    let retry = |attempt: u64| {
        line(
            json!({"type": "system", "subtype": "api_retry", "attempt": attempt, "max_retries": 10,
            "retry_delay_ms": 1230.8, "error_status": null, "error": "unknown",
            "uuid": "u", "session_id": "cli"}),
        )
    };
    let mut out = n.handle(&retry(1));
    out.extend(n.handle(&retry(2)));
    out.extend(n.handle(&line(
        json!({"type": "result", "subtype": "success", "is_error": true,
        "result": "API Error: Unable to connect to API (ConnectionRefused)", "session_id": "cli"}),
    )));
    let notices: Vec<ProviderNotice> = out
        .iter()
        .filter_map(|e| match e {
            NormEvent::Notice(n) => Some(n.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(notices.len(), 3, "{notices:?}");
    assert!(notices.iter().all(|x| x.id == notices[0].id));
    assert!(agent_bridge_core::retry_notice::is_retry(&notices[0]));
    assert_eq!(
        notices[1].description.as_deref(),
        Some("attempt 2 of 10, next in 2 s")
    );
    assert_eq!(notices[2].dismissed, Some(true));
    assert!(matches!(out.last(), Some(NormEvent::RunEnded { .. })));

    // A transcript's old retries are history, not news.
    let mut replay = Normalizer::new("s1", Mode::Replay);
    assert!(replay.handle(&retry(1)).is_empty());
}

#[test]
fn a_structured_answer_is_the_runs_last_assistant_message() {
    let mut n = Normalizer::new("S", Mode::Live);
    let events = feed(
        &mut n,
        &[
            json!({"type":"result","subtype":"success","is_error":false,"result":"{\"city\":\"mock\"}","structured_output":{"city":"mock"},"uuid":"r1","session_id":"S"}),
        ],
    );
    let texts: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            NormEvent::Item(i) => match &i.body {
                ItemBody::AssistantMessage { text, .. } => Some(text.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(texts, vec![r#"{"city":"mock"}"#.to_string()]);
    assert!(matches!(
        events.last(),
        Some(NormEvent::RunEnded {
            outcome: TurnOutcome::Completed,
            structured: Some(_),
            ..
        })
    ));
}

#[test]
fn a_run_without_a_structured_answer_carries_none() {
    let mut n = Normalizer::new("S", Mode::Live);
    let events = feed(
        &mut n,
        &[
            json!({"type":"result","subtype":"success","is_error":false,"result":"hi","structured_output":null}),
        ],
    );
    assert!(matches!(
        events.last(),
        Some(NormEvent::RunEnded {
            structured: None,
            ..
        })
    ));
    assert!(!events.iter().any(|e| matches!(e, NormEvent::Item(_))));
}
