use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;

fn opened(checker: &mut InvariantChecker) {
    checker.on_connect("c1");
    checker.on_input(
        "c1",
        &json!({"type": "session.open", "requestId": "o", "sessionId": "s"}),
    );
    for ev in [
        json!({"type": "session.opened", "requestId": "o", "sessionId": "s", "capabilities": [], "restoration": "core", "cwd": "/"}),
        json!({"type": "session.config", "sessionId": "s", "config": {}}),
        json!({"type": "timeline.item", "sessionId": "s", "item": {"id": "old", "type": "error", "message": "x"}}),
        json!({"type": "session.ready", "requestId": "o", "sessionId": "s"}),
    ] {
        checker.on_event(0, "c1", &ev);
    }
}

fn prompt(checker: &mut InvariantChecker, cmid: &str) {
    checker.on_input(
        "c1",
        &json!({"type": "session.prompt", "sessionId": "s", "prompt": {"clientMessageId": cmid}}),
    );
}

fn turn_result(cmid: &str, turn: &str) -> Value {
    json!({"type": "session.prompt_result", "sessionId": "s", "clientMessageId": cmid, "result": {"type": "turn", "turnId": turn}})
}

fn turn(turn: &str, state: &str) -> Value {
    json!({"type": "session.turn", "sessionId": "s", "turnId": turn, "state": state})
}

#[test]
fn a_clean_session_has_no_violations() {
    let mut c = InvariantChecker::new();
    opened(&mut c);
    prompt(&mut c, "m1");
    c.on_event(1, "c1", &turn_result("m1", "t1"));
    c.on_event(2, "c1", &turn("t1", "started"));
    c.on_event(3, "c1", &json!({"type": "timeline.item", "sessionId": "s", "item": {"id": "a", "type": "assistant_message", "text": "x"}}));
    c.on_event(4, "c1", &turn("t1", "completed"));
    c.on_input(
        "c1",
        &json!({"type": "session.close", "requestId": "cl", "sessionId": "s"}),
    );
    c.on_event(
        5,
        "c1",
        &json!({"type": "session.closed", "sessionId": "s"}),
    );
    c.on_event(
        6,
        "c1",
        &json!({"type": "request.completed", "requestId": "cl"}),
    );
    assert_eq!(c.final_report(), Vec::<String>::new());
}

#[test]
fn catches_double_results_late_items_and_missing_terminal() {
    let mut c = InvariantChecker::new();
    opened(&mut c);
    prompt(&mut c, "m1");
    c.on_event(1, "c1", &turn_result("m1", "t1"));
    c.on_event(2, "c1", &turn_result("m1", "t1"));
    c.on_event(3, "c1", &turn("t1", "started"));
    c.on_event(4, "c1", &json!({"type": "timeline.item", "sessionId": "s", "item": {"id": "a", "type": "assistant_message", "text": "x"}}));
    c.on_event(5, "c1", &turn("t1", "canceled"));
    c.on_event(6, "c1", &json!({"type": "timeline.item", "sessionId": "s", "item": {"id": "a", "type": "assistant_message", "text": "xy"}}));
    prompt(&mut c, "m2");
    c.on_event(7, "c1", &turn_result("m2", "t2"));
    c.on_event(8, "c1", &turn("t2", "started"));
    let report = c.final_report();
    assert_eq!(report.len(), 4, "{report:#?}");
    assert!(report[0].contains("prompt_result #2"));
    assert!(report[1].contains("announces turn `t1`, which already"));
    assert!(report[2].contains("after the turn's terminal state"));
    assert!(report[3].contains("never reached a terminal state"));
}

#[test]
fn catches_wrong_answers_and_ordering() {
    let mut c = InvariantChecker::new();
    opened(&mut c);
    c.on_input(
        "c1",
        &json!({"type": "session.can_stop_runtime", "requestId": "q", "sessionId": "s"}),
    );
    c.on_event(
        1,
        "c1",
        &json!({"type": "request.completed", "requestId": "q"}),
    );
    c.on_input(
        "c1",
        &json!({"type": "session.configure", "requestId": "k", "sessionId": "s"}),
    );
    c.on_event(
        2,
        "c1",
        &json!({"type": "request.completed", "requestId": "k"}),
    );
    c.on_event(
        3,
        "c1",
        &json!({"type": "request.completed", "requestId": "k"}),
    );
    c.on_input("c1", &json!({"type": "catalog", "requestId": "x"}));
    c.on_refused("c1", &json!({"type": "catalog", "requestId": "x"}));
    c.on_event(
        4,
        "c1",
        &json!({"type": "catalog", "requestId": "x", "catalog": {}}),
    );
    c.on_event(
        5,
        "c1",
        &json!({"type": "session.closed", "sessionId": "s"}),
    );
    c.on_event(
        6,
        "c1",
        &json!({"type": "session.notice", "sessionId": "s"}),
    );
    c.on_event(
        7,
        "c1",
        &json!({"type": "session.notice", "sessionId": "nope"}),
    );
    let report = c.final_report();
    assert_eq!(report.len(), 6, "{report:#?}");
    assert!(report[0].contains("answered with `request.completed`"));
    assert!(report[1].contains("without a session.config"));
    assert!(report[2].contains("second answer"));
    assert!(report[3].contains("refused at admission"));
    assert!(report[4].contains("after its `session.closed`"));
    assert!(report[5].contains("never opened"));
}

#[test]
fn the_tally_counts_lost_duplicated_unended_and_unanswered() {
    let mut c = InvariantChecker::new();
    opened(&mut c);
    prompt(&mut c, "once");
    c.on_event(1, "c1", &turn_result("once", "t1"));
    c.on_event(2, "c1", &turn("t1", "started"));
    c.on_event(3, "c1", &turn("t1", "completed"));
    prompt(&mut c, "twice");
    let failed = json!({"type": "session.prompt_result", "sessionId": "s", "clientMessageId": "twice", "result": {"type": "failed", "error": {"message": "x"}}});
    c.on_event(4, "c1", &failed);
    c.on_event(5, "c1", &failed);
    prompt(&mut c, "lost");
    prompt(&mut c, "refused");
    c.on_refused(
        "c1",
        &json!({"type": "session.prompt", "sessionId": "s", "prompt": {"clientMessageId": "refused"}}),
    );
    prompt(&mut c, "hangs");
    c.on_event(6, "c1", &turn_result("hangs", "t2"));
    c.on_event(7, "c1", &turn("t2", "started"));
    c.on_input(
        "c1",
        &json!({"type": "session.interrupt", "requestId": "i", "sessionId": "s"}),
    );
    let t = c.tally();
    assert_eq!(
        t,
        Tally {
            prompts: 4,
            prompts_answered_once: 2,
            prompts_lost: 1,
            prompts_duplicated: 1,
            extra_results: 1,
            turns: 2,
            turns_unended: 1,
            turns_never_started: 0,
            requests: 2,
            requests_unanswered: 1,
            violations: 1,
        }
    );
    assert_eq!(t.other_violations(), 0);
}
