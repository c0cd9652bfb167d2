//! The bridge core in the host's own process: `serve` runs on one end of an in-memory pipe and
//! the host speaks the bridge wire to it from the other, through the core's own JSON-RPC peer —
//! the same contract, limits and guarantees as Paseo gets, without a second process. Used by the
//! hosts that run the core in-process (`agent-bridge agentty`, `agent-bridge acp`).

use crate::codec::{BoundedLineCodec, MAX_LINE};
use crate::registry::ProviderEntry;
use crate::rpc::{Inbound, JsonRpc, Peer, PeerHandle, PeerOptions};
use crate::server::{serve, ServerConfig, StopReason};
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

/// What went wrong talking to the in-process core.
#[derive(Debug, thiserror::Error)]
pub enum CoreCallError {
    /// The core answered `method` with a JSON-RPC error.
    #[error("{message}")]
    Refused {
        method: String,
        code: i64,
        message: String,
    },
    #[error("the bridge core is gone: {0}")]
    Gone(String),
    #[error("the answer to `{method}` has an unexpected shape: {source}")]
    Shape {
        method: String,
        source: serde_json::Error,
    },
}

/// Where the core's `provider/event`s go, in order. A bounded sender holds the core's writer
/// (and through it the agents) while the host catches up; an unbounded one never does.
#[async_trait::async_trait]
pub trait EventSink: Send + Sync + 'static {
    async fn event(&self, event: EventNotification);
}

#[async_trait::async_trait]
impl EventSink for mpsc::Sender<EventNotification> {
    async fn event(&self, event: EventNotification) {
        let _ = self.send(event).await;
    }
}

#[async_trait::async_trait]
impl EventSink for mpsc::UnboundedSender<EventNotification> {
    async fn event(&self, event: EventNotification) {
        let _ = self.send(event);
    }
}

/// The core's notifications, read as `provider/event`s into the host's sink.
struct Events<S>(S);

#[async_trait::async_trait]
impl<S: EventSink> Inbound for Events<S> {
    async fn notification(&self, _peer: &PeerHandle, method: String, params: Value) {
        if method != METHOD_EVENT {
            tracing::warn!(%method, "the bridge core sent an unknown notification");
            return;
        }
        match serde_json::from_value::<EventNotification>(params) {
            Ok(n) => self.0.event(n).await,
            Err(e) => tracing::warn!("an event of the bridge core could not be read: {e}"),
        }
    }
}

/// The core's task and its stop switch.
pub struct Core {
    pub task: JoinHandle<StopReason>,
    pub cancel: CancellationToken,
}

/// The host's side of the pipe to the in-process core. Cheap to clone.
#[derive(Clone)]
pub struct CoreClient {
    peer: PeerHandle,
}

impl CoreClient {
    /// Starts `serve` for `providers` (built with the bridge's `spares`) and connects to it as `host`; each call waits at most
    /// `call_timeout`; events go to `events`.
    pub fn start(
        plugin_dir: PathBuf,
        providers: Vec<Arc<ProviderEntry>>,
        spares: crate::spares::Spares,
        host: &str,
        call_timeout: Duration,
        events: impl EventSink,
    ) -> (CoreClient, Core) {
        let config = ServerConfig {
            name: "agent-bridge".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            plugin_dir,
            providers,
            spares,
        };
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        let (core_read, core_write) = tokio::io::split(theirs);
        let cancel = CancellationToken::new();
        let task = tokio::spawn(serve(config, core_read, core_write, cancel.clone()));
        let (read, write) = tokio::io::split(ours);
        let mut options = PeerOptions::new(host);
        options.call_timeout = call_timeout;
        let peer = Peer::start(
            FramedRead::new(read, BoundedLineCodec::new(MAX_LINE)),
            write,
            Arc::new(JsonRpc::v2()),
            Arc::new(Events(events)),
            options,
        );
        (CoreClient { peer }, Core { task, cancel })
    }

    async fn call<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
    ) -> Result<T, CoreCallError> {
        let value = self
            .peer
            .call(method, params)
            .await
            .map_err(|e| match e.rpc() {
                Some(error) => CoreCallError::Refused {
                    method: method.into(),
                    code: error.code,
                    message: error.message.clone(),
                },
                None => CoreCallError::Gone(e.to_string()),
            })?;
        serde_json::from_value(value).map_err(|source| CoreCallError::Shape {
            method: method.into(),
            source,
        })
    }

    /// `initialize` as `host`: the providers this core serves, with their capabilities. The
    /// data folder, when given, is where providers keep what they persist.
    pub async fn initialize(
        &self,
        host: &str,
        data_dir: Option<&Path>,
    ) -> Result<InitializeResponse, CoreCallError> {
        let mut params = json!({
            "apiVersion": BRIDGE_API_VERSION,
            "host": {"name": host, "version": env!("CARGO_PKG_VERSION")},
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
    ) -> Result<ProviderAvailability, CoreCallError> {
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
    ) -> Result<ConnectResponse, CoreCallError> {
        let params = json!({"providerId": provider, "request": {
            "versions": [agent_bridge_protocol::PROVIDER_PROTOCOL_VERSION],
            "capabilities": capabilities}});
        self.call(METHOD_CONNECT, params).await
    }

    /// `provider/send`: admission only; what it does arrives as events.
    pub async fn send(&self, connection: &str, input: &ProviderInput) -> Result<(), CoreCallError> {
        let params = json!({"connectionId": connection, "input": input});
        let _: Value = self.call(METHOD_SEND, params).await?;
        Ok(())
    }

    /// `provider/close`: the connection's sessions are closed, their processes gone.
    pub async fn close(&self, connection: &str) -> Result<(), CoreCallError> {
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
