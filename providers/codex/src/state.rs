//! What one Codex session knows while its app-server runs, shared by the session's methods
//! and the translator of the app-server's messages (one lock, the core's policy).

use crate::commands::Commands;
use crate::normalize::Normalizer;
use crate::permissions::PendingApproval;
use agent_bridge_core::lifecycle::PendingRequests;

/// State shared by the session methods and the reader.
#[derive(Debug)]
pub struct SessionState {
    pub normalizer: Normalizer,
    /// The app-server's requests waiting for the user.
    pub approvals: PendingRequests<PendingApproval>,
    /// Which of the session's app-servers runs: 0 for the open's, one more per restart.
    pub runtime: u32,
    /// The session's skills and custom prompts.
    pub commands: Commands,
}

pub type SharedState = agent_bridge_core::lifecycle::SharedState<SessionState>;

pub fn shared(normalizer: Normalizer) -> SharedState {
    agent_bridge_core::lifecycle::shared(SessionState {
        normalizer,
        approvals: PendingRequests::default(),
        runtime: 0,
        commands: Commands::default(),
    })
}

pub use agent_bridge_core::lifecycle::lock;
