//! The inbound of a runtime that serves no session (a catalog or list probe, a spare process
//! before a session takes it): notifications are dropped, requests refused.

use crate::agent_process::ExitInfo;
use crate::rpc::{Inbound, IncomingRequest, PeerHandle};
use serde_json::Value;
use std::sync::{Arc, Mutex};

/// Drops notifications (logged at `debug`) and refuses requests with the peer's default
/// `-32601`.
#[derive(Debug, Default, Clone, Copy)]
pub struct RefuseAll;

#[async_trait::async_trait]
impl Inbound for RefuseAll {
    async fn notification(&self, _peer: &PeerHandle, method: String, _params: Value) {
        tracing::debug!(%method, "notification of a runtime without a session ignored");
    }
}

/// The inbound of a process started ahead of its session (a prestarted spare): like
/// [`RefuseAll`] until a session [`LateInbound::bind`]s its own, then that one's.
#[derive(Clone, Default)]
pub struct LateInbound(Arc<Mutex<Option<Arc<dyn Inbound>>>>);

impl std::fmt::Debug for LateInbound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("LateInbound")
            .field(&self.current().is_some())
            .finish()
    }
}

impl LateInbound {
    /// From now on what the agent sends goes to `inbound`.
    pub fn bind(&self, inbound: Arc<dyn Inbound>) {
        *super::lock(&self.0) = Some(inbound);
    }

    fn current(&self) -> Option<Arc<dyn Inbound>> {
        super::lock(&self.0).clone()
    }
}

#[async_trait::async_trait]
impl Inbound for LateInbound {
    async fn notification(&self, peer: &PeerHandle, method: String, params: Value) {
        match self.current() {
            Some(inbound) => inbound.notification(peer, method, params).await,
            None => RefuseAll.notification(peer, method, params).await,
        }
    }

    async fn request(&self, peer: &PeerHandle, request: IncomingRequest) {
        match self.current() {
            Some(inbound) => inbound.request(peer, request).await,
            None => RefuseAll.request(peer, request).await,
        }
    }

    async fn closed(&self, peer: &PeerHandle, exit: Option<ExitInfo>) {
        if let Some(inbound) = self.current() {
            inbound.closed(peer, exit).await;
        }
    }
}
