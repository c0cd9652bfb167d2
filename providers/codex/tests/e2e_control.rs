//! End-to-end control of a running Codex session through the real bridge and the real pinned
//! `codex app-server`: interrupt then a new turn, steering and a live model/effort change. A
//! `kill -9` of the CLI and the restart after it: `e2e_restart.rs`.

mod common;

use agent_bridge_conformance::input;
use common::*;
use serde_json::{json, Value};

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupt_cancels_the_turn_and_the_next_turn_works() {
    let Some(rig) = rig().await else { return };
    rig.open("s-int", json!({})).await;
    let (_, turn) = rig
        .start_turn("s-int", "SLOW please write a long text")
        .await;
    // Wait until the reply is streaming.
    rig.wait_streaming("s-int").await;
    let answer = rig.interrupt("s-int").await;
    assert!(answer.is("request.completed"), "{answer}");
    let end = rig.turn_end("s-int", &turn).await;
    assert_eq!(end.turn_state(), Some("canceled"), "{end}");
    // Codex stopped the model stream: the mock saw the client go away mid-reply.
    let slow = rig
        .mock
        .model_requests()
        .into_iter()
        .find(|r| r.reply == "slow-text")
        .expect("slow request");
    assert!(slow.client_disconnected, "{slow:?}");

    let run = rig.run_turn("s-int", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    assert!(last_assistant_text(&rig.timeline("s-int")).starts_with("hi! (mock reply"));
    rig.finish("s-int").await;
    rig.report("interrupt-then-turn");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn steering_adds_input_to_the_running_turn() {
    let Some(rig) = rig().await else { return };
    rig.open("s-steer", json!({})).await;
    let (_, turn) = rig
        .start_turn("s-steer", "SLOW please write a long text")
        .await;
    rig.wait_streaming("s-steer").await;
    let result = rig.steer("s-steer", "also say STEERED-HELLO").await;
    assert_eq!(result, json!({"type": "steer", "turnId": turn}), "{result}");
    let end = rig.turn_end("s-steer", &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    // Codex carried the steered input to the model within the same turn.
    let requests = rig.mock.model_requests();
    assert!(
        requests
            .iter()
            .any(|r| r.body.to_string().contains("STEERED-HELLO")),
        "no model request carried the steered input: {:?}",
        requests.iter().map(|r| r.prompt()).collect::<Vec<_>>()
    );
    rig.finish("s-steer").await;
    rig.report("steer");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_and_effort_change_apply_to_the_next_turn() {
    let Some(rig) = rig().await else { return };
    let opened = rig.open("s-model", json!({})).await;
    let config = opened
        .iter()
        .find(|e| e.is("session.config"))
        .expect("config");
    let models = config
        .at("/config/models")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let target = models
        .iter()
        .find(|m| {
            m["id"] != "mock-model" && m["thinkingOptions"].as_array().is_some_and(|t| t.len() > 1)
        })
        .cloned()
        .expect("a listed model with efforts");
    let model_id = target["id"].as_str().unwrap_or_default().to_string();
    let effort = target["thinkingOptions"][1]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();

    // An unknown model is refused and nothing changes.
    assert!(rig
        .ask("cfg", |rid| {
            input::configure(
                rid,
                "s-model",
                json!({"model": "no-such-model", "mode": "ask"}),
            )
        })
        .await
        .is("request.failed"));

    let answer = rig
        .ask("cfg", |rid| {
            input::configure(
                rid,
                "s-model",
                json!({"model": model_id, "thinkingOption": effort}),
            )
        })
        .await;
    assert!(answer.is("request.completed"), "{answer}");
    let committed = rig
        .host
        .session_events("s-model")
        .into_iter()
        .rfind(|e| e.is("session.config"))
        .expect("config");
    assert_eq!(committed.at("/config/model"), Some(&json!(model_id)));
    assert_eq!(committed.at("/config/thinkingOption"), Some(&json!(effort)));
    assert_eq!(
        committed.at("/config/mode"),
        Some(&json!("full-access")),
        "the refused change left the mode alone"
    );

    let run = rig.run_turn("s-model", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let last = rig.last_model_request();
    assert_eq!(
        last.body["model"],
        json!(model_id),
        "the turn used the new model"
    );
    assert_eq!(
        last.body["reasoning"]["effort"],
        json!(effort),
        "{}",
        last.body["reasoning"]
    );
    // The bridge sends an override only with the turn after the change: Codex keeps it.
    let again = rig.run_turn("s-model", "say hi").await;
    assert_eq!(again.state(), "completed", "{:?}", again.end);
    let last = rig.last_model_request();
    assert_eq!(last.body["model"], json!(model_id), "the model stayed");
    assert_eq!(
        last.body["reasoning"]["effort"],
        json!(effort),
        "the effort stayed"
    );
    rig.finish("s-model").await;
    rig.report("model-change");
}
