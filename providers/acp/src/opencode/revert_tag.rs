//! The revert token of a live turn's user message ([`crate::opencode::revert`]): asked of the agent's
//! server once the turn's first item arrives (the agent is answering, so the message exists),
//! off the turn's path, or when the prompt is answered if no item came; given to the core's
//! row of that message (`user:<turn id>`) before the turn ends (a row of an ended turn is
//! sealed).

use crate::state::{lock, SharedState};
use agent_bridge_core::loopback_http::LoopbackHttp;
use agent_bridge_core::TurnRequest;
use agent_bridge_protocol::{ItemBody, TimelineItem};

/// Whether `message` is newer than `last`, the message an earlier turn was given (OpenCode's
/// message ids sort in the order they were made).
fn is_newer(last: Option<&str>, message: &str) -> bool {
    last.is_none_or(|last| message > last)
}

/// What the row of a turn's user message needs.
#[derive(Clone)]
pub struct TurnTag {
    http: LoopbackHttp,
    session_id: String,
    turn_id: String,
    text: String,
    client_message_id: String,
}

impl TurnTag {
    pub fn new(http: LoopbackHttp, session_id: &str, turn: &TurnRequest) -> Self {
        TurnTag {
            http,
            session_id: session_id.to_string(),
            turn_id: turn.turn_id.clone(),
            text: turn.text.clone(),
            client_message_id: turn.prompt.client_message_id.clone(),
        }
    }

    /// The session's newest user message, when it is newer than the one an earlier turn was
    /// given; `None` when the server cannot say or names no newer one (this turn left none).
    pub async fn lookup(&self, shared: &SharedState) -> Option<String> {
        let message =
            match crate::opencode::revert::last_user_message(&self.http, &self.session_id).await {
                Ok(Some(id)) => id,
                Ok(None) => return None,
                Err(e) => {
                    tracing::warn!(turn = %self.turn_id, "no revert token for the turn: {e}");
                    return None;
                }
            };
        let newer = is_newer(lock(shared).last_user_message.as_deref(), &message);
        newer.then_some(message)
    }

    /// The turn's user row with the revert token of `found` (looked up while the turn ran)
    /// or, without it, of what [`Self::lookup`] finds now.
    pub async fn row(&self, shared: &SharedState, found: Option<String>) -> Option<TimelineItem> {
        let message = match found {
            Some(m) => m,
            None => self.lookup(shared).await?,
        };
        {
            let mut s = lock(shared);
            if !is_newer(s.last_user_message.as_deref(), &message) {
                return None;
            }
            s.last_user_message = Some(message.clone());
        }
        let mut row = TimelineItem::new(
            agent_bridge_core::user_item_id(&self.turn_id),
            ItemBody::UserMessage {
                text: self.text.clone(),
                message_id: Some(message.clone()),
                client_message_id: Some(self.client_message_id.clone()),
            },
        );
        row.revert_token = Some(crate::opencode::revert::token(&message));
        Some(row)
    }
}
