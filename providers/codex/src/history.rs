//! Persistence handles, history replay (a thread's turns as timeline snapshots) and the session
//! list (`thread/list` rows as Paseo session summaries).

use crate::normalize::items::{self, Source};
use crate::wire::thread::{Thread, Turn, TurnStatus};
use agent_bridge_protocol::ErrorCode;
use agent_bridge_protocol::{
    prompt_preview, ItemBody, ProviderError, ProviderPersistence, ProviderSessionSummary,
    TimelineItem, ToolStatus,
};
use serde_json::{json, Value};

pub const PERSISTENCE_VERSION: u32 = 1;

pub fn persistence(thread_id: &str, cwd: &str) -> ProviderPersistence {
    ProviderPersistence {
        version: PERSISTENCE_VERSION,
        data: json!({ "threadId": thread_id, "cwd": cwd }),
    }
}

/// The thread id a persistence handle names.
pub fn thread_of(p: &ProviderPersistence) -> Result<String, ProviderError> {
    let id = match &p.data {
        Value::Object(o) => o.get("threadId").and_then(Value::as_str),
        Value::String(s) => Some(s.as_str()),
        _ => None,
    };
    id.filter(|s| !s.is_empty())
        .map(str::to_string)
        .ok_or_else(|| {
            ProviderError::new("the persistence handle names no Codex thread")
                .with_code(ErrorCode::InvalidPersistence)
        })
}

/// A thread's turns as timeline items, in order. Tool calls a turn left running (it was
/// interrupted or the CLI died) are shown canceled; a failed turn adds an error row.
pub fn replay(turns: &[Turn], child_session: &dyn Fn(&str) -> Option<String>) -> Vec<TimelineItem> {
    let mut out = Vec::new();
    for turn in turns {
        for item in &turn.items {
            let Some(mut mapped) = items::to_timeline(item, Source::History, child_session) else {
                continue;
            };
            if let ItemBody::UserMessage { .. } = mapped.body {
                mapped.revert_token = Some(crate::session::revert::token(&turn.id));
            }
            if let ItemBody::ToolCall(call) = &mut mapped.body {
                if call.status == ToolStatus::Running {
                    call.cancel();
                }
            }
            out.push(mapped);
        }
        if turn.status == TurnStatus::Failed {
            let message = turn
                .error
                .as_ref()
                .map(|e| e.message.clone())
                .filter(|m| !m.is_empty())
                .unwrap_or_else(|| "the turn failed".into());
            out.push(TimelineItem::new(
                format!("turn-error:{}", turn.id),
                ItemBody::Error { message },
            ));
        }
    }
    out
}

/// Unix seconds -> RFC 3339 (UTC).
pub fn rfc3339(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil-from-days (Howard Hinnant).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

pub fn summary(thread: &Thread) -> ProviderSessionSummary {
    let cwd = thread.cwd.clone().unwrap_or_default();
    let preview = Some(prompt_preview(&thread.preview)).filter(|p| !p.is_empty());
    ProviderSessionSummary {
        persistence: persistence(&thread.id, &cwd),
        cwd,
        title: thread
            .name
            .clone()
            .filter(|n| !n.trim().is_empty())
            .or_else(|| preview.clone()),
        description: None,
        updated_at: thread.updated_at.or(thread.created_at).map(rfc3339),
        first_prompt_preview: preview,
        last_prompt_preview: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_bridge_core::rpc::{DecodeError, Dialect, Incoming, JsonRpc};

    fn parse_line(line: &str) -> Result<Incoming, DecodeError> {
        JsonRpc::bare().decode(line)
    }
    use pretty_assertions::assert_eq;

    #[test]
    fn persistence_round_trips() {
        let p = persistence("th-1", "/w");
        assert_eq!(thread_of(&p).unwrap(), "th-1");
        assert!(thread_of(&ProviderPersistence::default()).is_err());
    }

    #[test]
    fn dates_are_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_796_047_537), "2026-11-30T14:05:37Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn the_recorded_resume_replays_three_turns() {
        let transcript = crate::normalize::tests::fixture("resume");
        let thread: Thread = transcript
            .lines()
            .find_map(|l| match parse_line(l) {
                Ok(Incoming::Response { result: Ok(v), .. })
                    if v.pointer("/thread/turns").is_some() =>
                {
                    serde_json::from_value(v["thread"].clone()).ok()
                }
                _ => None,
            })
            .expect("the transcript has the resumed thread");
        assert_eq!(thread.turns.len(), 3);
        let items = replay(&thread.turns, &|_| None);
        // Maps sorted: the items' metadata are JSON objects, whose order depends on serde_json's
        // `preserve_order` (on in a workspace build, see clippy.toml).
        insta::with_settings!({sort_maps => true}, {
            insta::assert_json_snapshot!("resume_replay", items);
            insta::assert_json_snapshot!("resume_summary", summary(&thread));
        });
    }
}
