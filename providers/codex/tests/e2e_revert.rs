//! Rewinding the conversation end to end with the real pinned `codex app-server`: every user
//! message carries a revert token; `session.revert` to one drops that turn and the later ones
//! from what the model sees next, live and after a resume (the replayed messages carry tokens
//! too). Codex restores no files: the `files` scope is not declared.

mod common;

use common::mcp::last_turn_request;
use common::*;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};

/// The revert token of the user message whose text is `text`.
fn token_of(rig: &Rig, session_id: &str, text: &str) -> Value {
    rig.timeline(session_id)
        .into_iter()
        .find(|i| i["type"] == "user_message" && i["text"] == text)
        .and_then(|i| i.get("revertToken").cloned())
        .unwrap_or_else(|| {
            panic!(
                "no revert token on `{text}`: {:#?}",
                rig.timeline(session_id)
            )
        })
}

async fn revert(
    rig: &Rig,
    session_id: &str,
    token: Value,
    scope: &str,
) -> agent_bridge_conformance::Event {
    let sid = session_id.to_string();
    let scope = scope.to_string();
    rig.ask("rev", move |rid| {
        json!({"type": "session.revert", "requestId": rid, "sessionId": sid, "token": token, "scope": scope})
    })
    .await
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rewind_drops_the_later_turns_from_what_the_model_sees() {
    let Some(rig) = rig().await else { return };
    let opened = rig.open("s-rev", json!({})).await;
    let persistence = opened
        .iter()
        .find(|e| e.is("session.opened"))
        .and_then(|e| e.at("/persistence").cloned())
        .expect("persistence");
    for text in ["first ALPHA-1", "second BRAVO-2", "third CHARLIE-3"] {
        let run = rig.run_turn("s-rev", text).await;
        assert_eq!(run.state(), "completed", "{:?}", run.end);
    }
    let body = last_turn_request(&rig.mock).body.to_string();
    assert!(
        body.contains("ALPHA-1") && body.contains("BRAVO-2"),
        "not vacuous"
    );

    // Back to the second message: it and the third are gone, the first stays.
    let second = token_of(&rig, "s-rev", "second BRAVO-2");
    let answer = revert(&rig, "s-rev", second, "conversation").await;
    assert!(answer.is("request.completed"), "{answer}");
    let run = rig.run_turn("s-rev", "fourth DELTA-4").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let body = last_turn_request(&rig.mock).body.to_string();
    assert!(
        body.contains("ALPHA-1") && body.contains("DELTA-4"),
        "{body}"
    );
    assert!(
        !body.contains("BRAVO-2") && !body.contains("CHARLIE-3"),
        "{body}"
    );

    // Codex restores no files: that scope is refused at admission (not negotiated).
    let first = token_of(&rig, "s-rev", "first ALPHA-1");
    let refused = rig
        .host
        .send(&rig.conn, json!({"type": "session.revert", "requestId": "rev-files", "sessionId": "s-rev", "token": first, "scope": "files"}))
        .await;
    assert!(refused.is_err(), "files scope admitted");
    rig.finish("s-rev").await;

    // After a resume the replayed user messages carry tokens that still rewind.
    let bridge = rig.reconnect().await;
    bridge.resume("s-rev2", json!({}), persistence).await;
    let first = bridge
        .timeline("s-rev2")
        .into_iter()
        .find(|i| i["type"] == "user_message" && i["text"] == "first ALPHA-1")
        .and_then(|i| i.get("revertToken").cloned())
        .expect("replayed token");
    let texts: Vec<Value> = bridge
        .timeline("s-rev2")
        .into_iter()
        .filter(|i| i["type"] == "user_message")
        .map(|i| i["text"].clone())
        .collect();
    assert_eq!(texts, vec![json!("first ALPHA-1"), json!("fourth DELTA-4")]);
    let sid = "s-rev2".to_string();
    let answer = bridge
        .ask("rev", move |rid| json!({"type": "session.revert", "requestId": rid, "sessionId": sid, "token": first, "scope": "conversation"}))
        .await;
    assert!(answer.is("request.completed"), "{answer}");
    let run = bridge.run_turn("s-rev2", "fifth ECHO-5").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let body = last_turn_request(&rig.mock).body.to_string();
    assert!(body.contains("ECHO-5"), "{body}");
    for gone in ["ALPHA-1", "BRAVO-2", "CHARLIE-3", "DELTA-4"] {
        assert!(!body.contains(gone), "{gone} still sent: {body}");
    }
    bridge.finish("s-rev2").await;
    rig.report("revert-conversation");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_turn_carries_a_revert_token_and_rewinds() {
    let Some(rig) = rig().await else { return };
    let prompts = rig.env.config_dir.join("prompts");
    std::fs::create_dir_all(&prompts).expect("prompts");
    std::fs::write(prompts.join("mark.md"), "Say COMMAND-MARK-31").expect("prompt");
    rig.open("s-rwc", json!({})).await;
    let run = rig.run_turn("s-rwc", "first KEEP-ME-1").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let cmid = rig.host.unique("cmd");
    rig.send(agent_bridge_conformance::input::command(
        "s-rwc",
        &cmid,
        "prompts:mark",
        "",
    ))
    .await;
    let result = rig.prompt_result("s-rwc", &cmid).await;
    assert_eq!(result["type"], "turn", "{result}");
    let turn_id = result["turnId"].as_str().unwrap_or_default().to_string();
    let end = rig.turn_end("s-rwc", &turn_id).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    let row = rig
        .timeline("s-rwc")
        .into_iter()
        .find(|i| i["id"] == format!("user:{turn_id}"))
        .expect("the command turn's user row");
    assert!(row["revertToken"]["turnId"].is_string(), "{row}");
    let run = rig.run_turn("s-rwc", "after AFTER-ME-3").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    assert!(
        last_turn_request(&rig.mock)
            .body
            .to_string()
            .contains("COMMAND-MARK-31"),
        "not vacuous"
    );

    // Back to before the command: it and the later turn are gone, the first stays.
    let answer = revert(&rig, "s-rwc", row["revertToken"].clone(), "conversation").await;
    assert!(answer.is("request.completed"), "{answer}");
    let run = rig.run_turn("s-rwc", "next NEXT-4").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let body = last_turn_request(&rig.mock).body.to_string();
    assert!(
        body.contains("KEEP-ME-1") && body.contains("NEXT-4"),
        "{body}"
    );
    assert!(
        !body.contains("COMMAND-MARK-31") && !body.contains("AFTER-ME-3"),
        "{body}"
    );
    rig.finish("s-rwc").await;
    rig.report("revert-command-turn");
}
