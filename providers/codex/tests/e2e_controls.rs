//! End-to-end per-session controls (`controls` + `providerOptions`) of a Codex session through
//! the real bridge and the real pinned `codex app-server`, observed in the model requests the
//! mock model server records: `webSearch` (the `web_search` tool and its
//! `external_web_access`), `networkAccess` (the sandbox's network line of the permissions
//! instructions Codex sends the model), `reasoningSummary` (`reasoning.summary`). Each is
//! changed live, refused when invalid (with nothing applied), kept across a restart after a
//! `kill -9` and taken from `providerOptions` at a reopen.

mod common;

use agent_bridge_conformance::input;
use common::*;
use mock_llm::RecordedRequest;
use serde_json::{json, Value};
use std::time::Duration;

/// The `web_search` tool of a model request: `None` without one, else its
/// `external_web_access` (true = live, false = cached).
fn web_search(r: &RecordedRequest) -> Option<bool> {
    r.body["tools"]
        .as_array()?
        .iter()
        .find(|t| t["type"] == "web_search")
        .map(|t| t["external_web_access"].as_bool().unwrap_or(false))
}

/// The network line of the newest permissions instructions in a model request.
fn network_line(r: &RecordedRequest) -> &'static str {
    let body = r.body.to_string();
    let enabled = body.rfind("Network access is enabled.");
    let restricted = body.rfind("Network access is restricted.");
    match (enabled, restricted) {
        (Some(e), Some(r)) if e > r => "enabled",
        (Some(_), None) => "enabled",
        (_, Some(_)) => "restricted",
        (None, None) => "none",
    }
}

fn summary(r: &RecordedRequest) -> Value {
    r.body["reasoning"]["summary"].clone()
}

async fn turn(rig: &Rig, sid: &str, text: &str) -> RecordedRequest {
    let run = rig.run_turn(sid, text).await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.last_model_request()
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_control_changes_live_and_reaches_the_model() {
    let Some(rig) = rig().await else { return };
    let opened = rig.open("s-ctl", json!({})).await;
    let config = opened
        .iter()
        .find(|e| e.is("session.config"))
        .expect("config");
    let keys: Vec<Value> = config
        .at("/config/controls")
        .and_then(Value::as_array)
        .map(|c| c.iter().map(|c| c["key"].clone()).collect())
        .unwrap_or_default();
    assert_eq!(
        keys,
        vec![
            json!("webSearch"),
            json!("networkAccess"),
            json!("reasoningSummary")
        ]
    );
    assert_eq!(
        config.at("/config/providerOptions"),
        Some(&json!({"webSearch": "cached", "networkAccess": false, "reasoningSummary": "auto"}))
    );

    // Codex's defaults; under full access Codex itself searches live.
    let first = turn(&rig, "s-ctl", "say hi FIRST-MARK").await;
    assert_eq!(web_search(&first), Some(true), "{}", first.body["tools"]);
    assert_eq!(summary(&first), json!("auto"));

    // Web search off (the thread loads again) and a detailed summary, at the next turn.
    let answer = rig
        .configure(
            "s-ctl",
            json!({"providerOptions": {"webSearch": "disabled", "reasoningSummary": "detailed"}}),
        )
        .await;
    assert!(answer.is("request.completed"), "{answer}");
    assert_eq!(
        rig.committed_config("s-ctl").at("/config/providerOptions"),
        Some(
            &json!({"webSearch": "disabled", "networkAccess": false, "reasoningSummary": "detailed"})
        )
    );
    let off = turn(&rig, "s-ctl", "say hi").await;
    assert_eq!(web_search(&off), None, "{}", off.body["tools"]);
    assert_eq!(summary(&off), json!("detailed"));
    assert!(
        off.body.to_string().contains("FIRST-MARK"),
        "the reloaded thread kept the conversation"
    );

    // The workspace sandbox with network, cached web search.
    let answer = rig.configure(
        "s-ctl",
        json!({"mode": "auto", "providerOptions": {"networkAccess": true, "webSearch": "cached"}}),
    )
    .await;
    assert!(answer.is("request.completed"), "{answer}");
    let sandboxed = turn(&rig, "s-ctl", "say hi").await;
    assert_eq!(network_line(&sandboxed), "enabled");
    assert!(sandboxed.body.to_string().contains("workspace-write"));
    assert_eq!(web_search(&sandboxed), Some(false), "cached, not live");
    assert_eq!(summary(&sandboxed), json!("detailed"), "the summary stayed");

    // Network off in the sandbox, no reasoning summary, live web search.
    let answer = rig.configure(
        "s-ctl",
        json!({"providerOptions": {"networkAccess": false, "reasoningSummary": "none", "webSearch": "live"}}),
    )
    .await;
    assert!(answer.is("request.completed"), "{answer}");
    let restricted = turn(&rig, "s-ctl", "say hi").await;
    assert_eq!(network_line(&restricted), "restricted");
    assert_eq!(
        summary(&restricted),
        Value::Null,
        "{}",
        restricted.body["reasoning"]
    );
    assert_eq!(web_search(&restricted), Some(true));

    // `null` resets a key to its default. The reload (web search) brings the thread back with
    // the last turn's summary (`none`), so the next turn sends the default `auto` again.
    let answer = rig
        .configure(
            "s-ctl",
            json!({"providerOptions": {"reasoningSummary": null, "webSearch": null}}),
        )
        .await;
    assert!(answer.is("request.completed"), "{answer}");
    assert_eq!(
        rig.committed_config("s-ctl").at("/config/providerOptions"),
        Some(&json!({"webSearch": "cached", "networkAccess": false, "reasoningSummary": "auto"}))
    );
    let reset = turn(&rig, "s-ctl", "say hi").await;
    assert_eq!(
        summary(&reset),
        json!("auto"),
        "{}",
        reset.body["reasoning"]
    );
    assert_eq!(web_search(&reset), Some(false));
    assert_eq!(network_line(&reset), "restricted");
    rig.finish("s-ctl").await;
    rig.report("controls-live");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_values_and_unknown_keys_are_refused_with_nothing_applied() {
    let Some(rig) = rig().await else { return };
    rig.open("s-bad", json!({})).await;
    let before = rig.committed_config("s-bad");
    let refusals = [
        (
            json!({"mode": "auto", "providerOptions": {"webSearch": "disabled", "reasoningSummary": "verbose"}}),
            "providerOptions.reasoningSummary must be one of `auto`, `concise`, `detailed`, `none`, not \"verbose\"",
        ),
        (
            json!({"providerOptions": {"webSearch": "sometimes"}}),
            "providerOptions.webSearch must be one of `disabled`, `cached`, `live`, not \"sometimes\"",
        ),
        (
            json!({"providerOptions": {"networkAccess": "yes", "reasoningSummary": "none"}}),
            "providerOptions.networkAccess must be true or false, not \"yes\"",
        ),
        (
            json!({"model": "mock-model", "providerOptions": {"webSearch": "disabled", "fast": true}}),
            "codex-bridge has no provider option `fast`; it takes `webSearch`, `networkAccess` and `reasoningSummary`",
        ),
    ];
    for (changes, message) in refusals {
        let answer = rig.configure("s-bad", changes.clone()).await;
        assert!(answer.is("request.failed"), "{changes}: {answer}");
        assert_eq!(answer.string_at("/error/message"), message, "{answer}");
        assert_eq!(
            answer.string_at("/error/code"),
            "invalid_provider_option",
            "{answer}"
        );
    }
    let after = rig.committed_config("s-bad");
    assert_eq!(after.seq, before.seq, "no session.config after a refusal");
    // Nothing reached Codex: web search, mode and summary as they were.
    let r = turn(&rig, "s-bad", "say hi").await;
    assert_eq!(web_search(&r), Some(true), "{}", r.body["tools"]);
    assert_eq!(summary(&r), json!("auto"));
    assert_eq!(network_line(&r), "enabled", "full access, not the sandbox");
    assert!(!r.body.to_string().contains("workspace-write"));

    // An open asking for a bad value is refused before Codex starts.
    let rid = rig.host.unique("open");
    let config = input::session_config(
        &rig.cwd(),
        json!({"providerOptions": {"webSearch": "always"}}),
    );
    let refused = rig
        .host
        .open_session(&rig.conn, input::open(&rid, "s-bad-open", config))
        .await
        .expect_err("the open is refused");
    assert!(
        refused
            .to_string()
            .contains("providerOptions.webSearch must be one of"),
        "{refused:#}"
    );
    rig.finish("s-bad").await;
    rig.report("controls-refused");
}

/// SIGKILLs the session's app-server (the native binary behind the npm launcher).
fn kill_app_server(rig: &Rig) {
    let codex =
        rig.procs_where(|p| p.cmdline.contains("codex") && p.cmdline.contains("app-server"));
    let target = codex
        .iter()
        .find(|p| !p.cmdline.contains("node"))
        .or(codex.first())
        .expect("a codex app-server");
    // SAFETY: kill(2) on a pid just read from /proc.
    unsafe {
        libc::kill(target.pid, libc::SIGKILL);
    }
}

/// Waits until the bridge took the death in.
async fn wait_down(rig: &Rig) {
    let deadline = tokio::time::Instant::now() + STEP;
    while !rig
        .host
        .stderr()
        .contains("it restarts with the next prompt")
    {
        assert!(tokio::time::Instant::now() < deadline, "death not noticed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn controls_survive_a_restart_and_come_with_a_reopen() {
    let Some(rig) = rig().await else { return };
    let options =
        json!({"webSearch": "disabled", "reasoningSummary": "concise", "networkAccess": true});
    let opened = rig
        .open(
            "s-keep",
            json!({"mode": "auto", "providerOptions": options}),
        )
        .await;
    let config = opened
        .iter()
        .find(|e| e.is("session.config"))
        .expect("config");
    assert_eq!(config.at("/config/providerOptions"), Some(&options));
    let persistence = opened
        .iter()
        .find(|e| e.is("session.opened"))
        .and_then(|e| e.at("/persistence").cloned())
        .expect("persistence");
    let r = turn(&rig, "s-keep", "say hi KEEP-MARK").await;
    assert_eq!(web_search(&r), None, "{}", r.body["tools"]);
    assert_eq!(summary(&r), json!("concise"));
    assert_eq!(network_line(&r), "enabled");

    kill_app_server(&rig);
    wait_down(&rig).await;
    let after = turn(&rig, "s-keep", "say hi").await;
    assert!(after.body.to_string().contains("KEEP-MARK"), "resumed");
    assert_eq!(web_search(&after), None, "{}", after.body["tools"]);
    assert_eq!(summary(&after), json!("concise"));
    assert_eq!(network_line(&after), "enabled");
    assert_eq!(
        rig.committed_config("s-keep").at("/config/providerOptions"),
        Some(&options)
    );
    rig.finish("s-keep").await;

    // A reopen takes the providerOptions Paseo saved (here: others).
    let again =
        json!({"webSearch": "live", "reasoningSummary": "detailed", "networkAccess": false});
    let reopened = rig
        .resume(
            "s-keep-2",
            json!({"mode": "auto", "providerOptions": again}),
            persistence,
        )
        .await;
    let config = reopened
        .iter()
        .rfind(|e| e.is("session.config"))
        .expect("config");
    assert_eq!(config.at("/config/providerOptions"), Some(&again));
    let r = turn(&rig, "s-keep-2", "say hi").await;
    assert!(r.body.to_string().contains("KEEP-MARK"), "the same thread");
    assert_eq!(web_search(&r), Some(true), "{}", r.body["tools"]);
    assert_eq!(summary(&r), json!("detailed"));
    assert_eq!(network_line(&r), "restricted");
    rig.finish("s-keep-2").await;
    rig.report("controls-restart-reopen");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web_search_changes_between_turns_only() {
    let Some(rig) = rig().await else { return };
    rig.open("s-busy", json!({})).await;
    let (_, running) = rig
        .start_turn("s-busy", "SLOW please write a long text")
        .await;
    rig.wait_streaming("s-busy").await;
    let before = rig.committed_config("s-busy");
    // Reloading the thread would drop the running turn: refused, the summary with it.
    let answer = rig
        .configure(
            "s-busy",
            json!({"providerOptions": {"webSearch": "disabled", "reasoningSummary": "detailed"}}),
        )
        .await;
    assert!(answer.is("request.failed"), "{answer}");
    assert_eq!(answer.string_at("/error/code"), "session_busy", "{answer}");
    assert_eq!(
        rig.committed_config("s-busy").seq,
        before.seq,
        "nothing applied"
    );
    // A turn setting alone is taken during the turn, for the next one.
    let answer = rig
        .configure(
            "s-busy",
            json!({"providerOptions": {"reasoningSummary": "detailed"}}),
        )
        .await;
    assert!(answer.is("request.completed"), "{answer}");
    assert!(rig.interrupt("s-busy").await.is("request.completed"));
    let end = rig.turn_end("s-busy", &running).await;
    assert_eq!(end.turn_state(), Some("canceled"), "{end}");
    // Between turns the web search change goes through.
    let answer = rig
        .configure(
            "s-busy",
            json!({"providerOptions": {"webSearch": "disabled"}}),
        )
        .await;
    assert!(answer.is("request.completed"), "{answer}");
    let r = turn(&rig, "s-busy", "say hi").await;
    assert_eq!(web_search(&r), None, "{}", r.body["tools"]);
    assert_eq!(summary(&r), json!("detailed"));
    rig.finish("s-busy").await;
    rig.report("controls-busy");
}
