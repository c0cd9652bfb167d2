//! Sessions against the fake agent: a reopen in a fresh bridge replays the stored history
//! (`session/load`), `sessions` lists what the agent lists, a close closes the native session,
//! two sessions share one agent process routed by `sessionId`, and configure sets a mode and a
//! config option.

use super::{modes, say, FakeRig};
use crate::fake_acp::permissions::asking;
use agent_bridge_conformance::rig::{last_assistant_text, of_type};
use pretty_assertions::assert_eq;
use serde_json::{json, Value};

fn persistence(events: &[agent_bridge_conformance::Event]) -> Value {
    events
        .iter()
        .find(|e| e.is("session.opened"))
        .and_then(|e| e.at("/persistence").cloned())
        .expect("persistence at open")
}

fn listed_scenario() -> Value {
    json!({"turns": [{
        "match": "hello",
        "steps": [
            {"update": {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "a greeting"}}},
            {"update": {"sessionUpdate": "tool_call", "toolCallId": "r1", "title": "Read notes.txt", "kind": "read",
                "status": "completed", "rawInput": {"path": "notes.txt"}}},
            say("hi there"),
        ]
    }]})
}

/// A session reopened in a fresh bridge replays its history (prompt, thought, tool call and
/// reply, before `session.ready`) and continues on the same native session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reopen_in_a_fresh_bridge_replays_the_history() {
    let rig = FakeRig::start(listed_scenario()).await;
    let opened = rig.open("first", json!({})).await;
    let persistence = persistence(&opened);
    let run = rig.run_turn("first", "hello agent").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish("first").await;

    let again = rig.reconnect().await;
    let events = again.resume("again", json!({}), persistence).await;
    let ready = events
        .iter()
        .position(|e| e.is("session.ready"))
        .expect("ready");
    let replayed: Vec<(String, String)> = events[..ready]
        .iter()
        .filter(|e| e.is("timeline.item"))
        .filter_map(|e| e.item().cloned())
        .map(|i| {
            let text = i["text"].as_str().or(i["title"].as_str()).unwrap_or("");
            (
                i["type"].as_str().unwrap_or("").to_string(),
                text.to_string(),
            )
        })
        .collect();
    let kinds: Vec<&str> = replayed.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        kinds,
        vec![
            "user_message",
            "reasoning",
            "tool_call",
            "assistant_message"
        ],
        "{replayed:#?}"
    );
    assert_eq!(replayed[0].1, "hello agent");
    assert_eq!(replayed[3].1, "hi there");
    let loads = rig.calls("session/load");
    assert_eq!(loads.len(), 1, "{:#?}", rig.received());
    assert_eq!(loads[0]["sessionId"], "fake-1");
    let run = again.run_turn("again", "more").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let prompts = rig.calls("session/prompt");
    assert_eq!(
        prompts.last().map(|p| p["sessionId"].clone()),
        Some(json!("fake-1"))
    );
    again.finish("again").await;
}

/// A reopen skipping the history replays nothing (and shows nothing of the load's replay).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reopen_without_history_shows_none() {
    let rig = FakeRig::start(listed_scenario()).await;
    let persistence = persistence(&rig.open("first", json!({})).await);
    let run = rig.run_turn("first", "hello agent").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish("first").await;
    let again = rig.reconnect().await;
    let rid = again.host.unique("open");
    let config = agent_bridge_conformance::input::session_config(&again.cwd(), json!({}));
    let open = agent_bridge_conformance::input::resume(&rid, "again", config, persistence, "skip");
    let events = again
        .host
        .open_session(&again.conn, open)
        .await
        .expect("reopened");
    assert!(
        !events.iter().any(|e| e.is("timeline.item")),
        "nothing replayed: {events:#?}"
    );
    again.finish("again").await;
}

/// A reopen of a session the agent does not know fails the open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reopen_of_a_session_the_agent_lost_fails() {
    let rig = FakeRig::start(json!({})).await;
    let rid = rig.host.unique("open");
    let config = agent_bridge_conformance::input::session_config(&rig.cwd(), json!({}));
    let gone = json!({"version": 1, "data": {"sessionId": "fake-404", "cwd": rig.cwd().display().to_string()}});
    rig.send(agent_bridge_conformance::input::resume(
        &rid, "s", config, gone, "replay",
    ))
    .await;
    let answer = rig
        .host
        .wait_answer(&rid, agent_bridge_conformance::rig::STEP)
        .await
        .expect("an answer");
    assert!(answer.is("request.failed"), "{answer}");
    rig.host.assert_invariants();
}

/// `sessions` lists the agent's sessions of the folder with their titles and persistence.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_list_has_our_session() {
    let rig = FakeRig::start(listed_scenario()).await;
    let persistence = persistence(&rig.open("s", json!({})).await);
    let run = rig.run_turn("s", "hello agent").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let cwd = rig.cwd().display().to_string();
    let answer = rig
        .ask(
            "list",
            |rid| json!({"type": "sessions", "requestId": rid, "cwd": cwd}),
        )
        .await;
    assert!(answer.is("sessions"), "{answer}");
    let sessions = answer.at("/sessions").cloned().unwrap_or_default();
    let listed: Vec<(Value, Value)> = sessions
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            (
                s["persistence"]["data"]["sessionId"].clone(),
                s["title"].clone(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        vec![(
            persistence["data"]["sessionId"].clone(),
            json!("hello agent")
        )]
    );
    assert_eq!(rig.calls("session/list")[0]["cwd"], json!(cwd));
    rig.finish("s").await;
}

/// A close sends `session/close` for the native session; with no spare kept, the agent process
/// is gone with the last session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_closes_the_native_session() {
    let rig = FakeRig::start(json!({})).await;
    rig.open("s", json!({})).await;
    let run = rig.run_turn("s", "hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish("s").await;
    let closes = rig.calls("session/close");
    assert_eq!(closes, vec![json!({"sessionId": "fake-1"})]);
    let bin = agent_bridge_conformance::fake_acp_binary().expect("fake");
    let left = rig.procs_where(|p| p.cmdline.starts_with(&bin.display().to_string()));
    assert!(
        left.is_empty(),
        "the agent outlived the last close: {left:#?}"
    );
}

/// Two sessions on one agent process: one waits on a permission while the other completes a
/// turn; every update and the permission go to the session whose `sessionId` they name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_sessions_share_one_process_routed_by_session_id() {
    let rig = FakeRig::start(asking(None)).await;
    rig.open("a", json!({})).await;
    rig.open("b", json!({})).await;
    let (_, asking_turn) = rig.start_turn("a", "please touch f").await;
    let (_, pid) = rig.wait_permission("a", None).await;
    let other = rig.run_turn("b", "just talk").await;
    assert_eq!(other.state(), "completed", "{:?}", other.end);
    assert_eq!(last_assistant_text(&rig.timeline("b")), "echo: just talk");
    assert!(
        !rig.host
            .session_events("b")
            .iter()
            .any(|e| e.is("session.permission")),
        "the permission is a's only"
    );
    rig.answer_permission("a", &pid, json!({"behavior": "allow"}))
        .await;
    let end = rig.turn_end("a", &asking_turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    assert_eq!(last_assistant_text(&rig.timeline("a")), "ran it");
    assert!(of_type(&rig.timeline("b"), "tool_call").is_empty());
    let news: Vec<Value> = rig
        .received()
        .into_iter()
        .filter(|m| m["msg"]["method"] == "session/new")
        .map(|m| m["pid"].clone())
        .collect();
    // The connect's probe is a process of its own; both sessions are on the next one.
    assert_eq!(news.len(), 2, "{news:?}");
    assert_eq!(news[0], news[1], "one process for both sessions");
    rig.finish("a").await;
    rig.finish("b").await;
}

fn configurable() -> Value {
    json!({
        "modes": modes(),
        "models": {"currentModelId": "small", "availableModels": [
            {"modelId": "small", "name": "Small"}, {"modelId": "large", "name": "Large"}]},
        "configOptions": [{
            "id": "effort", "name": "Effort", "category": "thought_level", "type": "select",
            "currentValue": "low",
            "options": [{"value": "low", "name": "Low"}, {"value": "high", "name": "High"}]
        }]
    })
}

/// Configure: mode (`session/set_mode`), model (`session/set_model`) and thinking level
/// (`session/set_config_option`) reach the agent and are committed; an unknown mode is refused
/// and changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn configure_sets_mode_model_and_config_option() {
    let rig = FakeRig::start(configurable()).await;
    let opened = rig.open("s", json!({})).await;
    let config = opened
        .iter()
        .find(|e| e.is("session.config"))
        .and_then(|e| e.at("/config").cloned())
        .expect("config at open");
    assert_eq!(config["mode"], "ask", "{config}");
    let refused = rig.configure("s", json!({"mode": "no-such-mode"})).await;
    assert!(refused.is("request.failed"), "{refused}");
    assert!(rig.calls("session/set_mode").is_empty(), "nothing sent");
    let answer = rig
        .configure(
            "s",
            json!({"mode": "yolo", "model": "large", "thinkingOption": "high"}),
        )
        .await;
    assert!(answer.is("request.completed"), "{answer}");
    let committed = rig.committed_config("s");
    assert_eq!(
        committed.at("/config/mode"),
        Some(&json!("yolo")),
        "{committed}"
    );
    assert_eq!(
        committed.at("/config/model"),
        Some(&json!("large")),
        "{committed}"
    );
    assert_eq!(
        committed.at("/config/thinkingOption"),
        Some(&json!("high")),
        "{committed}"
    );
    assert_eq!(
        rig.calls("session/set_mode"),
        vec![json!({"sessionId": "fake-1", "modeId": "yolo"})]
    );
    assert_eq!(
        rig.calls("session/set_model"),
        vec![json!({"sessionId": "fake-1", "modelId": "large"})]
    );
    assert_eq!(
        rig.calls("session/set_config_option"),
        vec![json!({"sessionId": "fake-1", "configId": "effort", "value": "high"})]
    );
    rig.finish("s").await;
}

/// The catalog comes from a probe `session/new`: the agent's modes, models and thinking levels.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn catalog_lists_modes_models_and_thinking_levels() {
    let rig = FakeRig::start(configurable()).await;
    let answer = rig
        .ask("cat", |rid| {
            json!({"type": "catalog", "requestId": rid, "cwd": rig.cwd().display().to_string()})
        })
        .await;
    assert!(answer.is("catalog"), "{answer}");
    let catalog = answer.at("/catalog").cloned().unwrap_or_default();
    let ids = |key: &str| -> Vec<Value> {
        catalog[key]
            .as_array()
            .into_iter()
            .flatten()
            .map(|m| m["id"].clone())
            .collect()
    };
    assert_eq!(
        ids("modes"),
        vec![json!("ask"), json!("yolo")],
        "{catalog:#}"
    );
    assert_eq!(
        ids("models"),
        vec![json!("small"), json!("large")],
        "{catalog:#}"
    );
    assert_eq!(catalog["defaultMode"], "ask", "{catalog:#}");
    let thinking: Vec<Value> = catalog["models"][0]["thinkingOptions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t["id"].clone())
        .collect();
    assert_eq!(thinking, vec![json!("low"), json!("high")], "{catalog:#}");
    rig.host.assert_invariants();
}

/// What the agent's `initialize` advertises is what the connect negotiates: no `loadSession`
/// and no `list`, no persistence and no session list.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capabilities_follow_what_the_agent_advertises() {
    let full = FakeRig::start(json!({})).await;
    let mut caps = full.caps().to_vec();
    caps.sort();
    assert_eq!(
        caps,
        vec![
            "permission",
            "prompt.message",
            "session.configure",
            "session.list",
            "session.persistence"
        ]
    );
    let bare = FakeRig::start(json!({"capabilities": {"loadSession": false, "list": false}})).await;
    let mut caps = bare.caps().to_vec();
    caps.sort();
    assert_eq!(
        caps,
        vec!["permission", "prompt.message", "session.configure"]
    );
}

/// A configure of two options, the agent announcing the model change before its answer and not
/// the mode change (OpenCode): the announcement, still queued on the shared process when its
/// answer comes, carries the mode's old value and must not undo the mode change after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_update_sent_before_an_answer_does_not_undo_the_next_change() {
    let select = |id: &str, category: &str, values: [&str; 2]| {
        json!({"id": id, "name": id, "category": category, "type": "select",
            "currentValue": values[0],
            "options": values.map(|v| json!({"value": v, "name": v}))})
    };
    let rig = FakeRig::start(json!({
        "configOptions": [
            select("model", "model", ["small", "large"]),
            select("mode", "mode", ["build", "yolo"]),
        ],
        "configUpdateBeforeAnswer": {"model": 300},
    }))
    .await;
    rig.open("s", json!({})).await;
    // The race is the bridge's own timing: a few rounds make it all but certain to show.
    let rounds = [("yolo", "large"), ("build", "small")].repeat(3);
    for (mode, model) in rounds {
        let answer = rig
            .configure("s", json!({"mode": mode, "model": model}))
            .await;
        assert!(answer.is("request.completed"), "{answer}");
        let committed = rig.committed_config("s");
        assert_eq!(
            committed.at("/config/mode"),
            Some(&json!(mode)),
            "{committed}"
        );
        assert_eq!(
            committed.at("/config/model"),
            Some(&json!(model)),
            "{committed}"
        );
    }
    rig.finish("s").await;
}
