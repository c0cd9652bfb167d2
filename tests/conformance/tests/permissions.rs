//! The demo's real shell tool, unattended and behind a permission round trip.

mod common;
use common::*;
use pretty_assertions::assert_eq;

/// The final snapshot of the turn's first tool call.
fn tool_call(d: &Demo, sid: &str, turn: &str) -> Value {
    let id = format!("tool:{turn}:1");
    d.host
        .timeline(sid)
        .into_iter()
        .find(|i| i["id"] == id)
        .unwrap_or_else(|| panic!("no tool call `{id}`"))
}

/// Starts `run \`touch FILE\`` in mode ask; returns (turn, permission request) once asked.
async fn touch_and_wait_for_permission(d: &Demo, file: &std::path::Path) -> (String, Value) {
    d.open("s", json!({"mode": "ask"})).await;
    let (_, turn) = d
        .start_turn("s", &format!("run `touch {}`", file.display()))
        .await;
    let asked = d.wait(|e| e.is_for("session.permission", "s")).await;
    let request = asked.event["request"].clone();
    assert_eq!(request["id"], format!("perm:{turn}:1"), "{request}");
    assert_eq!(request["kind"], "tool", "{request}");
    let behaviors: Vec<&str> = request["actions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a["behavior"].as_str())
        .collect();
    assert!(
        behaviors.contains(&"allow") && behaviors.contains(&"deny"),
        "allow and deny actions: {request}"
    );
    // The command must not run before the answer.
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(
        !file.exists(),
        "the command ran before the permission was answered"
    );
    let ended = d
        .host
        .session_events("s")
        .iter()
        .any(|e| e.is("session.turn") && e.turn_state() != Some("started"));
    assert!(!ended, "requesting permission does not end the turn");
    (turn, request)
}

fn action_id(request: &Value, behavior: &str) -> Value {
    request["actions"]
        .as_array()
        .and_then(|a| a.iter().find(|a| a["behavior"] == behavior))
        .map(|a| a["id"].clone())
        .unwrap_or(Value::Null)
}

#[tokio::test]
async fn shell_tool_runs_in_auto_mode() {
    let d = demo().await;
    d.open("s", json!({"mode": "auto"})).await;
    let run = d
        .host
        .run_turn(&d.conn, "s", "run `echo conformance-ok`", T)
        .await
        .expect("turn");
    assert_eq!(run.state(), "completed", "{}", run.end);
    assert!(
        !run.events.iter().any(|e| e.is("session.permission")),
        "mode auto asks nothing"
    );
    let call = tool_call(&d, "s", &run.turn_id);
    assert_eq!(call["name"], "shell");
    assert_eq!(call["status"], "completed", "{call}");
    assert_eq!(call["error"], Value::Null);
    assert_eq!(call["detail"]["type"], "shell");
    assert_eq!(call["detail"]["command"], "echo conformance-ok");
    assert_eq!(call["detail"]["exitCode"], 0, "{call}");
    assert!(
        call["detail"]["output"]
            .as_str()
            .unwrap_or("")
            .contains("conformance-ok"),
        "{call}"
    );
    let statuses: Vec<&str> = run
        .events
        .iter()
        .filter(|e| e.item_type() == Some("tool_call"))
        .filter_map(|e| e.item().and_then(|i| i["status"].as_str()))
        .collect();
    assert_eq!(
        statuses.first().copied(),
        Some("running"),
        "the tool is shown running first: {statuses:?}"
    );
    d.host.assert_invariants();
}

#[tokio::test]
async fn failing_command_reports_its_exit_code() {
    let d = demo().await;
    d.open("s", json!({"mode": "auto"})).await;
    let run = d
        .host
        .run_turn(&d.conn, "s", "run `echo nope; exit 3`", T)
        .await
        .expect("turn");
    let call = tool_call(&d, "s", &run.turn_id);
    assert_eq!(call["detail"]["exitCode"], 3, "{call}");
    assert!(
        call["detail"]["output"]
            .as_str()
            .unwrap_or("")
            .contains("nope"),
        "{call}"
    );
    d.host.assert_invariants();
}

#[tokio::test]
async fn permission_allow_runs_the_command() {
    let d = demo().await;
    let file = d.path("allowed");
    let (turn, request) = touch_and_wait_for_permission(&d, &file).await;
    let allow = json!({"behavior": "allow", "selectedActionId": action_id(&request, "allow")});
    d.send(input::permission("s", &format!("perm:{turn}:1"), allow))
        .await;
    let resolved = d
        .wait(|e| e.is_for("session.permission_resolved", "s"))
        .await;
    assert_eq!(resolved.event["permissionId"], format!("perm:{turn}:1"));
    let end = d.host.wait_turn_end("s", &turn, T).await.expect("turn end");
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    assert!(file.exists(), "the allowed command ran");
    let call = tool_call(&d, "s", &turn);
    assert_eq!(
        (call["status"].clone(), call["detail"]["exitCode"].clone()),
        (json!("completed"), json!(0)),
        "{call}"
    );
    d.host.assert_invariants();
}

#[tokio::test]
async fn permission_deny_fails_the_tool_and_skips_the_command() {
    let d = demo().await;
    let file = d.path("denied");
    let (turn, request) = touch_and_wait_for_permission(&d, &file).await;
    let deny = json!({"behavior": "deny", "selectedActionId": action_id(&request, "deny"), "message": "not today"});
    d.send(input::permission("s", &format!("perm:{turn}:1"), deny))
        .await;
    d.wait(|e| e.is_for("session.permission_resolved", "s"))
        .await;
    let end = d.host.wait_turn_end("s", &turn, T).await.expect("turn end");
    assert_ne!(
        end.turn_state(),
        Some("canceled"),
        "a plain deny does not cancel the turn: {end}"
    );
    let call = tool_call(&d, "s", &turn);
    assert_eq!(call["status"], "failed", "{call}");
    assert!(
        !call["error"].is_null(),
        "a failed tool call carries an error: {call}"
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!file.exists(), "the denied command must not run");
    d.host.assert_invariants();
}

#[tokio::test]
async fn interrupt_while_a_permission_is_pending() {
    let d = demo().await;
    let file = d.path("never");
    let (turn, _) = touch_and_wait_for_permission(&d, &file).await;
    d.interrupt("s", &turn).await;
    let resolved = d
        .host
        .session_events("s")
        .into_iter()
        .any(|e| e.is("session.permission_resolved"));
    assert!(resolved, "a canceled turn settles its pending permission");
    let id = format!("tool:{turn}:1");
    if let Some(call) = d.host.timeline("s").into_iter().find(|i| i["id"] == id) {
        assert_ne!(
            call["status"], "running",
            "no tool stays running after the turn ended: {call}"
        );
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!file.exists(), "the command never ran");
    d.host.assert_invariants();
}

/// A host that did not negotiate `permission` cannot answer a request: the bridge denies it
/// for the host (the command never runs, the tool fails), and the turn ends instead of waiting.
#[tokio::test]
async fn without_the_permission_capability_a_request_is_denied_not_sent() {
    let host = BridgeHost::spawn().await.expect("spawn agent-bridge serve");
    host.initialize().await.expect("initialize");
    let caps: Vec<&str> = DEMO_CAPS
        .iter()
        .copied()
        .filter(|c| *c != "permission")
        .collect();
    let (conn, negotiated) = host.connect(DEMO, &caps, None).await.expect("connect");
    assert!(
        !negotiated.iter().any(|c| c == "permission"),
        "{negotiated:?}"
    );
    let dir = tempfile::tempdir().expect("temp cwd");
    let d = Demo { host, conn, dir };
    let file = d.path("never");
    d.open("s", json!({"mode": "ask"})).await;
    let (_, turn) = d
        .start_turn("s", &format!("run `touch {}`", file.display()))
        .await;
    let end = d.host.wait_turn_end("s", &turn, T).await.expect("turn end");
    assert_ne!(end.turn_state(), Some("started"), "{end}");
    let asked = d
        .host
        .session_events("s")
        .iter()
        .any(|e| e.is("session.permission"));
    assert!(
        !asked,
        "no session.permission on a connection without `permission`"
    );
    let call = tool_call(&d, "s", &turn);
    assert_eq!(call["status"], "failed", "{call}");
    assert!(!file.exists(), "the denied command must not run");
    d.host.assert_invariants();
}
