//! An agent that never streams (OpenHands over ACP: its reply comes whole when the model
//! request returns): the agnostic interrupt and close scenarios wait for streamed text, which
//! here would come only with the turn's end. These wait instead for the mock's slow answer to be
//! in flight (the mock holds a non-streamed slow reply to a request with tools as long as its
//! stream would take), so the interrupt or close lands during the model request.

use agent_bridge_conformance::scenarios::SLOW_PROMPT;
use agent_bridge_conformance::{input, AgentRig};
use serde_json::json;

/// Starts a slow turn and waits until its model request is being answered.
async fn slow_turn_in_flight(rig: &AgentRig, sid: &str) -> String {
    rig.open(sid, json!({})).await;
    let (_, turn) = rig.start_turn(sid, SLOW_PROMPT).await;
    agent_bridge_conformance::kill::slow_reply_under_way(rig, sid, SLOW_PROMPT, false).await;
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
