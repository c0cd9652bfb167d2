//! The bridge core, in this process: `serve` runs on one end of an in-memory pipe and the panel
//! speaks the bridge wire to it from the other, through the core's own JSON-RPC peer — the same
//! contract, limits and guarantees as Paseo gets, without a second process.

use agent_bridge_core::codec::{BoundedLineCodec, MAX_LINE};
use agent_bridge_core::registry::ProviderEntry;
use agent_bridge_core::rpc::{Inbound, JsonRpc, Peer, PeerHandle, PeerOptions};
use agent_bridge_core::server::{serve, ServerConfig, StopReason};
use agent_bridge_protocol::wire::*;
use agent_bridge_protocol::{ProviderAvailability, ProviderInput, BRIDGE_API_VERSION};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::codec::FramedRead;
use tokio_util::sync::CancellationToken;

/// What went wrong talking to the in-process core.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    #[error("`{method}` was refused: {message}")]
    Refused { method: String, message: String },
    #[error("the bridge core is gone: {0}")]
    Gone(String),
    #[error("the answer to `{method}` has an unexpected shape: {source}")]
    Shape {
        method: String,
        source: serde_json::Error,
    },
}

/// The bridge's notifications, in order: each `provider/event`.
struct Events(mpsc::UnboundedSender<EventNotification>);

#[async_trait::async_trait]
impl Inbound for Events {
    async fn notification(&self, _peer: &PeerHandle, method: String, params: Value) {
        if method != METHOD_EVENT {
            tracing::warn!(%method, "the bridge core sent an unknown notification");
            return;
        }
        match serde_json::from_value::<EventNotification>(params) {
            Ok(n) => {
                let _ = self.0.send(n);
            }
            Err(e) => tracing::warn!("an event of the bridge core could not be read: {e}"),
        }
    }
}

/// The running core and the client side of its pipe. Cheap to clone.
#[derive(Clone)]
pub struct Bridge {
    peer: PeerHandle,
}

/// The core's task and its stop switch.
pub struct Core {
    pub task: JoinHandle<StopReason>,
    pub cancel: CancellationToken,
}

impl Bridge {
    /// Starts `serve` for `providers` and connects to it; events arrive on the returned
    /// channel (unbounded, so the core is never held up by the panel).
    pub fn start(
        plugin_dir: PathBuf,
        providers: Vec<Arc<ProviderEntry>>,
    ) -> (Bridge, Core, mpsc::UnboundedReceiver<EventNotification>) {
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
        let (tx, rx) = mpsc::unbounded_channel();
        let mut options = PeerOptions::new("agentty");
        options.call_timeout = Duration::from_secs(30);
        let peer = Peer::start(
            FramedRead::new(read, BoundedLineCodec::new(MAX_LINE)),
            write,
            Arc::new(JsonRpc::v2()),
            Arc::new(Events(tx)),
            options,
        );
        (Bridge { peer }, Core { task, cancel }, rx)
    }

    async fn call<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
    ) -> Result<T, BridgeError> {
        let value = self
            .peer
            .call(method, params)
            .await
            .map_err(|e| match e.rpc() {
                Some(error) => BridgeError::Refused {
                    method: method.into(),
                    message: error.message.clone(),
                },
                None => BridgeError::Gone(e.to_string()),
            })?;
        serde_json::from_value(value).map_err(|source| BridgeError::Shape {
            method: method.into(),
            source,
        })
    }

    /// `initialize`: the providers this core serves, with their capabilities. The data folder
    /// (`AGENTTY_PLUGIN_DATA`) is where providers keep what they persist.
    pub async fn initialize(
        &self,
        data_dir: Option<&std::path::Path>,
    ) -> Result<InitializeResponse, BridgeError> {
        let mut params = json!({
            "apiVersion": BRIDGE_API_VERSION,
            "host": {"name": "agentty", "version": env!("CARGO_PKG_VERSION")},
        });
        if let Some(dir) = data_dir {
            params["plugin"] = json!({"id": "agent-bridge", "dataDir": dir.display().to_string()});
        }
        self.call(METHOD_INITIALIZE, params).await
    }

    pub async fn availability(
        &self,
        provider: &str,
        cwd: Option<&str>,
        timeout: Duration,
    ) -> Result<ProviderAvailability, BridgeError> {
        let mut options = json!({});
        if let Some(cwd) = cwd {
            options["cwd"] = json!(cwd);
        }
        let params = json!({"providerId": provider, "options": options,
            "timeoutMs": timeout.as_millis() as u64});
        self.call(METHOD_AVAILABILITY, params).await
    }

    /// Connects to `provider` asking for every capability it offers.
    pub async fn connect(
        &self,
        provider: &str,
        capabilities: &[String],
    ) -> Result<ConnectResponse, BridgeError> {
        let params = json!({"providerId": provider, "request": {
            "versions": [agent_bridge_protocol::PROVIDER_PROTOCOL_VERSION],
            "capabilities": capabilities}});
        self.call(METHOD_CONNECT, params).await
    }

    /// `provider/send`: admission only; what it does arrives as events.
    pub async fn send(&self, connection: &str, input: &ProviderInput) -> Result<(), BridgeError> {
        let params = json!({"connectionId": connection, "input": input});
        let _: Value = self.call(METHOD_SEND, params).await?;
        Ok(())
    }

    /// `provider/close`: the connection's sessions are closed, their processes gone.
    pub async fn close(&self, connection: &str) -> Result<(), BridgeError> {
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
