//! openhands-bridge end to end: the real pinned OpenHands CLI (`openhands acp`, PyPI `openhands`
//! 1.16.0 in a venv of the pinned CPython 3.13.5, installed with its `==3.12.*` requirement
//! ignored, `tests/clis/python`) with the mock as LiteLLM's `openai/mock-model`, through the ACP
//! provider: the agnostic scenarios and the ACP ones (`tests/acp`). Its modes: `always-ask`
//! (the default: asks even for `echo`), `always-approve` (the unattended one) and
//! `llm-approve`. It never streams over ACP, so the interrupt and close scenarios wait for the
//! model request instead of streamed text (`acp::unstreamed`); it ignores stdin EOF and its
//! terminal tool runs in a daemonized tmux server, neither of which may outlive a close or a
//! shutdown (`acp::daemons`). No session list. Skipped with a SKIPPED line when the CLI is not
//! installed, failing instead under CI or `AGENT_BRIDGE_REQUIRE_CLIS=1`.

mod acp;

use agent_bridge_conformance::{AgentRig, RigSpec};

const SPEC: RigSpec = RigSpec {
    provider: "openhands-bridge",
    caps: &[
        "prompt.message",
        "session.configure",
        "session.persistence",
        "permission",
    ],
    cli: "openhands",
    hermetic: mock_llm::hermetic::openhands,
};

const CASE: acp::Case = acp::Case {
    ask_mode: Some("always-ask"),
    unattended_mode: "always-approve",
    other_model: None,
    start_mode: Some("always-ask"),
    keeps_context_on_restart: true,
};

/// The tmux server of its terminal tool (`tmux -L openhands`).
const DAEMON: &str = "tmux";

async fn rig() -> Option<AgentRig> {
    acp::rig(SPEC).await
}

async fn spare_rig() -> Option<AgentRig> {
    acp::spare_rig(SPEC, agent_bridge_conformance::spare::LONG_IDLE).await
}

// The kill scenarios run in their unstreamed form (`KillCase::unstreamed`: the kill lands while
// the slow model request is in flight; OpenHands sends a reply's text only once it is done).
// OpenHands keeps an unconfirmed action in its saved conversation, so after a kill with a
// permission pending the restarted agent asks about it again (`asking_again_after_restart`).
// Its permissions name a pseudo call ("Confirm Agent Actions"), shown as the shell call it
// confirms (normalize/permission_call.rs), and its command output comes from the observation
// in `rawOutput`. Not run, each failing with 1.16.0 for a reason of the agent's
// (docs/providers/acp.md): `nothing_goes_past_the_mock` (its `echo` turn in the default mode
// asks; the `acp::daemons` scenarios check the proxy trap after an unattended command turn
// instead) and `reopen_in_a_fresh_bridge_replays` (its `session/load` replay has no user
// message; the reopen itself works: `unattended_on_a_reopen`).
acp_tests! { spare_rig;
    unattended_on_a_spare => |r| acp::unattended::holds_on_a_spare(&r, CASE);
}

acp_tests! { rig;
    unattended_after_the_catalog => |r| acp::unattended::holds_after_the_catalog(&r, CASE);
    unattended_on_a_shared_process => |r| acp::unattended::holds_on_a_shared_process(&r, CASE);
    unattended_on_a_reopen => |r| acp::unattended::holds_on_a_reopen(&r, CASE);
    unattended_after_a_restart => |r| acp::unattended::holds_after_a_restart(&r, CASE);
    mode_and_model_change => |r| acp::mode_and_model_change(&r, CASE);
    kill_9_after_a_completed_turn => |r| agent_bridge_conformance::kill::kill_9_after_a_completed_turn(&r, CASE.kill());
    kill_9_mid_turn => |r| agent_bridge_conformance::kill::kill_9_mid_turn(&r, CASE.kill().unstreamed());
    kill_9_with_a_pending_permission => |r| agent_bridge_conformance::kill::kill_9_with_a_pending_permission(&r, CASE.kill().asking_again_after_restart());
    permission_allowed => |r| acp::permission_allowed(&r, CASE);
    unattended_mode_runs_without_asking => |r| acp::unattended_mode_runs_without_asking(&r, CASE);
    shared_kill_9 => |r| acp::shared::shared_kill_9(&r, CASE.kill().unstreamed());
    shared_two_sessions_at_once => |r| acp::shared::shared_two_sessions_at_once(&r, CASE);
    shared_close_one => |r| acp::shared::shared_close_one(&r, CASE);
    catalog_lists_models_and_modes => |r| acp::catalog_lists_models_and_modes(&r, CASE);
    permission_denied => |r| acp::permission_denied(&r, CASE);
    interrupt_with_a_pending_permission => |r| acp::interrupt_with_a_pending_permission(&r, CASE);
    interrupt_during_the_model_request => |r| acp::unstreamed::interrupt_during_the_model_request(&r);
    close_during_the_model_request => |r| acp::unstreamed::close_during_the_model_request(&r);
    nothing_outlives_a_close => |r| acp::daemons::nothing_outlives_a_close(&r, CASE.unattended_mode, DAEMON);
    nothing_outlives_the_connection => |r| acp::daemons::nothing_outlives_the_connection(&r, CASE.unattended_mode, DAEMON);
    nothing_outlives_a_shutdown => |r| acp::daemons::nothing_outlives_a_shutdown(&r, CASE.unattended_mode, DAEMON);
}

// The agnostic set but for the interrupt (it waits for streamed text, which OpenHands never
// sends; `interrupt_during_the_model_request` above is its unstreamed form). Its close
// scenarios pass as is (the close lands once the reply came), and are also run mid-request above.
agent_bridge_conformance::agnostic_scenarios!(@cli rig, acp::record_traffic,
    open_prompt_completes => |r| agent_bridge_conformance::scenarios::open_prompt_completes(&r);
    close_during_a_turn => |r| agent_bridge_conformance::scenarios::close_during_a_turn(&r);
    provider_close_during_a_turn => |r| agent_bridge_conformance::scenarios::provider_close_during_a_turn(&r);
    close_during_open => |r| agent_bridge_conformance::scenarios::close_during_open(&r, Some(&r.cli));
);
