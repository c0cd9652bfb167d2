//! `try` on a machine whose model is out of reach: the real pinned OpenCode (it needs no
//! login, so `try` picks it first) pointed at a closed localhost port — no internet needed.
//! OpenCode retries for over a minute and says nothing over ACP meanwhile; its log (stderr,
//! `--print-logs`) says why. `try` gives up on it within `--give-up-after` seconds of trying it with the
//! CLI's words, says so in one line and goes straight to the demo agent.

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
        .args(["try", "--give-up-after", "60", "say hi"])
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
    let gave_up = at("giving up on opencode-bridge: the model could not be reached within 60 s: ");
    assert!(
        lines[gave_up].contains("Cannot connect to API"),
        "the CLI's words: {stdout}"
    );
    assert!(
        lines[gave_up].ends_with("; going straight to Demo agent (demo), which needs no network"),
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
    let demo = lines
        .iter()
        .position(|l| l.starts_with("Demo agent (demo)"))
        .unwrap_or_else(|| panic!("the demo ran:\n{stdout}"));
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

/// The pinned CLIs `try` finds on this PATH (the others are left out, so their skip lines
/// would name the PATH).
const ON_PATH: &[&str] = &[
    "gemini",
    "qwen",
    "opencode",
    "claude-agent-acp",
    "codex-acp",
    "copilot",
    "kilo",
    "cline",
];

/// `try` on an offline machine: the workspace's plugin.json, a PATH holding the pinned CLIs
/// (Claude Code and Codex left out), a HOME where nobody logged in, and no network beyond
/// 127.0.0.1 (every proxy variable points to a closed local port). Whatever each agent does
/// (not logged in, a login that cannot be checked, a model out of reach, silence), `try`
/// reaches the demo agent and completes its turn; an agent it gave up on is named once with
/// its words; after a model out of reach no other agent is tried; the PATH is printed once.
/// Prints how long each step took (not asserted).
#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[test]
fn try_offline_with_every_cli_installed_reaches_the_demo() {
    let mut clis = Vec::new();
    for name in ON_PATH {
        let Some(path) = mock_llm::require_cli(name) else {
            return;
        };
        clis.push((name, path));
    }
    let bin = tempfile::tempdir().expect("bin dir");
    for (name, path) in &clis {
        std::os::unix::fs::symlink(path, bin.path().join(name)).expect("symlink");
    }
    let home = tempfile::tempdir().expect("home");
    let cwd = tempfile::tempdir().expect("cwd");
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let proxy = format!("http://127.0.0.1:{closed}");
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.path().display());
    let workspace = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    // Before the fix `try` never ended (Kilo waited for the network without a word): a
    // guard, far above the 60 s the demo is reached within, makes that a failure.
    let mut command = Command::new("timeout");
    command
        .args(["300", BIN, "try", "say hi"])
        .env_clear()
        .env("HOME", home.path())
        .env("PATH", &path)
        .env("LANG", "C.UTF-8")
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env("no_proxy", "127.0.0.1,localhost")
        .env("AGENT_BRIDGE_PLUGIN_DIR", workspace)
        .current_dir(cwd.path())
        .stdin(Stdio::null());
    for var in ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"] {
        command.env(var, &proxy).env(var.to_lowercase(), &proxy);
    }
    let started = std::time::Instant::now();
    let out = command.output().expect("run agent-bridge");
    let took = started.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("try offline took {} ms:\n{stdout}", took.as_millis());
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    let demo = lines
        .iter()
        .position(|l| l.starts_with("Demo agent (demo)"))
        .unwrap_or_else(|| panic!("the demo ran:\n{stdout}"));
    assert!(
        lines[demo..]
            .iter()
            .any(|l| l.contains("── turn completed")),
        "{stdout}"
    );
    assert!(stdout.contains("You said: say hi"), "{stdout}");
    assert!(
        lines[demo..].iter().all(|l| !l.starts_with("skipping")),
        "nothing is waited for after the demo started:\n{stdout}"
    );
    assert_eq!(
        stdout.matches(&path).count(),
        1,
        "the PATH is printed once:\n{stdout}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("skipping claude-bridge (missing)")
                && l.contains("not found on the PATH")),
        "{stdout}"
    );
    // Each agent given up is named once, with words after its id.
    let gave_up: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains("giving up on"))
        .collect();
    for line in &gave_up {
        let words = line.split_once(": ").map(|(_, w)| w).unwrap_or_default();
        assert!(words.len() > 20, "the CLI's words: {line}");
    }
    // After a model out of reach, the demo comes next.
    if let Some(at) = lines
        .iter()
        .position(|l| l.contains("going straight to Demo agent"))
    {
        assert!(
            lines[at + 1..demo].iter().all(|l| !l.contains(" · ")),
            "no other agent after the first model out of reach:\n{stdout}"
        );
    }
}
