//! Warm opens with an app-server per session (`"processPerSession": true`): after a session
//! opened, one more `codex app-server` of the very same launch (program, arguments,
//! environment, folder) is started in the background, outside any session's process scope, its
//! `initialize` / `initialized` handshake done; the next open of that launch takes it (no spawn,
//! no handshake on its path). The pool is the core's ([`ProcessChoice`], prestarted: one
//! spare per provider, stopped after `AGENT_BRIDGE_SPARE_IDLE_SECS`, killed with the provider
//! and the bridge, reported by `doctor --json` as `prestarted`).
//!
//! Until a session takes it, what the app-server sends is dropped (its requests refused): its
//! inbound is a [`LateInbound`] the session binds its translator to.

use crate::launch;
use crate::state::SharedState;
use crate::translate::CodexTranslator;
use agent_bridge_core::lifecycle::{
    AgentRuntime, LateInbound, Liveness, ProcessChoice, SessionRuntime, SharedKey,
};
use agent_bridge_core::spares::Prestarted;
use agent_bridge_core::supervisor::SpawnSpec;
use agent_bridge_core::{ProcessScope, SessionSink};
use agent_bridge_protocol::ProviderError;
use futures_util::future::BoxFuture;
use std::path::PathBuf;
use std::sync::Arc;

/// What a spare must match: the launch and the folder it runs in.
pub type SpareKey = (SharedKey, Option<PathBuf>);

fn key_of(spec: &SpawnSpec) -> SpareKey {
    (SharedKey::of(spec), spec.cwd.clone())
}

/// An app-server started ahead, its handshake done, waiting for a session.
pub struct CodexSpare {
    runtime: AgentRuntime,
    inbound: LateInbound,
}

impl Prestarted for CodexSpare {
    fn pid(&self) -> Option<u32> {
        self.runtime.process.pid()
    }

    fn is_dead(&self) -> bool {
        self.runtime.process.is_gone()
    }

    fn shutdown(self) -> BoxFuture<'static, ()> {
        Box::pin(async move { launch::stop(&self.runtime).await })
    }
}

/// How the sessions of a Codex provider get their app-server (the core's [`ProcessChoice`]),
/// with this file's spares.
pub type CodexProcesses = ProcessChoice<SpareKey, CodexSpare>;

/// The app-server of a session opening with `spec`, from the prestarted spare of that launch
/// (waited for while it starts), if a live one is there: what it sends goes to the session's
/// translator (state `shared`, events to `sink`), its process joins the session's `scope`.
async fn take(
    processes: &CodexProcesses,
    spec: &SpawnSpec,
    shared: &SharedState,
    sink: &SessionSink,
    scope: &ProcessScope,
) -> Option<AgentRuntime> {
    let spare = processes.take_spare(&key_of(spec)).await?;
    let liveness = spare.runtime.liveness.clone();
    spare.inbound.bind(CodexTranslator::inbound(
        shared.clone(),
        sink.clone(),
        liveness,
    ));
    // The session's from here: a close waits for it.
    spare.runtime.process.register(scope);
    tracing::debug!(pid = ?spare.runtime.process.pid(), "session served by a spare app-server");
    Some(spare.runtime)
}

/// After an open with `spec` on an app-server of its own: the spare of that launch is started
/// in the background, unless it is ready or starting.
pub fn prestart(processes: &CodexProcesses, spec: &SpawnSpec) {
    let spec = spec.clone();
    processes.prestart(key_of(&spec), async move {
        let inbound = LateInbound::default();
        let runtime = launch::start(&spec, Arc::new(inbound.clone()), Liveness::default(), None)
            .await
            .map_err(|e| e.message)?;
        Ok(CodexSpare { runtime, inbound })
    });
}

/// The runtime of a session opening with `spec`: the prestarted spare of its launch when there
/// is a live one, else as [`launch::session_runtime`] gives it.
pub async fn session_runtime(
    processes: &CodexProcesses,
    spec: &SpawnSpec,
    shared: SharedState,
    sink: SessionSink,
    scope: &ProcessScope,
) -> Result<SessionRuntime, ProviderError> {
    if let Some(runtime) = take(processes, spec, &shared, &sink, scope).await {
        return Ok(SessionRuntime::Own(runtime));
    }
    launch::session_runtime(spec, processes.shared(), shared, sink, scope).await
}
