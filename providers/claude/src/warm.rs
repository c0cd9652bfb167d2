//! Warm session open: one spare `claude` process per spawn key, pre-started and initialized
//! (its control `initialize` answered), so the next `session.open` with the very same command
//! line, cwd and environment takes it instead of paying for the CLI's start.
//!
//! - The key is the whole spawn: program, arguments (model, permission mode, effort, tools,
//!   MCP servers, system prompt...), cwd and environment. Anything that differs (a `--resume`,
//!   another model or mode, another env) does not match and spawns as before.
//! - At most one spare per key and [`WarmConfig::max_spares`] in all (default one: the most
//!   recently used spawn's; the oldest goes first).
//! - A spare is not a session: it has no session id and no sink, and its events are dropped.
//! - It never leaks: it is stopped after [`WarmConfig::idle`] unused, when the pool (the
//!   provider) is dropped, and with the bridge (the supervisor's guard kills its group). A
//!   dropped [`Runtime`] SIGKILLs its process group.
//! - `AGENT_BRIDGE_CLAUDE_SPARE=0` in the bridge's environment turns spares off. The idle time
//!   is the core's default ([`agent_bridge_core::spares::DEFAULT_IDLE`]); the core's
//!   `AGENT_BRIDGE_SPARE_IDLE_SECS` sets the shared families' idle time, not this one's.
//! - A ready spare is registered with the core's spares (reported by `doctor --json` as
//!   `prestarted`, stopped by the bridge's exit like every family's spare).
//!
//! Claude keeps its own pool rather than the shared-process one: its spare is not a process a
//! session left but one started ahead for an exact spawn (cwd and flags included), and its
//! process is Claude's own runtime (stream-json channel, normalizer, events), not the core's
//! JSON-RPC `AgentRuntime`.

use crate::launch::LaunchOptions;
use crate::normalize::{Mode, Normalizer};
use crate::runtime::{initialize, spawn_runtime, startup_error, Runtime};
use agent_bridge_core::lifecycle::lock;
use agent_bridge_core::spares::{self, SpareTicket};
use agent_bridge_core::supervisor::{LaunchOverride, SpawnSpec};
use agent_bridge_core::SessionSink;
use agent_bridge_protocol::ProviderError;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::AbortHandle;

/// How long an unused spare is kept (the core's default for every family).
pub const IDLE_LIMIT: Duration = agent_bridge_core::spares::DEFAULT_IDLE;
/// Most spares kept at once by default: one, for the most recently used spawn (a spare is a
/// whole CLI process, ~165 MB resident for claude 2.1.197; `warmSpares` raises it).
pub const MAX_SPARES: usize = 1;
/// The bridge environment variable that turns spares off (`0`).
pub const SPARE_ENV: &str = "AGENT_BRIDGE_CLAUDE_SPARE";

/// What a spare must match to serve an open: the exact spawn.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SpareKey {
    program: String,
    args: Vec<String>,
    cwd: Option<PathBuf>,
    base_env: Option<BTreeMap<String, String>>,
    env: BTreeMap<String, String>,
    env_remove: Vec<String>,
    /// A digest of the MCP servers' config (it is passed in a file, not in `args`).
    mcp_config: Option<u64>,
}

impl SpareKey {
    /// The key of `spec` (spawned without an MCP config file) with the MCP config `mcp`.
    pub fn of(spec: &SpawnSpec, mcp: Option<&str>) -> Self {
        use std::hash::{Hash, Hasher};
        let mcp_config = mcp.map(|json| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            json.hash(&mut h);
            h.finish()
        });
        SpareKey {
            mcp_config,
            program: spec.program.clone(),
            args: spec.args.clone(),
            cwd: spec.cwd.clone(),
            base_env: spec.base_env.clone(),
            env: spec.env.clone(),
            env_remove: spec.env_remove.clone(),
        }
    }
}

/// How a session process is started: enough to start a spare like it.
#[derive(Debug, Clone)]
pub struct SpareStart {
    pub launch: LaunchOverride,
    /// The session's `config.env` overlay.
    pub env: BTreeMap<String, String>,
    pub opts: LaunchOptions,
}

impl SpareStart {
    pub fn key(&self) -> SpareKey {
        let spec = self.opts.spec(&self.launch, &self.env, None);
        SpareKey::of(&spec, self.opts.mcp_config().as_deref())
    }
}

/// A started, initialized process waiting for a session.
pub struct Spare {
    pub runtime: Runtime,
    /// The CLI's answer to `initialize` (commands, models).
    pub init: Value,
}

impl Spare {
    /// Starts a process and waits for its `initialize` answer.
    pub async fn start(start: &SpareStart) -> Result<Spare, ProviderError> {
        let mut runtime =
            spawn_runtime("spare", &start.launch, &start.env, &start.opts, None).await?;
        match initialize(&runtime.channel).await {
            Ok(init) => {
                runtime.release_mcp_config().await;
                Ok(Spare { runtime, init })
            }
            Err(e) => Err(startup_error(&mut runtime, "initialize", e).await),
        }
    }

    /// Hands the process to session `session_id`: its events go to `sink` from now on.
    pub fn attach(self, session_id: &str, sink: SessionSink) -> (Runtime, Value) {
        lock(&self.runtime.shared).normalizer = Normalizer::new(session_id, Mode::Live);
        self.runtime.events.attach(sink);
        (self.runtime, self.init)
    }

    /// The process id (of the guard when the bridge runs one).
    pub async fn pid(&self) -> Option<u32> {
        self.runtime.agent.process.pid()
    }
}

/// Limits of the pool.
#[derive(Debug, Clone)]
pub struct WarmConfig {
    pub enabled: bool,
    pub idle: Duration,
    pub max_spares: usize,
    /// The provider id its spares are reported under.
    pub provider: String,
}

impl Default for WarmConfig {
    fn default() -> Self {
        WarmConfig {
            enabled: true,
            idle: IDLE_LIMIT,
            max_spares: MAX_SPARES,
            provider: "claude-bridge".into(),
        }
    }
}

impl WarmConfig {
    /// The defaults, unless the bridge's environment turns spares off.
    pub fn from_env() -> Self {
        let off = std::env::var(SPARE_ENV).is_ok_and(|v| v == "0" || v == "false");
        WarmConfig {
            enabled: !off,
            ..WarmConfig::default()
        }
    }
}

struct Entry {
    id: u64,
    key: SpareKey,
    spare: Spare,
    reaper: AbortHandle,
    /// Its registration with the core's spares (dropped with the entry).
    _ticket: SpareTicket,
}

#[derive(Default)]
struct PoolState {
    entries: Vec<Entry>,
    /// Spares being started; each channel turns true when its start is over.
    starting: HashMap<SpareKey, watch::Receiver<bool>>,
    closed: bool,
    next_id: u64,
}

impl PoolState {
    fn remove(&mut self, index: usize) -> Spare {
        let entry = self.entries.remove(index);
        entry.reaper.abort();
        entry.spare
    }
}

/// The spares of one provider. Dropping it kills them.
pub struct WarmPool {
    state: Arc<Mutex<PoolState>>,
    config: WarmConfig,
}

impl WarmPool {
    pub fn new(config: WarmConfig) -> Self {
        WarmPool {
            state: Arc::new(Mutex::new(PoolState::default())),
            config,
        }
    }

    pub fn enabled(&self) -> bool {
        self.config.enabled
    }

    /// How many spares are ready.
    pub fn len(&self) -> usize {
        self.state.lock().map(|s| s.entries.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Takes the spare for `key`, if a live one is ready.
    pub fn take(&self, key: &SpareKey) -> Option<Spare> {
        let mut state = self.state.lock().ok()?;
        let index = state.entries.iter().position(|e| &e.key == key)?;
        let spare = state.remove(index);
        if spare.runtime.is_dead() {
            tracing::debug!("the claude spare died; spawning instead");
            return None;
        }
        Some(spare)
    }

    /// Takes the spare for `key`, waiting for it when it is still starting (it is then ready
    /// sooner than a fresh process would be).
    pub async fn take_or_wait(&self, key: &SpareKey) -> Option<Spare> {
        self.wait_started(key).await;
        self.take(key)
    }

    /// Waits until the spare being started for `key`, if any, is ready (or failed).
    pub async fn wait_started(&self, key: &SpareKey) {
        let starting = self
            .state
            .lock()
            .ok()
            .and_then(|s| s.starting.get(key).cloned());
        if let Some(mut done) = starting {
            // An error means the start was dropped: nothing to wait for.
            let _ = done.wait_for(|d| *d).await;
        }
    }

    /// The `initialize` answer of the ready spare for `key` (it stays ready).
    pub fn peek_init(&self, key: &SpareKey) -> Option<Value> {
        let state = self.state.lock().ok()?;
        state
            .entries
            .iter()
            .find(|e| &e.key == key && !e.spare.runtime.is_dead())
            .map(|e| e.spare.init.clone())
    }

    /// Keeps `spare` as the ready one for `key`; hands it back when the pool is off or closed,
    /// or already has one for that key.
    pub fn offer(&self, key: SpareKey, spare: Spare) -> Option<Spare> {
        if !self.config.enabled {
            return Some(spare);
        }
        insert(&self.state, &self.config, key, spare)
    }

    /// Starts a spare for `start` in the background, unless one is ready or starting.
    pub fn replenish(&self, start: SpareStart) {
        if !self.config.enabled {
            return;
        }
        let key = start.key();
        let (done, done_rx) = watch::channel(false);
        {
            let Ok(mut state) = self.state.lock() else {
                return;
            };
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
        tokio::spawn(async move {
            let started = Spare::start(&start).await;
            // Dropping a spare (pool gone, or not kept) kills its process.
            let Some(state) = weak.upgrade() else { return };
            let extra = match started {
                Ok(spare) => insert(&state, &config, key.clone(), spare),
                Err(e) => {
                    tracing::debug!("could not start a claude spare: {}", e.message);
                    None
                }
            };
            if let Ok(mut s) = state.lock() {
                s.starting.remove(&key);
            }
            drop(state);
            let _ = done.send(true);
            if let Some(mut extra) = extra {
                extra.runtime.shutdown().await;
            }
        });
    }
}

/// Puts a spare into the pool and arms its idle timer; hands it back when it is not kept.
fn insert(
    state: &Arc<Mutex<PoolState>>,
    config: &WarmConfig,
    key: SpareKey,
    spare: Spare,
) -> Option<Spare> {
    let Ok(mut s) = state.lock() else {
        return Some(spare);
    };
    if s.closed || s.entries.iter().any(|e| e.key == key) {
        return Some(spare);
    }
    s.next_id += 1;
    let id = s.next_id;
    let reaper = tokio::spawn(reap_after(Arc::downgrade(state), id, config.idle)).abort_handle();
    let pid = spare.runtime.agent.process.pid().unwrap_or(0);
    let weak = Arc::downgrade(state);
    let ticket = spares::register(&config.provider, pid, "prestarted", move || {
        Box::pin(async move {
            let Some(state) = weak.upgrade() else { return };
            let spare = state.lock().ok().and_then(|mut s| {
                let index = s.entries.iter().position(|e| e.id == id)?;
                Some(s.remove(index))
            });
            drop(state);
            if let Some(mut spare) = spare {
                spare.runtime.shutdown().await;
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
async fn reap_after(state: Weak<Mutex<PoolState>>, id: u64, idle: Duration) {
    tokio::time::sleep(idle).await;
    let Some(state) = state.upgrade() else { return };
    let spare = state.lock().ok().and_then(|mut s| {
        let index = s.entries.iter().position(|e| e.id == id)?;
        let entry = s.entries.remove(index);
        Some(entry.spare)
    });
    drop(state);
    if let Some(mut spare) = spare {
        tracing::debug!("stopping an idle claude spare");
        spare.runtime.shutdown().await;
    }
}

impl Drop for WarmPool {
    fn drop(&mut self) {
        let entries = match self.state.lock() {
            Ok(mut s) => {
                s.closed = true;
                std::mem::take(&mut s.entries)
            }
            Err(_) => Vec::new(),
        };
        for entry in entries {
            entry.reaper.abort();
            // Dropping the runtime SIGKILLs its process group.
            drop(entry.spare);
        }
    }
}

#[cfg(test)]
#[path = "warm_tests.rs"]
mod tests;
