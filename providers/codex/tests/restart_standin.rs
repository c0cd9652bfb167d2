//! Restarting a Codex session, against stand-in app-servers (shell scripts that log each request
//! and answer from a script): what a restart sends (`initialize`, then `thread/resume` of the
//! session's thread with its committed config), where the events go afterwards (the new sink),
//! the new thread when the resume is refused, and the error of a call the dying app-server
//! left unanswered (its exit status and last stderr lines).

use agent_bridge_codex::catalog::SessionConfig;
use agent_bridge_codex::launch;
use agent_bridge_codex::normalize::Normalizer;
use agent_bridge_codex::session::{Applied, CodexSession, SessionRelaunch};
use agent_bridge_codex::state::{self, SharedState};
use agent_bridge_codex::translate::CodexTranslator;
use agent_bridge_codex::wire::params::ThreadStartParams;
use agent_bridge_core::lifecycle::{AgentRuntime, Liveness, Relaunch, RuntimeLaunch};
use agent_bridge_core::rpc::JsonRpc;
use agent_bridge_core::supervisor::{LaunchOverride, SpawnSpec};
use agent_bridge_core::{AgentEvent, AgentSession, ProcessScope, SessionSink, TurnRequest};
use agent_bridge_protocol::ErrorCode;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// A stand-in app-server: logs every line it reads to `log`, answers `initialize`, `thread/start`
/// (thread `th-new`) and `turn/start`; `thread/resume` is answered with `resume` (a JSON
/// `"result":…` or `"error":…` member).
fn app_server(dir: &Path, name: &str, log: &Path, resume: &str) -> PathBuf {
    let path = dir.join(name);
    let thread = |id: &str| {
        format!(
            r#""result":{{"thread":{{"id":"{id}","cwd":"/w"}},"model":"gpt-5","reasoningEffort":"low","approvalPolicy":"untrusted","sandbox":{{"type":"dangerFullAccess"}},"cwd":"/w"}}"#
        )
    };
    let resume = resume.replace("THREAD", &thread("th-1"));
    let body = format!(
        r#"#!/bin/sh
while read -r line; do
  printf '%s\n' "$line" >> '{log}'
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  case "$line" in
    *'"method":"initialize"'*) echo "{{\"id\":$id,\"result\":{{}}}}" ;;
    *'"method":"thread/resume"'*) printf '%s\n' "{{\"id\":$id,{resume}}}" ;;
    *'"method":"thread/start"'*) printf '%s\n' "{{\"id\":$id,{start}}}" ;;
    *'"method":"turn/start"'*) echo "{{\"id\":$id,\"result\":{{\"turn\":{{\"id\":\"tu-1\"}}}}}}" ;;
  esac
done
"#,
        log = log.display(),
        resume = resume.replace('"', "\\\""),
        start = thread("th-new").replace('"', "\\\""),
    );
    script(&path, &body);
    path
}

fn script(path: &Path, body: &str) {
    std::fs::write(path, body).expect("write script");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn spec(program: &Path) -> SpawnSpec {
    LaunchOverride {
        command: Some(program.display().to_string()),
        ..LaunchOverride::default()
    }
    .spec("codex", Vec::new())
}

/// A session on `first` (already running, fed into `sink`) whose restarts run `relaunch`.
fn session(
    first: &Path,
    relaunch: &Path,
    scope: &ProcessScope,
    sink: SessionSink,
) -> (CodexSession, SharedState) {
    let first = spec(first);
    // A script written a moment ago can be "Text file busy" (ETXTBSY) at its exec: a process
    // another test thread forked at that moment holds the writing descriptor until it execs.
    // That is the test's race (the scripts are written by this process), not the bridge's.
    let mut attempts = 0;
    let (shared, server) = loop {
        let shared = state::shared(Normalizer::new("s1", "th-1", "/w"));
        let liveness = Liveness::default();
        let inbound = CodexTranslator::inbound(shared.clone(), sink.clone(), liveness.clone());
        let launch = RuntimeLaunch {
            spec: &first,
            label: launch::LABEL,
            install: launch::INSTALL,
            dialect: Arc::new(JsonRpc::bare()),
            call_timeout: Duration::from_secs(10),
            scope: Some(scope),
        };
        match AgentRuntime::spawn(launch, inbound, liveness) {
            Ok(server) => break (shared, server),
            Err(e) if e.message.contains("Text file busy") && attempts < 50 => {
                attempts += 1;
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => panic!("spawn the stand-in: {e:?}"),
        }
    };
    let config = SessionConfig {
        model: Some("gpt-5".into()),
        effort: Some("high".into()),
        mode: Some("ask".into()),
        models: Vec::new(),
        modes: Vec::new(),
        default_model: None,
        default_mode: None,
        controls: Default::default(),
        default_controls: Default::default(),
    };
    let relaunch = SessionRelaunch {
        runtime: Relaunch::new(spec(relaunch), scope.clone()),
        thread: ThreadStartParams {
            cwd: Some("/w".into()),
            developer_instructions: Some("be brief".into()),
            ..ThreadStartParams::default()
        },
        processes: None,
    };
    let applied = Applied::default();
    let session = CodexSession::start(
        agent_bridge_core::lifecycle::SessionRuntime::Own(server),
        shared.clone(),
        config,
        applied,
        None,
        relaunch,
        sink,
    );
    (session, shared)
}

fn turn(id: &str) -> TurnRequest {
    TurnRequest {
        turn_id: id.into(),
        prompt: serde_json::from_value(json!({
            "clientMessageId": "m1",
            "delivery": "auto",
            "input": {"type": "message", "content": [{"type": "text", "text": "hi"}]}
        }))
        .expect("prompt"),
        text: "hi".into(),
    }
}

/// The requests a stand-in logged: (method, params).
fn requests(log: &Path) -> Vec<(String, Value)> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| Some((v["method"].as_str()?.to_string(), v["params"].clone())))
        .collect()
}

/// Waits for the runtime failure on `rx` (the first app-server died).
async fn runtime_failed(
    rx: &mut mpsc::Receiver<AgentEvent>,
) -> agent_bridge_protocol::ProviderError {
    loop {
        match tokio::time::timeout(Duration::from_secs(10), rx.recv()).await {
            Ok(Some(AgentEvent::RuntimeFailed(e))) => return e,
            Ok(Some(_)) => continue,
            other => panic!("no runtime failure: {other:?}"),
        }
    }
}

fn drained(rx: &mut mpsc::Receiver<AgentEvent>) -> Vec<AgentEvent> {
    let mut out = Vec::new();
    while let Ok(ev) = rx.try_recv() {
        out.push(ev);
    }
    out
}

#[tokio::test]
async fn a_call_the_dying_app_server_left_unanswered_fails_with_its_exit_status_and_stderr() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dying = dir.path().join("dying");
    script(
        &dying,
        "#!/bin/sh\nread -r line\necho 'thread panicked: out of cheese' >&2\nexit 3\n",
    );
    let scope = ProcessScope::default();
    let (sink, _rx) = SessionSink::channel();
    let (mut session, _) = session(&dying, &dying, &scope, sink);
    let error = session.start_turn(turn("t1")).await.expect_err("it died");
    assert!(
        error
            .message
            .contains("exited unexpectedly (exit status: 3)"),
        "{error:?}"
    );
    assert!(
        error
            .diagnostic
            .as_deref()
            .unwrap_or("")
            .contains("out of cheese"),
        "{error:?}"
    );
    session.close().await;
}

/// The first app-server dies at once; the session's `restart` runs `relaunch`. Returns the
/// session, its scope and the new sink's receiver after a successful restart.
async fn restarted(
    dir: &Path,
    relaunch: &Path,
) -> (
    CodexSession,
    ProcessScope,
    mpsc::Receiver<AgentEvent>,
    agent_bridge_core::Restarted,
) {
    let dead = dir.join("dead");
    script(&dead, "#!/bin/sh\nexit 9\n");
    let scope = ProcessScope::default();
    let (sink, mut rx) = SessionSink::channel();
    let (mut session, _) = session(&dead, relaunch, &scope, sink);
    let died = runtime_failed(&mut rx).await;
    assert!(died.message.contains("exit status: 9"), "{died:?}");
    let (sink, rx) = SessionSink::channel();
    let how = session.restart(sink).await.expect("restarted");
    (session, scope, rx, how)
}

#[tokio::test]
async fn a_restart_resumes_the_thread_with_the_committed_config_and_reports_to_the_new_sink() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("requests.log");
    let codex = app_server(dir.path(), "codex", &log, "THREAD");
    let (mut session, scope, mut rx, how) = restarted(dir.path(), &codex).await;
    assert_eq!(how, agent_bridge_core::Restarted::Resumed);
    assert!(session.can_restart());
    let sent = requests(&log);
    let methods: Vec<&str> = sent.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(methods, vec!["initialize", "initialized", "thread/resume"]);
    assert_eq!(
        sent[2].1,
        json!({
            "threadId": "th-1",
            "cwd": "/w",
            "model": "gpt-5",
            "approvalPolicy": "untrusted",
            "sandbox": "danger-full-access",
            "developerInstructions": "be brief",
            "config": {"web_search": "cached"},
            "excludeTurns": true
        })
    );
    assert!(drained(&mut rx).is_empty(), "nothing to announce");
    assert_eq!(scope.live().len(), 1, "the new app-server is in the scope");

    // Turns go to the new app-server, on the same thread, with what the resumed thread does
    // not already run with (the effort).
    session.start_turn(turn("t2")).await.expect("turn starts");
    let (method, params) = requests(&log).pop().expect("a request");
    assert_eq!(method, "turn/start");
    assert_eq!(params["threadId"], "th-1");
    assert_eq!(params["effort"], "high");
    assert_eq!(params.get("model"), None, "{params}");
    assert_eq!(params.get("approvalPolicy"), None, "{params}");
    // Codex restores a resumed thread's summary from its rollout, unknown here: it is sent.
    assert_eq!(params["summary"], "auto", "{params}");
    session.close().await;
    assert!(scope.wait_gone(Duration::from_secs(5)).await);
}

#[tokio::test]
async fn a_thread_codex_cannot_resume_continues_in_a_new_thread_with_a_notice_and_its_handle() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("requests.log");
    let refused = r#""error":{"code":-32600,"message":"no rollout found for thread id th-1"}"#;
    let codex = app_server(dir.path(), "codex", &log, refused);
    let (mut session, scope, mut rx, how) = restarted(dir.path(), &codex).await;
    let sent = requests(&log);
    let methods: Vec<&str> = sent.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(
        methods,
        vec!["initialize", "initialized", "thread/resume", "thread/start"]
    );
    assert_eq!(
        sent[3].1,
        json!({
            "cwd": "/w",
            "model": "gpt-5",
            "approvalPolicy": "untrusted",
            "sandbox": "danger-full-access",
            "developerInstructions": "be brief",
            "config": {"web_search": "cached"}
        }),
        "the same settings"
    );
    // A new conversation: the core says so (and carries the session's text over).
    let agent_bridge_core::Restarted::Fresh { reason } = how else {
        panic!("a fresh thread: {how:?}");
    };
    assert!(
        reason.contains("th-1") && reason.contains("no rollout found"),
        "{reason}"
    );
    let events = drained(&mut rx);
    let [AgentEvent::Persistence(handle)] = events.as_slice() else {
        panic!("the new handle: {events:?}");
    };
    assert_eq!(handle.data, json!({"threadId": "th-new", "cwd": "/w"}));
    session.start_turn(turn("t2")).await.expect("turn starts");
    let (method, params) = requests(&log).pop().expect("a request");
    assert_eq!(method, "turn/start");
    assert_eq!(params["threadId"], "th-new");
    assert_eq!(
        params.get("summary"),
        None,
        "a new thread runs with the default"
    );
    session.close().await;
    assert!(scope.wait_gone(Duration::from_secs(5)).await);
}

#[tokio::test]
async fn a_restart_whose_app_server_dies_again_fails_with_its_exit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dead = dir.path().join("dead");
    script(&dead, "#!/bin/sh\necho 'still broken' >&2\nexit 9\n");
    let scope = ProcessScope::default();
    let (sink, mut rx) = SessionSink::channel();
    let (mut session, _) = session(&dead, &dead, &scope, sink);
    runtime_failed(&mut rx).await;
    let (sink, mut rx) = SessionSink::channel();
    let error = session.restart(sink).await.expect_err("it cannot start");
    assert_eq!(error.code, Some(ErrorCode::RuntimeExited), "{error:?}");
    assert!(
        error
            .diagnostic
            .as_deref()
            .unwrap_or("")
            .contains("still broken"),
        "{error:?}"
    );
    // Not reported a second time as a runtime failure: the restart's error says it.
    assert!(!drained(&mut rx)
        .iter()
        .any(|e| matches!(e, AgentEvent::RuntimeFailed(_))),);
    session.close().await;
    assert!(scope.wait_gone(Duration::from_secs(5)).await);
}
