//! Persistence: opaque handles in session.opened, replay before session.ready (also across a
//! bridge restart), history skip, and the session list.

mod common;
use common::*;
use pretty_assertions::assert_eq;

/// Opens a persisted session, runs one turn, closes it; returns (persistence, final timeline).
async fn persisted_conversation(d: &Demo, sid: &str, text: &str) -> (Value, Vec<Value>) {
    let events = d.open(sid, json!({"persist": true})).await;
    let persistence = events[0]
        .event
        .get("persistence")
        .cloned()
        .expect("session.opened carries persistence");
    assert_eq!(persistence["version"], 1, "{persistence}");
    assert!(
        persistence["data"]["sessionId"].is_string(),
        "{persistence}"
    );
    assert_eq!(
        persistence["data"]["cwd"],
        d.cwd().display().to_string(),
        "{persistence}"
    );
    let run = d.host.run_turn(&d.conn, sid, text, T).await.expect("turn");
    assert_eq!(run.state(), "completed");
    let timeline = timeline_of(d, sid);
    let rid = d.host.unique("close");
    let answer = d.ask(input::close(&rid, sid)).await;
    assert_eq!(answer.kind(), "request.completed", "{answer}");
    (persistence, timeline)
}

/// Resumes `persistence` as `sid`; returns the events of the open (opened ..= ready).
async fn resume(d: &Demo, sid: &str, persistence: &Value, history: &str) -> Vec<Event> {
    let rid = d.host.unique("resume");
    let open = input::resume(
        &rid,
        sid,
        d.config(json!({"persist": true})),
        persistence.clone(),
        history,
    );
    d.host.open_session(&d.conn, open).await.expect("resume")
}

fn replayed(events: &[Event]) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e.is("timeline.item"))
        .filter_map(|e| e.item().cloned())
        .map(without_client_id)
        .collect()
}

/// `clientMessageId` only reconciles Paseo's optimistic row of a live prompt; a replay of
/// native history need not carry it.
fn without_client_id(mut item: Value) -> Value {
    if let Some(obj) = item.as_object_mut() {
        obj.remove("clientMessageId");
    }
    item
}

fn timeline_of(d: &Demo, sid: &str) -> Vec<Value> {
    d.host
        .timeline(sid)
        .into_iter()
        .map(without_client_id)
        .collect()
}

#[tokio::test]
async fn persist_false_has_no_handle() {
    let d = demo().await;
    let events = d.open("s", json!({"persist": false})).await;
    assert!(
        events[0].event.get("persistence").is_none(),
        "{}",
        events[0]
    );
    d.host.assert_invariants();
}

#[tokio::test]
async fn reopen_replays_the_old_items_before_ready() {
    let d = demo().await;
    let (persistence, timeline) = persisted_conversation(&d, "first", "remember the tide").await;
    let events = resume(&d, "second", &persistence, "replay").await;
    let kinds: Vec<&str> = events
        .iter()
        .map(Event::kind)
        .filter(|k| *k != "session.commands")
        .collect();
    assert_eq!(kinds.first().copied(), Some("session.opened"));
    assert_eq!(kinds.get(1).copied(), Some("session.config"));
    assert_eq!(kinds.last().copied(), Some("session.ready"));
    assert_eq!(
        replayed(&events),
        timeline,
        "the old items, replayed as they were last published"
    );
    let run = d
        .host
        .run_turn(&d.conn, "second", "and now?", T)
        .await
        .expect("the resumed session works");
    assert_eq!(run.state(), "completed");
    d.host.assert_invariants();
}

#[tokio::test]
async fn reopen_with_history_skip_replays_nothing() {
    let d = demo().await;
    let (persistence, _) = persisted_conversation(&d, "first", "remember the tide").await;
    let events = resume(&d, "second", &persistence, "skip").await;
    assert_eq!(replayed(&events), Vec::<Value>::new());
    d.host.assert_invariants();
}

#[tokio::test]
async fn sessions_survive_a_bridge_restart_and_are_listed() {
    let data = tempfile::Builder::new()
        .prefix("conformance-data-")
        .tempdir()
        .expect("data dir");
    let first = demo_with(HostOptions::default().data_dir(data.path())).await;
    let (persistence, timeline) = persisted_conversation(&first, "s", "remember the tide").await;
    let cwd = first.cwd().display().to_string();
    first.host.close_stdin().await;
    first
        .host
        .wait_exit(EXIT_LIMIT)
        .await
        .expect("first bridge exits");
    first.host.assert_invariants();

    let second = demo_with(HostOptions::default().data_dir(data.path())).await;
    let listed = second.ask(input::sessions("list")).await;
    assert_eq!(listed.kind(), "sessions", "{listed}");
    let entry = listed.event["sessions"]
        .as_array()
        .and_then(|all| all.iter().find(|s| s["persistence"] == persistence))
        .unwrap_or_else(|| panic!("the persisted session is listed: {listed}"))
        .clone();
    assert_eq!(entry["cwd"], cwd);
    assert_eq!(entry["firstPromptPreview"], "remember the tide", "{entry}");
    let rid = second.host.unique("resume");
    let config = input::session_config(std::path::Path::new(&cwd), json!({"persist": true}));
    let open = input::resume(&rid, "again", config, persistence, "replay");
    let events = second
        .host
        .open_session(&second.conn, open)
        .await
        .expect("resume after restart");
    assert_eq!(replayed(&events), timeline);
    second.host.assert_invariants();
}

#[tokio::test]
async fn resuming_an_unknown_handle_fails_the_open() {
    let d = demo().await;
    let bogus = json!({"version": 1, "data": {"sessionId": "never-existed", "cwd": d.cwd().display().to_string()}});
    let open = input::resume(
        "r-bogus",
        "s",
        d.config(json!({"persist": true})),
        bogus,
        "replay",
    );
    d.send(open).await;
    let answer = d.host.wait_answer("r-bogus", T).await.expect("answer");
    assert_eq!(answer.kind(), "request.failed", "{answer}");
    assert!(
        !d.host
            .events()
            .iter()
            .any(|e| e.is_for("session.opened", "s")),
        "no session.opened for a failed open"
    );
    d.host.assert_invariants();
}
