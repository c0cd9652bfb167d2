//! `session.archive` / `session.unarchive` through the server an agent runs beside ACP
//! (OpenCode's, [`crate::opencode::embedded_server`]); ACP has no archive. An archived OpenCode session
//! has `time.archived` (ms since the epoch; `0` once unarchived): `PATCH /session/{id}` sets
//! it. ACP's `session/list` still lists an archived session, so the session list leaves out
//! those `GET /session` reports archived ([`crate::session_list`]).

use agent_bridge_core::loopback_http::{HttpError, LoopbackHttp};
use agent_bridge_protocol::{ErrorCode, ProviderError};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::time::{SystemTime, UNIX_EPOCH};

fn failure(e: HttpError) -> ProviderError {
    ProviderError::new(format!("OpenCode's server: {e}")).with_code(ErrorCode::AgentError)
}

/// Whether a session of `GET /session` is archived.
fn is_archived(session: &Value) -> bool {
    session["time"]["archived"]
        .as_f64()
        .is_some_and(|t| t > 0.0)
}

/// The ids of the archived sessions of the server's folder.
pub async fn archived(http: &LoopbackHttp) -> Result<HashSet<String>, ProviderError> {
    let sessions = http.get("/session").await.map_err(failure)?;
    Ok(sessions
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| is_archived(s))
        .filter_map(|s| s["id"].as_str().map(str::to_string))
        .collect())
}

/// Archives (`archived`) or unarchives the session `session_id`.
pub async fn set_archived(
    http: &LoopbackHttp,
    session_id: &str,
    archived: bool,
) -> Result<(), ProviderError> {
    let path = crate::opencode::revert::session_path(session_id).map_err(failure)?;
    // OpenCode answers an unknown session with a bare 500: ask first, to say what is wrong.
    if let Err(e) = http.get(&path).await {
        return Err(match e.status() {
            Some(400 | 404 | 500) => {
                ProviderError::new(format!("OpenCode has no session `{session_id}`"))
                    .with_code(ErrorCode::SessionNotFound)
            }
            _ => failure(e),
        });
    }
    let at = if archived {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(1)
    } else {
        0
    };
    http.patch(&path, &json!({ "time": { "archived": at } }))
        .await
        .map(|_| ())
        .map_err(failure)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archived_means_a_time_after_the_epoch() {
        assert!(is_archived(
            &json!({"time": {"archived": 1796319765828u64}})
        ));
        for not in [
            json!({"time": {"archived": 0}}),
            json!({"time": {"archived": null}}),
            json!({"time": {}}),
            json!({}),
        ] {
            assert!(!is_archived(&not), "{not}");
        }
    }
}
