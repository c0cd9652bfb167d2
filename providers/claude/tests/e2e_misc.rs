//! End-to-end odds and ends (real bridge, real pinned `claude`, mock model): slash commands,
//! the catalog, availability, can_stop_runtime with a background shell, deny with interrupt,
//! clearPendingPermissions.

mod common;

use agent_bridge_conformance::{input, BridgeHost, HostOptions};
use common::*;
use mock_llm::ScriptReply;
use serde_json::{json, Value};
use std::time::Duration;

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compact_command_runs_as_a_turn_with_a_compaction_row() {
    let Some(rig) = rig().await else { return };
    let opened = rig.open("s-cmd", json!({})).await;
    let commands = opened
        .iter()
        .find(|e| e.is("session.commands"))
        .and_then(|e| e.at("/commands").cloned())
        .unwrap_or_default();
    assert!(
        commands
            .as_array()
            .is_some_and(|c| c.iter().any(|c| c["name"] == "compact")),
        "{commands}"
    );
    // Enough conversation for the CLI to agree to compact.
    for _ in 0..3 {
        let run = rig.host.run_turn(&rig.conn, "s-cmd", "say hi", STEP).await;
        assert_eq!(run.expect("turn").state(), "completed");
    }
    let cmid = rig.host.unique("cmd");
    rig.send(input::command("s-cmd", &cmid, "compact", ""))
        .await;
    let result = rig.prompt_result("s-cmd", &cmid).await;
    assert_eq!(result["type"], "turn", "{result}");
    let turn = result["turnId"].as_str().unwrap_or_default().to_string();
    let end = rig.turn_end("s-cmd", &turn).await;
    assert_eq!(end.turn_state(), Some("completed"));
    let compaction = of_type(&rig.timeline("s-cmd"), "compaction")
        .into_iter()
        .next()
        .cloned()
        .expect("compaction row");
    assert_eq!(compaction["status"], "completed");
    assert_eq!(compaction["trigger"], "manual");
    // Unknown commands are refused without a turn.
    let cmid = rig.host.unique("cmd");
    rig.send(input::command("s-cmd", &cmid, "no-such-command", ""))
        .await;
    let result = rig.prompt_result("s-cmd", &cmid).await;
    assert_eq!(result["type"], "failed", "{result}");
    rig.finish("s-cmd").await;
    rig.report("compact-command");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn catalog_lists_the_cli_models_and_the_four_modes() {
    let Some(rig) = rig().await else { return };
    let answer = rig.ask("cat", input::catalog).await;
    assert!(answer.is("catalog"), "{answer}");
    let models: Vec<String> = answer
        .at("/catalog/models")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| m["id"].as_str().map(str::to_string))
        .collect();
    assert_eq!(
        models,
        vec!["default", "opus[1m]", "sonnet", "sonnet[1m]", "haiku"]
    );
    let modes: Vec<Value> = answer
        .at("/catalog/modes")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let ids: Vec<&str> = modes.iter().filter_map(|m| m["id"].as_str()).collect();
    assert_eq!(
        ids,
        vec!["default", "acceptEdits", "plan", "bypassPermissions"]
    );
    assert_eq!(modes[3]["isUnattended"], true);
    assert_eq!(
        answer.at("/catalog/defaultThinkingOption"),
        Some(&json!("high"))
    );
    rig.host.assert_invariants();
    rig.report("catalog");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn availability_reports_missing_incompatible_unrunnable_and_available() {
    let Some(claude) = mock_llm::require_cli("claude") else {
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let old = dir.path().join("claude");
    std::fs::write(&old, "#!/bin/sh\necho '1.0.3 (Claude Code)'\n").expect("write");
    std::fs::set_permissions(&old, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let bin = claude
        .parent()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    // The bridge's own environment (availability has no launch): the rig's hermetic env on
    // top of the test's, with or without its key.
    let mock = mock_llm::MockLlm::start().await.expect("mock");
    let root = tempfile::tempdir().expect("root");
    let hermetic = mock_llm::hermetic::claude(&mock, root.path()).expect("hermetic env");
    let with_env = |path: &str, key: bool| {
        let mut options = HostOptions::default();
        for (k, v) in &hermetic.env {
            options = options.env(k, v.clone());
        }
        if !key {
            options = options
                .env("ANTHROPIC_API_KEY", "")
                .env("ANTHROPIC_AUTH_TOKEN", "");
        }
        options.env("PATH", path)
    };
    for (options, want) in [
        (with_env("/nonexistent", true), "missing"),
        (
            with_env(&dir.path().display().to_string(), true),
            "incompatible",
        ),
        (with_env(&bin, false), "unrunnable"),
        (with_env(&bin, true), "available"),
    ] {
        let host = BridgeHost::spawn_with(options).await.expect("bridge");
        host.initialize().await.expect("initialize");
        let avail = host
            .request(
                "provider/availability",
                json!({"providerId": PROVIDER, "options": {"scope": "global"}}),
            )
            .await
            .expect("availability");
        assert_eq!(avail["status"], want, "{avail}");
        if want != "available" {
            let diagnostic = avail["diagnostic"].as_str().unwrap_or_default();
            assert!(
                diagnostic.contains("claude") || diagnostic.contains("Claude"),
                "{diagnostic}"
            );
        }
        if want == "unrunnable" {
            let diagnostic = avail["diagnostic"].as_str().unwrap_or_default();
            assert!(diagnostic.contains("not logged in"), "{diagnostic}");
        }
        host.assert_invariants();
    }
    assert!(mock.model_requests().is_empty(), "no model turn");
    report(SPEC.cli, &claude, "availability");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_shell_blocks_runtime_release_until_it_finishes() {
    let Some(rig) = rig().await else { return };
    rig.open("s-bg", json!({"mode": "bypassPermissions"})).await;
    rig.mock.push_steps([ScriptReply::ToolCall {
        name: "Bash".into(),
        arguments: json!({"command": "sleep 3; echo bg", "run_in_background": true, "description": "bg"}),
    }]);
    let run = rig.run_turn("s-bg", "start it in the background").await;
    assert_eq!(run.state(), "completed");
    let ask = || async {
        rig.ask("cs", |rid| input::can_stop_runtime(rid, "s-bg"))
            .await
            .at("/canStop")
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(ask().await, json!(false), "a background shell is running");
    // After it finishes (and the CLI's follow-up run about it ends), the runtime may stop.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        if ask().await == json!(true) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "canStop never became true"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    rig.finish("s-bg").await;
    rig.report("background-shell");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deny_with_interrupt_stops_the_turn_and_clear_pending_denies() {
    let Some(rig) = rig().await else { return };
    rig.open("s-deny", json!({})).await;
    let (_, turn) = rig
        .start_turn("s-deny", "please run `touch stop.txt`")
        .await;
    let (_, pid) = rig.wait_permission("s-deny", None).await;
    rig.answer_permission(
        "s-deny",
        &pid,
        json!({"behavior": "deny", "message": "stop", "interrupt": true}),
    )
    .await;
    let end = rig.turn_end("s-deny", &turn).await;
    assert_eq!(end.turn_state(), Some("canceled"));
    assert!(!rig.cwd().join("stop.txt").exists());

    // A steer with clearPendingPermissions denies what is pending.
    // After the interrupt the mock would answer the rejected tool result: script the call.
    rig.mock
        .push_steps([ScriptReply::Shell("touch cleared.txt".into())]);
    let (_, turn) = rig
        .start_turn("s-deny", "please run `touch cleared.txt`")
        .await;
    let (_, pid2) = rig.wait_permission("s-deny", Some(&pid)).await;
    let mut steer = input::steer("s-deny", "c-clear", "never mind");
    steer["prompt"]["clearPendingPermissions"] = json!(true);
    rig.send(steer).await;
    rig.wait_resolved("s-deny", &pid2).await;
    let end = rig.turn_end("s-deny", &turn).await;
    assert_eq!(end.turn_state(), Some("completed"));
    assert!(!rig.cwd().join("cleared.txt").exists());
    let failed = of_type(&rig.timeline("s-deny"), "tool_call")
        .into_iter()
        .filter(|t| t["status"] == "failed")
        .count();
    assert!(failed >= 1, "the cleared tool failed");
    rig.finish("s-deny").await;
    rig.report("deny-interrupt-clear-pending");
}
