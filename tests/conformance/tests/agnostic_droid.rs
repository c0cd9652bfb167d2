//! droid-bridge end to end: the real pinned Factory Droid (`droid exec --output-format acp`,
//! npm `droid`, a native binary) with a BYOK custom model on the mock and
//! `FACTORY_AIRGAP_ENABLED=1` (without it: "Authentication required"), through the ACP provider:
//! the agnostic scenarios and the ACP ones (`tests/acp`). Its modes are its autonomy levels:
//! `normal` asks (even for echo), `auto-high` is the unattended one. Skipped with a SKIPPED line
//! when the CLI is not installed, failing instead under CI or `AGENT_BRIDGE_REQUIRE_CLIS=1`.

// Not here: a model change (one custom model) and images. Droid 0.215.0 shows no command
// output to a client without the `terminal` capability (its `tool_call_update` carries only a
// `{"type": "terminal", "terminalId": ...}` content, also with `_meta.terminal_output`), so the
// unattended scenario here checks that nothing is asked, not the output. One process mixes up
// its sessions (a second `session/new` switches the first one's mode too, and each update of
// one session's turn is sent under both ids, its permission request under the first's), so
// droid-bridge runs a process per session (plugin.json `processPerSession`; the shared-process
// scenarios do not apply). Droid sends a reply's text in one chunk once the model is done, so
// the agnostic interrupt scenario, which interrupts once text streams, is replaced by one that
// interrupts while the model request is under way.

mod acp;

use agent_bridge_conformance::{AgentRig, RigSpec};

const SPEC: RigSpec = RigSpec {
    provider: "droid-bridge",
    caps: &[
        "prompt.message",
        "session.configure",
        "session.persistence",
        "session.list",
        "permission",
    ],
    cli: "droid",
    hermetic: mock_llm::hermetic::droid,
};

const CASE: acp::Case = acp::Case {
    ask_mode: Some("normal"),
    unattended_mode: "auto-high",
    other_model: None,
    start_mode: Some("normal"),
    keeps_context_on_restart: true,
};

async fn rig() -> Option<AgentRig> {
    acp::rig(SPEC).await
}

/// An interrupt while the model is still answering (a slow reply, no text seen yet) cancels
/// the turn; the session then completes another turn.
async fn interrupt_while_the_model_answers(rig: &AgentRig) {
    let sid = "droid-int";
    rig.open(sid, serde_json::json!({})).await;
    let before = rig.mock.model_requests().len();
    let (_, turn) = rig.start_turn(sid, "SLOW please").await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !rig.mock.model_requests()[before..]
        .iter()
        .any(|r| r.body.to_string().contains("SLOW please"))
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the slow prompt reaches the model"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let answer = rig.interrupt(sid).await;
    assert!(answer.is("request.completed"), "{answer}");
    let end = rig.turn_end(sid, &turn).await;
    assert_eq!(end.turn_state(), Some("canceled"), "{end}");
    let run = rig.run_turn(sid, "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish(sid).await;
}

/// `auto-high` runs a file-writing command without asking (its output is not shown, above).
async fn auto_high_runs_without_asking(rig: &AgentRig) {
    let sid = "droid-yolo";
    rig.open(sid, serde_json::json!({ "mode": CASE.unattended_mode }))
        .await;
    let run = rig.run_turn(sid, "please run `touch unattended.txt`").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    assert!(rig.cwd().join("unattended.txt").exists(), "the command ran");
    let asked = rig
        .host
        .session_events(sid)
        .into_iter()
        .any(|e| e.is("session.permission"));
    assert!(!asked, "the unattended mode asked");
    rig.finish(sid).await;
}

acp_tests! { rig;
    unattended_mode_runs_without_asking => |r| auto_high_runs_without_asking(&r);
    mode_and_model_change => |r| acp::mode_and_model_change(&r, CASE);
    kill_9_mid_turn => |r| agent_bridge_conformance::kill::kill_9_mid_turn(&r, CASE.kill().unstreamed());
    kill_9_after_a_completed_turn => |r| agent_bridge_conformance::kill::kill_9_after_a_completed_turn(&r, CASE.kill());
    interrupt_during_the_model_request => |r| interrupt_while_the_model_answers(&r);
    catalog_lists_models_and_modes => |r| acp::catalog_lists_models_and_modes(&r, CASE);
    reopen_in_a_fresh_bridge_replays => |r| acp::reopen_in_a_fresh_bridge_replays(&r);
    session_list_has_our_session => |r| acp::session_list_has_our_session(&r);
    permission_allowed => |r| acp::permission_allowed(&r, CASE);
    permission_denied => |r| acp::permission_denied(&r, CASE);
    interrupt_with_a_pending_permission => |r| acp::interrupt_with_a_pending_permission(&r, CASE);
    no_process_is_left_behind => |r| acp::no_process_is_left_behind(&r);
}

// The agnostic set but `interrupt_cancels_a_running_turn`, which waits for streamed text
// (replaced by `interrupt_during_the_model_request` above).
agent_bridge_conformance::agnostic_scenarios!(@cli rig, acp::record_traffic,
    open_prompt_completes => |r| agent_bridge_conformance::scenarios::open_prompt_completes(&r);
    close_during_a_turn => |r| agent_bridge_conformance::scenarios::close_during_a_turn(&r);
    provider_close_during_a_turn => |r| agent_bridge_conformance::scenarios::provider_close_during_a_turn(&r);
    close_during_open => |r| agent_bridge_conformance::scenarios::close_during_open(&r, Some(&r.cli));
);
