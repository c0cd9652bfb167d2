//! End-to-end turns through the real bridge binary and the real pinned `codex` CLI
//! (`codex app-server`) against the mock model server: a text turn, a shell tool in
//! full-access, approvals allowed and declined in ask mode.

mod common;

use common::*;
use serde_json::{json, Value};

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_turn_streams_a_reply_with_usage_and_persistence() {
    let Some(rig) = rig().await else { return };
    let opened = rig.open("s-text", json!({})).await;
    let opened_ev = opened
        .iter()
        .find(|e| e.is("session.opened"))
        .expect("opened");
    let thread = opened_ev.string_at("/persistence/data/threadId");
    assert_eq!(thread.len(), 36, "thread id in persistence: {opened_ev}");
    let config = opened
        .iter()
        .find(|e| e.is("session.config"))
        .expect("session.config at open");
    // The hermetic config.toml: mock-model, approval never + danger-full-access.
    assert_eq!(
        config.at("/config/model"),
        Some(&json!("mock-model")),
        "{config}"
    );
    assert_eq!(
        config.at("/config/mode"),
        Some(&json!("full-access")),
        "{config}"
    );
    let models = config
        .at("/config/models")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    assert!(
        models.len() > 1,
        "model/list models plus the configured one: {models:?}"
    );

    let run = rig.run_turn("s-text", "say hi").await;
    assert_eq!(
        run.state(),
        "completed",
        "{:?}\n{}",
        run.end,
        rig.host.stderr()
    );
    let timeline = rig.timeline("s-text");
    assert!(
        last_assistant_text(&timeline).starts_with("hi! (mock reply"),
        "{timeline:#?}"
    );
    // Streamed as growing snapshots of one item.
    let msg_id = of_type(&timeline, "assistant_message")[0]["id"].clone();
    let snapshots = run
        .events
        .iter()
        .filter(|e| e.item_id() == msg_id.as_str())
        .count();
    assert!(snapshots >= 1);
    let usage: Vec<_> = run
        .events
        .iter()
        .filter(|e| e.is("session.usage"))
        .collect();
    assert!(!usage.is_empty(), "usage reported");
    assert!(usage
        .iter()
        .all(|u| u.turn_id() == Some(run.turn_id.as_str())));
    assert!(
        usage
            .iter()
            .any(|u| u.at("/usage/contextWindowMaxTokens").is_some()
                && u.at("/usage/outputTokens").is_some()),
        "{usage:?}"
    );
    // The mock saw the prompt through the Responses API.
    let calls = rig.mock.model_requests();
    assert!(
        calls.iter().any(|r| r.path_only().ends_with("/responses")),
        "{calls:?}"
    );
    rig.finish("s-text").await;
    rig.report("text-turn");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shell_tool_runs_in_full_access() {
    let Some(rig) = rig().await else { return };
    let opened = rig.open("s-shell", json!({"mode": "full-access"})).await;
    let config = opened
        .iter()
        .find(|e| e.is("session.config"))
        .expect("config");
    assert_eq!(config.at("/config/mode"), Some(&json!("full-access")));

    let run = rig.run_turn("s-shell", "please run `echo hello`").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    assert!(
        !run.events.iter().any(|e| e.is("session.permission")),
        "no approval in full-access"
    );
    let timeline = rig.timeline("s-shell");
    let tools = of_type(&timeline, "tool_call");
    assert_eq!(tools.len(), 1, "{timeline:#?}");
    let tool = tools[0];
    assert_eq!(tool["name"], "shell");
    assert_eq!(tool["status"], "completed");
    assert_eq!(tool["detail"]["type"], "shell");
    assert_eq!(tool["detail"]["command"], "echo hello");
    assert_eq!(tool["detail"]["exitCode"], 0);
    assert_eq!(
        tool["detail"]["cwd"],
        json!(rig.cwd().display().to_string())
    );
    assert!(
        tool["detail"]["output"]
            .as_str()
            .unwrap_or("")
            .contains("hello"),
        "{tool}"
    );
    let statuses = run.item_statuses(tool["id"].as_str().unwrap_or_default());
    assert_eq!(
        statuses.first().map(String::as_str),
        Some("running"),
        "{statuses:?}"
    );
    assert_eq!(statuses.last().map(String::as_str), Some("completed"));
    assert!(
        last_assistant_text(&timeline).contains("hello"),
        "{timeline:#?}"
    );
    rig.finish("s-shell").await;
    rig.report("shell-full-access");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approvals_in_ask_mode_allow_runs_and_deny_does_not() {
    let Some(rig) = rig().await else { return };
    let opened = rig.open("s-ask", json!({"mode": "ask"})).await;
    let config = opened
        .iter()
        .find(|e| e.is("session.config"))
        .expect("config");
    assert_eq!(config.at("/config/mode"), Some(&json!("ask")), "{config}");
    let allowed = rig.cwd().join("allowed.txt");
    let denied = rig.cwd().join("denied.txt");

    // Allow once.
    let (_, turn) = rig
        .start_turn("s-ask", "please run `touch allowed.txt`")
        .await;
    let (ask, pid) = rig.wait_permission("s-ask", None).await;
    assert_eq!(ask.at("/request/kind"), Some(&json!("tool")));
    assert_eq!(
        ask.at("/request/detail/command"),
        Some(&json!("touch allowed.txt"))
    );
    let actions: Vec<&str> = ask
        .at("/request/actions")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|x| x["id"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(actions, vec!["allow_once", "allow_session", "deny"]);
    // Nothing runs before the answer.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(!allowed.exists(), "the command ran before approval");
    rig.answer_permission(
        "s-ask",
        &pid,
        json!({"behavior": "allow", "selectedActionId": "allow_once"}),
    )
    .await;
    rig.wait_resolved("s-ask", &pid).await;
    let end = rig.turn_end("s-ask", &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    assert!(allowed.exists(), "the approved command ran");
    let timeline = rig.timeline("s-ask");
    let tool = of_type(&timeline, "tool_call")
        .into_iter()
        .find(|t| t["detail"]["command"] == "touch allowed.txt")
        .cloned()
        .expect("shell tool call");
    assert_eq!(tool["status"], "completed", "{tool}");

    // Deny.
    let (_, turn) = rig
        .start_turn("s-ask", "please run `touch denied.txt`")
        .await;
    let (_, pid2) = rig.wait_permission("s-ask", Some(&pid)).await;
    rig.answer_permission(
        "s-ask",
        &pid2,
        json!({"behavior": "deny", "selectedActionId": "deny", "message": "no"}),
    )
    .await;
    let end = rig.turn_end("s-ask", &turn).await;
    assert_eq!(
        end.turn_state(),
        Some("completed"),
        "a declined command does not stop the turn: {end}"
    );
    assert!(!denied.exists(), "the declined command must not run");
    let timeline = rig.timeline("s-ask");
    let tool = of_type(&timeline, "tool_call")
        .into_iter()
        .find(|t| t["detail"]["command"] == "touch denied.txt")
        .cloned()
        .expect("declined tool call");
    assert_eq!(tool["status"], "failed", "{tool}");
    assert_eq!(tool["metadata"]["denied"], true, "{tool}");
    rig.finish("s-ask").await;
    rig.report("approval-allow-deny");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupt_with_a_pending_approval_cancels_it() {
    let Some(rig) = rig().await else { return };
    rig.open("s-pend", json!({"mode": "ask"})).await;
    let file = rig.cwd().join("never.txt");
    let (_, turn) = rig
        .start_turn("s-pend", "please run `touch never.txt`")
        .await;
    let (_, pid) = rig.wait_permission("s-pend", None).await;
    let rid = rig.host.unique("int");
    let asked = std::time::Instant::now();
    rig.send(agent_bridge_conformance::input::interrupt(&rid, "s-pend"))
        .await;
    let end = rig.turn_end("s-pend", &turn).await;
    assert_eq!(end.turn_state(), Some("canceled"), "{end}");
    // Codex ended it, not the core's 5 s fallback.
    assert!(
        asked.elapsed() < std::time::Duration::from_secs(4),
        "{:?}",
        asked.elapsed()
    );
    rig.wait_resolved("s-pend", &pid).await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(!file.exists(), "the cancelled command must not run");
    // The session is usable afterwards.
    let run = rig.run_turn("s-pend", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish("s-pend").await;
    rig.report("interrupt-pending-approval");
}

/// A 1x1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_reaches_the_model_with_the_text() {
    let Some(rig) = rig().await else { return };
    rig.open("s-img", json!({})).await;
    let cmid = rig.host.unique("img");
    let prompt = json!({
        "type": "session.prompt", "sessionId": "s-img",
        "prompt": {"clientMessageId": cmid, "delivery": "auto", "input": {"type": "message", "content": [
            {"type": "text", "text": "describe this picture"},
            {"type": "image", "data": PNG, "mimeType": "image/png"}
        ]}}
    });
    rig.send(prompt).await;
    let result = rig.prompt_result("s-img", &cmid).await;
    assert_eq!(result["type"], "turn", "{result}");
    let turn = result["turnId"].as_str().unwrap_or_default().to_string();
    let end = rig.turn_end("s-img", &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    let request = rig.last_model_request();
    let body = request.body.to_string();
    assert!(body.contains("describe this picture"), "{body}");
    assert!(
        body.contains(&format!("data:image/png;base64,{PNG}")),
        "the image was not sent: {body}"
    );
    rig.finish("s-img").await;
    rig.report("image-prompt");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_mode_runs_workspace_commands_in_the_sandbox_without_asking() {
    let Some(rig) = rig().await else { return };
    let opened = rig.open("s-auto", json!({"mode": "auto"})).await;
    let config = opened
        .iter()
        .find(|e| e.is("session.config"))
        .expect("config");
    assert_eq!(config.at("/config/mode"), Some(&json!("auto")), "{config}");
    let auto = config
        .at("/config/modes")
        .and_then(Value::as_array)
        .and_then(|m| m.iter().find(|x| x["id"] == "auto").cloned())
        .unwrap_or_default();
    if auto["description"]
        .as_str()
        .unwrap_or("")
        .contains("cannot run on this machine")
    {
        eprintln!("SKIPPED: the Codex sandbox cannot run here: {auto}");
        mock_llm::report_skipped("codex", "sandbox-unavailable");
        return;
    }
    let run = rig
        .run_turn("s-auto", "please run `touch inside.txt`")
        .await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    assert!(
        !run.events.iter().any(|e| e.is("session.permission")),
        "workspace writes need no approval"
    );
    assert!(
        rig.cwd().join("inside.txt").exists(),
        "the sandboxed command ran"
    );
    rig.finish("s-auto").await;
    rig.report("auto-mode-sandbox");
}
