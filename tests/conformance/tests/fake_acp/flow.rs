//! A session's turns against the fake agent: streamed items, tool calls and a plan, garbage
//! and stderr lines, interrupts (answered, and ignored until the core's grace ends the turn).

use super::{say, FakeRig};
use agent_bridge_conformance::rig::{last_assistant_text, of_type};
use pretty_assertions::assert_eq;
use serde_json::json;
use std::time::Duration;

fn streaming() -> serde_json::Value {
    json!({"turns": [{
        "match": "work",
        "steps": [
            {"update": {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "thinking it over"}}},
            {"update": {"sessionUpdate": "plan", "entries": [
                {"content": "look", "status": "completed", "priority": "high"},
                {"content": "change", "status": "in_progress", "priority": "medium"},
                {"content": "test", "status": "pending", "priority": "low"}]}},
            {"update": {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "echo SHOWN", "kind": "execute",
                "status": "pending", "rawInput": {"command": "echo SHOWN"}}},
            {"update": {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "in_progress"}},
            {"update": {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed",
                "content": [{"type": "content", "content": {"type": "text", "text": "SHOWN"}}],
                "rawOutput": {"output": "SHOWN"}}},
            say("Done, "),
            say("all good."),
        ]
    }]})
}

/// Thought, plan, a tool call through its updates and a reply streamed in two chunks become
/// reasoning, a todo list, one completed shell call and one assistant message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_streams_reasoning_plan_tool_and_reply() {
    let rig = FakeRig::start(streaming()).await;
    rig.open("s", json!({})).await;
    let run = rig.run_turn("s", "please work").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let timeline = rig.timeline("s");
    assert_eq!(last_assistant_text(&timeline), "Done, all good.");
    let reasoning = of_type(&timeline, "reasoning");
    assert_eq!(reasoning.len(), 1, "{timeline:#?}");
    assert_eq!(reasoning[0]["text"], "thinking it over");
    let todo = of_type(&timeline, "todo");
    assert_eq!(todo.len(), 1, "{timeline:#?}");
    let items: Vec<(String, bool)> = todo[0]["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| {
            (
                i["text"].as_str().unwrap_or("").to_string(),
                i["completed"] == true,
            )
        })
        .collect();
    assert_eq!(
        items,
        vec![
            ("look".to_string(), true),
            ("change".to_string(), false),
            ("test".to_string(), false)
        ]
    );
    let tools = of_type(&timeline, "tool_call");
    assert_eq!(
        tools.len(),
        1,
        "one row for the call and its updates: {timeline:#?}"
    );
    assert_eq!(tools[0]["status"], "completed", "{}", tools[0]);
    assert_eq!(tools[0]["detail"]["type"], "shell", "{}", tools[0]);
    assert_eq!(tools[0]["detail"]["command"], "echo SHOWN", "{}", tools[0]);
    assert_eq!(
        tools[0]["detail"]["output"].as_str().map(str::trim),
        Some("SHOWN"),
        "{}",
        tools[0]
    );
    rig.finish("s").await;
}

/// A failed tool call and a `max_tokens` stop: the call shows failed, the turn still completes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_tool_call_and_a_max_tokens_stop() {
    let rig = FakeRig::start(json!({"turns": [{
        "match": "fail",
        "stopReason": "max_tokens",
        "steps": [
            {"update": {"sessionUpdate": "tool_call", "toolCallId": "f1", "title": "Read /nope", "kind": "read",
                "status": "in_progress", "rawInput": {"path": "/nope"}, "locations": [{"path": "/nope"}]}},
            {"update": {"sessionUpdate": "tool_call_update", "toolCallId": "f1", "status": "failed",
                "content": [{"type": "content", "content": {"type": "text", "text": "no such file"}}]}},
            say("could not read it"),
        ]
    }]}))
    .await;
    rig.open("s", json!({})).await;
    let run = rig.run_turn("s", "fail please").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let timeline = rig.timeline("s");
    let tools = of_type(&timeline, "tool_call");
    assert_eq!(tools.len(), 1, "{timeline:#?}");
    assert_eq!(tools[0]["status"], "failed", "{}", tools[0]);
    assert!(
        !tools[0]["error"].is_null(),
        "a failed call has an error: {}",
        tools[0]
    );
    assert_eq!(last_assistant_text(&timeline), "could not read it");
    rig.finish("s").await;
}

/// Garbage on the agent's stdout (not JSON, JSON that is no message, an unknown update kind, a
/// response to nothing) and stderr lines do not break the turn or the session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_lines_and_stderr_do_not_break_the_turn() {
    let rig = FakeRig::start(json!({
        "stderr": ["fake-acp: starting up", "a warning of the agent"],
        "turns": [{
            "match": "noisy",
            "steps": [
                {"raw": "this is not JSON at all"},
                {"stderr": "fake-acp: a log line mid-turn"},
                say("first "),
                {"raw": "{\"hello\": \"world\"}"},
                {"raw": "[1, 2, 3]"},
                {"raw": "{\"jsonrpc\": \"2.0\", \"id\": 9999, \"result\": {}}"},
                {"update": {"sessionUpdate": "some_future_update", "payload": {"x": 1}}},
                {"raw": ""},
                say("second"),
            ]
        }]
    }))
    .await;
    rig.open("s", json!({})).await;
    let run = rig.run_turn("s", "be noisy").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    assert_eq!(last_assistant_text(&rig.timeline("s")), "first second");
    let run = rig.run_turn("s", "and again").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    assert_eq!(last_assistant_text(&rig.timeline("s")), "echo: and again");
    rig.finish("s").await;
}

/// An interrupt sends `session/cancel`; the agent answers `cancelled` and the turn is
/// canceled; the next turn works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupt_cancels_the_running_turn() {
    let rig = FakeRig::start(json!({"turns": [{
        "match": "long",
        "steps": [say("starting"), {"waitCancel": true}]
    }]}))
    .await;
    rig.open("s", json!({})).await;
    let (_, turn) = rig.start_turn("s", "a long job").await;
    rig.wait_streaming("s").await;
    let answer = rig.interrupt("s").await;
    assert!(answer.is("request.completed"), "{answer}");
    let end = rig.turn_end("s", &turn).await;
    assert_eq!(end.turn_state(), Some("canceled"), "{end}");
    assert_eq!(
        rig.calls("session/cancel").len(),
        1,
        "{:#?}",
        rig.received()
    );
    let run = rig.run_turn("s", "next").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish("s").await;
}

/// An agent that never answers the prompt, cancel or not: the core ends the turn itself once
/// the interrupt's grace is over (`INTERRUPT_GRACE`), and the session takes the next prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_turn_is_ended_by_the_core_after_an_interrupt() {
    let rig = FakeRig::start(json!({"turns": [{
        "match": "hang",
        "steps": [say("about to hang"), {"hang": true}]
    }]}))
    .await;
    rig.open("s", json!({})).await;
    let (_, turn) = rig.start_turn("s", "hang now").await;
    rig.wait_streaming("s").await;
    let answer = rig.interrupt("s").await;
    assert!(answer.is("request.completed"), "{answer}");
    let limit = agent_bridge_core::limits::INTERRUPT_GRACE + Duration::from_secs(20);
    let end = rig.turn_end_within("s", &turn, limit).await;
    assert_eq!(end.turn_state(), Some("canceled"), "{end}");
    let run = rig.run_turn("s", "are you back").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    assert_eq!(
        last_assistant_text(&rig.timeline("s")),
        "echo: are you back"
    );
    rig.finish("s").await;
}

/// A slow agent (a scenario delay between chunks) streams its reply as it comes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_reply_streams_as_it_comes() {
    let rig = FakeRig::start(json!({"turns": [{
        "match": "slow",
        "steps": [say("one "), {"delayMs": 300}, say("two")]
    }]}))
    .await;
    rig.open("s", json!({})).await;
    let run = rig.run_turn("s", "slow please").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    assert_eq!(last_assistant_text(&rig.timeline("s")), "one two");
    rig.finish("s").await;
}

/// The commands the agent advertises (`available_commands_update`) are the session's commands.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn advertised_commands_are_the_session_s_commands() {
    let rig = FakeRig::start(json!({"turns": [{
        "match": "hi",
        "steps": [
            {"update": {"sessionUpdate": "available_commands_update", "availableCommands": [
                {"name": "review", "description": "Review the changes"},
                {"name": "test", "description": "Run the tests", "input": {"hint": "which tests"}}]}},
            say("hello"),
        ]
    }]}))
    .await;
    rig.open("s", json!({})).await;
    let run = rig.run_turn("s", "hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let listed = rig.wait("s", "session.commands", |_| true).await;
    let names: Vec<serde_json::Value> = listed
        .at("/commands")
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| c["name"].clone())
        .collect();
    assert_eq!(names, vec![json!("review"), json!("test")], "{listed}");
    rig.finish("s").await;
}

/// An image prompt (the agent advertises `promptCapabilities.image`) reaches the agent as an
/// ACP image block.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_prompt_reaches_the_agent() {
    const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
    let rig = FakeRig::start(json!({"capabilities": {"image": true}})).await;
    assert!(
        rig.caps().iter().any(|c| c == "prompt.image"),
        "{:?}",
        rig.caps()
    );
    rig.open("s", json!({})).await;
    let cmid = rig.host.unique("img");
    rig.send(json!({
        "type": "session.prompt", "sessionId": "s",
        "prompt": {"clientMessageId": cmid, "delivery": "auto", "input": {"type": "message", "content": [
            {"type": "text", "text": "what is this"},
            {"type": "image", "data": PNG, "mimeType": "image/png"}]}},
    }))
    .await;
    let result = rig.prompt_result("s", &cmid).await;
    let turn = result["turnId"].as_str().unwrap_or_default().to_string();
    let end = rig.turn_end("s", &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    let prompt = rig.calls("session/prompt")[0]["prompt"].clone();
    let image = prompt
        .as_array()
        .into_iter()
        .flatten()
        .find(|b| b["type"] == "image")
        .cloned()
        .unwrap_or_default();
    assert_eq!(image["data"], PNG, "{prompt}");
    assert_eq!(image["mimeType"], "image/png", "{prompt}");
    rig.finish("s").await;
}
