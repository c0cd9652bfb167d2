//! `try` and `doctor --json` on a machine with the real pinned `claude` and `codex` installed
//! but not logged in (empty HOME and CODEX_HOME, no keys): doctor says so for each, and `try`
//! skips both, naming why, and runs the demo agent. The rig's proxy trap and base URL keep
//! everything on loopback.

use mock_llm::{Cli, MockLlm};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_agent-bridge");

struct Machine {
    plugin: tempfile::TempDir,
    env: BTreeMap<String, String>,
    _root: tempfile::TempDir,
}

/// plugin.json with the demo, claude-bridge and codex-bridge (the pinned CLIs), and the
/// environment of a fresh machine.
fn machine(mock: &MockLlm, claude: &Path, codex: &Path) -> Machine {
    let root = tempfile::tempdir().expect("root");
    let mut env = mock_llm::hermetic::build(Cli::Claude, mock.port(), root.path())
        .expect("hermetic env")
        .env;
    env.remove("ANTHROPIC_API_KEY");
    let codex_home = root.path().join("codex-home");
    std::fs::create_dir_all(&codex_home).expect("CODEX_HOME");
    // Not a login: the plugin sync and update check off (they would try the network).
    std::fs::write(
        codex_home.join("config.toml"),
        "check_for_update_on_startup = false\n[features]\nplugins = false\n[analytics]\nenabled = false\n",
    )
    .expect("config.toml");
    env.insert("CODEX_HOME".into(), codex_home.display().to_string());
    let plugin = tempfile::tempdir().expect("plugin dir");
    let manifest = serde_json::json!({"id": "agent-bridge", "version": "0.1.0", "providers": [
        {"id": "demo", "label": "Demo agent", "agent": "demo"},
        {"id": "claude-bridge", "label": "Claude Code", "agent": "claude", "command": [claude]},
        {"id": "codex-bridge", "label": "Codex", "agent": "codex", "command": [codex]}
    ]});
    std::fs::write(plugin.path().join("plugin.json"), manifest.to_string()).expect("plugin.json");
    Machine {
        plugin,
        env,
        _root: root,
    }
}

fn run(m: &Machine, args: &[&str]) -> (Output, String) {
    let out = Command::new(BIN)
        .args(args)
        .env_clear()
        .envs(&m.env)
        .env("AGENT_BRIDGE_PLUGIN_DIR", m.plugin.path())
        .current_dir(m.plugin.path())
        .stdin(Stdio::null())
        .output()
        .expect("run agent-bridge");
    (
        out.clone(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn clis() -> Option<(PathBuf, PathBuf)> {
    Some((
        mock_llm::require_cli("claude")?,
        mock_llm::require_cli("codex")?,
    ))
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[test]
fn doctor_and_try_tell_that_claude_and_codex_are_not_logged_in() {
    let Some((claude, codex)) = clis() else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let mock = runtime.block_on(MockLlm::start()).expect("mock");
    let m = machine(&mock, &claude, &codex);

    let (out, stdout) = run(&m, &["doctor", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "not logged in is a problem: {stdout}"
    );
    let findings: Value = serde_json::from_str(&stdout).expect("doctor --json prints JSON");
    let of = |id: &str| {
        findings
            .as_array()
            .and_then(|a| a.iter().find(|f| f["id"] == id))
            .cloned()
            .unwrap_or_else(|| panic!("no {id} in {findings}"))
    };
    let claude_finding = of("claude-bridge");
    assert_eq!(claude_finding["status"], "unrunnable", "{claude_finding}");
    assert_eq!(
        claude_finding["diagnostic"],
        "Claude Code is not logged in: run `claude /login` or set ANTHROPIC_API_KEY"
    );
    assert!(
        claude_finding["version"]
            .as_str()
            .is_some_and(|v| v.contains("Claude Code")),
        "{claude_finding}"
    );
    let codex_finding = of("codex-bridge");
    assert_eq!(codex_finding["status"], "unrunnable", "{codex_finding}");
    assert!(
        codex_finding["diagnostic"]
            .as_str()
            .is_some_and(|d| d.starts_with("Codex is not logged in: run `codex login`")),
        "{codex_finding}"
    );
    assert_eq!(of("demo")["status"], "available");

    let (out, stdout) = run(&m, &["try", "say hi"]);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines.contains(
            &"skipping claude-bridge (unrunnable): Claude Code is not logged in: run `claude /login` or set ANTHROPIC_API_KEY"
        ),
        "{stdout}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with(
            "skipping codex-bridge (unrunnable): Codex is not logged in: run `codex login`"
        )),
        "{stdout}"
    );
    assert!(stdout.contains("Demo agent (demo)"), "{stdout}");
    assert!(stdout.contains("You said: say hi"), "{stdout}");
    assert!(mock.model_requests().is_empty(), "no model turn");
    for (cli, path) in [("claude", &claude), ("codex", &codex)] {
        let version = mock_llm::cli_version(path).unwrap_or_else(|| "unknown".into());
        mock_llm::report_ok(cli, &version, "try-skips-not-logged-in");
    }
}
