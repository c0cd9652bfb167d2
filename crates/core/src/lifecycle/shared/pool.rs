//! The shared processes of a provider, one per launch key, started once and stopped when idle.
//! With an idle grace, the process whose last session left is the provider's warm spare (see
//! [`crate::spares`]): one at most per provider (another one becoming idle stops it), stopped
//! after the grace, when it dies meanwhile, or when the bridge stops.

use super::fresh::FreshStart;
use super::process::{SharedMember, SharedProcess};
use super::{ProcessDeaths, Route};
use crate::lifecycle::{lock, AgentRuntime, EventTarget, Translator};
use crate::rpc::Inbound;
use crate::scope::ProcessScope;
use crate::supervisor::SpawnSpec;
use agent_bridge_protocol::{ErrorCode, ProviderError};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

/// What sessions must have in common to share a process: the launch (program, arguments,
/// effective environment). Not the folder: each native session has its own.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SharedKey {
    program: String,
    args: Vec<String>,
    base_env: Option<BTreeMap<String, String>>,
    env: BTreeMap<String, String>,
    env_remove: Vec<String>,
}

impl SharedKey {
    pub fn of(spec: &SpawnSpec) -> Self {
        SharedKey {
            program: spec.program.clone(),
            args: spec.args.clone(),
            base_env: spec.base_env.clone(),
            env: spec.env.clone(),
            env_remove: spec.env_remove.clone(),
        }
    }
}

/// The process of one key, behind an async lock held while it starts (one start at a time).
type Cell = Arc<tokio::sync::Mutex<Option<Arc<SharedProcess>>>>;

struct Inner {
    cells: Mutex<HashMap<SharedKey, Cell>>,
    /// The bridge's spares: the idle grace and the bridge's stop.
    spares: crate::spares::Spares,
    stop_limit: Duration,
    /// The provider id, for the spare's report.
    provider: OnceLock<String>,
    /// The idle process kept as the provider's spare, if any.
    spare: Mutex<Option<IdleSpare>>,
    /// The crash-loop count of each key's processes.
    deaths: Mutex<HashMap<SharedKey, ProcessDeaths>>,
    /// How to start a fresh spare of the launch last joined, when its provider said
    /// ([`SharedProcesses::spare_start`]).
    pub(super) fresh: Mutex<Option<FreshStart>>,
}

/// The provider's idle process, waiting out its grace.
struct IdleSpare {
    key: SharedKey,
    process: Weak<SharedProcess>,
    epoch: u64,
    _ticket: crate::spares::SpareTicket,
}

/// A provider's shared processes.
#[derive(Clone)]
pub struct SharedProcesses {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for SharedProcesses {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedProcesses")
            .field("idle_grace", &self.inner.spares.idle())
            .finish_non_exhaustive()
    }
}

impl SharedProcesses {
    /// A pool whose idle processes stop `idle_grace` after their last member left, each stop
    /// bounded by `stop_limit` (then killed).
    pub fn new(idle_grace: Duration, stop_limit: Duration) -> Self {
        Self::with_spares(crate::spares::Spares::new(idle_grace), stop_limit)
    }

    /// A pool whose idle processes stop after the idle time of the bridge's `spares` (and
    /// whose spares stop with the bridge), each stop bounded by `stop_limit`.
    pub fn with_spares(spares: crate::spares::Spares, stop_limit: Duration) -> Self {
        SharedProcesses {
            inner: Arc::new(Inner {
                cells: Mutex::new(HashMap::new()),
                spares,
                stop_limit,
                provider: OnceLock::new(),
                spare: Mutex::new(None),
                deaths: Mutex::default(),
                fresh: Mutex::new(None),
            }),
        }
    }

    /// The pool of provider `id` (the name its idle spare is reported under).
    pub fn named(self, id: &str) -> Self {
        let _ = self.inner.provider.set(id.to_string());
        self
    }

    /// The provider's idle process kept as its spare, if any (for tests and reports).
    pub fn spare(&self) -> Option<Arc<SharedProcess>> {
        lock(&self.inner.spare)
            .as_ref()
            .and_then(|s| s.process.upgrade())
    }

    /// `process` is no longer the spare (a session joined it, or it stops).
    fn unspare(&self, process: &Arc<SharedProcess>) {
        let mut spare = lock(&self.inner.spare);
        if spare
            .as_ref()
            .is_some_and(|s| std::ptr::eq(s.process.as_ptr(), Arc::as_ptr(process)))
        {
            spare.take();
        }
    }

    /// The fresh-spare launch of the provider ([`super::fresh`]).
    pub(super) fn fresh_slot(&self) -> &Mutex<Option<FreshStart>> {
        &self.inner.fresh
    }

    /// The crash-loop count of `key`'s processes.
    pub(super) fn deaths_of(&self, key: &SharedKey) -> ProcessDeaths {
        lock(&self.inner.deaths)
            .entry(key.clone())
            .or_default()
            .clone()
    }

    pub fn idle_grace(&self) -> Duration {
        self.inner.spares.idle()
    }

    /// Whether the bridge is stopping (no spare is started or kept any more).
    pub(super) fn stopping(&self) -> bool {
        self.inner.spares.stopping().is_set()
    }

    pub(super) fn cell(&self, key: &SharedKey) -> Cell {
        lock(&self.inner.cells)
            .entry(key.clone())
            .or_default()
            .clone()
    }

    /// The running process of `key`, if any (for tests and reports).
    pub async fn running(&self, key: &SharedKey) -> Option<Arc<SharedProcess>> {
        let cell = self.cell(key);
        let slot = cell.lock().await;
        slot.as_ref().filter(|p| p.usable()).cloned()
    }

    /// A place for a session on the running process of `key`, or on one started with `start`
    /// (given the process's inbound, it spawns the agent in the session's process `scope` and
    /// completes its handshake, whose answer every session of the process reads:
    /// [`SharedProcess::handshake`]). The session's messages (those `route` gives it) go
    /// through `translator` into `events`. Concurrent joins of one key start one process.
    ///
    /// The session's scope holds the process while it starts (a close meanwhile waits for it)
    /// and again when the session is the last to leave it with no idle grace; in between the
    /// process is the pool's.
    pub async fn join<F, Fut>(
        &self,
        key: SharedKey,
        route: Arc<dyn Route>,
        start: F,
        translator: Arc<dyn Translator>,
        events: EventTarget,
        scope: &ProcessScope,
    ) -> Result<SharedMember, ProviderError>
    where
        F: Fn(Arc<dyn Inbound>) -> Fut,
        Fut: Future<Output = Result<(AgentRuntime, Value), ProviderError>>,
    {
        // A process whose last session left while this one waited to open is stopping: the
        // next attempt starts another.
        for _ in 0..2 {
            let process = self.process_of(&key, &route, &start, scope).await?;
            // One session opens at a time on a process: until it claims its native session it
            // takes what nobody claimed (see `SharedMember::claim`).
            let opening = process.opening().lock_owned().await;
            if let Some(member) = process.add(translator.clone(), events.clone()) {
                let pool = (self.clone(), key, scope.clone());
                return Ok(SharedMember::new(process, member, pool, opening));
            }
        }
        Err(
            ProviderError::new("the shared agent process stopped while the session joined it")
                .with_code(ErrorCode::RuntimeExited),
        )
    }

    /// The running process of `key`, or one started now with `start` (in `scope` while it
    /// starts).
    async fn process_of<F, Fut>(
        &self,
        key: &SharedKey,
        route: &Arc<dyn Route>,
        start: &F,
        scope: &ProcessScope,
    ) -> Result<Arc<SharedProcess>, ProviderError>
    where
        F: Fn(Arc<dyn Inbound>) -> Fut,
        Fut: Future<Output = Result<(AgentRuntime, Value), ProviderError>>,
    {
        let cell = self.cell(key);
        let mut slot = cell.lock().await;
        if let Some(process) = slot.as_ref().filter(|p| p.usable()) {
            self.unspare(process);
            return Ok(process.clone());
        }
        let (members, inbound) = SharedProcess::demux(route.clone());
        let (runtime, handshake) = start(inbound).await?;
        if let Some(pid) = runtime.process.pid() {
            scope.forget(pid);
        }
        let process = Arc::new(SharedProcess::new(
            runtime,
            handshake,
            members,
            self.deaths_of(key),
        ));
        if let Some(stale) = slot.replace(process.clone()) {
            tracing::debug!(?stale, "a dead shared process replaced");
        }
        tracing::info!(
            pid = ?process.pid(),
            label = process.runtime().label(),
            "shared agent process started"
        );
        Ok(process)
    }

    /// The last member of `process` left at `epoch`: it stops after the idle grace (with
    /// none, now, and this waits until it is gone).
    pub(super) async fn idle(&self, key: SharedKey, process: Arc<SharedProcess>, epoch: u64) {
        if self.idle_grace().is_zero() {
            self.stop_idle(key, process, epoch).await;
        } else if let Some(fresh) = self.fresh_for(&key) {
            self.stop_idle(key.clone(), process, epoch).await;
            self.refill(key, fresh);
        } else {
            self.idle_later(key, process, epoch);
        }
    }

    /// [`SharedProcesses::idle`] from a destructor: with no grace the process is killed at once
    /// (as a dropped session's own process is), else a task waits out the grace.
    pub(super) fn idle_later(&self, key: SharedKey, process: Arc<SharedProcess>, epoch: u64) {
        let rt = tokio::runtime::Handle::try_current();
        if self.idle_grace().is_zero() || rt.is_err() {
            if process.stop_if_idle(epoch) {
                process.runtime().kill_now();
            }
            return;
        }
        let Ok(rt) = rt else { return };
        if let Some(fresh) = self.fresh_for(&key) {
            if process.stop_if_idle(epoch) {
                process.runtime().kill_now();
            }
            let pool = self.clone();
            rt.spawn(async move {
                pool.stop_idle(key.clone(), process, epoch).await;
                pool.refill(key, fresh);
            });
            return;
        }
        if process.rpc().is_closed() {
            // Dead already (the last member left after a crash): no spare.
            let pool = self.clone();
            rt.spawn(async move { pool.stop_idle(key, process, epoch).await });
            return;
        }
        self.keep_idle(&rt, key, process, epoch);
    }

    /// Keeps idle `process` as the provider's spare for the idle grace (or until it dies).
    pub(super) fn keep_idle(
        &self,
        rt: &tokio::runtime::Handle,
        key: SharedKey,
        process: Arc<SharedProcess>,
        epoch: u64,
    ) {
        self.keep_as_spare(rt, &key, &process, epoch);
        let pool = self.clone();
        let grace = self.idle_grace();
        rt.spawn(async move {
            // A spare that dies while idle is dropped at once (the next open starts another).
            tokio::select! {
                _ = tokio::time::sleep(grace) => {}
                _ = process.runtime().process.wait_exit() => {}
            }
            pool.stop_idle(key, process, epoch).await;
        });
    }

    /// Registers idle `process` as the provider's spare; the previous spare, if still idle,
    /// stops (one spare per provider).
    fn keep_as_spare(
        &self,
        rt: &tokio::runtime::Handle,
        key: &SharedKey,
        process: &Arc<SharedProcess>,
        epoch: u64,
    ) {
        let weak_pool = Arc::downgrade(&self.inner);
        let weak_process = Arc::downgrade(process);
        let stop_key = key.clone();
        let provider = self
            .inner
            .provider
            .get()
            .cloned()
            .unwrap_or_else(|| process.runtime().label().to_string());
        let ticket =
            crate::spares::register(&provider, process.pid().unwrap_or(0), "shared", move || {
                Box::pin(async move {
                    let (Some(inner), Some(process)) =
                        (weak_pool.upgrade(), weak_process.upgrade())
                    else {
                        return;
                    };
                    SharedProcesses { inner }
                        .stop_idle(stop_key, process, epoch)
                        .await;
                })
            });
        let previous = lock(&self.inner.spare).replace(IdleSpare {
            key: key.clone(),
            process: Arc::downgrade(process),
            epoch,
            _ticket: ticket,
        });
        let Some(previous) = previous else { return };
        if let Some(old) = previous.process.upgrade() {
            if !Arc::ptr_eq(&old, process) {
                tracing::info!(pid = ?old.pid(), "another idle process replaces the spare");
                let pool = self.clone();
                rt.spawn(async move { pool.stop_idle(previous.key, old, previous.epoch).await });
            }
        }
    }

    /// Stops `process` unless a member joined since it became idle at `epoch`.
    pub(super) async fn stop_idle(&self, key: SharedKey, process: Arc<SharedProcess>, epoch: u64) {
        let cell = self.cell(&key);
        {
            let mut slot = cell.lock().await;
            if !process.stop_if_idle(epoch) {
                return;
            }
            if slot.as_ref().is_some_and(|p| Arc::ptr_eq(p, &process)) {
                *slot = None;
            }
        }
        self.unspare(&process);
        tracing::info!(pid = ?process.pid(), "idle shared agent process stopped");
        process.runtime().shutdown(self.inner.stop_limit).await;
    }
}
