//! Catalog, session open order and committed config, close, provider/close, can_stop_runtime.

mod common;
use common::*;
use pretty_assertions::assert_eq;

fn ids(list: &Value) -> Vec<&str> {
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["id"].as_str())
        .collect()
}

/// The contract-defined part of a control: type, key, default, choice values.
fn control_shape(control: &Value) -> Value {
    let choices: Vec<&Value> = control["choices"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| &c["value"])
        .collect();
    json!({"type": control["type"], "key": control["key"], "defaultValue": control["defaultValue"], "choices": choices})
}

#[tokio::test]
async fn catalog_lists_models_modes_and_thinking_options() {
    let d = demo().await;
    let answer = d.ask(input::catalog("cat")).await;
    assert_eq!(answer.kind(), "catalog", "{answer}");
    let catalog = &answer.event["catalog"];
    assert_eq!(ids(&catalog["models"]), vec!["demo-fast", "demo-smart"]);
    assert_eq!(ids(&catalog["modes"]), vec!["ask", "auto"]);
    assert_eq!(ids(&catalog["thinkingOptions"]), vec!["off", "on"]);
    assert_eq!(catalog["defaultModel"], "demo-fast");
    assert_eq!(catalog["defaultMode"], "ask");
    assert_eq!(catalog["defaultThinkingOption"], "off");
    let auto = catalog["modes"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["id"] == "auto"))
        .expect("auto");
    assert_eq!(auto["isUnattended"], true);
    d.host.assert_invariants();
}

#[tokio::test]
async fn open_publishes_opened_config_ready_with_committed_values() {
    let d = demo().await;
    let events = d.open("s", json!({})).await;
    let kinds: Vec<&str> = events
        .iter()
        .map(Event::kind)
        .filter(|k| *k != "session.commands")
        .collect();
    assert_eq!(
        kinds,
        vec!["session.opened", "session.config", "session.ready"]
    );
    let opened = &events[0].event;
    assert_eq!(opened["restoration"], "core");
    assert_eq!(opened["cwd"], d.cwd().display().to_string());
    assert!(
        opened.get("persistence").is_none(),
        "no persistence without config.persist: {opened}"
    );
    let caps: Vec<&str> = opened["capabilities"]
        .as_array()
        .expect("caps")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for cap in caps.iter() {
        assert!(
            DEMO_CAPS.contains(cap),
            "session capability `{cap}` was not negotiated"
        );
    }
    assert!(
        caps.contains(&"session.can_stop_runtime"),
        "the demo declares can_stop_runtime per session: {caps:?}"
    );
    let config = d.config_state("s");
    assert_eq!(
        json!({"model": config["model"], "mode": config["mode"], "thinkingOption": config["thinkingOption"]}),
        json!({"model": "demo-fast", "mode": "ask", "thinkingOption": "off"})
    );
    assert_eq!(ids(&config["models"]), vec!["demo-fast", "demo-smart"]);
    assert_eq!(ids(&config["modes"]), vec!["ask", "auto"]);
    let controls: Vec<Value> = config["controls"]
        .as_array()
        .expect("controls")
        .iter()
        .map(control_shape)
        .collect();
    assert_eq!(
        controls,
        vec![
            json!({"type": "toggle", "key": "verbose", "defaultValue": false, "choices": []}),
            json!({"type": "select", "key": "style", "defaultValue": "plain", "choices": ["plain", "pirate"]}),
        ]
    );
    assert_eq!(
        config["providerOptions"],
        json!({"verbose": false, "style": "plain"})
    );
    d.host.assert_invariants();
}

#[tokio::test]
async fn open_commits_requested_values() {
    let d = demo().await;
    let patch = json!({"model": "demo-smart", "mode": "auto", "thinkingOption": "on", "providerOptions": {"style": "pirate"}});
    d.open("s", patch).await;
    let config = d.config_state("s");
    assert_eq!(
        json!({"model": config["model"], "mode": config["mode"], "thinkingOption": config["thinkingOption"], "providerOptions": config["providerOptions"]}),
        json!({"model": "demo-smart", "mode": "auto", "thinkingOption": "on", "providerOptions": {"verbose": false, "style": "pirate"}})
    );
    d.host.assert_invariants();
}

#[tokio::test]
async fn close_session_ends_everything_for_it() {
    let d = demo().await;
    d.open("s", json!({})).await;
    d.open("other", json!({})).await;
    d.host
        .run_turn(&d.conn, "s", "hello", T)
        .await
        .expect("turn");
    let answer = d.ask(input::close("close-1", "s")).await;
    assert_eq!(answer.kind(), "request.completed", "{answer}");
    let closed = d.wait(|e| e.is_for("session.closed", "s")).await;
    assert!(
        closed.event.get("error").is_none(),
        "a requested close carries no error: {closed}"
    );
    let refused = d
        .host
        .send(&d.conn, input::message("s", "late", "anyone there?"))
        .await;
    assert!(
        refused.is_err(),
        "a prompt to a closed session must be refused"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after: Vec<Event> = d
        .host
        .session_events("s")
        .into_iter()
        .filter(|e| e.seq > closed.seq)
        .collect();
    assert!(
        after.is_empty(),
        "nothing for a session after session.closed: {after:#?}"
    );
    d.host
        .run_turn(&d.conn, "other", "still alive", T)
        .await
        .expect("other session unaffected");
    d.host.assert_invariants();
}

#[tokio::test]
async fn close_during_a_running_turn_ends_the_turn_first() {
    let d = demo().await;
    d.open("s", json!({})).await;
    let (_, turn) = d.start_turn("s", "SLOW story").await;
    let answer = d.ask(input::close("close-1", "s")).await;
    assert_eq!(answer.kind(), "request.completed", "{answer}");
    let end = d
        .host
        .wait_turn_end("s", &turn, T)
        .await
        .expect("the running turn ends");
    let closed = d.wait(|e| e.is_for("session.closed", "s")).await;
    assert!(end.seq < closed.seq, "turn terminal before session.closed");
    d.host.assert_invariants();
}

#[tokio::test]
async fn provider_close_closes_every_session_and_the_connection() {
    let d = demo().await;
    d.open("a", json!({"mode": "auto"})).await;
    d.open("b", json!({})).await;
    d.prompt("a", "run `sleep 30`").await;
    d.wait(|e| e.is_for("timeline.item", "a") && e.item_type() == Some("tool_call"))
        .await;
    let procs = wait_descendant(&d.host, "sleep 30").await;
    d.close_connection_in_time().await;
    let alive = agent_bridge_conformance::procs::survivors(&procs);
    assert!(
        alive.is_empty(),
        "provider/close answered while processes still run: {alive:#?}"
    );
    assert_code(
        d.host.send(&d.conn, input::catalog("late")).await,
        -32002,
        "send on a closed connection",
    );
    // An id that was never issued is unknown, not closed, however it is spelled.
    let n = d.conn.trim_start_matches('c');
    for never in [
        format!("c0{n}"),
        format!("c+{n}"),
        format!("C{n}"),
        format!(" c{n}"),
        format!("c{n} "),
        format!("c{n}.0"),
        "c0".to_string(),
        "c18446744073709551617".to_string(),
    ] {
        assert_code(
            d.host.send(&never, input::catalog("never")).await,
            -32602,
            &format!("send on `{never}`, a connection id that was never issued"),
        );
        assert_code(
            d.host.close_connection(&never).await,
            -32602,
            &format!("close of `{never}`"),
        );
    }
    let (conn2, _) = d
        .host
        .connect(DEMO, &DEMO_CAPS, None)
        .await
        .expect("a new connection");
    d.host
        .open_session(&conn2, input::open("o2", "a", d.config(json!({}))))
        .await
        .expect("session ids of the closed connection are free again");
    d.host
        .run_turn(&conn2, "a", "hello again", T)
        .await
        .expect("turn on the new connection");
    d.host.assert_invariants();
}

#[tokio::test]
async fn can_stop_runtime_is_false_while_a_turn_runs_and_true_when_idle() {
    let d = demo().await;
    d.open("s", json!({})).await;
    let idle = d.ask(input::can_stop_runtime("q1", "s")).await;
    assert_eq!(idle.kind(), "session.can_stop_runtime", "{idle}");
    assert_eq!(
        idle.event,
        json!({"type": "session.can_stop_runtime", "requestId": "q1", "sessionId": "s", "canStop": true})
    );
    let (_, turn) = d.start_turn("s", "SLOW story").await;
    let busy = d.ask(input::can_stop_runtime("q2", "s")).await;
    assert_eq!(
        busy.event,
        json!({"type": "session.can_stop_runtime", "requestId": "q2", "sessionId": "s", "canStop": false})
    );
    d.interrupt("s", &turn).await;
    let after = d.ask(input::can_stop_runtime("q3", "s")).await;
    assert_eq!(after.event["canStop"], true, "{after}");
    d.host.assert_invariants();
}

#[tokio::test]
async fn sessions_of_two_connections_are_independent() {
    let d = demo().await;
    let (conn2, _) = d
        .host
        .connect(DEMO, &DEMO_CAPS, None)
        .await
        .expect("second connection");
    d.open("s", json!({})).await;
    d.host
        .open_session(&conn2, input::open("o2", "s", d.config(json!({}))))
        .await
        .expect("the same session id on another connection");
    let a = d
        .host
        .run_turn(&d.conn, "s", "from one", T)
        .await
        .expect("turn on conn 1");
    assert!(a.events.iter().all(|e| e.connection_id == d.conn));
    let b = d
        .host
        .run_turn(&conn2, "s", "from two", T)
        .await
        .expect("turn on conn 2");
    assert!(b.events.iter().all(|e| e.connection_id == conn2));
    d.host.assert_invariants();
}
