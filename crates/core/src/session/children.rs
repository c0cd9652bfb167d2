//! Provider-owned child sessions (sub-agents): each has its own bounded timeline store, so its
//! items are deduplicated like the parent's and its running tools are settled when the parent's
//! turn is canceled or fails, or the session closes. How many children are tracked is bounded.

use super::*;
use std::collections::{HashMap, VecDeque};

/// Most child sessions one session tracks; opening one more lets the oldest go (its running
/// tools are canceled and it is reported closed).
pub const MAX_CHILDREN: usize = 64;

#[derive(Debug, Default)]
pub(super) struct Children {
    stores: HashMap<String, TimelineStore>,
    /// Ids in the order they opened.
    order: VecDeque<String>,
}

impl Children {
    pub(super) fn contains(&self, id: &str) -> bool {
        self.stores.contains_key(id)
    }

    /// Starts tracking `id`; false if it was already tracked. When the bound is reached, the
    /// oldest child is returned with its store, for the caller to let go.
    fn insert(&mut self, id: &str) -> (bool, Option<(String, TimelineStore)>) {
        if self.contains(id) {
            return (false, None);
        }
        let evicted = if self.stores.len() >= MAX_CHILDREN {
            self.order
                .pop_front()
                .and_then(|old| self.stores.remove(&old).map(|store| (old, store)))
        } else {
            None
        };
        self.stores.insert(id.to_string(), TimelineStore::default());
        self.order.push_back(id.to_string());
        (true, evicted)
    }

    fn remove(&mut self, id: &str) -> Option<TimelineStore> {
        let store = self.stores.remove(id)?;
        self.order.retain(|o| o != id);
        Some(store)
    }

    /// Every child, oldest first, untracked.
    fn take_all(&mut self) -> Vec<(String, TimelineStore)> {
        let mut stores = std::mem::take(&mut self.stores);
        std::mem::take(&mut self.order)
            .into_iter()
            .filter_map(|id| stores.remove(&id).map(|s| (id, s)))
            .collect()
    }

    /// Drops settled rows (a turn ended).
    pub(super) fn prune_settled(&mut self) {
        self.stores
            .values_mut()
            .for_each(TimelineStore::prune_settled);
    }

    pub(super) fn running_tools(&self) -> usize {
        self.stores.values().map(TimelineStore::running_tools).sum()
    }
}

/// How still-running tools end: canceled, or failed with a reason.
pub(super) fn settle(
    store: &mut TimelineStore,
    status: ToolStatus,
    reason: &str,
) -> Vec<TimelineItem> {
    let items = store.settle_running_tools(status, reason);
    store.prune_settled();
    items
}

impl Actor {
    /// Emits a child's row, unless it is identical to the one last emitted.
    pub(super) async fn emit_child_item(&mut self, child: &str, mut item: TimelineItem) {
        if !crate::timeline::has_id(&item) {
            return;
        }
        item.normalize();
        let fresh = match self.children.stores.get_mut(child) {
            Some(store) => store.upsert(&item),
            None => true,
        };
        if fresh {
            self.emit(ProviderEvent::TimelineItem {
                session_id: child.to_string(),
                item,
                timestamp: None,
            })
            .await;
        }
    }

    pub(super) async fn open_child(&mut self, child: ChildSession) {
        let ChildSession {
            session_id,
            title,
            description,
            cwd,
            items,
        } = child;
        let (fresh, evicted) = self.children.insert(&session_id);
        if let Some((old, store)) = evicted {
            tracing::warn!(session = %self.session_id, child = %old, "too many child sessions; letting the oldest go");
            self.let_child_go(old, store, "too many sub-agents are open")
                .await;
        }
        if !fresh {
            return;
        }
        self.emit(ProviderEvent::SessionOpened {
            request_id: None,
            session_id: session_id.clone(),
            parent_session_id: Some(self.session_id.clone()),
            capabilities: vec![],
            restoration: Restoration::Parent,
            persistence: None,
            title,
            description,
            cwd,
        })
        .await;
        for item in items {
            self.emit_child_item(&session_id, item).await;
        }
        self.emit(ProviderEvent::SessionReady {
            request_id: None,
            session_id,
        })
        .await;
    }

    /// A child the agent reported closed.
    pub(super) async fn close_child(&mut self, child: String) {
        if let Some(store) = self.children.remove(&child) {
            self.let_child_go(child, store, "the sub-agent ended").await;
        }
    }

    /// Cancels a child's running tools, then reports it closed.
    async fn let_child_go(&mut self, child: String, mut store: TimelineStore, reason: &str) {
        for item in settle(&mut store, ToolStatus::Canceled, reason) {
            self.emit_item_to(&child, item).await;
        }
        self.emit(ProviderEvent::SessionClosed {
            session_id: child,
            error: None,
        })
        .await;
    }

    /// Settles the children's running tools (a turn was canceled or failed).
    pub(super) async fn settle_children(&mut self, status: ToolStatus, reason: &str) {
        let mut settled = Vec::new();
        for id in &self.children.order {
            if let Some(store) = self.children.stores.get_mut(id) {
                settled.extend(
                    settle(store, status, reason)
                        .into_iter()
                        .map(|i| (id.clone(), i)),
                );
            }
        }
        for (child, item) in settled {
            self.emit_item_to(&child, item).await;
        }
    }

    /// Lets every child go (the session closes).
    pub(super) async fn close_children(&mut self) {
        for (child, store) in self.children.take_all() {
            self.let_child_go(child, store, "session closed").await;
        }
    }

    async fn emit_item_to(&mut self, session_id: &str, item: TimelineItem) {
        self.emit(ProviderEvent::TimelineItem {
            session_id: session_id.to_string(),
            item,
            timestamp: None,
        })
        .await;
    }
}
