//! Starting `codex app-server` (through the core's supervisor, honouring the connect request's
//! `launch` and plugin.json's `command`), the `initialize` handshake, and the availability
//! probes (`codex --version`, `codex sandbox -- true`).

use crate::route::CodexRoute;
use crate::state::SharedState;
use crate::translate::CodexTranslator;
use crate::wire::notify::method;
use agent_bridge_core::lifecycle::shared::Route;
use agent_bridge_core::lifecycle::{
    errors, join_shared, AgentRuntime, EventTarget, Liveness, ProcessLaunch, RefuseAll,
    RuntimeLaunch, SessionRuntime, SharedProcesses,
};
use agent_bridge_core::probe;
use agent_bridge_core::rpc::{Inbound, JsonRpc};
use agent_bridge_core::supervisor::{LaunchOverride, SpawnError, SpawnSpec};
use agent_bridge_core::ProcessScope;
use agent_bridge_core::SessionSink;
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::ProviderError;
use async_trait::async_trait;
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

pub const DEFAULT_PROGRAM: &str = "codex";
/// The version this provider's wire types were derived from and tested against.
pub const MIN_VERSION: Version = Version::new(0, 171, 0);
/// Longest the handshake and other setup calls may take.
pub const SETUP_TIMEOUT: Duration = Duration::from_secs(30);
const PROBE_TIMEOUT: Duration = Duration::from_secs(15);

pub fn app_server_spec(
    launch: &LaunchOverride,
    cwd: Option<&str>,
    env: &BTreeMap<String, String>,
) -> SpawnSpec {
    let mut spec = launch.spec(DEFAULT_PROGRAM, vec!["app-server".into()]);
    if let Some(cwd) = cwd {
        spec = spec.cwd(cwd);
    }
    spec.envs(env)
}

/// How to get Codex, for a "not found" error.
pub const INSTALL: &str =
    "install Codex with `npm install -g @openai/codex` or set the provider's command";

/// A spawn failure of Codex.
pub fn spawn_error(e: SpawnError) -> ProviderError {
    errors::spawn_error(e, INSTALL)
}

/// Names the app-server in errors and logs.
pub const LABEL: &str = "codex app-server";
/// Longest a close waits for the process group to go.
pub const CLOSE_LIMIT: Duration = Duration::from_millis(3500);

pub use agent_bridge_core::lifecycle::errors::call_error;

/// Spawns an app-server (its notifications and server requests go to `inbound`, which holds a
/// clone of `liveness`) and completes the `initialize` / `initialized` handshake.
pub async fn start(
    spec: &SpawnSpec,
    inbound: Arc<dyn Inbound>,
    liveness: Liveness,
    scope: Option<&ProcessScope>,
) -> Result<AgentRuntime, ProviderError> {
    let launch = RuntimeLaunch {
        spec,
        label: LABEL,
        install: INSTALL,
        dialect: Arc::new(JsonRpc::bare()),
        call_timeout: SETUP_TIMEOUT,
        scope,
    };
    let server = AgentRuntime::spawn(launch, inbound, liveness)?;
    let params = json!({
        "clientInfo": {
            "name": "agent_bridge",
            "title": "agent-bridge",
            "version": env!("CARGO_PKG_VERSION"),
        }
    });
    if let Err(e) = server.rpc.call(method::INITIALIZE, params).await {
        return Err(server.failed_start(e).await);
    }
    if let Err(e) = server.rpc.notify(method::INITIALIZED, None).await {
        return Err(server.failed_start(e).await);
    }
    Ok(server)
}

/// How the core starts an app-server ([`ProcessLaunch`]): `start` and its handshake, routed
/// by `threadId` ([`CodexRoute`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct CodexLaunch;

#[async_trait]
impl ProcessLaunch for CodexLaunch {
    async fn start(
        &self,
        spec: &SpawnSpec,
        inbound: Arc<dyn Inbound>,
        scope: Option<&ProcessScope>,
    ) -> Result<(AgentRuntime, serde_json::Value), ProviderError> {
        // Its `initialize` answer says nothing a session needs.
        let server = start(spec, inbound, Liveness::default(), scope).await?;
        Ok((server, serde_json::Value::Null))
    }

    fn route(&self) -> Arc<dyn Route> {
        Arc::new(CodexRoute::default())
    }

    fn install_hint(&self) -> String {
        INSTALL.to_string()
    }
}

/// The runtime of a session whose state is `shared` and whose events go to `sink`: an
/// app-server of its own (in the session's process `scope`), or, with `processes`, its place on
/// the app-server of its launch (the core's [`join_shared`]). Not live yet.
pub async fn session_runtime(
    spec: &SpawnSpec,
    processes: Option<&SharedProcesses>,
    shared: SharedState,
    sink: SessionSink,
    scope: &ProcessScope,
) -> Result<SessionRuntime, ProviderError> {
    let Some(processes) = processes else {
        let liveness = Liveness::default();
        let inbound = CodexTranslator::inbound(shared, sink, liveness.clone());
        return Ok(SessionRuntime::Own(
            start(spec, inbound, liveness, Some(scope)).await?,
        ));
    };
    let translator = Arc::new(CodexTranslator::new(shared, sink.clone()));
    let member = join_shared(
        processes,
        Arc::new(CodexLaunch),
        spec,
        translator,
        EventTarget::new(Some(sink)),
        scope,
    )
    .await?;
    Ok(SessionRuntime::Shared(member))
}

/// An app-server for one query (catalog, session list, archive, login): no session, its
/// messages refused.
pub async fn start_for_query(spec: &SpawnSpec) -> Result<AgentRuntime, ProviderError> {
    start(spec, Arc::new(RefuseAll), Liveness::default(), None).await
}

/// Stops an app-server within [`CLOSE_LIMIT`].
pub async fn stop(server: &AgentRuntime) {
    server.shutdown(CLOSE_LIMIT).await;
}

pub use agent_bridge_core::probe::{parse_version, ProbeOutput, Version};

/// Runs `<launch> args...` to completion (bounded), through the supervisor.
pub async fn run_probe(
    launch: &LaunchOverride,
    args: &[&str],
) -> Result<ProbeOutput, ProviderError> {
    let spec = launch
        .spec(
            DEFAULT_PROGRAM,
            args.iter().map(|a| a.to_string()).collect(),
        )
        .cwd(std::env::temp_dir());
    probe::run_probe(&spec, PROBE_TIMEOUT)
        .await
        .map_err(|e| match e {
            probe::ProbeError::Spawn(e) => spawn_error(e),
            e @ probe::ProbeError::Timeout { .. } => {
                ProviderError::new(e.to_string()).with_code(ErrorCode::Timeout)
            }
        })
}

/// The installed version, or why it cannot be told.
pub async fn probe_version(launch: &LaunchOverride) -> Result<Version, ProviderError> {
    let out = run_probe(launch, &["--version"]).await?;
    if !out.success {
        return Err(ProviderError::new("`codex --version` failed").with_diagnostic(out.stderr));
    }
    parse_version(&out.stdout).ok_or_else(|| {
        ProviderError::new(format!(
            "cannot read a version from `codex --version`: {}",
            out.stdout.trim()
        ))
    })
}

/// `Some(problem)` when Codex's Linux sandbox (bubblewrap) cannot run here.
pub async fn probe_sandbox(launch: &LaunchOverride) -> Option<String> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    match run_probe(launch, &["sandbox", "--", "true"]).await {
        Ok(out) if out.success => None,
        Ok(out) => {
            let detail = out
                .stderr
                .lines()
                .filter(|l| !l.contains("could not create PATH aliases"))
                .collect::<Vec<_>>()
                .join(" ");
            Some(if detail.trim().is_empty() {
                "`codex sandbox -- true` failed".to_string()
            } else {
                detail.trim().to_string()
            })
        }
        Err(e) => Some(e.message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_minimum_orders_banners() {
        let v = |s: &str| parse_version(s).unwrap();
        assert!(v("codex-cli 0.170.9") < MIN_VERSION);
        assert!(v("codex-cli 0.171.0-alpha.3") < MIN_VERSION);
        assert!(v("codex-cli 0.171.0\n") >= MIN_VERSION);
        assert!(v("codex-cli 0.172.0-alpha.3") >= MIN_VERSION);
        assert_eq!(parse_version("codex-cli"), None);
    }

    #[test]
    fn a_missing_cwd_says_so() {
        let spec = app_server_spec(
            &LaunchOverride::default(),
            Some("/no/such/folder/here"),
            &BTreeMap::new(),
        );
        let Err(e) = agent_bridge_core::supervisor::ManagedChild::spawn(&spec) else {
            panic!("spawned in a missing folder");
        };
        let e = spawn_error(e);
        assert_eq!(e.code, Some(ErrorCode::CwdMissing));
        assert_eq!(
            e.message,
            "the working folder `/no/such/folder/here` does not exist"
        );
    }

    #[test]
    fn the_launch_override_replaces_the_program_and_prefixes_arguments() {
        let launch = LaunchOverride {
            command: Some("/opt/node".into()),
            args: vec!["/opt/codex.js".into()],
            env: Some(BTreeMap::from([("PATH".into(), "/bin".into())])),
            ..LaunchOverride::default()
        };
        let env = BTreeMap::from([("CODEX_HOME".into(), "/h".into())]);
        let spec = app_server_spec(&launch, Some("/w"), &env);
        assert_eq!(spec.program, "/opt/node");
        assert_eq!(spec.args, vec!["/opt/codex.js", "app-server"]);
        assert_eq!(spec.cwd.as_deref(), Some(std::path::Path::new("/w")));
        assert_eq!(spec.env.get("CODEX_HOME").map(String::as_str), Some("/h"));
        let default = app_server_spec(&LaunchOverride::default(), None, &BTreeMap::new());
        assert_eq!(
            (default.program.as_str(), default.args.clone()),
            ("codex", vec!["app-server".to_string()])
        );
    }
}
