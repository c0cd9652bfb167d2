//! The timeline snapshot store of one session: agents upsert items by id, the core emits
//! complete snapshots, skips re-emitting an unchanged one, and settles tool calls still
//! running when a turn ends.
//!
//! Memory is bounded: besides running tool calls (which the core must settle), only the
//! [`RECENT_ROWS`] most recently touched rows are kept. A row evicted and later updated is simply
//! emitted again, which the protocol allows (a snapshot replaces the row with the same id).
//!
//! A row of a turn that ended is sealed: the host takes a turn's terminal state as final for its
//! rows, so a later snapshot of one (an agent that, reloaded after a crash, reports a tool call
//! of the turn the crash ended) is dropped, never emitted. The last [`SEALED_ROWS`] sealed ids
//! are remembered.

use agent_bridge_protocol::{ItemBody, TimelineItem, ToolStatus};
use std::collections::{HashMap, HashSet, VecDeque};

/// How many settled rows the store remembers for deduplication.
pub const RECENT_ROWS: usize = 64;
/// How many rows of ended turns the store remembers as sealed.
pub const SEALED_ROWS: usize = 1024;

#[derive(Debug, Default)]
pub struct TimelineStore {
    items: HashMap<String, TimelineItem>,
    /// Ids in the order they were first stored (may hold ids already evicted).
    order: VecDeque<String>,
    /// The rows emitted during the active turn (the most recent [`SEALED_ROWS`]: no more can
    /// be sealed). A set, not a list: a turn may emit tens of thousands.
    turn_rows: RecentKeys,
    /// Rows of ended turns (the most recent [`SEALED_ROWS`]).
    sealed: RecentKeys,
}

/// The most recent [`SEALED_ROWS`] distinct rows put in, known by [`row_key`] (8 bytes each,
/// not their ids): a set for lookups and the order they came in for forgetting the oldest.
#[derive(Debug, Default)]
struct RecentKeys {
    set: HashSet<u64>,
    order: VecDeque<u64>,
}

impl RecentKeys {
    fn contains(&self, key: u64) -> bool {
        self.set.contains(&key)
    }

    /// Adds `key` unless present, forgetting the oldest beyond [`SEALED_ROWS`].
    fn insert(&mut self, key: u64) {
        if !self.set.insert(key) {
            return;
        }
        self.order.push_back(key);
        while self.order.len() > SEALED_ROWS {
            if let Some(old) = self.order.pop_front() {
                self.set.remove(&old);
            }
        }
    }

    /// Empties it, yielding the keys oldest first.
    fn drain(&mut self) -> impl Iterator<Item = u64> {
        self.set.clear();
        std::mem::take(&mut self.order).into_iter()
    }
}

/// A row id's 64-bit hash (SipHash with fixed keys): what the sealing remembers. Two of a
/// session's recent ids sharing one has a chance of about 10^-13.
fn row_key(id: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    id.hash(&mut h);
    h.finish()
}

fn is_running(item: &TimelineItem) -> bool {
    matches!(&item.body, ItemBody::ToolCall(c) if c.status == ToolStatus::Running)
}

/// A row the host can place: its id is not empty. A row without one (a vendor's tool call with
/// `"id": ""`) would collide with every other such row; the core drops it with a warning.
pub fn has_id(item: &TimelineItem) -> bool {
    if item.id.trim().is_empty() {
        tracing::warn!(kind = ?std::mem::discriminant(&item.body), "a timeline row without an id was dropped");
        return false;
    }
    true
}

impl TimelineStore {
    /// Records a snapshot. Returns false when it is identical to the stored one (nothing to emit).
    pub fn upsert(&mut self, item: &TimelineItem) -> bool {
        match self.items.get_mut(&item.id) {
            Some(prev) if prev == item => false,
            Some(prev) => {
                prev.clone_from(item);
                true
            }
            None => {
                self.items.insert(item.id.clone(), item.clone());
                self.order.push_back(item.id.clone());
                self.evict();
                true
            }
        }
    }

    /// Whether row `id` belongs to a turn that ended (a snapshot of it must not be emitted).
    pub fn is_sealed(&self, id: &str) -> bool {
        self.sealed.contains(row_key(id))
    }

    /// Row `id` was emitted during the active turn: it is sealed when the turn ends.
    pub fn note_turn_row(&mut self, id: &str) {
        self.turn_rows.insert(row_key(id));
    }

    /// The active turn ended: its rows are sealed.
    pub fn seal_turn(&mut self) {
        for key in self.turn_rows.drain() {
            self.sealed.insert(key);
        }
    }

    /// Drops the oldest settled rows beyond [`RECENT_ROWS`]; running tool calls stay.
    fn evict(&mut self) {
        let mut budget = self.order.len();
        while self.items.len() > RECENT_ROWS && budget > 0 {
            budget -= 1;
            let Some(id) = self.order.pop_front() else {
                break;
            };
            match self.items.get(&id) {
                Some(item) if is_running(item) => self.order.push_back(id),
                Some(_) => {
                    self.items.remove(&id);
                }
                None => {}
            }
        }
        if self.order.len() > 4 * RECENT_ROWS.max(self.items.len()) {
            let items = &self.items;
            self.order.retain(|id| items.contains_key(id));
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
        self.items.retain(|_, item| is_running(item));
        let items = &self.items;
        self.order.retain(|id| items.contains_key(id));
        // Give back what a long turn allocated.
        self.items.shrink_to(RECENT_ROWS);
        self.order.shrink_to(RECENT_ROWS);
    }

    pub fn running_tools(&self) -> usize {
        self.items.values().filter(|i| is_running(i)).count()
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
    fn memory_is_bounded_but_running_tools_are_kept() {
        let mut s = TimelineStore::default();
        s.upsert(&shell("tool"));
        for i in 0..10 * RECENT_ROWS {
            let item = TimelineItem::new(format!("m{i}"), ItemBody::Reasoning { text: "x".into() });
            assert!(s.upsert(&item));
        }
        assert!(s.len() <= RECENT_ROWS);
        assert!(s.order.len() <= 4 * RECENT_ROWS + 1);
        assert_eq!(s.running_tools(), 1, "a running tool is never evicted");
        let recent = TimelineItem::new(
            format!("m{}", 10 * RECENT_ROWS - 1),
            ItemBody::Reasoning { text: "x".into() },
        );
        assert!(!s.upsert(&recent), "recent rows are still deduplicated");
        let changed = s.settle_running_tools(ToolStatus::Canceled, "");
        assert_eq!(changed.len(), 1);
    }

    #[test]
    fn rows_of_an_ended_turn_are_sealed_and_bounded() {
        let mut s = TimelineStore::default();
        s.note_turn_row("t1");
        s.note_turn_row("t1");
        assert!(!s.is_sealed("t1"), "not while its turn runs");
        s.seal_turn();
        assert!(s.is_sealed("t1"));
        assert!(!s.is_sealed("t2"));
        for i in 0..SEALED_ROWS {
            s.note_turn_row(&format!("r{i}"));
        }
        s.seal_turn();
        assert!(!s.is_sealed("t1"), "the oldest sealed id is forgotten");
        assert!(s.is_sealed(&format!("r{}", SEALED_ROWS - 1)));
        assert_eq!(s.sealed.set.len(), SEALED_ROWS);
        assert_eq!(s.sealed.order.len(), SEALED_ROWS);
    }

    #[test]
    fn a_long_turn_keeps_only_the_rows_it_can_seal() {
        let mut s = TimelineStore::default();
        for i in 0..10 * SEALED_ROWS {
            s.note_turn_row(&format!("r{i}"));
            s.note_turn_row(&format!("r{i}"));
        }
        assert_eq!(s.turn_rows.set.len(), SEALED_ROWS);
        assert_eq!(s.turn_rows.order.len(), SEALED_ROWS);
        s.seal_turn();
        assert!(s.is_sealed(&format!("r{}", 10 * SEALED_ROWS - 1)));
        assert!(s.is_sealed(&format!("r{}", 9 * SEALED_ROWS)));
        assert!(!s.is_sealed(&format!("r{}", 9 * SEALED_ROWS - 1)));
        assert!(s.turn_rows.set.is_empty() && s.turn_rows.order.is_empty());
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
