//! opencode-bridge with its model out of reach: the real pinned OpenCode pointed at a closed
//! localhost port (no internet needed). OpenCode retries for over a minute and says nothing
//! over ACP meanwhile; the bridge reads its log (stderr, `--print-logs`) and shows each retry
//! streak as the core's retry notice with OpenCode's words, withdrawn when the turn ends.

use agent_bridge_conformance::{AgentRig, Event, RigSpec};
use mock_llm::{Cli, HermeticEnv, HermeticError, MockLlm};
use std::path::Path;

/// OpenCode's hermetic env, its model on a port nobody listens on.
fn unreachable(_mock: &MockLlm, root: &Path) -> Result<HermeticEnv, HermeticError> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    mock_llm::hermetic::build(Cli::Opencode, port, root)
}

const SPEC: RigSpec = RigSpec {
    provider: "opencode-bridge",
    caps: &["prompt.message", "permission"],
    cli: "opencode",
    hermetic: unreachable,
};

fn retry_notice(e: &Event) -> bool {
    e.at("/notice/id")
        .and_then(|v| v.as_str())
        .is_some_and(|id| id.starts_with("model-retry:"))
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retries_of_an_unreachable_model_are_a_notice_with_the_cli_words() {
    let Some(rig) = AgentRig::start(SPEC).await else {
        return;
    };
    let sid = "oc-offline";
    rig.open(sid, serde_json::json!({})).await;
    let (_, turn) = rig.start_turn(sid, "say hi").await;
    let notice = rig
        .wait(sid, "session.notice", |e| {
            retry_notice(e) && e.at("/notice/dismissed").is_none()
        })
        .await;
    let words = notice
        .at("/notice/description")
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_string();
    assert!(words.starts_with("Cannot connect to API"), "{notice}");
    assert_eq!(
        notice.at("/notice/title").and_then(|v| v.as_str()),
        Some("Retrying the model connection…")
    );
    let answer = rig.interrupt(sid).await;
    assert!(answer.is("request.completed"), "{answer}");
    let end = rig.turn_end(sid, &turn).await;
    let id = notice.at("/notice/id").cloned();
    let dismissed = rig
        .wait(sid, "session.notice", |e| {
            e.at("/notice/id") == id.as_ref()
                && e.at("/notice/dismissed") == Some(&serde_json::json!(true))
        })
        .await;
    assert!(
        dismissed.seq < end.seq,
        "withdrawn before the turn's end: {dismissed} / {end}"
    );
    rig.finish(sid).await;
    rig.report("unreachable-model-retry-notice");
}
