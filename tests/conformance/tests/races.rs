//! Races and concurrency: many sessions at once, prompts in quick succession, interrupts that
//! race a turn's end, inputs with nothing to act on. Every case must keep the invariants
//! (checked continuously by the host).

mod common;
use common::*;

fn result_count(host: &BridgeHost, cmid: &str) -> usize {
    host.events()
        .iter()
        .filter(|e| {
            e.is("session.prompt_result")
                && e.at("/clientMessageId").and_then(Value::as_str) == Some(cmid)
        })
        .count()
}

/// Waits until every started turn of `sid` has ended.
async fn settle(d: &Demo, sid: &str) {
    let started: Vec<String> = d
        .host
        .session_events(sid)
        .iter()
        .filter(|e| e.is("session.turn") && e.turn_state() == Some("started"))
        .filter_map(|e| e.turn_id().map(str::to_string))
        .collect();
    for turn in started {
        d.host
            .wait_turn_end(sid, &turn, T)
            .await
            .expect("every started turn ends");
    }
}

#[tokio::test]
async fn many_sessions_run_turns_concurrently() {
    let d = demo().await;
    let sids: Vec<String> = (0..6).map(|i| format!("par-{i}")).collect();
    for sid in &sids {
        d.open(sid, json!({"mode": "auto"})).await;
    }
    let d = &d;
    let runs = sids.iter().map(|sid| async move {
        for round in 0..3 {
            let text = format!("round {round} of {sid} run `echo {sid}-{round}`");
            let run = d.host.run_turn(&d.conn, sid, &text, T).await.expect("turn");
            assert_eq!(run.state(), "completed", "{}", run.end);
        }
    });
    futures_util::future::join_all(runs).await;
    for sid in &sids {
        let turns = d
            .host
            .session_events(sid)
            .iter()
            .filter(|e| e.is("session.turn") && e.turn_state() == Some("completed"))
            .count();
        assert_eq!(turns, 3, "{sid}");
    }
    d.host.assert_invariants();
}

#[tokio::test]
async fn prompts_in_quick_succession_each_get_exactly_one_result() {
    let d = demo().await;
    d.open("s", json!({})).await;
    let mut cmids = Vec::new();
    for i in 0..5 {
        cmids.push(d.prompt("s", &format!("quick {i}")).await);
    }
    for cmid in &cmids {
        d.host
            .prompt_result("s", cmid, T)
            .await
            .expect("a result for every prompt");
    }
    settle(&d, "s").await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    for cmid in &cmids {
        assert_eq!(result_count(&d.host, cmid), 1, "{cmid}");
    }
    d.host.assert_invariants();
}

#[tokio::test]
async fn interrupt_racing_the_end_of_a_turn() {
    let d = demo().await;
    d.open("s", json!({})).await;
    for i in 0..5 {
        let cmid = d.prompt("s", &format!("short {i}")).await;
        let rid = d.host.unique("int");
        d.send(input::interrupt(&rid, "s")).await;
        d.host.prompt_result("s", &cmid, T).await.expect("result");
        let answer = d
            .host
            .wait_answer(&rid, T)
            .await
            .expect("the interrupt is answered");
        assert!(
            matches!(answer.kind(), "request.completed" | "request.failed"),
            "{answer}"
        );
        settle(&d, "s").await;
    }
    d.host.assert_invariants();
}

#[tokio::test]
async fn inputs_with_nothing_to_act_on_are_still_answered() {
    let d = demo().await;
    d.open("s", json!({})).await;
    let answer = d.ask(input::interrupt("idle-int", "s")).await;
    assert!(
        matches!(answer.kind(), "request.completed" | "request.failed"),
        "{answer}"
    );
    let steer = d.host.unique("steer");
    d.send(input::steer("s", &steer, "nothing to steer")).await;
    let result = d
        .host
        .prompt_result("s", &steer, T)
        .await
        .expect("a steer without a turn gets a result");
    if result["type"] == "turn" {
        settle(&d, "s").await;
    }
    let unknown = d.host.unique("cmd");
    d.send(input::command("s", &unknown, "no-such-command", ""))
        .await;
    d.host
        .prompt_result("s", &unknown, T)
        .await
        .expect("an unknown command gets a result");
    settle(&d, "s").await;
    d.host.assert_invariants();
}

#[tokio::test]
async fn close_with_a_pending_permission() {
    let d = demo().await;
    d.open("s", json!({"mode": "ask"})).await;
    let file = d.path("never");
    let (_, turn) = d
        .start_turn("s", &format!("run `touch {}`", file.display()))
        .await;
    d.wait(|e| e.is_for("session.permission", "s")).await;
    let answer = d.ask(input::close("close", "s")).await;
    assert_eq!(answer.kind(), "request.completed", "{answer}");
    let end = d
        .host
        .wait_turn_end("s", &turn, T)
        .await
        .expect("the turn ends before the session closes");
    let closed = d.wait(|e| e.is_for("session.closed", "s")).await;
    assert!(end.seq < closed.seq);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!file.exists(), "the command never ran");
    d.host.assert_invariants();
}

#[tokio::test]
async fn provider_close_during_turns_and_permissions() {
    let d = demo().await;
    d.open("slow", json!({})).await;
    d.open("asking", json!({"mode": "ask"})).await;
    d.start_turn("slow", "SLOW story").await;
    d.start_turn("asking", "run `echo hi`").await;
    d.wait(|e| e.is_for("session.permission", "asking")).await;
    d.close_connection_in_time().await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    d.host.assert_invariants();
}
