//! Timeline snapshots as ACP `session/update`s.
//!
//! The core sends complete snapshots (the same item id again replaces the row); ACP streams
//! chunks. For a message or reasoning item the text already sent is remembered: a snapshot that
//! extends it sends the appended suffix as a chunk. A snapshot that *rewrites* sent text (it no
//! longer starts with it) cannot be expressed, since ACP chunks cannot be retracted: the whole
//! new text is sent as a chunk of a new message (`messageId` `<item>#<n>`), so a client shows
//! the rewritten text after the old one and nothing is lost. Tool calls are sent whole each
//! time they change (`tool_call` first, `tool_call_update` after).

use crate::tool_calls::ToolFields;
use agent_bridge_protocol::{ItemBody, TimelineItem, TodoEntry, TodoStatus};
use agent_client_protocol_schema::v1::{
    ContentBlock, ContentChunk, MessageId, Plan, PlanEntry, PlanEntryPriority, PlanEntryStatus,
    SessionUpdate, TextContent,
};
use std::collections::HashMap;

/// What has been sent of one session's timeline.
#[derive(Debug, Default)]
pub struct TimelineStream {
    /// Per message / reasoning item: the text sent and how many rewrites it had.
    texts: HashMap<String, SentText>,
    /// Per tool call id: the fields last sent.
    tools: HashMap<String, ToolFields>,
}

#[derive(Debug, Default)]
struct SentText {
    text: String,
    rewrites: u32,
}

/// Which message chunk a text item becomes.
#[derive(Clone, Copy)]
enum Chunk {
    User,
    Agent,
    Thought,
}

impl TimelineStream {
    /// The updates for one snapshot. User messages are sent only when `replaying` (during a
    /// live turn the client shows the prompt it sent itself).
    pub fn updates(&mut self, item: &TimelineItem, replaying: bool) -> Vec<SessionUpdate> {
        match &item.body {
            ItemBody::UserMessage { text, .. } => {
                if replaying {
                    self.text(&item.id, text, Chunk::User)
                } else {
                    vec![]
                }
            }
            ItemBody::AssistantMessage { text, .. } => self.text(&item.id, text, Chunk::Agent),
            ItemBody::Reasoning { text } => self.text(&item.id, text, Chunk::Thought),
            ItemBody::ToolCall(call) => {
                let fields = ToolFields::of(call);
                let update = match self.tools.get(&call.call_id) {
                    Some(sent) if *sent == fields => return vec![],
                    Some(_) => SessionUpdate::ToolCallUpdate(fields.update(&call.call_id)),
                    None => SessionUpdate::ToolCall(fields.tool_call(&call.call_id)),
                };
                self.tools.insert(call.call_id.clone(), fields);
                vec![update]
            }
            ItemBody::Todo { items } => vec![SessionUpdate::Plan(Plan::new(
                items.iter().map(plan_entry).collect(),
            ))],
            ItemBody::Error { message } => {
                let text = format!("\n\nError: {message}\n");
                self.text(&item.id, &text, Chunk::Agent)
            }
            // Notices, compaction markers and plugin rows have no ACP counterpart a client is
            // required to understand; they stay in the bridge's log.
            ItemBody::Notification { .. }
            | ItemBody::Compaction { .. }
            | ItemBody::Plugin { .. } => {
                tracing::debug!(item = %item.id, "timeline item without an ACP counterpart");
                vec![]
            }
        }
    }

    fn text(&mut self, id: &str, text: &str, chunk: Chunk) -> Vec<SessionUpdate> {
        let sent = self.texts.entry(id.to_string()).or_default();
        let piece = if let Some(suffix) = text.strip_prefix(sent.text.as_str()) {
            suffix.to_string()
        } else {
            sent.rewrites += 1;
            text.to_string()
        };
        sent.text = text.to_string();
        if piece.is_empty() {
            return vec![];
        }
        let message_id = match sent.rewrites {
            0 => id.to_string(),
            n => format!("{id}#{n}"),
        };
        let content = ContentChunk::new(ContentBlock::Text(TextContent::new(piece)))
            .message_id(MessageId::new(message_id));
        vec![match chunk {
            Chunk::User => SessionUpdate::UserMessageChunk(content),
            Chunk::Agent => SessionUpdate::AgentMessageChunk(content),
            Chunk::Thought => SessionUpdate::AgentThoughtChunk(content),
        }]
    }
}

fn plan_entry(todo: &TodoEntry) -> PlanEntry {
    let status = match todo.status {
        Some(TodoStatus::InProgress) => PlanEntryStatus::InProgress,
        Some(TodoStatus::Completed) => PlanEntryStatus::Completed,
        Some(TodoStatus::Pending) => PlanEntryStatus::Pending,
        None if todo.completed => PlanEntryStatus::Completed,
        None => PlanEntryStatus::Pending,
    };
    PlanEntry::new(todo.text.clone(), PlanEntryPriority::Medium, status)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::{json, Value};

    fn agent(id: &str, text: &str) -> TimelineItem {
        TimelineItem::new(
            id,
            ItemBody::AssistantMessage {
                text: text.into(),
                message_id: None,
            },
        )
    }

    fn sent(stream: &mut TimelineStream, item: &TimelineItem) -> Vec<Value> {
        stream
            .updates(item, false)
            .into_iter()
            .map(|u| serde_json::to_value(u).unwrap())
            .collect()
    }

    #[test]
    fn appended_text_is_sent_as_its_suffix() {
        let mut s = TimelineStream::default();
        assert_eq!(
            sent(&mut s, &agent("m", "Hel")),
            vec![
                json!({"sessionUpdate": "agent_message_chunk", "messageId": "m",
                "content": {"type": "text", "text": "Hel"}})
            ]
        );
        assert_eq!(
            sent(&mut s, &agent("m", "Hello")),
            vec![
                json!({"sessionUpdate": "agent_message_chunk", "messageId": "m",
                "content": {"type": "text", "text": "lo"}})
            ]
        );
        assert_eq!(sent(&mut s, &agent("m", "Hello")), Vec::<Value>::new());
    }

    #[test]
    fn a_rewrite_is_sent_whole_as_a_new_message() {
        let mut s = TimelineStream::default();
        sent(&mut s, &agent("m", "Hello"));
        assert_eq!(
            sent(&mut s, &agent("m", "Goodbye")),
            vec![
                json!({"sessionUpdate": "agent_message_chunk", "messageId": "m#1",
                "content": {"type": "text", "text": "Goodbye"}})
            ]
        );
    }

    #[test]
    fn user_messages_only_in_a_replay() {
        let mut s = TimelineStream::default();
        let user = TimelineItem::new(
            "u",
            ItemBody::UserMessage {
                text: "hi".into(),
                message_id: None,
                client_message_id: None,
            },
        );
        assert!(s.updates(&user, false).is_empty());
        assert_eq!(s.updates(&user, true).len(), 1);
    }

    #[test]
    fn todos_are_a_plan() {
        let mut s = TimelineStream::default();
        let todo = TimelineItem::new(
            "t",
            ItemBody::Todo {
                items: vec![TodoEntry {
                    text: "write".into(),
                    completed: false,
                    id: None,
                    status: Some(TodoStatus::InProgress),
                    active_form: None,
                }],
            },
        );
        assert_eq!(
            sent(&mut s, &todo),
            vec![json!({"sessionUpdate": "plan", "entries": [
                {"content": "write", "priority": "medium", "status": "in_progress"}]})]
        );
    }
}
