//! Fresh spares: after the last session of a launch leaves, its process stops (the close is
//! answered once it is gone, as for a process of the session's own) and the pool starts a new
//! one of the same launch, outside any session's scope, as the provider's spare. A spare that
//! never held a session holds no session state: a native session another bridge reopens is read
//! from what the stopped process saved on its way out (Codex keeps a thread's rollout partly in
//! memory while its app-server runs).
//!
//! A provider opts in per launch with [`SharedProcesses::spare_start`]; without it the idle
//! process itself is kept as the spare.

use super::pool::SharedProcesses;
use super::process::SharedProcess;
use super::{Route, SharedKey};
use crate::lifecycle::{lock, AgentRuntime};
use crate::rpc::Inbound;
use agent_bridge_protocol::ProviderError;
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::sync::Arc;

/// Starts a process of a launch on its own (no session scope) and completes its handshake.
pub type StartFresh = Arc<
    dyn Fn(Arc<dyn Inbound>) -> BoxFuture<'static, Result<(AgentRuntime, Value), ProviderError>>
        + Send
        + Sync,
>;

/// The launch whose spare the pool starts, and how.
#[derive(Clone)]
pub(crate) struct FreshStart {
    key: SharedKey,
    route: Arc<dyn Route>,
    start: StartFresh,
}

impl SharedProcesses {
    /// How to start a fresh spare of launch `key` (whose messages `route` routes): after its
    /// last session left and its process stopped, the pool starts another with `start` and
    /// keeps it for the idle grace. One launch per provider: the one last given. Nothing
    /// without an idle grace.
    pub fn spare_start(&self, key: &SharedKey, route: Arc<dyn Route>, start: StartFresh) {
        if self.idle_grace().is_zero() {
            return;
        }
        *lock(self.fresh_slot()) = Some(FreshStart {
            key: key.clone(),
            route,
            start,
        });
    }

    /// The fresh start of `key`, if it is the launch the provider keeps a spare of.
    pub(super) fn fresh_for(&self, key: &SharedKey) -> Option<FreshStart> {
        if self.idle_grace().is_zero() {
            return None;
        }
        lock(self.fresh_slot())
            .as_ref()
            .filter(|f| &f.key == key)
            .cloned()
    }

    /// Starts the spare of `key` in the background, unless a session started a process of it
    /// meanwhile or the bridge is stopping.
    pub(super) fn refill(&self, key: SharedKey, fresh: FreshStart) {
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let pool = self.clone();
        let spawner = rt.clone();
        rt.spawn(async move {
            if pool.stopping() {
                return;
            }
            let cell = pool.cell(&key);
            let mut slot = cell.lock().await;
            if slot.as_ref().is_some_and(|p| p.usable()) {
                return;
            }
            let (members, inbound) = SharedProcess::demux(fresh.route.clone());
            let (runtime, handshake) = match (fresh.start)(inbound).await {
                Ok(started) => started,
                Err(e) => {
                    tracing::warn!(error = %e.message, "the spare agent process did not start");
                    return;
                }
            };
            let process = Arc::new(SharedProcess::new(
                runtime,
                handshake,
                members,
                pool.deaths_of(&key),
            ));
            if pool.stopping() {
                drop(slot);
                pool.stop_idle(key, process, 0).await;
                return;
            }
            *slot = Some(process.clone());
            drop(slot);
            tracing::info!(pid = ?process.pid(), "spare agent process started");
            // A process nobody joined yet is idle since epoch 0.
            pool.keep_idle(&spawner, key, process, 0);
        });
    }
}
