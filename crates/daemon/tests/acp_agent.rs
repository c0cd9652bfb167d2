//! `agent-bridge acp --provider demo` driven over stdio as an ACP client would: every method
//! the facade serves, permissions both ways, cancel, a crash mid-turn, load with replay across
//! a restart, and bad input that must get a clear JSON-RPC error with nothing lost.

mod acp_support;

use acp_support::{chunks, updates, AcpClient, PermissionAnswer};
use pretty_assertions::assert_eq;
use serde_json::{json, Value};

fn dirs() -> (tempfile::TempDir, tempfile::TempDir) {
    (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap())
}

async fn started(data: &std::path::Path) -> AcpClient {
    let mut c = AcpClient::start("demo", data, &[]);
    let init = c.initialize().await;
    assert_eq!(init["result"]["protocolVersion"], 1, "{init}");
    c
}

#[tokio::test]
async fn initialize_declares_what_the_demo_offers() {
    let (data, _) = dirs();
    let mut c = AcpClient::start("demo", data.path(), &[]);
    let init = c.initialize().await;
    let r = &init["result"];
    assert_eq!(r["agentCapabilities"]["loadSession"], true);
    assert_eq!(r["agentCapabilities"]["promptCapabilities"]["image"], false);
    assert_eq!(
        r["agentCapabilities"]["promptCapabilities"]["embeddedContext"],
        true
    );
    assert_eq!(
        r["agentCapabilities"]["sessionCapabilities"],
        json!({"list": {}, "resume": {}, "close": {}})
    );
    assert_eq!(r["agentInfo"]["name"], "agent-bridge/demo");
    assert_eq!(r["authMethods"], json!([]));
    assert!(c.close_stdin().await.success());
}

#[tokio::test]
async fn a_turn_streams_chunks_and_ends_the_turn() {
    let (data, cwd) = dirs();
    let mut c = started(data.path()).await;
    let (_, new) = c
        .call("session/new", json!({"cwd": cwd.path(), "mcpServers": []}))
        .await;
    let session = new["result"]["sessionId"].as_str().unwrap().to_string();
    assert_eq!(new["result"]["modes"]["currentModeId"], "ask");
    let ids: Vec<Value> = new["result"]["configOptions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].clone())
        .collect();
    assert_eq!(
        ids,
        vec![
            json!("mode"),
            json!("model"),
            json!("thought_level"),
            json!("option:verbose"),
            json!("option:style")
        ]
    );
    // The commands follow the answer (the client knows the session by then).
    let commands = c.next().await;
    assert_eq!(
        commands["params"]["update"]["sessionUpdate"],
        "available_commands_update"
    );
    assert_eq!(commands["params"]["sessionId"], session.as_str());

    let (before, answer) = c.prompt(&session, "hello there").await;
    assert_eq!(answer["result"], json!({"stopReason": "end_turn"}));
    let text = chunks(&before, "agent_message_chunk");
    assert!(text.starts_with("Hello from demo!"), "{text}");
    assert!(text.contains("hello there"), "{text}");
    // More than one chunk: the snapshots' appended suffixes, not the whole text each time.
    let pieces = updates(&before)
        .iter()
        .filter(|u| u["sessionUpdate"] == "agent_message_chunk")
        .count();
    assert!(pieces > 1);
    assert!(updates(&before)
        .iter()
        .any(|u| u["sessionUpdate"] == "usage_update"));

    // A known slash command is run as the command.
    let (before, answer) = c.prompt(&session, "/echo ping pong").await;
    assert_eq!(answer["result"]["stopReason"], "end_turn");
    assert!(chunks(&before, "agent_message_chunk").contains("ping pong"));
    assert!(c.close_stdin().await.success());
}

fn tool_calls(messages: &[Value]) -> Vec<Value> {
    updates(messages)
        .into_iter()
        .filter(|u| u["sessionUpdate"] == "tool_call" || u["sessionUpdate"] == "tool_call_update")
        .collect()
}

#[tokio::test]
async fn a_permission_allowed_runs_the_tool_and_reports_its_output() {
    let (data, cwd) = dirs();
    let mut c = started(data.path()).await;
    let session = c.new_session(cwd.path()).await;
    c.permissions = PermissionAnswer::Kind("allow_once");
    let (before, answer) = c.prompt(&session, "please run `echo acp-ok`").await;
    assert_eq!(answer["result"]["stopReason"], "end_turn");
    assert_eq!(c.asked.len(), 1);
    let asked = &c.asked[0]["params"];
    assert_eq!(asked["sessionId"], session.as_str());
    assert_eq!(asked["toolCall"]["kind"], "execute");
    let kinds: Vec<Value> = asked["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].clone())
        .collect();
    assert_eq!(kinds, vec![json!("allow_once"), json!("reject_once")]);
    let calls = tool_calls(&before);
    // The permission's own tool call ends with the answer.
    let asked_id = asked["toolCall"]["toolCallId"].clone();
    assert!(calls
        .iter()
        .any(|u| u["toolCallId"] == asked_id && u["status"] == "completed"));
    let last = calls
        .iter()
        .rev()
        .find(|u| u["title"] == "echo acp-ok")
        .expect("the shell call is reported");
    assert_eq!(last["status"], "completed");
    assert_eq!(last["kind"], "execute");
    assert!(last["content"].to_string().contains("acp-ok"), "{last}");
    assert!(c.close_stdin().await.success());
}

#[tokio::test]
async fn a_permission_rejected_or_cancelled_does_not_run_the_tool() {
    for answer in [
        PermissionAnswer::Kind("reject_once"),
        PermissionAnswer::Cancelled,
    ] {
        let (data, cwd) = dirs();
        let mut c = started(data.path()).await;
        let session = c.new_session(cwd.path()).await;
        c.permissions = answer.clone();
        let (before, end) = c.prompt(&session, "please run `echo never-run`").await;
        assert_eq!(end["result"]["stopReason"], "end_turn", "{answer:?}");
        assert_eq!(c.asked.len(), 1);
        let asked_id = c.asked[0]["params"]["toolCall"]["toolCallId"].clone();
        assert!(tool_calls(&before)
            .iter()
            .any(|u| u["toolCallId"] == asked_id && u["status"] == "failed"));
        assert!(
            !tool_calls(&before)
                .iter()
                .any(|u| u["status"] == "completed"
                    && u["content"].to_string().contains("never-run\\n")),
            "{answer:?}: the command ran"
        );
        assert!(c.close_stdin().await.success());
    }
}

#[tokio::test]
async fn cancel_ends_the_turn_with_cancelled() {
    let (data, cwd) = dirs();
    let mut c = started(data.path()).await;
    let session = c.new_session(cwd.path()).await;
    let id = c
        .request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "SLOW please"}]}),
        )
        .await;
    // Cancel once the turn is streaming.
    loop {
        let m = c.next().await;
        if m["params"]["update"]["sessionUpdate"] == "agent_message_chunk" {
            break;
        }
    }
    c.notify("session/cancel", json!({"sessionId": session}))
        .await;
    let (_, answer) = c.until(id).await;
    assert_eq!(answer["result"], json!({"stopReason": "cancelled"}));
    // The session goes on.
    let (_, next) = c.prompt(&session, "hello again").await;
    assert_eq!(next["result"]["stopReason"], "end_turn");
    assert!(c.close_stdin().await.success());
}

#[tokio::test]
async fn a_crash_mid_turn_fails_that_prompt_and_the_next_one_resumes() {
    let (data, cwd) = dirs();
    let mut c = started(data.path()).await;
    let session = c.new_session(cwd.path()).await;
    let (_, crashed) = c.prompt(&session, "CRASH now").await;
    let message = crashed["error"]["message"].as_str().unwrap_or_default();
    assert!(!message.is_empty(), "the crash is an error: {crashed}");
    let (before, next) = c.prompt(&session, "are you back").await;
    assert_eq!(next["result"]["stopReason"], "end_turn", "{next}");
    assert!(chunks(&before, "agent_message_chunk").contains("are you back"));
    assert!(c.close_stdin().await.success());
}

#[tokio::test]
async fn load_replays_the_history_after_a_restart_and_list_finds_it() {
    let (data, cwd) = dirs();
    let mut c = started(data.path()).await;
    let session = c.new_session(cwd.path()).await;
    let (_, end) = c.prompt(&session, "remember the word kiwi").await;
    assert_eq!(end["result"]["stopReason"], "end_turn");
    let (_, list) = c.call("session/list", json!({"cwd": cwd.path()})).await;
    let listed = list["result"]["sessions"].as_array().unwrap().clone();
    assert_eq!(listed.len(), 1, "{list}");
    assert_eq!(listed[0]["cwd"], cwd.path().display().to_string());
    // Loading the session open here closes and reopens it, with its replay.
    let (replay, loaded) = c
        .call(
            "session/load",
            json!({"sessionId": session, "cwd": cwd.path(), "mcpServers": []}),
        )
        .await;
    assert!(loaded.get("error").is_none(), "{loaded}");
    assert_eq!(
        chunks(&replay, "user_message_chunk"),
        "remember the word kiwi"
    );
    assert!(c.close_stdin().await.success());

    // A new agent process, the same data folder: the id of session/new loads.
    let mut c = started(data.path()).await;
    let (replay, loaded) = c
        .call(
            "session/load",
            json!({"sessionId": session, "cwd": cwd.path(), "mcpServers": []}),
        )
        .await;
    assert!(loaded.get("error").is_none(), "{loaded}");
    assert_eq!(loaded["result"]["modes"]["currentModeId"], "ask");
    assert!(replay
        .iter()
        .all(|m| m["params"]["sessionId"] == session.as_str()));
    assert_eq!(
        chunks(&replay, "user_message_chunk"),
        "remember the word kiwi"
    );
    assert!(chunks(&replay, "agent_message_chunk").contains("kiwi"));
    let (_, next) = c.prompt(&session, "and now").await;
    assert_eq!(next["result"]["stopReason"], "end_turn");

    // The listed id is the one session/new gave, and resumes too (without a replay).
    let listed_id = listed[0]["sessionId"].as_str().unwrap();
    assert_eq!(listed_id, session);
    let (replay, resumed) = c
        .call(
            "session/resume",
            json!({"sessionId": listed_id, "cwd": cwd.path(), "mcpServers": []}),
        )
        .await;
    assert!(resumed.get("error").is_none(), "{resumed}");
    assert!(updates(&replay)
        .iter()
        .all(|u| u["sessionUpdate"] != "user_message_chunk"));
    assert!(c.close_stdin().await.success());
}

#[tokio::test]
async fn the_mode_set_before_a_restart_is_the_mode_after_load_and_resume() {
    let (data, cwd) = dirs();
    let mut c = started(data.path()).await;
    let session = c.new_session(cwd.path()).await;
    let (_, set) = c
        .call(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "auto"}),
        )
        .await;
    assert_eq!(set["result"], json!({}), "{set}");
    // A load of the session open here (closed, then reopened) keeps the mode.
    let (_, loaded) = c
        .call(
            "session/load",
            json!({"sessionId": session, "cwd": cwd.path(), "mcpServers": []}),
        )
        .await;
    assert_eq!(
        loaded["result"]["modes"]["currentModeId"], "auto",
        "{loaded}"
    );
    assert!(c.close_stdin().await.success());

    // A new agent process: ACP's resume and load carry no mode, the session comes back in
    // the one it had, and uses it (auto runs the command without asking).
    for method in ["session/resume", "session/load"] {
        let mut c = started(data.path()).await;
        let (_, reopened) = c
            .call(
                method,
                json!({"sessionId": session, "cwd": cwd.path(), "mcpServers": []}),
            )
            .await;
        assert_eq!(
            reopened["result"]["modes"]["currentModeId"], "auto",
            "{method}: {reopened}"
        );
        c.permissions = PermissionAnswer::Hold;
        let (_, end) = c.prompt(&session, "please run `echo again`").await;
        assert_eq!(end["result"]["stopReason"], "end_turn", "{method}: {end}");
        assert!(c.asked.is_empty(), "{method}: {:?}", c.asked);
        assert!(c.close_stdin().await.success());
    }

    // Back to ask, then a new process: ask it is.
    let mut c = started(data.path()).await;
    let (_, _) = c
        .call(
            "session/resume",
            json!({"sessionId": session, "cwd": cwd.path(), "mcpServers": []}),
        )
        .await;
    let (_, set) = c
        .call(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "ask"}),
        )
        .await;
    assert_eq!(set["result"], json!({}), "{set}");
    assert!(c.close_stdin().await.success());
    let mut c = started(data.path()).await;
    let (_, resumed) = c
        .call(
            "session/resume",
            json!({"sessionId": session, "cwd": cwd.path(), "mcpServers": []}),
        )
        .await;
    assert_eq!(
        resumed["result"]["modes"]["currentModeId"], "ask",
        "{resumed}"
    );
    assert!(c.close_stdin().await.success());
}

#[tokio::test]
async fn mode_and_config_options_change_the_session() {
    let (data, cwd) = dirs();
    let mut c = started(data.path()).await;
    let session = c.new_session(cwd.path()).await;
    let (_, set) = c
        .call(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "auto"}),
        )
        .await;
    assert_eq!(set["result"], json!({}), "{set}");
    // Auto mode runs commands without asking.
    c.permissions = PermissionAnswer::Hold;
    let (_, end) = c.prompt(&session, "please run `echo auto`").await;
    assert_eq!(end["result"]["stopReason"], "end_turn");
    assert!(c.asked.is_empty());

    let (before, set) = c
        .call(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "model", "value": "demo-smart"}),
        )
        .await;
    let model = set["result"]["configOptions"]
        .as_array()
        .and_then(|o| o.iter().find(|o| o["id"] == "model"))
        .cloned()
        .unwrap_or_else(|| panic!("{set}"));
    assert_eq!(model["currentValue"], "demo-smart");
    assert!(updates(&before)
        .iter()
        .any(|u| u["sessionUpdate"] == "config_option_update"));
    let (_, set) = c
        .call(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "option:style", "value": "pirate"}),
        )
        .await;
    let style = set["result"]["configOptions"]
        .as_array()
        .and_then(|o| o.iter().find(|o| o["id"] == "option:style"))
        .cloned()
        .unwrap_or_else(|| panic!("{set}"));
    assert_eq!(style["currentValue"], "pirate");
    let (_, bad) = c
        .call(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "model", "value": "no-such-model"}),
        )
        .await;
    assert!(bad["error"]["message"].as_str().is_some(), "{bad}");
    let (_, bad) = c
        .call(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "nope", "value": "x"}),
        )
        .await;
    assert_eq!(bad["error"]["code"], -32602);
    assert!(c.close_stdin().await.success());
}

#[tokio::test]
async fn images_are_refused_by_an_agent_that_takes_none_and_close_ends_the_session() {
    let (data, cwd) = dirs();
    let mut c = started(data.path()).await;
    let session = c.new_session(cwd.path()).await;
    let (_, refused) = c
        .call(
            "session/prompt",
            json!({"sessionId": session, "prompt": [
                {"type": "text", "text": "what is this"},
                {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}]}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32602);
    assert!(refused["error"]["message"]
        .as_str()
        .unwrap()
        .contains("image"));
    // Embedded context and links are taken as text.
    let (before, end) = c
        .call(
            "session/prompt",
            json!({"sessionId": session, "prompt": [
                {"type": "text", "text": "look"},
                {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "alpha"}},
                {"type": "resource_link", "name": "b.txt", "uri": "file:///b.txt"}]}),
        )
        .await;
    assert_eq!(end["result"]["stopReason"], "end_turn");
    assert!(chunks(&before, "agent_message_chunk").contains("look"));

    let (_, closed) = c.call("session/close", json!({"sessionId": session})).await;
    assert_eq!(closed["result"], json!({}), "{closed}");
    let (_, gone) = c.prompt(&session, "hello?").await;
    assert_eq!(gone["error"]["code"], -32602);
    assert!(c.close_stdin().await.success());
}

#[tokio::test]
async fn bad_input_gets_a_clear_error_and_nothing_is_lost() {
    let (data, cwd) = dirs();
    let mut c = AcpClient::start("demo", data.path(), &[]);
    // Before initialize.
    let (_, early) = c
        .call("session/new", json!({"cwd": cwd.path(), "mcpServers": []}))
        .await;
    assert!(early["error"]["message"]
        .as_str()
        .unwrap()
        .contains("initialize"));
    c.initialize().await;

    c.send_line("{this is not json").await;
    let m = c.next().await;
    assert_eq!(
        (m["id"].clone(), m["error"]["code"].clone()),
        (Value::Null, json!(-32700))
    );

    c.send_line(r#"["a","batch"]"#).await;
    assert_eq!(c.next().await["error"]["code"], -32600);

    let (_, unknown) = c.call("session/fly", json!({})).await;
    assert_eq!(unknown["error"]["code"], -32601);
    let (_, ext) = c.call("_vendor/thing", json!({})).await;
    assert_eq!(ext["error"]["code"], -32601);

    let (_, wrong) = c
        .call("session/new", json!({"cwd": 5, "mcpServers": []}))
        .await;
    assert_eq!(wrong["error"]["code"], -32602);
    assert!(wrong["error"]["message"]
        .as_str()
        .unwrap()
        .contains("session/new"));
    let (_, missing) = c.call("session/prompt", json!({"sessionId": "x"})).await;
    assert_eq!(missing["error"]["code"], -32602);

    // A line over 16 MiB is discarded with -32600; the next one is read.
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":99,"method":"session/prompt","params":{{"text":"{}"}}}}"#,
        "x".repeat(17 << 20)
    );
    c.send_line(&huge).await;
    let m = c.next().await;
    assert_eq!(m["error"]["code"], -32600, "{}", m["error"]);

    // Unknown fields are ignored, and everything still works.
    let (_, new) = c
        .call(
            "session/new",
            json!({"cwd": cwd.path(), "mcpServers": [], "futureField": {"x": 1}}),
        )
        .await;
    let session = new["result"]["sessionId"].as_str().unwrap().to_string();
    let (_, end) = c.prompt(&session, "still here").await;
    assert_eq!(end["result"]["stopReason"], "end_turn");
    assert!(c.close_stdin().await.success());
}
