//! session.configure: committed config before request.completed, all-or-nothing changes,
//! `null` resets a providerOptions key.

mod common;
use common::*;
use pretty_assertions::assert_eq;

/// Sends a configure; returns (answer, the session.config events published for it).
async fn configure(d: &Demo, sid: &str, changes: Value) -> (Event, Vec<Event>) {
    let rid = d.host.unique("cfg");
    let before = d.host.events().len();
    let answer = d.ask(input::configure(&rid, sid, changes)).await;
    let configs = d
        .host
        .events()
        .into_iter()
        .skip(before)
        .filter(|e| e.is_for("session.config", sid) && e.seq < answer.seq)
        .collect();
    (answer, configs)
}

fn selected(config: &Value) -> Value {
    json!({
        "model": config["model"], "mode": config["mode"], "thinkingOption": config["thinkingOption"],
        "providerOptions": config["providerOptions"],
    })
}

fn defaults() -> Value {
    json!({"model": "demo-fast", "mode": "ask", "thinkingOption": "off", "providerOptions": {"verbose": false, "style": "plain"}})
}

#[tokio::test]
async fn model_change_publishes_config_before_completion() {
    let d = demo().await;
    d.open("s", json!({})).await;
    let (answer, configs) = configure(&d, "s", json!({"model": "demo-smart"})).await;
    assert_eq!(answer.kind(), "request.completed", "{answer}");
    let last = configs
        .last()
        .expect("a session.config before request.completed");
    let mut expected = defaults();
    expected["model"] = json!("demo-smart");
    assert_eq!(selected(&last.event["config"]), expected);
    d.host.assert_invariants();
}

#[tokio::test]
async fn mode_and_thinking_changes_are_committed() {
    let d = demo().await;
    d.open("s", json!({})).await;
    let (answer, _) = configure(&d, "s", json!({"mode": "auto", "thinkingOption": "on"})).await;
    assert_eq!(answer.kind(), "request.completed", "{answer}");
    let mut expected = defaults();
    expected["mode"] = json!("auto");
    expected["thinkingOption"] = json!("on");
    assert_eq!(selected(&d.config_state("s")), expected);
    // The committed mode is the one in force: auto runs a command without asking.
    let run = d
        .host
        .run_turn(&d.conn, "s", "run `echo configured`", T)
        .await
        .expect("turn");
    assert_eq!(run.state(), "completed");
    assert!(
        !run.events.iter().any(|e| e.is("session.permission")),
        "mode auto asks nothing"
    );
    d.host.assert_invariants();
}

#[tokio::test]
async fn unknown_model_fails_and_leaves_the_config_unchanged() {
    let d = demo().await;
    d.open("s", json!({})).await;
    let (answer, _) = configure(&d, "s", json!({"model": "demo-genius"})).await;
    assert_eq!(answer.kind(), "request.failed", "{answer}");
    assert!(
        !answer.event["error"]["message"]
            .as_str()
            .unwrap_or("")
            .is_empty(),
        "{answer}"
    );
    assert_eq!(selected(&d.config_state("s")), defaults());
    // A later valid change shows the model was not touched.
    let (ok, _) = configure(&d, "s", json!({"thinkingOption": "on"})).await;
    assert_eq!(ok.kind(), "request.completed", "{ok}");
    assert_eq!(d.config_state("s")["model"], "demo-fast");
    d.host.assert_invariants();
}

#[tokio::test]
async fn provider_options_change_all_or_nothing() {
    let d = demo().await;
    d.open("s", json!({})).await;
    let (answer, _) = configure(
        &d,
        "s",
        json!({"providerOptions": {"verbose": true, "bogus": 1}}),
    )
    .await;
    assert_eq!(
        answer.kind(),
        "request.failed",
        "an unknown key fails the whole change: {answer}"
    );
    let (answer, _) = configure(
        &d,
        "s",
        json!({"providerOptions": {"verbose": true, "style": "klingon"}}),
    )
    .await;
    assert_eq!(
        answer.kind(),
        "request.failed",
        "an invalid choice fails the whole change: {answer}"
    );
    let (answer, _) = configure(
        &d,
        "s",
        json!({"model": "demo-smart", "providerOptions": {"nope": true}}),
    )
    .await;
    assert_eq!(answer.kind(), "request.failed", "{answer}");
    assert_eq!(
        selected(&d.config_state("s")),
        defaults(),
        "nothing of a refused change is applied"
    );
    let (ok, _) = configure(&d, "s", json!({"thinkingOption": "on"})).await;
    assert_eq!(ok.kind(), "request.completed", "{ok}");
    let mut expected = defaults();
    expected["thinkingOption"] = json!("on");
    assert_eq!(
        selected(&d.config_state("s")),
        expected,
        "the refused changes left no trace"
    );
    d.host.assert_invariants();
}

#[tokio::test]
async fn provider_options_apply_and_null_resets_to_default() {
    let d = demo().await;
    d.open("s", json!({})).await;
    let (answer, configs) = configure(
        &d,
        "s",
        json!({"providerOptions": {"verbose": true, "style": "pirate"}}),
    )
    .await;
    assert_eq!(answer.kind(), "request.completed", "{answer}");
    let last = configs
        .last()
        .expect("session.config before request.completed");
    assert_eq!(
        last.event["config"]["providerOptions"],
        json!({"verbose": true, "style": "pirate"})
    );
    let (answer, configs) = configure(&d, "s", json!({"providerOptions": {"style": null}})).await;
    assert_eq!(answer.kind(), "request.completed", "{answer}");
    let last = configs
        .last()
        .expect("session.config before request.completed");
    assert_eq!(
        last.event["config"]["providerOptions"],
        json!({"verbose": true, "style": "plain"}),
        "null resets only that key"
    );
    let (answer, _) = configure(&d, "s", json!({"providerOptions": {"verbose": null}})).await;
    assert_eq!(answer.kind(), "request.completed", "{answer}");
    assert_eq!(
        d.config_state("s")["providerOptions"],
        json!({"verbose": false, "style": "plain"})
    );
    d.host.assert_invariants();
}

#[tokio::test]
async fn configure_during_a_turn_is_answered() {
    let d = demo().await;
    d.open("s", json!({})).await;
    let (_, turn) = d.start_turn("s", "SLOW story").await;
    let (answer, _) = configure(&d, "s", json!({"providerOptions": {"verbose": true}})).await;
    assert!(
        matches!(answer.kind(), "request.completed" | "request.failed"),
        "{answer}"
    );
    d.interrupt("s", &turn).await;
    d.host.assert_invariants();
}
