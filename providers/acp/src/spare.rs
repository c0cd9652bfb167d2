//! Warm opens of an entry with a process per session (`"processPerSession": true`): after a
//! session opened, one more agent process of the very same launch (program, arguments,
//! environment, folder) is started in the background, outside any session's process scope,
//! and its `initialize` done; the next open of that launch takes it (no spawn, no handshake on
//! its path). The pool is the core's ([`ProcessChoice`], prestarted: one spare per
//! provider, stopped after `AGENT_BRIDGE_SPARE_IDLE_SECS`, killed with the provider and the
//! bridge, reported by `doctor --json` as `prestarted`).
//!
//! A spare belongs to no session: its translator has a state of its own (which the session
//! takes over) and its events go nowhere until a session attaches its sink.

use crate::launch::{self, Agent};
use crate::profile::Profile;
use crate::state::{SessionState, SharedState};
use crate::translate::AcpTranslator;
use agent_bridge_core::lifecycle::{
    AgentRuntime, EventTarget, InboundDriver, Liveness, ProcessChoice, SessionRuntime, SharedKey,
};
use agent_bridge_core::spares::Prestarted;
use agent_bridge_core::supervisor::SpawnSpec;
use agent_bridge_core::{ProcessScope, SessionSink};
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;

/// What a spare must match: the launch and the folder it runs in.
pub type SpareKey = (SharedKey, Option<PathBuf>);

fn key_of(spec: &SpawnSpec) -> SpareKey {
    (SharedKey::of(spec), spec.cwd.clone())
}

/// An agent process started ahead, initialized, waiting for a session.
pub struct AcpSpare {
    runtime: AgentRuntime,
    /// Its `initialize` answer.
    answer: Value,
    /// The state its translator writes to; the session's once taken.
    shared: SharedState,
    events: EventTarget,
}

impl AcpSpare {
    /// Starts the agent of `spec` (no session scope) and negotiates `initialize`.
    async fn start(profile: Profile, spec: SpawnSpec) -> Result<AcpSpare, String> {
        let shared = agent_bridge_core::lifecycle::shared(SessionState::default());
        let events = EventTarget::new(None);
        let liveness = Liveness::default();
        let inbound = Arc::new(InboundDriver::new(
            AcpTranslator::new(shared.clone()),
            events.clone(),
            liveness.clone(),
            &profile.label,
        ));
        let (runtime, answer) = launch::spawn(&profile, &spec, inbound, liveness, None)
            .await
            .map_err(|e| e.message)?;
        if let Err(e) = launch::advertised(&profile, answer.clone()) {
            runtime.kill_now();
            return Err(e.message);
        }
        tracing::debug!(pid = ?runtime.process.pid(), agent = %profile.label, "spare agent process started");
        Ok(AcpSpare {
            runtime,
            answer,
            shared,
            events,
        })
    }
}

impl Prestarted for AcpSpare {
    fn pid(&self) -> Option<u32> {
        self.runtime.process.pid()
    }

    fn is_dead(&self) -> bool {
        self.runtime.process.is_gone()
    }

    fn shutdown(self) -> BoxFuture<'static, ()> {
        Box::pin(async move { self.runtime.shutdown(launch::CLOSE_LIMIT).await })
    }
}

/// How the sessions of an ACP provider get their agent process (the core's
/// [`ProcessChoice`]), with this file's spares.
pub type AcpProcesses = ProcessChoice<SpareKey, AcpSpare>;

/// The agent of a session opening with `spec`, from the prestarted spare of that launch
/// (waited for while it starts), if a live one is there: its events go to `sink`, its process
/// joins the session's `scope`. Returns it with the state its translator writes to.
pub async fn take(
    processes: &AcpProcesses,
    profile: &Profile,
    spec: &SpawnSpec,
    sink: &SessionSink,
    scope: &ProcessScope,
) -> Option<(Agent, SharedState)> {
    let spare = processes.take_spare(&key_of(spec)).await?;
    let server = crate::opencode::embedded_server::client(profile, spec, &spare.answer);
    let init = match launch::advertised(profile, spare.answer) {
        Ok(init) => init,
        Err(e) => {
            tracing::debug!("the spare's initialize answer is unusable: {}", e.message);
            return None;
        }
    };
    spare.events.attach(sink.clone());
    // The session's from here: a close waits for it.
    spare.runtime.process.register(scope);
    tracing::debug!(pid = ?spare.runtime.process.pid(), "session served by a spare agent process");
    let agent = Agent {
        runtime: SessionRuntime::Own(spare.runtime),
        init,
        server,
    };
    Some((agent, spare.shared))
}

/// After an open with `spec` on a process of its own: the spare of that launch is started in
/// the background, unless it is ready or starting.
pub fn prestart(processes: &AcpProcesses, profile: &Profile, spec: &SpawnSpec) {
    let start = AcpSpare::start(profile.clone(), spec.clone());
    processes.prestart(key_of(spec), start);
}
