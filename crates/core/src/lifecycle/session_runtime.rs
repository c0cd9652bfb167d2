//! A session's runtime: a process of its own, or its place on a process shared with other
//! sessions. What a session does with its runtime (call, fail, close, restart) reads the same
//! for both; only what "stop" means differs (a shared process stops when its last session
//! leaves).

use super::shared::{Settle, SharedDeath, SharedMember};
use super::{AgentRuntime, Liveness};
use crate::rpc::{PeerError, PeerHandle};
use agent_bridge_protocol::ProviderError;
use std::time::Duration;

#[derive(Debug)]
pub enum SessionRuntime {
    /// The session's own process.
    Own(AgentRuntime),
    /// A process shared with other sessions.
    Shared(SharedMember),
}

impl std::fmt::Debug for AgentRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentRuntime")
            .field("label", &self.label())
            .field("pid", &self.process.pid())
            .finish_non_exhaustive()
    }
}

impl SessionRuntime {
    /// The process's runtime (shared or not).
    pub fn runtime(&self) -> &AgentRuntime {
        match self {
            SessionRuntime::Own(r) => r,
            SessionRuntime::Shared(m) => m.process().runtime(),
        }
    }

    pub fn rpc(&self) -> &PeerHandle {
        &self.runtime().rpc
    }

    /// The session's liveness (on a shared process, its own: the process's death fails it
    /// only while it is live).
    pub fn liveness(&self) -> &Liveness {
        match self {
            SessionRuntime::Own(r) => &r.liveness,
            SessionRuntime::Shared(m) => m.liveness(),
        }
    }

    pub fn is_shared(&self) -> bool {
        matches!(self, SessionRuntime::Shared(_))
    }

    /// On a shared process, messages about the native session `native` are this session's
    /// (its own process's are all its own).
    pub fn claim(&self, native: &str) {
        if let SessionRuntime::Shared(m) = self {
            m.claim(native);
        }
    }

    /// Waits until what the agent said for this session so far is translated (see
    /// [`Settle`]); nothing to wait for on a process of its own.
    pub fn settle(&self) -> Settle {
        match self {
            SessionRuntime::Own(_) => Settle::default(),
            SessionRuntime::Shared(m) => m.settle(),
        }
    }

    /// On a shared process, its key's crash-loop count and which process it is (a death of
    /// the process counts once, not once per session).
    pub fn shared_death(&self) -> Option<SharedDeath> {
        match self {
            SessionRuntime::Own(_) => None,
            SessionRuntime::Shared(m) => Some(m.process().death()),
        }
    }

    /// The process's pid.
    pub fn pid(&self) -> Option<u32> {
        self.runtime().process.pid()
    }

    /// The agent's last stderr lines.
    pub fn stderr(&self) -> String {
        self.runtime().stderr()
    }

    /// A failed call (see [`AgentRuntime::call_failure`]).
    pub async fn call_failure(&self, e: PeerError) -> ProviderError {
        self.runtime().call_failure(e).await
    }

    /// The session is done with its runtime: its own process stops (within `limit`); it
    /// leaves a shared one (which stops when it was the last, after the pool's grace).
    pub async fn close(&self, limit: Duration) {
        match self {
            SessionRuntime::Own(r) => r.shutdown(limit).await,
            SessionRuntime::Shared(m) => m.leave().await,
        }
    }

    /// The runtime died and the session restarts: its own process group goes for good (a
    /// guard or launcher may linger); it leaves a shared one.
    pub async fn discard(&self) {
        match self {
            SessionRuntime::Own(r) => {
                r.liveness.close();
                r.process.kill().await;
            }
            SessionRuntime::Shared(m) => m.leave().await,
        }
    }

    /// The session is dropped: its own process is killed at once (an expected exit); its place
    /// on a shared one is left (when the member is dropped).
    pub fn kill_now(&self) {
        match self {
            SessionRuntime::Own(r) => r.kill_now(),
            SessionRuntime::Shared(m) => m.liveness().close(),
        }
    }
}
