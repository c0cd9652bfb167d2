//! The bridge core, in this process (`agent_bridge_core::in_process`, as `agent-bridge agentty`
//! runs it): the facade speaks the bridge wire to it — the same contract, limits and guarantees
//! as Paseo gets.

use agent_bridge_core::in_process::CoreClient;
pub use agent_bridge_core::in_process::{Core, CoreCallError as CoreError};
use agent_bridge_core::registry::ProviderEntry;
use agent_bridge_protocol::wire::EventNotification;
use agent_bridge_protocol::wire::{ConnectResponse, InitializeResponse};
use agent_bridge_protocol::{ProviderAvailability, ProviderInput};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// Core events waiting for the facade, at most. A full queue holds the core's writer (and
/// through it the agents): backpressure, nothing dropped.
const EVENT_QUEUE: usize = 1024;

/// The host name the facade gives the core (its peer and `initialize`).
const HOST: &str = "acp";

/// The facade's side of the pipe to the core. Cheap to clone.
#[derive(Clone)]
pub struct CoreLink(CoreClient);

impl CoreLink {
    /// Starts `serve` for `providers` and connects to it; events arrive on the returned queue.
    pub fn start(
        plugin_dir: PathBuf,
        providers: Vec<Arc<ProviderEntry>>,
        spares: agent_bridge_core::spares::Spares,
    ) -> (CoreLink, Core, mpsc::Receiver<EventNotification>) {
        let (tx, rx) = mpsc::channel(EVENT_QUEUE);
        let (client, core) = CoreClient::start(
            plugin_dir,
            providers,
            spares,
            HOST,
            Duration::from_secs(60),
            tx,
        );
        (CoreLink(client), core, rx)
    }

    /// `initialize`, with the folder where providers keep what they persist.
    pub async fn initialize(&self, data_dir: &Path) -> Result<InitializeResponse, CoreError> {
        self.0.initialize(HOST, Some(data_dir)).await
    }

    pub async fn availability(
        &self,
        provider: &str,
        timeout: Duration,
    ) -> Result<ProviderAvailability, CoreError> {
        self.0.availability(provider, None, timeout).await
    }

    /// Connects to `provider` asking for every capability it offers.
    pub async fn connect(
        &self,
        provider: &str,
        capabilities: &[String],
    ) -> Result<ConnectResponse, CoreError> {
        self.0.connect(provider, capabilities).await
    }

    /// `provider/send`: admission only; what it does arrives as events.
    pub async fn send(&self, connection: &str, input: &ProviderInput) -> Result<(), CoreError> {
        self.0.send(connection, input).await
    }

    /// `provider/close`: the connection's sessions are closed, their processes gone.
    pub async fn close(&self, connection: &str) -> Result<(), CoreError> {
        self.0.close(connection).await
    }

    /// `shutdown`: the core closes what is left and stops.
    pub async fn shutdown(&self) {
        self.0.shutdown().await
    }
}
