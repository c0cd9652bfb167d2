//! Rewinding the conversation (`session.revert`, scope `conversation`): every `user_message`
//! carries the `revertToken` `{"turnId": <Codex turn id>}` (a live turn's once `turn/start`
//! named its turn, a replayed one from the thread's history); reverting to it is Codex's
//! `thread/revert` with that turn as `beforeTurnId`, which drops that turn and every later one
//! from the thread's history (the prompt is then edited and sent again, as in Paseo's built-in
//! Codex provider). Codex reverts no files (`thread/revert` only changes persisted history), so
//! the `files` and `both` scopes are refused.

use super::CodexSession;
use crate::wire::notify::method;
use agent_bridge_core::{AgentEvent, TurnRequest};
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{ItemBody, ProviderError, RevertScope, TimelineItem};
use serde_json::{json, Value};

/// The `revertToken` of the user message that started the Codex turn `turn_id`.
pub fn token(turn_id: &str) -> Value {
    json!({ "turnId": turn_id })
}

/// The Codex turn a `revertToken` names.
pub fn turn_of(token: &Value) -> Result<String, ProviderError> {
    token
        .get("turnId")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .ok_or_else(|| {
            ProviderError::new(format!("`{token}` is not a Codex revert token"))
                .with_code(ErrorCode::InvalidRevertToken)
        })
}

impl CodexSession {
    /// The core's user message of `turn` again, now with the Codex turn's revert token.
    pub(super) async fn tag_user_message(&self, turn: &TurnRequest, native: &str) {
        let mut item = TimelineItem::new(
            format!("user:{}", turn.turn_id),
            ItemBody::UserMessage {
                text: turn.text.clone(),
                message_id: None,
                client_message_id: Some(turn.prompt.client_message_id.clone()),
            },
        );
        item.revert_token = Some(token(native));
        let _ = self.sink.send(AgentEvent::Item(item)).await;
    }

    pub(super) async fn revert_to(
        &mut self,
        token: Value,
        scope: RevertScope,
    ) -> Result<(), ProviderError> {
        if scope != RevertScope::Conversation {
            return Err(ProviderError::new(
                "Codex rewinds the conversation only; it does not restore files",
            )
            .with_code(ErrorCode::UnsupportedScope));
        }
        let before = turn_of(&token)?;
        let params = json!({ "threadId": self.thread_id, "beforeTurnId": before });
        let answer = self
            .server
            .rpc()
            .call_within(method::THREAD_REVERT, params, super::TURN_CALL_TIMEOUT)
            .await;
        let answer = match answer {
            Ok(v) => v,
            Err(e) => return Err(self.failure(e).await),
        };
        // Codex keeps the thread (and so the persistence handle); a new id would be a thread
        // this session does not follow.
        let id = answer.pointer("/thread/id").and_then(Value::as_str);
        if let Some(id) = id.filter(|id| *id != self.thread_id) {
            tracing::warn!(old = %self.thread_id, new = id, "thread/revert answered another thread");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_names_its_turn_and_nothing_else_is_a_token() {
        assert_eq!(turn_of(&token("t-1")).ok().as_deref(), Some("t-1"));
        for bad in [json!("t-1"), json!({}), json!({"turnId": ""}), json!(null)] {
            let e = turn_of(&bad).err().map(|e| e.code);
            assert_eq!(
                e,
                Some(Some(agent_bridge_protocol::ErrorCode::InvalidRevertToken)),
                "{bad}"
            );
        }
    }
}
