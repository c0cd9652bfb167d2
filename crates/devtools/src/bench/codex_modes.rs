//! The three ways `bench --codex` runs a Codex turn: `codex app-server` driven directly
//! (initialize, thread/start, turn/start), codex-acp over ACP (initialize, session/new,
//! session/prompt) and `codex-bridge` through the bridge's `serve`. Each open returns its
//! spawn -> ready time, each turn when the prompt was written, when assistant text was read
//! and when the turn end was read.

use super::bridge::{Bridge, Tally};
use super::claude::open_with;
use super::codex_drive::RpcChild;
use agent_bridge_core::supervisor::SpawnSpec;
use agent_bridge_protocol::wire::METHOD_SEND;
use agent_bridge_protocol::{
    PromptDelivery, PromptInput, ProviderContent, ProviderInput, ProviderPrompt,
    ProviderSessionConfig, TurnState,
};
use anyhow::{anyhow, bail};
use serde_json::json;
use std::time::{Duration, Instant};

pub const PROMPT: &str = "say hi";
/// The hermetic config's model (`mock_llm::hermetic::codex`), named explicitly by every mode.
pub const MODEL: &str = "mock-model";
const STEP: Duration = Duration::from_secs(60);

/// Assistant text chunks kept per turn ("say hi" streams two).
const MAX_OUTPUTS: usize = 64;

/// One measured turn.
#[derive(Debug, Clone)]
pub struct TurnTimes {
    pub sent: Instant,
    /// When assistant text was read, in order (at most [`MAX_OUTPUTS`]). Codex warnings come
    /// as assistant text too (codex-acp: "Model metadata for `mock-model` not found" before
    /// the model is asked), so the caller takes the first one after the model request.
    pub outputs: Vec<Instant>,
    pub end: Instant,
}

pub fn push_output(outputs: &mut Vec<Instant>, at: Instant) {
    if outputs.len() < MAX_OUTPUTS {
        outputs.push(at);
    }
}

/// `codex app-server` driven directly, with the thread/start parameters the bridge sends for
/// full-access and a bare turn/start.
pub struct Direct {
    pub cli: RpcChild,
    thread: String,
}

impl Direct {
    pub fn spawn(spec: &SpawnSpec) -> anyhow::Result<(RpcChild, Instant)> {
        RpcChild::spawn(spec, "codex app-server", false)
    }

    /// initialize + initialized + thread/start; returns the session and spawn -> thread started.
    pub fn open(
        mut cli: RpcChild,
        started: Instant,
        cwd: &str,
    ) -> anyhow::Result<(Direct, Duration)> {
        let info = json!({"clientInfo": {"name": "agent_bridge_bench", "title": "agent-bridge bench", "version": env!("CARGO_PKG_VERSION")}});
        cli.call("initialize", info, STEP)?;
        cli.notify("initialized")?;
        let params = json!({"cwd": cwd, "model": MODEL, "approvalPolicy": "never", "sandbox": "danger-full-access"});
        let (_, at, result) = cli.call("thread/start", params, STEP)?;
        let thread = result["thread"]["id"]
            .as_str()
            .ok_or_else(|| anyhow!("thread/start answered no thread id: {result}"))?
            .to_string();
        Ok((
            Direct { cli, thread },
            at.saturating_duration_since(started),
        ))
    }

    pub fn turn(&mut self) -> anyhow::Result<TurnTimes> {
        let params = json!({"threadId": self.thread, "input": [{"type": "text", "text": PROMPT}]});
        let (_, sent) = self.cli.request("turn/start", params)?;
        let mut outputs = Vec::new();
        let (end, done) = self.cli.wait(STEP, "turn/completed", |at, v| {
            if v["method"] == "item/agentMessage/delta" {
                push_output(&mut outputs, at);
            }
            v["method"] == "turn/completed"
        })?;
        let status = &done["params"]["turn"]["status"];
        if status != "completed" {
            bail!("a direct turn ended {status}");
        }
        Ok(TurnTimes { sent, outputs, end })
    }
}

/// The bridge's session config for the same thread: full-access, the same model.
pub fn bridge_config(cwd: &str) -> ProviderSessionConfig {
    ProviderSessionConfig {
        cwd: cwd.to_string(),
        mode: Some("full-access".into()),
        model: Some(MODEL.into()),
        ..Default::default()
    }
}

/// Opens `sid` on the bridge: `session.open` written -> `session.ready` read.
pub fn bridge_open(
    b: &mut Bridge,
    connection: &str,
    sid: &str,
    cwd: &str,
) -> anyhow::Result<Duration> {
    open_with(b, connection, sid, bridge_config(cwd))
}

pub fn bridge_close(b: &mut Bridge, connection: &str, sid: &str) -> anyhow::Result<()> {
    let input =
        json!({"type": "session.close", "requestId": format!("close-{sid}"), "sessionId": sid});
    let line = b
        .request_line(
            METHOD_SEND,
            json!({ "connectionId": connection, "input": input }),
        )
        .1;
    b.write_lines(&[line])
}

/// One turn through the bridge: prompt written -> the `session.turn` end read.
pub fn bridge_turn(b: &mut Bridge, connection: &str, sid: &str) -> anyhow::Result<TurnTimes> {
    b.state().tallies.insert(sid.to_string(), Tally::new(0));
    let prompt = ProviderPrompt {
        client_message_id: format!("bench-{}", super::bridge::unix_nanos()),
        delivery: PromptDelivery::Auto,
        input: PromptInput::Message {
            content: vec![ProviderContent::text(PROMPT)],
        },
        output_schema: None,
        clear_pending_permissions: None,
    };
    let input = ProviderInput::SessionPrompt {
        session_id: sid.to_string(),
        prompt,
    };
    let params = json!({ "connectionId": connection, "input": serde_json::to_value(input)? });
    let line = b.request_line(METHOD_SEND, params).1;
    let sent = Instant::now();
    b.write_lines(&[line])?;
    let (state, end, outputs) = b.wait(STEP, "the turn end", |s| {
        let t = s.tallies.get(sid)?;
        t.end.map(|(state, at)| (state, at, t.outputs.clone()))
    })?;
    if state != TurnState::Completed {
        bail!("a bridge turn ended {state:?}");
    }
    Ok(TurnTimes { sent, outputs, end })
}
