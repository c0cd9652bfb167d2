//! The tolerant reader of one `session/update` payload: the `sessionUpdate` discriminator
//! first (as JSON), then the crate's [`SessionUpdate`]. The crate's enum has no catch-all arm,
//! so an agent newer than the crate (a new kind) would fail the whole payload; here a kind
//! the bridge does not map never reaches the crate, and a mapped kind the crate refuses (an
//! unknown content block type in a chunk, a missing required field) is reported unreadable
//! for the caller to log and skip.

use super::acp::{SessionUpdate, ToolCallUpdate};
use serde_json::Value;

/// The `sessionUpdate` kinds the bridge maps (checked against the crate's schema by the drift
/// test `wire::drift::the_update_kinds_we_map_are_the_schemas`).
pub const MAPPED: &[&str] = &[
    "user_message_chunk",
    "agent_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
    "available_commands_update",
    "current_mode_update",
    "config_option_update",
    "session_info_update",
    "usage_update",
];

/// The kinds of the crate's schema the bridge leaves out on purpose (the agent sends them
/// only to a client that advertised the capability, which the bridge does not). A kind
/// outside both lists fails the drift test.
pub const LEFT_OUT: &[&str] = &[
    "plan_update",
    "plan_removed",
    "notice",
    "compaction_update",
    "compaction_summary_chunk",
    "subagent_update",
    "session_message",
    "session_message_chunk",
];

/// What one payload reads as.
#[derive(Debug)]
pub enum Read {
    /// A mapped kind, in the crate's type. A `tool_call` comes as
    /// [`SessionUpdate::ToolCallUpdate`]: see [`read`].
    Update(Box<SessionUpdate>),
    /// A kind the bridge does not map (one it does not need, or newer than the crate).
    NotMapped,
    /// A mapped kind whose payload the crate refused.
    Unreadable(serde_json::Error),
}

/// The `sessionUpdate` discriminator ("" when absent).
pub fn kind(raw: &Value) -> &str {
    raw.get("sessionUpdate")
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// Reads one payload. A `tool_call` is read as the crate's [`ToolCallUpdate`] (a `tool_call`
/// carries a superset of its fields): the crate's `ToolCall` fills a missing `kind` with
/// `other` and a missing `status` with `pending`, and requires a `title`, while the bridge's
/// merge needs "not given" (codex-acp's replayed calls carry no `kind`).
pub fn read(raw: Value) -> Read {
    let kind = kind(&raw);
    if !MAPPED.contains(&kind) {
        return Read::NotMapped;
    }
    let parsed = if kind == "tool_call" {
        serde_json::from_value::<ToolCallUpdate>(raw).map(SessionUpdate::ToolCallUpdate)
    } else {
        serde_json::from_value::<SessionUpdate>(raw)
    };
    match parsed {
        Ok(update) => Read::Update(Box::new(update)),
        Err(e) => Read::Unreadable(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::method;
    use agent_bridge_core::rpc::{Dialect, Incoming, JsonRpc};
    use serde_json::json;
    use std::collections::BTreeSet;

    /// Every `session/update` the five pinned agents sent in the recorded transcripts
    /// (`tests/fixtures`, copied from `shared/fixtures`).
    fn recorded_updates() -> Vec<(String, Value)> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
        let mut out = Vec::new();
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .expect("fixtures")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .collect();
        files.sort();
        for path in files {
            let text = std::fs::read_to_string(&path).expect("a fixture");
            let name = path.file_name().map(|n| n.to_string_lossy().to_string());
            for line in text.lines() {
                if let Ok(Incoming::Notification { method: m, params }) = JsonRpc::v2().decode(line)
                {
                    if m == method::SESSION_UPDATE {
                        out.push((name.clone().unwrap_or_default(), params["update"].clone()));
                    }
                }
            }
        }
        out
    }

    #[test]
    fn every_recorded_update_reads_into_the_crates_types() {
        let updates = recorded_updates();
        assert!(updates.len() > 100, "the transcripts have updates");
        let mut not_mapped = BTreeSet::new();
        for (file, raw) in updates {
            let kind = kind(&raw).to_string();
            match read(raw.clone()) {
                Read::Update(_) => {}
                Read::NotMapped => {
                    not_mapped.insert(kind);
                }
                Read::Unreadable(e) => panic!("{file}: {kind} refused by the crate: {e}\n{raw}"),
            }
        }
        // What the pinned agents send that the bridge does not map (none today).
        assert_eq!(not_mapped, BTreeSet::new());
    }

    #[test]
    fn a_newer_agents_update_kind_is_not_mapped_and_a_refused_payload_is_unreadable() {
        let newer = json!({"sessionUpdate": "hologram_update", "beam": 1});
        assert!(matches!(read(newer), Read::NotMapped));
        assert!(matches!(
            read(json!({"no": "discriminator"})),
            Read::NotMapped
        ));
        // A content block type the crate does not know: the chunk is refused, not the line.
        let chunk = json!({"sessionUpdate": "agent_message_chunk",
            "content": {"type": "hologram", "data": "..."}});
        assert!(matches!(read(chunk), Read::Unreadable(_)));
    }

    #[test]
    fn extra_and_missing_optional_fields_still_read() {
        let chunk = json!({"sessionUpdate": "agent_message_chunk", "futureField": {"x": 1},
            "content": {"type": "text", "text": "hi", "futureField": 2}});
        let Read::Update(update) = read(chunk) else {
            panic!("a chunk")
        };
        let SessionUpdate::AgentMessageChunk(c) = *update else {
            panic!("an agent chunk")
        };
        assert_eq!(c.message_id, None);
        // A tool call without title, kind or status (the crate's `ToolCall` requires a title).
        let call = json!({"sessionUpdate": "tool_call", "toolCallId": "c1"});
        let Read::Update(update) = read(call) else {
            panic!("a tool call")
        };
        let SessionUpdate::ToolCallUpdate(u) = *update else {
            panic!("read as an update")
        };
        assert_eq!((u.fields.kind, u.fields.status), (None, None));
    }
}
