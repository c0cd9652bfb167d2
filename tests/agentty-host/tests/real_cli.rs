//! One real turn each for claude-bridge and codex-bridge through the panel, against the mock
//! model server: the plugin gets the CLI's hermetic environment as Agentty's own (PATH with the
//! pinned CLIs first), picks the agent in `agent`, sends a prompt, shows the reply, and stops
//! within 1.5 s with every CLI gone. `#[ignore]`d like the other real-CLI tests: a plain
//! `cargo test` lists them as not run; `--include-ignored` (scripts/test-all.sh) runs them. A
//! missing CLI is SKIPPED, or fails under `CI` / `AGENT_BRIDGE_REQUIRE_CLIS=1`.

mod support;

use agentty_host::{context, stage, AgenttyHost, Consent, HostOptions};
use mock_llm::{HermeticEnv, HermeticError, MockLlm};
use std::path::Path;
use std::time::Duration;
use support::*;

const TURN: Duration = Duration::from_secs(90);

fn real_turn(
    cli: &str,
    provider: &str,
    label: &str,
    hermetic: fn(&MockLlm, &Path) -> Result<HermeticEnv, HermeticError>,
) {
    let Some(path) = mock_llm::require_cli(cli) else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let mock = runtime.block_on(MockLlm::start()).expect("mock server");
    let root = tempfile::tempdir().expect("temp root");
    let env = hermetic(&mock, root.path()).expect("hermetic env");
    let plugin_dir = stage(root.path(), |_| {});
    let mut agentty_env = env.env.clone();
    let bin = agent_bridge_conformance::bridge_binary().expect("binary");
    agentty_env.insert("AGENT_BRIDGE_BIN".into(), bin.display().to_string());
    let host = AgenttyHost::start(HostOptions {
        plugin_dir,
        data_dir: root.path().join("plugin-data/agent-bridge"),
        env: agentty_env,
        context: context(&env.workdir),
        session_get: None,
        consent: Consent::Allow,
    })
    .expect("plugin starts");
    host.initialize();
    host.wait_panel(&format!("{provider} offered"), TURN, |s| {
        s.find("agent").is_some_and(|a| {
            a["options"]
                .as_array()
                .is_some_and(|o| o.iter().any(|o| o["value"] == provider))
        })
    });
    host.choose("agent", provider);
    wait_agent(&host, provider);
    let asked = format!("say hi to the {label} panel");
    send(&host, &asked);
    host.wait_row("timeline", "the prompt", TURN, |r| {
        r["icon"] == "message-square" && r["title"].as_str().is_some_and(|t| t.contains(&asked))
    });
    let reply = host.wait_row("timeline", "the mock's reply", TURN, |r| {
        r["icon"] == "bot"
            && r["title"]
                .as_str()
                .is_some_and(|t| t.contains("mock reply"))
    });
    assert_eq!(reply["subtitle"], label);
    host.wait_panel("the turn's end", TURN, |s| {
        s.find("interrupt").is_some_and(|b| b["disabled"] == true)
    });
    assert!(
        !mock.model_requests().is_empty(),
        "the CLI asked the mock model"
    );
    let cli_procs = agent_bridge_conformance::procs::descendants(host.pid)
        .into_iter()
        .filter(|p| p.cmdline.contains(cli))
        .count();
    assert!(cli_procs > 0, "the CLI runs under the plugin");
    host.assert_clean();
    let s = stop(&host);
    report(&format!("{provider} real turn"), host.stats(), &s);
    let version = mock_llm::cli_version(&path)
        .or_else(|| mock_llm::package_version(&path))
        .unwrap_or_else(|| "unknown".into());
    mock_llm::report_ok(cli, &version, "agentty-panel-turn");
}

#[test]
#[ignore = "needs the pinned Claude Code (tests/clis/install.sh)"]
fn claude_bridge_turn_through_the_panel() {
    real_turn(
        "claude",
        "claude-bridge",
        "Claude Code",
        mock_llm::hermetic::claude,
    );
}

#[test]
#[ignore = "needs the pinned Codex (tests/clis/install.sh)"]
fn codex_bridge_turn_through_the_panel() {
    real_turn("codex", "codex-bridge", "Codex", mock_llm::hermetic::codex);
}
