//! Rewinding an OpenCode session (`session.revert`) through the server inside `opencode acp`
//! ([`crate::opencode::embedded_server`]); ACP itself cannot rewind.
//!
//! - Every user message carries the `revertToken` `{"messageID": <OpenCode message id>}`. A
//!   live turn's is learnt when it ends: the session's newest message is the turn's user
//!   message or an assistant message whose `parentID` names it (`GET
//!   /session/{id}/message?limit=1`). A replayed one's is the `messageId` of its
//!   `user_message_chunk`.
//! - Reverting to it is `POST /session/{id}/revert {messageID}`: that message and every later
//!   one are hidden from the model and dropped at the next prompt, and in a git repository the
//!   files the session changed since are restored from the snapshots OpenCode took before
//!   each step. Outside git (OpenCode's project `global`), or when no step since has a
//!   snapshot (snapshots off; Kilo 7.7.7 takes none in our tests), only the conversation goes
//!   back. So the scope is `both` where every step since has a snapshot, `conversation` where
//!   none has; the other scopes, and a mix of the two, are refused: never half done.
//! - Until the next prompt the hidden messages are still stored, and a `session/load` replays
//!   them: a reopen first asks where a pending revert goes back to ([`pending`]) and the
//!   replay stops there (the normalizer's replay cut).

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

/// What a revert does to the files the session changed since the message it goes back to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Files {
    /// Restored from OpenCode's snapshots: a git repository, and every step since was taken
    /// with a snapshot.
    Restored,
    /// Left as they are: outside git (OpenCode's project `global`), or no step since has a
    /// snapshot (snapshots switched off, or the CLI took none: Kilo 7.7.7 in our tests).
    Kept,
    /// Some steps have a snapshot and some do not: some files would go back and some not.
    Partly,
}

/// What a revert to `message` does to the files, from the session's project and the
/// `step-start` parts of `message` and every later message (`snapshot` is set when OpenCode
/// captured the worktree before the step). `None` when `message` is not in the session.
fn files_of(session: &Value, messages: &Value, message: &str) -> Option<Files> {
    let list = messages.as_array()?;
    let from = list
        .iter()
        .position(|m| m["info"]["id"].as_str() == Some(message))?;
    let in_git = session["projectID"]
        .as_str()
        .is_some_and(|p| !p.is_empty() && p != "global");
    if !in_git {
        return Some(Files::Kept);
    }
    let steps: Vec<bool> = list[from..]
        .iter()
        .filter_map(|m| m["parts"].as_array())
        .flatten()
        .filter(|part| part["type"] == "step-start")
        .map(|part| part["snapshot"].as_str().is_some_and(|s| !s.is_empty()))
        .collect();
    Some(match (steps.iter().all(|s| *s), steps.iter().any(|s| *s)) {
        (true, _) => Files::Restored,
        (false, false) => Files::Kept,
        (false, true) => Files::Partly,
    })
}

/// Why `scope` cannot be honoured when a revert does `files` to the files.
fn refusal(scope: RevertScope, files: Files) -> Option<&'static str> {
    match (scope, files) {
        (RevertScope::Both, Files::Restored) | (RevertScope::Conversation, Files::Kept) => None,
        (_, Files::Partly) => Some(
            "OpenCode took snapshots of only some of the steps since that message: a rewind would restore some of the files and not others",
        ),
        (RevertScope::Files, _) => Some(
            "OpenCode cannot restore files without rewinding the conversation",
        ),
        (RevertScope::Conversation, Files::Restored) => Some(
            "in a git repository OpenCode restores the session's file changes with the conversation; rewind with scope `both`",
        ),
        (RevertScope::Both, Files::Kept) => Some(
            "OpenCode kept no snapshot of the files for these turns (outside a git repository, or snapshots off); only the conversation can be rewound (scope `conversation`)",
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
    let messages = http
        .get(&format!("{path}/message"))
        .await
        .map_err(failure)?;
    let files = files_of(&session, &messages, &message).ok_or_else(|| {
        ProviderError::new(format!("message `{message}` is not in this session"))
            .with_code(ErrorCode::InvalidRevertToken)
    })?;
    if let Some(why) = refusal(scope, files) {
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

    fn step(snapshot: Option<&str>) -> Value {
        match snapshot {
            Some(s) => json!({"type": "step-start", "snapshot": s}),
            None => json!({"type": "step-start"}),
        }
    }

    fn turn(user: &str, steps: &[Option<&str>]) -> [Value; 2] {
        let parts: Vec<Value> = steps.iter().map(|s| step(*s)).collect();
        [
            json!({"info": {"id": user, "role": "user"}, "parts": [{"type": "text"}]}),
            json!({"info": {"id": format!("{user}-a"), "role": "assistant"}, "parts": parts}),
        ]
    }

    #[test]
    fn the_files_follow_the_project_and_the_snapshots_since_the_message() {
        let git = json!({"projectID": "4b825dc6"});
        let plain = json!({"projectID": "global"});
        let messages = |turns: &[[Value; 2]]| Value::from(turns.concat());
        let snapped = messages(&[turn("m1", &[None]), turn("m2", &[Some("a"), Some("b")])]);
        assert_eq!(files_of(&git, &snapped, "m2"), Some(Files::Restored));
        assert_eq!(files_of(&git, &snapped, "m1"), Some(Files::Partly));
        assert_eq!(files_of(&plain, &snapped, "m2"), Some(Files::Kept));
        assert_eq!(files_of(&git, &snapped, "m3"), None, "not in the session");
        let bare = messages(&[turn("m1", &[None]), turn("m2", &[None, None])]);
        assert_eq!(files_of(&git, &bare, "m1"), Some(Files::Kept));
        let unanswered = messages(&[turn("m1", &[])]);
        assert_eq!(files_of(&git, &unanswered, "m1"), Some(Files::Restored));
    }

    #[test]
    fn the_scope_follows_what_happens_to_the_files() {
        assert_eq!(refusal(RevertScope::Both, Files::Restored), None);
        assert_eq!(refusal(RevertScope::Conversation, Files::Kept), None);
        for (scope, files) in [
            (RevertScope::Conversation, Files::Restored),
            (RevertScope::Both, Files::Kept),
            (RevertScope::Both, Files::Partly),
            (RevertScope::Conversation, Files::Partly),
            (RevertScope::Files, Files::Restored),
            (RevertScope::Files, Files::Kept),
        ] {
            assert!(refusal(scope, files).is_some(), "{scope:?} {files:?}");
        }
    }
}
