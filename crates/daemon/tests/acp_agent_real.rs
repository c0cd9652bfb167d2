//! `agent-bridge acp` with the real pinned CLIs (`claude-bridge`, `codex-bridge`) against the
//! mock model: a turn, cancel, kill -9 of the CLI mid-turn then the next prompt, load with replay
//! after a restart, list, set mode, and stdin closed leaving no process behind; and, for those
//! two and two ACP agents (`claude-acp-bridge`, `codex-acp-bridge`), the mode set in one agent
//! process is the mode of the session a second one resumes. `#[ignore]`d: they need the CLIs
//! of `tests/clis/install.sh` (`-- --include-ignored acp_real`).

mod acp_support;

use acp_support::{alive, chunks, descendants, AcpClient};
use mock_llm::{HermeticEnv, MockLlm};
use serde_json::json;
use std::path::{Path, PathBuf};

struct RealRig {
    provider: &'static str,
    _mock: MockLlm,
    env: HermeticEnv,
    plugin_dir: PathBuf,
    data_dir: PathBuf,
    _root: tempfile::TempDir,
}

impl RealRig {
    /// The mock model, the CLI's hermetic environment and a plugin.json whose `provider` entry
    /// runs the pinned CLI; `None` (SKIPPED) when the CLI is not installed outside CI.
    async fn start(
        provider: &'static str,
        agent: &str,
        cli: &str,
        hermetic: fn(&MockLlm, &Path) -> Result<HermeticEnv, mock_llm::HermeticError>,
    ) -> Option<RealRig> {
        let cli_path = mock_llm::require_cli(cli)?;
        let mock = MockLlm::start().await.expect("mock server");
        let root = tempfile::tempdir().expect("temp root");
        let env = hermetic(&mock, root.path()).expect("hermetic env");
        let plugin_dir = root.path().join("plugin");
        std::fs::create_dir_all(&plugin_dir).unwrap();
        let manifest = json!({
            "id": "agent-bridge", "name": "Agent Bridge", "version": "0.1.0",
            "runtime": "executable", "main": "agent-bridge", "apiVersion": 1,
            "providers": [{"id": provider, "label": provider, "agent": agent,
                "command": [cli_path.display().to_string()]}],
        });
        std::fs::write(plugin_dir.join("plugin.json"), manifest.to_string()).unwrap();
        let data_dir = root.path().join("data");
        Some(RealRig {
            provider,
            _mock: mock,
            env,
            plugin_dir,
            data_dir,
            _root: root,
        })
    }

    async fn client(&self) -> AcpClient {
        let mut c = AcpClient::start_in(
            self.provider,
            &self.plugin_dir,
            &self.data_dir,
            Some(&self.env.env),
            &[],
        );
        let init = c.initialize().await;
        assert_eq!(init["result"]["protocolVersion"], 1, "{init}");
        assert_eq!(init["result"]["authMethods"], json!([]), "{init}");
        c
    }

    fn cwd(&self) -> &Path {
        &self.env.workdir
    }
}

async fn scenarios(rig: RealRig, ask_mode: &str) {
    let mut c = rig.client().await;
    let session = c.new_session(rig.cwd()).await;

    // A turn.
    let (before, end) = c.prompt(&session, "say hello").await;
    assert_eq!(end["result"]["stopReason"], "end_turn", "{end}");
    assert!(
        chunks(&before, "agent_message_chunk").contains("mock reply"),
        "{before:?}"
    );

    // A tool with its permission allowed, then one rejected, in the mode that asks.
    let (_, set) = c
        .call(
            "session/set_mode",
            json!({"sessionId": session, "modeId": ask_mode}),
        )
        .await;
    assert_eq!(set["result"], json!({}), "{set}");
    for (kind, file, runs) in [
        ("allow_once", "allowed.txt", true),
        ("reject_once", "denied.txt", false),
    ] {
        c.asked.clear();
        c.permissions = acp_support::PermissionAnswer::Kind(kind);
        let (_, end) = c
            .prompt(&session, &format!("please run `touch {file}`"))
            .await;
        assert_eq!(end["result"]["stopReason"], "end_turn", "{kind}: {end}");
        assert!(!c.asked.is_empty(), "{kind}: the CLI asked");
        assert_eq!(
            c.asked[0]["params"]["toolCall"]["kind"], "execute",
            "{:?}",
            c.asked
        );
        assert_eq!(rig.cwd().join(file).exists(), runs, "{kind}");
    }
    c.permissions = acp_support::PermissionAnswer::Kind("allow_once");

    // Cancel mid-turn.
    let id = c
        .request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "SLOW please"}]}),
        )
        .await;
    loop {
        let m = c.next().await;
        if m["params"]["update"]["sessionUpdate"] == "agent_message_chunk" {
            break;
        }
        assert!(
            m.get("id") != Some(&json!(id)),
            "the turn ended before streaming: {m}"
        );
    }
    c.notify("session/cancel", json!({"sessionId": session}))
        .await;
    let (_, cancelled) = c.until(id).await;
    assert_eq!(
        cancelled["result"]["stopReason"], "cancelled",
        "{cancelled}"
    );

    // kill -9 of the CLI mid-turn: that prompt fails, the next one resumes.
    let id = c
        .request(
            "session/prompt",
            json!({"sessionId": session, "prompt": [{"type": "text", "text": "SLOW again"}]}),
        )
        .await;
    loop {
        let m = c.next().await;
        if m["params"]["update"]["sessionUpdate"] == "agent_message_chunk" {
            break;
        }
    }
    let agent_pid = c.child.id().expect("agent pid") as i32;
    let cli: Vec<_> = descendants(agent_pid)
        .into_iter()
        .filter(|p| !p.cmdline.contains("agent-bridge"))
        .collect();
    assert!(!cli.is_empty(), "the CLI runs under the agent");
    for p in &cli {
        // SAFETY: kill(2) on a pid just read from /proc.
        unsafe { libc_kill(p.pid) };
    }
    let (_, failed) = c.until(id).await;
    assert!(failed["error"]["message"].as_str().is_some(), "{failed}");
    let (_, next) = c.prompt(&session, "are you back").await;
    assert_eq!(next["result"]["stopReason"], "end_turn", "{next}");

    // List and set mode.
    let (_, list) = c.call("session/list", json!({"cwd": rig.cwd()})).await;
    assert!(list.get("result").is_some(), "{list}");
    let (_, new) = c
        .call("session/new", json!({"cwd": rig.cwd(), "mcpServers": []}))
        .await;
    let modes = new["result"]["modes"]["availableModes"].clone();
    if let Some(mode) = modes.as_array().and_then(|m| m.last()) {
        let other = new["result"]["sessionId"].as_str().unwrap();
        let (_, set) = c
            .call(
                "session/set_mode",
                json!({"sessionId": other, "modeId": mode["id"]}),
            )
            .await;
        assert_eq!(set["result"], json!({}), "{set}");
    }

    // stdin closed: the agent exits and leaves no process behind.
    let under: Vec<_> = descendants(agent_pid);
    assert!(c.close_stdin().await.success());
    for p in &under {
        let mut gone = false;
        for _ in 0..100 {
            if !alive(p.pid) {
                gone = true;
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        assert!(gone, "left behind: {p:?}");
    }

    // Load with replay in a new agent process.
    let mut c = rig.client().await;
    let (replay, loaded) = c
        .call(
            "session/load",
            json!({"sessionId": session, "cwd": rig.cwd(), "mcpServers": []}),
        )
        .await;
    assert!(loaded.get("error").is_none(), "{loaded}");
    assert!(
        chunks(&replay, "user_message_chunk").contains("say hello"),
        "{replay:?}"
    );
    let (_, after) = c.prompt(&session, "one more").await;
    assert_eq!(after["result"]["stopReason"], "end_turn", "{after}");
    assert!(c.close_stdin().await.success());
}

/// A mode set in one agent process is the mode of the session a second agent process resumes
/// (ACP's `session/resume` carries none), and the reopened session uses it: a command asks
/// (`asks`) or runs without asking.
async fn mode_survives_reopen(rig: RealRig, mode: &str, asks: bool) {
    let mut c = rig.client().await;
    let session = c.new_session(rig.cwd()).await;
    let (_, end) = c.prompt(&session, "say hello").await;
    assert_eq!(end["result"]["stopReason"], "end_turn", "{end}");
    let (_, set) = c
        .call(
            "session/set_mode",
            json!({"sessionId": session, "modeId": mode}),
        )
        .await;
    assert_eq!(set["result"], json!({}), "{set}");
    assert!(c.close_stdin().await.success());

    let mut c = rig.client().await;
    let (_, resumed) = c
        .call(
            "session/resume",
            json!({"sessionId": session, "cwd": rig.cwd(), "mcpServers": []}),
        )
        .await;
    assert_eq!(
        resumed["result"]["modes"]["currentModeId"], mode,
        "{resumed}"
    );
    c.permissions = if asks {
        acp_support::PermissionAnswer::Kind("reject_once")
    } else {
        acp_support::PermissionAnswer::Hold
    };
    let (_, end) = c
        .prompt(&session, "please run `touch after-reopen.txt`")
        .await;
    assert_eq!(end["result"]["stopReason"], "end_turn", "{end}");
    assert_eq!(!c.asked.is_empty(), asks, "{:?}", c.asked);
    assert_eq!(rig.cwd().join("after-reopen.txt").exists(), !asks);
    assert!(c.close_stdin().await.success());
}

unsafe fn libc_kill(pid: i32) {
    extern "C" {
        fn kill(pid: i32, sig: i32) -> i32;
    }
    // SAFETY: kill(2) takes plain integers and touches no memory of ours.
    unsafe {
        kill(pid, 9);
    }
}

#[tokio::test]
#[ignore = "needs the pinned claude CLI (tests/clis/install.sh)"]
async fn acp_real_claude_bridge() {
    if let Some(rig) = RealRig::start(
        "claude-bridge",
        "claude",
        "claude",
        mock_llm::hermetic::claude,
    )
    .await
    {
        scenarios(rig, "default").await;
    }
}

#[tokio::test]
#[ignore = "needs the pinned codex CLI (tests/clis/install.sh)"]
async fn acp_real_codex_bridge() {
    if let Some(rig) =
        RealRig::start("codex-bridge", "codex", "codex", mock_llm::hermetic::codex).await
    {
        scenarios(rig, "ask").await;
    }
}

#[tokio::test]
#[ignore = "needs the pinned claude CLI (tests/clis/install.sh)"]
async fn acp_real_claude_bridge_mode_survives_reopen() {
    if let Some(rig) = RealRig::start(
        "claude-bridge",
        "claude",
        "claude",
        mock_llm::hermetic::claude,
    )
    .await
    {
        // Claude's default (`default`) asks; the chosen mode does not.
        mode_survives_reopen(rig, "bypassPermissions", false).await;
    }
}

#[tokio::test]
#[ignore = "needs the pinned codex CLI (tests/clis/install.sh)"]
async fn acp_real_codex_bridge_mode_survives_reopen() {
    if let Some(rig) =
        RealRig::start("codex-bridge", "codex", "codex", mock_llm::hermetic::codex).await
    {
        // Codex's default here (`full-access`) asks nothing; the chosen mode asks.
        mode_survives_reopen(rig, "ask", true).await;
    }
}

#[tokio::test]
#[ignore = "needs the pinned codex-acp CLI (tests/clis/install.sh)"]
async fn acp_real_codex_acp_bridge_mode_survives_reopen() {
    // An ACP agent bridged as an ACP agent: the reopened session is set to the mode it had.
    if let Some(rig) = RealRig::start(
        "codex-acp-bridge",
        "acp",
        "codex-acp",
        mock_llm::hermetic::codex_acp,
    )
    .await
    {
        // codex-acp's default here (`read-only`) sandboxes or asks; the chosen mode does not.
        mode_survives_reopen(rig, "full-access", false).await;
    }
}

#[tokio::test]
#[ignore = "needs the pinned claude-agent-acp CLI (tests/clis/install.sh)"]
async fn acp_real_claude_acp_bridge_mode_survives_reopen() {
    if let Some(rig) = RealRig::start(
        "claude-acp-bridge",
        "acp",
        "claude-agent-acp",
        mock_llm::hermetic::claude_agent_acp,
    )
    .await
    {
        mode_survives_reopen(rig, "bypassPermissions", false).await;
    }
}
