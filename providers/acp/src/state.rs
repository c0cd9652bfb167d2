//! What one ACP session knows while its agent runs, shared by the session's methods, its
//! turn task and the translator of the agent's messages (one lock, the core's policy).

use crate::config::AcpConfig;
use crate::normalize::Normalizer;
use crate::permissions::Pending;
use agent_bridge_core::lifecycle::PendingRequests;
use agent_bridge_protocol::TimelineItem;
use std::collections::BTreeSet;

/// State shared by the session methods, the turn task and the reader.
#[derive(Debug, Default)]
pub struct SessionState {
    pub normalizer: Normalizer,
    pub config: AcpConfig,
    /// The agent's permission requests waiting for the user.
    pub pending: PendingRequests<Pending>,
    /// Items of a `session/load` replay, in order (latest snapshot per id).
    pub replay: Vec<TimelineItem>,
    /// What the agent's updates are, now: live, an open's replay, or a restart's restore.
    pub phase: Phase,
    /// Times the agent process was restarted.
    pub restarts: u32,
    pub title: Option<String>,
    /// The newest native user message given a revert token ([`crate::opencode::revert_tag`]).
    pub last_user_message: Option<String>,
    /// Told when the running turn's first item arrives (set by a turn that looks up its revert
    /// token, [`crate::opencode::revert_tag`]).
    pub turn_answered: Option<tokio::sync::oneshot::Sender<()>>,
    /// The turn the bridge sent `session/cancel` for ([`crate::translate::after_cancel`]).
    pub cancelled_turn: Option<String>,
    /// Every agent method and update kind seen (logged at close, for the per-agent report).
    pub seen: BTreeSet<String>,
}

/// What a session's incoming updates are (one at a time: an open and a restart never overlap).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The running conversation: everything goes to the host.
    #[default]
    Live,
    /// A `session/load` of the open replays history: timeline items are kept in
    /// [`SessionState::replay`] for the open (sent before `session.ready`, or dropped with
    /// `history: "skip"`).
    Replaying,
    /// A restarted agent is bringing its native session back ([`crate::restart`]): what it
    /// sends meanwhile (a `session/load` replay of items already shown, usage) is dropped;
    /// config changes are recorded, not reported.
    Restoring,
}

pub type SharedState = agent_bridge_core::lifecycle::SharedState<SessionState>;

pub use agent_bridge_core::lifecycle::lock;
