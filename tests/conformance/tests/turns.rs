//! Turns: a full turn, one prompt result per prompt, busy prompts, interrupt, steer, failure,
//! commands, and a crashing runtime.

mod common;
use common::*;
use pretty_assertions::assert_eq;

fn results_for<'a>(events: &'a [Event], cmid: &str) -> Vec<&'a Event> {
    events
        .iter()
        .filter(|e| {
            e.is("session.prompt_result")
                && e.at("/clientMessageId").and_then(Value::as_str) == Some(cmid)
        })
        .collect()
}

#[tokio::test]
async fn a_full_turn_streams_a_reply_in_order() {
    let d = demo().await;
    d.open("s", json!({})).await;
    let run = d
        .host
        .run_turn(&d.conn, "s", "hello conformance", T)
        .await
        .expect("turn");
    assert_eq!(run.state(), "completed", "{}", run.end);
    let all = d.host.session_events("s");
    let user = all
        .iter()
        .find(|e| e.item_type() == Some("user_message"))
        .expect("the user message is published");
    assert_eq!(
        user.item().map(|i| &i["clientMessageId"]),
        Some(&json!(run.client_message_id))
    );
    assert_eq!(
        user.item().map(|i| &i["text"]),
        Some(&json!("hello conformance"))
    );
    let result = results_for(&all, &run.client_message_id);
    assert_eq!(result.len(), 1, "exactly one prompt_result");
    let started = all
        .iter()
        .find(|e| e.is("session.turn") && e.turn_state() == Some("started"))
        .expect("turn started");
    assert!(
        user.seq < result[0].seq && result[0].seq < started.seq,
        "user_message -> prompt_result -> started"
    );
    let assistant_id = format!("assistant:{}", run.turn_id);
    let snapshots: Vec<&str> = run
        .events
        .iter()
        .filter(|e| e.item_id() == Some(assistant_id.as_str()))
        .filter_map(|e| e.item().and_then(|i| i["text"].as_str()))
        .collect();
    assert!(
        !snapshots.is_empty(),
        "an assistant_message `{assistant_id}`: {:#?}",
        run.events
    );
    for pair in snapshots.windows(2) {
        assert!(
            pair[1].starts_with(pair[0]),
            "snapshots grow: {:?} then {:?}",
            pair[0],
            pair[1]
        );
    }
    let last = snapshots.last().copied().unwrap_or("");
    assert!(
        last.contains("You said: hello conformance"),
        "reply: {last}"
    );
    let assistant_seq = run
        .events
        .iter()
        .filter(|e| e.item_id() == Some(&assistant_id))
        .map(|e| e.seq);
    assert!(
        assistant_seq
            .clone()
            .all(|seq| seq > started.seq && seq < run.end.seq),
        "reply inside the turn"
    );
    d.host.assert_invariants();
}

#[tokio::test]
async fn consecutive_turns_each_get_one_result() {
    let d = demo().await;
    d.open("s", json!({})).await;
    let mut turns = Vec::new();
    for text in ["one", "two", "three"] {
        let run = d.host.run_turn(&d.conn, "s", text, T).await.expect("turn");
        assert_eq!(run.state(), "completed");
        turns.push(run.turn_id.clone());
        assert_eq!(
            results_for(&d.host.events(), &run.client_message_id).len(),
            1
        );
    }
    turns.dedup();
    assert_eq!(turns.len(), 3, "each turn has its own id");
    d.host.assert_invariants();
}

#[tokio::test]
async fn a_prompt_while_a_turn_runs_gets_a_failed_result_and_the_turn_goes_on() {
    let d = demo().await;
    d.open("s", json!({})).await;
    let (_, turn) = d.start_turn("s", "SLOW story").await;
    let second = d.prompt("s", "are you busy?").await;
    let result = d
        .host
        .prompt_result("s", &second, T)
        .await
        .expect("the busy prompt gets a result");
    assert_eq!(result["type"], "failed", "{result}");
    let message = result["error"]["message"].as_str().unwrap_or("");
    assert!(!message.trim().is_empty(), "a clear error: {result}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let ended = d.host.session_events("s").into_iter().any(|e| {
        e.is("session.turn") && e.turn_id() == Some(&turn) && e.turn_state() != Some("started")
    });
    assert!(
        !ended,
        "the running turn is unaffected by the refused prompt"
    );
    d.interrupt("s", &turn).await;
    assert_eq!(results_for(&d.host.events(), &second).len(), 1);
    d.host.assert_invariants();
}

#[tokio::test]
async fn interrupt_cancels_a_slow_turn() {
    let d = demo().await;
    d.open("s", json!({})).await;
    let (_, turn) = d.start_turn("s", "SLOW story").await;
    let assistant = format!("assistant:{turn}");
    d.wait(|e| e.item_id() == Some(assistant.as_str())).await;
    let asked = std::time::Instant::now();
    d.interrupt("s", &turn).await;
    assert!(
        asked.elapsed() < Duration::from_secs(2),
        "interrupt took {:?}",
        asked.elapsed()
    );
    let run = d
        .host
        .run_turn(&d.conn, "s", "after the interrupt", T)
        .await
        .expect("next turn");
    assert_eq!(run.state(), "completed");
    d.host.assert_invariants();
}

#[tokio::test]
async fn steer_joins_the_active_turn() {
    let d = demo().await;
    d.open("s", json!({})).await;
    let (_, turn) = d.start_turn("s", "SLOW story").await;
    let cmid = d.host.unique("steer");
    d.send(input::steer("s", &cmid, "and add a dragon")).await;
    let result = d
        .host
        .prompt_result("s", &cmid, T)
        .await
        .expect("steer result");
    assert_eq!(result, json!({"type": "steer", "turnId": turn}));
    d.interrupt("s", &turn).await;
    assert_eq!(results_for(&d.host.events(), &cmid).len(), 1);
    d.host.assert_invariants();
}

#[tokio::test]
async fn fail_ends_the_turn_as_failed() {
    let d = demo().await;
    d.open("s", json!({})).await;
    let run = d
        .host
        .run_turn(&d.conn, "s", "please FAIL now", T)
        .await
        .expect("turn");
    assert_eq!(run.state(), "failed", "{}", run.end);
    let message = run.end.event["error"]["message"].as_str().unwrap_or("");
    assert!(!message.is_empty(), "a failed turn says why: {}", run.end);
    d.host
        .run_turn(&d.conn, "s", "and again", T)
        .await
        .expect("the session survives a failed turn");
    d.host.assert_invariants();
}

#[tokio::test]
async fn echo_command_starts_a_turn_replying_with_its_arguments() {
    let d = demo().await;
    d.open("s", json!({})).await;
    let cmid = d.host.unique("cmd");
    d.send(input::command("s", &cmid, "echo", "ahoy there"))
        .await;
    let result = d
        .host
        .prompt_result("s", &cmid, T)
        .await
        .expect("command result");
    assert_eq!(result["type"], "turn", "{result}");
    let turn = result["turnId"].as_str().expect("turnId").to_string();
    let end = d.host.wait_turn_end("s", &turn, T).await.expect("turn end");
    assert_eq!(end.turn_state(), Some("completed"));
    let reply = d
        .host
        .timeline("s")
        .into_iter()
        .find(|i| i["id"] == format!("assistant:{turn}"))
        .expect("assistant reply");
    assert!(
        reply["text"].as_str().unwrap_or("").contains("ahoy there"),
        "{reply}"
    );
    d.host.assert_invariants();
}

#[tokio::test]
async fn a_crashing_runtime_fails_its_turn_restarts_with_the_next_prompt_and_spares_other_sessions()
{
    let d = demo().await;
    d.open("doomed", json!({})).await;
    d.open("fine", json!({})).await;
    let cmid = d.prompt("doomed", "CRASH please").await;
    let result = d
        .host
        .prompt_result("doomed", &cmid, T)
        .await
        .expect("prompt result");
    assert_eq!(
        result["type"], "turn",
        "CRASH starts a turn that then fails: {result}"
    );
    let turn = result["turnId"].as_str().expect("turnId");
    let end = d
        .host
        .wait_turn_end("doomed", turn, T)
        .await
        .expect("the crashed turn ends");
    assert_eq!(end.turn_state(), Some("failed"), "{end}");
    assert!(
        end.event["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("crashed"),
        "the failure says why: {end}"
    );
    let run = d
        .host
        .run_turn(&d.conn, "fine", "are you ok?", T)
        .await
        .expect("other session works");
    assert_eq!(run.state(), "completed");
    // The crashed session restarts with its next prompt, says so, and goes on.
    let again = d
        .host
        .run_turn(&d.conn, "doomed", "are you back?", T)
        .await
        .expect("the crashed session takes a prompt");
    assert_eq!(again.state(), "completed", "{:?}", again.end);
    let events = d.host.session_events("doomed");
    let notice = events
        .iter()
        .find(|e| e.is("session.notice"))
        .unwrap_or_else(|| panic!("a notice says the agent restarted: {events:?}"));
    assert_eq!(notice.event["notice"]["severity"], "warning", "{notice}");
    assert!(
        !events.iter().any(|e| e.is("session.runtime_failed")),
        "{events:?}"
    );
    d.host.assert_invariants();
}

#[tokio::test]
async fn a_runtime_that_crashes_three_times_in_a_row_is_given_up() {
    let d = demo().await;
    d.open("looping", json!({})).await;
    for round in 0..3 {
        let run = d
            .host
            .run_turn(&d.conn, "looping", "CRASH again", T)
            .await
            .expect("a crashing turn ends");
        assert_eq!(run.state(), "failed", "round {round}: {:?}", run.end);
    }
    let failed = d
        .wait(|e| e.is_for("session.runtime_failed", "looping"))
        .await;
    assert_eq!(failed.event["error"]["code"], "crash_loop", "{failed}");
    let cmid = d.prompt("looping", "hello?").await;
    let result = d
        .host
        .prompt_result("looping", &cmid, T)
        .await
        .expect("prompt result");
    assert_eq!(result["type"], "failed", "{result}");
    d.host.assert_invariants();
}
