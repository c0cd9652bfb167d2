//! `provider/readSessionHistory` over a real agent (Paseo's `readSessionHistory` for an archived
//! or closed agent): after a persisted session's turn and close, the read returns the prompt and
//! the reply, announces nothing on the connection, and leaves no process of its own; the rows
//! are those a reopen with replay publishes. A provider's test file expands it with
//! [`crate::case_scenarios`] (the case is `()`: nothing differs per agent).

use crate::{AgentRig, Event};
use serde_json::{json, Value};

/// The newest persistence handle published for `sid`: Claude Code publishes it once a turn is
/// saved (waited for), the others with `session.opened`.
async fn handle_of(r: &AgentRig, sid: &str) -> Value {
    let newest = |r: &AgentRig| {
        r.host
            .session_events(sid)
            .iter()
            .rev()
            .find_map(|e| match e.kind() {
                "session.persistence" | "session.opened" => e.event.get("persistence").cloned(),
                _ => None,
            })
    };
    if let Some(handle) = newest(r) {
        return handle;
    }
    r.wait(sid, "session.persistence", |_| true).await;
    newest(r).unwrap_or_else(|| panic!("a persistence handle for {sid}"))
}

/// The rows of a read or replay, reduced to what both must agree on: type, and text for
/// messages.
fn digest(items: &[Value]) -> Vec<Value> {
    items
        .iter()
        .filter(|i| i["type"] == "user_message" || i["type"] == "assistant_message")
        .map(|i| json!({"type": i["type"], "text": i["text"]}))
        .collect()
}

/// open (persist) -> turn -> close -> read: the prompt and the reply, no event, no process.
pub async fn read_history_after_close(r: &AgentRig, _: ()) {
    let sid = "hist";
    r.open(sid, json!({"persist": true})).await;
    let prompt = "say hi for the history";
    let run = r.run_turn(sid, prompt).await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let persistence = handle_of(r, sid).await;
    r.finish(sid).await;
    r.wait(sid, "session.closed", |_| true).await;
    let before = r.host.events().len();
    let started = std::time::Instant::now();
    let read = r
        .host
        .request(
            "provider/readSessionHistory",
            json!({
                "providerId": r.spec.provider,
                "persistence": persistence,
                "cwd": r.cwd().display().to_string(),
                // As Paseo does: the launch the agent's connection used.
                "launch": r.spec.launch(&r.cli, &r.env),
            }),
        )
        .await
        .unwrap_or_else(|e| panic!("history read: {e:?}\nstderr:\n{}", r.host.stderr()));
    let took = started.elapsed();
    let items = read["items"].as_array().cloned().unwrap_or_default();
    let shown = serde_json::to_string(&items).unwrap_or_default();
    eprintln!(
        "HISTORY {} ({} ms, {} rows): {}",
        r.spec.provider,
        took.as_millis(),
        items.len(),
        shown.chars().take(1500).collect::<String>()
    );
    assert_eq!(read["coverage"], json!({"kind": "complete"}), "{read}");
    let rows = digest(&items);
    assert!(
        rows.iter()
            .any(|i| i["type"] == "user_message" && i["text"] == prompt),
        "the prompt is in the history: {read:#}"
    );
    assert!(
        rows.iter().any(|i| i["type"] == "assistant_message"
            && i["text"].as_str().is_some_and(|t| !t.is_empty())),
        "the reply is in the history: {read:#}"
    );
    assert_eq!(
        r.host.events().len(),
        before,
        "the read announced nothing on the connection"
    );
    let left = r.host.descendants();
    assert!(
        left.is_empty(),
        "processes left after the read: {left:#?}\nstderr:\n{}",
        r.host.stderr()
    );

    // The same rows a reopen with replay publishes before session.ready.
    let events: Vec<Event> = r
        .resume("hist-again", json!({"persist": true}), persistence)
        .await;
    let replayed: Vec<Value> = events
        .iter()
        .filter(|e| e.is("timeline.item"))
        .filter_map(|e| e.item().cloned())
        .collect();
    assert_eq!(digest(&items), digest(&replayed), "read vs replay");
    r.finish("hist-again").await;
    r.host.assert_invariants();
}
