//! The plugin's tools (`tools/call`, API 4) with claude-bridge and codex-bridge against the
//! mock model server, called as an agent in an Agentty pane calls them: `list_agents`,
//! `ask_agent` running a shell command (the account of its tools), the session continued by its
//! id, a permission no one can answer with the panel closed, and a turn past the answer
//! deadline collected later. `#[ignore]`d like the other real-CLI tests (`--include-ignored`);
//! a missing CLI is SKIPPED, or fails under `CI` / `AGENT_BRIDGE_REQUIRE_CLIS=1`.

mod support;

use agentty_host::{context, stage, AgenttyHost, Consent, HostOptions, ToolAnswer, ToolHost};
use mock_llm::{HermeticEnv, HermeticError, MockLlm};
use serde_json::{json, Value};
use std::path::Path;
use support::*;

struct Case {
    cli: &'static str,
    provider: &'static str,
    label: &'static str,
    hermetic: fn(&MockLlm, &Path) -> Result<HermeticEnv, HermeticError>,
    /// The mode `ask_agent` picks when none is named (one that cannot write).
    read_only: &'static str,
    /// A mode that runs commands without asking, and one that asks before each.
    unattended: &'static str,
    asks: &'static str,
}

fn start(env: &HermeticEnv, root: &Path, answer_ms: Option<u64>) -> AgenttyHost {
    let plugin_dir = stage(root, |_| {});
    let mut agentty_env = env.env.clone();
    let bin = agent_bridge_conformance::bridge_binary().expect("binary");
    agentty_env.insert("AGENT_BRIDGE_BIN".into(), bin.display().to_string());
    if let Ok(level) = std::env::var("AGENT_BRIDGE_LOG") {
        agentty_env.insert("AGENT_BRIDGE_LOG".into(), level);
    }
    if let Some(ms) = answer_ms {
        agentty_env.insert("AGENT_BRIDGE_TOOL_ANSWER_MS".into(), ms.to_string());
    }
    let host = AgenttyHost::start(HostOptions {
        plugin_dir,
        data_dir: root.join("plugin-data/agent-bridge"),
        env: agentty_env,
        context: context(&env.workdir),
        session_get: None,
        consent: Consent::Allow,
    })
    .expect("plugin starts");
    host.initialize();
    // A call reaches a plugin whose panel is closed (Agentty starts it for the call).
    host.close_panel();
    host
}

fn ask(tools: &ToolHost, case: &Case, what: &str, arguments: Value) -> ToolAnswer {
    let answer = tools.call("ask_agent", arguments);
    answer.report(case.provider, what);
    answer
}

fn run(case: Case) {
    let Some(path) = mock_llm::require_cli(case.cli) else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let mock = runtime.block_on(MockLlm::start()).expect("mock server");
    let root = tempfile::tempdir().expect("temp root");
    let env = (case.hermetic)(&mock, root.path()).expect("hermetic env");
    let host = start(&env, &root.path().join("a"), None);
    let tools = ToolHost::new(&host);

    // A turn that runs a command: its final text and its account of the tool.
    let ran = ask(
        &tools,
        &case,
        "ask_agent (runs a command)",
        json!({"agent": case.provider, "prompt": "please run `echo tool-account`",
               "mode": case.unattended}),
    );
    assert_eq!(ran.field("status"), "completed", "{}", ran.text());
    assert!(
        ran.text()
            .contains("Done. The command printed: tool-account"),
        "{}",
        ran.text()
    );
    assert!(ran.text().contains("Tools it ran (1):"), "{}", ran.text());
    assert!(ran.text().contains("(done)"), "{}", ran.text());
    let session = ran.field("session");

    // The same conversation, continued by its id.
    let again = ask(
        &tools,
        &case,
        "ask_agent (continued)",
        json!({"session": session, "prompt": "say hi again"}),
    );
    assert_eq!(again.field("status"), "completed", "{}", again.text());
    assert_eq!(again.field("session"), session);
    assert!(again.text().contains("mock reply"), "{}", again.text());

    // In the default mode (read-only), a plain question.
    let plain = ask(
        &tools,
        &case,
        "ask_agent (default mode)",
        json!({"agent": case.label, "prompt": "a second opinion, please"}),
    );
    assert_eq!(plain.field("status"), "completed", "{}", plain.text());
    assert!(plain.text().contains("mock reply"), "{}", plain.text());

    // The agents, with this one's modes and models (its catalog was read for the turns).
    let listed = tools.call("list_agents", json!({}));
    listed.report(case.provider, "list_agents");
    let v: Value = serde_json::from_str(listed.text()).expect("JSON");
    let agent = v["agents"]
        .as_array()
        .and_then(|a| a.iter().find(|a| a["id"] == case.provider))
        .cloned()
        .expect("listed");
    assert_eq!(agent["available"], true, "{agent}");
    assert_eq!(agent["askAgentMode"], case.read_only, "{agent}");
    assert!(
        agent["models"].as_array().is_some_and(|m| !m.is_empty()),
        "{agent}"
    );

    // A mode that asks first, the panel closed: the call fails saying why, nothing hangs.
    let asked = ask(
        &tools,
        &case,
        "ask_agent (permission, panel closed)",
        json!({"agent": case.provider, "prompt": "please run `touch never.txt`",
               "mode": case.asks}),
    );
    eprintln!(
        "TOOLS-REPORT {} permission answer:\n{}",
        case.provider,
        asked.text()
    );
    assert!(asked.is_error(), "{}", asked.text());
    assert!(
        asked.text().contains("the Agent Bridge panel is closed"),
        "{}",
        asked.text()
    );
    assert!(!env.workdir.join("never.txt").exists(), "the command ran");
    host.assert_clean();
    stop(&host);

    // Past the deadline (2 s here, 100 s in use): what is done so far, then the rest.
    let host = start(&env, &root.path().join("b"), Some(2_000));
    let tools = ToolHost::new(&host);
    let first = ask(
        &tools,
        &case,
        "ask_agent (over the limit)",
        json!({"agent": case.provider, "prompt": "take your time SLOW"}),
    );
    eprintln!(
        "TOOLS-REPORT {} over-limit answer:\n{}",
        case.provider,
        first.text()
    );
    assert_eq!(first.field("status"), "running", "{}", first.text());
    let session = first.field("session");
    let mut last = first;
    for _ in 0..60 {
        if last.field("status") != "running" {
            break;
        }
        last = ask(
            &tools,
            &case,
            "ask_agent (collect)",
            json!({"session": session}),
        );
    }
    assert_eq!(last.field("status"), "completed", "{}", last.text());
    assert!(last.text().contains("slow chunk 40/40"), "{}", last.text());
    host.assert_clean();
    stop(&host);

    let version = mock_llm::cli_version(&path)
        .or_else(|| mock_llm::package_version(&path))
        .unwrap_or_else(|| "unknown".into());
    mock_llm::report_ok(case.cli, &version, "agentty-tools");
}

#[test]
#[ignore = "needs the pinned Claude Code (tests/clis/install.sh)"]
fn claude_bridge_as_a_tool() {
    run(Case {
        cli: "claude",
        provider: "claude-bridge",
        label: "Claude Code",
        hermetic: mock_llm::hermetic::claude,
        read_only: "plan",
        unattended: "bypassPermissions",
        asks: "default",
    });
}

#[test]
#[ignore = "needs the pinned Codex (tests/clis/install.sh)"]
fn codex_bridge_as_a_tool() {
    run(Case {
        cli: "codex",
        provider: "codex-bridge",
        label: "Codex",
        hermetic: mock_llm::hermetic::codex,
        read_only: "read-only",
        unattended: "full-access",
        asks: "ask",
    });
}
