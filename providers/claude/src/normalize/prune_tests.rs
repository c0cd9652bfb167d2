//! The normalizer forgets settled state at the end of each run: its retained state stays
//! bounded over a long session, and what is still running keeps updating.

use super::*;
use agent_bridge_protocol::ToolStatus;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};

fn feed(n: &mut Normalizer, lines: &[Value]) -> Vec<NormEvent> {
    let mut out = Vec::new();
    for l in lines {
        let msg: CliMessage = serde_json::from_value(l.clone()).expect("line parses");
        out.extend(n.handle(&msg));
    }
    out
}

fn se(event: Value) -> Value {
    json!({"type": "stream_event", "event": event, "parent_tool_use_id": null})
}

/// One turn as the CLI streams it: a Bash call with a few KB of output, then a text answer.
fn turn(i: usize) -> Vec<Value> {
    let (m1, m2, tool) = (format!("m{i}a"), format!("m{i}b"), format!("t{i}"));
    let output = "x".repeat(4096);
    let call =
        json!({"type": "tool_use", "id": tool, "name": "Bash", "input": {"command": "echo x"}});
    vec![
        se(json!({"type": "message_start", "message": {"id": m1, "usage": {"input_tokens": 10}}})),
        se(
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": tool, "name": "Bash", "input": {}}}),
        ),
        se(
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"command\": \"echo x\"}"}}),
        ),
        json!({"type": "assistant", "message": {"id": m1, "content": [call]}}),
        json!({"type": "user", "message": {"role": "user", "content": [{"tool_use_id": tool, "type": "tool_result", "content": output, "is_error": false}]}}),
        se(json!({"type": "message_start", "message": {"id": m2, "usage": {"input_tokens": 20}}})),
        se(
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        se(
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": output}}),
        ),
        json!({"type": "assistant", "message": {"id": m2, "content": [{"type": "text", "text": output}]}}),
        json!({"type": "result", "subtype": "success", "is_error": false, "result": "done"}),
    ]
}

#[test]
fn retained_state_stays_bounded_over_many_turns() {
    let mut n = Normalizer::new("S", Mode::Live);
    feed(&mut n, &turn(0));
    let after_first = n.retained();
    let mut most = after_first;
    for i in 1..200 {
        let events = feed(&mut n, &turn(i));
        assert!(
            matches!(
                events.last(),
                Some(NormEvent::RunEnded {
                    outcome: TurnOutcome::Completed,
                    ..
                })
            ),
            "turn {i}"
        );
        most = most.max(n.retained());
    }
    assert_eq!(after_first, 0, "nothing is left running after a plain turn");
    assert_eq!(most, 0, "after 200 turns");
    assert_eq!(n.running_tools(), 0);
}

#[test]
fn a_background_sub_agent_keeps_updating_after_the_run_ends() {
    let mut n = Normalizer::new("S", Mode::Live);
    let sub = |id: &str, cmd: &str| json!({"type": "assistant", "message": {"id": format!("sub-{id}"), "content": [{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": cmd}}]}, "parent_tool_use_id": "t1"});
    let sub_result = |id: &str, out: &str| json!({"type": "user", "message": {"role": "user", "content": [{"tool_use_id": id, "type": "tool_result", "content": out, "is_error": false}]}, "parent_tool_use_id": "t1"});
    feed(
        &mut n,
        &[
            json!({"type": "assistant", "message": {"id": "m1", "content": [{"type": "tool_use", "id": "t1", "name": "Agent", "input": {"description": "Watch", "prompt": "watch it", "subagent_type": "general-purpose", "run_in_background": true}}]}}),
            json!({"type": "system", "subtype": "task_started", "task_id": "a1", "tool_use_id": "t1", "task_type": "local_agent"}),
            json!({"type": "user", "message": {"role": "user", "content": [{"tool_use_id": "t1", "type": "tool_result", "content": "Async agent launched"}]}}),
            sub("t2", "echo one"),
            json!({"type": "result", "subtype": "success", "is_error": false, "result": "launched"}),
        ],
    );
    let kept = n.retained();
    for i in 10..60 {
        feed(&mut n, &turn(i));
        assert_eq!(n.retained(), kept, "turn {i}");
    }
    assert_eq!(n.background_tasks(), 1);
    assert_eq!(n.running_tools(), 1, "the sub-agent's shell");
    // The sub-agent's shell answers late, and it starts another one.
    let late = feed(&mut n, &[sub_result("t2", "one"), sub("t3", "echo two")]);
    insta::with_settings!({sort_maps => true}, { insta::assert_json_snapshot!("late_subagent_updates", late_json(&late)); });
    let Some(NormEvent::ChildItem { item, .. }) = late.first() else {
        panic!("{late:?}")
    };
    let ItemBody::ToolCall(call) = &item.body else {
        panic!("{item:?}")
    };
    assert_eq!(call.status, ToolStatus::Completed);
    let Some(NormEvent::Item(parent)) = late.iter().rfind(|e| matches!(e, NormEvent::Item(_)))
    else {
        panic!("no parent row: {late:?}")
    };
    let ItemBody::ToolCall(ToolCall {
        detail: ToolCallDetail::SubAgent { log, .. },
        ..
    }) = &parent.body
    else {
        panic!("{parent:?}")
    };
    assert_eq!(log, "[Bash] echo one\n[Bash] echo two");
    // Once the task is done, the next run's end forgets it.
    feed(
        &mut n,
        &[
            sub_result("t3", "two"),
            json!({"type": "system", "subtype": "task_notification", "task_id": "a1", "status": "completed"}),
            json!({"type": "result", "subtype": "success", "is_error": false, "result": "done"}),
        ],
    );
    assert_eq!(n.retained(), 0);
}

fn late_json(events: &[NormEvent]) -> Value {
    Value::Array(
        events
            .iter()
            .map(|e| match e {
                NormEvent::Item(item) => json!({"item": item}),
                NormEvent::ChildItem {
                    child_session_id,
                    item,
                } => {
                    json!({"childItem": {"child": child_session_id, "item": item}})
                }
                other => json!({"other": format!("{other:?}")}),
            })
            .collect(),
    )
}
