//! End-to-end persistence (real bridge, real pinned `claude`, mock model): resume of a
//! persisted session in a fresh bridge with history replay, and the native session list
//! (including a session started outside Paseo).

mod common;

use agent_bridge_conformance::input;
use common::*;
use serde_json::{json, Value};

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_in_a_fresh_bridge_replays_the_transcript_then_continues() {
    let Some(rig) = rig().await else { return };
    rig.open("s-first", json!({"mode": "bypassPermissions"}))
        .await;
    let run = rig.run_turn("s-first", "please run `echo hello`").await;
    assert_eq!(run.state(), "completed");
    let persistence = rig
        .wait("s-first", "session.persistence", |_| true)
        .await
        .at("/persistence")
        .cloned()
        .unwrap_or_default();
    let native = persistence["data"]["sessionId"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    rig.finish("s-first").await;

    // A new bridge process, same CLI environment (HOME / CLAUDE_CONFIG_DIR).
    let again = rig.reconnect().await;
    let opened = again
        .resume(
            "s-again",
            json!({"mode": "bypassPermissions"}),
            persistence.clone(),
        )
        .await;
    let first = &opened[0];
    assert!(first.is("session.opened"));
    assert_eq!(
        first.at("/persistence/data/sessionId"),
        Some(&json!(native))
    );
    let replayed: Vec<Value> = opened
        .iter()
        .filter(|e| e.is("timeline.item"))
        .filter_map(|e| e.item().cloned())
        .collect();
    let kinds: Vec<&str> = replayed.iter().filter_map(|i| i["type"].as_str()).collect();
    assert_eq!(
        kinds,
        vec!["user_message", "tool_call", "assistant_message"],
        "{replayed:#?}"
    );
    assert_eq!(replayed[0]["text"], "please run `echo hello`");
    assert_eq!(replayed[1]["status"], "completed");
    assert_eq!(replayed[1]["detail"]["command"], "echo hello");
    assert_eq!(replayed[1]["detail"]["output"], "hello");
    assert_eq!(replayed[2]["text"], "Done. The command printed: hello");
    assert!(
        opened.last().is_some_and(|e| e.is("session.ready")),
        "replay comes before session.ready"
    );

    rig.mock.clear_requests();
    let run = again.run_turn("s-again", "say hi").await;
    assert_eq!(run.state(), "completed");
    let req = rig.last_model_request();
    assert!(
        req.body.to_string().contains("echo hello"),
        "the resumed conversation carries its history"
    );
    // The CLI kept the native session: any persistence it reports names the same id.
    let ids: Vec<Value> = again
        .host
        .session_events("s-again")
        .iter()
        .filter(|e| e.is("session.persistence") || e.is("session.opened"))
        .filter_map(|e| e.at("/persistence/data/sessionId").cloned())
        .collect();
    assert!(
        !ids.is_empty() && ids.iter().all(|id| *id == json!(native)),
        "{ids:?}"
    );
    again.finish("s-again").await;
    rig.report("resume-replay");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_list_shows_paseo_and_outside_sessions_with_previews() {
    let Some(rig) = rig().await else { return };
    rig.open("s-list", json!({})).await;
    let run = rig
        .run_turn("s-list", "first prompt of the listed session")
        .await;
    assert_eq!(run.state(), "completed");
    let native = rig.wait("s-list", "session.persistence", |_| true).await;
    let native = native.string_at("/persistence/data/sessionId");

    // A session started outside Paseo: the plain CLI, one shot, same cwd and config dir.
    let out = std::process::Command::new(&rig.cli)
        .args([
            "-p",
            "a question asked outside Paseo",
            "--output-format",
            "json",
        ])
        .env_clear()
        .envs(&rig.env.env)
        .current_dir(rig.cwd())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("claude -p runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let answer = rig
        .ask("sessions", |rid| {
            let mut list = input::sessions(rid);
            list["cwd"] = json!(rig.cwd().display().to_string());
            list
        })
        .await;
    assert!(answer.is("sessions"), "{answer}");
    let sessions = answer
        .at("/sessions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    assert_eq!(sessions.len(), 2, "{sessions:#?}");
    let ours = sessions
        .iter()
        .find(|s| s["persistence"]["data"]["sessionId"] == native.as_str())
        .expect("our session listed");
    assert_eq!(
        ours["firstPromptPreview"],
        "first prompt of the listed session"
    );
    assert_eq!(
        ours["lastPromptPreview"],
        "first prompt of the listed session"
    );
    assert_eq!(ours["cwd"], rig.cwd().display().to_string());
    let outside = sessions
        .iter()
        .find(|s| s["persistence"]["data"]["sessionId"] != native.as_str())
        .expect("outside session");
    assert_eq!(
        outside["firstPromptPreview"],
        "a question asked outside Paseo"
    );
    assert!(outside["updatedAt"]
        .as_str()
        .is_some_and(|t| t.ends_with('Z')));
    rig.finish("s-list").await;
    rig.report("session-list");
}

/// `CLAUDE_CONFIG_DIR` set only in plugin.json's `env` (a second account): the CLI writes its
/// transcripts there and the bridge must find them there too, so the persistence handle is
/// published and a fresh bridge replays the session.
#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_dir_only_in_plugin_json_persists_and_replays() {
    use agent_bridge_conformance::plugin_env::{config_dir_only_in_plugin_json, ConfigDirCase};
    let case = ConfigDirCase {
        var: "CLAUDE_CONFIG_DIR",
        written: "projects",
        default: ".claude/projects",
        patch: || json!({}),
    };
    config_dir_only_in_plugin_json(SPEC, case).await;
}
