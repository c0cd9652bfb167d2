//! Prestarted spares: processes a provider starts ahead, their handshake done, so that the next
//! open of the very same launch takes one instead of spawning (Claude; ACP entries with a
//! process per session).
//!
//! - A spare is kept under its key (the provider's: the whole launch, anything that changes
//!   the process is part of it); one per key, at most [`PoolConfig::max_spares`] in all
//!   (default one: the most recently used launch's; the oldest goes first).
//! - [`PrestartedPool::replenish`] starts one in the background (once: a start already running
//!   or a ready spare of that key is enough), outside any session's process scope: the
//!   provider's start future must not join one.
//! - [`PrestartedPool::take`] hands a live one out (a dead one is dropped, never handed out);
//!   [`PrestartedPool::take_or_wait`] waits for one still starting.
//! - It never leaks: stopped after [`PoolConfig::idle`] unused, killed when the pool is dropped
//!   (dropping a spare kills its process), stopped by [`super::Spares::stop_all`] when the bridge
//!   stops, and registered with the spares registry (`doctor --json`, kind `prestarted`)
//!   while it idles.

use super::SpareTicket;
use crate::lifecycle::lock;
use futures_util::future::BoxFuture;
use std::collections::HashMap;
use std::fmt::Debug;
use std::future::Future;
use std::hash::Hash;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::AbortHandle;

/// A process started ahead. Dropping it must kill its process.
pub trait Prestarted: Send + 'static {
    /// Its process id (the guard's when the bridge runs one), for the registry.
    fn pid(&self) -> Option<u32>;
    /// It died while waiting: it is never handed out.
    fn is_dead(&self) -> bool;
    /// Stops it gracefully.
    fn shutdown(self) -> BoxFuture<'static, ()>;
}

/// What a pool's key must be.
pub trait SpareKeyBound: Eq + Hash + Clone + Debug + Send + Sync + 'static {}
impl<T: Eq + Hash + Clone + Debug + Send + Sync + 'static> SpareKeyBound for T {}

/// Limits of a pool.
#[derive(Debug, Clone)]
pub struct PoolConfig {
    /// Off: nothing is started or kept.
    pub enabled: bool,
    /// How long an unused spare is kept.
    pub idle: Duration,
    /// Most spares kept at once.
    pub max_spares: usize,
    /// The provider id its spares are reported under.
    pub provider: String,
    /// The bridge's stop: no spare is started or kept once it is set.
    pub stopping: super::Stopping,
}

struct Entry<K, S> {
    id: u64,
    key: K,
    spare: S,
    reaper: AbortHandle,
    /// Its registration with the spares registry (dropped with the entry).
    _ticket: SpareTicket,
}

struct PoolState<K, S> {
    entries: Vec<Entry<K, S>>,
    /// Spares being started; each channel turns true when its start is over.
    starting: HashMap<K, watch::Receiver<bool>>,
    closed: bool,
    next_id: u64,
}

impl<K, S> PoolState<K, S> {
    fn remove(&mut self, index: usize) -> S {
        let entry = self.entries.remove(index);
        entry.reaper.abort();
        entry.spare
    }

    fn remove_id(&mut self, id: u64) -> Option<S> {
        let index = self.entries.iter().position(|e| e.id == id)?;
        Some(self.remove(index))
    }
}

type Shared<K, S> = Arc<Mutex<PoolState<K, S>>>;

/// The prestarted spares of one provider. Dropping it kills them.
pub struct PrestartedPool<K, S> {
    state: Shared<K, S>,
    config: PoolConfig,
}

impl<K: SpareKeyBound, S: Prestarted> PrestartedPool<K, S> {
    pub fn new(config: PoolConfig) -> Self {
        PrestartedPool {
            state: Arc::new(Mutex::new(PoolState {
                entries: Vec::new(),
                starting: HashMap::new(),
                closed: false,
                next_id: 0,
            })),
            config,
        }
    }

    pub fn config(&self) -> &PoolConfig {
        &self.config
    }

    pub fn enabled(&self) -> bool {
        self.config.enabled
    }

    /// How many spares are ready.
    pub fn len(&self) -> usize {
        lock(&self.state).entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Takes the spare for `key`, if a live one is ready (a dead one is dropped).
    pub fn take(&self, key: &K) -> Option<S> {
        let spare = {
            let mut state = lock(&self.state);
            let index = state.entries.iter().position(|e| &e.key == key)?;
            state.remove(index)
        };
        if spare.is_dead() {
            tracing::debug!(provider = %self.config.provider, "the spare died; spawning instead");
            return None;
        }
        Some(spare)
    }

    /// Takes the spare for `key`, waiting for it when it is still starting (it is then ready
    /// sooner than a new process would be).
    pub async fn take_or_wait(&self, key: &K) -> Option<S> {
        self.wait_started(key).await;
        self.take(key)
    }

    /// Waits until the spare being started for `key`, if any, is ready (or failed).
    pub async fn wait_started(&self, key: &K) {
        let starting = lock(&self.state).starting.get(key).cloned();
        if let Some(mut done) = starting {
            // An error means the start was dropped: nothing to wait for.
            let _ = done.wait_for(|d| *d).await;
        }
    }

    /// `look` at the ready, live spare for `key` (it stays ready).
    pub fn peek<R>(&self, key: &K, look: impl FnOnce(&S) -> R) -> Option<R> {
        let state = lock(&self.state);
        state
            .entries
            .iter()
            .find(|e| &e.key == key && !e.spare.is_dead())
            .map(|e| look(&e.spare))
    }

    /// Keeps `spare` as the ready one for `key`; hands it back when the pool is off or closed,
    /// the bridge is stopping, or the pool already has one for that key.
    pub fn offer(&self, key: K, spare: S) -> Option<S> {
        if !self.config.enabled {
            return Some(spare);
        }
        insert(&self.state, &self.config, key, spare)
    }

    /// Starts a spare for `key` with `start` in the background, unless one is ready or
    /// starting (then `start` is dropped unpolled). `start` must not join a session's scope.
    pub fn replenish<F>(&self, key: K, start: F)
    where
        F: Future<Output = Result<S, String>> + Send + 'static,
    {
        if !self.config.enabled || self.config.stopping.is_set() {
            return;
        }
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (done, done_rx) = watch::channel(false);
        {
            let mut state = lock(&self.state);
            if state.closed
                || state.starting.contains_key(&key)
                || state.entries.iter().any(|e| e.key == key)
            {
                return;
            }
            state.starting.insert(key.clone(), done_rx);
        }
        let weak = Arc::downgrade(&self.state);
        let config = self.config.clone();
        rt.spawn(async move {
            let started = start.await;
            // Dropping a spare (pool gone, or not kept) kills its process.
            let Some(state) = weak.upgrade() else { return };
            let extra = match started {
                Ok(spare) => insert(&state, &config, key.clone(), spare),
                Err(e) => {
                    tracing::debug!(provider = %config.provider, "could not start a spare: {e}");
                    None
                }
            };
            lock(&state).starting.remove(&key);
            drop(state);
            let _ = done.send(true);
            if let Some(extra) = extra {
                extra.shutdown().await;
            }
        });
    }
}

/// Puts a spare into the pool, registers it and arms its idle timer; hands it back when it is
/// not kept.
fn insert<K: SpareKeyBound, S: Prestarted>(
    state: &Shared<K, S>,
    config: &PoolConfig,
    key: K,
    spare: S,
) -> Option<S> {
    let mut s = lock(state);
    if s.closed || config.stopping.is_set() || s.entries.iter().any(|e| e.key == key) {
        return Some(spare);
    }
    s.next_id += 1;
    let id = s.next_id;
    let reaper = tokio::spawn(reap_after(Arc::downgrade(state), id, config.idle)).abort_handle();
    let weak = Arc::downgrade(state);
    let pid = spare.pid().unwrap_or(0);
    let ticket = super::register(&config.provider, pid, "prestarted", move || {
        Box::pin(async move {
            let Some(state) = weak.upgrade() else { return };
            let spare = lock(&state).remove_id(id);
            drop(state);
            if let Some(spare) = spare {
                spare.shutdown().await;
            }
        })
    });
    s.entries.push(Entry {
        id,
        key,
        spare,
        reaper,
        _ticket: ticket,
    });
    let mut evicted = Vec::new();
    while s.entries.len() > config.max_spares.max(1) {
        evicted.push(s.remove(0));
    }
    drop(s);
    // Killed on drop.
    drop(evicted);
    None
}

/// Stops spare `id` once it has waited `idle` unused.
async fn reap_after<K, S: Prestarted>(
    state: Weak<Mutex<PoolState<K, S>>>,
    id: u64,
    idle: Duration,
) {
    tokio::time::sleep(idle).await;
    let Some(state) = state.upgrade() else { return };
    // Not `remove_id`: that would abort this very task.
    let spare = {
        let mut s = lock(&state);
        s.entries
            .iter()
            .position(|e| e.id == id)
            .map(|index| s.entries.remove(index).spare)
    };
    drop(state);
    if let Some(spare) = spare {
        tracing::debug!("stopping an idle spare");
        spare.shutdown().await;
    }
}

impl<K, S> Drop for PrestartedPool<K, S> {
    fn drop(&mut self) {
        let entries = {
            let mut s = lock(&self.state);
            s.closed = true;
            std::mem::take(&mut s.entries)
        };
        for entry in entries {
            entry.reaper.abort();
            // Dropping the spare kills its process.
            drop(entry.spare);
        }
    }
}

#[cfg(test)]
#[path = "prestarted_tests.rs"]
mod tests;
