//! ACP session ids for sessions the bridge can reopen.
//!
//! A session created here (`session/new`) keeps the id it was given; when its provider
//! publishes a persistence handle, the handle is written to `<data dir>/acp-sessions/<id>.json`
//! so that `session/load` / `session/resume` of that id work after the bridge restarted (as Zed
//! does with the sessions it remembers). A session found by `session/list` gets an id that
//! carries its handle (`p1.` + base64url of the handle), so it needs no file.

use agent_bridge_protocol::ProviderPersistence;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use std::path::{Path, PathBuf};

const LISTED_PREFIX: &str = "p1.";

/// The id of a listed session.
pub fn listed_id(persistence: &ProviderPersistence) -> String {
    let json = serde_json::to_vec(persistence).unwrap_or_default();
    format!("{LISTED_PREFIX}{}", URL_SAFE_NO_PAD.encode(json))
}

/// The handle a listed session's id carries.
pub fn decode_listed(id: &str) -> Option<ProviderPersistence> {
    let bytes = URL_SAFE_NO_PAD
        .decode(id.strip_prefix(LISTED_PREFIX)?)
        .ok()?;
    serde_json::from_slice(&bytes).ok()
}

fn file_of(data_dir: &Path, id: &str) -> Option<PathBuf> {
    // Only ids this bridge gives out (UUIDs) name a file.
    let safe = !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    safe.then(|| data_dir.join("acp-sessions").join(format!("{id}.json")))
}

/// Remembers the handle of a session created here.
pub async fn remember(data_dir: &Path, id: &str, persistence: &ProviderPersistence) {
    let Some(file) = file_of(data_dir, id) else {
        return;
    };
    let Ok(json) = serde_json::to_vec(persistence) else {
        return;
    };
    if let Some(dir) = file.parent() {
        let _ = tokio::fs::create_dir_all(dir).await;
    }
    if let Err(e) = tokio::fs::write(&file, json).await {
        tracing::warn!("could not remember session {id}: {e}");
    }
}

/// The handle of `id`: carried by a listed id, else remembered for a session created here.
pub async fn lookup(data_dir: &Path, id: &str) -> Option<ProviderPersistence> {
    if let Some(p) = decode_listed(id) {
        return Some(p);
    }
    let bytes = tokio::fs::read(file_of(data_dir, id)?).await.ok()?;
    serde_json::from_slice(&bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn ids_find_their_handle() {
        let p = ProviderPersistence {
            version: 1,
            data: json!({"sessionId": "abc", "cwd": "/w"}),
        };
        assert_eq!(decode_listed(&listed_id(&p)), Some(p.clone()));
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(lookup(dir.path(), "0d6f-11").await, None);
        remember(dir.path(), "0d6f-11", &p).await;
        assert_eq!(lookup(dir.path(), "0d6f-11").await, Some(p));
        assert_eq!(lookup(dir.path(), "../etc/passwd").await, None);
    }
}
