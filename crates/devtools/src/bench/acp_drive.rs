//! An ACP agent driven directly, as an editor drives it: a JSON-RPC 2.0 client over the
//! agent's stdio (`initialize`, `session/new`, `session/prompt`, reading `session/update`
//! notifications until the prompt's answer). No client capability is advertised (no `fs/*`,
//! no `terminal/*`), as the bridge advertises none; a permission request is allowed with its
//! first "allow" option. Used by `bench --acp` (every ACP agent), `--codex` (codex-acp) and
//! `--claude` (claude-agent-acp).

use super::codex_drive::RpcChild;
use super::codex_modes::{push_output, TurnTimes, PROMPT};
use agent_bridge_core::supervisor::SpawnSpec;
use anyhow::bail;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// Longest one step (an open's call, a turn) may take.
const STEP: Duration = Duration::from_secs(90);

/// One ACP session on an agent process of its own.
pub struct Acp {
    pub cli: RpcChild,
    session: Value,
}

impl Acp {
    pub fn spawn(spec: &SpawnSpec, name: &'static str) -> anyhow::Result<(RpcChild, Instant)> {
        RpcChild::spawn(spec, name, true)
    }

    /// initialize + session/new; returns the session and spawn -> session ready.
    pub fn open(mut cli: RpcChild, started: Instant, cwd: &str) -> anyhow::Result<(Acp, Duration)> {
        let init = json!({"protocolVersion": 1, "clientCapabilities": {}});
        cli.call("initialize", init, STEP)?;
        let (_, at, result) =
            cli.call("session/new", json!({"cwd": cwd, "mcpServers": []}), STEP)?;
        let session = result["sessionId"].clone();
        if !session.is_string() {
            bail!("session/new answered no sessionId: {result}");
        }
        Ok((Acp { cli, session }, at.saturating_duration_since(started)))
    }

    /// One "say hi" prompt: written -> its `session/prompt` answer read, with when each
    /// assistant text chunk was read.
    pub fn turn(&mut self) -> anyhow::Result<TurnTimes> {
        let params =
            json!({"sessionId": self.session, "prompt": [{"type": "text", "text": PROMPT}]});
        let (id, sent) = self.cli.request("session/prompt", params)?;
        let mut outputs = Vec::new();
        let (end, answer) = self.cli.wait(STEP, "the session/prompt answer", |at, v| {
            if v["method"] == "session/update"
                && v["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
            {
                push_output(&mut outputs, at);
            }
            v["id"] == json!(id) && v.get("method").is_none()
        })?;
        let stop = &answer["result"]["stopReason"];
        if stop != "end_turn" {
            bail!("a {} turn stopped with {stop}", self.cli.name());
        }
        Ok(TurnTimes { sent, outputs, end })
    }
}
