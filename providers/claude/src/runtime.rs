//! A running `claude` process: the core's agent runtime (process and JSON-RPC peer in the
//! control dialect) with its control channel, state and stdout translator; stopped
//! gracefully or at once.

use crate::control::{ControlChannel, ControlError};
use crate::dialect::ControlDialect;
use crate::launch::LaunchOptions;
use crate::mcp_file::McpConfigFile;
use crate::state::SessionState;
use crate::translate::{ClaudeTranslator, LABEL};
use agent_bridge_core::lifecycle::{
    self, AgentRuntime, EventTarget, InboundDriver, Liveness, RuntimeLaunch, SharedState,
};
use agent_bridge_core::supervisor::LaunchOverride;
use agent_bridge_core::SessionSink;
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::ProviderError;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// How to get Claude Code, for a "not found" error.
pub const INSTALL: &str =
    "install Claude Code (`npm install -g @anthropic-ai/claude-code`) or set the provider's command";

/// Longest a stop waits for the process group to go before it is killed.
pub const CLOSE_LIMIT: Duration = Duration::from_secs(5);

/// A running `claude` process with its control channel.
pub struct Runtime {
    pub shared: SharedState<SessionState>,
    pub channel: ControlChannel,
    pub agent: AgentRuntime,
    /// The session's bounded event sink (the reader sends into it too); none for a spare.
    pub events: EventTarget,
    /// The private file the CLI reads its MCP servers from; removed once it answered
    /// `initialize`, else with the runtime.
    mcp_config: Option<McpConfigFile>,
}

/// Spawns the CLI for `opts` and starts its reader; events go to `sink` (none for a spare or
/// a catalog probe: its events are dropped).
pub async fn spawn_runtime(
    session_id: &str,
    launch: &LaunchOverride,
    env: &BTreeMap<String, String>,
    opts: &LaunchOptions,
    sink: Option<SessionSink>,
) -> Result<Runtime, ProviderError> {
    let mcp_config = match opts.mcp_config() {
        None => None,
        Some(json) => Some(McpConfigFile::create(json).await.map_err(|e| {
            ProviderError::new(format!("cannot write the MCP config file: {e}"))
                .with_code(ErrorCode::McpConfig)
        })?),
    };
    let spec = opts.spec(launch, env, mcp_config.as_ref().map(McpConfigFile::path));
    let shared = lifecycle::shared(SessionState::new(session_id, opts));
    // Every exit the bridge did not ask for is a failure, a spare's too (it has no sink: its
    // failure goes nowhere, and the pool sees it dead).
    let liveness = Liveness::default();
    liveness.go_live();
    let events = EventTarget::new(sink);
    let translator = ClaudeTranslator {
        shared: shared.clone(),
        save: crate::saved::SaveWatch {
            shared: shared.clone(),
            events: events.clone(),
            projects: crate::transcript::projects_dir(&launch.effective_env(env)),
            liveness: liveness.clone(),
        },
    };
    let inbound = Arc::new(InboundDriver::new(
        translator,
        events.clone(),
        liveness.clone(),
        LABEL,
    ));
    let runtime = RuntimeLaunch {
        spec: &spec,
        label: LABEL,
        install: INSTALL,
        dialect: Arc::new(ControlDialect),
        call_timeout: crate::control::CONTROL_TIMEOUT,
        scope: None,
    };
    let agent = AgentRuntime::spawn(runtime, inbound, liveness)?;
    Ok(Runtime {
        shared,
        channel: ControlChannel::new(agent.rpc.clone()),
        agent,
        events,
        mcp_config,
    })
}

impl Runtime {
    /// Closes stdin, then stops the process group (SIGTERM, then SIGKILL).
    pub async fn shutdown(&mut self) {
        self.agent.shutdown(CLOSE_LIMIT).await;
        self.release_mcp_config().await;
    }

    /// Removes the MCP config file: the CLI read it while starting (it has answered
    /// `initialize`) and keeps the servers in memory, so the secrets do not stay on disk
    /// for the session's life, nor after a bridge that dies without cleaning up.
    pub async fn release_mcp_config(&mut self) {
        if let Some(file) = self.mcp_config.take() {
            file.remove().await;
        }
    }

    /// Immediate stop without waiting (SIGKILL to the group): a dropped runtime never leaves its
    /// process behind.
    pub fn kill_now(&self) {
        self.agent.kill_now();
    }

    /// True once the process is known to be gone.
    pub fn is_dead(&self) -> bool {
        lifecycle::lock(&self.shared).dead || self.agent.process.is_gone()
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.kill_now();
    }
}

/// `initialize` first: the CLI answers with its commands and models.
pub async fn initialize(channel: &ControlChannel) -> Result<Value, ControlError> {
    channel
        .request_within(
            json!({"subtype": "initialize", "hooks": null}),
            crate::control::STARTUP_TIMEOUT,
        )
        .await
}

/// Why a process failed to come up, with its last stderr lines; stops it.
pub async fn startup_error(runtime: &mut Runtime, what: &str, e: ControlError) -> ProviderError {
    let stderr = runtime.agent.last_words().await;
    runtime.shutdown().await;
    ProviderError::new(format!("Claude Code failed to start ({what}): {e}"))
        .with_code(ErrorCode::CliStartFailed)
        .with_diagnostic(stderr)
}
