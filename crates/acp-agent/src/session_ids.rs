//! ACP session ids for sessions the bridge can reopen.
//!
//! A session created here (`session/new`) keeps the id it was given; when its provider
//! publishes a persistence handle, the handle is written to `<data dir>/acp-sessions/<id>.json`
//! so that `session/load` / `session/resume` of that id work after the bridge restarted (as Zed
//! does with the sessions it remembers). The file also keeps the session's last [`Choice`]
//! (mode, model, thinking): ACP's `session/load` and `session/resume` carry none, so the reopen
//! asks for those (as Paseo's own record does, whose resume sends the `modeId` it stored).
//!
//! `session/list` gives a session created here the id it was created with (found by the native
//! id its handle names), so a client matches the listed session with its own record; any
//! other listed session gets an id that carries its handle (`p1.` + base64url of the handle),
//! needs no file, and comes back in its provider's defaults.

use agent_bridge_protocol::{ProviderConfigState, ProviderPersistence};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What the user chose for a session, asked for again when it reopens (`None`: the provider's
/// default).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choice {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
}

impl Choice {
    /// The choice a session's config state holds.
    pub fn of(config: &ProviderConfigState) -> Choice {
        Choice {
            mode: config.mode.clone(),
            model: config.model.clone(),
            thinking: config.thinking_option.clone(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self == &Choice::default()
    }
}

/// What the bridge keeps of a session it can reopen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Remembered {
    pub persistence: ProviderPersistence,
    /// The session's last choice (a file written before models were kept holds only `mode`).
    #[serde(flatten)]
    pub choice: Choice,
}

impl Remembered {
    /// A file's record; a file written before modes were kept holds the bare handle.
    fn parse(bytes: &[u8]) -> Option<Remembered> {
        serde_json::from_slice(bytes).ok().or_else(|| {
            serde_json::from_slice(bytes)
                .ok()
                .map(|persistence| Remembered {
                    persistence,
                    choice: Choice::default(),
                })
        })
    }
}

const LISTED_PREFIX: &str = "p1.";
const DIR: &str = "acp-sessions";

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

/// The native session a handle names: every provider's handle carries it as `sessionId`
/// (Codex's as `threadId`); the rest of a handle (a rewind point, the cwd) may differ between
/// the handle published at open and the one a list returns.
pub fn native_id(persistence: &ProviderPersistence) -> Option<&str> {
    let data = persistence.data.as_object()?;
    ["sessionId", "threadId"]
        .iter()
        .find_map(|k| data.get(*k)?.as_str())
        .filter(|s| !s.is_empty())
}

fn file_of(data_dir: &Path, id: &str) -> Option<PathBuf> {
    // Only ids this bridge gives out (UUIDs) name a file.
    let safe = !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    safe.then(|| data_dir.join(DIR).join(format!("{id}.json")))
}

/// Remembers the handle of a session created here, with its `choice` when known (else the
/// choice already remembered).
pub async fn remember(
    data_dir: &Path,
    id: &str,
    persistence: &ProviderPersistence,
    choice: Option<Choice>,
) {
    let Some(file) = file_of(data_dir, id) else {
        return;
    };
    let choice = match choice {
        Some(c) => c,
        None => read(&file).await.map(|r| r.choice).unwrap_or_default(),
    };
    let record = Remembered {
        persistence: persistence.clone(),
        choice,
    };
    write(&file, &record).await;
}

/// Remembers the choice a session created here has now, once its handle is known.
pub async fn remember_choice(data_dir: &Path, id: &str, choice: Choice) {
    let Some(file) = file_of(data_dir, id) else {
        return;
    };
    let Some(mut record) = read(&file).await else {
        return;
    };
    if record.choice != choice {
        record.choice = choice;
        write(&file, &record).await;
    }
}

/// The handle of `id` (and its choice): carried by a listed id, else remembered for a session
/// created here.
pub async fn lookup(data_dir: &Path, id: &str) -> Option<Remembered> {
    if let Some(persistence) = decode_listed(id) {
        return Some(Remembered {
            persistence,
            choice: Choice::default(),
        });
    }
    read(&file_of(data_dir, id)?).await
}

/// The sessions created here, by the native id their handle names: native id → ACP id.
pub async fn created_here(data_dir: &Path) -> HashMap<String, String> {
    let mut found = HashMap::new();
    let Ok(mut entries) = tokio::fs::read_dir(data_dir.join(DIR)).await else {
        return found;
    };
    while let Ok(Some(entry)) = entries.next_entry().await {
        let name = entry.file_name();
        let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
            continue;
        };
        if let Some(native) = read(&entry.path())
            .await
            .as_ref()
            .and_then(|r| native_id(&r.persistence))
        {
            found.insert(native.to_string(), id.to_string());
        }
    }
    found
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
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn mode(m: &str) -> Choice {
        Choice {
            mode: Some(m.into()),
            ..Default::default()
        }
    }

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
        assert_eq!(
            (found.persistence, found.choice),
            (p.clone(), Choice::default())
        );
        assert_eq!(lookup(dir.path(), "../etc/passwd").await, None);
    }

    #[tokio::test]
    async fn the_choice_is_kept_with_the_handle() {
        let p = ProviderPersistence {
            version: 1,
            data: json!({"threadId": "t1"}),
        };
        let dir = tempfile::tempdir().unwrap();
        // No handle yet: nothing to attach the choice to.
        remember_choice(dir.path(), "s-1", mode("ask")).await;
        assert_eq!(lookup(dir.path(), "s-1").await, None);
        remember(dir.path(), "s-1", &p, Some(mode("ask"))).await;
        let planned = Choice {
            mode: Some("plan".into()),
            model: Some("m-2".into()),
            thinking: Some("high".into()),
        };
        remember_choice(dir.path(), "s-1", planned.clone()).await;
        // A newer handle without a known choice keeps the remembered one.
        let newer = ProviderPersistence {
            version: 1,
            data: json!({"threadId": "t2"}),
        };
        remember(dir.path(), "s-1", &newer, None).await;
        let want = Remembered {
            persistence: newer,
            choice: planned,
        };
        assert_eq!(lookup(dir.path(), "s-1").await, Some(want));
        // A listed id carries no choice.
        let listed = lookup(dir.path(), &listed_id(&p)).await.unwrap();
        assert_eq!(listed.choice, Choice::default());
    }

    #[tokio::test]
    async fn files_of_older_bridges_still_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = file_of(dir.path(), "old-1").unwrap();
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, r#"{"version":1,"data":{"threadId":"t"}}"#).unwrap();
        let found = lookup(dir.path(), "old-1").await.unwrap();
        assert_eq!(found.persistence.data, json!({"threadId": "t"}));
        assert_eq!(found.choice, Choice::default());
        // Written when only the mode was kept.
        let file = file_of(dir.path(), "old-2").unwrap();
        std::fs::write(
            &file,
            r#"{"persistence":{"version":1,"data":{"sessionId":"s"}},"mode":"ask"}"#,
        )
        .unwrap();
        assert_eq!(
            lookup(dir.path(), "old-2").await.unwrap().choice,
            mode("ask")
        );
    }

    #[tokio::test]
    async fn sessions_created_here_are_found_by_their_native_id() {
        let dir = tempfile::tempdir().unwrap();
        assert!(created_here(dir.path()).await.is_empty());
        let claude = ProviderPersistence {
            version: 1,
            data: json!({"sessionId": "n-1", "cwd": "/w", "resumeAt": "m-9"}),
        };
        let codex = ProviderPersistence {
            version: 1,
            data: json!({"threadId": "t-1", "cwd": "/w"}),
        };
        remember(dir.path(), "a-1", &claude, None).await;
        remember(dir.path(), "a-2", &codex, None).await;
        // Not a record: ignored.
        std::fs::write(dir.path().join(DIR).join("junk.json"), "{").unwrap();
        let found = created_here(dir.path()).await;
        assert_eq!(
            found,
            HashMap::from([
                ("n-1".to_string(), "a-1".to_string()),
                ("t-1".to_string(), "a-2".to_string())
            ])
        );
        let blank = ProviderPersistence {
            version: 1,
            data: json!({"sessionId": ""}),
        };
        assert_eq!(native_id(&blank), None);
    }
}
