//! One agent process for several sessions, against a real process: an echo agent (`sh`: it
//! answers `initialize`, then writes back every line it reads). What the test sends as a
//! notification comes back as the agent's notification; a call comes back as the agent's
//! request, whose answer (by the member it was routed to) comes back as the call's answer.

mod echo_agent;

use echo_agent::*;

use agent_bridge_core::lifecycle::shared::{ByParam, SharedKey, SharedProcesses};
use agent_bridge_core::lifecycle::EventTarget;
use agent_bridge_core::rpc::PeerError;
use agent_bridge_core::{AgentEvent, ProcessScope, SessionSink, SESSION_QUEUE};
use agent_bridge_protocol::ErrorCode;
use pretty_assertions::assert_eq;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

#[tokio::test]
async fn messages_go_to_their_session_and_process_wide_ones_to_every_session() {
    let pool = SharedProcesses::new(Duration::ZERO, STOP);
    let mut a = join(&pool, &[], echo("a"), "thread-a").await;
    let mut b = join(&pool, &[], echo("b"), "thread-b").await;
    assert_eq!(pid(&a), pid(&b), "one process");
    assert_eq!(a.member.process().members(), 2);
    let rpc = a.member.rpc().clone();
    for (session, n) in [("thread-b", 1), ("thread-a", 2), ("thread-b", 3)] {
        rpc.notify("said", Some(&json!({"sessionId": session, "n": n})))
            .await
            .expect("sent");
    }
    rpc.notify("warned", Some(&json!({"n": 4})))
        .await
        .expect("sent");
    assert_eq!(notice(&mut a.rx).await, "a:said:2");
    assert_eq!(notice(&mut a.rx).await, "a:warned:4");
    assert_eq!(notice(&mut b.rx).await, "b:said:1");
    assert_eq!(notice(&mut b.rx).await, "b:said:3");
    assert_eq!(notice(&mut b.rx).await, "b:warned:4");

    // Requests are answered by their session; one of no session is refused.
    let by = |s: &str| json!({"sessionId": s});
    assert_eq!(
        rpc.call("ask", by("thread-b")).await,
        Ok(json!({"by": "b"}))
    );
    assert_eq!(
        rpc.call("ask", by("thread-a")).await,
        Ok(json!({"by": "a"}))
    );
    match rpc.call("ask", by("thread-z")).await {
        Err(PeerError::Rpc { error, .. }) => assert_eq!(error.code, -32601),
        other => panic!("refused: {other:?}"),
    }
    a.member.leave().await;
    b.member.leave().await;
}

#[tokio::test]
async fn a_session_nobody_drains_does_not_hold_up_another() {
    let pool = SharedProcesses::new(Duration::ZERO, STOP);
    let a = join(&pool, &[], echo("a"), "thread-a").await;
    let mut b = join(&pool, &[], echo("b"), "thread-b").await;
    let rpc = a.member.rpc().clone();
    // More than a's sink holds, less than its sink and queue: a's task waits, the reader not.
    for n in 0..200 {
        rpc.notify("said", Some(&json!({"sessionId": "thread-a", "n": n})))
            .await
            .expect("sent");
    }
    rpc.notify("said", Some(&json!({"sessionId": "thread-b", "n": 0})))
        .await
        .expect("sent");
    assert_eq!(notice(&mut b.rx).await, "b:said:0");
    // And a call of b is answered meanwhile.
    let answer = rpc.call("ask", json!({"sessionId": "thread-b"})).await;
    assert_eq!(answer, Ok(json!({"by": "b"})));
    let mut a = a;
    for n in 0..200 {
        assert_eq!(notice(&mut a.rx).await, format!("a:said:{n}"));
    }
    a.member.leave().await;
    b.member.leave().await;
}

#[tokio::test]
async fn a_sub_agent_thread_goes_to_the_session_that_owns_it() {
    let pool = SharedProcesses::new(Duration::ZERO, STOP);
    let a = Echo {
        name: "a",
        owns: Some("child-of-a"),
    };
    let mut a = join(&pool, &[], a, "thread-a").await;
    let mut b = join(&pool, &[], echo("b"), "thread-b").await;
    let rpc = b.member.rpc().clone();
    rpc.notify("said", Some(&json!({"sessionId": "child-of-a", "n": 1})))
        .await
        .expect("sent");
    rpc.notify("said", Some(&json!({"sessionId": "thread-b", "n": 2})))
        .await
        .expect("sent");
    assert_eq!(notice(&mut a.rx).await, "a:said:1");
    assert_eq!(notice(&mut b.rx).await, "b:said:2");
    // A released thread is nobody's.
    b.member.release("thread-b");
    rpc.notify("said", Some(&json!({"sessionId": "thread-b", "n": 3})))
        .await
        .expect("sent");
    rpc.notify("said", Some(&json!({"n": 4})))
        .await
        .expect("sent");
    assert_eq!(notice(&mut b.rx).await, "b:said:4");
    a.member.leave().await;
    b.member.leave().await;
}

#[tokio::test]
async fn a_session_still_opening_hears_what_nobody_claimed() {
    let pool = SharedProcesses::new(Duration::ZERO, STOP);
    let mut a = join(&pool, &[], echo("a"), "thread-a").await;
    let (sink, mut opening_rx) = SessionSink::channel();
    let spec = spec(&[]);
    let opening = pool
        .join(
            SharedKey::of(&spec),
            Arc::new(ByParam("sessionId")),
            |inbound| start_echo(spec.clone(), inbound),
            Arc::new(echo("o")),
            EventTarget::new(Some(sink)),
            &ProcessScope::default(),
        )
        .await
        .expect("joined");
    let rpc = a.member.rpc().clone();
    let say = |session: &str, n: u32| json!({"sessionId": session, "n": n});
    rpc.notify("said", Some(&say("thread-new", 1)))
        .await
        .expect("sent");
    rpc.notify("said", Some(&say("thread-a", 2)))
        .await
        .expect("sent");
    assert_eq!(notice(&mut opening_rx).await, "o:said:1");
    assert_eq!(notice(&mut a.rx).await, "a:said:2");
    // Once it knows its own, it hears only that.
    opening.claim("thread-new");
    rpc.notify("said", Some(&say("thread-other", 3)))
        .await
        .expect("sent");
    rpc.notify("said", Some(&say("thread-new", 4)))
        .await
        .expect("sent");
    assert_eq!(notice(&mut opening_rx).await, "o:said:4");
    opening.leave().await;
    a.member.leave().await;
}

#[tokio::test]
async fn another_environment_gets_another_process() {
    let pool = SharedProcesses::new(Duration::ZERO, STOP);
    let a = join(&pool, &[("X", "1")], echo("a"), "thread-a").await;
    let b = join(&pool, &[("X", "2")], echo("b"), "thread-b").await;
    let c = join(&pool, &[("X", "1")], echo("c"), "thread-c").await;
    assert_ne!(pid(&a), pid(&b));
    assert_eq!(pid(&a), pid(&c));
    for s in [a, b, c] {
        s.member.leave().await;
    }
}

#[tokio::test]
async fn the_last_session_leaving_stops_the_process_and_a_left_one_hears_nothing() {
    let pool = SharedProcesses::new(Duration::ZERO, STOP);
    let mut a = join(&pool, &[], echo("a"), "thread-a").await;
    let b = join(&pool, &[], echo("b"), "thread-b").await;
    let process = pid(&a);
    b.member.leave().await;
    assert!(alive(process), "a session is left");
    let rpc = a.member.rpc().clone();
    rpc.notify("said", Some(&json!({"n": 1})))
        .await
        .expect("sent");
    assert_eq!(notice(&mut a.rx).await, "a:said:1");
    a.member.leave().await;
    assert!(
        !alive(process),
        "the close of the last session waits for the process"
    );
    assert!(
        next_or_closed(&mut a.rx).await.is_none(),
        "nothing after leaving"
    );
}

/// The next event, or `None` once every sender is gone.
async fn next_or_closed(rx: &mut mpsc::Receiver<AgentEvent>) -> Option<AgentEvent> {
    tokio::time::timeout(WAIT, rx.recv())
        .await
        .expect("in time")
}

#[tokio::test]
async fn an_idle_process_waits_out_its_grace_for_a_new_session() {
    let pool = SharedProcesses::new(Duration::from_secs(600), STOP);
    let a = join(&pool, &[], echo("a"), "thread-a").await;
    let first = pid(&a);
    a.member.leave().await;
    assert!(alive(first), "kept for the grace");
    let b = join(&pool, &[], echo("b"), "thread-b").await;
    assert_eq!(pid(&b), first, "the idle process takes the next session");
    drop(b);
}

#[tokio::test]
async fn a_dead_process_fails_every_live_session_once_and_restarts_once() {
    let pool = SharedProcesses::new(Duration::ZERO, STOP);
    let mut a = join(&pool, &[], echo("a"), "thread-a").await;
    let mut b = join(&pool, &[], echo("b"), "thread-b").await;
    let c = join(&pool, &[], echo("c"), "thread-c").await;
    // c is closing: the death is not its failure.
    c.member.liveness().close();
    let dead = pid(&a);
    // SAFETY: kill(2) on the pid of a process this test started.
    unsafe {
        libc::kill(dead as i32, libc::SIGKILL);
    }
    for s in [&mut a, &mut b] {
        match next(&mut s.rx).await {
            AgentEvent::RuntimeFailed(e) => {
                assert_eq!(e.code, Some(ErrorCode::RuntimeExited));
                assert!(
                    e.message.contains("echo agent exited unexpectedly"),
                    "{e:?}"
                );
            }
            other => panic!("a runtime failure: {other:?}"),
        }
    }
    wait_gone(dead).await;
    // Both restart at once: one new process for both.
    let (a2, b2) = tokio::join!(
        async {
            a.member.leave().await;
            join(&pool, &[], echo("a"), "thread-a").await
        },
        async {
            b.member.leave().await;
            join(&pool, &[], echo("b"), "thread-b").await
        }
    );
    assert_ne!(pid(&a2), dead);
    assert_eq!(pid(&a2), pid(&b2), "restarted once");
    let answer = a2
        .member
        .rpc()
        .call("ask", json!({"sessionId": "thread-b"}))
        .await;
    assert_eq!(answer, Ok(json!({"by": "b"})));
    c.member.leave().await;
    a2.member.leave().await;
    b2.member.leave().await;
}

#[tokio::test]
async fn settling_waits_for_what_the_session_was_told_before_an_answer() {
    let pool = SharedProcesses::new(Duration::ZERO, STOP);
    let mut a = join(&pool, &[], echo("a"), "thread-a").await;
    let b = join(&pool, &[], echo("b"), "thread-b").await;
    let rpc = a.member.rpc().clone();
    // More than a's sink holds: a's task waits for room.
    for n in 0..100 {
        rpc.notify("said", Some(&json!({"sessionId": "thread-a", "n": n})))
            .await
            .expect("sent");
    }
    // An answer overtakes them (it is not a's to translate) ...
    let answer = rpc.call("ask", json!({"sessionId": "thread-b"})).await;
    assert_eq!(answer, Ok(json!({"by": "b"})));
    // ... but a's settle does not: it waits until every one is in a's sink (which holds
    // SESSION_QUEUE of them).
    let settle = a.member.settle();
    let settled = tokio::spawn(async move { settle.wait().await });
    for n in 0..100 {
        if 100 - n > SESSION_QUEUE {
            assert!(!settled.is_finished(), "settled with {n} events taken");
        }
        assert_eq!(notice(&mut a.rx).await, format!("a:said:{n}"));
    }
    tokio::time::timeout(WAIT, settled)
        .await
        .expect("settled in time")
        .expect("the task");
    a.member.leave().await;
    b.member.leave().await;
}

#[tokio::test]
async fn the_session_leaving_last_holds_the_process_in_its_scope_until_it_is_gone() {
    let pool = SharedProcesses::new(Duration::ZERO, STOP);
    let (scope_a, scope_b) = (ProcessScope::default(), ProcessScope::default());
    let a = join_in(&pool, &[], echo("a"), "thread-a", &scope_a).await;
    let b = join_in(&pool, &[], echo("b"), "thread-b", &scope_b).await;
    let process = pid(&a);
    assert!(
        scope_a.live().is_empty(),
        "started, the process is the pool's"
    );
    b.member.leave().await;
    assert!(scope_b.live().is_empty(), "not b's: a is still on it");
    // a is dropped (its open cancelled, say): a close of it waits for the process.
    drop(a);
    assert_eq!(scope_a.live(), vec![process]);
    assert!(scope_a.wait_gone(WAIT).await);
    assert!(!alive(process));
}

#[tokio::test]
async fn sessions_open_one_at_a_time_on_a_process() {
    let pool = SharedProcesses::new(Duration::ZERO, STOP);
    let spec = spec(&[]);
    let join_unclaimed = |name: &'static str| {
        let (pool, spec) = (pool.clone(), spec.clone());
        async move {
            let (sink, rx) = SessionSink::channel();
            let member = pool
                .join(
                    SharedKey::of(&spec),
                    Arc::new(ByParam("sessionId")),
                    |inbound| start_echo(spec.clone(), inbound),
                    Arc::new(echo(name)),
                    EventTarget::new(Some(sink)),
                    &ProcessScope::default(),
                )
                .await
                .expect("joined");
            Session { member, rx }
        }
    };
    let mut first = join_unclaimed("first").await;
    let second = tokio::spawn(join_unclaimed("second"));
    // What the agent says about the session being opened is the first's alone.
    let rpc = first.member.rpc().clone();
    rpc.notify("said", Some(&json!({"sessionId": "thread-1", "n": 1})))
        .await
        .expect("sent");
    assert_eq!(notice(&mut first.rx).await, "first:said:1");
    assert!(
        !second.is_finished(),
        "the second opens once the first knows its own"
    );
    first.member.claim("thread-1");
    let mut second = tokio::time::timeout(WAIT, second)
        .await
        .expect("in time")
        .expect("the task");
    rpc.notify("said", Some(&json!({"sessionId": "thread-2", "n": 2})))
        .await
        .expect("sent");
    assert_eq!(notice(&mut second.rx).await, "second:said:2");
    second.member.leave().await;
    first.member.leave().await;
}
