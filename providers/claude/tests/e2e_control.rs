//! End-to-end control of a running session (real bridge, real pinned `claude`, mock model):
//! interrupt of a slow turn then a new turn, steering a running turn, live configuration.

mod common;

use agent_bridge_conformance::input;
use common::*;
use mock_llm::ScriptReply;
use serde_json::{json, Value};
use std::time::Duration;

fn slow(text: &str, chunks: usize) -> ScriptReply {
    ScriptReply::SlowText {
        text: text.into(),
        chunks,
        interval_ms: 150,
    }
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupt_cancels_a_slow_turn_and_the_process_takes_the_next_prompt() {
    let Some(rig) = rig().await else { return };
    rig.open("s-int", json!({})).await;
    let (_, turn) = rig
        .start_turn("s-int", "SLOW please tell a long story")
        .await;
    // Text is streaming (a partial assistant row exists) before the interrupt.
    rig.wait_streaming("s-int").await;
    let answer = rig.interrupt("s-int").await;
    assert!(answer.is("request.completed"), "{answer}");
    let end = rig
        .turn_end_within("s-int", &turn, Duration::from_secs(5))
        .await;
    assert_eq!(end.turn_state(), Some("canceled"));
    assert!(
        rig.mock
            .wait_for(Duration::from_secs(5), |reqs| reqs
                .iter()
                .any(|r| r.client_disconnected))
            .await,
        "the CLI stopped reading the slow answer"
    );

    // The same process takes the next prompt; the aborted run's late lines do not end it.
    let pid_before = session_pid(&rig);
    let run = rig.run_turn("s-int", "say hi").await;
    assert_eq!(run.state(), "completed");
    assert!(last_assistant_text(&rig.timeline("s-int")).starts_with("hi! (mock reply"));
    assert_eq!(session_pid(&rig), pid_before, "no respawn");
    rig.finish("s-int").await;
    rig.report("interrupt-then-turn");
}

/// The session's CLI (the only session of the rig, so the oldest `claude`).
fn session_pid(rig: &Rig) -> i32 {
    first_session_cli(rig).pid
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn steer_joins_the_running_turn() {
    let Some(rig) = rig().await else { return };
    rig.open("s-steer", json!({})).await;
    rig.mock
        .push_steps([slow("A long answer that takes a while to stream. ", 12)]);
    let (_, turn) = rig.start_turn("s-steer", "tell me something").await;
    rig.wait_streaming("s-steer").await;
    let result = rig.steer("s-steer", "also mention the weather").await;
    assert_eq!(result, json!({"type": "steer", "turnId": turn}));
    let end = rig.turn_end("s-steer", &turn).await;
    assert_eq!(end.turn_state(), Some("completed"));
    // The steer reached the model inside the same turn, and its answer came before the end.
    let reqs = rig.mock.model_requests();
    assert!(
        reqs.iter()
            .any(|r| r.body.to_string().contains("also mention the weather")),
        "the model saw the steer"
    );
    let turn_items: Vec<Value> = rig
        .host
        .session_events("s-steer")
        .into_iter()
        .take_while(|e| e.seq < end.seq)
        .filter(|e| e.is("timeline.item"))
        .filter_map(|e| e.item().cloned())
        .collect();
    assert!(
        turn_items.iter().any(|i| i["type"] == "assistant_message"
            && i["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("hi! (mock reply"))),
        "the answer to the steer is part of the turn: {turn_items:#?}"
    );
    // Rows, not snapshots: the prompt's row is re-sent with its revertToken.
    let user_rows: std::collections::BTreeSet<&str> = turn_items
        .iter()
        .filter(|i| i["type"] == "user_message")
        .filter_map(|i| i["id"].as_str())
        .collect();
    assert_eq!(user_rows.len(), 2, "prompt and steer rows");
    rig.finish("s-steer").await;
    rig.report("steer");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn configure_changes_model_mode_and_thinking_all_or_nothing() {
    let Some(rig) = rig().await else { return };
    rig.open("s-cfg", json!({})).await;

    let answer = rig
        .ask("cfg", |rid| {
            input::configure(
                rid,
                "s-cfg",
                json!({"model": "sonnet", "mode": "acceptEdits", "thinkingOption": "low"}),
            )
        })
        .await;
    assert!(answer.is("request.completed"), "{answer}");
    let config = rig
        .host
        .events()
        .into_iter()
        .rfind(|e| e.is_for("session.config", "s-cfg") && e.seq < answer.seq)
        .expect("config before completed");
    assert_eq!(config.at("/config/model"), Some(&json!("sonnet")));
    assert_eq!(config.at("/config/mode"), Some(&json!("acceptEdits")));
    assert_eq!(config.at("/config/thinkingOption"), Some(&json!("low")));

    // One key the CLI cannot take fails the whole request; nothing changes.
    let answer = rig
        .ask("cfg", |rid| {
            input::configure(
                rid,
                "s-cfg",
                json!({"model": "haiku", "mode": "no-such-mode"}),
            )
        })
        .await;
    assert!(answer.is("request.failed"), "{answer}");

    rig.mock.clear_requests();
    let run = rig.run_turn("s-cfg", "say hi").await;
    assert_eq!(run.state(), "completed");
    let req = rig.last_model_request();
    let model = req.body["model"].as_str().unwrap_or_default().to_string();
    assert!(
        model.contains("sonnet"),
        "the CLI now uses sonnet, got {model}"
    );
    assert_eq!(
        req.body.pointer("/output_config/effort"),
        Some(&json!("low")),
        "effort applied live"
    );
    // system/init of that turn confirms what the CLI selected: no contradicting config.
    let last = rig
        .host
        .events()
        .into_iter()
        .rfind(|e| e.is_for("session.config", "s-cfg"))
        .expect("config");
    assert_eq!(last.at("/config/model"), Some(&json!("sonnet")));
    assert_eq!(last.at("/config/mode"), Some(&json!("acceptEdits")));
    rig.finish("s-cfg").await;
    rig.report("configure");
}

/// A CLI that cannot change thinking live: the session restarts it with `--resume` and the
/// new `--effort`, keeping the conversation.
#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thinking_change_respawns_with_resume_when_the_cli_cannot_apply_it_live() {
    let shim = format!(
        "{}/tests/support/no_live_effort.js",
        env!("CARGO_MANIFEST_DIR")
    );
    let launch = |claude: &std::path::Path, env: &mock_llm::HermeticEnv| {
        let args = json!([shim, claude.display().to_string()]);
        json!({"command": "node", "args": args, "env": env.env})
    };
    let Some(rig) = Rig::start_with(SPEC, launch).await else {
        return;
    };
    rig.open("s-resp", json!({})).await;
    let run = rig.run_turn("s-resp", "remember the word pineapple").await;
    assert_eq!(run.state(), "completed");
    let claude_path = rig.cli.display().to_string();
    let claude_pids = || -> Vec<i32> {
        rig.procs_where(|p| p.cmdline.contains(&claude_path) && !p.cmdline.starts_with("node"))
            .into_iter()
            .map(|p| p.pid)
            .collect()
    };
    let before = claude_pids();

    let answer = rig
        .ask("cfg", |rid| {
            input::configure(rid, "s-resp", json!({"thinkingOption": "low"}))
        })
        .await;
    assert!(answer.is("request.completed"), "{answer}");
    let config = rig
        .host
        .events()
        .into_iter()
        .rfind(|e| e.is_for("session.config", "s-resp"))
        .expect("config");
    assert_eq!(config.at("/config/thinkingOption"), Some(&json!("low")));
    let after = claude_pids();
    assert!(
        !after.is_empty() && after != before,
        "the CLI was restarted: {before:?} -> {after:?}"
    );
    assert!(
        rig.host
            .descendants()
            .iter()
            .any(|p| p.cmdline.contains("--effort=low") && p.cmdline.contains("--resume=")),
        "restarted with --resume and the new effort"
    );

    rig.mock.clear_requests();
    let run = rig.run_turn("s-resp", "which word?").await;
    assert_eq!(run.state(), "completed");
    let req = rig.last_model_request();
    assert_eq!(
        req.body.pointer("/output_config/effort"),
        Some(&json!("low"))
    );
    assert!(
        req.body.to_string().contains("pineapple"),
        "the conversation survived the restart"
    );
    assert!(
        !rig.host
            .events()
            .iter()
            .any(|e| e.is("session.runtime_failed")),
        "a planned restart is not a failure"
    );
    rig.finish("s-resp").await;
    rig.report("thinking-respawn");
}
