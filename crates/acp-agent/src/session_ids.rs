//! ACP session ids for sessions the bridge can reopen.
//!
//! A session created here (`session/new`) keeps the id it was given; when its provider
//! publishes a persistence handle, the handle is written to `<data dir>/acp-sessions/<id>.json`
//! so that `session/load` / `session/resume` of that id work after the bridge restarted (as Zed
//! does with the sessions it remembers). The file also keeps the mode the session was last in:
//! ACP's `session/load` and `session/resume` carry no mode, so the reopen asks for that one
//! (as Paseo's own record does, whose resume sends the `modeId` it stored). A session found by
//! `session/list` gets an id that carries its handle (`p1.` + base64url of the handle), so it
//! needs no file (and comes back in its provider's default mode).

use agent_bridge_protocol::ProviderPersistence;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What the bridge keeps of a session it can reopen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Remembered {
    pub persistence: ProviderPersistence,
    /// The mode the session was last in (`None`: unknown, the provider's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
}

impl Remembered {
    /// A file's record; a file written before modes were kept holds the bare handle.
    fn parse(bytes: &[u8]) -> Option<Remembered> {
        serde_json::from_slice(bytes).ok().or_else(|| {
            serde_json::from_slice(bytes)
                .ok()
                .map(|persistence| Remembered {
                    persistence,
                    mode: None,
                })
        })
    }
}

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

/// Remembers the handle of a session created here, with `mode` when known (else the mode
/// already remembered).
pub async fn remember(
    data_dir: &Path,
    id: &str,
    persistence: &ProviderPersistence,
    mode: Option<String>,
) {
    let Some(file) = file_of(data_dir, id) else {
        return;
    };
    let mode = match mode {
        Some(m) => Some(m),
        None => read(&file).await.and_then(|r| r.mode),
    };
    let record = Remembered {
        persistence: persistence.clone(),
        mode,
    };
    write(&file, &record).await;
}

/// Remembers the mode a session created here is in now, once its handle is known.
pub async fn remember_mode(data_dir: &Path, id: &str, mode: Option<String>) {
    let Some(file) = file_of(data_dir, id) else {
        return;
    };
    let Some(mut record) = read(&file).await else {
        return;
    };
    if record.mode != mode {
        record.mode = mode;
        write(&file, &record).await;
    }
}

/// The handle of `id` (and its mode): carried by a listed id, else remembered for a session
/// created here.
pub async fn lookup(data_dir: &Path, id: &str) -> Option<Remembered> {
    if let Some(persistence) = decode_listed(id) {
        return Some(Remembered {
            persistence,
            mode: None,
        });
    }
    read(&file_of(data_dir, id)?).await
}

async fn read(file: &Path) -> Option<Remembered> {
    Remembered::parse(&tokio::fs::read(file).await.ok()?)
}

async fn write(file: &Path, record: &Remembered) {
    let Ok(json) = serde_json::to_vec(record) else {
        return;
    };
    if let Some(dir) = file.parent() {
        let _ = tokio::fs::create_dir_all(dir).await;
    }
    if let Err(e) = tokio::fs::write(file, json).await {
        tracing::warn!("could not remember session {}: {e}", file.display());
    }
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
        remember(dir.path(), "0d6f-11", &p, None).await;
        let found = lookup(dir.path(), "0d6f-11").await.unwrap();
        assert_eq!((found.persistence, found.mode), (p.clone(), None));
        assert_eq!(lookup(dir.path(), "../etc/passwd").await, None);
    }

    #[tokio::test]
    async fn the_mode_is_kept_with_the_handle() {
        let p = ProviderPersistence {
            version: 1,
            data: json!({"threadId": "t1"}),
        };
        let dir = tempfile::tempdir().unwrap();
        // No handle yet: nothing to attach the mode to.
        remember_mode(dir.path(), "s-1", Some("ask".into())).await;
        assert_eq!(lookup(dir.path(), "s-1").await, None);
        remember(dir.path(), "s-1", &p, Some("ask".into())).await;
        remember_mode(dir.path(), "s-1", Some("plan".into())).await;
        // A newer handle without a known mode keeps the remembered one.
        let newer = ProviderPersistence {
            version: 1,
            data: json!({"threadId": "t2"}),
        };
        remember(dir.path(), "s-1", &newer, None).await;
        let want = Remembered {
            persistence: newer,
            mode: Some("plan".into()),
        };
        assert_eq!(lookup(dir.path(), "s-1").await, Some(want));
        // A listed id carries no mode.
        let listed = lookup(dir.path(), &listed_id(&p)).await.unwrap();
        assert_eq!(listed.mode, None);
    }

    #[tokio::test]
    async fn a_file_of_a_bare_handle_still_reads() {
        let dir = tempfile::tempdir().unwrap();
        let file = file_of(dir.path(), "old-1").unwrap();
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, r#"{"version":1,"data":{"threadId":"t"}}"#).unwrap();
        let found = lookup(dir.path(), "old-1").await.unwrap();
        assert_eq!(found.persistence.data, json!({"threadId": "t"}));
        assert_eq!(found.mode, None);
    }
}
