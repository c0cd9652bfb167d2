//! Requests of the host answered from a task of their own (`provider/availability`,
//! `provider/catalogCacheKey`, `provider/close`): at most [`MAX_IN_FLIGHT`] at once — the
//! server stops reading while that many wait, so a host that floods them meets backpressure,
//! not a growing pile of tasks — and the ids they hold, so a request reusing an id still in
//! flight can be refused instead of getting an answer the host cannot tell apart.

use agent_bridge_protocol::jsonrpc::RequestId;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Requests answered from their own task, at most, at once.
pub const MAX_IN_FLIGHT: usize = 64;

/// The in-flight table of one server.
#[derive(Debug, Clone)]
pub struct InFlight {
    permits: Arc<Semaphore>,
    ids: Arc<Mutex<HashSet<RequestId>>>,
}

impl Default for InFlight {
    fn default() -> Self {
        Self::new(MAX_IN_FLIGHT)
    }
}

impl InFlight {
    pub fn new(max: usize) -> Self {
        InFlight {
            permits: Arc::new(Semaphore::new(max.max(1))),
            ids: Arc::new(Mutex::new(HashSet::new())),
        }
    }

    /// True while a request with this id waits for its answer.
    pub fn holds(&self, id: &RequestId) -> bool {
        self.ids.lock().map(|ids| ids.contains(id)).unwrap_or(false)
    }

    /// Waits for room, then records `id` as in flight until the ticket is dropped (drop it
    /// once the answer is queued, so a later request with the same id is answered after it).
    pub async fn begin(&self, id: &RequestId) -> Ticket {
        let permit = self.permits.clone().acquire_owned().await.ok();
        if let Ok(mut ids) = self.ids.lock() {
            ids.insert(id.clone());
        }
        Ticket {
            _permit: permit,
            id: id.clone(),
            ids: self.ids.clone(),
        }
    }
}

/// One request in flight.
#[derive(Debug)]
pub struct Ticket {
    _permit: Option<OwnedSemaphorePermit>,
    id: RequestId,
    ids: Arc<Mutex<HashSet<RequestId>>>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if let Ok(mut ids) = self.ids.lock() {
            ids.remove(&self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn ids_are_held_until_the_ticket_drops_and_room_is_bounded() {
        let table = InFlight::new(2);
        let one = RequestId::String("a".into());
        let two = RequestId::Number(2.into());
        let a = table.begin(&one).await;
        let _b = table.begin(&two).await;
        assert!(table.holds(&one) && table.holds(&two));
        let three = RequestId::String("c".into());
        let third = tokio::time::timeout(Duration::from_millis(50), table.begin(&three)).await;
        assert!(third.is_err(), "a third request waits for room");
        drop(a);
        assert!(!table.holds(&one));
        let _c = table.begin(&three).await;
        assert!(table.holds(&three));
    }
}
