//! The bridge core, in this process: `serve` runs on one end of an in-memory pipe and the
//! facade speaks the bridge wire to it from the other, through the core's own JSON-RPC peer —
//! the same contract, limits and guarantees as Paseo gets (as `agent-bridge agentty` does).

use agent_bridge_core::codec::{BoundedLineCodec, MAX_LINE};
use agent_bridge_core::registry::ProviderEntry;
use agent_bridge_core::rpc::{Inbound, JsonRpc, Peer, PeerHandle, PeerOptions};
use agent_bridge_core::server::{serve, ServerConfig, StopReason};
use agent_bridge_protocol::wire::*;
use agent_bridge_protocol::{ProviderAvailability, ProviderInput, BRIDGE_API_VERSION};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::codec::FramedRead;
use tokio_util::sync::CancellationToken;

/// Core events waiting for the facade, at most. A full queue holds the core's writer (and
/// through it the agents): backpressure, nothing dropped.
const EVENT_QUEUE: usize = 1024;

/// What went wrong talking to the in-process core.
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    #[error("{message}")]
    Refused { code: i64, message: String },
    #[error("the bridge core is gone: {0}")]
    Gone(String),
    #[error("the answer to `{method}` has an unexpected shape: {source}")]
    Shape {
        method: String,
        source: serde_json::Error,
    },
}

/// The core's notifications, in order: each `provider/event`.
struct Events(mpsc::Sender<EventNotification>);

#[async_trait::async_trait]
impl Inbound for Events {
    async fn notification(&self, _peer: &PeerHandle, method: String, params: Value) {
        if method != METHOD_EVENT {
            tracing::warn!(%method, "the bridge core sent an unknown notification");
            return;
        }
        match serde_json::from_value::<EventNotification>(params) {
            Ok(n) => {
                let _ = self.0.send(n).await;
            }
            Err(e) => tracing::warn!("an event of the bridge core could not be read: {e}"),
        }
    }
}

/// The client side of the core's pipe. Cheap to clone.
#[derive(Clone)]
pub struct CoreLink {
    peer: PeerHandle,
}

/// The core's task and its stop switch.
pub struct Core {
    pub task: JoinHandle<StopReason>,
    pub cancel: CancellationToken,
}

impl CoreLink {
    /// Starts `serve` for `providers` and connects to it; events arrive on the returned queue.
    pub fn start(
        plugin_dir: PathBuf,
        providers: Vec<Arc<ProviderEntry>>,
    ) -> (CoreLink, Core, mpsc::Receiver<EventNotification>) {
        let config = ServerConfig {
            name: "agent-bridge".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            plugin_dir,
            providers,
        };
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        let (core_read, core_write) = tokio::io::split(theirs);
        let cancel = CancellationToken::new();
        let task = tokio::spawn(serve(config, core_read, core_write, cancel.clone()));
        let (read, write) = tokio::io::split(ours);
        let (tx, rx) = mpsc::channel(EVENT_QUEUE);
        let mut options = PeerOptions::new("acp");
        options.call_timeout = Duration::from_secs(60);
        let peer = Peer::start(
            FramedRead::new(read, BoundedLineCodec::new(MAX_LINE)),
            write,
            Arc::new(JsonRpc::v2()),
            Arc::new(Events(tx)),
            options,
        );
        (CoreLink { peer }, Core { task, cancel }, rx)
    }

    async fn call<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
    ) -> Result<T, CoreError> {
        let value = self
            .peer
            .call(method, params)
            .await
            .map_err(|e| match e.rpc() {
                Some(error) => CoreError::Refused {
                    code: error.code,
                    message: error.message.clone(),
                },
                None => CoreError::Gone(e.to_string()),
            })?;
        serde_json::from_value(value).map_err(|source| CoreError::Shape {
            method: method.into(),
            source,
        })
    }

    /// `initialize`, with the folder where providers keep what they persist.
    pub async fn initialize(&self, data_dir: &Path) -> Result<InitializeResponse, CoreError> {
        let params = json!({
            "apiVersion": BRIDGE_API_VERSION,
            "host": {"name": "acp", "version": env!("CARGO_PKG_VERSION")},
            "plugin": {"id": "agent-bridge", "dataDir": data_dir.display().to_string()},
        });
        self.call(METHOD_INITIALIZE, params).await
    }

    pub async fn availability(
        &self,
        provider: &str,
        timeout: Duration,
    ) -> Result<ProviderAvailability, CoreError> {
        let params = json!({"providerId": provider, "options": {},
            "timeoutMs": timeout.as_millis() as u64});
        self.call(METHOD_AVAILABILITY, params).await
    }

    /// Connects to `provider` asking for every capability it offers.
    pub async fn connect(
        &self,
        provider: &str,
        capabilities: &[String],
    ) -> Result<ConnectResponse, CoreError> {
        let params = json!({"providerId": provider, "request": {
            "versions": [agent_bridge_protocol::PROVIDER_PROTOCOL_VERSION],
            "capabilities": capabilities}});
        self.call(METHOD_CONNECT, params).await
    }

    /// `provider/send`: admission only; what it does arrives as events.
    pub async fn send(&self, connection: &str, input: &ProviderInput) -> Result<(), CoreError> {
        let params = json!({"connectionId": connection, "input": input});
        let _: Value = self.call(METHOD_SEND, params).await?;
        Ok(())
    }

    /// `provider/close`: the connection's sessions are closed, their processes gone.
    pub async fn close(&self, connection: &str) -> Result<(), CoreError> {
        let _: Value = self
            .call(METHOD_CLOSE, json!({"connectionId": connection}))
            .await?;
        Ok(())
    }

    /// `shutdown`: the core closes what is left and stops.
    pub async fn shutdown(&self) {
        let _ = self.peer.notify(METHOD_SHUTDOWN, Some(&json!({}))).await;
    }
}
