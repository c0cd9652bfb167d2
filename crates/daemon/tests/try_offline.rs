//! `try` on a machine whose model is out of reach: the real pinned OpenCode (it needs no
//! login, so `try` picks it first) pointed at a closed localhost port — no internet needed.
//! OpenCode retries for over a minute and says nothing over ACP meanwhile; its log (stderr,
//! `--print-logs`) says why. `try` gives up on it within `--give-up-after` seconds with the
//! CLI's words, says so in one line and runs the next usable agent, the demo.

use mock_llm::Cli;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_agent-bridge");

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[test]
fn try_gives_up_on_an_unreachable_model_and_runs_the_next_agent() {
    let Some(opencode) = mock_llm::require_cli("opencode") else {
        return;
    };
    // A port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let root = tempfile::tempdir().expect("root");
    let env = mock_llm::hermetic::build(Cli::Opencode, port, root.path())
        .expect("hermetic env")
        .env;
    let plugin = tempfile::tempdir().expect("plugin dir");
    let manifest = serde_json::json!({"id": "agent-bridge", "version": "0.1.0", "providers": [
        {"id": "opencode-bridge", "label": "OpenCode", "agent": "acp", "command": [opencode]},
        {"id": "demo", "label": "Demo agent", "agent": "demo"}
    ]});
    std::fs::write(plugin.path().join("plugin.json"), manifest.to_string()).expect("plugin.json");
    let out = Command::new(BIN)
        .args(["try", "--give-up-after", "10", "say hi"])
        .env_clear()
        .envs(&env)
        .env("AGENT_BRIDGE_PLUGIN_DIR", plugin.path())
        .current_dir(root.path())
        .stdin(Stdio::null())
        .output()
        .expect("run agent-bridge");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    let at = |prefix: &str| {
        lines
            .iter()
            .position(|l| l.contains(prefix))
            .unwrap_or_else(|| panic!("no `{prefix}` in:\n{stdout}\n{stderr}"))
    };
    let opened = at("OpenCode (opencode-bridge)");
    let gave_up = at("giving up on opencode-bridge: the model could not be reached within 10 s: Cannot connect to API");
    assert!(
        lines[gave_up].ends_with("; trying the next agent"),
        "{stdout}"
    );
    assert_eq!(
        lines.iter().filter(|l| l.contains("giving up")).count(),
        1,
        "said once:\n{stdout}"
    );
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("Retrying the model connection"))
            .count(),
        1,
        "the retries are said once:\n{stdout}"
    );
    let demo = at("Demo agent (demo)");
    let completed = at("── turn completed");
    assert!(
        opened < gave_up && gave_up < demo && demo < completed,
        "{stdout}"
    );
    assert!(!stdout.contains("turn failed"), "{stdout}");
    assert!(stdout.contains("You said: say hi"), "{stdout}");
    let version = mock_llm::cli_version(&opencode).unwrap_or_else(|| "unknown".into());
    mock_llm::report_ok(
        "opencode",
        &version,
        "try-falls-back-when-the-model-is-unreachable",
    );
}
