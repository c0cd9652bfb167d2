//! Races between host inputs and what the agent already reported.

mod support;

use pretty_assertions::assert_eq;
use serde_json::{json, Value};
use support::{prompt_input, Behaviour, Host};

fn turn_id(events: &[Value]) -> String {
    events
        .iter()
        .find(|e| e["type"] == "session.turn")
        .expect("turn event")["turnId"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn a_steer_that_arrives_after_the_turn_ended_starts_a_new_turn() {
    let mut host = Host::start(Behaviour {
        configure_ends_turn: true,
        ..Default::default()
    })
    .await;
    host.open("s1").await;
    host.prompt("s1", "m1", "first", "auto").await;
    let first = turn_id(&host.until("session.turn").await);
    // The agent ends the turn while it configures (its TurnEnded is queued, not yet read) and
    // the steer is queued right behind the configure.
    let configure = json!({"type": "session.configure", "requestId": "k1", "sessionId": "s1",
        "changes": {"model": "m2"}});
    let steer = prompt_input("s1", "m2", "late steer", "steer");
    let answers = host.send_all(&[configure, steer]).await;
    assert!(answers.iter().all(|a| a["result"].is_null()), "{answers:?}");
    let events = host.until("session.prompt_result").await;
    let result = events.last().unwrap();
    assert_eq!(result["clientMessageId"], "m2");
    assert_eq!(result["result"]["type"], "turn", "{result}");
    assert_ne!(result["result"]["turnId"], first.as_str());
    let ended = events
        .iter()
        .find(|e| e["type"] == "session.turn" && e["turnId"] == first.as_str())
        .expect("the first turn ended before the steer was handled");
    assert_eq!(ended["state"], "completed");
    let started = host.until("session.turn").await;
    let started = started.last().unwrap();
    assert_eq!(
        (started["turnId"].clone(), started["state"].as_str()),
        (result["result"]["turnId"].clone(), Some("started"))
    );
}
