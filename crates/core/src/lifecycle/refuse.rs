//! The inbound of a runtime that serves no session (a catalog or list probe, a spare process
//! before a session takes it): notifications are dropped, requests refused.

use crate::rpc::{Inbound, PeerHandle};
use serde_json::Value;

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
