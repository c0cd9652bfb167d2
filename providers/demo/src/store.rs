//! The demo's persisted sessions: one JSON file per session under `<dataDir>/demo/sessions`.

use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{
    prompt_preview, ProviderError, ProviderPersistence, ProviderSessionSummary, TimelineItem,
};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredSession {
    pub session_id: String,
    pub cwd: String,
    #[serde(default)]
    pub title: Option<String>,
    pub updated_at: String,
    #[serde(default)]
    pub prompts: Vec<String>,
    #[serde(default)]
    pub items: Vec<TimelineItem>,
}

impl StoredSession {
    pub fn persistence(&self) -> ProviderPersistence {
        persistence(&self.session_id, &self.cwd)
    }

    pub fn summary(&self) -> ProviderSessionSummary {
        ProviderSessionSummary {
            persistence: self.persistence(),
            cwd: self.cwd.clone(),
            title: self.title.clone(),
            description: None,
            updated_at: Some(self.updated_at.clone()),
            first_prompt_preview: self.prompts.first().map(|p| prompt_preview(p)),
            last_prompt_preview: self.prompts.last().map(|p| prompt_preview(p)),
        }
    }
}

pub fn persistence(session_id: &str, cwd: &str) -> ProviderPersistence {
    ProviderPersistence {
        version: 1,
        data: json!({ "sessionId": session_id, "cwd": cwd }),
    }
}

/// Reads the native session id out of a persistence value.
pub fn session_id_of(p: &ProviderPersistence) -> Result<String, ProviderError> {
    let id = p
        .data
        .get("sessionId")
        .and_then(|v| v.as_str())
        .unwrap_or_default();
    let valid = !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    if p.version != 1 || !valid {
        return Err(
            ProviderError::new("this persistence value does not belong to the demo agent")
                .with_code(ErrorCode::InvalidPersistence),
        );
    }
    Ok(id.to_string())
}

pub fn sessions_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("demo").join("sessions")
}

pub async fn load(data_dir: &Path, session_id: &str) -> Result<StoredSession, ProviderError> {
    let path = sessions_dir(data_dir).join(format!("{session_id}.json"));
    let text = tokio::fs::read_to_string(&path).await.map_err(|e| {
        ProviderError::new(format!("demo session {session_id} not found"))
            .with_diagnostic(format!("{}: {e}", path.display()))
    })?;
    serde_json::from_str(&text)
        .map_err(|e| ProviderError::new(format!("demo session {session_id} is corrupt: {e}")))
}

/// Writes atomically (temp file + rename).
pub async fn save(data_dir: &Path, session: &StoredSession) -> Result<(), std::io::Error> {
    let dir = sessions_dir(data_dir);
    tokio::fs::create_dir_all(&dir).await?;
    let path = dir.join(format!("{}.json", session.session_id));
    let tmp = dir.join(format!(".{}.tmp", session.session_id));
    let bytes = serde_json::to_vec(session).map_err(std::io::Error::other)?;
    tokio::fs::write(&tmp, bytes).await?;
    tokio::fs::rename(&tmp, &path).await
}

pub async fn list(
    data_dir: &Path,
    cwd: Option<&str>,
    limit: Option<u32>,
) -> Vec<ProviderSessionSummary> {
    let mut found: Vec<StoredSession> = Vec::new();
    let Ok(mut dir) = tokio::fs::read_dir(sessions_dir(data_dir)).await else {
        return vec![];
    };
    while let Ok(Some(entry)) = dir.next_entry().await {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let Ok(text) = tokio::fs::read_to_string(&path).await else {
            continue;
        };
        match serde_json::from_str::<StoredSession>(&text) {
            Ok(s) if cwd.is_none_or(|c| c == s.cwd) => found.push(s),
            Ok(_) => {}
            Err(e) => tracing::warn!("skipping unreadable demo session {}: {e}", path.display()),
        }
    }
    found.sort_by(|a, b| b.updated_at.cmp(&a.updated_at));
    found.truncate(limit.map(|l| l as usize).unwrap_or(usize::MAX));
    found.iter().map(StoredSession::summary).collect()
}

/// Seconds since the epoch as a string-sortable RFC 3339-like UTC stamp.
pub fn now_stamp() -> String {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = d.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, dd) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{dd:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60,
        d.subsec_millis()
    )
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_787), (2026, 11, 30));
    }

    #[test]
    fn foreign_persistence_is_refused() {
        let p = ProviderPersistence {
            version: 1,
            data: json!({"sessionId": "../etc"}),
        };
        assert!(session_id_of(&p).is_err());
        assert_eq!(session_id_of(&persistence("abc-1", "/")).unwrap(), "abc-1");
    }
}
