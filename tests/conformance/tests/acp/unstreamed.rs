//! An agent that never streams (OpenHands over ACP: its reply comes whole when the model
//! request returns): the agnostic interrupt and close scenarios wait for streamed text, which
//! here would come only with the turn's end. These wait instead for the mock's slow answer to be
//! in flight (the mock holds a non-streamed slow reply to a request with tools as long as its
//! stream would take), so the interrupt or close lands during the model request.

use agent_bridge_conformance::scenarios::SLOW_PROMPT;
use agent_bridge_conformance::{input, AgentRig};
use serde_json::json;
use std::time::Duration;

/// Starts a slow turn and waits until its model request is being answered.
async fn slow_turn_in_flight(rig: &AgentRig, sid: &str) -> String {
    rig.open(sid, json!({})).await;
    let (_, turn) = rig.start_turn(sid, SLOW_PROMPT).await;
    let in_flight = rig
        .mock
        .wait_for(Duration::from_secs(60), |log| {
            // Its label is set once answered: in flight, a model call with tools whose prompt
            // is the slow one and no answer yet.
            log.iter().any(|r| {
                r.is_model_call()
                    && r.done_unix_us.is_none()
                    && r.body["tools"].as_array().is_some_and(|t| !t.is_empty())
                    && r.body.to_string().contains(SLOW_PROMPT)
            })
        })
        .await;
    assert!(
        in_flight,
        "no slow model request in flight: {:#?}",
        rig.mock.requests()
    );
    turn
}

/// An interrupt during the model request ends the turn canceled (the agent answers `end_turn`
/// once the request returns; the bridge had sent `session/cancel`, and ACP has a cancelled
/// turn answer `cancelled`); the session then completes another turn.
pub async fn interrupt_during_the_model_request(rig: &AgentRig) {
    let sid = "acp-unstreamed-int";
    let turn = slow_turn_in_flight(rig, sid).await;
    let answer = rig.interrupt(sid).await;
    assert!(answer.is("request.completed"), "{answer}");
    let end = rig.turn_end(sid, &turn).await;
    assert_eq!(end.turn_state(), Some("canceled"), "{end}");
    let run = rig.run_turn(sid, "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    assert_ne!(run.turn_id, turn, "a new turn");
    rig.finish(sid).await;
}

/// `session.close` during the model request: answered, the turn ends before `session.closed`,
/// and the agent (which ignores stdin EOF) is gone when the answer comes.
pub async fn close_during_the_model_request(rig: &AgentRig) {
    let sid = "acp-unstreamed-close";
    let turn = slow_turn_in_flight(rig, sid).await;
    let answer = rig.ask("close", |rid| input::close(rid, sid)).await;
    assert!(answer.is("request.completed"), "{answer}");
    assert!(rig.cli_procs().is_empty(), "{:#?}", rig.cli_procs());
    let closed = rig.wait(sid, "session.closed", |_| true).await;
    let end = rig.turn_end(sid, &turn).await;
    assert!(
        end.seq < closed.seq,
        "the turn ends before session.closed: {end} / {closed}"
    );
    rig.host.assert_invariants();
}
