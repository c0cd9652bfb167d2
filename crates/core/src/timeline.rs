//! The timeline snapshot store of one session: agents upsert items by id, the core emits
//! complete snapshots, skips re-emitting an unchanged one, and settles tool calls still
//! running when a turn ends. Only rows that may still change are kept.

use agent_bridge_protocol::{ItemBody, TimelineItem, ToolStatus};
use std::collections::HashMap;

#[derive(Debug, Default)]
pub struct TimelineStore {
    items: HashMap<String, TimelineItem>,
}

impl TimelineStore {
    /// Records a snapshot. Returns false when it is identical to the stored one (nothing to emit).
    pub fn upsert(&mut self, item: &TimelineItem) -> bool {
        match self.items.get(&item.id) {
            Some(prev) if prev == item => false,
            _ => {
                self.items.insert(item.id.clone(), item.clone());
                true
            }
        }
    }

    /// How a turn's still-running tool calls end.
    pub fn settle_running_tools(&mut self, status: ToolStatus, error: &str) -> Vec<TimelineItem> {
        let mut changed = Vec::new();
        for item in self.items.values_mut() {
            if let ItemBody::ToolCall(call) = &mut item.body {
                if call.status == ToolStatus::Running {
                    match status {
                        ToolStatus::Canceled => call.cancel(),
                        ToolStatus::Failed => {
                            call.fail(serde_json::Value::String(error.to_string()))
                        }
                        ToolStatus::Completed => call.complete(),
                        ToolStatus::Running => continue,
                    }
                    changed.push(item.clone());
                }
            }
        }
        changed.sort_by(|a, b| a.id.cmp(&b.id));
        changed
    }

    /// Drops every settled row (called when a turn ends): later updates of an old row are
    /// still emitted, they just are not deduplicated.
    pub fn prune_settled(&mut self) {
        self.items.retain(|_, item| matches!(&item.body, ItemBody::ToolCall(c) if c.status == ToolStatus::Running));
    }

    pub fn running_tools(&self) -> usize {
        self.items
            .values()
            .filter(|i| matches!(&i.body, ItemBody::ToolCall(c) if c.status == ToolStatus::Running))
            .count()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_bridge_protocol::{ToolCall, ToolCallDetail};
    use pretty_assertions::assert_eq;

    fn shell(id: &str) -> TimelineItem {
        TimelineItem::new(
            id,
            ItemBody::ToolCall(ToolCall::running(
                id,
                "shell",
                ToolCallDetail::Shell {
                    command: "ls".into(),
                    cwd: None,
                    output: None,
                    exit_code: None,
                },
            )),
        )
    }

    #[test]
    fn unchanged_snapshot_is_not_reemitted() {
        let mut s = TimelineStore::default();
        let item = TimelineItem::new("a", ItemBody::Reasoning { text: "x".into() });
        assert!(s.upsert(&item));
        assert!(!s.upsert(&item));
        let grown = TimelineItem::new("a", ItemBody::Reasoning { text: "xy".into() });
        assert!(s.upsert(&grown));
    }

    #[test]
    fn running_tools_are_canceled_and_pruned() {
        let mut s = TimelineStore::default();
        s.upsert(&shell("t1"));
        s.upsert(&TimelineItem::new(
            "m",
            ItemBody::AssistantMessage {
                text: "hi".into(),
                message_id: None,
            },
        ));
        let changed = s.settle_running_tools(ToolStatus::Canceled, "");
        assert_eq!(changed.len(), 1);
        let ItemBody::ToolCall(call) = &changed[0].body else {
            panic!("not a tool call")
        };
        assert_eq!(call.status, ToolStatus::Canceled);
        assert_eq!(call.error, serde_json::Value::Null);
        s.prune_settled();
        assert!(s.is_empty());
    }

    #[test]
    fn failed_tools_carry_an_error() {
        let mut s = TimelineStore::default();
        s.upsert(&shell("t1"));
        let changed = s.settle_running_tools(ToolStatus::Failed, "runtime died");
        let ItemBody::ToolCall(call) = &changed[0].body else {
            panic!("not a tool call")
        };
        assert_eq!(call.error, serde_json::json!("runtime died"));
    }
}
