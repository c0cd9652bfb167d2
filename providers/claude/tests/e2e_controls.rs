//! End-to-end per-session options (`controls` + `providerOptions`) of a Claude session through
//! the real bridge and the real pinned `claude`, observed in the model requests the mock
//! records and in what the tools may touch: `maxThinkingTokens` (the request's
//! `thinking.budget_tokens`) and `additionalDirectories` (a folder outside the working folder
//! that `Read` may use without asking). Each is set at open, changed live, refused when
//! invalid (with nothing applied), and kept across a restart after a `kill -9`.

mod common;

use agent_bridge_conformance::input;
use common::*;
use mock_llm::{RecordedRequest, ScriptReply};
use serde_json::{json, Value};

async fn turn(rig: &Rig, sid: &str, text: &str) -> RecordedRequest {
    let run = rig.run_turn(sid, text).await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.last_model_request()
}

fn read(path: &std::path::Path) -> ScriptReply {
    ScriptReply::ToolCall {
        name: "Read".into(),
        arguments: json!({"file_path": path.display().to_string()}),
    }
}

/// A turn whose model reads `path`: `true` when the CLI read it without asking (the tool's
/// result has the file's text), `false` when it asked (the ask is denied).
async fn reads_without_asking(rig: &Rig, sid: &str, path: &std::path::Path, text: &str) -> bool {
    let asked_before: Vec<String> = rig
        .host
        .session_events(sid)
        .iter()
        .filter(|e| e.is("session.permission"))
        .map(|e| e.string_at("/request/id"))
        .collect();
    rig.mock.push_steps([read(path), ScriptReply::Default]);
    let (_, turn) = rig.start_turn(sid, "read the note").await;
    let ev = rig
        .host
        .wait_event(
            |e| {
                (e.is_for("session.permission", sid)
                    && !asked_before
                        .iter()
                        .any(|id| Some(id.as_str()) == e.at("/request/id").and_then(Value::as_str)))
                    || (e.is_for("session.turn", sid)
                        && e.at("/turnId").and_then(Value::as_str) == Some(turn.as_str())
                        && e.turn_state() != Some("started"))
            },
            STEP,
        )
        .await
        .expect("a permission or the turn end");
    if ev.is("session.permission") {
        let id = ev.string_at("/request/id");
        rig.answer_permission(sid, &id, json!({"behavior": "deny"}))
            .await;
        rig.wait_resolved(sid, &id).await;
        let end = rig.turn_end(sid, &turn).await;
        assert_eq!(end.turn_state(), Some("completed"), "{end}");
        return false;
    }
    assert_eq!(ev.turn_state(), Some("completed"), "{ev}");
    let results = last_tool_results(rig);
    assert!(results.contains(text), "the tool read the file: {results}");
    true
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn options_apply_at_open_and_change_live_or_by_restart() {
    let Some(rig) = patient_rig().await else {
        return;
    };
    let (a, b) = (
        tempfile::tempdir().expect("dir"),
        tempfile::tempdir().expect("dir"),
    );
    std::fs::write(a.path().join("a.txt"), "NOTE-A").expect("write");
    std::fs::write(b.path().join("b.txt"), "NOTE-B").expect("write");
    let dir_a = a.path().display().to_string();
    let dir_b = b.path().display().to_string();

    // At open: haiku takes a thinking budget; folder A is usable.
    let opened = rig
        .open(
            "s-o",
            json!({"model": "haiku", "providerOptions": {"maxThinkingTokens": "16000", "additionalDirectories": [dir_a]}}),
        )
        .await;
    let config = opened
        .iter()
        .find(|e| e.is("session.config"))
        .expect("config");
    assert_eq!(
        config.at("/config/providerOptions"),
        Some(&json!({"maxThinkingTokens": "16000", "additionalDirectories": [dir_a]}))
    );
    assert_eq!(
        config.at("/config/controls/0/key"),
        Some(&json!("maxThinkingTokens"))
    );
    let r = turn(&rig, "s-o", "say hi").await;
    assert_eq!(
        r.body["thinking"],
        json!({"type": "enabled", "budget_tokens": 16000})
    );
    assert!(r.body["system"].to_string().contains(&dir_a));
    assert!(reads_without_asking(&rig, "s-o", &a.path().join("a.txt"), "NOTE-A").await);
    assert!(
        !reads_without_asking(&rig, "s-o", &b.path().join("b.txt"), "NOTE-B").await,
        "folder B is not added yet"
    );

    // The budget changes live.
    let answer = rig
        .configure(
            "s-o",
            json!({"providerOptions": {"maxThinkingTokens": "4000"}}),
        )
        .await;
    assert!(answer.is("request.completed"), "{answer}");
    let r = turn(&rig, "s-o", "say hi").await;
    assert_eq!(
        r.body["thinking"],
        json!({"type": "enabled", "budget_tokens": 4000})
    );
    let answer = rig
        .configure(
            "s-o",
            json!({"providerOptions": {"maxThinkingTokens": "0"}}),
        )
        .await;
    assert!(answer.is("request.completed"), "{answer}");
    let r = turn(&rig, "s-o", "say hi REMEMBER-ME").await;
    assert_eq!(r.body["thinking"], json!({"type": "disabled"}));

    // The folders change by a restart that resumes the conversation and keeps the budget.
    let answer = rig
        .configure(
            "s-o",
            json!({"providerOptions": {"additionalDirectories": [dir_b]}}),
        )
        .await;
    assert!(answer.is("request.completed"), "{answer}");
    assert_eq!(
        rig.committed_config("s-o").at("/config/providerOptions"),
        Some(&json!({"maxThinkingTokens": "0", "additionalDirectories": [dir_b]}))
    );
    let r = turn(&rig, "s-o", "say hi").await;
    assert_eq!(r.body["thinking"], json!({"type": "disabled"}));
    let system = r.body["system"].to_string();
    assert!(
        system.contains(&dir_b) && !system.contains(&dir_a),
        "{system}"
    );
    assert!(
        r.body["messages"].to_string().contains("REMEMBER-ME"),
        "the restart resumed the conversation"
    );
    assert!(reads_without_asking(&rig, "s-o", &b.path().join("b.txt"), "NOTE-B").await);
    assert!(
        !reads_without_asking(&rig, "s-o", &a.path().join("a.txt"), "NOTE-A").await,
        "folder A was removed"
    );

    // `null` resets to the CLI's own budget.
    let answer = rig
        .configure(
            "s-o",
            json!({"providerOptions": {"maxThinkingTokens": null}}),
        )
        .await;
    assert!(answer.is("request.completed"), "{answer}");
    assert_eq!(
        rig.committed_config("s-o")
            .at("/config/providerOptions/maxThinkingTokens"),
        Some(&json!("default"))
    );
    rig.finish("s-o").await;
    rig.report("controls-live");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_options_are_refused_with_nothing_applied() {
    let Some(rig) = rig().await else { return };
    rig.open("s-bad", json!({})).await;
    let before = rig.committed_config("s-bad");
    for (changes, message) in [
        (
            json!({"mode": "plan", "providerOptions": {"maxThinkingTokens": "4000", "fastMode": true}}),
            "unknown provider option `fastMode`",
        ),
        (
            json!({"providerOptions": {"maxThinkingTokens": "lots"}}),
            "providerOptions.maxThinkingTokens must be `default` or a whole number",
        ),
        (
            json!({"providerOptions": {"additionalDirectories": ["relative/dir"]}}),
            "providerOptions.additionalDirectories must be a list of absolute folder paths",
        ),
    ] {
        let answer = rig.configure("s-bad", changes.clone()).await;
        assert!(answer.is("request.failed"), "{changes}: {answer}");
        assert_eq!(
            answer.at("/error/code"),
            Some(&json!("invalid_provider_option")),
            "{answer}"
        );
        let got = answer.string_at("/error/message");
        assert!(got.contains(message), "{got}");
        assert_eq!(
            rig.committed_config("s-bad").at("/config"),
            before.at("/config"),
            "nothing applied"
        );
    }
    // An open with an unknown option is refused too.
    let config = input::session_config(&rig.cwd(), json!({"providerOptions": {"fastMode": true}}));
    let answer = rig
        .ask("open", |rid| input::open(rid, "s-bad2", config))
        .await;
    assert!(answer.is("request.failed"), "{answer}");
    assert_eq!(
        answer.at("/error/code"),
        Some(&json!("invalid_provider_option"))
    );
    rig.finish("s-bad").await;
    rig.report("controls-refused");
}
