//! End-to-end rewind (`session.revert`, real bridge, real pinned `claude`, mock model): each
//! scope on one session. Files: `rewind_files` restores what a later turn wrote, the
//! conversation stays. Conversation: the CLI resumes before the message (the next model
//! request lacks it), files stay. Both. The conversation rewinds every provider shares (live,
//! a command turn, after a reopen) are `agent_bridge_conformance::rewind`, run for
//! claude-bridge by `tests/conformance/tests/agnostic_claude.rs`.

mod common;

use common::*;
use mock_llm::ScriptReply;
use serde_json::{json, Value};
use std::path::Path;

fn write(path: &Path, content: &str) -> ScriptReply {
    ScriptReply::ToolCall {
        name: "Write".into(),
        arguments: json!({"file_path": path.display().to_string(), "content": content}),
    }
}

/// Runs a turn; returns the revert token of its user row.
async fn turn(rig: &Rig, session: &str, text: &str) -> Value {
    let (_, turn) = rig.start_turn(session, text).await;
    let end = rig.turn_end(session, &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{text}");
    let row = rig
        .timeline(session)
        .into_iter()
        .find(|i| i["id"] == format!("user:{turn}"))
        .expect("the turn's user row");
    assert_eq!(row["text"], text);
    assert!(row["revertToken"].is_string(), "{row}");
    assert_eq!(row["revertToken"], row["messageId"]);
    row["revertToken"].clone()
}

async fn revert(rig: &Rig, session: &str, token: &Value, scope: &str) {
    let answer = rig
        .ask("rev", |rid| {
            json!({"type": "session.revert", "requestId": rid, "sessionId": session, "token": token, "scope": scope})
        })
        .await;
    assert!(answer.is("request.completed"), "{scope}: {answer}");
}

/// The user texts of the last model request.
fn last_request_text(rig: &Rig) -> String {
    rig.last_model_request().body["messages"].to_string()
}

fn session_pids(rig: &Rig) -> Vec<i32> {
    rig.cli_procs().into_iter().map(|p| p.pid).collect()
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rewind_files_conversation_and_both() {
    let Some(rig) = patient_rig().await else {
        return;
    };
    let work = rig.env.workdir.clone();
    let note = work.join("note.txt");
    std::fs::write(&note, "original\n").expect("note");
    rig.open("s-rw", json!({"mode": "acceptEdits"})).await;
    turn(&rig, "s-rw", "remember the word pineapple").await;

    // Files: what the turn wrote is undone; the conversation keeps the turn.
    let alpha = work.join("alpha.txt");
    rig.mock.push_steps([
        ScriptReply::ToolCall {
            name: "Read".into(),
            arguments: json!({"file_path": note.display().to_string()}),
        },
        write(&note, "changed by alpha\n"),
        write(&alpha, "alpha\n"),
        ScriptReply::Default,
    ]);
    let t_alpha = turn(&rig, "s-rw", "create alpha").await;
    assert!(alpha.exists(), "the turn created alpha.txt");
    assert_eq!(
        std::fs::read_to_string(&note).ok().as_deref(),
        Some("changed by alpha\n")
    );
    let pids = session_pids(&rig);
    revert(&rig, "s-rw", &t_alpha, "files").await;
    assert!(!alpha.exists(), "the created file is gone");
    assert_eq!(
        std::fs::read_to_string(&note).ok().as_deref(),
        Some("original\n")
    );
    assert_eq!(session_pids(&rig), pids, "a files rewind keeps the process");

    // Conversation: the next request lacks the rewound turn; its file stays.
    let beta = work.join("beta.txt");
    rig.mock
        .push_steps([write(&beta, "beta\n"), ScriptReply::Default]);
    let t_beta = turn(&rig, "s-rw", "create beta").await;
    assert!(
        last_request_text(&rig).contains("create alpha"),
        "files rewind kept the conversation"
    );
    revert(&rig, "s-rw", &t_beta, "conversation").await;
    assert!(beta.exists(), "a conversation rewind leaves the files");
    let handle = rig
        .wait("s-rw", "session.persistence", |e| {
            e.at("/persistence/data/resumeAt").is_some()
        })
        .await;
    assert!(
        rig.host
            .descendants()
            .iter()
            .any(|p| p.cmdline.contains("--resume-session-at=") && p.cmdline.contains("--resume=")),
        "restarted at the message before"
    );
    let gamma = work.join("gamma.txt");
    rig.mock
        .push_steps([write(&gamma, "gamma\n"), ScriptReply::Default]);
    let t_gamma = turn(&rig, "s-rw", "create gamma").await;
    let seen = last_request_text(&rig);
    assert!(
        seen.contains("pineapple") && seen.contains("create alpha"),
        "{seen}"
    );
    assert!(
        !seen.contains("create beta"),
        "the rewound turn is gone: {seen}"
    );
    // A run ended on the rewound conversation: the handle no longer needs `resumeAt`.
    let plain = rig
        .wait("s-rw", "session.persistence", |e| {
            e.seq > handle.seq && e.at("/persistence/data/resumeAt").is_none()
        })
        .await;
    assert_eq!(
        plain.at("/persistence/data/sessionId"),
        handle.at("/persistence/data/sessionId")
    );

    // Both.
    assert!(gamma.exists());
    revert(&rig, "s-rw", &t_gamma, "both").await;
    assert!(!gamma.exists(), "both: the file is gone");
    turn(&rig, "s-rw", "which word?").await;
    let seen = last_request_text(&rig);
    assert!(
        seen.contains("pineapple") && !seen.contains("create gamma"),
        "{seen}"
    );

    // A token that is no message of this conversation is refused.
    let answer = rig
        .ask("rev", |rid| {
            json!({"type": "session.revert", "requestId": rid, "sessionId": "s-rw", "token": "00000000-0000-4000-8000-000000000000", "scope": "conversation"})
        })
        .await;
    assert!(answer.is("request.failed"), "{answer}");
    rig.finish("s-rw").await;
    rig.report("rewind");
}
