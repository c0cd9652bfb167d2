//! End-to-end turns through the real bridge binary and the real pinned `codex` CLI
//! (`codex app-server`) against the mock model server: a text turn, a shell tool in
//! full-access, approvals allowed and declined in ask mode.

mod common;

use common::*;
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_turn_streams_a_reply_with_usage_and_persistence() {
    let Some(rig) = rig().await else { return };
    let opened = rig.open("s-text", json!({})).await;
    let opened_ev = opened.iter().find(|e| e.is("session.opened")).expect("opened");
    let thread = opened_ev
        .at("/persistence/data/threadId")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    assert_eq!(thread.len(), 36, "thread id in persistence: {opened_ev}");
    let config = opened.iter().find(|e| e.is("session.config")).expect("session.config at open");
    // The hermetic config.toml: mock-model, approval never + danger-full-access.
    assert_eq!(config.at("/config/model"), Some(&json!("mock-model")), "{config}");
    assert_eq!(config.at("/config/mode"), Some(&json!("full-access")), "{config}");
    let models = config.at("/config/models").and_then(Value::as_array).cloned().unwrap_or_default();
    assert!(models.len() > 1, "model/list models plus the configured one: {models:?}");

    let run = rig.host.run_turn(&rig.conn, "s-text", "say hi", STEP).await.expect("turn");
    assert_eq!(run.state(), "completed", "{:?}\n{}", run.end, rig.host.stderr());
    let timeline = rig.timeline("s-text");
    assert!(last_assistant_text(&timeline).starts_with("hi! (mock reply"), "{timeline:#?}");
    // Streamed as growing snapshots of one item.
    let msg_id = of_type(&timeline, "assistant_message")[0]["id"].clone();
    let snapshots = run.events.iter().filter(|e| e.item_id() == msg_id.as_str()).count();
    assert!(snapshots >= 1);
    let usage: Vec<_> = run.events.iter().filter(|e| e.is("session.usage")).collect();
    assert!(!usage.is_empty(), "usage reported");
    assert!(usage.iter().all(|u| u.turn_id() == Some(run.turn_id.as_str())));
    assert!(usage.iter().any(|u| u.at("/usage/contextWindowMaxTokens").is_some()
        && u.at("/usage/outputTokens").is_some()), "{usage:?}");
    // The mock saw the prompt through the Responses API.
    let calls = rig.mock.model_requests();
    assert!(calls.iter().any(|r| r.path_only().ends_with("/responses")), "{calls:?}");
    rig.finish("s-text").await;
    rig.report("text-turn");
}
