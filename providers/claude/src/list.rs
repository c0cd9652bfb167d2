//! `sessions`: the native transcripts of a cwd (or of every project), newest first, including
//! sessions started outside Paseo.

use crate::normalize::is_noise;
use crate::state::persistence;
use crate::transcript;
use crate::transcript_peek;
use agent_bridge_protocol::{prompt_preview, ProviderSessionSummary};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Sessions listed when the query sets no limit.
pub const DEFAULT_LIMIT: usize = 50;

/// What one transcript says about its session.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TranscriptInfo {
    pub session_id: String,
    pub cwd: Option<String>,
    pub title: Option<String>,
    pub first_prompt: Option<String>,
    pub last_prompt: Option<String>,
}

/// The prompt text of a `user` transcript entry, when it is a real prompt.
fn prompt_text(entry: &Value) -> Option<String> {
    if entry.get("type").and_then(Value::as_str) != Some("user") {
        return None;
    }
    for key in ["isMeta", "isSidechain", "isCompactSummary"] {
        if entry.get(key).and_then(Value::as_bool) == Some(true) {
            return None;
        }
    }
    let content = entry.get("message")?.get("content")?;
    let text = match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => {
            if blocks
                .iter()
                .any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
            {
                return None;
            }
            blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n")
        }
        _ => return None,
    };
    (!text.trim().is_empty() && !is_noise(&text)).then_some(text)
}

/// Reads a transcript's title and prompts from its head and tail only (see
/// [`transcript_peek`]); `None` for unreadable and sidechain files and files without any
/// prompt there.
pub fn inspect(path: &Path) -> Option<TranscriptInfo> {
    let peek = transcript_peek::peek(path, |e| prompt_text(e).is_some()).ok()?;
    let mut info = TranscriptInfo {
        session_id: path.file_stem()?.to_string_lossy().to_string(),
        ..TranscriptInfo::default()
    };
    let mut custom_title = None;
    let mut ai_title = None;
    let mut summary = None;
    let mut last_prompt_entry = None;
    if peek
        .head
        .first()
        .and_then(|e| e.get("isSidechain"))
        .and_then(Value::as_bool)
        == Some(true)
    {
        return None;
    }
    for entry in peek.head.iter().chain(&peek.tail) {
        if info.cwd.is_none() {
            info.cwd = entry.get("cwd").and_then(Value::as_str).map(str::to_string);
        }
        let s = |k: &str| entry.get(k).and_then(Value::as_str).map(str::to_string);
        if let Some(t) = s("customTitle") {
            custom_title = Some(t);
        }
        if let Some(t) = s("aiTitle") {
            ai_title = Some(t);
        }
        if entry.get("type").and_then(Value::as_str) == Some("summary") {
            summary = s("summary").or(summary);
        }
        if let Some(p) = s("lastPrompt") {
            last_prompt_entry = Some(p);
        }
        if let Some(p) = prompt_text(entry) {
            if info.first_prompt.is_none() {
                info.first_prompt = Some(p.clone());
            }
            info.last_prompt = Some(p);
        }
    }
    if last_prompt_entry.is_some() {
        info.last_prompt = last_prompt_entry;
    }
    info.first_prompt.as_ref()?;
    info.title = custom_title
        .or(ai_title)
        .or(summary)
        .or_else(|| info.first_prompt.clone());
    Some(info)
}

/// `2026-11-30T14:04:02Z` of a system time.
pub fn rfc3339(t: SystemTime) -> String {
    let secs = t
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Lists sessions for `cwd` (every project when `None`), newest first: at most `limit`
/// ([`DEFAULT_LIMIT`] when `None`), each read at its head and tail only.
pub fn list_sessions(
    env: &BTreeMap<String, String>,
    cwd: Option<&str>,
    query: Option<&str>,
    limit: Option<usize>,
) -> Vec<ProviderSessionSummary> {
    let Some(projects) = transcript::projects_dir(env) else {
        return Vec::new();
    };
    let dirs: Vec<PathBuf> = match cwd {
        Some(cwd) => transcript::find_project_dir(&projects, cwd)
            .into_iter()
            .collect(),
        None => std::fs::read_dir(&projects)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect(),
    };
    let mut files: Vec<(SystemTime, PathBuf)> = dirs
        .iter()
        .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .collect();
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    let limit = limit.unwrap_or(DEFAULT_LIMIT);
    let needle = query
        .map(str::to_lowercase)
        .filter(|q| !q.trim().is_empty());
    let mut out = Vec::new();
    for (mtime, path) in files {
        if out.len() >= limit {
            break;
        }
        let Some(info) = inspect(&path) else { continue };
        if let Some(q) = &needle {
            let hay = [&info.title, &info.first_prompt, &info.last_prompt]
                .iter()
                .filter_map(|s| s.as_deref())
                .collect::<Vec<_>>()
                .join("\n")
                .to_lowercase();
            if !hay.contains(q.as_str()) {
                continue;
            }
        }
        let session_cwd = info
            .cwd
            .clone()
            .or_else(|| cwd.map(str::to_string))
            .unwrap_or_default();
        out.push(ProviderSessionSummary {
            persistence: persistence(&info.session_id, &session_cwd),
            cwd: session_cwd,
            title: info.title.as_deref().map(prompt_preview),
            description: None,
            updated_at: Some(rfc3339(mtime)),
            first_prompt_preview: info.first_prompt.as_deref().map(prompt_preview),
            last_prompt_preview: info.last_prompt.as_deref().map(prompt_preview),
        });
    }
    out
}

#[cfg(test)]
#[path = "list_tests.rs"]
mod bounded_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::time::Duration;

    #[test]
    fn dates_format_as_rfc3339() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(
            rfc3339(UNIX_EPOCH + Duration::from_secs(1_796_050_094)),
            "2026-11-30T14:48:14Z"
        );
    }

    #[test]
    fn lists_transcripts_of_the_cwd_with_previews() {
        let home = tempfile::tempdir().expect("tempdir");
        let cwd = "/work/some project";
        let dir = home
            .path()
            .join(".claude/projects")
            .join(transcript::slug(cwd));
        std::fs::create_dir_all(&dir).expect("mkdir");
        let long = "x".repeat(300);
        let lines = [
            serde_json::json!({"type":"user","uuid":"u1","parentUuid":null,"cwd":cwd,"message":{"role":"user","content":[{"type":"text","text":"first question"}]}}),
            serde_json::json!({"type":"user","uuid":"u2","parentUuid":"u1","isMeta":true,"message":{"role":"user","content":"<command-name>/x</command-name>"}}),
            serde_json::json!({"type":"user","uuid":"u3","parentUuid":"u2","message":{"role":"user","content":long}}),
            serde_json::json!({"type":"ai-title","aiTitle":"A helpful title"}),
        ];
        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        std::fs::write(
            dir.join("11111111-2222-4333-8444-555555555555.jsonl"),
            text.join("\n"),
        )
        .expect("write");
        std::fs::write(dir.join("empty.jsonl"), "").expect("write");
        let env = BTreeMap::from([("HOME".to_string(), home.path().display().to_string())]);
        let list = list_sessions(&env, Some(cwd), None, None);
        assert_eq!(list.len(), 1);
        let s = &list[0];
        assert_eq!(s.title.as_deref(), Some("A helpful title"));
        assert_eq!(s.first_prompt_preview.as_deref(), Some("first question"));
        assert_eq!(
            s.last_prompt_preview.as_ref().map(|p| p.chars().count()),
            Some(160)
        );
        assert_eq!(
            s.persistence.data["sessionId"],
            "11111111-2222-4333-8444-555555555555"
        );
        assert!(list_sessions(&env, Some(cwd), Some("nothing like it"), None).is_empty());
        assert!(list_sessions(&env, Some("/elsewhere"), None, None).is_empty());
    }
}
