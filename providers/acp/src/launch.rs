//! Starting an ACP agent (through the core's process owner, honouring the connect request's
//! `launch` and plugin.json's `command`), the `initialize` negotiation, and stopping it.

use crate::opencode::spare_warmup::WarmTarget;
use crate::profile::Profile;
use crate::state::SharedState;
use crate::translate::AcpTranslator;
use crate::wire::{method, InitializeResult, PROTOCOL_VERSION};
use agent_bridge_core::lifecycle::shared::{ByParam, Route};
use agent_bridge_core::lifecycle::{
    errors, join_shared, AgentRuntime, EventTarget, Liveness, ProcessLaunch, RefuseAll,
    RuntimeLaunch, SessionRuntime, SharedProcesses,
};
use agent_bridge_core::loopback_http::LoopbackHttp;
use agent_bridge_core::rpc::{Inbound, JsonRpc, PeerError};
use agent_bridge_core::supervisor::{LaunchOverride, SpawnSpec};
use agent_bridge_core::ProcessScope;
use agent_bridge_core::SessionSink;
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::ProviderError;
use async_trait::async_trait;
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
/// profile's arguments; the session's variables, then the profile's (Cline's
/// `CLINE_SESSION_BACKEND_MODE=local`, without which it leaves a hub daemon behind), then the
/// password of the agent's own HTTP server where it runs one (OpenCode, Kilo); the profile's
/// `privateDirEnv` become directories of each process alone (OpenHands' `TMUX_TMPDIR`).
pub fn spec(
    profile: &Profile,
    launch: &LaunchOverride,
    cwd: Option<&str>,
    env: &BTreeMap<String, String>,
) -> SpawnSpec {
    let mut spec = launch.spec(&profile.program, profile.args.clone());
    spec.private_dirs = profile.private_dir_env.clone();
    if let Some(cwd) = cwd {
        spec = spec.cwd(cwd);
    }
    crate::opencode::server_password::guard(profile, spec.envs(env).envs(&profile.env))
}

/// How to get the agent, for a "not found" error.
fn install_hint(profile: &Profile) -> String {
    format!(
        "install {} or set the provider's command in plugin.json",
        profile.label
    )
}

/// ACP's `auth_required` error code.
pub use agent_bridge_protocol::jsonrpc::codes::ACP_AUTH_REQUIRED as AUTH_REQUIRED;

/// A failed call as a provider error, the stderr tail as diagnostic; ACP's `auth_required`
/// refusal keeps its meaning.
pub fn call_error(e: PeerError, stderr: &str) -> ProviderError {
    let auth = matches!(e.rpc(), Some(error) if error.code == AUTH_REQUIRED);
    let error = errors::call_error(e, stderr);
    if auth {
        error.with_code(ErrorCode::AuthRequired)
    } else {
        error
    }
}

/// A started agent: its runtime (a process and JSON-RPC 2.0 peer of its own, or a place on a
/// process shared with other sessions) and what it advertised.
pub struct Agent {
    pub runtime: SessionRuntime,
    pub init: InitializeResult,
    /// A client of the HTTP server the agent runs beside ACP ([`crate::opencode::embedded_server`]).
    pub server: Option<LoopbackHttp>,
}

impl Agent {
    pub fn stderr(&self) -> String {
        self.runtime.stderr()
    }

    pub fn error(&self, e: PeerError) -> ProviderError {
        call_error(e, &self.stderr())
    }

    /// Closes `session` where the agent has `session/close` (claude-agent-acp only exits once
    /// its session is closed), then stops the agent (stdin closed, TERM, KILL), or leaves a
    /// shared one (stopped with its last session).
    pub async fn shutdown(&self, session: Option<&str>) {
        self.runtime.liveness().close();
        if let Some(id) = session {
            if self.init.agent_capabilities.session("close") && !self.runtime.rpc().is_closed() {
                let params = crate::wire::requests::close_session(id);
                if let Err(e) = self
                    .runtime
                    .rpc()
                    .call_within(method::SESSION_CLOSE, params, SESSION_CLOSE_LIMIT)
                    .await
                {
                    tracing::debug!("session/close at shutdown: {e}");
                }
            }
        }
        self.runtime.close(CLOSE_LIMIT).await;
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
    liveness: Liveness,
    scope: Option<&ProcessScope>,
) -> Result<Agent, ProviderError> {
    let (runtime, answer) = spawn(profile, spec, inbound, liveness, scope).await?;
    let server = crate::opencode::embedded_server::client(profile, spec, &answer);
    let init = match advertised(profile, answer) {
        Ok(init) => init,
        Err(e) => {
            runtime.kill_now();
            return Err(e);
        }
    };
    Ok(Agent {
        runtime: SessionRuntime::Own(runtime),
        init,
        server,
    })
}

/// Spawns the agent and negotiates `initialize`; returns the runtime and the raw answer (with
/// the port of the agent's own server, where it runs one). An agent whose server could not
/// take the port chosen for it is started again on another ([`crate::opencode::embedded_server`]).
pub(crate) async fn spawn(
    profile: &Profile,
    spec: &SpawnSpec,
    inbound: Arc<dyn Inbound>,
    liveness: Liveness,
    scope: Option<&ProcessScope>,
) -> Result<(AgentRuntime, serde_json::Value), ProviderError> {
    let mut attempt = 1;
    loop {
        let (spec, port) = crate::opencode::embedded_server::on_free_port(profile, spec)?;
        match spawn_once(profile, &spec, inbound.clone(), liveness.clone(), scope).await {
            Ok((runtime, mut answer)) => {
                if let Some(port) = port {
                    crate::opencode::embedded_server::mark(&mut answer, port);
                }
                return Ok((runtime, answer));
            }
            Err((error, exited))
                if exited
                    && port.is_some()
                    && attempt < crate::opencode::embedded_server::PORT_ATTEMPTS =>
            {
                tracing::info!(
                    agent = %profile.label,
                    port,
                    "the agent exited before answering `initialize` (its port may have been taken); starting it on another: {}",
                    error.message
                );
                attempt += 1;
            }
            Err((error, _)) => return Err(error),
        }
    }
}

/// One spawn and `initialize`; a failure says whether the agent exited before answering.
async fn spawn_once(
    profile: &Profile,
    spec: &SpawnSpec,
    inbound: Arc<dyn Inbound>,
    liveness: Liveness,
    scope: Option<&ProcessScope>,
) -> Result<(AgentRuntime, serde_json::Value), (ProviderError, bool)> {
    let install = install_hint(profile);
    let launch = RuntimeLaunch {
        spec,
        label: &profile.label,
        install: &install,
        dialect: Arc::new(JsonRpc::v2()),
        call_timeout: SETUP_TIMEOUT,
        scope,
    };
    let runtime = AgentRuntime::spawn(launch, inbound, liveness).map_err(|e| (e, false))?;
    let params = crate::wire::requests::initialize();
    let answer = match runtime.rpc.call(method::INITIALIZE, params).await {
        Ok(v) => v,
        Err(e) => {
            let auth = matches!(e.rpc(), Some(error) if error.code == AUTH_REQUIRED);
            let exited = matches!(e, PeerError::Closed { .. });
            let error = runtime.failed_start(e).await;
            return Err((
                if auth {
                    error.with_code(ErrorCode::AuthRequired)
                } else {
                    error
                },
                exited,
            ));
        }
    };
    Ok((runtime, answer))
}

/// What the agent advertised in its `initialize` answer, minus the profile's
/// `unusableMethods`; an answer this bridge cannot work with is an error.
pub(crate) fn advertised(
    profile: &Profile,
    answer: serde_json::Value,
) -> Result<InitializeResult, ProviderError> {
    let mut init: InitializeResult = serde_json::from_value(answer).map_err(|e| {
        ProviderError::new(format!(
            "unreadable `initialize` answer from {}: {e}",
            profile.label
        ))
        .with_code(ErrorCode::AgentError)
    })?;
    if let Some(v) = init.protocol_version.filter(|v| *v != PROTOCOL_VERSION) {
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
    Ok(init)
}

/// The agent of a session whose state is `shared` and whose events go to `sink`: a process of
/// its own (in the session's process `scope`), or, with `processes`, its place on the agent
/// process of its launch (the core's [`join_shared`] with [`AcpLaunch`]). Not live yet.
pub async fn session_agent(
    profile: &Profile,
    spec: &SpawnSpec,
    processes: Option<(&SharedProcesses, &WarmTarget)>,
    shared: SharedState,
    sink: SessionSink,
    scope: &ProcessScope,
) -> Result<Agent, ProviderError> {
    let Some((processes, warm)) = processes else {
        let liveness = Liveness::default();
        let inbound = AcpTranslator::inbound(shared, sink, liveness.clone(), &profile.label);
        return start(profile, spec, inbound, liveness, Some(scope)).await;
    };
    let launch = AcpLaunch {
        profile: profile.clone(),
        warm: warm.clone(),
    };
    let member = join_shared(
        processes,
        Arc::new(launch),
        spec,
        Arc::new(AcpTranslator::new(shared)),
        EventTarget::new(Some(sink)),
        scope,
    )
    .await?;
    let handshake = member.process().handshake().clone();
    let server = crate::opencode::embedded_server::client(profile, spec, &handshake);
    let init = advertised(profile, handshake)?;
    Ok(Agent {
        runtime: SessionRuntime::Shared(member),
        init,
        server,
    })
}

/// How the core starts an ACP agent ([`ProcessLaunch`]): spawn and `initialize` (an answer
/// this bridge cannot work with is an error), routed by `sessionId`; a fresh warm spare of a
/// profile with `spareWarmup` resumes and closes the last session first
/// ([`crate::opencode::spare_warmup`]).
pub struct AcpLaunch {
    pub profile: Profile,
    /// The session a fresh spare warms with.
    pub warm: WarmTarget,
}

#[async_trait]
impl ProcessLaunch for AcpLaunch {
    async fn start(
        &self,
        spec: &SpawnSpec,
        inbound: Arc<dyn Inbound>,
        scope: Option<&ProcessScope>,
    ) -> Result<(AgentRuntime, serde_json::Value), ProviderError> {
        let (runtime, answer) =
            spawn(&self.profile, spec, inbound, Liveness::default(), scope).await?;
        advertised(&self.profile, answer.clone())?;
        Ok((runtime, answer))
    }

    fn route(&self) -> Arc<dyn Route> {
        Arc::new(ByParam("sessionId"))
    }

    async fn warm_up(&self, runtime: &AgentRuntime, handshake: &serde_json::Value) {
        if let Ok(init) = advertised(&self.profile, handshake.clone()) {
            crate::opencode::spare_warmup::warm(
                &self.profile,
                &init,
                &runtime.rpc,
                &self.warm,
                SETUP_TIMEOUT,
            )
            .await;
        }
    }

    fn install_hint(&self) -> String {
        install_hint(&self.profile)
    }
}

/// An agent for one query (availability, catalog, session list): no session, its messages
/// refused.
pub async fn start_for_query(profile: &Profile, spec: &SpawnSpec) -> Result<Agent, ProviderError> {
    start(
        profile,
        spec,
        Arc::new(RefuseAll),
        Liveness::default(),
        None,
    )
    .await
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
