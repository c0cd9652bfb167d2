//! `session.revert`: rewinding a Claude session to one of its user messages.
//!
//! A user message's `revertToken` is the uuid of its stdin line (the CLI keeps it as the
//! transcript entry's `uuid`, and as the file checkpoint's id).
//!
//! - Files: the control request `rewind_files {user_message_id}` restores what the Write, Edit
//!   and NotebookEdit tools changed since that message (the CLI runs with file checkpoints on,
//!   see [`crate::launch::FILE_CHECKPOINTING`]).
//! - Conversation: the CLI is started again with `--resume` and `--resume-session-at <the entry
//!   before that message>`, so the message and everything after it are gone from the context.
//!   Until a run of the rewound session ends, its transcript's newest leaf is still the old one:
//!   the persistence handle carries `resumeAt` meanwhile (a reopen, or a restart, resumes at the
//!   same point). Rewinding to the first message starts a new conversation (there is nothing
//!   before it to resume at); its handle is published once its first run ended.

use crate::session::ClaudeSession;
use crate::{state, transcript};
use agent_bridge_core::lifecycle::lock;
use agent_bridge_core::{AgentEvent, TurnRequest};
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{ItemBody, Json, ProviderError, RevertScope, TimelineItem};
use serde_json::{json, Value};

/// Why a message cannot be rewound to.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RewindError {
    #[error("the revert token is not a Claude message id: {0}")]
    BadToken(String),
    #[error("nothing to rewind yet: the session has not started a conversation")]
    NoConversation,
    #[error("the session's transcript was not found")]
    NoTranscript,
    #[error("message {0} is not a user message of this conversation")]
    UnknownMessage(String),
    #[error("Claude Code cannot rewind the files to message {message}: {reason}")]
    Files { message: String, reason: String },
}

impl From<RewindError> for ProviderError {
    fn from(e: RewindError) -> Self {
        let code = match e {
            RewindError::BadToken(_) => ErrorCode::InvalidRevertToken,
            RewindError::NoConversation | RewindError::NoTranscript => ErrorCode::NothingToRewind,
            RewindError::UnknownMessage(_) => ErrorCode::UnknownMessage,
            RewindError::Files { .. } => ErrorCode::RewindFilesFailed,
        };
        ProviderError::new(e.to_string()).with_code(code)
    }
}

/// How long a rewind waits for its message to reach the CLI's transcript.
const TRANSCRIPT_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// Where the conversation resumes when `message` is rewound: the nearest user or assistant entry
/// before it (`None`: it is the first message). Errors when `message` is no user entry of
/// `entries`.
pub fn anchor_before(entries: &[Value], message: &str) -> Result<Option<String>, RewindError> {
    let uuid_of = |e: &Value| e.get("uuid").and_then(Value::as_str).map(str::to_string);
    let find = |id: &str| entries.iter().find(|e| uuid_of(e).as_deref() == Some(id));
    let target = find(message)
        .filter(|e| e.get("type").and_then(Value::as_str) == Some("user"))
        .ok_or_else(|| RewindError::UnknownMessage(message.to_string()))?;
    let mut parent = target.get("parentUuid").and_then(Value::as_str);
    let mut steps = 0;
    while let Some(id) = parent {
        steps += 1;
        let Some(entry) = find(id).filter(|_| steps <= entries.len()) else {
            return Ok(None);
        };
        if matches!(
            entry.get("type").and_then(Value::as_str),
            Some("user" | "assistant")
        ) {
            return Ok(Some(id.to_string()));
        }
        parent = entry.get("parentUuid").and_then(Value::as_str);
    }
    Ok(None)
}

/// The prompt's `user_message` row (the one the core published for the turn) with the uuid of
/// its line as `messageId` and `revertToken`.
pub fn user_row(turn: &TurnRequest, uuid: &str) -> TimelineItem {
    let mut row = TimelineItem::new(
        agent_bridge_core::user_item_id(&turn.turn_id),
        ItemBody::UserMessage {
            text: turn.text.clone(),
            message_id: Some(uuid.to_string()),
            client_message_id: Some(turn.prompt.client_message_id.clone()),
        },
    );
    row.revert_token = Some(Json::String(uuid.to_string()));
    row
}

fn token_uuid(token: &Json) -> Result<String, RewindError> {
    token
        .as_str()
        .filter(|t| uuid::Uuid::parse_str(t).is_ok())
        .map(str::to_string)
        .ok_or_else(|| RewindError::BadToken(token.to_string()))
}

impl ClaudeSession {
    pub(crate) async fn rewind(
        &mut self,
        token: &Json,
        scope: RevertScope,
    ) -> Result<(), ProviderError> {
        let message = token_uuid(token)?;
        let (native, cwd) = {
            let s = lock(&self.runtime.shared);
            (s.native_session_id.clone(), s.cwd.clone())
        };
        let native = native.ok_or(RewindError::NoConversation)?;
        // The anchor first: a conversation rewind that cannot happen leaves the files alone.
        let anchor = match scope {
            RevertScope::Files => None,
            RevertScope::Conversation | RevertScope::Both => {
                Some(self.anchor(&native, &cwd, &message).await?)
            }
        };
        if scope != RevertScope::Conversation {
            self.rewind_files(&message).await?;
        }
        if let Some(anchor) = anchor {
            self.rewind_conversation(native, anchor).await?;
        }
        Ok(())
    }

    async fn anchor(
        &self,
        native: &str,
        cwd: &str,
        message: &str,
    ) -> Result<Option<String>, RewindError> {
        let env = self.relaunch.launch.effective_env(&self.relaunch.env);
        // The CLI writes its transcript a moment after a turn's result: a rewind asked right
        // after the turn may find its message not written yet, so it looks again for a while.
        let deadline = tokio::time::Instant::now() + TRANSCRIPT_WAIT;
        loop {
            let (env, native, cwd, message) = (
                env.clone(),
                native.to_string(),
                cwd.to_string(),
                message.to_string(),
            );
            let found = tokio::task::spawn_blocking(move || {
                let projects = transcript::projects_dir(&env).ok_or(RewindError::NoTranscript)?;
                let path = transcript::find_transcript(&projects, &cwd, &native)
                    .ok_or(RewindError::NoTranscript)?;
                anchor_before(&transcript::read_lines(&path), &message)
            })
            .await
            .map_err(|_| RewindError::NoTranscript)?;
            match found {
                Err(RewindError::UnknownMessage(_) | RewindError::NoTranscript)
                    if tokio::time::Instant::now() < deadline =>
                {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
                other => return other,
            }
        }
    }

    async fn rewind_files(&self, message: &str) -> Result<(), ProviderError> {
        let answer = self
            .runtime
            .channel
            .request(
                json!({"subtype": "rewind_files", "user_message_id": message, "dry_run": false}),
            )
            .await
            .map_err(crate::control::control_error)?;
        if answer.get("canRewind").and_then(Value::as_bool) == Some(true) {
            return Ok(());
        }
        let reason = answer
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("no file checkpoint at that message")
            .to_string();
        Err(RewindError::Files {
            message: message.to_string(),
            reason,
        }
        .into())
    }

    /// Restarts the CLI on the conversation up to `anchor` (a new conversation when `None`).
    async fn rewind_conversation(
        &mut self,
        native: String,
        anchor: Option<String>,
    ) -> Result<(), ProviderError> {
        let (config, before) = {
            let mut s = lock(&self.runtime.shared);
            let before = std::mem::replace(&mut s.rewound_at, anchor.clone());
            (s.config.clone(), before)
        };
        let resume = anchor.as_ref().map(|_| native.clone());
        if let Err(e) = self
            .replace_runtime(&config, resume, "restart for a rewind")
            .await
        {
            lock(&self.runtime.shared).rewound_at = before;
            return Err(e);
        }
        if let Some(at) = &anchor {
            let cwd = lock(&self.runtime.shared).cwd.clone();
            let handle = state::persistence_at(&native, &cwd, Some(at));
            self.runtime
                .events
                .send(AgentEvent::Persistence(handle))
                .await;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// The shape claude 2.1.197 writes: prompt, attachments, assistant; then the next prompt.
    fn entries() -> Vec<Value> {
        vec![
            json!({"type": "queue-operation"}),
            json!({"type": "user", "uuid": "u1", "parentUuid": null}),
            json!({"type": "attachment", "uuid": "at1", "parentUuid": "u1"}),
            json!({"type": "file-history-snapshot", "messageId": "u1"}),
            json!({"type": "assistant", "uuid": "a1", "parentUuid": "at1"}),
            json!({"type": "user", "uuid": "u2", "parentUuid": "a1"}),
            json!({"type": "attachment", "uuid": "at2", "parentUuid": "a1"}),
            json!({"type": "user", "uuid": "u3", "parentUuid": "at2"}),
        ]
    }

    #[test]
    fn the_anchor_is_the_message_before_skipping_attachments() {
        assert_eq!(anchor_before(&entries(), "u2"), Ok(Some("a1".into())));
        assert_eq!(anchor_before(&entries(), "u3"), Ok(Some("a1".into())));
        assert_eq!(anchor_before(&entries(), "u1"), Ok(None));
        assert_eq!(
            anchor_before(&entries(), "a1"),
            Err(RewindError::UnknownMessage("a1".into()))
        );
        assert_eq!(
            anchor_before(&entries(), "nope"),
            Err(RewindError::UnknownMessage("nope".into()))
        );
    }

    #[test]
    fn tokens_are_message_uuids() {
        let ok = json!("bbbbbbbb-1111-4111-8111-111111111111");
        assert_eq!(
            token_uuid(&ok).as_deref(),
            Ok("bbbbbbbb-1111-4111-8111-111111111111")
        );
        assert!(token_uuid(&json!(7)).is_err());
        assert!(token_uuid(&json!("not-a-uuid")).is_err());
    }
}
