//! `agent-bridge acp --provider demo` reopening sessions in a new agent process: what the
//! session had chosen comes back (mode, model, thinking), a choice the provider no longer
//! accepts falls back to its defaults instead of failing the load, and `session/list` names a
//! session created here by the id it was created with.

mod acp_support;

use acp_support::{chunks, AcpClient};
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
use std::path::Path;

async fn started(data: &Path) -> AcpClient {
    let mut c = AcpClient::start("demo", data, &[]);
    let init = c.initialize().await;
    assert_eq!(init["result"]["protocolVersion"], 1, "{init}");
    c
}

fn current(answer: &Value, option: &str) -> Value {
    answer["result"]["configOptions"]
        .as_array()
        .and_then(|o| o.iter().find(|o| o["id"] == option))
        .map(|o| o["currentValue"].clone())
        .unwrap_or(Value::Null)
}

async fn set(c: &mut AcpClient, session: &str, option: &str, value: &str) {
    let (_, set) = c
        .call(
            "session/set_config_option",
            json!({"sessionId": session, "configId": option, "value": value}),
        )
        .await;
    assert_eq!(current(&set, option), value, "{set}");
}

fn reopen_params(session: &str, cwd: &Path) -> Value {
    json!({"sessionId": session, "cwd": cwd, "mcpServers": []})
}

#[tokio::test]
async fn mode_model_and_thinking_come_back_after_a_restart() {
    let (data, cwd) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut c = started(data.path()).await;
    let session = c.new_session(cwd.path()).await;
    set(&mut c, &session, "mode", "auto").await;
    set(&mut c, &session, "model", "demo-smart").await;
    set(&mut c, &session, "thought_level", "on").await;
    let (_, end) = c.prompt(&session, "remember the word fig").await;
    assert_eq!(end["result"]["stopReason"], "end_turn", "{end}");
    assert!(c.close_stdin().await.success());

    for method in ["session/resume", "session/load"] {
        let mut c = started(data.path()).await;
        let (_, reopened) = c.call(method, reopen_params(&session, cwd.path())).await;
        assert!(reopened.get("error").is_none(), "{method}: {reopened}");
        let chosen = ["mode", "model", "thought_level"].map(|o| current(&reopened, o));
        assert_eq!(
            chosen,
            [json!("auto"), json!("demo-smart"), json!("on")],
            "{method}"
        );
        assert!(c.close_stdin().await.success());
    }
}

#[tokio::test]
async fn a_remembered_model_the_provider_refuses_reopens_in_the_defaults() {
    let (data, cwd) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut c = started(data.path()).await;
    let session = c.new_session(cwd.path()).await;
    set(&mut c, &session, "mode", "auto").await;
    let (_, end) = c.prompt(&session, "remember the word plum").await;
    assert_eq!(end["result"]["stopReason"], "end_turn", "{end}");
    assert!(c.close_stdin().await.success());

    // The model the session used has since been retired (as a vendor retires one).
    let file = data
        .path()
        .join("acp-sessions")
        .join(format!("{session}.json"));
    let mut record: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(record["mode"], "auto", "{record}");
    record["model"] = json!("demo-retired");
    std::fs::write(&file, serde_json::to_vec(&record).unwrap()).unwrap();

    let mut c = started(data.path()).await;
    let (replay, loaded) = c
        .call("session/load", reopen_params(&session, cwd.path()))
        .await;
    assert!(
        loaded.get("error").is_none(),
        "the load falls back: {loaded}"
    );
    assert_eq!(current(&loaded, "model"), "demo-fast", "{loaded}");
    assert_eq!(current(&loaded, "mode"), "ask", "{loaded}");
    assert_eq!(
        chunks(&replay, "user_message_chunk"),
        "remember the word plum"
    );
    let (_, next) = c.prompt(&session, "still here").await;
    assert_eq!(next["result"]["stopReason"], "end_turn", "{next}");
    assert!(c.close_stdin().await.success());
}

#[tokio::test]
async fn list_names_a_session_created_here_by_its_own_id() {
    let (data, cwd) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut c = started(data.path()).await;
    let session = c.new_session(cwd.path()).await;
    set(&mut c, &session, "mode", "auto").await;
    let (_, end) = c.prompt(&session, "hello").await;
    assert_eq!(end["result"]["stopReason"], "end_turn", "{end}");
    assert!(c.close_stdin().await.success());

    let mut c = started(data.path()).await;
    let (_, list) = c.call("session/list", json!({"cwd": cwd.path()})).await;
    let ids: Vec<Value> = list["result"]["sessions"]
        .as_array()
        .unwrap_or_else(|| panic!("{list}"))
        .iter()
        .map(|s| s["sessionId"].clone())
        .collect();
    assert_eq!(ids, vec![json!(session)], "{list}");
    // So the listed session comes back with what it had chosen.
    let (_, resumed) = c
        .call("session/resume", reopen_params(&session, cwd.path()))
        .await;
    assert_eq!(current(&resumed, "mode"), "auto", "{resumed}");
    assert!(c.close_stdin().await.success());

    // A session the bridge has no record of (created elsewhere, or the record lost) is
    // listed under an id that carries its handle, and resumes in the defaults.
    std::fs::remove_dir_all(data.path().join("acp-sessions")).unwrap();
    let mut c = started(data.path()).await;
    let (_, list) = c.call("session/list", json!({"cwd": cwd.path()})).await;
    let listed = list["result"]["sessions"][0]["sessionId"]
        .as_str()
        .unwrap_or_else(|| panic!("{list}"))
        .to_string();
    assert!(listed.starts_with("p1."), "{list}");
    let (_, resumed) = c
        .call("session/resume", reopen_params(&listed, cwd.path()))
        .await;
    assert!(resumed.get("error").is_none(), "{resumed}");
    assert_eq!(current(&resumed, "mode"), "ask", "{resumed}");
    assert!(c.close_stdin().await.success());
}
