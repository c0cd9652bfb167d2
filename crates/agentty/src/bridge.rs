//! The bridge core, in this process (`agent_bridge_core::in_process`): the panel speaks the
//! bridge wire to it — the same contract, limits and guarantees as Paseo gets, without a second
//! process.

pub use agent_bridge_core::in_process::Core;
use agent_bridge_core::in_process::{CoreCallError, CoreClient};
use agent_bridge_core::registry::ProviderEntry;
use agent_bridge_protocol::wire::{ConnectResponse, EventNotification, InitializeResponse};
use agent_bridge_protocol::{ProviderAvailability, ProviderInput};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// The host name the panel gives the core (its peer and `initialize`).
const HOST: &str = "agentty";

/// What went wrong talking to the in-process core, as the panel words it.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    #[error("`{method}` was refused: {message}")]
    Refused { method: String, message: String },
    #[error(transparent)]
    Core(CoreCallError),
}

impl From<CoreCallError> for BridgeError {
    fn from(e: CoreCallError) -> Self {
        match e {
            CoreCallError::Refused {
                method, message, ..
            } => BridgeError::Refused { method, message },
            other => BridgeError::Core(other),
        }
    }
}

/// The running core and the client side of its pipe. Cheap to clone.
#[derive(Clone)]
pub struct Bridge(CoreClient);

impl Bridge {
    /// Starts `serve` for `providers` and connects to it; events arrive on the returned
    /// channel (unbounded, so the core is never held up by the panel).
    pub fn start(
        plugin_dir: PathBuf,
        providers: Vec<Arc<ProviderEntry>>,
        spares: agent_bridge_core::spares::Spares,
    ) -> (Bridge, Core, mpsc::UnboundedReceiver<EventNotification>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let (client, core) = CoreClient::start(
            plugin_dir,
            providers,
            spares,
            HOST,
            Duration::from_secs(30),
            tx,
        );
        (Bridge(client), core, rx)
    }

    /// `initialize`: the providers this core serves, with their capabilities. The data folder
    /// (`AGENTTY_PLUGIN_DATA`) is where providers keep what they persist.
    pub async fn initialize(
        &self,
        data_dir: Option<&Path>,
    ) -> Result<InitializeResponse, BridgeError> {
        Ok(self.0.initialize(HOST, data_dir).await?)
    }

    pub async fn availability(
        &self,
        provider: &str,
        cwd: Option<&str>,
        timeout: Duration,
    ) -> Result<ProviderAvailability, BridgeError> {
        Ok(self.0.availability(provider, cwd, timeout).await?)
    }

    /// Connects to `provider` asking for every capability it offers.
    pub async fn connect(
        &self,
        provider: &str,
        capabilities: &[String],
    ) -> Result<ConnectResponse, BridgeError> {
        Ok(self.0.connect(provider, capabilities).await?)
    }

    /// `provider/send`: admission only; what it does arrives as events.
    pub async fn send(&self, connection: &str, input: &ProviderInput) -> Result<(), BridgeError> {
        Ok(self.0.send(connection, input).await?)
    }

    /// `provider/close`: the connection's sessions are closed, their processes gone.
    pub async fn close(&self, connection: &str) -> Result<(), BridgeError> {
        Ok(self.0.close(connection).await?)
    }

    /// `shutdown`: the core closes what is left and stops.
    pub async fn shutdown(&self) {
        self.0.shutdown().await
    }
}
