//! State shared by a session's methods and its runtime's inbound, behind one mutex, with one
//! policy: a lock poisoned by a panic elsewhere is taken anyway (the state itself stays
//! usable; refusing it would wedge the session instead of failing one call).

use std::sync::{Arc, Mutex, MutexGuard};

pub type SharedState<T> = Arc<Mutex<T>>;

/// `state`, shared.
pub fn shared<T>(state: T) -> SharedState<T> {
    Arc::new(Mutex::new(state))
}

/// Locks `state`, recovering a poisoned lock.
pub fn lock<T>(state: &Mutex<T>) -> MutexGuard<'_, T> {
    state.lock().unwrap_or_else(|p| p.into_inner())
}
