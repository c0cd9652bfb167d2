//! Rewinding an OpenCode session (`session.revert`) through the server inside `opencode acp`
//! ([`crate::embedded_server`]); ACP itself cannot rewind.
//!
//! - Every user message carries the `revertToken` `{"messageID": <OpenCode message id>}`. A
//!   live turn's is learnt when it ends: the session's newest message is the turn's user
//!   message or an assistant message whose `parentID` names it (`GET
//!   /session/{id}/message?limit=1`). A replayed one's is the `messageId` of its
//!   `user_message_chunk`.
//! - Reverting to it is `POST /session/{id}/revert {messageID}`: that message and every later
//!   one are hidden from the model and dropped at the next prompt, and in a git repository the
//!   files the session changed since are restored from OpenCode's snapshot. Outside git
//!   (OpenCode's project `global`) it keeps no snapshot: only the conversation goes back. So
//!   the scope is `both` in a git repository and `conversation` elsewhere; the other scopes
//!   are refused there, never half done.
//! - Until the next prompt the hidden messages are still stored, and a `session/load` replays
//!   them: a reopen first asks where a pending revert goes back to ([`pending`]) and the
//!   replay stops there ([`crate::normalize::Normalizer::cut_replay_at`]).

use agent_bridge_core::loopback_http::{HttpError, LoopbackHttp};
use agent_bridge_protocol::{ErrorCode, ProviderError, RevertScope};
use serde_json::{json, Value};

/// The `revertToken` of the user message `message_id`.
pub fn token(message_id: &str) -> Value {
    json!({ "messageID": message_id })
}

/// Whether `id` can be an OpenCode id in a request path.
fn is_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The OpenCode message a `revertToken` names.
pub fn message_of(token: &Value) -> Result<String, ProviderError> {
    token
        .get("messageID")
        .and_then(Value::as_str)
        .filter(|id| is_id(id))
        .map(str::to_string)
        .ok_or_else(|| {
            ProviderError::new(format!("`{token}` is not an OpenCode revert token"))
                .with_code(ErrorCode::InvalidRevertToken)
        })
}

/// `/session/{id}`, for an id that can be one.
pub fn session_path(session_id: &str) -> Result<String, HttpError> {
    if !is_id(session_id) {
        return Err(HttpError::Protocol {
            what: "session id".into(),
            detail: format!("`{session_id}` is not an OpenCode session id"),
        });
    }
    Ok(format!("/session/{session_id}"))
}

/// The user message of the session's newest turn.
pub async fn last_user_message(
    http: &LoopbackHttp,
    session_id: &str,
) -> Result<Option<String>, HttpError> {
    let path = format!("{}/message?limit=1", session_path(session_id)?);
    let newest = http.get(&path).await?;
    let info = &newest[0]["info"];
    let id = match info["role"].as_str() {
        Some("user") => info["id"].as_str(),
        Some("assistant") => info["parentID"].as_str(),
        _ => None,
    };
    Ok(id.filter(|id| is_id(id)).map(str::to_string))
}

/// The message a pending revert of the session goes back to, if one is pending.
pub async fn pending(http: &LoopbackHttp, session_id: &str) -> Result<Option<String>, HttpError> {
    let session = http.get(&session_path(session_id)?).await?;
    Ok(session["revert"]["messageID"]
        .as_str()
        .filter(|id| is_id(id))
        .map(str::to_string))
}

/// Whether OpenCode restores files in this session: its folder is in a git repository (its
/// project is not `global`).
fn restores_files(session: &Value) -> bool {
    session["projectID"]
        .as_str()
        .is_some_and(|p| !p.is_empty() && p != "global")
}

/// Why `scope` cannot be honoured in a session that does (or does not) restore files.
fn refusal(scope: RevertScope, files: bool) -> Option<&'static str> {
    match (scope, files) {
        (RevertScope::Both, true) | (RevertScope::Conversation, false) => None,
        (RevertScope::Files, _) => Some(
            "OpenCode cannot restore files without rewinding the conversation",
        ),
        (RevertScope::Conversation, true) => Some(
            "in a git repository OpenCode restores the session's file changes with the conversation; rewind with scope `both`",
        ),
        (RevertScope::Both, false) => Some(
            "outside a git repository OpenCode keeps no snapshot of the files; only the conversation can be rewound (scope `conversation`)",
        ),
    }
}

fn failure(e: HttpError) -> ProviderError {
    ProviderError::new(format!("OpenCode's server: {e}")).with_code(ErrorCode::AgentError)
}

/// Rewinds the session to before the user message `token` names, in `scope`.
pub async fn revert(
    http: &LoopbackHttp,
    session_id: &str,
    token: &Value,
    scope: RevertScope,
) -> Result<(), ProviderError> {
    let message = message_of(token)?;
    let path = session_path(session_id).map_err(failure)?;
    let session = http.get(&path).await.map_err(failure)?;
    if let Some(why) = refusal(scope, restores_files(&session)) {
        return Err(ProviderError::new(why).with_code(ErrorCode::UnsupportedScope));
    }
    let body = json!({ "messageID": message });
    match http.post(&format!("{path}/revert"), &body).await {
        Ok(_) => Ok(()),
        Err(e) if matches!(e.status(), Some(400 | 404)) => Err(ProviderError::new(format!(
            "OpenCode cannot rewind to message `{message}`: {e}"
        ))
        .with_code(ErrorCode::InvalidRevertToken)),
        Err(e) => Err(failure(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_token_names_one_message_and_nothing_else_is_a_token() {
        assert_eq!(message_of(&token("msg_1a")).ok().as_deref(), Some("msg_1a"));
        for bad in [
            json!("msg_1"),
            json!({}),
            json!({"messageID": ""}),
            json!({"messageID": "../x"}),
            json!({"turnId": "t"}),
        ] {
            let code = message_of(&bad).err().and_then(|e| e.code);
            assert_eq!(code, Some(ErrorCode::InvalidRevertToken), "{bad}");
        }
    }

    #[test]
    fn the_scope_follows_whether_opencode_restores_files() {
        let git = json!({"projectID": "4b825dc6"});
        let plain = json!({"projectID": "global"});
        assert!(restores_files(&git) && !restores_files(&plain));
        assert_eq!(refusal(RevertScope::Both, true), None);
        assert_eq!(refusal(RevertScope::Conversation, false), None);
        for (scope, files) in [
            (RevertScope::Conversation, true),
            (RevertScope::Both, false),
            (RevertScope::Files, true),
            (RevertScope::Files, false),
        ] {
            assert!(refusal(scope, files).is_some(), "{scope:?} {files}");
        }
    }
}
