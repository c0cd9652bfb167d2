//! End-to-end turns through the real bridge binary and the real pinned `claude` CLI against
//! the mock model server: text, a shell tool in bypassPermissions, permissions allowed and
//! denied in default mode.

mod common;

use common::*;
use serde_json::{json, Value};

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_turn_streams_a_reply_with_usage_and_persistence() {
    let Some(rig) = rig().await else { return };
    let opened = rig.open("s-text", json!({})).await;
    let config = opened
        .iter()
        .find(|e| e.is("session.config"))
        .expect("session.config at open");
    assert_eq!(config.at("/config/model"), Some(&json!("default")));
    assert_eq!(config.at("/config/mode"), Some(&json!("default")));
    // What the CLI applied (get_settings), not a copy of the request: the request had none.
    assert_eq!(config.at("/config/thinkingOption"), Some(&json!("high")));
    let models = config
        .at("/config/models")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    assert!(
        models.len() > 1 && models.iter().any(|m| m["id"] == "sonnet"),
        "{models:?}"
    );
    assert!(
        opened.iter().any(|e| e.is("session.commands")),
        "slash commands published at open"
    );

    let run = rig.run_turn("s-text", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let timeline = rig.timeline("s-text");
    let text = last_assistant_text(&timeline);
    assert!(text.starts_with("hi! (mock reply"), "{timeline:#?}");
    let usage: Vec<_> = run
        .events
        .iter()
        .filter(|e| e.is("session.usage"))
        .collect();
    assert!(
        usage
            .iter()
            .all(|u| u.turn_id() == Some(run.turn_id.as_str())),
        "usage tagged with the turn"
    );
    assert!(usage.iter().any(|u| u.at("/usage/totalCostUsd").is_some() && u.at("/usage/outputTokens").is_some()), "{usage:?}");
    let persistence = rig.wait("s-text", "session.persistence", |_| true).await;
    let sid = persistence.string_at("/persistence/data/sessionId");
    assert_eq!(sid.len(), 36, "native session id: {persistence}");
    assert_eq!(persistence.at("/persistence/version"), Some(&json!(1)));
    rig.finish("s-text").await;
    rig.report("text-turn");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shell_tool_runs_in_bypass_permissions() {
    let Some(rig) = rig().await else { return };
    let opened = rig
        .open("s-bypass", json!({"mode": "bypassPermissions"}))
        .await;
    let config = opened
        .iter()
        .find(|e| e.is("session.config"))
        .expect("config");
    assert_eq!(config.at("/config/mode"), Some(&json!("bypassPermissions")));

    let run = rig.run_turn("s-bypass", "please run `echo hello`").await;
    assert_eq!(run.state(), "completed");
    assert!(
        !run.events.iter().any(|e| e.is("session.permission")),
        "no prompt in bypass"
    );
    let timeline = rig.timeline("s-bypass");
    let tools = of_type(&timeline, "tool_call");
    assert_eq!(tools.len(), 1, "{timeline:#?}");
    let tool = tools[0];
    assert_eq!(tool["status"], "completed");
    assert_eq!(tool["name"], "Bash");
    assert_eq!(
        tool["detail"],
        json!({"type": "shell", "command": "echo hello", "output": "hello", "exitCode": 0})
    );
    // The running snapshot came first, under the same id.
    let snapshots = run.item_statuses(tool["id"].as_str().unwrap_or_default());
    assert_eq!(snapshots.first().map(String::as_str), Some("running"));
    assert_eq!(snapshots.last().map(String::as_str), Some("completed"));
    assert_eq!(
        last_assistant_text(&timeline),
        "Done. The command printed: hello"
    );
    rig.finish("s-bypass").await;
    rig.report("shell-bypass");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permission_allowed_runs_the_command_and_denied_fails_the_tool() {
    let Some(rig) = rig().await else { return };
    rig.open("s-perm", json!({"mode": "default"})).await;
    let allowed = rig.cwd().join("allowed.txt");
    let denied = rig.cwd().join("denied.txt");

    // Allow.
    let (_, turn) = rig
        .start_turn("s-perm", "please run `touch allowed.txt`")
        .await;
    let (ask, pid) = rig.wait_permission("s-perm", None).await;
    assert_eq!(ask.at("/request/kind"), Some(&json!("tool")));
    assert_eq!(ask.at("/request/name"), Some(&json!("Bash")));
    assert_eq!(
        ask.at("/request/detail"),
        Some(&json!({"type": "shell", "command": "touch allowed.txt"}))
    );
    assert!(ask
        .at("/request/suggestions")
        .and_then(Value::as_array)
        .is_some_and(|s| !s.is_empty()));
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(!allowed.exists(), "the command ran before it was allowed");
    rig.answer_permission("s-perm", &pid, json!({"behavior": "allow"}))
        .await;
    rig.wait_resolved("s-perm", &pid).await;
    let end = rig.turn_end("s-perm", &turn).await;
    assert_eq!(end.turn_state(), Some("completed"));
    assert!(allowed.exists(), "allowed command ran");

    // Deny.
    let (_, turn) = rig
        .start_turn("s-perm", "please run `touch denied.txt`")
        .await;
    let (_, pid2) = rig.wait_permission("s-perm", Some(&pid)).await;
    rig.answer_permission(
        "s-perm",
        &pid2,
        json!({"behavior": "deny", "message": "not now"}),
    )
    .await;
    let end = rig.turn_end("s-perm", &turn).await;
    assert_eq!(end.turn_state(), Some("completed"));
    assert!(!denied.exists(), "denied command must not run");
    let timeline = rig.timeline("s-perm");
    let tools = of_type(&timeline, "tool_call");
    assert_eq!(tools.len(), 2, "{timeline:#?}");
    assert_eq!(tools[0]["status"], "completed");
    assert_eq!(tools[1]["status"], "failed");
    assert_eq!(tools[1]["error"], "not now");
    rig.finish("s-perm").await;
    rig.report("permission-allow-deny");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn image_prompt_reaches_the_model_and_close_leaves_no_process() {
    let Some(rig) = rig().await else { return };
    rig.open("s-img", json!({})).await;
    // One long-lived CLI per session, plus at most the spare for the next open.
    let all = rig.cli_procs();
    assert!(!all.is_empty() && all.len() <= 2, "{all:?}");
    let procs = vec![first_session_cli(&rig)];
    // A 1x1 transparent PNG.
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
    let prompt = json!({
        "type": "session.prompt", "sessionId": "s-img",
        "prompt": {"clientMessageId": "c-img", "delivery": "auto", "input": {"type": "message", "content": [
            {"type": "text", "text": "what is in this picture"},
            {"type": "image", "data": png, "mimeType": "image/png"}
        ]}}
    });
    rig.send(prompt).await;
    let result = rig.prompt_result("s-img", "c-img").await;
    let turn = result["turnId"].as_str().unwrap_or_default().to_string();
    let end = rig.turn_end("s-img", &turn).await;
    assert_eq!(end.turn_state(), Some("completed"));
    let req = rig.last_model_request();
    let body = req.body.to_string();
    assert!(
        body.contains(png) && body.contains("image/png"),
        "the image block reached the model"
    );
    rig.finish("s-img").await;
    let gone =
        agent_bridge_conformance::procs::wait_gone(&procs, std::time::Duration::from_secs(5)).await;
    assert!(gone.is_empty(), "the CLI outlived session.close: {gone:?}");
    rig.report("image-prompt");
}
