//! Rewind (`session.revert`) through the HTTP server of an OpenCode-like agent (the fake with
//! the `opencode` profile): its project is `global` (no git, no snapshots), so only the
//! conversation goes back; the revert is pending until the next prompt, which drops the
//! reverted turns; a reopen before then leaves them out of the replay.

use super::FakeRig;
use agent_bridge_conformance::rewind::{completed_turn, revert_in, token_of};
use pretty_assertions::assert_eq;
use serde_json::{json, Value};

async fn opencode_like() -> FakeRig {
    FakeRig::start_with(
        json!({"capabilities": {"loadSession": true, "list": true, "resume": true, "close": true}}),
        json!({"profile": "opencode"}),
    )
    .await
}

/// The user prompts the fake holds for its session `fake-1`.
fn stored_prompts(rig: &FakeRig) -> Vec<String> {
    let text = std::fs::read_to_string(rig.store.join("fake-1.json")).unwrap_or_default();
    let record: Value = serde_json::from_str(&text).unwrap_or_default();
    record["history"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|u| u["sessionUpdate"] == "user_message_chunk")
        .filter_map(|u| u["content"]["text"].as_str().map(str::to_string))
        .collect()
}

/// Live turns get their revert token (the user message id, learnt as the turn ends); `both`
/// is refused without snapshots and a junk token is refused; `conversation` back to the second
/// turn drops it and the third from the agent at the next prompt, the first stays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rewind_outside_git_drops_the_later_turns_at_the_next_prompt() {
    let rig = opencode_like().await;
    rig.open("s", json!({})).await;
    for text in ["first ONE", "second TWO", "third THREE"] {
        completed_turn(&rig, "s", text).await;
    }
    let token = token_of(&rig, "s", "second TWO");
    assert_eq!(token, json!({"messageID": "msg_002"}));
    let refused = revert_in(&rig, "s", token.clone(), "both").await;
    assert_eq!(
        refused.at("/error/code"),
        Some(&json!("unsupported_scope")),
        "{refused}"
    );
    let junk = revert_in(&rig, "s", json!({"messageID": "../x"}), "conversation").await;
    assert_eq!(
        junk.at("/error/code"),
        Some(&json!("invalid_revert_token")),
        "{junk}"
    );
    let unknown = revert_in(&rig, "s", json!({"messageID": "msg_999"}), "conversation").await;
    assert_eq!(
        unknown.at("/error/code"),
        Some(&json!("invalid_revert_token")),
        "{unknown}"
    );
    let done = revert_in(&rig, "s", token, "conversation").await;
    assert!(done.is("request.completed"), "{done}");
    assert_eq!(
        stored_prompts(&rig),
        vec!["first ONE", "second TWO", "third THREE"],
        "pending until the next prompt"
    );
    completed_turn(&rig, "s", "fourth FOUR").await;
    assert_eq!(stored_prompts(&rig), vec!["first ONE", "fourth FOUR"]);
    rig.finish("s").await;
}

/// Reopened while a revert is pending, the replay leaves the reverted turns out; the replayed
/// first message still carries its token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reopen_with_a_pending_revert_replays_without_the_reverted_turns() {
    let rig = opencode_like().await;
    let opened = rig.open("s", json!({})).await;
    let persistence = opened
        .iter()
        .find(|e| e.is("session.opened"))
        .and_then(|e| e.at("/persistence").cloned())
        .expect("persistence");
    for text in ["first ONE", "second TWO"] {
        completed_turn(&rig, "s", text).await;
    }
    let token = token_of(&rig, "s", "second TWO");
    let done = revert_in(&rig, "s", token, "conversation").await;
    assert!(done.is("request.completed"), "{done}");
    rig.finish("s").await;

    let again = rig.reconnect().await;
    let events = again.resume("again", json!({}), persistence).await;
    let users: Vec<(Value, Value)> = events
        .iter()
        .filter(|e| e.is("timeline.item"))
        .filter_map(|e| e.item().cloned())
        .filter(|i| i["type"] == "user_message")
        .map(|i| (i["text"].clone(), i["revertToken"].clone()))
        .collect();
    assert_eq!(
        users,
        vec![(json!("first ONE"), json!({"messageID": "msg_001"}))],
        "{events:#?}"
    );
    again.finish("again").await;
}
