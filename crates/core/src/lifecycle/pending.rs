//! The agent's requests that wait for the user (permissions, questions), bound to the turn
//! they were raised in: answered when the user decides, or all of a turn at once when the
//! turn ends without them (interrupt, close, death).

use std::collections::HashMap;

/// One waiting request: the provider's native handle on it (`T`: the request id and what
/// the answer needs) and its turn.
#[derive(Debug, Clone)]
pub struct Pending<T> {
    pub native: T,
    pub turn_id: Option<String>,
}

/// Permission id → the waiting request.
#[derive(Debug)]
pub struct PendingRequests<T> {
    waiting: HashMap<String, Pending<T>>,
}

impl<T> Default for PendingRequests<T> {
    fn default() -> Self {
        PendingRequests {
            waiting: HashMap::new(),
        }
    }
}

impl<T> PendingRequests<T> {
    pub fn insert(&mut self, permission_id: impl Into<String>, native: T, turn_id: Option<String>) {
        self.waiting
            .insert(permission_id.into(), Pending { native, turn_id });
    }

    /// The request `permission_id`, now answered (removed).
    pub fn take(&mut self, permission_id: &str) -> Option<Pending<T>> {
        self.waiting.remove(permission_id)
    }

    /// Every request of `turn_id` (of any turn when `None`), removed, in id order.
    pub fn take_turn(&mut self, turn_id: Option<&str>) -> Vec<(String, Pending<T>)> {
        let mut ids: Vec<String> = self
            .waiting
            .iter()
            .filter(|(_, p)| turn_id.is_none() || p.turn_id.as_deref() == turn_id)
            .map(|(id, _)| id.clone())
            .collect();
        ids.sort();
        ids.into_iter()
            .filter_map(|id| self.waiting.remove(&id).map(|p| (id, p)))
            .collect()
    }

    pub fn contains(&self, permission_id: &str) -> bool {
        self.waiting.contains_key(permission_id)
    }

    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    /// Forgets every request (their runtime is gone: nobody can answer them).
    pub fn clear(&mut self) {
        self.waiting.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn requests_are_taken_one_by_one_or_a_turn_at_a_time() {
        let mut pending = PendingRequests::default();
        pending.insert("p2", 2, Some("t1".into()));
        pending.insert("p1", 1, Some("t1".into()));
        pending.insert("p3", 3, Some("t2".into()));
        pending.insert("p4", 4, None);
        assert_eq!(pending.take("p3").map(|p| p.native), Some(3));
        assert_eq!(pending.take("p3").map(|p| p.native), None, "answered once");
        let turn: Vec<(String, i32)> = pending
            .take_turn(Some("t1"))
            .into_iter()
            .map(|(id, p)| (id, p.native))
            .collect();
        assert_eq!(turn, vec![("p1".into(), 1), ("p2".into(), 2)]);
        assert_eq!(pending.len(), 1);
        assert_eq!(pending.take_turn(None).len(), 1);
        assert!(pending.is_empty());
    }
}
