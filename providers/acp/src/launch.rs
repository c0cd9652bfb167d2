//! Starting an ACP agent (through the core's process owner, honouring the connect request's
//! `launch` and plugin.json's `command`), the `initialize` negotiation, and stopping it.

use crate::profile::Profile;
use crate::wire::{method, InitializeResult, PROTOCOL_VERSION};
use agent_bridge_core::agent_process::AgentProcess;
use agent_bridge_core::rpc::{Inbound, JsonRpc, PeerError, PeerHandle};
use agent_bridge_core::supervisor::{LaunchOverride, SpawnError, SpawnSpec};
use agent_bridge_core::ProcessScope;
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::ProviderError;
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// Longest `initialize` and the session setup calls may take (Node agents start slowly on a
/// loaded machine; OpenCode's first `session/new` builds its database).
pub const SETUP_TIMEOUT: Duration = Duration::from_secs(50);
/// Longest a stop waits for the process group to go after `session/close` and stdin close.
pub const CLOSE_LIMIT: Duration = Duration::from_millis(3000);
/// Longest `session/close` may take at shutdown.
const SESSION_CLOSE_LIMIT: Duration = Duration::from_millis(1500);

/// The spawn spec of an agent: the launch's program (or the profile's) and prefix, then the
/// profile's arguments.
pub fn spec(
    profile: &Profile,
    launch: &LaunchOverride,
    cwd: Option<&str>,
    env: &BTreeMap<String, String>,
) -> SpawnSpec {
    let mut spec = launch.spec(&profile.program, profile.args.clone());
    if let Some(cwd) = cwd {
        spec = spec.cwd(cwd);
    }
    spec.envs(env)
}

pub fn spawn_error(profile: &Profile, e: SpawnError) -> ProviderError {
    match e {
        SpawnError::NotFound { .. } => ProviderError::new(format!(
            "{e}; install {} or set the provider's command in plugin.json",
            profile.label
        ))
        .with_code(ErrorCode::CliMissing),
        SpawnError::Io { .. } => {
            ProviderError::new(e.to_string()).with_code(ErrorCode::CliUnrunnable)
        }
        SpawnError::MissingCwd { .. } | SpawnError::CwdNotAFolder { .. } => {
            ProviderError::new(e.to_string()).with_code(ErrorCode::CwdMissing)
        }
    }
}

/// ACP's `auth_required` error code.
pub const AUTH_REQUIRED: i64 = -32000;

/// A failed call as a provider error, the stderr tail as diagnostic.
pub fn call_error(e: PeerError, stderr: &str) -> ProviderError {
    let code = match &e {
        PeerError::Rpc { error, .. } if error.code == AUTH_REQUIRED => ErrorCode::AuthRequired,
        PeerError::Rpc { .. } => ErrorCode::AgentError,
        PeerError::Closed { .. } => ErrorCode::RuntimeExited,
        PeerError::Timeout { .. } => ErrorCode::Timeout,
    };
    let message = match e.rpc() {
        // The agent's own words first (an API error, say), with its details, not our framing.
        Some(error) => match &error.data {
            Some(serde_json::Value::String(d)) => format!("{}: {d}", error.message),
            Some(d) if !d.is_null() => format!("{}: {d}", error.message),
            _ => error.message.clone(),
        },
        None => e.to_string(),
    };
    let error = ProviderError::new(message).with_code(code);
    if stderr.is_empty() {
        error
    } else {
        error.with_diagnostic(stderr.to_string())
    }
}

/// A started agent: the core's JSON-RPC 2.0 peer over its pipes, the core's owner of its
/// process, and what it advertised.
pub struct Agent {
    pub rpc: PeerHandle,
    pub process: AgentProcess,
    pub init: InitializeResult,
}

impl Agent {
    pub fn stderr(&self) -> String {
        self.process.stderr_tail()
    }

    pub fn error(&self, e: PeerError) -> ProviderError {
        call_error(e, &self.stderr())
    }

    /// Closes `session` where the agent has `session/close` (claude-agent-acp only exits once
    /// its session is closed), closes stdin, then stops the process group (TERM, KILL).
    pub async fn shutdown(&mut self, session: Option<&str>) {
        self.process.expect_exit();
        if let Some(id) = session {
            if self.init.agent_capabilities.session("close") && !self.rpc.is_closed() {
                let params = json!({ "sessionId": id });
                if let Err(e) = self
                    .rpc
                    .call_within(method::SESSION_CLOSE, params, SESSION_CLOSE_LIMIT)
                    .await
                {
                    tracing::debug!("session/close at shutdown: {e}");
                }
            }
        }
        self.rpc.close_input().await;
        if tokio::time::timeout(CLOSE_LIMIT, self.process.stop())
            .await
            .is_err()
        {
            self.process.kill().await;
        }
    }
}

/// Spawns the agent (its notifications and requests go to `inbound`) and negotiates
/// `initialize`: protocol version 1; the bridge serves neither `fs/*` nor `terminal/*`, so it
/// advertises neither (agents then do their own file I/O, under their own permission rules).
/// What the agent advertised loses the profile's `unusableMethods`.
pub async fn start(
    profile: &Profile,
    spec: &SpawnSpec,
    inbound: Arc<dyn Inbound>,
    scope: Option<&ProcessScope>,
) -> Result<Agent, ProviderError> {
    let (process, rpc) = AgentProcess::spawn_peer(
        spec,
        &profile.label,
        Arc::new(JsonRpc::v2()),
        inbound,
        SETUP_TIMEOUT,
    )
    .map_err(|e| spawn_error(profile, e))?;
    if let Some(scope) = scope {
        process.register(scope);
    }
    let params = json!({
        "protocolVersion": PROTOCOL_VERSION,
        "clientCapabilities": {
            "fs": { "readTextFile": false, "writeTextFile": false },
            "terminal": false,
        },
        "clientInfo": { "name": "agent-bridge", "version": env!("CARGO_PKG_VERSION") },
    });
    let answer = match rpc.call(method::INITIALIZE, params).await {
        Ok(v) => v,
        Err(e) => {
            // Let the stderr reader take the agent's last words.
            tokio::time::sleep(Duration::from_millis(100)).await;
            let error = call_error(e, &process.stderr_tail());
            process.kill().await;
            return Err(error);
        }
    };
    let mut init: InitializeResult = serde_json::from_value(answer).map_err(|e| {
        ProviderError::new(format!(
            "unreadable `initialize` answer from {}: {e}",
            profile.label
        ))
        .with_code(ErrorCode::AgentError)
    })?;
    if let Some(v) = init.protocol_version.filter(|v| *v != PROTOCOL_VERSION) {
        process.kill().await;
        return Err(ProviderError::new(format!(
            "{} speaks ACP protocol version {v}; this bridge speaks version {PROTOCOL_VERSION}",
            profile.label
        ))
        .with_code(ErrorCode::Incompatible));
    }
    for (method, why) in &profile.unusable_methods {
        match init.agent_capabilities.withdraw(method) {
            Ok(()) => tracing::debug!(method, why, "advertised method not used"),
            Err(e) => tracing::warn!("profile {}: {e}", profile.name),
        }
    }
    tracing::debug!(
        agent = ?init.agent_info,
        load = init.agent_capabilities.load_session,
        session = ?init.agent_capabilities.session_capabilities.keys().collect::<Vec<_>>(),
        "ACP agent initialized"
    );
    Ok(Agent { rpc, process, init })
}

/// The error of a session call refused for want of a login: the agent's message and its
/// login methods.
pub fn auth_error(agent: &Agent, e: ProviderError) -> ProviderError {
    if !e.has_code(&ErrorCode::AuthRequired) {
        return e;
    }
    let methods: Vec<String> = agent
        .init
        .auth_methods
        .iter()
        .map(|m| match (&m.name, &m.description) {
            (Some(n), Some(d)) => format!("{n} ({d})"),
            (Some(n), None) => n.clone(),
            _ => m.id.clone(),
        })
        .collect();
    let mut out = ProviderError::new(format!(
        "{}; log in first{}",
        e.message,
        if methods.is_empty() {
            String::new()
        } else {
            format!(" with one of: {}", methods.join("; "))
        }
    ))
    .with_code(ErrorCode::AuthRequired);
    out.diagnostic = e.diagnostic;
    out
}
