//! What OpenCode does through the server inside `opencode acp`. Rewind (`session.revert`): in a git
//! repository the conversation and the files the turns changed go back together (scope
//! `both`; `conversation` alone is refused, never half done); outside git only the
//! conversation can (scope `conversation`; `both` refused), and so in git with snapshots off.
//! A revert not yet dropped by a prompt leaves its turns out of a reopened session's replay.
//! Archive: an archived session leaves the session list until unarchived.

use agent_bridge_conformance::rewind::{
    completed_turn, last_turn_body, latest_persistence, revert_in, token_of,
};
use agent_bridge_conformance::AgentRig;
use mock_llm::ScriptReply;
use serde_json::json;
use std::path::Path;
use std::process::Command;

fn git(cwd: &Path, args: &[&str]) {
    let status = Command::new("git")
        .arg("-C")
        .arg(cwd)
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

/// Makes `cwd` a git repository whose first commit holds `files` (name, text).
fn committed_folder(cwd: &Path, files: &[(&str, &str)]) {
    git(cwd, &["init", "-q"]);
    for (name, text) in files {
        std::fs::write(cwd.join(name), text).expect("a file of the first commit");
    }
    git(cwd, &["add", "."]);
    git(cwd, &["commit", "-qm", "start"]);
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// A git folder; a turn's shell command changes a tracked file and makes a new one, a second
/// turn talks. `conversation` alone is refused and changes nothing; `both` to the first turn
/// restores the files. Reopened before any prompt, the replay leaves the reverted turns out,
/// and the next turn's model request has neither.
pub async fn a_revert_in_git_restores_the_files_and_the_replay_leaves_the_turns_out(
    rig: &AgentRig,
    unattended_mode: &str,
) {
    let cwd = rig.cwd();
    committed_folder(&cwd, &[("tracked.txt", "original\n")]);
    let sid = "oc-revert-git";
    rig.open(sid, json!({ "mode": unattended_mode })).await;
    completed_turn(rig, sid, "before KEEP-0").await;
    rig.mock.push_steps([
        ScriptReply::Shell("echo changed > tracked.txt && echo new > made.txt".into()),
        ScriptReply::Default,
    ]);
    completed_turn(rig, sid, "first FILES-1").await;
    completed_turn(rig, sid, "second SAY-2").await;
    assert_eq!(read(&cwd.join("tracked.txt")).as_deref(), Some("changed\n"));
    assert!(cwd.join("made.txt").exists(), "not vacuous");

    let token = token_of(rig, sid, "first FILES-1");
    let refused = revert_in(rig, sid, token.clone(), "conversation").await;
    assert!(refused.is("request.failed"), "{refused}");
    assert_eq!(
        refused.at("/error/code"),
        Some(&json!("unsupported_scope")),
        "{refused}"
    );
    assert_eq!(read(&cwd.join("tracked.txt")).as_deref(), Some("changed\n"));

    let done = revert_in(rig, sid, token, "both").await;
    assert!(done.is("request.completed"), "{done}");
    assert_eq!(
        read(&cwd.join("tracked.txt")).as_deref(),
        Some("original\n")
    );
    assert!(!cwd.join("made.txt").exists(), "the new file is gone");
    rig.finish(sid).await;

    let persistence = latest_persistence(rig, sid);
    let bridge = rig.reconnect().await;
    let again = "oc-revert-git-again";
    bridge.resume(again, json!({}), persistence).await;
    let texts: Vec<_> = bridge
        .timeline(again)
        .into_iter()
        .filter(|i| i["type"] == "user_message")
        .map(|i| i["text"].clone())
        .collect();
    assert_eq!(texts, vec![json!("before KEEP-0")], "the replay");
    completed_turn(&bridge, again, "third THREE-3").await;
    let body = last_turn_body(rig);
    assert!(
        body.contains("KEEP-0") && body.contains("THREE-3"),
        "{body}"
    );
    for gone in ["FILES-1", "SAY-2"] {
        assert!(!body.contains(gone), "{gone} still sent: {body}");
    }
    bridge.finish(again).await;
}

/// A git folder whose project config (`config_file`) switches snapshots off: the turns keep
/// no snapshot, so `both` is refused and `conversation` rewinds the conversation alone; the
/// file a turn changed stays changed, and the next model request leaves the turn out.
pub async fn in_git_without_snapshots_only_the_conversation_goes_back(
    rig: &AgentRig,
    unattended_mode: &str,
    config_file: &str,
) {
    let cwd = rig.cwd();
    committed_folder(
        &cwd,
        &[
            ("tracked.txt", "original\n"),
            (config_file, r#"{"snapshot": false}"#),
        ],
    );
    let sid = "oc-revert-nosnap";
    rig.open(sid, json!({ "mode": unattended_mode })).await;
    completed_turn(rig, sid, "before KEEP-0").await;
    rig.mock.push_steps([
        ScriptReply::Shell("echo changed > tracked.txt".into()),
        ScriptReply::Default,
    ]);
    completed_turn(rig, sid, "first FILES-1").await;
    assert_eq!(read(&cwd.join("tracked.txt")).as_deref(), Some("changed\n"));

    let token = token_of(rig, sid, "first FILES-1");
    let refused = revert_in(rig, sid, token.clone(), "both").await;
    assert_eq!(
        refused.at("/error/code"),
        Some(&json!("unsupported_scope")),
        "{refused}"
    );
    let unknown = revert_in(
        rig,
        sid,
        json!({"messageID": "msg_nosuchmessage"}),
        "conversation",
    )
    .await;
    assert_eq!(
        unknown.at("/error/code"),
        Some(&json!("invalid_revert_token")),
        "{unknown}"
    );
    let done = revert_in(rig, sid, token, "conversation").await;
    assert!(done.is("request.completed"), "{done}");
    assert_eq!(read(&cwd.join("tracked.txt")).as_deref(), Some("changed\n"));
    completed_turn(rig, sid, "second SAY-2").await;
    let body = last_turn_body(rig);
    assert!(body.contains("KEEP-0") && body.contains("SAY-2"), "{body}");
    assert!(!body.contains("FILES-1"), "FILES-1 still sent: {body}");
    rig.finish(sid).await;
}

/// Outside git OpenCode keeps no snapshot: `both` is refused and the conversation stays.
pub async fn outside_git_only_the_conversation_can_be_rewound(rig: &AgentRig) {
    let sid = "oc-revert-plain";
    rig.open(sid, json!({})).await;
    completed_turn(rig, sid, "first PLAIN-1").await;
    let token = token_of(rig, sid, "first PLAIN-1");
    let refused = revert_in(rig, sid, token, "both").await;
    assert!(refused.is("request.failed"), "{refused}");
    assert_eq!(
        refused.at("/error/code"),
        Some(&json!("unsupported_scope")),
        "{refused}"
    );
    let junk = revert_in(rig, sid, json!({"messageID": "../x"}), "conversation").await;
    assert_eq!(
        junk.at("/error/code"),
        Some(&json!("invalid_revert_token")),
        "{junk}"
    );
    completed_turn(rig, sid, "second PLAIN-2").await;
    assert!(
        last_turn_body(rig).contains("PLAIN-1"),
        "nothing was rewound"
    );
    rig.finish(sid).await;
}

/// The ids of the sessions `sessions` lists in the rig's folder.
async fn listed(rig: &AgentRig) -> Vec<serde_json::Value> {
    let cwd = rig.cwd().display().to_string();
    let answer = rig
        .ask(
            "list",
            |rid| json!({"type": "sessions", "requestId": rid, "cwd": cwd}),
        )
        .await;
    assert!(answer.is("sessions"), "{answer}");
    answer
        .at("/sessions")
        .and_then(|s| s.as_array().cloned())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|s| s.pointer("/persistence/data/sessionId").cloned())
        .collect()
}

async fn archive(
    rig: &AgentRig,
    kind: &str,
    persistence: serde_json::Value,
) -> agent_bridge_conformance::Event {
    let kind = kind.to_string();
    rig.ask(
        "arch",
        move |rid| json!({"type": kind, "requestId": rid, "persistence": persistence}),
    )
    .await
}

/// An archived OpenCode session leaves the session list (ACP's own list still has it) and
/// comes back when unarchived; an unknown session is `session_not_found`.
pub async fn an_archived_session_leaves_the_list_until_unarchived(rig: &AgentRig) {
    let sid = "oc-archive";
    rig.open(sid, json!({})).await;
    completed_turn(rig, sid, "say hi").await;
    rig.finish(sid).await;
    let persistence = latest_persistence(rig, sid);
    let ours = persistence["data"]["sessionId"].clone();
    assert!(listed(rig).await.contains(&ours), "listed before");

    let done = archive(rig, "session.archive", persistence.clone()).await;
    assert!(done.is("request.completed"), "{done}");
    assert!(!listed(rig).await.contains(&ours), "archived: not listed");

    let done = archive(rig, "session.unarchive", persistence.clone()).await;
    assert!(done.is("request.completed"), "{done}");
    assert!(
        listed(rig).await.contains(&ours),
        "unarchived: listed again"
    );

    let mut unknown = persistence;
    unknown["data"]["sessionId"] = json!("ses_nosuchsession0000000000");
    let refused = archive(rig, "session.archive", unknown).await;
    assert_eq!(
        refused.at("/error/code"),
        Some(&json!("session_not_found")),
        "{refused}"
    );
}
