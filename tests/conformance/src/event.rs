//! [`Event`]: one `provider/event` notification as the host received it.

use serde_json::Value;
use std::time::Instant;

/// One received `provider/event`.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// Index among all events received by this host (0-based, arrival order).
    pub seq: usize,
    /// `params.connectionId`.
    pub connection_id: String,
    /// `params.event`: the `ProviderEvent` as sent.
    pub event: Value,
    /// When the reader task saw it.
    pub at: Instant,
}

impl Event {
    fn str(&self, key: &str) -> Option<&str> {
        self.event.get(key).and_then(Value::as_str)
    }

    /// The event `type` (`"session.turn"`, `"timeline.item"`, ...).
    pub fn kind(&self) -> &str {
        self.str("type").unwrap_or("")
    }

    /// True when the event has this `type`.
    pub fn is(&self, kind: &str) -> bool {
        self.kind() == kind
    }

    /// True when the event has this `type` and belongs to this session.
    pub fn is_for(&self, kind: &str, session_id: &str) -> bool {
        self.is(kind) && self.session_id() == Some(session_id)
    }

    pub fn session_id(&self) -> Option<&str> {
        self.str("sessionId")
    }

    pub fn request_id(&self) -> Option<&str> {
        self.str("requestId")
    }

    /// `turnId` of `session.turn` / `session.usage`, or `result.turnId` of a prompt result.
    pub fn turn_id(&self) -> Option<&str> {
        self.str("turnId").or_else(|| {
            self.event
                .get("result")
                .and_then(|r| r.get("turnId"))
                .and_then(Value::as_str)
        })
    }

    /// `state` of a `session.turn`.
    pub fn turn_state(&self) -> Option<&str> {
        self.str("state")
    }

    /// The `item` of a `timeline.item` event.
    pub fn item(&self) -> Option<&Value> {
        self.event.get("item")
    }

    /// `item.id` of a `timeline.item` event.
    pub fn item_id(&self) -> Option<&str> {
        self.item()
            .and_then(|i| i.get("id"))
            .and_then(Value::as_str)
    }

    /// `item.type` of a `timeline.item` event.
    pub fn item_type(&self) -> Option<&str> {
        self.item()
            .and_then(|i| i.get("type"))
            .and_then(Value::as_str)
    }

    /// A value by JSON pointer into the event (`"/result/type"`).
    pub fn at(&self, pointer: &str) -> Option<&Value> {
        self.event.pointer(pointer)
    }

    /// The string at a JSON pointer into the event, owned; empty when it is missing or not a
    /// string.
    pub fn string_at(&self, pointer: &str) -> String {
        self.at(pointer)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    }
}

impl std::fmt::Display for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{} [{}] {}", self.seq, self.connection_id, self.event)
    }
}
