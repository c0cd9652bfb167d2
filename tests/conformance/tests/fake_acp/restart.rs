//! An agent process that dies mid-turn: the turn fails with the exit status and the agent's
//! last stderr lines; the next prompt starts the agent again and brings the native session back
//! (`session/resume` where advertised, else `session/load` with its replay dropped, else a new
//! session given the conversation), with one warning notice, and the session's mode set again.

use super::{modes, say, FakeRig};
use agent_bridge_conformance::rig::{last_assistant_text, of_type};
use agent_bridge_conformance::Event;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};

/// A scenario whose `crash` prompt says something, logs to stderr and exits with code 3;
/// `capabilities` as given.
fn crashing(capabilities: Value) -> Value {
    json!({
        "capabilities": capabilities,
        "modes": modes(),
        "turns": [{
            "match": "crash",
            "once": true,
            "steps": [say("going down"), {"stderr": "fake-acp: fatal: out of cheese"}, {"exit": 3}]
        }]
    })
}

/// Opens `s` (with `patch`), runs a first turn, then a turn the agent dies in; returns the
/// failed turn's end.
async fn crash_mid_turn(rig: &FakeRig, patch: Value) -> Event {
    rig.open("s", patch).await;
    let run = rig.run_turn("s", "remember APPLE-7").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let (_, turn) = rig.start_turn("s", "now crash").await;
    rig.turn_end("s", &turn).await
}

/// The pids of the fake processes that received `method`, in order.
fn pids(rig: &FakeRig, method: &str) -> Vec<u64> {
    rig.received()
        .into_iter()
        .filter(|m| m["msg"]["method"] == method)
        .filter_map(|m| m["pid"].as_u64())
        .collect()
}

fn notices(rig: &FakeRig) -> Vec<String> {
    rig.host
        .session_events("s")
        .iter()
        .filter(|e| e.is("session.notice"))
        .map(|e| e.string_at("/notice/id"))
        .collect()
}

fn assert_failed_by_the_crash(end: &Event) {
    assert_eq!(end.turn_state(), Some("failed"), "{end}");
    let message = end.string_at("/error/message");
    assert!(message.contains("exited unexpectedly"), "{end}");
    assert_eq!(end.string_at("/error/code"), "runtime_exited", "{end}");
    let diagnostic = end.string_at("/error/diagnostic");
    assert!(
        diagnostic.contains("out of cheese"),
        "the agent's last stderr lines: {end}"
    );
}

/// `session/load` only: the restarted agent loads the session; its replay is not shown again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_mid_turn_fails_it_and_the_next_prompt_loads_the_session() {
    let rig = FakeRig::start(crashing(json!({"loadSession": true}))).await;
    let end = crash_mid_turn(&rig, json!({})).await;
    assert_failed_by_the_crash(&end);
    let shown = of_type(&rig.timeline("s"), "user_message").len();
    let run = rig.run_turn("s", "are you back").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    assert_eq!(
        last_assistant_text(&rig.timeline("s")),
        "echo: are you back"
    );
    let news = pids(&rig, "session/new");
    let loads = rig.calls("session/load");
    assert_eq!(loads.len(), 1, "{:#?}", rig.received());
    assert_eq!(loads[0]["sessionId"], "fake-1");
    assert_ne!(
        pids(&rig, "session/load")[0],
        *news.last().unwrap_or(&0),
        "a new process"
    );
    assert!(rig.calls("session/resume").is_empty());
    let notices = notices(&rig);
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(notices[0].starts_with("agent-restarted"), "{notices:?}");
    assert_eq!(
        of_type(&rig.timeline("s"), "user_message").len(),
        shown + 1,
        "the load's replay is not shown again"
    );
    rig.finish("s").await;
}

/// `session/resume` advertised: the restart resumes (no replay asked for).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_resumes_where_the_agent_offers_it() {
    let rig = FakeRig::start(crashing(json!({"loadSession": true, "resume": true}))).await;
    assert_failed_by_the_crash(&crash_mid_turn(&rig, json!({})).await);
    let run = rig.run_turn("s", "are you back").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    assert_eq!(
        rig.calls("session/resume").len(),
        1,
        "{:#?}",
        rig.received()
    );
    assert!(rig.calls("session/load").is_empty());
    assert!(notices(&rig)[0].starts_with("agent-restarted"));
    rig.finish("s").await;
}

/// Neither load nor resume: a new native session, a notice that the conversation was lost, and
/// the conversation so far given to the agent with the next prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_load_a_restart_starts_fresh_and_carries_the_conversation_over() {
    let rig = FakeRig::start(crashing(json!({"loadSession": false, "list": false}))).await;
    assert_failed_by_the_crash(&crash_mid_turn(&rig, json!({})).await);
    let run = rig.run_turn("s", "which word").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let news = rig.calls("session/new");
    assert_eq!(news.len(), 2, "{:#?}", rig.received());
    let notices = notices(&rig);
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(
        notices[0].starts_with("agent-conversation-lost"),
        "{notices:?}"
    );
    let prompts = rig.calls("session/prompt");
    let last = prompts.last().cloned().unwrap_or_default();
    assert_eq!(last["sessionId"], "fake-2", "the new native session");
    let text = last["prompt"].to_string();
    assert!(
        text.contains("APPLE-7"),
        "the conversation carried over: {text}"
    );
    assert!(text.contains("which word"), "{text}");
    // Only the first prompt after the restart carries it.
    let run = rig.run_turn("s", "plain again").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let last = rig
        .calls("session/prompt")
        .last()
        .cloned()
        .unwrap_or_default();
    assert!(!last["prompt"].to_string().contains("APPLE-7"), "{last}");
    rig.finish("s").await;
}

/// The session's mode is set again on the restarted agent's session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_sets_the_session_s_mode_again() {
    let rig = FakeRig::start(crashing(json!({"loadSession": true}))).await;
    assert_failed_by_the_crash(&crash_mid_turn(&rig, json!({"mode": "yolo"})).await);
    let before = rig.calls("session/set_mode").len();
    let run = rig.run_turn("s", "are you back").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let set: Vec<Value> = rig.calls("session/set_mode")[before..].to_vec();
    assert_eq!(set.len(), 1, "{:#?}", rig.received());
    assert_eq!(set[0]["modeId"], "yolo");
    assert_eq!(
        rig.committed_config("s").at("/config/mode"),
        Some(&json!("yolo"))
    );
    rig.finish("s").await;
}

/// An agent that dies at its start (right after `initialize`) fails the open with its exit,
/// and the bridge keeps serving.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_dying_at_start_fails_the_open() {
    let rig = FakeRig::start(json!({})).await;
    // The probe of the connect saw a healthy agent; from now on every start dies.
    let scenario = json!({"afterInitialize": [{"stderr": "fake-acp: no licence"}, {"exit": 7}]});
    std::fs::write(rig.scenario_path(), scenario.to_string()).expect("scenario");
    let rid = rig.host.unique("open");
    let config = agent_bridge_conformance::input::session_config(&rig.cwd(), json!({}));
    rig.send(agent_bridge_conformance::input::open(&rid, "s", config))
        .await;
    let answer = rig
        .host
        .wait_answer(&rid, agent_bridge_conformance::rig::STEP)
        .await;
    let answer = answer.expect("an answer to the open");
    assert!(answer.is("request.failed"), "{answer}");
    rig.host.assert_invariants();
}
