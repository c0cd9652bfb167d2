//! A running `claude` process: spawned with its stdout reader and control channel, stopped
//! gracefully or at once.

use crate::catalog;
use crate::control::ControlChannel;
use crate::dialect::ControlDialect;
use crate::launch::LaunchOptions;
use crate::mcp_file::McpConfigFile;
use crate::normalize::{Mode, Normalizer};
use crate::reader::{EventTarget, Reader, LABEL};
use crate::session::{ConfigSnapshot, Shared};
use agent_bridge_core::agent_process::AgentProcess;
use agent_bridge_core::rpc::Peer;
use agent_bridge_core::supervisor::{LaunchOverride, SpawnError};
use agent_bridge_core::SessionSink;
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::ProviderError;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use tokio::sync::watch;

/// A running `claude` process (owned by the core's agent-process owner) with its control
/// channel (the core's JSON-RPC peer in Claude's control dialect).
pub struct Runtime {
    pub shared: Arc<Mutex<Shared>>,
    pub channel: ControlChannel,
    pub process: AgentProcess,
    /// The session's bounded event sink (the reader sends into it too); none for a spare.
    pub events: EventTarget,
    stop: watch::Sender<bool>,
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
    let (process, io) = AgentProcess::spawn(&spec, LABEL).map_err(|e| {
        let code = match e {
            SpawnError::NotFound { .. } => ErrorCode::CliMissing,
            SpawnError::Io { .. } => ErrorCode::CliUnrunnable,
            SpawnError::MissingCwd { .. } | SpawnError::CwdNotAFolder { .. } => {
                ErrorCode::CwdMissing
            }
        };
        ProviderError::new(e.to_string()).with_code(code)
    })?;
    let shared = Arc::new(Mutex::new(Shared {
        normalizer: Normalizer::new(session_id, Mode::Live),
        turn: None,
        canceled_inputs: HashSet::new(),
        echo_seen: false,
        permissions: HashMap::new(),
        config: ConfigSnapshot {
            models: catalog::fallback_models(),
            model: opts.model.clone().unwrap_or_else(|| "default".into()),
            mode: opts.mode.clone(),
            thinking: opts.effort.clone(),
            options: opts.options.clone(),
        },
        commands: Vec::new(),
        native_session_id: opts.resume.clone(),
        transcript_saved: opts.resume.is_some(),
        persistence_held: false,
        last_entry: None,
        awaiting_save: None,
        save_watch_running: false,
        rewound_at: opts.resume_at.clone(),
        cwd: opts.cwd.clone(),
        closing: false,
        dead: false,
        configuring: false,
    }));
    let (stop, stop_rx) = watch::channel(false);
    let events = EventTarget::new(sink);
    let reader = Reader {
        shared: shared.clone(),
        events: events.clone(),
        save: crate::saved::SaveWatch {
            shared: shared.clone(),
            events: events.clone(),
            projects: crate::transcript::projects_dir(&crate::launch::effective_env(launch, env)),
            stop: stop_rx.clone(),
        },
        stop: stop_rx,
    };
    let mut options = process.peer_options();
    options.call_timeout = crate::control::CONTROL_TIMEOUT;
    let peer = Peer::start(
        io.stdout,
        io.stdin,
        Arc::new(ControlDialect),
        Arc::new(reader),
        options,
    );
    Ok(Runtime {
        shared,
        channel: ControlChannel::new(peer),
        process,
        events,
        stop,
        mcp_config,
    })
}

impl Runtime {
    fn mark_closing(&self) {
        if let Ok(mut s) = self.shared.lock() {
            s.closing = true;
        }
        self.process.expect_exit();
        let _ = self.stop.send(true);
    }

    /// Closes stdin, then stops the process group (SIGTERM, then SIGKILL).
    pub async fn shutdown(&mut self) {
        self.mark_closing();
        self.channel.close().await;
        self.process.stop().await;
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
        self.mark_closing();
        self.process.kill_now();
    }

    /// True once the process is known to be gone.
    pub fn is_dead(&self) -> bool {
        let dead = self.shared.lock().map(|s| s.dead).unwrap_or(true);
        dead || self.process.is_gone()
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.kill_now();
    }
}
