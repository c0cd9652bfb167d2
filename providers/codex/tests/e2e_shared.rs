//! Sessions sharing one `codex app-server` (`"processPerSession": false`), through the real
//! bridge, the real pinned CLI and the mock model server: two sessions run turns at once on one
//! process (one waits on an approval while the other completes a turn); a `kill -9` of the
//! shared process fails both running turns and each next prompt resumes its own thread on one
//! new process, with the warning notice; a close leaves the other session and the process
//! running; a session with another environment gets a process of its own.

mod common;

use agent_bridge_conformance::agent_groups::{
    agent_groups, group_id as group, leader_alive, one_agent_group,
};
use agent_bridge_conformance::procs::ProcInfo;
use agent_bridge_conformance::{Event, HostOptions};
use common::*;
use serde_json::{json, Value};
use std::path::Path;

/// A plugin folder whose codex-bridge entry has `"processPerSession": per_session`.
fn plugin_dir(per_session: bool) -> tempfile::TempDir {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugin.json");
    let text = std::fs::read_to_string(&root).expect("the repository's plugin.json");
    let mut manifest: Value = serde_json::from_str(&text).expect("plugin.json parses");
    let providers = manifest["providers"].as_array_mut().expect("providers");
    let codex = providers
        .iter_mut()
        .find(|p| p["id"] == PROVIDER)
        .expect("a codex-bridge entry");
    codex["options"] = json!({ "processPerSession": per_session });
    let dir = tempfile::tempdir().expect("plugin dir");
    std::fs::write(dir.path().join("plugin.json"), manifest.to_string()).expect("write");
    dir
}

/// The rig with shared app-servers (and the plugin folder, kept alive with it).
async fn shared_rig() -> Option<(Rig, tempfile::TempDir)> {
    rig_with(false).await
}

async fn rig_with(per_session: bool) -> Option<(Rig, tempfile::TempDir)> {
    let plugin = plugin_dir(per_session);
    let options = HostOptions::default().env(
        "AGENT_BRIDGE_PLUGIN_DIR",
        plugin.path().display().to_string(),
    );
    let rig = Rig::start_in(SPEC, options, |cli, env| SPEC.launch(cli, env)).await?;
    Some((rig, plugin))
}

/// The processes of each running app-server, by process group (the app-server runs tools in
/// groups of their own).
fn app_servers(rig: &Rig) -> Vec<Vec<ProcInfo>> {
    agent_groups(rig, "app-server")
}

/// The one app-server's process group.
fn one_app_server(rig: &Rig) -> Vec<ProcInfo> {
    one_agent_group(rig, "app-server")
}

/// SIGKILLs the app-server itself (the native binary, not its guard or npm launcher).
fn kill_9(group: &[ProcInfo]) {
    let target = group
        .iter()
        .filter(|p| !p.cmdline.contains("__guard") && !p.cmdline.starts_with("node"))
        .max_by_key(|p| (p.start_time, p.pid))
        .expect("the app-server in its group");
    // SAFETY: kill(2) on a pid just read from /proc.
    unsafe {
        libc::kill(target.pid, libc::SIGKILL);
    }
}

async fn assert_all_gone(procs: &[ProcInfo]) {
    let left = agent_bridge_conformance::procs::wait_gone(procs, STEP).await;
    assert!(left.is_empty(), "orphans: {left:?}");
}

fn restart_notices(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter(|e| e.is("session.notice"))
        .map(|e| e.string_at("/notice/id"))
        .filter(|id| id.starts_with("agent-restarted") || id.starts_with("agent-conversation"))
        .collect()
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_sessions_of_one_app_server_run_turns_at_once() {
    let Some((rig, _plugin)) = shared_rig().await else {
        return;
    };
    let sub = rig.cwd().join("sub");
    std::fs::create_dir_all(&sub).expect("sub folder");
    rig.open("s-ask", json!({"mode": "ask"})).await;
    let opened = rig
        .open("s-sub", json!({"cwd": sub.display().to_string()}))
        .await;
    let persisted = opened
        .iter()
        .find(|e| e.is("session.opened"))
        .map(|e| e.string_at("/persistence/data/cwd"))
        .expect("opened");
    assert!(persisted.ends_with("/sub"), "its own folder: {persisted}");
    let server = one_app_server(&rig);

    // s-ask's turn waits on an approval (for as long as it takes) while s-sub runs a turn.
    let (_, asking) = rig
        .start_turn("s-ask", "please run `touch shared.txt`")
        .await;
    let (ask, pid) = rig.wait_permission("s-ask", None).await;
    assert!(ask.is_for("session.permission", "s-ask"), "{ask}");
    let other = rig.run_turn("s-sub", "say hi from the sub folder").await;
    assert_eq!(other.state(), "completed", "{:?}", other.end);
    assert!(
        last_assistant_text(&rig.timeline("s-sub")).starts_with("hi! (mock reply"),
        "{:#?}",
        rig.timeline("s-sub")
    );
    assert!(
        !rig.host
            .session_events("s-sub")
            .iter()
            .any(|e| e.is("session.permission")),
        "the approval is s-ask's only"
    );
    rig.answer_permission("s-ask", &pid, json!({"behavior": "allow"}))
        .await;
    rig.wait_resolved("s-ask", &pid).await;
    let end = rig.turn_end("s-ask", &asking).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    assert!(rig.cwd().join("shared.txt").exists());
    assert!(!sub.join("shared.txt").exists());
    assert_eq!(
        group(&one_app_server(&rig)),
        group(&server),
        "still the one process"
    );
    rig.finish("s-ask").await;
    rig.finish("s-sub").await;
    assert_all_gone(&server).await;
    rig.report("shared-app-server-two-sessions");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_shared_app_server_comes_back_once_and_both_sessions_resume() {
    let Some((rig, _plugin)) = shared_rig().await else {
        return;
    };
    rig.open("s-a", json!({"mode": "ask"})).await;
    rig.open("s-b", json!({})).await;
    for (sid, word) in [("s-a", "APPLE-SHARED"), ("s-b", "BANANA-SHARED")] {
        let run = rig
            .run_turn(sid, &format!("say hi, and remember {word}"))
            .await;
        assert_eq!(run.state(), "completed", "{:?}", run.end);
    }
    // Both have a turn running: s-a waits on an approval, s-b streams.
    let (_, turn_a) = rig.start_turn("s-a", "please run `touch never.txt`").await;
    let (_, pid) = rig.wait_permission("s-a", None).await;
    let (_, turn_b) = rig.start_turn("s-b", "SLOW please write a long text").await;
    rig.wait_streaming("s-b").await;
    let server = one_app_server(&rig);
    kill_9(&server);
    rig.wait_resolved("s-a", &pid).await;
    for (sid, turn) in [("s-a", &turn_a), ("s-b", &turn_b)] {
        let end = rig.turn_end(sid, turn).await;
        assert_eq!(end.turn_state(), Some("failed"), "{end}");
        assert!(
            end.string_at("/error/message")
                .contains("codex app-server exited unexpectedly ("),
            "{end}"
        );
    }
    assert_all_gone(&server).await;
    assert!(!rig.cwd().join("never.txt").exists());

    // Each next prompt resumes its own thread, on one new app-server.
    rig.mock.clear_requests();
    let (a, b) = tokio::join!(
        rig.run_turn("s-a", "which word did I ask you to remember, a?"),
        rig.run_turn("s-b", "which word did I ask you to remember, b?"),
    );
    for run in [&a, &b] {
        assert_eq!(
            run.state(),
            "completed",
            "{:?}\nstderr:\n{}",
            run.end,
            rig.host.stderr()
        );
    }
    let requests: Vec<String> = rig
        .mock
        .model_requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect();
    let of = |q: &str| {
        requests
            .iter()
            .find(|b| b.contains(q))
            .cloned()
            .unwrap_or_else(|| panic!("a model request with {q}: {requests:#?}"))
    };
    let body_a = of("remember, a?");
    let body_b = of("remember, b?");
    assert!(body_a.contains("APPLE-SHARED") && !body_a.contains("BANANA-SHARED"));
    assert!(body_b.contains("BANANA-SHARED") && !body_b.contains("APPLE-SHARED"));
    let again = one_app_server(&rig);
    assert_ne!(group(&again), group(&server), "a new process");
    for sid in ["s-a", "s-b"] {
        let events = rig.host.session_events(sid);
        assert_eq!(restart_notices(&events), vec!["agent-restarted:1"], "{sid}");
        let notice = events
            .iter()
            .find(|e| e.is("session.notice") && e.string_at("/notice/id") == "agent-restarted:1")
            .expect("the notice");
        assert_eq!(notice.at("/notice/severity"), Some(&json!("warning")));
        assert!(!events.iter().any(|e| e.is("session.runtime_failed")));
        // Each prompt has exactly one result.
        let results = events
            .iter()
            .filter(|e| e.is("session.prompt_result"))
            .count();
        assert_eq!(results, 3, "{sid}: {events:#?}");
    }
    rig.finish("s-a").await;
    rig.finish("s-b").await;
    assert_all_gone(&again).await;
    rig.report("shared-app-server-kill-9");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_one_session_leaves_the_other_and_its_process_running() {
    let Some((rig, _plugin)) = shared_rig().await else {
        return;
    };
    rig.open("s-stay", json!({})).await;
    rig.open("s-go", json!({})).await;
    let server = one_app_server(&rig);
    // s-go closes with a turn running: the turn ends, the process stays for s-stay.
    let (_, turn) = rig
        .start_turn("s-go", "SLOW please write a long text")
        .await;
    rig.wait_streaming("s-go").await;
    rig.finish("s-go").await;
    let end = rig.turn_end("s-go", &turn).await;
    assert!(end.turn_state().is_some(), "{end}");
    assert!(leader_alive(&server), "{server:#?}");
    let run = rig.run_turn("s-stay", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    assert_eq!(group(&one_app_server(&rig)), group(&server));
    // The last close stops it (no spare unless AGENT_BRIDGE_SPARE_IDLE_SECS is set: e2e_spare).
    rig.finish("s-stay").await;
    assert_all_gone(&server).await;
    assert!(app_servers(&rig).is_empty());
    rig.report("shared-app-server-close-one");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_with_another_environment_gets_its_own_app_server() {
    let Some((rig, _plugin)) = shared_rig().await else {
        return;
    };
    rig.open("s-1", json!({})).await;
    rig.open("s-2", json!({})).await;
    assert_eq!(app_servers(&rig).len(), 1);
    rig.open("s-env", json!({"env": {"AGENT_BRIDGE_TEST_MARK": "other"}}))
        .await;
    let servers = app_servers(&rig);
    assert_eq!(servers.len(), 2, "{servers:#?}");
    let run = rig.run_turn("s-env", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let run = rig.run_turn("s-1", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    for sid in ["s-1", "s-2", "s-env"] {
        rig.finish(sid).await;
    }
    for group in &servers {
        assert_all_gone(group).await;
    }
    rig.report("shared-app-server-own-env");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn process_per_session_gives_each_session_its_own_app_server() {
    let Some((rig, _plugin)) = rig_with(true).await else {
        return;
    };
    rig.open("s-1", json!({})).await;
    let first = one_app_server(&rig);
    rig.open("s-2", json!({})).await;
    let servers = app_servers(&rig);
    assert_eq!(servers.len(), 2, "{servers:#?}");
    let second = servers
        .into_iter()
        .find(|g| group(g) != group(&first))
        .expect("s-2's app-server");
    rig.finish("s-1").await;
    assert_all_gone(&first).await;
    assert!(leader_alive(&second));
    let run = rig.run_turn("s-2", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish("s-2").await;
    assert_all_gone(&second).await;
    rig.report("app-server-per-session");
}
