//! Discovery and failures through the real bridge and the real pinned `codex`: availability
//! (found / missing), the catalog (models from model/list with efforts, the four modes), an
//! API error failing the turn with the CLI's message, and can_stop_runtime.

mod common;

use agent_bridge_conformance::{input, BridgeHost, HostOptions};
use common::*;
use mock_llm::{Script, ScriptReply};
use serde_json::{json, Value};

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn availability_finds_codex_on_path_and_reports_it_missing_otherwise() {
    let Some(rig) = rig().await else { return };
    let bin_dir = rig.cli.parent().expect("bin dir").display().to_string();
    let path = format!("{bin_dir}:/usr/local/bin:/usr/bin:/bin");
    // The bridge's own environment (availability has no launch): codex on PATH, the hermetic
    // HOME and CODEX_HOME.
    let mut options = HostOptions::default().env("PATH", path);
    for key in ["HOME", "CODEX_HOME"] {
        if let Some(v) = rig.env.env.get(key) {
            options = options.env(key, v.clone());
        }
    }
    let host = BridgeHost::spawn_with(options).await.expect("bridge");
    host.initialize().await.expect("initialize");
    let found = host
        .request(
            "provider/availability",
            json!({"providerId": PROVIDER, "options": {}}),
        )
        .await
        .expect("availability");
    assert_eq!(found["status"], "available", "{found}");
    if let Some(d) = found["diagnostic"].as_str() {
        assert!(
            d.contains("sandbox"),
            "only a sandbox diagnostic is expected: {d}"
        );
    }

    let host = BridgeHost::spawn_with(HostOptions::default().env("PATH", "/nonexistent"))
        .await
        .expect("bridge");
    host.initialize().await.expect("initialize");
    let missing = host
        .request(
            "provider/availability",
            json!({"providerId": PROVIDER, "options": {}}),
        )
        .await
        .expect("availability");
    assert_eq!(missing["status"], "missing", "{missing}");
    assert!(
        missing["diagnostic"]
            .as_str()
            .unwrap_or("")
            .contains("codex"),
        "{missing}"
    );
    rig.report("availability");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn catalog_lists_models_with_efforts_and_the_four_modes() {
    let Some(rig) = rig().await else { return };
    let answer = rig
        .ask("cat", |rid| {
            let mut catalog_input = input::catalog(rid);
            catalog_input["cwd"] = json!(rig.cwd().display().to_string());
            catalog_input
        })
        .await;
    assert!(answer.is("catalog"), "{answer}");
    let catalog = answer.at("/catalog").cloned().unwrap_or(Value::Null);
    let modes: Vec<&str> = catalog["modes"]
        .as_array()
        .map(|m| m.iter().filter_map(|x| x["id"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(modes, vec!["read-only", "auto", "full-access", "ask"]);
    let full = &catalog["modes"][2];
    assert_eq!(full["isUnattended"], true);
    // Defaults come from the hermetic config.toml.
    assert_eq!(catalog["defaultModel"], "mock-model", "{catalog}");
    assert_eq!(catalog["defaultMode"], "full-access", "{catalog}");
    let models = catalog["models"].as_array().cloned().unwrap_or_default();
    assert_eq!(models[0]["id"], "mock-model");
    let listed = models
        .iter()
        .find(|m| m["isDefault"] == true)
        .expect("model/list's default model");
    let efforts = listed["thinkingOptions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(efforts.len() > 1, "{listed}");
    assert!(efforts
        .iter()
        .any(|e| Some(e["id"].clone()) == listed.get("defaultThinkingOptionId").cloned()));
    rig.host.assert_invariants();
    rig.report("catalog");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_api_error_fails_the_turn_with_the_cli_message_and_the_session_goes_on() {
    let Some(rig) = rig().await else { return };
    rig.open("s-err", json!({})).await;
    let script = Script::steps([])
        .rule(
            "FAILME",
            ScriptReply::Error {
                status: 401,
                message: "Incorrect API key provided: sk-test".into(),
            },
        )
        .expect("rule");
    rig.mock.push_script(script);
    let run = rig.run_turn("s-err", "FAILME please").await;
    assert_eq!(run.state(), "failed", "{:?}", run.end);
    let message = run.end.string_at("/error/message");
    assert!(
        message.contains("401") && message.contains("Incorrect API key provided"),
        "{}",
        run.end
    );

    // Idle again: the runtime may be stopped, and the next turn works.
    let answer = rig
        .ask("stop", |rid| input::can_stop_runtime(rid, "s-err"))
        .await;
    assert_eq!(answer.at("/canStop"), Some(&json!(true)), "{answer}");
    let run = rig.run_turn("s-err", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish("s-err").await;
    rig.report("api-error");
}
