//! The panel's sessions, remembered across restarts of the plugin in
//! `$AGENTTY_PLUGIN_DATA/sessions.json` (0600): which agent, which folder, the title, and the
//! agent's persistence handle that resumes it.

use crate::limits::STORED_SESSIONS;
use agent_bridge_protocol::ProviderPersistence;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

const FILE: &str = "sessions.json";

/// One remembered session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredSession {
    /// The panel's id of the session (also the bridge session id it ran under).
    pub id: String,
    pub provider: String,
    pub cwd: String,
    pub title: String,
    /// Unix seconds of the last change.
    pub updated_at: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persistence: Option<ProviderPersistence>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    #[serde(default)]
    sessions: Vec<StoredSession>,
    /// The agent picked last, so the next start offers it again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    agent: Option<String>,
}

/// The index, kept in memory and written through.
#[derive(Debug, Default)]
pub struct Store {
    path: Option<PathBuf>,
    file: File,
}

pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

impl Store {
    /// Reads the index in `dir` (none: nothing is remembered). A file that cannot be read is
    /// set aside as `sessions.damaged.json`, not lost.
    pub fn open(dir: Option<&Path>) -> Store {
        let Some(dir) = dir else {
            return Store::default();
        };
        let path = dir.join(FILE);
        let file = match std::fs::read(&path) {
            Err(_) => File::default(),
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                tracing::warn!(
                    "{} could not be read ({e}); starting a new one",
                    path.display()
                );
                let _ = std::fs::rename(&path, dir.join("sessions.damaged.json"));
                File::default()
            }),
        };
        Store {
            path: Some(path),
            file,
        }
    }

    /// Sessions in `cwd`, newest first.
    pub fn in_folder(&self, cwd: &str) -> Vec<&StoredSession> {
        let mut list: Vec<&StoredSession> =
            self.file.sessions.iter().filter(|s| s.cwd == cwd).collect();
        list.sort_by_key(|s| std::cmp::Reverse(s.updated_at));
        list
    }

    pub fn get(&self, id: &str) -> Option<&StoredSession> {
        self.file.sessions.iter().find(|s| s.id == id)
    }

    pub fn agent(&self) -> Option<&str> {
        self.file.agent.as_deref()
    }

    pub fn set_agent(&mut self, agent: &str) {
        if self.file.agent.as_deref() != Some(agent) {
            self.file.agent = Some(agent.to_string());
            self.save();
        }
    }

    /// Adds or replaces `session`, keeping the newest [`STORED_SESSIONS`].
    pub fn put(&mut self, session: StoredSession) {
        match self.file.sessions.iter_mut().find(|s| s.id == session.id) {
            Some(slot) => *slot = session,
            None => self.file.sessions.push(session),
        }
        if self.file.sessions.len() > STORED_SESSIONS {
            self.file
                .sessions
                .sort_by_key(|s| std::cmp::Reverse(s.updated_at));
            self.file.sessions.truncate(STORED_SESSIONS);
        }
        self.save();
    }

    fn save(&self) {
        let Some(path) = &self.path else { return };
        if let Err(e) = write(path, &self.file) {
            tracing::warn!("cannot write {}: {e}", path.display());
        }
    }
}

fn write(path: &Path, file: &File) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("json.{}.tmp", std::process::id()));
    let bytes = serde_json::to_vec_pretty(file).map_err(std::io::Error::other)?;
    std::fs::write(&tmp, bytes)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o600))?;
    }
    std::fs::rename(tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(id: &str, cwd: &str, at: i64) -> StoredSession {
        StoredSession {
            id: id.into(),
            provider: "demo".into(),
            cwd: cwd.into(),
            title: format!("title {id}"),
            updated_at: at,
            persistence: None,
        }
    }

    #[test]
    fn sessions_survive_a_restart_and_are_listed_per_folder() {
        let dir = tempfile::tempdir().expect("dir");
        let mut store = Store::open(Some(dir.path()));
        store.put(session("a", "/w1", 10));
        store.put(session("b", "/w2", 20));
        store.put(session("c", "/w1", 30));
        store.set_agent("demo");
        let again = Store::open(Some(dir.path()));
        let ids: Vec<&str> = again
            .in_folder("/w1")
            .iter()
            .map(|s| s.id.as_str())
            .collect();
        assert_eq!(ids, ["c", "a"]);
        assert_eq!(again.agent(), Some("demo"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(FILE))
                .expect("file")
                .permissions();
            assert_eq!(mode.mode() & 0o777, 0o600);
        }
    }

    #[test]
    fn a_damaged_index_is_set_aside() {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::write(dir.path().join(FILE), "{not json").expect("write");
        let store = Store::open(Some(dir.path()));
        assert!(store.in_folder("/w").is_empty());
        assert!(dir.path().join("sessions.damaged.json").is_file());
    }
}
