//! deepagents-bridge end to end: the real pinned Deep Agents Code (`dcode --acp`, PyPI
//! `deepagents-code` in a venv of the pinned CPython 3.13, `tests/clis/python`) with the mock as
//! its OpenAI endpoint (the Responses API), through the ACP provider: the agnostic scenarios and
//! the ACP ones (`tests/acp`). It has no ACP modes and asks before every `execute`, `echo`
//! included; its unattended switch is the process flag `--yolo`, which the profile declares as
//! a process mode (`processModes`: `ask` without it, `yolo` with it, marked unattended), so a
//! session runs on a process of its mode and a mode change moves it to another process
//! (`tests/acp/process_modes.rs`). Skipped with a SKIPPED line when the CLI is not installed,
//! failing instead under CI or `AGENT_BRIDGE_REQUIRE_CLIS=1`.

// Not applicable: the shared-process unattended scenarios of `tests/acp/unattended.rs`
// (`holds_on_a_shared_process`, `holds_on_a_spare`, `holds_after_a_restart`), which put an
// asking and an unattended session on one process: here they never share one, and the
// process-mode scenarios prove each path instead. `shared_two_sessions_at_once` runs with
// two sessions of the asking mode for the same reason. No `session.list` (dcode advertises
// no `sessionCapabilities.list`).

mod acp;

use agent_bridge_conformance::{AgentRig, RigSpec};

const SPEC: RigSpec = RigSpec {
    provider: "deepagents-bridge",
    caps: &[
        "prompt.message",
        "prompt.image",
        "session.configure",
        "session.persistence",
        "permission",
    ],
    cli: "dcode",
    hermetic: mock_llm::hermetic::dcode,
};

const CASE: acp::Case = acp::Case {
    ask_mode: Some("ask"),
    unattended_mode: "yolo",
    other_model: Some("openai:mock-model-2"),
    start_mode: Some("ask"),
    keeps_context_on_restart: true,
};

/// Two sessions of the asking mode: one process (the other answers `say hi`, which asks
/// nothing).
const BOTH_ASKING: acp::Case = acp::Case {
    unattended_mode: "ask",
    ..CASE
};

/// The argument of the unattended process mode.
const FLAG: &str = "--yolo";

async fn rig() -> Option<AgentRig> {
    acp::rig(SPEC).await
}

async fn spare_rig() -> Option<AgentRig> {
    acp::spare_rig(SPEC, agent_bridge_conformance::spare::LONG_IDLE).await
}

acp_tests! { spare_rig;
    unattended_on_a_spare_of_its_mode => |r| acp::process_modes::holds_on_a_spare_of_its_mode(&r, CASE, FLAG);
}

acp_tests! { rig;
    unattended_mode_runs_without_asking => |r| acp::unattended_mode_runs_without_asking(&r, CASE);
    unattended_after_the_catalog => |r| acp::unattended::holds_after_the_catalog(&r, CASE);
    unattended_on_a_shared_process_of_its_mode => |r| acp::process_modes::holds_on_a_shared_process_of_its_mode(&r, CASE, FLAG);
    unattended_on_a_reopen => |r| acp::unattended::holds_on_a_reopen(&r, CASE);
    unattended_after_a_restart_of_its_process => |r| acp::process_modes::holds_after_a_restart_of_its_process(&r, CASE, FLAG);
    a_mode_change_moves_the_session => |r| acp::process_modes::a_mode_change_moves_the_session(&r, CASE, FLAG);
    a_mode_change_off_a_shared_process_fails_cleanly => |r| acp::process_modes::a_mode_change_off_a_shared_process_fails_cleanly(&r, CASE, FLAG);
    a_mode_change_during_a_turn_is_refused => |r| acp::process_modes::a_mode_change_during_a_turn_is_refused(&r, CASE, FLAG);
    mode_and_model_change => |r| acp::mode_and_model_change(&r, CASE);
    kill_9_mid_turn => |r| agent_bridge_conformance::kill::kill_9_mid_turn(&r, CASE.kill());
    kill_9_after_a_completed_turn => |r| agent_bridge_conformance::kill::kill_9_after_a_completed_turn(&r, CASE.kill());
    kill_9_with_a_pending_permission => |r| agent_bridge_conformance::kill::kill_9_with_a_pending_permission(&r, CASE.kill());
    shared_two_sessions_at_once => |r| acp::shared::shared_two_sessions_at_once(&r, BOTH_ASKING);
    shared_close_one => |r| acp::shared::shared_close_one(&r, CASE);
    shared_kill_9 => |r| acp::shared::shared_kill_9(&r, CASE.kill());
    nothing_goes_past_the_mock => |r| acp::nothing_goes_past_the_mock_in(&r, serde_json::json!({ "mode": CASE.unattended_mode }));
    catalog_lists_models_and_modes => |r| acp::catalog_lists_models_and_modes(&r, CASE);
    reopen_in_a_fresh_bridge_replays => |r| acp::reopen_in_a_fresh_bridge_replays(&r);
    no_process_is_left_behind => |r| acp::no_process_is_left_behind(&r);
    permission_allowed => |r| acp::permission_allowed(&r, CASE);
    permission_denied => |r| acp::permission_denied(&r, CASE);
    interrupt_with_a_pending_permission => |r| acp::interrupt_with_a_pending_permission(&r, CASE);
    image_prompt_reaches_the_model => |r| acp::image_prompt_reaches_the_model(&r);
}

agent_bridge_conformance::agnostic_scenarios!(cli rig, after acp::record_traffic);
