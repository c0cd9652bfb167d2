//! The soak's accounting on synthetic streams: a clean run is no loss; a dropped, duplicated or
//! forged event is.

use super::*;
use crate::soak::report::Summary;
use pretty_assertions::assert_eq;
use serde_json::json;

const CONN: &str = "c1";

fn event(ev: Value) -> Value {
    json!({ "connectionId": CONN, "event": ev })
}

/// A connection and session `s` opened and ready; returns the next request id.
fn opened(l: &mut Ledger) -> i64 {
    l.on_request(1, "provider/connect", None);
    l.on_answer(1, Answer::Ok(json!({"connectionId": CONN})));
    l.on_connected(CONN);
    let open = json!({"type": "session.open", "requestId": "o", "sessionId": "s"});
    l.on_request(2, "provider/send", Some((CONN, &open)));
    l.on_answer(2, Answer::Ok(Value::Null));
    for ev in [
        json!({"type": "session.opened", "requestId": "o", "sessionId": "s", "capabilities": [], "restoration": "core", "cwd": "/"}),
        json!({"type": "session.config", "sessionId": "s",
            "config": serde_json::to_value(agent_bridge_protocol::ProviderConfigState::default()).unwrap_or_default()}),
        json!({"type": "session.ready", "requestId": "o", "sessionId": "s"}),
    ] {
        l.on_event(&event(ev));
    }
    3
}

fn prompt(l: &mut Ledger, id: i64, cmid: &str) {
    let input = json!({"type": "session.prompt", "sessionId": "s",
        "prompt": {"clientMessageId": cmid, "delivery": "auto", "input": {"type": "message", "content": [{"type": "text", "text": "hi"}]}}});
    l.on_request(id, "provider/send", Some((CONN, &input)));
    l.on_answer(id, Answer::Ok(Value::Null));
}

fn result(cmid: &str, turn: &str) -> Value {
    event(
        json!({"type": "session.prompt_result", "sessionId": "s", "clientMessageId": cmid,
        "result": {"type": "turn", "turnId": turn}}),
    )
}

fn turn(turn: &str, state: &str) -> Value {
    event(json!({"type": "session.turn", "sessionId": "s", "turnId": turn, "state": state}))
}

fn summary(l: &Ledger) -> Summary {
    let mut s = Summary::default();
    s.book(l);
    s
}

/// Two turns, one of them after a kill that the session survived.
fn clean(l: &mut Ledger) {
    let id = opened(l);
    prompt(l, id, "m1");
    for ev in [result("m1", "t1"), turn("t1", "started")] {
        l.on_event(&ev);
    }
    let mut failed = turn("t1", "failed");
    failed["event"]["error"] = json!({"message": "killed"});
    l.on_event(&failed);
    l.on_turn(
        Action::Kill {
            at_permission: false,
            after_ms: 0,
        },
        "failed",
        false,
        true,
    );
    l.counts.kills += 1;
    prompt(l, id + 1, "m2");
    for ev in [
        result("m2", "t2"),
        turn("t2", "started"),
        turn("t2", "completed"),
    ] {
        l.on_event(&ev);
    }
    l.on_turn(Action::Text, "completed", true, false);
}

#[test]
fn a_clean_stream_is_no_loss_and_counts_the_recovery() {
    let mut l = Ledger::new();
    clean(&mut l);
    let s = summary(&l);
    assert_eq!(s.losses(), Vec::<String>::new(), "{:?}", s.problems);
    assert_eq!(
        (
            s.tally.prompts,
            s.tally.prompts_answered_once,
            s.tally.turns
        ),
        (2, 2, 2)
    );
    assert_eq!((s.counts.recovered, s.counts.not_recovered), (1, 0));
    assert_eq!((s.counts.kill_turns, s.counts.kills_missed), (1, 0));
    assert_eq!(s.counts.unexpected_failures, 0);
}

#[test]
fn a_dropped_result_and_an_unended_turn_are_losses() {
    let mut l = Ledger::new();
    clean(&mut l);
    prompt(&mut l, 10, "m3");
    prompt(&mut l, 11, "m4");
    for ev in [result("m4", "t4"), turn("t4", "started")] {
        l.on_event(&ev);
    }
    let s = summary(&l);
    assert_eq!(
        s.losses(),
        vec![
            "1 prompts without a session.prompt_result".to_string(),
            "1 turns never ended".to_string(),
        ]
    );
}

#[test]
fn duplicated_forged_and_unanswered_are_losses() {
    let mut l = Ledger::new();
    clean(&mut l);
    // A second result for m2, a turn end that never started, an item for a session never
    // opened, an event that is no ProviderEvent, and a request left unanswered.
    l.on_event(&result("m2", "t2"));
    l.on_event(&turn("t9", "completed"));
    l.on_event(&event(
        json!({"type": "timeline.item", "sessionId": "ghost", "item": {"id": "i", "type": "assistant_message", "text": "boo"}}),
    ));
    l.on_event(&event(
        json!({"type": "session.turn", "sessionId": "s", "turnId": "t2", "state": "exploded"}),
    ));
    l.on_request(20, "provider/send", None);
    let mut s = summary(&l);
    s.orphans = vec!["4242 claude".into()];
    let losses = s.losses();
    assert_eq!(
        losses,
        vec![
            "1 prompts with more than one result".to_string(),
            "1 requests never answered".to_string(),
            "5 invalid events".to_string(),
            "1 orphan processes".to_string(),
        ],
        "{:#?}",
        s.problems
    );
    assert!(s.problems.iter().any(|p| p.contains("never started")));
    assert!(s.problems.iter().any(|p| p.contains("`ghost`")));
    assert!(s.problems.iter().any(|p| p.contains("not a ProviderEvent")));
}

#[test]
fn a_refused_prompt_is_not_lost_and_an_unrecovered_kill_is_counted() {
    let mut l = Ledger::new();
    let id = opened(&mut l);
    let input =
        json!({"type": "session.prompt", "sessionId": "s", "prompt": {"clientMessageId": "r"}});
    l.on_request(id, "provider/send", Some((CONN, &input)));
    l.on_answer(id, Answer::Refused("unknown session".into()));
    l.on_turn(Action::Text, "refused", true, false);
    let s = summary(&l);
    assert_eq!(s.losses(), Vec::<String>::new());
    assert_eq!(
        (s.tally.prompts, s.counts.refused, s.counts.not_recovered),
        (0, 1, 1)
    );
    assert!(l.on_answer(99, Answer::Ok(Value::Null)).is_none());
    assert_eq!(
        summary(&l).invalid_events(),
        1,
        "an answer nobody asked for"
    );
}

#[test]
fn a_probe_killed_again_probes_again_instead_of_counting_unrecovered() {
    let mut l = Ledger::new();
    // With --shared another session's kill ends the probe too: not a failed recovery.
    l.on_turn(Action::Text, "failed", true, true);
    l.on_turn(Action::Text, "completed", true, false);
    // A probe that failed on its own is one.
    l.on_turn(Action::Text, "failed", true, false);
    assert_eq!((l.counts.recovered, l.counts.not_recovered), (1, 1));
    assert_eq!(l.counts.unexpected_failures, 0);
}

#[test]
fn a_probe_the_plan_interrupts_counts_as_recovered() {
    let mut l = Ledger::new();
    l.on_turn(Action::Interrupt { after_ms: 10 }, "canceled", true, false);
    assert_eq!((l.counts.recovered, l.counts.not_recovered), (1, 0));
}
